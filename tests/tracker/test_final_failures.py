"""A repro is saved when a failure is final, and only then: under pytest (a failing test), under IPython
(a shown traceback), at the excepthook; never for an error that a test expects or the program handles.
Also: JAX_REPRO_DIR works right after installing the project, editable or not.

Every run is a real subprocess; the saved files are listed exactly and run in fresh interpreters.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from reducer import signature_of
from reducer.judging.signature import Signature
from tracker_harness import PTH, ROOT, TIMEOUT, run

SIGNATURE = Signature()

# The failing call the suites share, and a second, different failure used as a control: a run that
# saved nothing proves nothing unless the tracker was on; the control proves it was.
PROJECT = textwrap.dedent('''
    import logging
    import jax
    import jax.numpy as jnp
    import pytest

    def project(x, w):
        return jnp.dot(x, w)

    def absolute(x):
        return x if x > 0 else -x
''')
FAILING_CALL = "jax.jit(project)(jnp.ones((2, 3)), jnp.ones((4, 5)))"


def pytest_run(tmp_path, tests: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m pytest`` on ``test_suite.py`` with JAX_REPRO_DIR=tmp_path/repros. The plugin is
    loaded by name and other installed plugins are not, so the run does not depend on this machine's
    installs (test_an_editable_install_needs_no_extra_step loads it through its entry point)."""
    (tmp_path / "test_suite.py").write_text(PROJECT + textwrap.dedent(tests))
    return run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "jax_reduce_pytest",
                *args, "test_suite.py"], str(tmp_path), JAX_REPRO_DIR=str(tmp_path / "repros"),
               PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")


def saved(tmp_path, directory: str = "repros") -> list[str]:
    path = tmp_path / directory
    return sorted(os.listdir(path)) if path.exists() else []


def original_key(tmp_path, call: str):
    """The signature of the failing call run as a plain program, without the tracker."""
    program = tmp_path / "original.py"
    program.write_text(PROJECT + call + "\n")
    outcome = signature_of(str(program), timeout=TIMEOUT)
    assert outcome.exc_type, outcome
    return SIGNATURE.key(outcome)


def assert_reproduces(path, key) -> None:
    outcome = signature_of(str(path), timeout=TIMEOUT)
    assert SIGNATURE.key(outcome) == key, (outcome, path.read_text())
    text = path.read_text()
    assert text.startswith("# jax-reduce tracker: reproduces "), text  # the tracker's own verdict agrees
    code = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("# jax-reduce tracker: "))
    assert "pytest" not in code and "tracker" not in code


def test_a_failing_test_saves_one_repro_named_after_it_and_once_per_failure(tmp_path):
    out = pytest_run(tmp_path, f'''
        def test_fails():
            {FAILING_CALL}

        def test_fails_the_same_way():  # other shapes: the same failure by the reducer's signature
            jax.jit(project)(jnp.ones((6, 7)), jnp.ones((8, 5)))

        def test_fails_without_jax():
            assert jax.jit(project)(jnp.ones((2, 3)), jnp.ones((3, 5))).shape == (5, 2)

        def test_last_saved_repro_is_the_one_file():
            import tracker
            path, source, verdict = tracker.last_saved_repro()
            assert path.endswith("test_suite__test_fails_1.py") and "jnp.dot(" in source
    ''')
    assert out.returncode == 1 and "3 failed, 1 passed" in out.stdout, out.stdout + out.stderr
    assert saved(tmp_path) == ["test_suite__test_fails_1.py"]
    repro = tmp_path / "repros" / "test_suite__test_fails_1.py"
    assert f"test_suite.py::test_fails: saved a repro of TypeError to {repro}" in out.stdout
    assert (f"test_suite.py::test_fails_the_same_way: TypeError is the failure already saved in {repro}; "
            "not saved again") in out.stdout
    assert_reproduces(repro, original_key(tmp_path, FAILING_CALL))


def test_an_expected_handled_or_xfailed_error_saves_nothing(tmp_path):
    out = pytest_run(tmp_path, f'''
        def test_expects_the_error():
            with pytest.raises(TypeError, match="contracting dimensions"):
                {FAILING_CALL}

        def test_handles_and_logs_the_error():
            try:
                {FAILING_CALL}
            except TypeError as error:
                logging.getLogger("train").error("step failed: %s", error)

        @pytest.mark.xfail(raises=TypeError, strict=True)
        def test_known_bug():
            {FAILING_CALL}

        def test_control_fails_differently():
            jax.jit(absolute)(1.0)
    ''')
    assert out.returncode == 1 and "1 failed, 2 passed, 1 xfailed" in out.stdout, out.stdout + out.stderr
    assert saved(tmp_path) == ["test_suite__test_control_fails_differently_1.py"]
    assert_reproduces(tmp_path / "repros" / saved(tmp_path)[0], original_key(tmp_path, "jax.jit(absolute)(1.0)"))


def start_up_boot(tmp_path, code: str) -> str:
    """``python -c`` code that processes the real .pth start-up line first, as site-packages would."""
    site_dir = tmp_path / "site"
    site_dir.mkdir(exist_ok=True)
    shutil.copy(PTH, site_dir)
    return f"import site; site.addsitedir({str(site_dir)!r})\n{code}"


