"""The jax-reduce tracker: record a JAX program's call tree and emit a standalone repro.

- Implicit: with ``JAX_REPRO_DIR`` set (and this package installed), a final failure under a JAX API
  saves ``$JAX_REPRO_DIR/<name>_<n>.py`` once: an uncaught exception, a failing pytest test
  (``pytest_plugin``, named after the test), a traceback IPython shows.
- Explicit: ``tracker.collect(fn, repro_name="name")`` saves a repro each time ``fn`` runs.
- ``jax-track script.py`` runs a script under the tracker (``--reduce`` also reduces the repro).

What it owns: the hooks on JAX's APIs (hook; apis for the higher-order ones; firstorder, arraymethods,
numpyindex, treefunctions and primitives for the first-order ones), the recorded call tree (runtime,
calltree, values, records), turning that tree into a repro (emitter, with analysis for its scopes, site
for the context handlers write in, layout for the module around the statements, operators for array
operators, and libcst nodes built with nodes; scopes.check_scopes checks that every name a repro reads is
bound) and saving it (api, cli, config; failures tells repeated failures apart, pytest_plugin saves for
failing tests).
What it may import: jax, numpy, libcst, the standard library, ``reprokit`` and the reducer's public
face only (``reducer`` itself, for ``--reduce`` and signatures); never a reducer submodule
(tests/test_architecture.py enforces it). The reducer never imports the tracker.
"""

import sys as _sys

from tracker.hook import install as _install

if "jax" not in _sys.modules:
    # Importing the tracker before jax means to track: take JAX's own hook, not the fallback.
    _install()

from tracker.api import collect, enable, last_saved_repro, save_for_exception
from tracker.config import ConfigError, Flags
from tracker.runtime import ReproError

__all__ = ["collect", "enable", "last_saved_repro", "save_for_exception", "ConfigError", "Flags",
           "ReproError"]
