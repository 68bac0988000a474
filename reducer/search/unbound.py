"""Candidates certain to fail differently: a module-level read of a name nothing binds, before the failure.

A candidate keeps the current program's first top-level statements as they are (the same objects: an edit
rebuilds only the path to what it changes) and differs from some statement on. When the current program
failed in a later top-level statement, that common prefix ran to its end without an error, and in the
candidate it runs the same way. If what follows reads a name that nothing has bound, before any operation
that could raise (or run code), the candidate raises ``NameError`` there: not the original's failure, so the
engine rejects it without running it, as a run would (issue 36: fewer tests on programs whose every run costs
seconds). Statement removal makes such candidates all the time: a chunk that removes ``def make_batch`` and
keeps ``x = make_batch(key)``.

Only certain verdicts are taken. The walk goes through what runs no code and cannot fail but for a name
(``x = y``, literals, tuples, dicts keyed by literals, a def without decorators, a lambda, the imports of JAX,
NumPy and the standard library, an attribute of such an imported module, the body of ``if __name__ ==
"__main__":``) and stops at the first operation (a call, another attribute, a subscript, arithmetic, a truth
test, another library's import, a class body, a decorator): anything there could raise the original failure
first. A name counts as bound if any statement of the prefix could bind it at module level (every name it
mentions, conservatively), if a ``global`` statement anywhere names it, or if it is a builtin. A program that
could bind names another way (``globals()``, ``exec``, ``import *``, ``setattr``, ``builtins``, ...) gets no
verdict at all. The user layer turns this off where what such a walk may raise (NameError; ImportError and
AttributeError from imports and module attributes) could be the failure sought, for a custom predicate and
for ``--flaky``. A wrong verdict could only cost a smaller result, never give a wrong one. (What the check
takes on trust: that the program is deterministic, as the search assumes anyway, and that an import of JAX,
NumPy or the standard library runs theirs, not a file of the program's own that shadows the name, as merging
local modules does too: ``reprokit.localmodules.NEVER_LOCAL``.)

The search knows no processes: where the current program failed comes from ``lines_of(source)`` (the lines
of its own frames on the traceback, outermost first), from a run already made.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Iterator, Sequence

import libcst as cst

from reprokit.localmodules import NEVER_LOCAL

LinesOf = Callable[[str], "tuple[int, ...] | None"]

# Words that can bind or look up module names behind the parser's back: any of them anywhere (code,
# strings or comments alike) and no verdict is given on the program.
_DYNAMIC = re.compile(r"\b(?:globals|vars|locals|exec|eval|__import__|importlib|setattr|delattr|__builtins__|"
                      r"builtins|__dict__|runpy)\b|sys\.modules|import\s+__main__|import\s+\*|\b__name__\s*=(?!=)")
_GLOBAL = re.compile(r"\bglobal\s+([A-Za-z_][\w \t,]*)")
_BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__", "__spec__", "__loader__",
                                        "__package__", "__builtins__", "__annotations__", "__cached__"}
_FROM_PREFIX = re.compile(r"^\s*from\s+[\w.]+\s+import\b")
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)


class _Operation(Exception):
    """Evaluation reached something that could raise or run code: the walk stops there."""


class UnboundReads:
    """Decides whether a candidate of ``module`` (the current program) is certain to raise ``NameError``
    before it could reach the failure. Built once per current program; cheap per candidate."""

    def __init__(self, module: cst.Module, lines: Sequence[int] | None):
        self.module = module
        self._limit = _raising_statement(module, lines[0]) if lines and not _DYNAMIC.search(module.code) else None
        self._bindings: dict[int, tuple[cst.CSTNode, frozenset[str]]] = {}  # prefix statements' names, by id

    def fails_first(self, candidate: cst.Module, source: str) -> bool:
        """True when running ``candidate`` certainly raises NameError before the original failure."""
        if self._limit is None or _DYNAMIC.search(source):
            return False
        body, old = candidate.body, self.module.body
        first = 0  # the first top-level statement the candidate does not share with the current program
        while first < min(len(body), len(old), self._limit) and body[first] is old[first]:
            first += 1
        bound = set(_BUILTINS)
        for declared in _GLOBAL.findall(source):  # a function may bind these when the prefix calls it
            bound.update(name.strip() for name in declared.split(","))
        for statement in body[:first]:
            bound |= self._bound_by(statement)
        walk = _Walk(bound, _modules(candidate, source), _future_annotations(candidate))
        try:
            walk.statements(body[first:])
        except _Unbound:
            return True
        except _Operation:
            return False
        return False

    def _bound_by(self, statement: cst.CSTNode) -> frozenset[str]:
        known = self._bindings.get(id(statement))
        if known is None or known[0] is not statement:
            known = self._bindings[id(statement)] = (statement, frozenset(_bindings(statement)))
        return known[1]


def _raising_statement(module: cst.Module, line: int) -> int | None:
    """Index of the top-level statement holding ``line`` (where the failure's outermost frame of the program
    was) when that line runs as module code, not in a function body (an ``atexit`` handler or a thread
    fails after the module ran); else None."""
    codes = [module.code_for_node(statement) for statement in module.body]
    whole = module.code
    start = 1 + whole[:whole.find("".join(codes))].count("\n") if codes else 1
    for index, code in enumerate(codes):
        count = code.count("\n")
        if start <= line < start + count:
            return index if _module_code_at(code, line - start + 1) else None
        start += count
    return None


def _module_code_at(code: str, line: int) -> bool:
    """Whether ``line`` of a top-level statement's ``code`` runs as module code: inside no def (its line
    and body), lambda or class."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    return not any(isinstance(node, scopes) and node.lineno <= line <= (node.end_lineno or node.lineno)
                   for node in ast.walk(tree))


