"""Same bug, same library: a failure whose call entered JAX through Flax or Optax still enters through it in the
result (issue 35 item 9), unless --pure-jax; the summary and issue.md say whose call failed and where to report it."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from reducer.api import reduce
from reducer.cli import parse_args
from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Kind, Outcome
from reducer.judging.signature import Signature
from reprokit.localmodules import library_of
from reducer.options import Options
from reducer.program.provenance import header_of
from reducer.reports.issue import write_issue
from reducer.reports.library import JAX_ISSUES, issue_tracker, whose
from reducer.search.lowering import libraries
from reducer.search.size import count_tokens
from reprokit import jaxcompat
from reprokit.failures import entry_of, failure_of

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"
PROGRAM = "/p/prog.py"

# Label smoothing built for 5 classes on a 3-class head: optax's cross-entropy multiplies the two, JAX raises.
SMOOTHING = '''\
import jax
import jax.numpy as jnp
import optax

NUM_CLASSES = 5


def loss_fn(w, x, labels):
    logits = x @ w
    targets = optax.smooth_labels(jax.nn.one_hot(labels, NUM_CLASSES), 0.1)
    return optax.softmax_cross_entropy(logits, targets).mean()


w = jnp.zeros((4, 3))
x = jnp.ones((8, 4))
labels = jnp.arange(8) % 3
print(jax.grad(loss_fn)(w, x, labels))
'''


def frame(module: str, filename: str = "/site-packages/x.py") -> tuple[str, str, str]:
    return module, "f", filename


@pytest.mark.parametrize("frames, entry", [
    # the program called Flax, whose call into JAX raised
    ([frame("__main__", PROGRAM), frame("flax.linen.module"), frame("jax._src.lax.lax")], "flax.linen.module"),
    # JAX's api_boundary wraps Flax's Module.init: the wrapper is nobody's entry
    ([frame("__main__", PROGRAM), frame("jax._src.traceback_util"), frame("flax.linen.module"),
      frame("jax._src.lax.lax")], "flax.linen.module"),
    # ... and JAX's name-stack scope wraps Equinox's module methods
    ([frame("__main__", PROGRAM), frame("jax._src.source_info_util"), frame("equinox.nn._mlp"),
      frame("jax._src.lax.lax")], "equinox.nn._mlp"),
    # the standard library in between (functools, contextlib) is skipped
    ([frame("__main__", PROGRAM), frame("functools"), frame("jax._src.pjit")], "jax._src.pjit"),
    # Flax called the program back, and the program's own call into JAX raised: JAX is its entry
    ([frame("__main__", PROGRAM), frame("flax.linen.module"), frame("__main__", PROGRAM),
      frame("jax._src.numpy.lax_numpy")], "jax._src.numpy.lax_numpy"),
    # jax-reduce's own frames (a capture's envelope) are no one's entry
    ([frame("reprokit.values"), frame("__main__", PROGRAM), frame("reducer.execution.runner"),
      frame("optax._src.alias")], "optax._src.alias"),
    ([frame("__main__", PROGRAM)], ""),  # the program raised itself
    ([frame("flax.core.scope"), frame("jax._src.core")], ""),  # no frame of the program
])
def test_the_entry_is_the_module_the_programs_innermost_frame_called(frames, entry):
    assert entry_of(frames, PROGRAM) == entry


def test_a_real_optax_failure_enters_through_optax():
    import optax
    with jaxcompat.traceback_filtering("off"):  # as candidates run
        try:
            optax.softmax_cross_entropy(jnp.ones((2, 3)), jnp.ones((2, 4)))
        except TypeError as err:
            failure = failure_of(err, __file__)
    assert failure.entry.startswith("optax.")
    assert failure.site_module.startswith("jax.")


def test_a_real_equinox_failure_enters_through_equinox():
    """Equinox's module methods run inside JAX's name-stack scope: the entry is Equinox's MLP, not that scope
    (it was, and Equinox failures were not kept in Equinox)."""
    import equinox as eqx
    model = eqx.nn.MLP(2, 1, 4, depth=1, key=jax.random.key(0))
    with jaxcompat.traceback_filtering("off"):
        try:
            model(jnp.ones(3))
        except TypeError as err:
            failure = failure_of(err, __file__)
    assert failure.entry == "equinox.nn._mlp" and failure.site_module.startswith("jax.")


def test_a_library_is_an_installed_package_other_than_jax_numpy_and_the_standard_library():
    assert [library_of(m) for m in ("flax.linen.module", "optax._src.alias", "jax._src.lax.lax", "jaxlib.xla",
                                    "numpy.linalg", "functools", "<program>", "", "mf77.physics")] == \
        ["flax", "optax", "", "", "", "", "", "", ""]  # mf77: a program's own module beside it, not installed


def outcome(entry: str, exc_type: str = "TypeError") -> Outcome:
    return Outcome(kind=Kind.EXCEPTION, exc_type=exc_type, message="mul got incompatible shapes",
                   site_module="jax._src.lax.lax", site_function="mul", entry=entry)


def test_a_candidate_must_enter_through_the_originals_library_unless_pure_jax():
    through_optax = outcome("optax.losses._classification")
    assert Signature().same(through_optax, outcome("optax._src.alias"))  # the library, not the module
    assert not Signature().same(through_optax, outcome("jax._src.numpy.ufuncs"))
    assert not Signature().same(through_optax, outcome(""))
    assert Signature(pure_jax=True).same(through_optax, outcome("jax._src.numpy.ufuncs"))
    direct = outcome("jax._src.numpy.ufuncs")  # the program called JAX: any way in will do
    assert Signature().same(direct, outcome("flax.linen.module"))
    assert Signature().key(through_optax) == Signature().key(outcome(""))  # triage buckets are as before
    assert Signature().describe(through_optax).endswith(", entered through optax")
    assert "entered" not in Signature(pure_jax=True).describe(through_optax)


def test_pure_jax_is_an_option_that_headers_name_only_when_set():
    assert Options.of(pure_jax=True).signature.pure_jax
    assert Options.of(Options.of(pure_jax=True), match="mul").signature.pure_jax  # kept under a new match
    assert "pure_jax" not in Options().result_key()
    assert Options.of(pure_jax=True).result_key()["pure_jax"] is True
    assert parse_args(["x.py", "--pure-jax"]).options.signature.pure_jax
    assert not parse_args(["x.py"]).options.signature.pure_jax


def test_where_to_report_comes_from_the_installed_metadata():
    optax = importlib.metadata.metadata("optax")
    repository = next(u.partition(",")[2].strip() for u in optax.get_all("Project-URL") if "github.com" in u)
    assert issue_tracker("optax") == repository.rstrip("/") + "/issues"
    assert issue_tracker("no_such_package_here") == ""
    who = whose(outcome("optax.losses._classification"), "import jax.numpy as jnp\nimport optax\n")
    assert who is not None and (who.entered, who.raised, who.report_to, who.kept) == ("optax", "jax", "optax", True)
    assert who.line() == (f"entered through optax (optax.losses._classification), raised in jax; "
                          f"report it to optax: {issue_tracker('optax')}")
    lowered = whose(outcome("optax.losses._classification"), "import jax\n")
    assert lowered is not None and (lowered.report_to, lowered.url, lowered.kept) == ("jax", JAX_ISSUES, False)
    flax_error = whose(outcome("flax.linen.module", "flax.errors.ScopeParamShapeError"), "import flax\n")
    assert flax_error is not None and (flax_error.raised, flax_error.report_to) == ("flax", "flax")
    assert whose(outcome("jax._src.numpy.ufuncs"), "import jax\n") is None  # a JAX report: nothing to add


def body(source: str) -> str:
    return source[len(header_of(source)):]


@pytest.mark.e2e
def test_an_optax_failure_keeps_its_optax_call_and_says_where_to_report_it(tmp_path):
    program = tmp_path / "smoothing.py"
    program.write_text(SMOOTHING)
    out = tmp_path / "out.py"
    done = subprocess.run([sys.executable, "-m", "reducer", str(program), "-o", str(out), "--jobs", "2"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert program.read_text() == SMOOTHING
    assert body(out.read_text()) == ("import jax.numpy as jnp\nimport optax\n"
                                     "optax.softmax_cross_entropy(jnp.ones((2, 3)), jnp.ones((4, 5)))\n")
    assert f"library:   entered through optax (optax.losses._classification), raised in jax; report it to optax: " \
           f"{issue_tracker('optax')}" in done.stderr  # the summary
    rerun = FreshExecutor().run(out.read_text(), 120, threading.Event())
    assert rerun.entry.startswith("optax.")

    lowered = tmp_path / "pure.py"
    done = subprocess.run([sys.executable, "-m", "reducer", str(program), "-o", str(lowered), "--pure-jax",
                           "--json", "-q"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert libraries(lowered.read_text()) == [] and "import jax" in body(lowered.read_text())
    assert "pure_jax=True" in header_of(lowered.read_text())
    assert (result["library"]["entered"], result["library"]["report_to"], result["library"]["kept"]) == \
        ("optax", "jax", False)


@pytest.mark.e2e
def test_a_flax_program_keeps_its_flax_call_by_default_and_issue_md_says_so(tmp_path):
    program = tmp_path / "tied_embed.py"
    shutil.copy(CORPUS / "71_flax_tied_embed_dot.py", program)
    result = reduce(program, output=str(tmp_path / "out.py"), jobs=2)
    assert libraries(result.source) == ["flax"]
    assert result.signature.endswith(", entered through flax")
    assert result.tokens_after <= 1.1 * count_tokens((CORPUS / "71_flax_tied_embed_dot.min.py").read_text())
    assert all(p.name != "lowering" or p.runs == 0 for p in result.passes)  # no tracker run: it could not help
    assert result.disagreements == 0
    issue = Path(write_issue(result, command=["jax-reduce", "tied_embed.py"]))
    text = issue.read_text()
    section = text.split("## Where it belongs\n\n", 1)[1].split("\n\n", 1)[0]
    assert section.startswith("Entered through flax (flax.linen.module), raised in jax; report it to flax: "
                              f"{issue_tracker('flax')}. The program still calls flax")
    assert "--pure-jax" in section


# An MLP built for 8 features, given 9: Equinox's MLP calls its Linear layers, whose matmul JAX rejects.
EQUINOX = """\
import equinox as eqx
import jax
import jax.numpy as jnp


