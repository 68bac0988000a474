"""A program that imports its own local modules reduces to one standalone file (reducer/program/merge/).

The merge tests write small module sets into a temporary directory and compare the merged program with the
exact expected text; the end-to-end test reduces a small multi-file JAX program through the library API.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reducer.api import reduce
from reducer.execution.fresh import FreshExecutor
from reducer.judging.signature import Signature
from reducer.program.merge import merge_program
from reducer.search.passes import statement_passes


def merged(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    program = tmp_path / "prog.py"
    return merge_program(program.read_text(), str(program))


HELPERS = '''"""Helpers."""
import numpy as np

OFFSET = 3

def scale(x):
    return np.asarray(x) * OFFSET
'''


def test_a_clashing_name_is_renamed_and_attribute_access_rewritten(tmp_path):
    result = merged(tmp_path, {"helpers.py": HELPERS, "prog.py": (
        "import numpy as np\n"
        "import helpers\n"
        "\n"
        "def scale(x):\n"
        "    return x * 2\n"
        "\n"
        "print(helpers.scale(np.ones(2)) + scale(1), helpers.OFFSET)\n")})
    assert result.modules == ("helpers",)
    assert result.note == "merged 1 local module(s) into one file: helpers"
    # The program's own names never change; the module's docstring goes, its numpy import is the program's.
    assert result.source == (
        "import numpy as np\n"
        "\n"
        "OFFSET = 3\n"
        "\n"
        "def scale_helpers(x):\n"
        "    return np.asarray(x) * OFFSET\n"
        "\n"
        "def scale(x):\n"
        "    return x * 2\n"
        "\n"
        "print(scale_helpers(np.ones(2)) + scale(1), OFFSET)\n")


def test_from_imports_with_aliases_and_a_module_alias(tmp_path):
    result = merged(tmp_path, {"helpers.py": HELPERS, "prog.py": (
        "from helpers import scale as s, OFFSET\n"
        "import helpers as h\n"
        "\n"
        "def run(x):\n"
        "    OFFSET = 1  # a local of the program's: the module's OFFSET must not be read as it here\n"
        "    return s(x) + OFFSET + h.OFFSET\n"
        "\n"
        "print(run(2))\n")})
    assert result.source == (
        "import numpy as np\n"
        "\n"
        "OFFSET_helpers = 3\n"
        "\n"
        "def scale(x):\n"
        "    return np.asarray(x) * OFFSET_helpers\n"
        "\n"
        "def run(x):\n"
        "    OFFSET = 1  # a local of the program's: the module's OFFSET must not be read as it here\n"
        "    return scale(x) + OFFSET + OFFSET_helpers\n"
        "\n"
        "print(run(2))\n")


def test_a_local_package_with_relative_imports(tmp_path):
    result = merged(tmp_path, {
        "lib/__init__.py": 'from .config import Config\n\n__all__ = ["Config"]\n',
        "lib/config.py": "import dataclasses\n\n@dataclasses.dataclass\nclass Config:\n    width: int = 4\n",
        "lib/data.py": "import numpy as np\nfrom .config import Config\n\ndef batch(cfg: Config):\n"
                       "    return np.ones((2, cfg.width))\n",
        "lib/model.py": "import numpy as np\nfrom . import config\nfrom .data import batch as make_batch\n\n"
                        "def forward(x, cfg: config.Config):\n"
                        "    return x @ np.ones((cfg.width + 1, 1)) + make_batch(cfg).sum()\n",
        "prog.py": "from lib import model\nfrom lib.config import Config as Cfg\nimport lib.data\n\ncfg = Cfg()\n"
                   "print(model.forward(lib.data.batch(cfg), cfg))\n",
    })
    assert result.modules == ("lib", "lib.config", "lib.model", "lib.data")  # in the order their code starts
    assert result.source == (
        "import dataclasses\n"
        "\n"
        "@dataclasses.dataclass\n"
        "class Config:\n"
        "    width: int = 4\n"
        "\n"
        "import numpy as np\n"
        "\n"
        "def batch(cfg: Config):\n"
        "    return np.ones((2, cfg.width))\n"
        "\n"
        "def forward(x, cfg: Config):\n"
        "    return x @ np.ones((cfg.width + 1, 1)) + batch(cfg).sum()\n"
        "\n"
        "cfg = Config()\n"
        "print(forward(batch(cfg), cfg))\n")


def test_a_from_imported_name_the_module_reassigns_is_copied_at_import_time(tmp_path):
    # `from counter import count` binds the value count had then; bump() changes only the module's.
    result = merged(tmp_path, {
        "counter.py": "count = 0\n\ndef bump():\n    global count\n    count += 1\n",
        "prog.py": "from counter import count, bump\n\nbump()\nprint(count)\n",
    })
    assert result.source == (
        "count_counter = 0\n"
        "\n"
        "def bump():\n"
        "    global count_counter\n"
        "    count_counter += 1\n"
        "\n"
        "count = count_counter\n"
        "\n"
        "bump()\n"
        "print(count)\n")


SIMPLE = "X = 1\ndef f():\n    return X\n"
REFUSALS = [
    ("star", {"prog.py": "from helpers import *\nprint(f())\n"}, "the program star-imports local module helpers"),
    ("dynamic", {"prog.py": "import helpers\nm = __import__('helpers')\nprint(helpers.f())\n"},
     "the program imports dynamically (__import__)"),
    ("mutates", {"prog.py": "import helpers\nhelpers.X += 2\nprint(helpers.f())\n"},
     "the program writes to X of local module helpers"),
    ("circular", {"prog.py": "import helpers\nprint(helpers.f())\n", "other.py": "import helpers\n",
                  "helpers.py": "import other\n" + SIMPLE},
     "circular imports between local modules: helpers -> other -> helpers"),
    ("in-function", {"prog.py": "def main():\n    import helpers\n    return helpers.f()\nprint(main())\n"},
     "the program imports local module helpers inside a function or block"),
    ("as-value", {"prog.py": "import helpers\nprint(getattr(helpers, 'f')())\n"},
     "the program uses local module helpers as a value (helpers)"),
    ("own-name", {"helpers.py": SIMPLE + "if __name__ == '__main__':\n    print(f())\n",
                  "prog.py": "import helpers\nprint(helpers.f())\n"},
     "local module helpers reads __name__, which would then be the program's"),
]


@pytest.mark.parametrize("files,why", [(f, w) for _, f, w in REFUSALS], ids=[n for n, _, _ in REFUSALS])
def test_what_cannot_be_merged_exactly_keeps_the_files_and_says_why(tmp_path, files, why):
    result = merged(tmp_path, {"helpers.py": SIMPLE, **files})
    assert result.source is None and result.modules == ()
    assert result.note == f"kept the multi-file setup (the result still imports helpers): {why}"


def test_no_local_import_means_no_merge_and_no_note(tmp_path):
    # random.py beside the program is never inlined: the standard library's names are not local.
    result = merged(tmp_path, {"random.py": SIMPLE, "json_tools.py": SIMPLE,
                               "prog.py": "import json\nimport random\nprint(json.dumps(random.random()))\n"})
    assert (result.source, result.modules, result.note) == (None, (), "")


MODEL = '''"""A linear layer and its loss."""
import jax.numpy as jnp

from . import init


def forward(params, x):
    return x @ params["w"] + params["b"]


def loss(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


def fresh_params(features, outputs):
    return {"w": init.weights(features, outputs), "b": jnp.zeros(outputs)}


def accuracy(params, x, y):
    return jnp.mean(jnp.sign(forward(params, x)) == jnp.sign(y))
'''
INIT = '''import jax

SEED = 0


def weights(rows, cols):
    return jax.random.normal(jax.random.PRNGKey(SEED), (rows, cols))
'''
TRAIN = '''import jax
import jax.numpy as jnp
import numpy as np

from net import model
import settings

history = []
for step in range(3):
    history.append(float(step) / settings.BATCH)
print("warm-up", history)
x = jnp.asarray(np.ones((settings.BATCH, settings.FEATURES + 1)))  # a bias column the model was not sized for
y = jnp.zeros((settings.BATCH, 1))
params = model.fresh_params(settings.FEATURES, 1)
print(jax.grad(model.loss)(params, x, y), model.accuracy(params, x, y))
'''


@pytest.mark.e2e
def test_a_multi_file_program_reduces_to_one_standalone_file(tmp_path):
    files = {"net/__init__.py": "", "net/model.py": MODEL, "net/init.py": INIT,
             "settings.py": "BATCH = 4\nFEATURES = 3\n", "train.py": TRAIN}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.py")}
    output = tmp_path / "out" / "train.reduced.py"
    output.parent.mkdir()

    result = reduce(tmp_path / "train.py", output=str(output), jobs=2, passes=statement_passes())

    assert {p: p.read_bytes() for p in tmp_path.rglob("*.py") if p.parent != output.parent} == before
    assert result.merged == "merged 4 local module(s) into one file: net, net.model, net.init, settings"
    body = [line for line in result.source.splitlines() if line and not line.startswith("#")]
    imports = [line for line in body if line.startswith(("import ", "from "))]
    assert imports and all(line.split()[1].split(".")[0] in ("jax", "numpy") for line in imports), result.source
    assert result.tokens_after < result.tokens_before and "history" not in result.source, result.source
    assert result.disagreements == 0
    # Alone in an empty directory (no module beside it), the result fails as the original did.
    outcome = FreshExecutor(sys_path=str(output.parent)).run(result.source, 120, threading.Event())
    assert Signature().same(result.original, outcome), (outcome.describe(), result.original.describe())


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (directory / name).write_text(text)
    return directory / "prog.py"


def test_an_exception_class_and_raising_site_in_a_merged_module_become_the_programs(tmp_path):
    program = write(tmp_path, {
        "errors.py": "class ConfigError(Exception):\n    pass\n",
        "check.py": "from errors import ConfigError\n\nLIMIT = 3\n\ndef validate(sizes):\n    for size in sizes:\n"
                    "        if size > LIMIT:\n            raise ConfigError(f'size {size} is above {LIMIT}')\n",
        "prog.py": "import check\n\nsizes = [1, 2, 5]\ncheck.validate(sizes)\nprint('done')\n",
    })
    result = reduce(program, output=str(tmp_path / "out.py"), jobs=2, pool=False, passes=statement_passes())
    assert result.merged == "merged 2 local module(s) into one file: check, errors"
    assert result.signature == "__main__.ConfigError: size N is above N"
    assert not any(line.startswith(("import ", "from ")) for line in result.source.splitlines()), result.source


def test_a_merge_that_changes_the_failure_falls_back_to_the_files(tmp_path):
    # A function's __module__ is not something the merge can see being read.
    program = write(tmp_path, {
        "check.py": "def validate(sizes):\n    raise ValueError(f'{validate.__module__}.validate rejects {sizes}')\n",
        "prog.py": "import check\n\nsizes = [1, 2, 5]\nprint(sum(check.validate(sizes)))\n",
    })
    result = reduce(program, output=str(tmp_path / "out.py"), jobs=2, pool=False, passes=statement_passes())
    assert result.merged == ("kept the multi-file setup: merging check changed the failure (the merged program: "
                             "ValueError: __main__.validate rejects [1, 2, 5])")
    assert result.signature == "ValueError: check.validate rejects [N, N, N] @ check.validate"
    assert "import check\n" in result.source


def test_a_library_beside_the_program_is_not_merged(tmp_path):
    result = merged(tmp_path, {"big.py": "X = 1\n" * 400_000, "prog.py": "import big\nprint(big.X)\n"})
    assert result.source is None
    assert result.note.endswith(": the local modules exceed 100 files or 2 MB of source (a library checked out "
                                "beside the program?)")


def test_a_module_a_package_imports_is_reached_through_the_package(tmp_path):
    (tmp_path / "pkg").mkdir()
    result = merged(tmp_path, {"pkg/__init__.py": "from . import consts\nfrom .consts import N as SIZE\n",
                               "pkg/consts.py": "N = 2\n",
                               "prog.py": "from pkg import consts, SIZE\nimport pkg\nprint(consts.N + SIZE + pkg.consts.N)\n"})
    assert result.source == "N = 2\n\nprint(N + N + N)\n"
