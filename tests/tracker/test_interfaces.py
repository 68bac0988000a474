"""The tracker's interfaces around the programs: flags, last_saved_repro, the fallback when jax was
imported first, the .pth start-up line, tracker failures, and ``jax-track --reduce``."""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap

import pytest

from reducer import signature_of
from reducer.judging.signature import Signature
from tracker.config import ConfigError, Flags
from tracker_harness import ALLOWED_IMPORTS, PTH, PROGRAMS, imports_of, load_leaves, run

SIGNATURE = Signature(pure_jax=True)  # repros call JAX alone


def test_flags_parse():
    flags = Flags.parse("log_calls=2, error_mode=raise,save_arrays,fake_array_threshold=16,log_call_details=3+7")
    assert (flags.log_calls, flags.error_mode, flags.save_arrays, flags.fake_array_threshold) == (2, "raise", True, 16)
    assert flags.log_call_details == frozenset({3, 7})
    assert Flags.parse("") == Flags()


@pytest.mark.parametrize("text, message", [
    ("fake_array_treshold=4", r"unknown JAX_REPRO_FLAGS flag 'fake_array_treshold'; known: .*fake_array_threshold"),
    ("fake_array_threshold=many", r"bad value 'many' for JAX_REPRO_FLAGS flag 'fake_array_threshold'"),
    ("error_mode=loud", r"error_mode must be one of ignore, log, defer, raise, not 'loud'"),
])
def test_flags_errors_are_clear(text, message):
    with pytest.raises(ConfigError, match=message):
        Flags.parse(text)


def test_bad_flags_on_the_command_line_and_at_start_up(tmp_path):
    script = tmp_path / "hello.py"
    script.write_text("print('ran')\n")
    # jax-track refuses to start, naming the bad flag.
    cli = run([sys.executable, "-m", "tracker", "--flags", "save_arays", str(script)], str(tmp_path))
    assert cli.returncode == 2 and "unknown JAX_REPRO_FLAGS flag 'save_arays'" in cli.stderr, cli.stderr
    assert "ran" not in cli.stdout
    # The .pth start-up line says tracking is off, and the program itself still runs.
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    shutil.copy(PTH, site_dir)
    boot = f"import site; site.addsitedir({str(site_dir)!r}); exec(open({str(script)!r}).read())"
    implicit = run([sys.executable, "-c", boot], str(tmp_path), JAX_REPRO_DIR=str(tmp_path / "r"),
                   JAX_REPRO_FLAGS="error_mode=loud")
    assert implicit.returncode == 0 and implicit.stdout.strip() == "ran", implicit.stderr
    assert "error_mode must be one of" in implicit.stderr and "tracking is off" in implicit.stderr


def test_pth_line_does_nothing_without_jax_repro_dir(tmp_path):
    shutil.copy(PTH, tmp_path)
    probe = (f"import site, sys; site.addsitedir({str(tmp_path)!r}); "
             "print(any(m.startswith(('tracker', 'jax')) for m in sys.modules))")
    out = run([sys.executable, "-c", probe], str(tmp_path))
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr


_FALLBACK = textwrap.dedent('''
    import json, sys, warnings
    import numpy as np
    import jax                      # before the tracker: its import hook cannot be installed
    import jax.numpy as jnp
    from jax import lax

    @jax.jit                        # jitted before the tracker wraps jax.jit
    def smooth(x):
        return lax.fori_loop(0, 3, lambda i, v: 0.5 * (v + jnp.roll(v, 1)), x)

    import tracker

    def pipeline(x):
        return jax.vmap(jnp.outer, in_axes=(0, None))(smooth(x).reshape(2, 2), x)

    print(tracker.last_saved_repro())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tracker.collect(pipeline, "pipeline", directory=sys.argv[1])(jnp.arange(4.0))
    np.save(sys.argv[2], np.asarray(result))
    print(json.dumps({"warnings": [str(w.message) for w in caught], "last": tracker.last_saved_repro()}))
''')


def test_fallback_warns_and_still_records_and_last_saved_repro(tmp_path):
    program = tmp_path / "fallback.py"
    program.write_text(_FALLBACK)
    out = run([sys.executable, str(program), str(tmp_path / "repros"), str(tmp_path / "original.npy")], str(tmp_path))
    assert out.returncode == 0, out.stderr
    before, report = out.stdout.strip().splitlines()[-2:]
    assert before == "None"  # nothing saved yet
    report = json.loads(report)
    assert any("imported before the jax-reduce tracker" in w for w in report["warnings"]), report
    path, source, verdict = report["last"]
    assert path == str(tmp_path / "repros" / "pipeline_1.py")
    with open(path) as f:
        assert f.read() == source
    # Recorded through the fallback: the jit made before the tracker, its fori_loop, the vmap.
    for text in ("jax.jit(", "lax.fori_loop(", "jax.vmap(", "in_axes=(0, None)"):
        assert text in source, source
    assert imports_of(source) <= ALLOWED_IMPORTS
    saved = tmp_path / "repro.npz"
    check = run([sys.executable, "-c", "import runpy, sys, numpy as np; "
                 "np.savez(sys.argv[2], runpy.run_path(sys.argv[1])['result'])", path, str(saved)], str(tmp_path))
    assert check.returncode == 0, check.stderr
    import numpy as np
    np.testing.assert_allclose(load_leaves(str(saved))[0], np.load(tmp_path / "original.npy"), rtol=1e-6)


