"""Replace computed values by constructors of the same kind: `Env(obs_dim=0).reset()` -> `jnp.zeros(3)`,
`data["w"]` -> `np.zeros(1)`, `cfg["steps"]` -> `5`; the dead-code passes then delete what fed them (the
class, the buffer, the config).

Syntax cannot tell that `data[k]` is a float array of shape (1,); the program's run can. So the pass first
asks for the facts (:mod:`reprokit.values`): it wraps every expression it may replace as
``__jr_probe__(k, expr)`` and hands that source to ``observe``, a callable the user layer builds from the
judging layer (:class:`reducer.judging.observe.Observer`) that runs it once, sandboxed, on the current
program, and returns what each ``k`` produced first (or None: the pass then proposes nothing). A pass knows
no processes, so it gets the capture run as that narrow callable and nothing else; without one (a pass list
built outside a reduction) it proposes nothing.

Replaceable: calls, subscripts, attribute reads and names in load context, except a call's callee, targets
of assignments, decorators, annotations, imports, f-strings, `while` conditions and names declared
``global``/``nonlocal``.
A plain `for` loop (no `else`, no `break`/`continue`) may become one pass of its body, the loop variables
the body reads bound to constructors of their values in the loop's first pass.
An edit is offered only where its constructor is smaller than the expression, and kept only when the oracle
finds the original's signature (a tracer replaced by a constant usually loses a concretization error: fine).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from reducer.search.passes.base import (
    REMOVE, Edit, EditPass, apply_edits, assignment, block_statements, is_valid_python, module_code, module_size, visited,
)
from reducer.search.passes.names import fit, import_aliases
from reducer.search.passes.traversal import Parents, preorder
from reducer.search.size import Size
from reprokit.values import (
    DICT, JAX, KEY, KEY_IMPLS, LIST, NONE, NUMPY, NUMPY_SCALAR, PROBE, SCALAR, STR, TRACER, TUPLE, ValueFact,
)

Observe = Callable[[str], "Mapping[int, ValueFact] | None"]

JNP, NP, JAX_MODULE = "jax.numpy", "numpy", "jax"
_IMPORTS = {JNP: ("jnp", "import jax.numpy as jnp"), NP: ("np", "import numpy as np"), JAX_MODULE: ("jax", "import jax")}
_CONSTANT_NAMES = frozenset({"True", "False", "None", "__debug__"})


@dataclasses.dataclass(frozen=True, eq=False)
class ValueEdit(Edit):
    """An expression replaced by a constructor; ``needs`` the modules it names ("jax.numpy", "numpy") that the
    program does not import yet."""

    needs: tuple[str, ...] = ()


class _Targets(cst.CSTVisitor):
    """The replaceable expressions of a module, in source order (outer before inner)."""

    METADATA_DEPENDENCIES = (ExpressionContextProvider, Parents)

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[cst.BaseExpression] = []
        self.parents: dict[int, cst.CSTNode] = {}  # id(node) -> its parent, for parenthesising a replacement
        self.skipped: set[int] = set()  # ids of subtrees nothing inside which is probed
        self.declared: set[str] = set()  # names declared global or nonlocal somewhere
        self.definitions: set[str] = set()  # names a top-level import, def or class binds: no values to see
        self.discarded = 0  # id of the value of the expression statement being visited
        self.loops: list[cst.For] = []  # plain `for` loops, without `else`, in source order

    def skip(self, *nodes: cst.CSTNode | None) -> None:
        self.skipped.update(id(node) for node in nodes if node is not None)

    def visit_Module(self, node: cst.Module) -> None:
        for statement in node.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                self.definitions.add(statement.name.value)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                        for alias in small.names:
                            bound = alias.asname.name if alias.asname is not None else alias.name
                            while isinstance(bound, cst.Attribute):
                                bound = bound.value
                            if isinstance(bound, cst.Name):
                                self.definitions.add(bound.value)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.skipped or isinstance(node, (cst.Import, cst.ImportFrom, cst.Decorator, cst.Annotation,
                                                         cst.FormattedString, cst.Match)):
            return False
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            self.declared.update(item.name.value for item in node.names)
            return False
        if isinstance(node, cst.Expr):
            self.discarded = id(node.value)  # replacing a value the program discards is deleting the statement
        elif isinstance(node, cst.Call):
            self.skip(node.func)
        elif isinstance(node, cst.Arg):
            self.skip(node.keyword)
        elif isinstance(node, cst.Attribute):
            self.skip(node.attr)
        elif isinstance(node, cst.AssignTarget):
            self.skip(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            self.skip(node.target)
            if isinstance(node, cst.For) and node.asynchronous is None and node.orelse is None:
                self.loops.append(node)
        elif isinstance(node, cst.WithItem):
            self.skip(node.asname)
        elif isinstance(node, cst.Del):
            return False
        elif isinstance(node, cst.While):
            self.skip(node.test)  # a constant there loops forever (`while step < n`) or never: a timeout or nothing
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.skip(node.name)
        elif isinstance(node, cst.Param):
            self.skip(node.name)
        elif isinstance(node, cst.ExceptHandler):
            self.skip(node.name)
        if isinstance(node, (cst.Call, cst.Subscript, cst.Attribute, cst.Name)) and self._loaded(node):
            self.nodes.append(node)
            self.parents[id(node)] = self.get_metadata(Parents, node)
        return super().on_visit(node)

    def _loaded(self, node: cst.CSTNode) -> bool:
        if id(node) == self.discarded:
            return False
        if isinstance(node, cst.Name) and (node.value in _CONSTANT_NAMES or node.value in self.definitions):
            return False
        if isinstance(node, cst.Call):
            return True
        return self.get_metadata(ExpressionContextProvider, node, None) is ExpressionContext.LOAD


@dataclasses.dataclass(frozen=True)
class Targets:
    """What the pass may replace in a module: expressions, numbered by their position in ``nodes``, their
    parents (by node id), and the plain `for` loops (one pass of the body, with the loop variables bound)."""

    nodes: list[cst.BaseExpression]
    parents: dict[int, cst.CSTNode]
    loops: list[cst.For]


def targets(module: cst.Module) -> Targets:
    found = visited(module, _Targets())
    nodes = [n for n in found.nodes if not (isinstance(n, cst.Name) and n.value in found.declared)]
    return Targets(nodes, found.parents, found.loops)


class _Instrument(cst.CSTTransformer):
    def __init__(self, numbers: dict[int, int]):
        super().__init__()
        self.numbers = numbers

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        k = self.numbers.get(id(original_node))
        if k is None:
            return super().on_leave(original_node, updated_node)
        bare = updated_node.with_changes(lpar=[], rpar=[])
        probed = cst.Call(cst.Name(PROBE), [cst.Arg(cst.Integer(str(k))), cst.Arg(bare)])
        return probed.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)


def instrument(module: cst.Module, nodes: Sequence[cst.BaseExpression]) -> str:
    """``module``'s source with ``nodes[k]`` wrapped as ``__jr_probe__(k, ...)``: the program a capture runs."""
    return module.visit(_Instrument({id(node): k for k, node in enumerate(nodes)})).code


