"""The command line: clear errors with exit code 2 for bad input, JSON output, and the input left alone."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reducer.api import InputError, reduce
from reducer.cli import EXIT_BAD_INPUT, main
from tests.reducer.procs import ROOT, checkout_env, commands_naming, interrupt_when, start_cli

SMALL_FAILURE = textwrap.dedent(
    """
    import jax.numpy as jnp

    def unused():
        return 1

    x = jnp.ones((3, 4))
    y = jnp.ones((5, 4))
    print("about to fail")
    z = x + y
    print(z)
    """
)


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reducer", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=checkout_env())


def test_missing_file(tmp_path, capsys):
    assert main([str(tmp_path / "nope.py")]) == EXIT_BAD_INPUT
    assert "no such file" in capsys.readouterr().err


def test_not_python(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n    pass\n")
    assert main([str(bad)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "not valid Python" in err and "line 1" in err
    assert not (tmp_path / "bad.reduced.py").exists()


def test_program_that_does_not_fail(tmp_path, capsys):
    ok = tmp_path / "ok.py"
    ok.write_text("import jax.numpy as jnp\nprint(jnp.ones(3).sum())\n")
    assert main([str(ok), "--no-pool"]) == EXIT_BAD_INPUT
    assert "does not fail" in capsys.readouterr().err


def test_flaky_program(tmp_path, capsys):
    counter = tmp_path / "counter"
    counter.write_text("0")
    flaky = tmp_path / "flaky.py"
    flaky.write_text(textwrap.dedent(f"""
        n = int(open({str(counter)!r}).read())
        open({str(counter)!r}, "w").write(str(n + 1))
        raise (ValueError if n % 2 == 0 else KeyError)("flaky")
    """))
    # The program keeps its counter beside it: inside the sandbox that needs --allow-write (without it,
    # jax-reduce stops and says so).
    assert main([str(flaky), "--no-pool"]) == EXIT_BAD_INPUT
    assert "pass --allow-write DIR" in capsys.readouterr().err
    assert main([str(flaky), "--no-pool", "--allow-write", str(tmp_path)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "flaky" in err and "ValueError" in err and "KeyError" in err


def test_match_that_does_not_match(tmp_path, capsys):
    prog = tmp_path / "prog.py"
    prog.write_text(SMALL_FAILURE)
    assert main([str(prog), "--no-pool", "--match", "no such words"]) == EXIT_BAD_INPUT
    assert "does not match" in capsys.readouterr().err


@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink", "dotted"])
def test_refuses_to_overwrite_the_input(tmp_path, capsys, alias):
    prog = tmp_path / "prog.py"
    prog.write_text(SMALL_FAILURE)
    output = {"same": prog, "symlink": tmp_path / "link.py", "hardlink": tmp_path / "hard.py",
              "dotted": tmp_path / "." / "prog.py"}[alias]
    if alias == "symlink":
        output.symlink_to(prog)
    elif alias == "hardlink":
        os.link(prog, output)
    assert main([str(prog), "-o", str(output), "--no-pool"]) == EXIT_BAD_INPUT
    assert "refusing to overwrite the input" in capsys.readouterr().err
    assert prog.read_text() == SMALL_FAILURE


@pytest.mark.parametrize("through", ["path", "hardlink"])
def test_library_refuses_to_overwrite_the_input(tmp_path, through):
    prog = tmp_path / "prog.py"
    prog.write_text(SMALL_FAILURE)
    output = prog
    if through == "hardlink":
        output = tmp_path / "hard.py"
        os.link(prog, output)
    with pytest.raises(InputError, match="refusing to overwrite the input"):
        reduce(str(prog), output=str(output), pool=False)
    assert prog.read_text() == SMALL_FAILURE


def test_reduces_with_json_output_and_leaves_the_input_alone(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(SMALL_FAILURE)
    before = prog.stat()
    result = run_cli("prog.py", "--json", "--jobs", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ("input", "output", "signature", "tokens_before", "tokens_after", "lines_before", "lines_after",
                "tests", "cache_hits", "seconds"):
        assert key in data
    assert data["output"] == "prog.reduced.py"
    assert data["signature"].startswith("TypeError: add got incompatible shapes for broadcasting: (N, N), (N, N).")
    assert data["tokens_after"] < data["tokens_before"]
    assert data["tests"] > 0
    reduced = (tmp_path / "prog.reduced.py").read_text()
    code = "".join(line for line in reduced.splitlines(keepends=True) if not line.startswith("#"))
    # x and y became constructors of their value kind (computed-values), the prints and `unused` went.
    assert code == "import jax.numpy as jnp\njnp.ones((3, 4)) + jnp.ones((2, 5))\n"
    assert prog.read_text() == SMALL_FAILURE and prog.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.py", "prog.reduced.py"]  # no stray temp files


def test_summary_on_stderr(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(SMALL_FAILURE)
    result = run_cli("prog.py", "-o", "small.py", "--jobs", "1", "--signature", "type", "--stats", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    for word in ("signature:", "tokens:", "lines:", "tests:", "small.py"):
        assert word in result.stderr
    assert result.stderr.count("\nsandbox: ") == 1  # said once, in the summary, even with --stats
    assert "\nplatform:  cpu: cpu x 1\n" in result.stderr  # where the original computed
    # --stats: one row per pass that ran, under a header naming the columns
    table = result.stderr.split("pass ", 1)[1]
    assert "tokens removed" in table and "payoff" in table and "statements" in table
    # passes made of sub-passes: an indented row per sub-pass that offered edits, under the pass's row
    rows = table.splitlines()
    hoist = next(i for i, row in enumerate(rows) if row.startswith("hoist "))
    block = list(itertools.takewhile(lambda row: row.startswith("  "), rows[hoist + 1:]))
    assert block and all(row.startswith(("  hoist.", "  mixed ")) for row in block)
    assert (tmp_path / "small.py").exists()


def test_argument_errors(tmp_path):
    assert run_cli("x.py", "--jobs", "0", cwd=tmp_path).returncode == 2
    assert run_cli("x.py", "--signature", "fuzzy", cwd=tmp_path).returncode == 2


def test_the_commands_exit_joins_threads_runs_atexit_and_flushes_what_it_printed(tmp_path):
    # exit_now skips the interpreter's teardown, and nothing else that Python's own exit does.
    script = textwrap.dedent(f"""
        import atexit, sys, threading, time
        from reducer.cli import exit_now
        atexit.register(lambda: open({str(tmp_path / "atexit")!r}, "w").write("ran"))
        def late():
            time.sleep(0.3)
            open({str(tmp_path / "thread")!r}, "w").write("joined")
        threading.Thread(target=late).start()
        print("x" * 100000, end="")  # more than a pipe's buffer: still all of it reaches the reader
        exit_now(3)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env=checkout_env())
    assert (done.returncode, done.stdout, done.stderr) == (3, "x" * 100000, "")
    assert (tmp_path / "atexit").read_text() == "ran" and (tmp_path / "thread").read_text() == "joined"