_BROKEN_EMITTER = textwrap.dedent('''
    import sys
    import tracker.emitter

    def broken(self):
        raise RuntimeError("emitter exploded")

    tracker.emitter.Emitter.emit = broken
    from tracker.cli import main
    sys.exit(main(sys.argv[1:]))
''')


def test_a_tracker_failure_never_changes_the_users_error(tmp_path):
    program = os.path.join(PROGRAMS, "fail_tracer_int_index.py")
    plain = run([sys.executable, program], str(tmp_path))
    driver = tmp_path / "driver.py"
    driver.write_text(_BROKEN_EMITTER)
    tracked = run([sys.executable, str(driver), "--repro-dir", str(tmp_path / "r"), program], str(tmp_path))
    # Same exit code, the same last line (the user's exception), and the tracker's problem reported.
    assert tracked.returncode == plain.returncode == 1
    user_error = [line for line in plain.stderr.splitlines() if "Error:" in line][-1]
    assert user_error in tracked.stderr.splitlines(), tracked.stderr
    assert "emitter exploded" in tracked.stderr and "could not save a repro" in tracked.stderr
    assert not os.path.exists(tmp_path / "r") or not os.listdir(tmp_path / "r")


_BROKEN_COLLECT = textwrap.dedent('''
    import sys
    import tracker
    import tracker.emitter

    def broken(self):
        raise RuntimeError("emitter exploded")

    tracker.emitter.Emitter.emit = broken
    import jax
    import jax.numpy as jnp

    def scale(x):
        return jnp.reshape(x, (4, 4)) * 2.0

    tracker.collect(scale, "scale", directory=sys.argv[1])(jnp.ones(10))
''')


def test_a_tracker_failure_under_collect_keeps_the_users_error(tmp_path):
    driver = tmp_path / "collect.py"
    driver.write_text(_BROKEN_COLLECT)
    out = run([sys.executable, str(driver), str(tmp_path / "r")], str(tmp_path))
    assert out.returncode == 1
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("TypeError: cannot reshape array of shape (10,)"), out.stderr
    assert "emitter exploded" in out.stderr


_TINY = textwrap.dedent('''
    import jax
    import jax.numpy as jnp


    def activation(x):
        y = jnp.sin(x) * 2.0
        z = jnp.cos(y) + x
        if z.sum() > 0:  # TracerBoolConversionError under jit
            return z
        return y


    print(jnp.ones(2) * 3)
    jax.jit(activation)(jnp.ones(3))
''')


def test_jax_track_reduce(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text(_TINY)
    out = run([sys.executable, "-m", "tracker", "--repro-dir", str(tmp_path / "r"), "--reduce", "--jobs", "2",
               str(script)], str(tmp_path))
    reduced = tmp_path / "r" / "activation_1.reduced.py"
    assert reduced.exists(), out.stderr
    original = signature_of(str(script))
    assert SIGNATURE.same(original, signature_of(str(reduced))), reduced.read_text()
    code = "".join(line for line in reduced.read_text().splitlines(keepends=True) if not line.startswith("#"))
    assert len(code) <= len((tmp_path / "r" / "activation_1.py").read_text())  # its code, after the provenance header


_SUCCEEDS = textwrap.dedent('''
    import jax
    import jax.numpy as jnp
    from jax import lax

    def body(carry, x):
        return carry + x, carry * x

    print(jax.jit(lambda xs: lax.scan(body, 0.0, xs))(jnp.arange(4.0)))
    print(jax.vmap(jnp.outer, in_axes=(0, None))(jnp.ones((2, 2)), jnp.arange(2.0)))
''')


def test_implicit_tracking_leaves_a_succeeding_program_alone(tmp_path):
    script = tmp_path / "fine.py"
    script.write_text(_SUCCEEDS)
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    shutil.copy(PTH, site_dir)
    boot = (f"import site, sys, runpy; site.addsitedir({str(site_dir)!r}); "
            f"import tracker.runtime as r; runpy.run_path({str(script)!r}, run_name='__main__'); "
            "print('enabled', r.RUNTIME.enabled)")
    tracked = run([sys.executable, "-c", boot], str(tmp_path), JAX_REPRO_DIR=str(tmp_path / "repros"))
    plain = run([sys.executable, str(script)], str(tmp_path))
    assert tracked.returncode == plain.returncode == 0, tracked.stderr
    # The same output, tracking was on, and nothing saved (no error).
    assert tracked.stdout == plain.stdout + "enabled True\n", (tracked.stdout, plain.stdout)
    assert not (tmp_path / "repros").exists() or not os.listdir(tmp_path / "repros")
