"""jax-track runs the script in a child process: a program that dies of a fatal signal inside the tracked run
(no Python code runs after it) still leaves its source-level fallback, and everything else passes through."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from reducer import Kind, signature_of
from reprokit.localmodules import local_module_files
from tracker_harness import TIMEOUT, env, run

HELPER = "def double(x):\n    return x * 2\n"

CRASHING = textwrap.dedent('''\
    #!/usr/bin/env python
    # -*- coding: utf-8 -*-
    import ctypes
    import os
    import jax.numpy as jnp
    from helpers import double

    print(double(jnp.ones(3)).sum(), flush=True)  # a real JAX call first, then the crash
    {crash}
''')

HEADER = ("# jax-reduce tracker: no traced repro: the program died of {name} inside the tracked run, and no Python "
          "code runs after a fatal signal, so none could be saved\n"
          "# jax-reduce tracker: this is a copy of the original program, its local modules beside it: reduce this "
          "copy (jax-reduce prog.py; jax-track --reduce does)\n")


def track(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "tracker", "--repro-dir", "repros", *args], str(tmp_path))


@pytest.mark.parametrize("crash, signum", [("ctypes.string_at(0)", signal.SIGSEGV), ("os.abort()", signal.SIGABRT)])
def test_a_program_that_dies_of_a_signal_leaves_its_copy_headed_by_why(tmp_path, crash, signum):
    program = tmp_path / "prog.py"
    program.write_text(CRASHING.format(crash=crash))
    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "unrelated.py").write_text("x = 1\n")  # beside it, never imported: not copied
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    done = track(tmp_path, str(program))
    # jax-track dies of the child's signal, as the plain run does; the program's stdout passed through.
    assert done.returncode == -signum, done.stderr
    assert done.stdout == "6.0\n"
    name = signal.Signals(signum).name
    copy = tmp_path / "repros" / "prog_crash_1_original"
    assert done.stderr.splitlines()[-1] == (f"jax-reduce tracker: the program died of {name}; no traced repro could "
                                            f"be saved; the original program is copied to {copy / 'prog.py'}; "
                                            "reduce that")
    assert sorted(p.name for p in (tmp_path / "repros").iterdir()) == ["prog_crash_1_original"]
    assert sorted(p.name for p in copy.iterdir()) == ["helpers.py", "prog.py"]
    # The header goes after the shebang and coding lines, which must stay first; the rest is the original.
    lines = program.read_text().splitlines(keepends=True)
    assert (copy / "prog.py").read_text() == "".join(lines[:2]) + HEADER.format(name=name) + "".join(lines[2:])
    assert (copy / "helpers.py").read_text() == HELPER
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == \
        {k: v for k, v in before.items()}  # the originals untouched
    # The copy dies the same way: it is what jax-reduce can start from.
    outcome = signature_of(str(copy / "prog.py"), timeout=TIMEOUT)
    assert (outcome.kind, outcome.signal) == (Kind.CRASH, signum)


def test_a_second_crash_gets_its_own_copy(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("import ctypes\nctypes.string_at(0)\n")
    for _ in range(2):
        assert track(tmp_path, str(program)).returncode == -signal.SIGSEGV
    assert sorted(p.name for p in (tmp_path / "repros").iterdir()) == ["prog_crash_1_original", "prog_crash_2_original"]


def test_main_called_from_python_returns_the_shells_number_instead_of_dying(tmp_path):
    (tmp_path / "prog.py").write_text("import ctypes\nctypes.string_at(0)\n")
    driver = "import sys; from tracker.cli import main; sys.exit(main(['--repro-dir', 'repros', 'prog.py']))"
    done = run([sys.executable, "-c", driver], str(tmp_path))
    assert done.returncode == 128 + signal.SIGSEGV, done.stderr
    assert (tmp_path / "repros" / "prog_crash_1_original" / "prog.py").exists()


def test_an_ordinary_jax_error_is_saved_as_before(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("import jax.numpy as jnp\n\ndef f(x):\n    return jnp.dot(x, x)\n\nf(jnp.ones((2, 3)))\n")
    done = track(tmp_path, str(program))
    assert done.returncode == 1
    assert "\nTypeError: dot_general requires contracting dimensions to have the same shape" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("jax-reduce tracker: saved a repro of TypeError to "), done.stderr
    assert "; it reproduces TypeError: dot_general requires" in done.stderr.splitlines()[-1]
    assert sorted(p.name for p in (tmp_path / "repros").iterdir()) == ["dot_1.py"]


UNTRACED = textwrap.dedent('''\
    import jax
    from helpers import double

    key = jax.random.key(0)
    print(double(jax.random.normal(key, (2,))).shape)  # recorded calls first
    key[0]  # raised inside JAX, but indexing is no call the tracker records
''')


@pytest.mark.parametrize("how", ["jax-track", "JAX_REPRO_DIR"])
def test_an_error_raised_in_jax_outside_the_recorded_calls_leaves_the_program_copied(tmp_path, how):
    program = tmp_path / "prog.py"
    program.write_text(UNTRACED)
    (tmp_path / "helpers.py").write_text(HELPER)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    if how == "jax-track":
        done = track(tmp_path, str(program))
    else:  # the start-up hook's mode: the program run plainly, tracked by its environment
        done = run([sys.executable, "prog.py"], str(tmp_path), JAX_REPRO_DIR=str(tmp_path / "repros"))
    assert done.returncode == 1, done.stderr
    assert "IndexError: Too many indices: array is 0-dimensional, but 1 were indexed" in done.stderr
    copy = tmp_path / "repros" / "prog_untraced_1_original"
    said = (f"jax-reduce tracker: IndexError was raised inside JAX outside the calls the tracker records; no traced "
            f"repro exists; the original program is copied to {copy / 'prog.py'}; reduce that")
    assert said in done.stderr.splitlines()
    assert sorted(p.name for p in copy.iterdir()) == ["helpers.py", "prog.py"]
    innermost = next(line for line in done.stderr.splitlines()[::-1] if line.startswith("  File "))  # as Python printed it
    assert innermost.split('"')[1].endswith(os.path.join("jax", "_src", "numpy", "indexing.py"))
    line = innermost.split("line ")[1].split(",")[0]
    header = (f"# jax-reduce tracker: no traced repro: IndexError was raised inside JAX "
              f"(jax/_src/numpy/indexing.py:{line}, from prog.py:6) but outside the JAX calls the tracker records, "
              "so there is no call to replay\n"
              "# jax-reduce tracker: this is a copy of the original program, its local modules beside it: reduce "
              "this copy (jax-reduce prog.py; jax-track --reduce does)\n")
    assert (copy / "prog.py").read_text() == header + UNTRACED
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    outcome = signature_of(str(copy / "prog.py"), timeout=TIMEOUT)
    assert (outcome.kind, outcome.exc_type) == (Kind.EXCEPTION, "IndexError")


def test_an_error_jax_had_no_part_in_saves_nothing_and_says_so(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("import jax.numpy as jnp\nx = jnp.ones(3)\nraise ValueError('mine')\n")
    done = track(tmp_path, str(program))
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "jax-track: the error did not come from JAX; no repro saved"
    assert not (tmp_path / "repros").exists()


def test_exit_codes_and_output_pass_through(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(3)\n")
    done = track(tmp_path, str(program))
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
    assert not (tmp_path / "repros").exists()


def test_ctrl_c_ends_the_child_and_then_jax_track(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("import time\nimport jax.numpy as jnp\nprint(jnp.ones(2).sum(), flush=True)\ntime.sleep(60)\n")
    # Its own session: the SIGINT below goes to its process group, as a terminal's Ctrl-C does; and Ctrl-C's
    # default disposition, as at a terminal (a suite started in the background inherits an ignored SIGINT, and
    # the script's process, a fork of jax-track, ignores it then as `python prog.py &` would).
    tracked = subprocess.Popen([sys.executable, "-m", "tracker", "--repro-dir", "repros", str(program)],
                               cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert tracked.stdout.readline() == "2.0\n"  # the child is in the script
        children = [int(p) for p in Path(f"/proc/{tracked.pid}/task/{tracked.pid}/children").read_text().split()]
        # The script's process, and the interpreter its repro would be verified in (tracker/ahead.py)
        scripts = [p for p in children if b"prepared=" not in Path(f"/proc/{p}/cmdline").read_bytes()]
        assert len(scripts) == 1
        os.killpg(tracked.pid, signal.SIGINT)
        out, err = tracked.communicate(timeout=30)
    finally:
        tracked.kill()
    # The child reports the KeyboardInterrupt as jax-track always did; jax-track passes its status on.
    assert tracked.returncode == 1, err
    assert "KeyboardInterrupt" in err
    deadline = time.monotonic() + 5
    while any(os.path.exists(f"/proc/{p}") for p in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(os.path.exists(f"/proc/{p}") for p in children)


def test_local_modules_are_read_statically_packages_and_relative_imports_too(tmp_path):
    (tmp_path / "prog.py").write_text("import os\nimport jax\nimport util\nfrom pkg.sub import f\n"
                                      "def g():\n    import lazy\n")
    for name in ("util.py", "lazy.py", "never.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from . import other\n")
    (tmp_path / "pkg" / "other.py").write_text("from .deep import h\n")
    (tmp_path / "pkg" / "deep.py").write_text("")
    (tmp_path / "pkg" / "sub.py").write_text("from ..outside import x\n")  # beyond the top package: not local
    found = [str(p.relative_to(tmp_path)) for p in local_module_files(str(tmp_path / "prog.py"))]
    assert found == ["prog.py", "util.py", "pkg/__init__.py", "pkg/sub.py", "lazy.py", "pkg/other.py",
                     "pkg/deep.py"]