def test_ctrl_c_leaves_the_smallest_program_so_far_and_ends_every_process(tmp_path):
    # A user's Ctrl-C in the middle of a reduction: exit 130 at once, the best program so far on disk (valid,
    # failing the same way when run as the user would), the input untouched, no worker left behind.
    import time

    prog = tmp_path / "train_mlp.py"
    prog.write_bytes((Path(ROOT) / "examples" / "train_mlp.py").read_bytes())
    original = prog.read_bytes()
    output = tmp_path / "train_mlp.reduced.py"
    proc = start_cli("train_mlp.py", "--jobs", "2", cwd=tmp_path)
    # Once a first smaller program is kept.
    err = interrupt_when(proc, lambda: output.exists() and len(output.read_bytes()) < len(original))
    assert proc.returncode == 130, err
    assert f"interrupted; the smallest program so far is in {output.name}" in err
    assert prog.read_bytes() == original
    so_far = output.read_text()
    compile(so_far, str(output), "exec")
    assert len(so_far) < len(original.decode())
    ran = subprocess.run([sys.executable, output.name], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 1 and "TypeError: dot_general requires contracting dimensions" in ran.stderr
    # The workers (their command lines name the program's folder), given a moment to be reaped.
    deadline = time.monotonic() + 60
    while commands_naming(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert commands_naming(str(tmp_path)) == []
