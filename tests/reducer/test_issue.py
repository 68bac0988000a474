"""``issue.md``: ``jax-reduce --issue``, ``reducer.write_issue`` and ``jax-track --reduce`` write the text of a
JAX bug report beside the result, with the user's home, name and long data literals scrubbed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from reducer.reports.issue import Identity, config_updates, Scrubbed, command_line, issue_path, scrub_literals, scrub_text, scrubbable_user

ROOT = str(Path(__file__).resolve().parents[2])

DOT_MISMATCH = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp


    def layer(w, x):
        h = jnp.tanh(x @ w)
        return h.sum()


    w = jnp.ones((5, 3))
    x = jnp.ones((4, 6))
    print(layer(w, x))
    """
)


def env(**extra: str) -> dict[str, str]:
    # The checkout's reducer and tracker, whatever an editable install elsewhere points at.
    base = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    return {**base, **extra}


def run(argv: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env(**extra), capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


def code_lines(reduced: Path) -> str:
    """The reduced file without jax-reduce's comment header (tidy leaves no other comments)."""
    return "".join(line for line in reduced.read_text().splitlines(keepends=True) if not line.startswith("#"))


def python_block(text: str) -> str:
    return re.search(r"^```python\n(.*?)^```$", text, re.S | re.M).group(1)


def last_error_line(program: Path) -> str:
    """The ``TypeError: ...`` line of the program's traceback, as a user running it sees it."""
    done = run([sys.executable, program.name], program.parent)
    return [line for line in done.stderr.splitlines() if line.startswith("TypeError: ")][-1]


def environment_lines() -> list[str]:
    done = run([sys.executable, "-c", "import jax; jax.print_environment_info()"], Path(ROOT))
    return [line for line in done.stdout.splitlines() if line.startswith(("jax:", "jaxlib:"))]


def test_jax_reduce_issue_writes_the_report_beside_the_output(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text(DOT_MISMATCH)
    before = program.read_bytes()
    done = run([sys.executable, "-m", "reducer", "prog.py", "--issue", "--jobs", "2"], tmp_path,
               JAX_PLATFORMS="cpu", JAX_TRACEBACK_FILTERING="off", JAX_REDUCE_FORCE_LANDLOCK="7")
    assert done.returncode == 0, done.stderr
    issue, reduced = tmp_path / "prog.issue.md", tmp_path / "prog.reduced.py"
    assert "issue:     prog.issue.md" in done.stderr.splitlines()
    text = issue.read_text()
    assert python_block(text) == code_lines(reduced)
    error = last_error_line(reduced)
    assert error.startswith("TypeError: dot_general requires contracting dimensions to have the same shape")
    assert error in text.splitlines()
    assert text.startswith(f"# jax.lax.dot: {error}\n")  # the title suggestion names the reduced program's error
    jax_lines = environment_lines()
    assert [line.split(":")[0] for line in jax_lines] == ["jax", "jaxlib"]
    assert all(line in text.splitlines() for line in jax_lines)
    assert "```bash\njax-reduce prog.py --issue --jobs 2\n```" in text
    # What JAX reads, not jax-reduce's own; the traceback filtering was unset for the run (JAX's frames hidden).
    assert "```text\nJAX_PLATFORMS=cpu\nJAX_TRACEBACK_FILTERING=off\n```" in text
    assert "For simplicity, JAX has removed its internal frames" in text
    assert "input sha256" not in text  # the provenance header stays in the reduced file only
    assert program.read_bytes() == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".jax-reduce-")]  # no temporary left