# --- constructors ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Spelling:
    """How the program names jax.numpy, numpy and jax (a top-level alias, or the one a new import would bind)."""

    jnp: str
    np: str
    missing: tuple[str, ...]  # of JNP, NP, JAX_MODULE: not imported yet
    jax: str = "jax"

    @classmethod
    def of(cls, module: cst.Module) -> Spelling:
        aliases = import_aliases(module)
        by_target: dict[str, str] = {}
        for local, full in aliases.items():
            by_target.setdefault(full, local)
        jnp = by_target.get(JNP) or (f"{by_target['jax']}.numpy" if "jax" in by_target else None)
        np, jax = by_target.get(NP), by_target.get(JAX_MODULE)
        missing = tuple(m for m, found in ((JNP, jnp), (NP, np), (JAX_MODULE, jax)) if found is None)
        return cls(jnp or _IMPORTS[JNP][0], np or _IMPORTS[NP][0], missing, jax or _IMPORTS[JAX_MODULE][0])


def _shape(shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
        return str(shape[0])
    return "(" + ", ".join(map(str, shape)) + ")"


_WEAK_ZERO = {"float": "0.0", "int": "0", "complex": "0j"}
_EMPTY = {DICT: "{}", LIST: "[]", TUPLE: "()"}


def _dtype_kind(dtype: str) -> str:
    for kind in ("complex", "float", "uint", "int"):
        if kind in dtype:
            return kind
    return dtype


def constructor(fact: ValueFact, spelling: Spelling) -> tuple[str, frozenset[str]] | None:
    """The smallest expression of ``fact``'s kind, and the modules it names; None when there is none."""
    if fact.kind in (JAX, TRACER):
        jnp = spelling.jnp
        if fact.weak_type and _dtype_kind(fact.dtype) in ("float", "int", "complex"):
            zero = _WEAK_ZERO[_dtype_kind(fact.dtype).replace("uint", "int")]
            if not fact.shape:
                return f"{jnp}.asarray({zero})", frozenset({JNP})
            return f"{jnp}.full({_shape(fact.shape)}, {zero})", frozenset({JNP})
        if not fact.shape:
            return f"{jnp}.{_dtype_name(fact.dtype)}(0)", frozenset({JNP})
        dtype = "" if fact.dtype == "float32" else f", {jnp}.{_dtype_name(fact.dtype)}"
        return f"{jnp}.zeros({_shape(fact.shape)}{dtype})", frozenset({JNP})
    if fact.kind == KEY:
        return _key(fact, spelling.jax), frozenset({JAX_MODULE})
    if fact.kind == NUMPY:
        if fact.dtype == "bfloat16":
            return None  # ml_dtypes: numpy cannot name it
        dtype = "" if fact.dtype == "float64" else f", {spelling.np}.{_dtype_name(fact.dtype)}"
        return f"{spelling.np}.zeros({_shape(fact.shape)}{dtype})", frozenset({NP})
    if fact.kind == NUMPY_SCALAR:
        if fact.dtype == "bfloat16":
            return None
        return f"{spelling.np}.{_dtype_name(fact.dtype)}(0)", frozenset({NP})
    if fact.kind in (SCALAR, STR):
        return fact.literal, frozenset()
    if fact.kind == NONE:
        return "None", frozenset()
    if fact.kind in (TUPLE, LIST, DICT):
        parts = [constructor(item, spelling) for item in fact.items]
        if any(part is None for part in parts):
            return None
        codes = [code for code, _ in parts]  # type: ignore[misc]
        needs = frozenset().union(*(n for _, n in parts)) if parts else frozenset()  # type: ignore[misc]
        return _container(fact, codes, needs)
    return None


def thinned(fact: ValueFact, spelling: Spelling) -> list[tuple[str, frozenset[str]]]:
    """Containers of ``fact``'s kind that are smaller than it and keep its shape at the top: its first entry
    alone, then (where it has several) every entry; each entry an empty container of its own kind if it is
    one (`{"params": {}}` for a model's parameters), else its constructor; none for other kinds and empty
    containers. Never empty: JAX names the keys of a pytree mismatch, and an empty dict changes that message;
    every entry, for a mismatch in how many there are (Optax's update over params that gained a key)."""
    if fact.kind not in _EMPTY or not fact.items:
        return []
    entries = []
    for item in fact.items:  # at most values.MAX_ITEMS
        entry = (_EMPTY[item.kind], frozenset()) if item.kind in _EMPTY else constructor(item, spelling)
        if entry is None:
            break
        entries.append(entry)
    variants = [entries[:1]] if entries else []
    if 1 < len(entries) == len(fact.items):
        variants.append(entries)
    return [_container(fact, [code for code, _ in variant], frozenset().union(*(n for _, n in variant)))
            for variant in variants]


def _container(fact: ValueFact, codes: list[str], needs: frozenset[str]) -> tuple[str, frozenset[str]]:
    if fact.kind == DICT:
        return "{" + ", ".join(f"{k}: {v}" for k, v in zip(fact.keys, codes)) + "}", needs
    if fact.kind == LIST:
        return "[" + ", ".join(codes) + "]", needs
    return "(" + ", ".join(codes) + ("," if len(codes) == 1 else "") + ")", needs


def _key(fact: ValueFact, jax: str) -> str:
    """`jax.random.key(0)`, or a split of it to the fact's shape (a typed key array can be built no other way)."""
    impl = KEY_IMPLS[fact.dtype]
    key = f"{jax}.random.key(0)" if impl == "threefry2x32" else f"{jax}.random.key(0, impl={impl!r})"
    return f"{jax}.random.split({key}, {_shape(fact.shape)})" if fact.shape else key


def _dtype_name(dtype: str) -> str:
    return "bool_" if dtype == "bool" else dtype


# --- what a replacement frees ----------------------------------------------------------------------------


class _Uses(cst.CSTVisitor):
    """Where each name is loaded and bound, by statement line: what :func:`freed_lines` needs."""

    METADATA_DEPENDENCIES = (ExpressionContextProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.loads: dict[str, list[tuple[cst.Name, cst.SimpleStatementLine | None]]] = {}
        self.assigned: dict[str, list[cst.SimpleStatementLine]] = {}  # lines `name = ...` and `name, b = ...`
        self.unpacked: dict[int, list[str]] = {}  # id(line) -> every name a line `a, b = ...` binds
        self.defined: dict[str, list[cst.FunctionDef | cst.ClassDef]] = {}  # top-level `def name` / `class name`
        self.top: set[int] = set()  # ids of the module's own statements
        self.bound_otherwise: set[str] = set()  # names bound by anything else (def, for, import, `a, b = `)
        self.loaded: set[int] = set()  # ids of the names loaded anywhere
        self.calls: dict[int, str] = {}  # id(line) -> the name a call statement works on (`np.savez(buf, x)`: buf)
        self.keywords: set[int] = set()  # ids of keyword names in calls (libcst says they are loaded), and of
        # the names top-level defs bind (seen through `defined`)
        self.line: cst.SimpleStatementLine | None = None

    def visit_Module(self, node: cst.Module) -> None:
        self.top = {id(statement) for statement in node.body}
        self.keywords.update(id(s.name) for s in node.body if isinstance(s, (cst.FunctionDef, cst.ClassDef)))

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.line = node
        call = node.body[0].value if len(node.body) == 1 and isinstance(node.body[0], cst.Expr) else None
        if isinstance(call, cst.Call):
            # What it works on: the receiver of a method (`buf.seek(0)`), else the first argument (`np.savez(buf)`).
            subject = call.func.value if isinstance(call.func, cst.Attribute) else None
            if not isinstance(subject, cst.Name) or subject.value in ("np", "jnp", "jax", "numpy"):
                subject = call.args[0].value if call.args and not call.args[0].keyword and not call.args[0].star else None
            if isinstance(subject, cst.Name):
                self.calls[id(node)] = subject.value

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.keywords.add(id(node.keyword))

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self.line = None

    def visit_Name(self, node: cst.Name) -> None:
        context = self.get_metadata(ExpressionContextProvider, node, None)
        if id(node) in self.keywords:
            return
        if context is ExpressionContext.LOAD:
            self.loads.setdefault(node.value, []).append((node, self.line))
            self.loaded.add(id(node))
        elif context is not None:
            line = self.line
            small = line.body[0] if line is not None and len(line.body) == 1 else None
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            names = _unpacked_names(target) if target is not None and target is not node else None
            if target is node or (names is not None and any(element.value is node for element in target.elements)):
                self.assigned.setdefault(node.value, []).append(line)  # type: ignore[arg-type]
                if names is not None:
                    self.unpacked[id(line)] = names
            else:
                self.bound_otherwise.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._define(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._define(node)

    def _define(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        if id(node) in self.top:
            self.defined.setdefault(node.name.value, []).append(node)
        else:
            self.bound_otherwise.add(node.name.value)


def _unpacked_names(target: cst.BaseExpression) -> list[str] | None:
    """`a, b, c` (a flat tuple or list of plain names) -> [a, b, c]; None for anything else."""
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    elements = target.elements
    if not elements or not all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in elements):
        return None
    return [e.value.value for e in elements]  # type: ignore[attr-defined]


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    return [n for n in preorder(node) if isinstance(n, cst.Name)]


def freed_lines(uses: _Uses, node: cst.CSTNode) -> list[cst.SimpleStatementLine | cst.FunctionDef | cst.ClassDef]:
    """Statements that only served what ``node`` loaded: once ``node`` is replaced by a constant, a name
    it read that nothing else reads goes with its assignments (`name = ...`) or its top-level `def`/`class`,
    and the expression statements that use it (`np.savez(buf, ...)`, `f.defvjp(...)`), and so on for what
    those read. The replacement alone is often longer than the expression (`data["w"]` ->
    `np.zeros(2, np.float32)`, `Block(self)(x)` -> `jnp.zeros((2, 3))`), and a candidate must be smaller
    than the program to be tried: the dead-code passes could delete the feeders only after it was accepted."""
    gone = {id(name) for name in _names_in(node)}
    removed: dict[int, cst.CSTNode] = {}
    pending = [name.value for name in _names_in(node)]
    dead: set[str] = set()
    while pending:
        name = pending.pop()
        binding = _binding(uses, name)
        if name in dead or not binding:
            continue
        inside = {id(n) for statement in binding for n in _names_in(statement)}  # a def's own (recursive) loads
        binders = {id(statement) for statement in binding}
        users = [line for n, line in uses.loads.get(name, ()) if line is not None and uses.calls.get(id(line)) == name
                 and id(n) not in inside]
        live = [n for n, line in uses.loads.get(name, ()) if id(n) not in gone and id(n) not in inside and (
            line is None or (id(line) not in removed and id(line) not in binders and uses.calls.get(id(line)) != name))]
        if live:
            continue
        dead.add(name)
        for statement in [*binding, *users]:
            if id(statement) not in removed:
                removed[id(statement)] = statement
                names = _names_in(statement)
                gone.update(id(n) for n in names)
                pending.extend(n.value for n in names if id(n) in uses.loaded)
    return list(removed.values())  # type: ignore[arg-type]


def _binding(uses: _Uses, name: str) -> list[cst.CSTNode]:
    """The statements that bind ``name`` when all are `name = ...` lines or one top-level def or class; else
    none (a name bound in any other way, or both ways, stays)."""
    if name in uses.bound_otherwise:
        return []
    assigned, defined = uses.assigned.get(name, []), uses.defined.get(name, [])
    for line in assigned:  # `a, b, c = split(key, 3)` goes with `a` only when nothing reads `b` or `c`
        if any(other != name and uses.loads.get(other) for other in uses.unpacked.get(id(line), ())):
            return []
    if assigned and not defined:
        return list(assigned)
    return list(defined) if len(defined) == 1 and not assigned else []


# --- the pass -------------------------------------------------------------------------------------------


class ComputedValuesPass(EditPass):
    """Replaces computed values by constructors of the kind the capture run saw (see the module docstring)."""

    name = "computed-values"

    def __init__(self, observe: Observe | None = None):
        self.observe = observe

    def observing(self, observe: Observe) -> ComputedValuesPass:
        """This pass with its capture runs made by ``observe`` (what the user layer binds for a reduction)."""
        return ComputedValuesPass(observe)

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        if self.observe is None:
            return []
        found = targets(module)
        nodes = found.nodes
        if not nodes:
            return []
        probed = instrument(module, nodes)
        if not is_valid_python(probed):
            return []
        facts = self.observe(probed)  # one capture run per run of the pass, on the current program
        if not facts:
            return []
        spelling = Spelling.of(module)
        uses = visited(module, _Uses())
        size = _size(module)
        edits: list[Edit] = []
        for k, node in enumerate(nodes):
            fact = facts.get(k)
            built = constructor(fact, spelling) if fact is not None else None
            if built is None:
                continue
            offered = self._replacements(module, size, uses, node, found.parents.get(id(node)), spelling, *built)
            for thin in ([] if offered else thinned(fact, spelling)):  # type: ignore[arg-type]
                # Too big to build exactly (a Flax model's parameters): its entries, themselves emptied, which
                # a failure about the structure may need no more of (Optax's update over params that gained a
                # key); only where it frees what computed it (`x.shape` -> `(0,)` alone: a test for little).
                offered += self._replacements(module, size, uses, node, found.parents.get(id(node)), spelling,
                                              *thin, alone=False)
            edits.extend(offered)
        for loop in found.loops:
            edit = _one_pass(loop, nodes, facts, spelling, uses)
            if edit is not None and _size(self.apply(module, [edit])) < size:  # type: ignore[arg-type]
                edits.append(edit)
        return edits

    def _replacements(self, module: cst.Module, size: Size, uses: _Uses, node: cst.BaseExpression,
                      parent: cst.CSTNode | None, spelling: Spelling, code: str, needs: frozenset[str],
                      alone: bool = True) -> list[Edit]:
        """``node`` replaced by ``code``: with the statements that only fed it gone, when that is smaller than
        the program, and (if ``alone``) by itself, when ``code`` is smaller than ``node``."""
        try:
            replacement = fit(parent, cst.parse_expression(code))
        except cst.ParserSyntaxError:
            return []
        missing = tuple(m for m in spelling.missing if m in needs)
        edits: list[Edit] = []
        freed = freed_lines(uses, node)
        if freed:  # first, so a subset holding both makes the bigger cut
            edit = ValueEdit(node, replacement, tuple((line, REMOVE) for line in freed), needs=missing)
            if _size(self.apply(module, [edit])) < size:  # type: ignore[arg-type]
                edits.append(edit)
        if alone and Size.of(code) < Size.of(module.code_for_node(node).strip()):
            edits.append(ValueEdit(node, replacement, needs=missing))
        return edits

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        result = apply_edits(module, edits)
        needs = [m for m in (JAX_MODULE, JNP, NP) if any(m in getattr(edit, "needs", ()) for edit in edits)]
        return with_imports(result, needs) if needs else result


def _one_pass(loop: cst.For, nodes: Sequence[cst.BaseExpression], facts: Mapping[int, ValueFact],
              spelling: Spelling, uses: _Uses) -> ValueEdit | None:
    """`for k, c in zip(keys, xs): body` -> `k = jnp.zeros(2, jnp.uint32)` and the body: the loop variables
    the body reads bound to constructors of their values in the first pass (as each one's first read in
    the body saw it), the iterable gone with what only it read. Syntax alone can bind them only to
    `next(iter(...))` of the iterable, which is larger than the loop and keeps what computes the iterable."""
    names = _plain_names(loop.target)
    body = block_statements(loop.body)
    below = preorder(loop.body)
    if names is None or any(isinstance(n, (cst.Break, cst.Continue)) for n in below):
        return None
    inside = {id(n) for n in below}
    first: dict[str, int] = {}
    for k, node in enumerate(nodes):
        if isinstance(node, cst.Name) and node.value in names and id(node) in inside:
            first.setdefault(node.value, k)
    bindings: list[cst.BaseStatement] = []
    needs: set[str] = set()
    for name in names:
        if name not in first:
            continue  # not read by the body: not bound
        fact = facts.get(first[name])
        built = constructor(fact, spelling) if fact is not None else None
        if built is None:
            return None
        bindings.append(assignment(name, cst.parse_expression(built[0])))
        needs |= built[1]
    freed = freed_lines(uses, loop.iter)
    missing = tuple(m for m in spelling.missing if m in needs)
    return ValueEdit(loop, cst.FlattenSentinel([*bindings, *body]), tuple((line, REMOVE) for line in freed),
                     needs=missing)


def _plain_names(target: cst.BaseExpression) -> list[str] | None:
    """`k` -> [k]; `k, (c, d)` -> [k, c, d]; None for anything but names (attributes, subscripts, stars)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names: list[str] = []
        for element in target.elements:
            inner = _plain_names(element.value) if isinstance(element, cst.Element) else None
            if inner is None:
                return None
            names += inner
        return names
    return None


def _size(module: cst.Module) -> Size:
    # From the per-statement cache: an edit changes one statement, not the whole program's code.
    return module_size(module, module_code(module))


def with_imports(module: cst.Module, modules: Sequence[str]) -> cst.Module:
    """``module`` with ``import jax.numpy as jnp`` / ``import numpy as np`` for ``modules``, after its
    docstring and ``from __future__`` imports."""
    lines = [cst.parse_statement(_IMPORTS[m][1] + "\n") for m in modules]
    body = list(module.body)
    at = 0
    while at < len(body) and _stays_first(body[at], at):
        at += 1
    return module.with_changes(body=[*body[:at], *lines, *body[at:]])


def _stays_first(statement: cst.BaseStatement, position: int) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) and small.module.value == "__future__":
        return True
    return position == 0 and isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)
