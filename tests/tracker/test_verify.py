"""Verification at save time: every repro saved for an error is run once, fresh; its first line says whether
it reproduces the original failure, and when it does not, the original program and its local modules are
copied beside it and ``jax-track --reduce`` reduces that copy.

The repros of the tracker's own programs are checked in test_programs.py (each must say "reproduces",
and the harness confirms it independently). Here: a failure no repro can show, a user-defined exception
class raised inside a jitted function (a repro is pure JAX and cannot define the user's classes).
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from reducer import signature_of
from reducer.judging.signature import Signature
from tracker_harness import TIMEOUT, run

HELPER = textwrap.dedent('''
    class ShapeMismatch(Exception):
        """The program's own error type."""

    def check(x, n):
        if x.shape[0] != n:
            raise ShapeMismatch(f"expected {n} rows, got {x.shape[0]}")
''')

PROGRAM = textwrap.dedent('''
    import jax
    import jax.numpy as jnp
    from checks import check

    @jax.jit
    def normalise(x):
        check(x, 4)
        return x / jnp.linalg.norm(x)

    print(normalise(jnp.ones(3)))
''')


def _project(tmp_path):
    (tmp_path / "checks.py").write_text(HELPER)
    (tmp_path / "prog.py").write_text(PROGRAM)
    return tmp_path / "prog.py"


def test_a_repro_that_does_not_reproduce_says_so_and_the_original_is_copied_beside_it(tmp_path):
    program = _project(tmp_path)
    done = run([sys.executable, "-m", "tracker", "--repro-dir", "repros", str(program)], str(tmp_path))
    assert done.returncode == 1, done.stderr
    repros = tmp_path / "repros"
    assert sorted(p.name for p in repros.iterdir()) == ["normalise_1.py", "normalise_1_original"]
    header = (repros / "normalise_1.py").read_text().splitlines()[:2]
    # The original's signature read in the failing process is the one a fresh run of it gives.
    original = Signature().describe(signature_of(str(program), timeout=TIMEOUT))
    assert header[0] == f"# jax-reduce tracker: does NOT reproduce {original}: it ran without an error instead"
    copy = repros / "normalise_1_original"
    assert header[1] == f"# jax-reduce tracker: the original program is copied to {copy / 'prog.py'}; reduce that instead"
    assert sorted(p.name for p in copy.iterdir()) == ["checks.py", "prog.py"]
    assert (copy / "prog.py").read_bytes() == program.read_bytes()
    assert (copy / "checks.py").read_bytes() == (tmp_path / "checks.py").read_bytes()
    # The copy fails as the original does: reduction can start from it.
    assert Signature().key(signature_of(str(copy / "prog.py"), timeout=TIMEOUT)) == \
        Signature().key(signature_of(str(program), timeout=TIMEOUT))
    assert "does NOT reproduce" in done.stderr


def test_jax_track_reduce_reduces_the_copy_when_the_repro_does_not_reproduce(tmp_path):
    program = _project(tmp_path)
    done = run([sys.executable, "-m", "tracker", "--repro-dir", "repros", "--reduce", "--jobs", "2",
                str(program)], str(tmp_path))
    reduced = tmp_path / "repros" / "normalise_1_original" / "prog.reduced.py"
    assert reduced.exists(), done.stderr
    assert "reduced " in done.stderr and str(reduced) in done.stderr
    key = Signature().key(signature_of(str(program), timeout=TIMEOUT))
    # The reducer merged checks.py into the program (reducer/program/merge/): the result is one file, and the
    # program's own exception class now lives in it, as __main__.ShapeMismatch; nothing else differs.
    text = reduced.read_text()
    assert "import checks" not in text and "from checks" not in text, text
    assert key[1] == "checks.ShapeMismatch"
    merged = (key[0], "__main__.ShapeMismatch", *key[2:])
    assert Signature().key(signature_of(str(reduced), timeout=TIMEOUT)) == merged


def test_verification_can_be_turned_off_and_last_saved_repro_carries_the_verdict(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent('''
        import json, sys
        import tracker
        import jax, jax.numpy as jnp
        try:
            jax.jit(jnp.dot)(jnp.ones((2, 3)), jnp.ones((4, 5)))
        except TypeError as error:
            tracker.save_for_exception(error)
        saved = tracker.last_saved_repro()
        print(json.dumps({"path": saved.path, "verdict": saved.verdict and saved.verdict.summary()}))
    '''))
    verified = run([sys.executable, str(script)], str(tmp_path), JAX_REPRO_DIR=str(tmp_path / "on"))
    report = json.loads(verified.stdout.strip().splitlines()[-1])
    assert report["verdict"].startswith("reproduces TypeError: dot_general requires contracting dimensions"), report
    assert report["verdict"].endswith("(verified in a fresh interpreter)")
    first = (tmp_path / "on" / "dot_1.py").read_text().splitlines()[0]
    assert first == "# jax-reduce tracker: " + report["verdict"]

    off = run([sys.executable, str(script)], str(tmp_path), JAX_REPRO_DIR=str(tmp_path / "off"),
              JAX_REPRO_FLAGS="verify=0")
    report = json.loads(off.stdout.strip().splitlines()[-1])
    assert report["verdict"] is None
    assert not (tmp_path / "off" / "dot_1.py").read_text().startswith("# jax-reduce tracker")


WATCHER = textwrap.dedent('''
    import json, os, sys
    from pathlib import Path
    import jax, jax.numpy as jnp
    from reducer.execution import proctree

    def cmdline(pid):
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\\0", b" ").decode()
        except OSError:
            return ""

    starter = os.getppid() if sys.argv[2] == "parent" else os.getpid()
    # (its own children are the sandbox's: the same command line, in private namespaces)
    ahead = [pid for pid in proctree.children(starter) if "prepared='jax'" in cmdline(pid)]
    Path("ahead.json").write_text(json.dumps([ahead, [p for pid in ahead for p in proctree.tree(pid)]]))
    if sys.argv[1] == "fail":
        jax.jit(jnp.dot)(jnp.ones((2, 3)), jnp.ones((4, 5)))