def test_json_names_the_issue(tmp_path):
    (tmp_path / "prog.py").write_text(DOT_MISMATCH)
    done = run([sys.executable, "-m", "reducer", "prog.py", "--issue", "--json", "--jobs", "2"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["issue"] == "prog.issue.md" and (tmp_path / "prog.issue.md").is_file()


def test_issue_for_a_directory_is_refused(tmp_path):
    (tmp_path / "repros").mkdir()
    done = run([sys.executable, "-m", "reducer", "repros", "--issue"], tmp_path)
    assert done.returncode == 2
    assert "--issue writes the bug report of one reduced file" in done.stderr


TABLE = "[" + ", ".join(str(i) for i in range(100)) + "]"  # 390 characters

SCRUB_PROGRAM = """\
import jax.numpy as jnp

DATA = "{home}/proj/data.npz"
OWNER = "alicebob"
TABLE = {table}


def f(table):
    return jnp.asarray(table) @ jnp.ones((3, 3))


print(DATA, OWNER)
f(TABLE)
"""

# The library path: keep the path, the name and the table through reduction (a predicate that needs them), so
# that scrubbing has them to find in the reduced program.
SCRUB_DRIVER = """\
import sys
import reducer

HOME_DATA = {data!r}


def keeps_them(outcome, source):
    return (outcome.exc_type == "TypeError" and "dot_general" in outcome.message and HOME_DATA in source and '"alicebob"' in source and source.count(", ") >= 99)


result = reducer.reduce("prog.py", jobs=2, interesting=keeps_them)
print("ISSUE", reducer.write_issue(result))
"""


def test_scrubbing_home_user_and_long_literals(tmp_path):
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    program = project / "prog.py"
    program.write_text(SCRUB_PROGRAM.format(home=home, table=TABLE))
    before = program.read_bytes()
    (project / "driver.py").write_text(SCRUB_DRIVER.format(data=f"{home}/proj/data.npz"))
    done = run([sys.executable, "driver.py"], project, HOME=str(home), USER="alicebob", LOGNAME="alicebob")
    assert done.returncode == 0, done.stderr
    issue = project / "prog.issue.md"
    assert "ISSUE prog.issue.md" in done.stdout.splitlines()  # beside the output, as the output was named
    text = issue.read_text()
    assert str(home) not in text and "alicebob" not in text and TABLE not in text
    code = python_block(text)
    assert '"~/proj/data.npz"' in code and '"<user>"' in code
    assert re.search(r"^# scrubbed: a \d+-character list literal replaced by \.\.\.$", code, re.M), code
    assert not re.search(r"(\d+, ){20}", text)  # nor the traceback's quote of it
    assert "TypeError: dot_general requires contracting dimensions" in text
    assert "```bash\npython driver.py\n```" in text  # the interpreter's own argv, as typed
    homes = re.search(r"^Scrubbed: (\d+) home paths?, 1 user name, 1 long literal \(", text, re.M)
    assert homes and int(homes.group(1)) >= 1, text  # the program's; also jax's own under the real home
    assert program.read_bytes() == before


def test_scrub_rules():
    who = Identity(homes=("/home/alice",), user="alice")
    text, found = scrub_text("/home/alice/x.py /home/alice /home/alice2/y alice alice_b malice alice.py", who)
    # A home is a whole path component; the name a whole word (a file named after the user names them too).
    assert text == "~/x.py ~ /home/alice2/y <user> alice_b malice <user>.py"
    assert found == Scrubbed(home_paths=2, user_names=2)
    assert [scrubbable_user(n) for n in ("root", "ci", "ab", "list", "while", "alice")] == [
        False, False, False, False, False, True]
    assert Scrubbed(2, 1, 3).describe() == "Scrubbed: 2 home paths, 1 user name, 3 long literals"
    assert Scrubbed().describe() == "Scrubbed: nothing"


def test_long_literals_become_ellipsis_with_a_note():
    source = f"x = {TABLE}\nif len({TABLE}) > 1:\n    s = 'short'\n"
    scrubbed, found, literals = scrub_literals(source)
    assert scrubbed == ("# scrubbed: a 390-character list literal replaced by ...\nx = ...\n"
                        "# scrubbed: a 390-character list literal replaced by ...\nif len(...) > 1:\n    s = 'short'\n")
    assert found == Scrubbed(long_literals=2) and literals == (TABLE, TABLE)


def test_config_updates_are_listed_as_written():
    program = 'import jax\njax.config.update("jax_enable_x64", True)\nfrom jax import config\nconfig.update("jax_debug_nans", 1)\n'
    assert config_updates(program) == ('jax.config.update("jax_enable_x64", True)', 'config.update("jax_debug_nans", 1)')


def test_paths_and_commands():
    assert issue_path("/a/prog.reduced.py") == "/a/prog.issue.md"
    assert issue_path("out.py") == "out.issue.md"
    assert command_line(["/usr/bin/python3", "/venv/bin/jax-track", "--reduce", "my prog.py"]) == \
        "jax-track --reduce 'my prog.py'"
    assert command_line(["/usr/bin/python3.11", "-m", "tracker", "x.py"]) == "python -m tracker x.py"


TRACKED = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp


    def activation(x):
        y = jnp.sin(x) * 2.0
        if y.sum() > 0:  # TracerBoolConversionError under jit
            return y
        return -y


    jax.jit(activation)(jnp.ones(3))
    """
)


def test_jax_track_reduce_writes_the_issue_beside_the_reduced_repro(tmp_path):
    (tmp_path / "tiny.py").write_text(TRACKED)
    done = run([sys.executable, "-m", "tracker", "--repro-dir", "r", "--reduce", "--jobs", "2", "tiny.py"], tmp_path)
    issue = tmp_path / "r" / "activation_1.issue.md"
    assert f"jax-track: issue text (scrubbed; review before posting): {issue}" in done.stderr.splitlines(), done.stderr
    text = issue.read_text()
    assert python_block(text) == code_lines(tmp_path / "r" / "activation_1.reduced.py")
    assert "TracerBoolConversionError" in text
    assert "```bash\npython -m tracker --repro-dir r --reduce --jobs 2 tiny.py\n```" in text
