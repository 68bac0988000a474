"""Which definitions nothing uses: imports, functions, classes and plain assignments; a helper module, not
a pass. The cleanup pass removes what :func:`unused_definitions` finds, and the inline pass asks
:func:`unused_definitions_of` which definitions an inlining made dead, so the two share one notion of a
removable definition.

:func:`unused_definitions` uses libcst's scope analysis. A name counts as unused when none of its bindings
in a scope is referenced from anywhere. Class bodies are skipped: their names are reached as attributes,
which scope analysis does not see. :func:`unused_definitions_of` gives the same answer for a few names much
faster (Python's symbol tables instead of libcst's scope analysis of the whole module).
"""

from __future__ import annotations

import ast
import symtable
from collections.abc import Iterator, Sequence

import libcst as cst
from libcst.metadata import ClassScope, ScopeProvider

from reducer.search.passes.base import Edit, block_statements, metadata
from reducer.search.passes.traversal import Parents, preorder
from reprokit import pysource


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return cst.helpers.get_full_name_for_node(alias.asname.name) or ""
    return cst.helpers.get_full_name_for_node(alias.name) or ""


def _binding_statement(node: cst.CSTNode, parents) -> cst.CSTNode | None:
    """The removable node that binds ``node``'s name: a def/class, or an `x = ...`/`x: T = ...` statement."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node
    if not isinstance(node, cst.Name):
        return None
    parent = parents.get(node)
    if isinstance(parent, cst.AssignTarget):
        assign = parents.get(parent)
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            return assign
    if isinstance(parent, cst.AnnAssign) and parent.target is node:
        return parent
    return None


def unused_definitions(module: cst.Module) -> list[Edit]:
    """Every import, def, class and single-name assignment of ``module`` that nothing references, in source
    order (libcst's scope analysis of the whole module)."""
    wrapper = metadata(module)
    scopes = wrapper.resolve(ScopeProvider)
    parents = wrapper.resolve(Parents)
    found: dict[int, cst.CSTNode] = {}
    for scope in {s for s in scopes.values() if s is not None}:
        if isinstance(scope, ClassScope):
            continue
        for name in {a.name for a in scope.assignments}:
            if name.startswith("__") or name == "_":
                continue
            bindings = list(scope.assignments[name])
            if any(b.references for b in bindings):
                continue
            for binding in bindings:
                for node in _removable(binding, name, parents):
                    found.setdefault(id(node), node)
    order = {id(node): i for i, node in enumerate(preorder(module))}
    return [Edit(node) for node in sorted(found.values(), key=lambda n: order.get(id(n), 0))]


def _removable(binding, name: str, parents) -> list[cst.CSTNode]:
    node = binding.node
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        if isinstance(node.names, cst.ImportStar):
            return []
        return [alias for alias in node.names if _bound_name(alias) == name]
    statement = _binding_statement(node, parents)
    return [statement] if statement is not None else []


def unused_definitions_of(module: cst.Module, names: set[str]) -> Sequence[Edit]:
    """The edits of :func:`unused_definitions` on ``module`` that remove a definition of one of ``names``
    (what an edit that stopped reading ``names`` made dead).

    libcst's scope analysis of the whole module costs more than most candidates' runs; Python's own
    symbol tables (``symtable``, in C) tell as exactly which scope each read of a name resolves to. A def,
    class or `name = ...` outside class bodies is unused when no read resolves to its scope, which is
    what the cleanup pass finds. Names read in ways the symbol tables do not show as libcst does (a string
    annotation or typing's cast, `x += 1`, `del x`) get libcst's analysis.
    """
    names = {name for name in names if name.isidentifier()}  # a method (`Cls.m`) is _dead_methods' business
    if not names:
        return []
    code = module.code
    if any(name in _SCOPE_NAMES for name in names) or _unsure(pysource.parse(code), names):
        return [edit for edit in unused_definitions(module) if defines(edit.node, names)]
    top = symtable.symtable(code, "<candidate>", "exec")
    used = {name: _binding_scopes(top, name) for name in names}
    return [Edit(node) for node, table in _definitions(module.body, top, in_class=False)
            if any(defines(node, {name}) and table.get_id() not in used[name] for name in names)]


_SCOPE_NAMES = {"lambda", "listcomp", "setcomp", "dictcomp", "genexpr"}  # symbol tables of expressions


def _unsure(tree: ast.Module, names: set[str]) -> bool:
    """Whether a name may be read where the symbol tables do not show it. libcst reads a string as code only
    in an annotation and in typing's subscripts and calls (:func:`_type_hint_strings`): other strings
    (messages, dict keys, docstrings) are no reads. Counting them sent most candidates of a program with
    `params["embed"]` and a function `embed` to the slow analysis, and every string of a program that
    imports typing (`cfg["n_rbf"]` beside `from typing import NamedTuple`)."""
    annotations: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in names:
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del) and node.id in names:
            return True
        annotation = getattr(node, "annotation", None) or getattr(node, "returns", None)
        if isinstance(node, (ast.arg, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef)) and annotation:
            annotations.append(annotation)
    strings = [node for annotation in annotations for node in ast.walk(annotation)]
    return any(_names_a(node, names) for node in [*strings, *_type_hint_strings(tree)])


