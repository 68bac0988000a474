"""``jax-reduce bisect``: the search and its sentence, and real runs on real JAX releases.

The real runs use Python 3.12 (JAX 0.11 and later need it) from pyenv, and environments cached under
``~/.cache/jax-reduce-tests/bisect``: ``jax.lax.log2`` first appeared in jax 0.11.2, so a program calling it
fails with AttributeError on 0.11.1 (and on the installed 0.10.x) and runs on 0.11.2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from interpreters import python312

from reducer.bisect import Bisection, Trial, bisect, select
from reducer.execution.environments import Interpreter, paired_jaxlib
from reducer.program.provenance import header_of
from reprokit import jaxcompat
from reprokit.jaxcompat import untested_release, version, version_of

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path.home() / ".cache" / "jax-reduce-tests" / "bisect"
LOG2 = "import jax.numpy as jnp\nfrom jax import lax\n\nprint(lax.log2(jnp.ones(3)))\n"
ANSWER = "Fails the same way on jax 0.11.1 and earlier; jax 0.11.2 runs it without error."



def trial(release: str, same: bool, outcome: str = "same failure") -> Trial:
    return Trial(release, same, outcome if same else outcome, "AttributeError" if same else "success (no error)",
                 1.0, release)


def bisection(*trials: Trial, every: bool = False) -> Bisection:
    return Bisection("p.py", "type", "AttributeError", "0.10.2", "3.12.1",
                     tuple(t.release for t in trials), trials, every)


def test_the_answer_names_the_release_that_introduced_or_fixed_the_failure():
    introduced = bisection(trial("0.10.2", False, "no error"), trial("0.11.0", True), trial("0.12.0", True))
    assert introduced.answer() == "Fails the same way on jax 0.11.0 and later; jax 0.10.2 runs it without error."
    fixed = bisection(trial("0.11.1", True), trial("0.11.2", False, "no error"))
    assert fixed.answer() == ANSWER
    assert fixed.to_json()["last_same"] == "0.11.1" and fixed.to_json()["first_same"] is None
    assert bisection(trial("0.9.0", True), trial("0.12.0", True)).answer() == (
        "Fails the same way on both ends of the range (jax 0.9.0 to 0.12.0); a change and back in between would "
        "need --all.")
    twice = bisection(trial("0.9.0", True), trial("0.10.0", False, "no error"), trial("0.11.0", True), every=True)
    assert twice.answer().startswith("The verdict changes 2 times between jax 0.9.0 to 0.11.0: 0.9.0 -> 0.10.0: "
                                     "runs it without error; 0.10.0 -> 0.11.0: now fails the same way.")
    assert fixed.table().splitlines()[2] == "| 0.11.1 | 0.11.1 | same failure | `AttributeError` | 1.0 |"


def test_releases_are_ordered_selected_and_paired():
    available = ["0.10.2", "0.8.3", "0.12.0.1", "0.9.0", "0.12.0", "0.11.2"]
    ordered = sorted(available, key=version_of)
    assert select(ordered, "0.10.0..0.12.0") == ["0.10.2", "0.11.2", "0.12.0"]
    assert select(ordered, "0.11.2") == ["0.11.2"]
    with pytest.warns(RuntimeWarning, match="not supported"):
        assert select(ordered, "0.8.0..0.9.0") == ["0.8.3", "0.9.0"]
    assert select(ordered, None) == ["0.10.2", "0.11.2", "0.12.0", "0.12.0.1"]
    assert paired_jaxlib("0.5.2", ["0.5.0", "0.5.1", "0.5.3"]) == "0.5.1"
    assert paired_jaxlib("0.12.0.1", ["0.12.0", "0.12.0.1"]) == "0.12.0.1"
    assert version_of("0.12.0.1") == (0, 12, 0, 1) and version_of("0.13.0.dev20261101") == (0, 13, 0)
    assert untested_release((0, 13, 0)) == "jax 0.13.0 is newer than the newest release jax-reduce was tested " \
                                           "with (0.12.x)"
    assert untested_release(version()) is None  # the suite runs on a supported release
    assert untested_release((0, 9, 2)) == "jax 0.9.2 is older than the oldest release jax-reduce supports (0.10.0)"


def test_an_untested_release_is_told_once(monkeypatch):
    monkeypatch.setattr(jaxcompat, "_told", False)
    monkeypatch.setattr(jaxcompat, "version", lambda: (0, 13, 1))
    assert jaxcompat.untested_once() == ("jax 0.13.1 is newer than the newest release jax-reduce was tested with "
                                         "(0.12.x): results may differ; please report what does not work")
    assert jaxcompat.untested_once() is None


def test_a_reduced_programs_header_is_told_apart_from_the_users_comments():
    header = "# Reduced by jax-reduce 0.1.0, jax 0.10.2\n# input sha256 ab\n# signature: X\n# options: a=1\n"
    assert header_of(header + "# my note\nimport jax\n") == header
    assert header_of("# Reduced by hand\nimport jax\n") == ""


needs_312 = pytest.mark.skipif(python312() is None, reason="no Python 3.12 to build JAX 0.11 environments from")
fails_here = pytest.mark.skipif(version() >= (0, 11, 2), reason="the installed jax has lax.log2: nothing to bisect")


@needs_312
@fails_here
@pytest.mark.e2e
def test_bisect_names_the_release_that_added_lax_log2_in_json_and_issue_md(tmp_path):
    program = tmp_path / "log2.py"
    program.write_text(LOG2)
    done = subprocess.run(
        [sys.executable, "-m", "reducer", "bisect", str(program), "--python", python312(), "--jax", "0.11.1..0.11.2",
         "--cache-dir", str(CACHE), "--json", "--issue"], capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["answer"] == ANSWER and found["last_same"] == "0.11.1" and found["reference"] == "AttributeError"
    assert [(t["release"], t["outcome"]) for t in found["trials"]] == [("0.11.1", "same failure"),
                                                                      ("0.11.2", "no error")]
    issue = (tmp_path / "log2.issue.md").read_text()
    assert found["issue"] == str(tmp_path / "log2.issue.md")
    assert f"## JAX releases\n\n{ANSWER}\n\n| jax | jaxlib |" in issue and "print(lax.log2(jnp.ones(3)))" in issue
    assert program.read_text() == LOG2


@needs_312
@fails_here
@pytest.mark.e2e
def test_the_library_api_tries_every_release_with_all(tmp_path):
    program = tmp_path / "log2.py"
    program.write_text(LOG2)
    seen: list[str] = []
    found = bisect(program, jax="0.11.1..0.11.2", python=python312(), every=True, cache_dir=CACHE,
                   on_trial=lambda t: seen.append(t.release))
    assert found.answer() == ANSWER and seen == ["0.11.1", "0.11.2"] and found.searched == ("0.11.1", "0.11.2")


@needs_312
@fails_here
def test_without_a_package_index_it_names_the_release_it_could_not_install(tmp_path):
    program = tmp_path / "log2.py"
    program.write_text(LOG2)
    (tmp_path / "no-wheels").mkdir()
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path / "no-wheels")}
    done = subprocess.run(
        [sys.executable, "-m", "reducer", "bisect", str(program), "--python", python312(), "--jax", "0.11.0..0.11.2",
         "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert done.returncode == 2
    assert "jax-reduce: cannot install jax 0.11.0 (jaxlib 0.11.0) for Python 3.12" in done.stderr, done.stderr
    assert f"jax-reduce: installing jax 0.11.0 into {tmp_path / 'cache'}/cp312-" in done.stderr, done.stderr
    assert not list((tmp_path / "cache").glob("*/jax-0.11.0"))  # no half-built environment is left to be reused


def test_a_program_that_does_not_fail_here_is_refused(tmp_path):
    program = tmp_path / "fine.py"
    program.write_text("import jax.numpy as jnp\nprint(jnp.ones(2))\n")
    done = subprocess.run([sys.executable, "-m", "reducer", "bisect", str(program), "--cache-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 2 and "does not fail on the installed jax" in done.stderr, done.stderr


def test_the_interpreter_is_described_by_its_version_and_platform():
    here = Interpreter.of(sys.executable)
    assert here.version == ".".join(map(str, sys.version_info[:3]))
    assert here.tag.startswith(f"cp{sys.version_info[0]}{sys.version_info[1]}-")