''')


@pytest.mark.parametrize("ends", ["fail", "succeed", "not verified", "fail, no parent"])
def test_jax_track_starts_the_verifying_interpreter_before_the_script_and_leaves_none_behind(tmp_path, ends):
    """The repro's verification runs in an interpreter started before the script (it imports jax while the
    script runs): by jax-track's waiting parent, or by the script's process where there is no parent
    (JAX_TRACK_CHILD set). It is there while the script runs, only when repros are verified, and gone when
    jax-track ends, whether a repro used it or not."""
    (tmp_path / "watch.py").write_text(WATCHER)
    flags = ["--flags", "verify=0"] if ends == "not verified" else []
    alone = {"JAX_TRACK_CHILD": str(tmp_path / "told")} if ends == "fail, no parent" else {}
    done = run([sys.executable, "-m", "tracker", "--repro-dir", "repros", *flags, "watch.py",
                "succeed" if ends == "succeed" else "fail", "own" if alone else "parent"], str(tmp_path), **alone)
    ahead, processes = json.loads((tmp_path / "ahead.json").read_text())
    assert len(ahead) == (0 if ends == "not verified" else 1), done.stderr
    assert [pid for pid in processes if _running(pid)] == []
    if ends == "succeed":
        assert done.returncode == 0 and not (tmp_path / "repros").exists()
    else:
        assert done.returncode == 1
        first = (tmp_path / "repros" / "dot_1.py").read_text().splitlines()[0]
        assert first.startswith("# jax-reduce tracker: reproduces TypeError") == (ends != "not verified"), first


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended


def test_the_script_is_copied_when_no_frame_of_it_is_in_the_failures_traceback(tmp_path):
    """A NaN that jax_debug_nans catches in jnp.log's own dispatch: the traceback kept at the JAX call has no
    frame of the script, and the failure is saved after the script ended, when __main__ is jax-track's module
    again; the repro (its 200 values faked as ones, above fake_array_threshold) does not reproduce, so the
    script is still what gets copied beside it."""
    program = tmp_path / "prog.py"
    program.write_text('import jax\nimport jax.numpy as jnp\nimport numpy as np\n\n'
                       'jax.config.update("jax_debug_nans", True)\n'
                       'print(jnp.log(-np.arange(1.0, 201.0, dtype=np.float32)))\n')
    done = run([sys.executable, "-m", "tracker", "--repro-dir", "repros", str(program)], str(tmp_path))
    assert done.returncode == 1, done.stderr
    repros = tmp_path / "repros"
    assert sorted(p.name for p in repros.iterdir()) == ["log_1.py", "log_1_original"]
    header = (repros / "log_1.py").read_text().splitlines()[:2]
    assert header[0].startswith("# jax-reduce tracker: does NOT reproduce FloatingPointError: invalid value (nan) "
                                "encountered in log") and header[0].endswith("it ran without an error instead")
    copy = repros / "log_1_original" / "prog.py"
    assert header[1] == f"# jax-reduce tracker: the original program is copied to {copy}; reduce that instead"
    assert copy.read_bytes() == program.read_bytes()
