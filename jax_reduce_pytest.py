"""The ``pytest11`` entry point of jax-reduce's tracker (``tracker.pytest_plugin``).

pytest imports every installed plugin in every run, so this module stays outside the ``tracker``
package, whose import installs JAX hooks: with ``JAX_REPRO_DIR`` unset it costs one environment lookup.
"""

import os

if os.environ.get("JAX_REPRO_DIR"):
    from tracker.pytest_plugin import pytest_runtest_makereport, pytest_terminal_summary  # noqa: F401