def _future_annotations(module: cst.Module) -> bool:
    for statement in module.body:
        for small in _small_statements(statement):
            if (isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name)
                    and small.module.value == "__future__" and not isinstance(small.names, cst.ImportStar)
                    and any(alias.name.value == "annotations" for alias in small.names)):
                return True
    return False


def _small_statements(statement: cst.BaseStatement) -> Iterator[cst.CSTNode]:
    if isinstance(statement, cst.SimpleStatementLine):
        yield from statement.body
    else:
        yield statement


def _bindings(statement: cst.CSTNode) -> set[str]:
    """Every name ``statement`` could bind at module level: an import's names exactly (``import jax.numpy as
    jnp`` binds no ``jax``); otherwise over-approximated, every name it mentions outside function, class and
    lambda bodies (its targets among them), and the def or class's own name. A superset is safe: it only
    means fewer verdicts."""
    if isinstance(statement, cst.Import):
        return {alias.evaluated_alias or alias.evaluated_name.split(".")[0] for alias in statement.names}
    if isinstance(statement, cst.ImportFrom) and not isinstance(statement.names, cst.ImportStar):
        return {alias.evaluated_alias or alias.evaluated_name for alias in statement.names}
    names: set[str] = set()

    class _Names(cst.CSTVisitor):
        # Bodies run later, in scopes of their own; what a def, class or lambda evaluates where it stands
        # (decorators, defaults, annotations, bases) may bind here: `def f(x=(n := 3))`.
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            names.add(node.name.value)
            for part in (*node.decorators, *_evaluated(node.params), node.returns):
                if part is not None:
                    part.visit(self)
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            names.add(node.name.value)
            for part in (*node.decorators, *node.bases, *node.keywords):
                part.visit(self)
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            for part in _evaluated(node.params):
                part.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    statement.visit(_Names())
    return names


def _evaluated(params: cst.Parameters) -> list[cst.CSTNode]:
    """What a def or lambda evaluates of its parameters where it stands: defaults and annotations, not the
    parameters' own names (those bind in the function's scope)."""
    found: list[cst.CSTNode] = []
    for param in (*params.posonly_params, *params.params, params.star_arg, *params.kwonly_params,
                  params.star_kwarg):
        if isinstance(param, cst.Param):
            found += [part for part in (param.default, param.annotation) if part is not None]
    return found


