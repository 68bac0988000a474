"""The live view on a terminal (reports/live.py): drawn only on a real pseudo-terminal, never with --quiet or
when standard error is a file or pipe, and the result is the same bytes either way."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

from reducer.reports.live import last_edit, sparkline

ROOT = str(Path(__file__).resolve().parents[2])
PROGRAM = """\
import jax.numpy as jnp
scale = 2.0
unused = [1, 2, 3]
x = jnp.ones((2, 3)) * scale
y = jnp.ones((4, 3))
print(x @ y)
"""
RESULT = "\nimport jax.numpy as jnp\njnp.ones((2, 3)) @ jnp.ones((1, 4))\n"  # after the header
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_the_sparkline_scales_size_over_tests_into_columns():
    assert sparkline([(0, 100), (10, 50), (20, 10), (40, 10)], 8) == "█▄▄▁▁▁▁▁"  # columns: tests 0-5, 5-10, ...; each the size after its tests
    assert sparkline([(0, 7)], 3) == "▁▁▁" and sparkline([], 5) == ""


def test_the_last_edit_shows_what_went_and_what_a_changed_line_became():
    before = "a = 1\nb = 2\nc = f(a)\n"
    assert last_edit(before, "a = 1\nc = f(0)\n") == [("-", "b = 2"), ("-", "c = f(a)"), ("+", "c = f(0)")]
    many = "".join(f"v{i} = {i}\n" for i in range(10))
    assert last_edit(many, "") == [("-", f"v{i} = {i}") for i in range(4)] + [("", "... and 6 more lines")]


def _on_a_terminal(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``argv`` with stdin, stdout and stderr on a new pseudo-terminal of 40x100; (exit status, output)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                            env={**os.environ, "PYTHONPATH": ROOT, "TERM": "xterm-256color"})
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    data = os.read(master, 1 << 16)
                except OSError:  # the terminal's last writer is gone
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        return proc.wait(timeout=600), b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_on_a_terminal_the_live_view_shows_the_program_its_size_and_the_passes_then_the_same_summary(tmp_path):
    program = tmp_path / "small.py"
    program.write_text(PROGRAM)
    code, shown = _on_a_terminal([sys.executable, "-m", "reducer", "small.py", "--jobs", "2", "-o", "tty.py"],
                                 tmp_path)
    assert code == 0, shown
    text = ESCAPES.sub("", shown).replace("\r\n", "\n")  # a terminal ends its lines with \r\n
    assert "jax-reduce: checking that small.py fails the same way each time" in text
    assert re.search(r"jax-reduce small\.py  \S+  tests \d+  size 50 -> \d+ tokens", text), text[-3000:]
    assert "size over tests " in text and "smallest so far" in text and "per test" in text
    # Frames are drawn a few times a second, so which edits were on screen depends on timing; the last frame,
    # drawn when the view stops, always shows the search's last accepted edit, which depends on nothing else.
    last = text[text.rindex("last accepted edit:\n"):].split("\n")
    assert last[1:3] == ["-jnp.ones((0, 0)) @ jnp.ones((1, 0))", "+jnp.ones((2, 3)) @ jnp.ones((1, 4))"], last
    assert "│   1 import jax.numpy as jnp" in text  # the program, with line numbers, in its panel
    assert "\x1b[?25l" in shown  # drawn in place (the cursor hidden meanwhile) rather than printed line by line
    summary = text[text.index("signature: "):]
    assert "\ntokens:    50 -> " in summary and "\noutput:    tty.py" in summary

    done = subprocess.run([sys.executable, "-m", "reducer", "small.py", "--jobs", "2", "-o", "pipe.py"],
                          capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": ROOT},
                          timeout=600)
    assert done.returncode == 0 and "\x1b" not in done.stderr and done.stderr.startswith("signature: ")
    assert (tmp_path / "tty.py").read_bytes() == (tmp_path / "pipe.py").read_bytes()
    assert (tmp_path / "tty.py").read_text().endswith(RESULT)
    assert program.read_text() == PROGRAM


def test_quiet_on_a_terminal_draws_nothing(tmp_path):
    (tmp_path / "small.py").write_text(PROGRAM)
    code, shown = _on_a_terminal([sys.executable, "-m", "reducer", "small.py", "--jobs", "2", "-q"], tmp_path)
    assert code == 0 and shown == ""
    assert (tmp_path / "small.reduced.py").read_text().endswith(RESULT)
