"""Turn recorded statements into a standalone program, as a ``libcst.Module``.

Every traced value (a tracer, an array a recorded call made) gets one name. A user function is defined
at the highest scope where all its free values are in scope (module level when it closes over
nothing). A value used outside the function that made it (a leaked tracer) is published through a
``global``. Concrete inputs become module-level constants: literals when small, ``np.ones(shape,
dtype)`` above ``fake_array_threshold`` elements, or values loaded from a ``.npz`` with
``save_arrays``.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import os
import types
from typing import Any, Mapping

import libcst as cst
import numpy as np

import jax
from jax._src import core

from tracker import values as V
from tracker.apis import FunctionRef, Returned, _Name
from tracker.calltree import FunctionDef, Statement
from tracker.config import Flags

Scope = FunctionDef | None  # None is the module


class EmitError(Exception):
    """Part of the call tree cannot be written as Python."""


@dataclasses.dataclass(frozen=True)
class Emitted:
    module: cst.Module
    arrays: dict[str, np.ndarray]  # saved values (``save_arrays``), by constant name
    problems: tuple[str, ...]  # what could not be emitted faithfully


def is_named(obj: Any) -> bool:
    return V.is_traced(obj) or isinstance(obj, Returned)


class Emitter:
    def __init__(self, roots: list[Statement], flags: Flags, npz_name: str = "",
                 snapshots: Mapping[int, tuple[Any, Any]] | None = None):
        self.roots = roots
        self.flags = flags
        self.npz_name = npz_name
        # id(donated array) -> (array, host copy taken before the donating call): the value it had.
        self.snapshots: Mapping[int, tuple[Any, Any]] = snapshots or {}
        self.names: dict[int, str] = {}
        self.def_scopes: dict[int, list[Scope]] = {}
        self.uses: dict[Scope, list[Any]] = {}
        self.functions: list[FunctionDef] = []
        self.placement: dict[int, Scope] = {}
        self.leaks: dict[int, str] = {}  # value id -> global alias
        self.constants: dict[int, tuple[str, str]] = {}
        self.arrays: dict[str, np.ndarray] = {}
        self.imports: set[str] = {"import jax", "import jax.numpy as jnp", "import numpy as np",
                                  "from jax import lax"}
        self.problems: list[str] = []
        self.counter = itertools.count(1)
        self.keep: list[Any] = []  # objects whose ids we rely on
        self.emitted_functions: set[int] = set()
        self._free_memo: dict[int, set[int]] = {}
        self.function_names: dict[int, str] = {}
        self.containers: dict[tuple[int, Any], str] = {}  # (function id, shape of a param) -> its name
        self.param_names: dict[tuple[int, int], str] = {}
        self._prelude: list[str] = []
        self._scope: Scope = None
        self._statement: Statement | None = None

    # -- analysis ----------------------------------------------------------------------------------

    def analyse(self) -> None:
        seen: set[int] = set()
        for stmt in self.roots:
            self._index_statement(stmt, None, seen)
        for fdef in self.functions:
            self.placement[fdef.id] = self._place(fdef)
        for scope, used in self.uses.items():
            for value in used:
                if isinstance(value, core.Tracer) and id(value) in self.def_scopes \
                        and not self._visible(value, scope):
                    self.leaks.setdefault(id(value), self.fresh("leaked"))

    def _index_statement(self, stmt: Statement, scope: Scope, seen: set[int]) -> None:
        # One use per argument, as ``call`` writes them: the args tuple taken whole could match a
        # container parameter (a rule's ``primals``) and hide the leaves the call reads by name.
        for arg in (*stmt.args, *stmt.kwargs.values()):
            self._use(scope, arg)
        self._use(scope, _option_values(stmt))
        for fdef in stmt.children():
            if fdef.id in seen:
                continue
            seen.add(fdef.id)
            self.functions.append(fdef)
            for _, leaf in V.paths((fdef.args, fdef.kwargs)):
                self._define(leaf, fdef)
            self._register_containers(fdef)
            for inner in fdef.body:
                self._index_statement(inner, fdef, seen)
            if fdef.returned:
                self._use(fdef, fdef.result)
        if stmt.returned:
            for _, leaf in V.paths(stmt.result):
                self._define(leaf, scope)

    def _define(self, leaf: Any, scope: Scope) -> None:
        if is_named(leaf):
            self.keep.append(leaf)
            scopes = self.def_scopes.setdefault(id(leaf), [])
            if scope not in scopes:
                scopes.append(scope)

    def _register_containers(self, fdef: FunctionDef) -> None:
        """A pytree parameter passed on whole (``grad(loss)(params, x)``) is written as the parameter,
        not rebuilt from its leaves."""
        params = [(i, arg) for i, arg in enumerate(fdef.args) if not is_named(arg)]
        params += [(key, arg) for key, arg in fdef.kwargs.items() if not is_named(arg)]
        for key, arg in params:
            name = key if isinstance(key, str) else self.fresh("args")
            if isinstance(key, int):
                self.param_names[(fdef.id, key)] = name
            for path, sub in _containers(arg):
                sig = _shape(sub)
                if sig is not None:
                    self.containers.setdefault((fdef.id, sig), f"{name}{path}")

    def _use(self, scope: Scope, tree: Any) -> None:
        uses = self.uses.setdefault(scope, [])
        if scope is not None and _shape(tree) is not None and (scope.id, _shape(tree)) in self.containers:
            return
        if isinstance(tree, dict):
            for value in tree.values():
                self._use(scope, value)
        elif V.is_sequence(tree):
            for value in tree:
                self._use(scope, value)
        elif is_named(tree):
            uses.append(tree)

    def _free(self, fdef: FunctionDef) -> set[int]:
        """Values ``fdef`` (with the functions under it) reads but does not define; fixed once
        ``analyse`` has indexed the tree, so computed once per function."""
        memo = self._free_memo
        if fdef.id in memo:
            return memo[fdef.id]
        memo[fdef.id] = set()
        used = {id(v) for v in self.uses.get(fdef, [])}
        for stmt in fdef.body:
            for child in stmt.children():
                used |= self._free(child)
        defined = {i for i, scopes in self.def_scopes.items() if fdef in scopes}
        memo[fdef.id] = used - defined
        return memo[fdef.id]

    def _ancestors(self, fdef: FunctionDef) -> list[Scope]:
        """Enclosing functions in the call tree, innermost first, then the module."""
        chain: list[Scope] = []
        stmt = fdef.parent
        while stmt is not None and stmt.parent is not None:
            chain.append(stmt.parent)
            stmt = stmt.parent.parent
        return chain + [None]

    def _place(self, fdef: FunctionDef) -> Scope:
        free = self._free(fdef)
        chain = self._ancestors(fdef)
        deepest = len(chain) - 1
        for value_id in free:
            scopes = self.def_scopes.get(value_id, [])
            levels = [chain.index(s) for s in scopes if s in chain]
            if levels:
                deepest = min(deepest, min(levels))
        return chain[deepest]

    def _lexical(self, scope: Scope) -> list[Scope]:
        chain: list[Scope] = []
        while scope is not None:
            chain.append(scope)
            scope = self.placement.get(scope.id)
        return chain + [None]

    def _visible(self, value: Any, scope: Scope) -> bool:
        scopes = self.def_scopes.get(id(value), [])
        return any(s in scopes for s in self._lexical(scope))

    # -- names -------------------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        return f"{prefix}_{next(self.counter)}"

    def name_of(self, value: Any, prefix: str = "v") -> str:
        if id(value) not in self.names:
            self.names[id(value)] = self.fresh(prefix)
        return self.names[id(value)]

    def function_name(self, fdef: FunctionDef) -> str:
        if fdef.id not in self.function_names:
            self.function_names[fdef.id] = self.fresh(fdef.name)
        return self.function_names[fdef.id]

    # -- expressions (the ``ctx`` handlers see) ----------------------------------------------------

    def normalized(self, obj: Any) -> Any:
        return V.normalize(obj)

    def prelude(self, code: str) -> None:
        self._prelude.append(code)

    def call(self, callee: str, args: Any, kwargs: dict[str, Any]) -> str:
        parts = [self.expr(a) for a in args]
        parts += [f"{k}={self.expr(v)}" for k, v in kwargs.items()]
        return f"{callee}({', '.join(parts)})"

    def operand(self, tree: Any) -> str:
        text = self.expr(tree)
        try:
            float(text)
            return text if not text.startswith("-") else f"({text})"
        except ValueError:
            pass
        simple = text.replace("_", "").replace(".", "").isalnum() or text.endswith(")") and \
            text.split("(")[0].replace(".", "").replace("_", "").isalnum()
        return text if simple and not text.startswith("-") else f"({text})"

    def index(self, tree: Any) -> str:
        items = tree if type(tree) is tuple else (tree,)
        parts = [self._index_item(x) for x in items]
        if type(tree) is tuple and len(parts) == 1:
            return parts[0] + ","
        return ", ".join(parts) if parts else "()"

    def _index_item(self, item: Any) -> str:
        if isinstance(item, slice):
            parts = ["" if p is None else self.expr(p) for p in (item.start, item.stop, item.step)]
            return ":".join(parts[:2]) + (f":{parts[2]}" if parts[2] else "")
        return self.expr(item)

    def function(self, stmt: Statement, role: str) -> str:
        fdef = stmt.functions.get(role)
        if fdef is None:
            name = self.fresh(stmt.options.get("names", {}).get(role, role))
            self.prelude(f"def {name}(*args, **kwargs):\n"
                         f"    raise NotImplementedError('JAX did not trace this function in the original run')")
            return name
        return self.function_name(fdef)

    def primitive(self, primitive: Any) -> str:
        import jax.extend.core.primitives as prims
        attr = f"{primitive.name}_p"
        if getattr(prims, attr, None) is primitive:
            self.imports.add("from jax.extend.core import primitives as prims")
            return f"prims.{attr}.bind"
        module = _defining_module(primitive)
        if module is None:
            raise EmitError(f"cannot find where primitive {primitive.name} is defined")
        self.imports.add(f"import {module[0]}")
        return f"{module[0]}.{module[1]}.bind"

    def expr(self, obj: Any) -> str:
        if isinstance(obj, FunctionRef):
            return self.function(self._statement, obj.role)
        if isinstance(obj, _Name):
            return obj.text
        if is_named(obj) and id(obj) in self.def_scopes:
            if self._visible(obj, self._scope):
                return self.name_of(obj)
            if id(obj) in self.leaks:
                return self.leaks[id(obj)]
        if isinstance(obj, core.Tracer):
            self.problems.append(f"a tracer of shape {obj.shape} comes from outside the recorded calls")
            return f"np.zeros({tuple(obj.shape)!r}, dtype={V.dtype_expr(obj.dtype)})"
        if isinstance(obj, np.generic) and not isinstance(obj, np.void):
            return V.array_literal(obj, self.flags.fake_array_threshold, None)
        if V.is_array(obj):
            return self._constant(obj)
        if isinstance(self._scope, FunctionDef) and isinstance(obj, (tuple, list, dict)):
            name = self.containers.get((self._scope.id, _shape(obj)))
            if name is not None:
                return name
        if type(obj) is tuple:
            inner = ", ".join(self.expr(x) for x in obj)
            return f"({inner},)" if len(obj) == 1 else f"({inner})"
        if type(obj) is list:
            return "[" + ", ".join(self.expr(x) for x in obj) + "]"
        if type(obj) is dict:
            return "{" + ", ".join(f"{self.expr(k)}: {self.expr(v)}" for k, v in obj.items()) + "}"
        if isinstance(obj, (set, frozenset)):
            return f"{type(obj).__name__}([{', '.join(self.expr(x) for x in sorted(obj, key=repr))}])"
        return self._other(obj)

    def _other(self, obj: Any) -> str:
        if obj is Ellipsis:
            return "..."
        if isinstance(obj, slice):
            return f"slice({self.expr(obj.start)}, {self.expr(obj.stop)}, {self.expr(obj.step)})"
        if isinstance(obj, (type(None), bool, int, float, complex, str, bytes)):
            return V.scalar_literal(obj)
        if isinstance(obj, np.dtype):
            return f"jnp.dtype({obj.name!r})"
        if isinstance(obj, type):
            if obj in (int, float, bool, complex):
                return obj.__name__
            try:
                return f"jnp.{np.dtype(obj).name}"
            except TypeError:
                pass
        if isinstance(obj, enum.Enum):
            return self._path(V.enum_expr(obj))
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            fields = ", ".join(f"{k}={self.expr(v)}" for k, v in zip(obj._fields, obj))
            return f"{self._path(V.public_path(type(obj)))}({fields})"
        if isinstance(obj, jax.ShapeDtypeStruct):
            return f"jax.ShapeDtypeStruct({tuple(obj.shape)!r}, {self.expr(np.dtype(obj.dtype))})"
        return self._sharding(obj)

    def _sharding(self, obj: Any) -> str:
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        from tracker.firstorder import FirstOrder
        if isinstance(obj, FirstOrder):
            return obj.public
        if isinstance(obj, PartitionSpec):
            return f"jax.sharding.PartitionSpec({', '.join(self.expr(p) for p in obj)})"
        if isinstance(obj, Mesh):
            ids = [d.id for d in obj.devices.flat]
            return (f"jax.sharding.Mesh(np.array([jax.devices()[i] for i in {ids!r}]).reshape("
                    f"{tuple(obj.devices.shape)!r}), {tuple(obj.axis_names)!r})")
        if isinstance(obj, NamedSharding):
            return f"jax.sharding.NamedSharding({self.expr(obj.mesh)}, {self.expr(obj.spec)})"
        if isinstance(obj, types.FunctionType) and getattr(jax.checkpoint_policies, obj.__name__, None) is obj:
            return f"jax.checkpoint_policies.{obj.__name__}"
        if type(obj).__name__ == "PRNGImpl":
            self.imports.add("import jax._src.prng")
            return f"jax._src.prng.prngs[{obj.name!r}]"
        raise EmitError(f"cannot write a {type(obj).__name__} value as Python: {obj!r:.80}")

    def _path(self, path: str) -> str:
        if path.startswith("jax._src."):
            import sys
            parts = path.split(".")
            module = next((".".join(parts[:n]) for n in range(len(parts), 1, -1)
                           if ".".join(parts[:n]) in sys.modules), "jax")
            self.imports.add(f"import {module}")
        return path

    def _constant(self, array: Any) -> str:
        if id(array) in self.constants:
            return self.constants[id(array)][0]
        name = self.fresh("c")
        saved = None
        if self.flags.save_arrays and self.npz_name:
            def saved(a: np.ndarray, name: str = name) -> str:
                self.arrays[name] = a
                return f"_arrays[{name!r}]"
        kept = self.snapshots.get(id(array))
        value = kept[1] if kept is not None and kept[0] is array else array  # donated: the copy
        literal = V.array_literal(value, self.flags.fake_array_threshold, saved)
        self.keep.append(array)
        self.constants[id(array)] = (name, literal)
        return name

    # -- statements --------------------------------------------------------------------------------

    def statement_lines(self, stmt: Statement) -> list[str]:
        self._statement = stmt
        self._prelude = []
        try:
            call = stmt.handler.emit(stmt, self)
        except EmitError as error:
            self.problems.append(str(error))
            return [f"# jax-reduce could not write this {stmt.kind} call ({stmt.name}): {error}"]
        lines = []
        for code in self._prelude:  # a stub or callback defined at module level: set apart like any def
            lines.extend(["", "", code, "", ""] if self._scope is None and code.startswith("def ") else [code])
        target, extra = ("result", []) if stmt.kind == "collect" else self._targets(stmt)
        lines.append(f"{target} = {call}" if target else call)
        lines.extend(extra)
        for _, leaf in V.paths(stmt.result) if stmt.returned else ():
            lines.extend(self._publish(leaf))
        return lines

    def _targets(self, stmt: Statement) -> tuple[str, list[str]]:
        if not stmt.returned:
            return "", []
        used = self._used_ids
        pairs = [(p, leaf) for p, leaf in V.paths(stmt.result) if is_named(leaf) and id(leaf) in used]
        if not pairs:
            return "", []
        if len(pairs) == 1 and pairs[0][0] == "":
            return self.name_of(pairs[0][1]), []
        if _is_tuple_tree(stmt.result):
            return _pattern(stmt.result, lambda leaf: self.name_of(leaf) if is_named(leaf)
                            and id(leaf) in used else "_"), []
        temp = self.fresh("out")
        return temp, [f"{self.name_of(leaf)} = {temp}{path}" for path, leaf in pairs]

    def _publish(self, leaf: Any) -> list[str]:
        if id(leaf) in self.leaks and self._scope is not None:
            return [f"{self.leaks[id(leaf)]} = {self.name_of(leaf)}"]
        return []

    # -- functions and scopes ----------------------------------------------------------------------

    def body_lines(self, statements: list[Statement], scope: Scope) -> list[str]:
        lines: list[str] = []
        for stmt in statements:
            for fdef in self._defs_before(stmt, scope):
                blank = [""] * (2 if scope is None else 1)
                lines.extend(blank + self.function_lines(fdef) + blank)
            self._scope = scope
            lines.extend(self.statement_lines(stmt))
        return lines

    def _defs_before(self, stmt: Statement, scope: Scope) -> list[FunctionDef]:
        """Functions placed in ``scope`` that ``stmt`` (or a call under it) passes to JAX."""
        found = []
        stack = [stmt]
        while stack:
            current = stack.pop()
            for fdef in current.children():
                if fdef.id in self.emitted_functions:
                    continue
                if self.placement.get(fdef.id, None) is scope:
                    found.append(fdef)
                    self.emitted_functions.add(fdef.id)
                stack.extend(fdef.body)
        return sorted(found, key=lambda f: f.id)

    def function_lines(self, fdef: FunctionDef) -> list[str]:
        outer = self._scope
        self._scope = fdef
        params, unpack = self._params(fdef)
        body = unpack + self.body_lines(fdef.body, fdef)
        self._scope = fdef
        if fdef.returned:
            body.append(f"return {self.expr(fdef.result)}")
        elif fdef.error is not None:
            body.extend(_own_raise(fdef))
        globals_ = sorted({self.leaks[id(v)] for v in self.keep if id(v) in self.leaks
                           and fdef in self.def_scopes.get(id(v), [])})
        if globals_:
            body.insert(0, f"global {', '.join(globals_)}")
        self._scope = outer
        header = f"def {self.function_name(fdef)}({', '.join(params)}):"
        return [header] + ["    " + line for block in (body or ["pass"]) for line in block.split("\n")]

    def _needed(self, fdef: FunctionDef) -> set[int]:
        """Values the body of ``fdef`` reads: its own uses and the free values of functions placed in it."""
        needed = {id(v) for v in self.uses.get(fdef, [])}
        for inner in self.functions:
            if self.placement.get(inner.id) is fdef:
                needed |= self._free(inner)
        return needed

    def _params(self, fdef: FunctionDef) -> tuple[list[str], list[str]]:
        params, unpack = [], []
        needed = self._needed(fdef)
        for i, arg in enumerate(fdef.args):
            if is_named(arg):
                params.append(self.name_of(arg, "x"))
                continue
            name = self.param_names.get((fdef.id, i)) or self.fresh("args")
            params.append(name)
            unpack += [f"{self.name_of(leaf, 'x')} = {name}{path}" for path, leaf in V.paths(arg)
                       if is_named(leaf) and id(leaf) in needed]
        if fdef.kwargs:
            params.append("*")
        for key, arg in fdef.kwargs.items():
            params.append(key)
            unpack += [f"{self.name_of(leaf, 'x')} = {key}{path}" for path, leaf in V.paths(arg)
                       if is_named(leaf) and id(leaf) in needed]
        for _, leaf in V.paths((fdef.args, fdef.kwargs)):
            unpack.extend(self._publish(leaf))
        return params, unpack

    # -- the module --------------------------------------------------------------------------------

    def emit(self) -> Emitted:
        self.analyse()
        self._used_ids = {id(v) for used in self.uses.values() for v in used}
        body = self.body_lines(self.roots, None)
        header = sorted(self.imports, key=lambda s: (not s.startswith("import"), s))
        if any("operator." in line for line in body):
            header.append("import operator")
        if any("jax.experimental." in line for line in body):
            header.append("import jax.experimental")
        if any("jax.scipy." in line for line in body):
            header.append("import jax.scipy.special")
        preamble = _config_lines()
        constants = [f"{name} = {literal}" for name, literal in self.constants.values()]
        if self.arrays:
            header.append("import os")
            # Beside the repro; else where it was saved (the reducer runs a copy of the repro elsewhere).
            constants[:0] = [f"_npz = os.path.join(os.path.dirname(os.path.abspath(__file__)), "
                             f"{os.path.basename(self.npz_name)!r})",
                             f"_arrays = np.load(_npz if os.path.exists(_npz) else {os.path.abspath(self.npz_name)!r})"]
        globals_ = sorted(set(self.leaks.values()))
        declared = [f"{g} = None" for g in globals_]
        source = _tidy_blank_lines(header + preamble + [""] + constants + declared + [""] + body)
        return Emitted(cst.parse_module(source), dict(self.arrays), tuple(self.problems))


def _own_raise(fdef: FunctionDef) -> list[str]:
    """``raise ValueError(...)`` when the function's own code raised a builtin exception (a shape
    check of the program's), not a call it made: the repro has no other way to raise it."""
    error = fdef.error
    if any(stmt.error is error for stmt in fdef.body) or not isinstance(error, Exception) \
            or type(error).__module__ != "builtins" or fdef.error_site.split(".")[0] in ("jax", "jaxlib"):
        return []
    plain = (str, int, float, bool, type(None))
    args = error.args if all(isinstance(a, plain) for a in error.args) else (str(error),)
    return [f"raise {type(error).__name__}({', '.join(V.scalar_literal(a) for a in args)})"]