_TYPING = ("typing", "typing_extensions")


def _type_hint_strings(tree: ast.Module) -> list[ast.AST]:
    """The strings libcst's scope analysis may read as code outside annotations: those whose nearest
    enclosing subscript or call is one of typing's (`List["Model"]`, `cast("Model", x)`, `TypeVar("T",
    bound="Model")`), a subscript or call of a name imported from typing or of an attribute of the module.
    A superset of what libcst reads (it also resolves which typing names), so nothing it reads is missed; a
    star import from typing makes every string one."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in _TYPING:
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name in _TYPING)
    if "*" in names:
        return list(ast.walk(tree))

    def typing_(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in names
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules

    found: list[ast.AST] = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)] if names or modules else []
    while stack:  # a stack, not recursion: `1 + 1 + ...` nests as deep as it is long
        node, reading = stack.pop()
        if isinstance(node, ast.Subscript):
            stack += [(node.value, reading), (node.slice, typing_(node.value))]
        elif isinstance(node, ast.Call):
            inside = typing_(node.func)
            stack += [(node.func, reading), *((a, inside) for a in node.args),
                      *((k.value, inside) for k in node.keywords)]
        else:
            if reading and isinstance(node, ast.Constant):
                found.append(node)
            stack += [(child, reading) for child in ast.iter_child_nodes(node)]
    return found


def _names_a(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` is a string that contains one of ``names``."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and any(n in node.value for n in names)


def _binding_scopes(top: symtable.SymbolTable, name: str) -> set[int]:
    """The ids (get_id) of the symbol tables whose binding of ``name`` some read resolves to."""
    found: set[int] = set()

    def walk(table: symtable.SymbolTable, chain: list[symtable.SymbolTable]) -> None:
        try:
            symbol = table.lookup(name)
        except KeyError:
            symbol = None
        if symbol is not None and symbol.is_referenced():
            found.add(_resolve(table, chain, symbol, name, top).get_id())
        for child in table.get_children():
            walk(child, [*chain, table])

    walk(top, [])
    return found


def _resolve(table: symtable.SymbolTable, chain: list[symtable.SymbolTable], symbol: symtable.Symbol, name: str,
             top: symtable.SymbolTable) -> symtable.SymbolTable:
    if table is top or symbol.is_declared_global() or (symbol.is_global() and not symbol.is_local()):
        return top
    if symbol.is_local():
        return table
    for outer in reversed(chain):  # free: the nearest enclosing function that binds it (classes are skipped)
        if outer.get_type() == "function":
            try:
                if outer.lookup(name).is_local():
                    return outer
            except KeyError:
                pass
    return top


def _definitions(body: Sequence[cst.BaseStatement], table: symtable.SymbolTable,
                 in_class: bool) -> Iterator[tuple[cst.CSTNode, symtable.SymbolTable]]:
    """Every def, class and single-target assignment outside class bodies, with the symbol table of the
    scope it binds in; a def's or class's own table is its parent's next child of that name."""
    children: dict[str, list[symtable.SymbolTable]] = {}
    for child in table.get_children():
        children.setdefault(child.get_name(), []).append(child)
    yield from _walk(body, table, children, in_class)


def _walk(body: Sequence[cst.BaseStatement], table: symtable.SymbolTable,
          children: dict[str, list[symtable.SymbolTable]],
          in_class: bool) -> Iterator[tuple[cst.CSTNode, symtable.SymbolTable]]:
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            if not in_class:
                yield from ((small, table) for small in statement.body if isinstance(small, cst.Assign)
                            and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name))
            continue
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            if not in_class:
                yield statement, table
            own = children.get(statement.name.value, [])
            if own:
                inner = own.pop(0)
                yield from _definitions(block_statements(statement.body), inner, isinstance(statement, cst.ClassDef))
            continue
        for block in _blocks(statement):
            yield from _walk(block_statements(block), table, children, in_class)


def _blocks(statement: cst.BaseStatement) -> list[cst.BaseSuite]:
    """The blocks directly inside a compound statement (an `elif` is a nested if in the first `else`)."""
    if isinstance(statement, cst.If):
        orelse = statement.orelse
        rest = _blocks(orelse) if isinstance(orelse, cst.If) else [] if orelse is None else [orelse.body]
        return [statement.body, *rest]
    blocks = [getattr(statement, "body", None)]
    blocks += [handler.body for handler in getattr(statement, "handlers", ())]
    blocks += [case.body for case in getattr(statement, "cases", ())]
    for part in ("orelse", "finalbody"):
        extra = getattr(statement, part, None)
        if extra is not None:
            blocks.append(extra.body)
    return [b for b in blocks if isinstance(b, cst.BaseSuite)]


def defines(node: cst.CSTNode, names: set[str]) -> bool:
    """Whether ``node`` is a def, class or assignment that binds one of ``names``."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value in names
    if isinstance(node, cst.Assign):
        return any(isinstance(t.target, cst.Name) and t.target.value in names for t in node.targets)
    return False
