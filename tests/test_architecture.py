"""The layers the folders show, and the one direction imports run between them (docs/architecture.md).

Every import counts, including those inside functions: a lazy upward import is still an upward dependency.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("execution", "judging", "search", "user")  # bottom to top
CANDIDATE_SIDE = ("reducer.execution.outcome", "reducer.execution.protocol", "reducer.execution.runner",
                  "reducer.execution.platform", "reducer.execution.proctree", "reducer.execution.sandbox",
                  "reducer.execution.accelerators", "reducer.execution.scratch")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str | None = None) -> set[str]:
    """Absolute module names ``path`` (module ``name``) imports (``from a import b`` counts as ``a.b`` when that
    is a module, and as ``a`` otherwise)."""
    tree = ast.parse(path.read_text())
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            modules = {f"{base}.{alias.name}" for alias in node.names if is_module(f"{base}.{alias.name}")}
            found.update(modules)
            if len(modules) < len(node.names):  # a name defined in ``base`` itself, not a submodule of it
                found.add(base)
    return found


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def layer(module: str) -> int:
    parts = module.split(".")
    if parts[0] != "reducer":
        raise ValueError(module)
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else LAYERS.index("user")


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def wrong_imports(path: Path, here: str) -> list[str]:
    """What module ``here`` (at ``path``) imports against the layering."""
    wrong = []
    for imported in imports_of(path, here):
        top = imported.split(".")[0]
        if top == "tracker":
            wrong.append(f"{here} imports the tracker ({imported})")
        elif top == "reducer" and imported != "reducer" and layer(imported) > layer(here):
            wrong.append(f"{here} ({LAYERS[layer(here)]}) imports {imported} upward")
    return wrong


@pytest.mark.parametrize("path", sources("reducer"), ids=lambda p: str(p.relative_to(ROOT)))
def test_reducer_imports_run_downward(path):
    assert wrong_imports(path, module_name(path)) == []


@pytest.mark.parametrize("module", CANDIDATE_SIDE)
def test_candidate_processes_import_only_the_standard_library_and_each_other(module):
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    for imported in imports_of(path):
        top = imported.split(".")[0]
        allowed = imported in CANDIDATE_SIDE or imported in ("reducer", "reducer.execution") or top in ("dill", "reprokit")
        assert allowed or top in sys.stdlib_module_names, f"{module} imports {imported}"


def test_passes_know_no_processes_and_ddmin_knows_no_python():
    for path in sources("reducer/search/passes"):
        for imported in imports_of(path):
            assert not imported.startswith(("reducer.execution", "reducer.judging")), (path, imported)
    for imported in imports_of(ROOT / "reducer" / "search" / "ddmin.py"):
        assert imported.split(".")[0] in sys.stdlib_module_names, imported


def test_the_shared_home_imports_neither_tool_and_is_light():
    """reprokit runs inside candidate processes and the user's program: the standard library only, and jax
    in the compat module, inside the functions that read it (importing the module imports no jax)."""
    compat = ROOT / "reprokit" / "jaxcompat.py"
    for path in sources("reprokit"):
        for imported in imports_of(path):
            top = imported.split(".")[0]
            assert top == "reprokit" or top in sys.stdlib_module_names or (path == compat and top == "jax"), \
                (path, imported)
    module_level = [node for node in ast.parse(compat.read_text()).body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert all(node.module != "jax" for node in module_level if isinstance(node, ast.ImportFrom))
    assert all(alias.name.split(".")[0] != "jax" for node in module_level if isinstance(node, ast.Import)
               for alias in node.names)


def test_the_tracker_uses_only_the_reducers_public_face():
    for path in sources("tracker"):
        for imported in imports_of(path):
            if imported.split(".")[0] == "reducer":
                assert imported in ("reducer", "reducer.api", "reducer.program.files"), (path, imported)


def test_an_upward_import_is_caught(tmp_path):
    """The check itself: a judging module importing the search layer (even lazily, or relatively) is flagged."""
    offender = tmp_path / "probe.py"
    offender.write_text("def f():\n    from ..search.engine import Reduction\n    import tracker.api\n")
    assert sorted(wrong_imports(offender, "reducer.judging.probe")) == [
        "reducer.judging.probe (judging) imports reducer.search.engine upward",
        "reducer.judging.probe imports the tracker (tracker.api)",
    ]


def jax_internals_named(path: Path) -> list[str]:
    """Where ``path``'s code (not its docstrings or comments) names JAX's private modules: an import, a
    string, or an attribute ``._src``."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.startswith("jax._src")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jax._src"):
            found.append(f"from {node.module} import")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "jax._src" in node.value \
                and id(node) not in docstrings:
            found.append(repr(node.value))
        elif isinstance(node, ast.Attribute) and node.attr == "_src":
            found.append(f"line {node.lineno}: ._src")
    return found