class _Unbound(Exception):
    """Evaluation read a name nothing binds: NameError, certainly."""


class _Walk:
    """Runs top-level statements in the mind, in Python's evaluation order, from a state where ``bound`` are
    the names bound: :class:`_Unbound` at a read of another name, :class:`_Operation` where something could
    raise or run code first. Reading an attribute of an imported module (``jax.vmap``) is no operation here:
    it gives the attribute or raises AttributeError, never the original failure (the user layer turns all of
    this off for an original that raised AttributeError, ImportError or a warning)."""

    def __init__(self, bound: set[str], modules: frozenset[str], future_annotations: bool):
        self.bound, self.modules, self.future_annotations = bound, modules, future_annotations

    def statements(self, statements: Sequence[cst.BaseStatement]) -> None:
        for statement in statements:
            for small in _small_statements(statement):
                self.statement(small)
                self.bound |= _bindings(small)

    def statement(self, statement: cst.CSTNode) -> None:
        if isinstance(statement, cst.Pass):
            return
        if isinstance(statement, cst.Expr):
            self.load(statement.value)
        elif isinstance(statement, cst.Assign):
            self.load(statement.value)
            if not all(isinstance(t.target, cst.Name) for t in statement.targets):
                raise _Operation  # unpacking, attributes and subscripts run code
        elif isinstance(statement, cst.AnnAssign):
            if statement.value is not None:
                self.load(statement.value)
            if not isinstance(statement.target, cst.Name):
                raise _Operation
            if not self.future_annotations:
                self.load(statement.annotation.annotation)
        elif isinstance(statement, cst.FunctionDef):
            self.define(statement)
        elif isinstance(statement, (cst.Import, cst.ImportFrom)):
            self.imports(statement)
        elif isinstance(statement, cst.If) and _is_main_test(statement.test):
            self.statements(statement.body.body)  # run as a program, its __name__ is "__main__"
        else:
            self.entered(statement)
            raise _Operation

    def entered(self, statement: cst.CSTNode) -> None:
        """What a compound statement reads before its first operation."""
        if isinstance(statement, cst.ClassDef):
            for decorator in statement.decorators:
                self.load(decorator.decorator)
            for arg in (*statement.bases, *statement.keywords):
                self.argument(arg)  # then the body runs
        elif isinstance(statement, (cst.If, cst.While)):
            self.load(statement.test)
        elif isinstance(statement, cst.For):
            self.load(statement.iter)
        elif isinstance(statement, cst.With) and statement.items:
            self.load(statement.items[0].item)
        elif isinstance(statement, cst.Assert):
            self.load(statement.test)

    def define(self, node: cst.FunctionDef) -> None:
        """A def evaluates its decorators, then its defaults, then (without ``from __future__ import
        annotations``) its annotations; applying a decorator is a call."""
        for decorator in node.decorators:
            self.load(decorator.decorator)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                self.load(param.default)
        if not self.future_annotations:
            for param in (*params.posonly_params, *params.params, params.star_arg, *params.kwonly_params,
                          params.star_kwarg):
                if isinstance(param, cst.Param) and param.annotation is not None:
                    self.load(param.annotation.annotation)
            if node.returns is not None:
                self.load(node.returns.annotation)
        if node.decorators or getattr(node, "type_parameters", None) is not None:
            raise _Operation

    def imports(self, node: cst.Import | cst.ImportFrom) -> None:
        """Importing JAX, NumPy or the standard library either binds the names or raises ImportError."""
        if isinstance(node, cst.ImportFrom):
            if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
                raise _Operation
            modules = [node.module]
        else:
            modules = [alias.name for alias in node.names]
        for module in modules:
            if cst.Module([]).code_for_node(module).split(".")[0] not in NEVER_LOCAL:
                raise _Operation  # another library's import runs its code: the program's own modules too

    def argument(self, arg: cst.Arg) -> None:
        self.load(arg.value)
        if arg.star:
            raise _Operation  # unpacking iterates or maps

    def name(self, name: str) -> None:
        if name not in self.bound:
            raise _Unbound(name)

    def load(self, expr: cst.BaseExpression) -> None:
        """Evaluate ``expr`` in the mind: read its names in Python's order up to its first operation."""
        if isinstance(expr, cst.Name):
            self.name(expr.value)
        elif isinstance(expr, _LITERALS):
            return
        elif isinstance(expr, cst.ConcatenatedString):
            if not all(isinstance(part, (cst.SimpleString, cst.ConcatenatedString))
                       for part in (expr.left, expr.right)):
                raise _Operation
        elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, (cst.Integer, cst.Float)) \
                and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return  # a negative number is a constant
        elif isinstance(expr, (cst.Tuple, cst.List)):
            for element in expr.elements:
                self.load(element.value)
                if isinstance(element, cst.StarredElement):
                    raise _Operation
        elif isinstance(expr, cst.Call):
            self.load(expr.func)
            for arg in expr.args:
                self.argument(arg)
            raise _Operation
        elif isinstance(expr, cst.Attribute):
            self.load(expr.value)
            if _root(expr.value) not in self.modules:
                raise _Operation
        elif isinstance(expr, (cst.Subscript, cst.BinaryOperation, cst.Comparison, cst.BooleanOperation)):
            self.load(expr.value if isinstance(expr, cst.Subscript) else expr.left)
            raise _Operation
        elif isinstance(expr, (cst.UnaryOperation, cst.Await)):
            self.load(expr.expression)
            raise _Operation
        elif isinstance(expr, cst.IfExp):
            self.load(expr.test)
            raise _Operation
        elif isinstance(expr, cst.Dict):
            for element in expr.elements:  # a dict display with string or number keys hashes no program object
                if not isinstance(element, cst.DictElement) or not isinstance(element.key, _LITERALS):
                    raise _Operation
                self.load(element.value)
        elif isinstance(expr, cst.Lambda):
            for param in (*expr.params.posonly_params, *expr.params.params, *expr.params.kwonly_params):
                if param.default is not None:
                    self.load(param.default)
        else:
            raise _Operation  # sets hash, comprehensions iterate, f-strings format, ...