def _tidy_blank_lines(lines: list[str]) -> str:
    """At most two blank lines before module-level code, one inside functions, none at the top."""
    out: list[str] = []
    blanks = 0
    for line in lines:
        for part in line.split("\n"):
            if not part.strip():
                blanks += 1
                continue
            if out and blanks:
                out.extend([""] * min(blanks, 1 if part.startswith(" ") else 2))
            blanks = 0
            out.append(part)
    return "\n".join(out) + "\n"


# Options that change what a program computes or raises, with their defaults: a repro sets those
# the original had changed (``jax_debug_nans`` turns a NaN into a FloatingPointError).
_CONFIG_DEFAULTS = {
    "jax_enable_x64": False, "jax_debug_nans": False, "jax_debug_infs": False, "jax_disable_jit": False,
    "jax_numpy_rank_promotion": "allow", "jax_numpy_dtype_promotion": "standard",
    "jax_default_matmul_precision": None, "jax_enable_checks": False, "jax_check_tracer_leaks": False,
    "jax_default_prng_impl": "threefry2x32", "jax_threefry_partitionable": True,
    "jax_legacy_prng_key": "allow",
}


def _config_lines() -> list[str]:
    lines = []
    for name, default in _CONFIG_DEFAULTS.items():
        value = getattr(jax.config, name, default)
        value = value.value if isinstance(value, enum.Enum) else value
        if value != default and isinstance(value, (bool, str, type(None))):
            lines.append(f"jax.config.update({name!r}, {value!r})".replace("'", '"'))
    try:
        count = jax.device_count()
        if jax.default_backend() == "cpu" and count > 1:
            lines.insert(0, f'jax.config.update("jax_num_cpu_devices", {count})')
    except Exception:
        pass
    return lines