def predict(model, batch):
    return [model(x) for x in batch]


model = eqx.nn.MLP(8, 1, 16, depth=2, key=jax.random.key(0))
batch = jnp.ones((4, 9))  # one feature too many
print(predict(model, batch))
"""


@pytest.mark.e2e
def test_an_equinox_failure_keeps_its_equinox_call(tmp_path):
    program = tmp_path / "predict.py"
    program.write_text(EQUINOX)
    result = reduce(program, output=str(tmp_path / "out.py"), jobs=2)
    assert program.read_text() == EQUINOX
    # (jax 0.10.2: `y = eqx.nn.MLP(1, 0, 0, depth=0, key=jax.random.key(0))`, `[y(x) for x in jnp.ones((1, 2))]`,
    # 60 tokens; jax 0.12.0.1 inlines `y`: a result depends on the installed versions)
    assert libraries(result.source) == ["equinox"] and "eqx.nn.MLP(1, 0, 0, depth=0," in result.source
    assert result.tokens_after <= 60
    assert result.signature.endswith(", entered through equinox") and result.disagreements == 0
    rerun = FreshExecutor().run(result.source, 120, threading.Event())
    assert rerun.entry.startswith("equinox.nn.") and Signature().same(result.original, rerun)
    who = whose(result.original, result.source)
    assert who is not None and (who.entered, who.raised, who.report_to, who.kept) == \
        ("equinox", "jax", "equinox", True)
    assert who.url == issue_tracker("equinox") and who.url.endswith("/issues")