def _root(expr: cst.BaseExpression) -> str | None:
    """``jax`` for ``jax.numpy.linalg``; None unless the chain is names and attributes only."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _is_main_test(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return False
    sides = {cst.Module([]).code_for_node(side).strip() for side in (test.left, test.comparisons[0].comparator)}
    return sides in ({"__name__", '"__main__"'}, {"__name__", "'__main__'"})


def _modules(module: cst.Module, source: str) -> frozenset[str]:
    """Names that only ever hold a module: bound by ``import a.b`` or ``import a.b as c`` (of JAX, NumPy or
    the standard library), everywhere else in the source (strings and comments too) followed by a dot, and
    none of whose attributes the program assigns (``jax.numpy = ...`` would put its own object there)."""
    names: set[str] = set()
    for statement in module.body:
        for small in _small_statements(statement):
            if isinstance(small, cst.Import):
                for alias in small.names:
                    top = alias.evaluated_name.split(".")[0]
                    if top in NEVER_LOCAL:
                        names.add(alias.evaluated_alias or top)
    # Import lines bind modules (what `import` binds is one), except the names a `from` line imports: those
    # stay in the text checked, so `from m import x as jax` disqualifies `jax`.
    lines = [_FROM_PREFIX.sub("", line) for line in source.splitlines() if not line.lstrip().startswith("import ")]
    rest = "\n".join(lines)
    return frozenset(name for name in names if all(
        match.group(1) == "." for match in re.finditer(rf"\b{re.escape(name)}\b\s*(\.)?", rest))
        and not re.search(rf"\b{re.escape(name)}(?:\s*\.\s*\w+)+\s*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)", rest))