def test_a_program_that_catches_and_logs_the_error_saves_nothing_for_it(tmp_path):
    program = tmp_path / "train.py"
    program.write_text(PROJECT + textwrap.dedent(f'''
        for step in range(3):  # a training loop that logs a failing step and goes on
            try:
                {FAILING_CALL}
            except TypeError as error:
                logging.getLogger("train").error("step %d failed: %s", step, error)
        print("finished training")
        jax.jit(absolute)(1.0)  # the control: an uncaught, different failure
    '''))
    boot = start_up_boot(tmp_path, f"import runpy; runpy.run_path({str(program)!r}, run_name='__main__')")
    out = run([sys.executable, "-c", boot], str(tmp_path), JAX_REPRO_DIR=str(tmp_path / "repros"))
    assert "finished training" in out.stdout and out.stderr.count("failed: dot_general requires") == 3, out.stderr
    assert out.returncode == 1 and "TracerBoolConversionError" in out.stderr, out.stderr
    assert saved(tmp_path) == ["absolute_1.py"], out.stderr
    assert_reproduces(tmp_path / "repros" / "absolute_1.py", original_key(tmp_path, "jax.jit(absolute)(1.0)"))


def test_ipython_saves_when_it_shows_the_traceback(tmp_path):
    pytest.importorskip("IPython")
    cells = PROJECT + textwrap.dedent(f'''
        try:
            {FAILING_CALL}
        except TypeError:
            print("handled")
        jax.jit(absolute)(1.0)
    ''')
    (tmp_path / "cells.py").write_text(cells)
    code = ("from IPython import start_ipython\n"
            "start_ipython(argv=['--quick', '--colors=nocolor', '-c', open('cells.py').read()])")
    out = run([sys.executable, "-c", start_up_boot(tmp_path, code)], str(tmp_path),
              JAX_REPRO_DIR=str(tmp_path / "repros"))
    shown = out.stdout + out.stderr
    assert "handled" in shown and "TracerBoolConversionError" in shown, shown
    assert saved(tmp_path) == ["absolute_1.py"], shown
    assert f"jax-reduce tracker: saved a repro of TracerBoolConversionError to {tmp_path / 'repros'}" in shown
    assert_reproduces(tmp_path / "repros" / "absolute_1.py", original_key(tmp_path, "jax.jit(absolute)(1.0)"))


def installed_env(**extra: str) -> dict[str, str]:
    """The environment of an installed project: no PYTHONPATH pointing at the source tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_REPRO", "PYTHONPATH", "PYTEST_"))}
    return {**env, "JAX_PLATFORMS": "cpu", **extra}


def venv_seeing_this_environment(venv: Path) -> str:
    """A new virtual environment that also sees this one's packages (jax, pytest), behind its own.

    Not ``--system-site-packages``: that shows the *base* interpreter's packages, which in a virtual
    environment (CI's) hold no jax. A path line in a .pth file adds the directory without running the .pth
    files in it, so this environment's own jax-reduce start-up line stays out of the new one. Without a pip of
    its own (installing one costs 2-5 s): this environment's pip is seen there and installs into it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site_packages = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (Path(site_packages) / "_this_environment.pth").write_text("".join(f"{path}\n" for path in ours))
    return python


def test_an_editable_install_needs_no_extra_step(tmp_path):
    python = venv_seeing_this_environment(tmp_path / "venv")
    install = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "-e", ROOT],
                             capture_output=True, text=True, timeout=600, env=installed_env())
    assert install.returncode == 0, install.stdout + install.stderr
    site_packages = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip()
    assert os.path.exists(os.path.join(site_packages, "jax_reduce_tracker.pth"))

    # A plain program: the failing call saves a repro, with nothing run beforehand.
    (tmp_path / "program.py").write_text(PROJECT + FAILING_CALL + "\n")
    out = subprocess.run([python, "program.py"], cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT,
                         env=installed_env(JAX_REPRO_DIR="repros"))
    assert out.returncode == 1 and saved(tmp_path) == ["project_1.py"], out.stderr

    # pytest finds the plugin through its entry point.
    (tmp_path / "test_suite.py").write_text(PROJECT + f"def test_fails():\n    {FAILING_CALL}\n")
    tests = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_suite.py"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=TIMEOUT, env=installed_env(JAX_REPRO_DIR="suite"))
    assert saved(tmp_path, "suite") == ["test_suite__test_fails_1.py"], tests.stdout + tests.stderr

    # Unset, neither the start-up line nor the plugin imports the tracker (or jax).
    probe = ("import sys, pytest; pytest.main(['-q', '-p', 'no:cacheprovider', '--co', '--trace-config']); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tracker', 'jax')))")
    (tmp_path / "empty").mkdir()
    quiet = subprocess.run([python, "-c", probe], cwd=tmp_path / "empty", capture_output=True, text=True,
                           timeout=TIMEOUT, env=installed_env())
    assert "jax_reduce_pytest" in quiet.stdout and quiet.stdout.strip().endswith("[]"), quiet.stdout + quiet.stderr


def test_a_regular_wheel_installs_the_start_up_line_and_the_plugin(tmp_path):
    # Built from a copy: pip builds in the source tree and would leave build/ behind in the checkout.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", "tests", "benchmarks", "examples"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(source)],
                           capture_output=True, text=True, timeout=600, env=installed_env())
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("jax_reduce-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
        pth = archive.read("jax_reduce_tracker.pth").decode()  # at the root: installed into site-packages
    assert {"jax_reduce_pytest.py", "tracker/pytest_plugin.py"} <= names
    assert "[pytest11]\njax_reduce_tracker = jax_reduce_pytest" in entry_points
    with open(PTH) as source:
        assert pth == source.read()