def _option_values(stmt: Statement) -> Any:
    """Values a statement passes besides its arguments (primitive parameters)."""
    params = stmt.options.get("params") if stmt.kind == "prim" else None
    return V.normalize(params) if params else ()


def _containers(tree: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(tree, dict):
        return [(path, tree)] + [c for k, v in tree.items() for c in _containers(v, f"{path}[{k!r}]")]
    if V.is_sequence(tree):
        return [(path, tree)] + [c for i, v in enumerate(tree) for c in _containers(v, f"{path}[{i}]")]
    return []


def _shape(tree: Any) -> Any:
    """A hashable description of a container of named values (None if it holds anything else)."""
    if is_named(tree):
        return ("v", id(tree))
    if isinstance(tree, dict) and tree:
        items = tuple(sorted((repr(k), _shape(v)) for k, v in tree.items()))
        return None if any(v is None for _, v in items) else ("d", items)
    if V.is_sequence(tree) and tree:
        items = tuple(_shape(v) for v in tree)
        return None if any(v is None for v in items) else (type(tree).__name__, items)
    return None


def _is_tuple_tree(tree: Any) -> bool:
    if isinstance(tree, dict):
        return False
    if V.is_sequence(tree):
        return all(_is_tuple_tree(x) for x in tree)
    return True


def _pattern(tree: Any, leaf_name) -> str:
    if V.is_sequence(tree):
        inner = ", ".join(_pattern(x, leaf_name) for x in tree)
        return f"({inner},)" if len(tree) == 1 else f"({inner})" if tree else "()"
    return leaf_name(tree)


def _defining_module(primitive: Any) -> tuple[str, str] | None:
    import sys
    for name, module in list(sys.modules.items()):
        if not name.startswith("jax") or module is None:
            continue
        for attr in (f"{primitive.name}_p", getattr(primitive, "name", "")):
            if getattr(module, attr, None) is primitive:
                return name, attr
    return None


def emit(roots: list[Statement], flags: Flags, npz_name: str = "",
         snapshots: Mapping[int, tuple[Any, Any]] | None = None) -> Emitted:
    """The repro of ``roots``; ``snapshots`` are host copies of donated arrays (by id), taken before
    the call that donated them."""
    return Emitter(roots, flags, npz_name, snapshots).emit()