@pytest.mark.parametrize("path", sources("reducer") + sources("tracker") + sources("reprokit"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_jax_internals_are_read_only_through_the_compat_module(path):
    if path == ROOT / "reprokit" / "jaxcompat.py":
        return
    assert jax_internals_named(path) == []


def test_the_compat_check_sees_every_way_of_naming_internals(tmp_path):
    offender = tmp_path / "probe.py"
    offender.write_text('"""Docs may say jax._src.core."""\nfrom jax._src import core\nimport jax._src.api\n'
                        'import jax\nx = "jax._src.prng"\ny = jax._src\n')
    assert jax_internals_named(offender) == [
        "from jax._src import", "import jax._src.api", "'jax._src.prng'", "line 6: ._src"]


def test_one_failure_builder_one_program_site_one_jax_frame_test():
    """The tracker and the runner build a failure with reprokit.failures; "is this JAX's frame" is asked of
    jaxcompat alone (the names below appear nowhere else in code)."""
    owners = {'"<program>"': ROOT / "reprokit" / "failures.py", '"jaxlib."': ROOT / "reprokit" / "jaxcompat.py"}
    for literal, owner in owners.items():
        users = [path for package in ("reducer", "tracker", "reprokit") for path in sources(package)
                 if literal in path.read_text()]
        assert users == [owner], (literal, users)


def test_only_the_execution_layer_starts_processes():
    """subprocess and multiprocess are imported in reducer/execution/ alone (the user layer's bisect and
    issue.md run programs through it)."""
    starters = [str(path.relative_to(ROOT)) for path in sources("reducer")
                if not path.is_relative_to(ROOT / "reducer" / "execution")
                and {"subprocess", "multiprocess"} & {name.split(".")[0] for name in imports_of(path)}]
    assert starters == []


# --- shape: no import cycles, modules a reader can hold, a small top level ---------------------------------

PACKAGES = ("reducer", "tracker", "reprokit")
MAX_LINES = 600
MAX_TOP_LEVEL = 8


def import_graph(area: Callable[[str], str]) -> dict[str, set[str]]:
    """Which area imports which, over every module of the three packages (lazy and TYPE_CHECKING imports
    included); ``area`` maps a module to its area (itself, or the subpackage it belongs to)."""
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in sources(package):
            here = area(module_name(path))
            targets = {area(m) for m in imports_of(path) if m.split(".")[0] in PACKAGES}
            graph.setdefault(here, set()).update(targets - {here})
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components with more than one member (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def reducer_area(module: str) -> str:
    """reducer.batch.driver -> reducer.batch; a top-level module (reducer.api) is an area of its own."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "reducer" else module


def test_no_module_imports_itself_through_others():
    assert cycles(import_graph(lambda module: module)) == []


def test_the_reducers_areas_import_one_way():
    """batch, reports, program and the top-level modules (api, cli, options, bisect) as well as the layers:
    no area imports one that imports it back."""
    assert cycles(import_graph(reducer_area)) == []


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("package", PACKAGES)
def test_modules_a_reader_can_hold(package):
    long = {str(path.relative_to(ROOT)): n for path in sources(package)
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_the_reducers_top_level_holds_a_few_entry_points():
    modules = sorted(path.name for path in (ROOT / "reducer").glob("*.py"))
    assert len(modules) <= MAX_TOP_LEVEL, modules


def test_the_reducer_reaches_the_tracker_through_one_named_entry_point():
    """The reducer never imports the tracker; its one use of it is a lowering run, a program that imports
    tracker.lowering in the candidate's own process (reprokit/lowering.py writes it). Any other code string
    naming the tracker would be a dependency no import graph shows."""
    naming = {}
    for package in ("reducer", "reprokit"):
        for path in sources(package):
            strings = [node.value for node in ast.walk(ast.parse(path.read_text()))
                       if isinstance(node, ast.Constant) and isinstance(node.value, str) and "import tracker" in node.value]
            if strings:
                naming[str(path.relative_to(ROOT))] = strings
    assert list(naming) == ["reprokit/lowering.py"]
    assert "def run_lowered(" in (ROOT / "tracker" / "lowering.py").read_text()


# --- passes: one edit family per module, no pass a library of another, no caches in module globals ----------

PASSES = "reducer.search.passes"
SHARED = {"base", "bindings", "callsites", "definitions", "group", "memo", "names", "objects", "traversal"}


def pass_family(module: str) -> str:
    """"inline" for reducer.search.passes.inline.values, "params" for reducer.search.passes.params."""
    return module[len(PASSES) + 1:].split(".")[0]


def test_no_pass_imports_another_pass():
    """A pass may import the shared helpers and its own package's modules, never another pass's module
    (the registry, reducer.search.passes, imports them all)."""
    wrong = []
    for path in sources("reducer/search/passes"):
        here = module_name(path)
        if here == PASSES:
            continue
        for imported in imports_of(path):
            if imported.startswith(PASSES + ".") and pass_family(imported) not in (pass_family(here), *SHARED):
                wrong.append(f"{here} imports {imported}")
    assert wrong == []


def test_passes_keep_no_tree_caches_in_module_globals():
    """What passes remember about a reduction's trees lives in that reduction's Memo (reducer.search.passes.memo),
    not in an empty dict, list or set at module level that would outlive it."""
    allowed = {"reducer.search.passes.traversal": {"_ORDERS"}}  # libcst's visit order per node class: no trees
    wrong = []
    for path in sources("reducer/search/passes"):
        here = module_name(path)
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            value = getattr(node, "value", None)
            empty = (isinstance(value, (ast.Dict, ast.List, ast.Set))
                     and not getattr(value, "elts", getattr(value, "keys", None))) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in ("dict", "list", "set") and not value.args)
            wrong += [f"{here}.{t.id}" for t in targets
                      if empty and isinstance(t, ast.Name) and t.id not in allowed.get(here, ())]
    assert wrong == []
