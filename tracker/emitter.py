"""Turn recorded statements into a standalone program, built as a ``libcst.Module`` node by node.

Every traced value (a tracer, an array a recorded call made) gets one name. A user function is defined
at the highest scope where all its free values are in scope (module level when it closes over
nothing). A value used outside the function that made it (a leaked tracer) is published through a
``global``. Concrete inputs become module-level constants: literals when small, ``np.ones(shape,
dtype)`` above ``fake_array_threshold`` elements, or values loaded from a ``.npz`` with
``save_arrays``.

Scoping is decided, not guessed: ``tracker.analysis`` places every function and finds every leak before
any node exists, and each statement is built for a ``Site`` (``tracker.site``: the statement and the
function whose body it goes in), so a name is written only where the scope it is bound in encloses the
site. Handlers (``Api.emit``, ``Operators.emit``...) receive that ``Site`` and return an expression node.
The module around the statements (imports, config lines, spacing) is ``tracker.layout``'s.
"""

from __future__ import annotations

import builtins
import dataclasses
import enum
import inspect
import itertools
import keyword
import re
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any, Mapping

import libcst as cst
import numpy as np

import jax

from reprokit import jaxcompat

from tracker import nodes as N
from tracker import values as V
from tracker.analysis import Analysis, ChildKey, FieldKey, Key, is_named, made, paths, tree_shape
from tracker.calltree import FunctionDef, Statement
from tracker.config import Flags
from tracker.layout import BASE_IMPORTS, IMPORTED_BY_PATH, Import, config_statements, import_lines, npz_loader, spaced
from tracker.records import FunctionRef
from tracker.site import Expr, Scope, Site

Tracer = jaxcompat.tracer_type()


class EmitError(Exception):
    """Part of the call tree cannot be written as Python."""


@dataclasses.dataclass(frozen=True)
class Emitted:
    module: cst.Module
    arrays: dict[str, np.ndarray]  # saved values (``save_arrays``), by constant name
    problems: tuple[str, ...]  # what could not be emitted faithfully


# Names a repro binds, or reads from Python, besides its fresh ones (prefix_N): the loader's, the call's result.
_FIXED_NAMES = frozenset({"result", "_npz", "_arrays"})
_ALIASES = frozenset(i.alias or i.attr for i in BASE_IMPORTS if i.alias or i.attr)  # jnp, np, lax


def _may_define(name: str) -> bool:
    """Whether a top-level function of a repro may be called ``name``: an identifier no import, builtin or
    fixed name of the repro is, and unlike every fresh name (``prefix_N``) that could be made later."""
    return (name.isidentifier() and not keyword.iskeyword(name) and name not in _FIXED_NAMES
            and not hasattr(builtins, name) and name not in sys.modules and name not in _ALIASES
            and not re.search(r"_[0-9]+$", name))


class Emitter:
    def __init__(self, roots: list[Statement], flags: Flags, npz_name: str = "",
                 snapshots: Mapping[int, tuple[Any, Any]] | None = None):
        self.roots = roots
        self.flags = flags
        self.npz_name = npz_name
        # id(donated array) -> (array, host copy taken before the donating call): the value it had.
        self.snapshots: Mapping[int, tuple[Any, Any]] = snapshots or {}
        self.names: dict[int, str] = {}
        self.constants: dict[int, tuple[str, Expr]] = {}
        self.arrays: dict[str, np.ndarray] = {}
        self.imports: set[Import] = set(BASE_IMPORTS)
        self.implied: set[Import] = set()
        self.problems: list[str] = []
        self.counter = itertools.count(1)
        self.analysis = Analysis(roots, self.fresh)
        self.keep: list[Any] = []  # constants and stand-ins, whose ids we rely on
        self.emitted_functions: set[int] = set()
        self.function_names: dict[int, str] = {}
        self.own_names: set[str] = set()  # functions that kept their own names
        self.used_ids: set[int] = set()
        self.pending_comments: list[str] = []  # said before the next statement written
        self.node_classes: dict[type, str] = {}  # user pytree node type -> its stand-in's name
        self.node_definitions: list[cst.BaseStatement] = []

    # -- names -------------------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        return f"{prefix}_{next(self.counter)}"

    def name_of(self, value: Any, prefix: str = "v") -> str:
        if id(value) not in self.names:
            self.names[id(value)] = self.fresh(prefix)
        return self.names[id(value)]

    def function_name(self, fdef: FunctionDef) -> str:
        """The function's own name where it is free (JAX's messages quote it: shard_map's, jit's, so a repro
        whose function is called otherwise fails with another message), else a fresh one."""
        if fdef.id not in self.function_names:
            self.function_names[fdef.id] = self.own_name(fdef.name)
        return self.function_names[fdef.id]

    def own_name(self, name: str) -> str:
        """``name`` the first time a function asks for it, where a repro may define it; else a fresh one."""
        if name in self.own_names or not _may_define(name):
            return self.fresh(name)
        self.own_names.add(name)
        return name

    def path(self, dotted: str) -> Expr:
        if dotted.startswith("operator."):
            self.implied.add(Import.of("operator"))
        if dotted.startswith(IMPORTED_BY_PATH):
            module = dotted.rsplit(".", 1)[0]
            while "." in module and not isinstance(sys.modules.get(module), types.ModuleType):
                module = module.rsplit(".", 1)[0]  # a class's method: jax.experimental.sparse.BCOO.fromdense
            if isinstance(sys.modules.get(module), types.ModuleType):
                self.implied.add(Import.of(module))
        if dotted.startswith(jaxcompat.INTERNAL + "."):
            parts = dotted.split(".")
            module = next((".".join(parts[:n]) for n in range(len(parts), 1, -1)
                           if ".".join(parts[:n]) in sys.modules), "jax")
            self.imports.add(Import.of(module))
        return N.dotted(dotted)

    # -- expressions -------------------------------------------------------------------------------

    def function(self, site: Site, role: str) -> cst.Name:
        fdef = site.statement.functions.get(role)
        if fdef is None:
            name = self.own_name(site.statement.options.get("names", {}).get(role, role))
            message = N.string("JAX did not trace this function in the original run")
            signature = site.statement.options.get("signatures", {}).get(role)
            site.prelude.append(N.function_def(name, _stub_parameters(signature),
                                               [N.raises(N.call("NotImplementedError", [message]))]))
            return N.name(name)
        return N.name(self.function_name(fdef))

    def primitive(self, primitive: Any) -> Expr:
        import jax.extend.core.primitives as prims
        attr = f"{primitive.name}_p"
        if getattr(prims, attr, None) is primitive:
            self.imports.add(Import.from_("jax.extend.core", "primitives", "prims"))
            return N.dotted(f"prims.{attr}.bind")
        module = _defining_module(primitive)
        if module is None:
            raise EmitError(f"cannot find where primitive {primitive.name} is defined")
        self.imports.add(Import.of(module[0]))
        return N.dotted(f"{module[0]}.{module[1]}.bind")

    def expr(self, obj: Any, site: Site) -> Expr:
        if isinstance(obj, cst.BaseExpression):  # a handler's own node
            return obj
        if isinstance(obj, FunctionRef):
            return self.function(site, obj.role)
        if is_named(obj) and id(obj) in self.analysis.def_scopes:
            if self.analysis.visible(obj, site.scope):
                return N.name(self.name_of(obj))
            if id(obj) in self.analysis.leaks:
                return N.name(self.analysis.leaks[id(obj)])
        if isinstance(obj, Tracer):
            self.problems.append(f"a tracer of shape {obj.shape} comes from outside the recorded calls")
            zeros = "jnp.zeros" if N.is_key_dtype(obj.dtype) else "np.zeros"
            return N.call(zeros, [N.shape(obj.shape)], [("dtype", N.dtype(obj.dtype))])
        if isinstance(obj, np.generic) and not isinstance(obj, np.void):
            return N.array(obj, self.flags.fake_array_threshold, None)
        if V.is_array(obj):
            return self._constant(obj)
        if isinstance(site.scope, FunctionDef) and isinstance(obj, (tuple, list, dict, V.Node)):
            found = self.analysis.containers.get((site.scope.id, tree_shape(obj)))
            if found is not None:
                return self._reach(N.name(found[0]), found[1], site)
        if type(obj) is tuple:
            return N.tuple_([self.expr(x, site) for x in obj])
        if type(obj) is list:
            return N.list_([self.expr(x, site) for x in obj])
        if type(obj) is dict:
            return N.dict_([(self.expr(k, site), self.expr(v, site)) for k, v in obj.items()])
        if isinstance(obj, (set, frozenset)):
            items = [self.expr(x, site) for x in sorted(obj, key=repr)]
            return N.call(type(obj).__name__, [N.list_(items)])
        if isinstance(obj, V.Node):
            return self._node(obj, site)
        return self._other(obj, site)

    def _node(self, node: V.Node, site: Site) -> cst.Call:
        """``State(c_1, c_2)`` or ``Params(aux, (c_1, c_2))``, defining the stand-in class once."""
        children = [self.expr(x, site) for x in node.children]
        if node.fields:  # a sparse array: jax.experimental.sparse.BCOO((data, indices), shape=...)
            return N.call(self.path(f"jax.experimental.sparse.{node.type.__name__}"), [N.tuple_(children)],
                          [(k, self.expr(v, site)) for k, v in node.aux.items()])
        identifier = self._node_class(node)
        if node.is_namedtuple:
            return N.call(identifier, children)
        return N.call(identifier, [self.expr(node.aux, site), N.tuple_(children)])

    def _node_class(self, node: V.Node) -> str:
        if node.type not in self.node_classes:
            taken = set(self.node_classes.values())
            identifier = node.type.__name__
            for suffix in itertools.count(2):  # two classes of one name (from two modules)
                if identifier not in taken:
                    break
                identifier = f"{node.type.__name__}{suffix}"
            self.node_classes[node.type] = identifier
            if node.is_namedtuple:
                self.imports.add(Import.of("collections"))
                self.node_definitions += N.namedtuple_class(identifier, node.type)
            else:
                self.node_definitions += N.pytree_class(identifier, node.type)
        return self.node_classes[node.type]

    def _reach(self, base: Expr, keys: Sequence[Key], site: Site) -> Expr:
        """``base[k1][k2]...``: a leaf or part of a container parameter."""
        for key in keys:
            if isinstance(key, ChildKey):
                base = N.subscript(N.attribute(base, "children"), [N.integer(key.index)])
            elif isinstance(key, FieldKey):
                base = N.attribute(base, key.name)
            else:
                base = N.subscript(base, [self.expr(key, site)])
        return base

    def _other(self, obj: Any, site: Site) -> Expr:
        if obj is Ellipsis:
            return cst.Ellipsis()
        if isinstance(obj, slice):
            return N.call("slice", [self.expr(p, site) for p in (obj.start, obj.stop, obj.step)])
        if isinstance(obj, (type(None), bool, int, float, complex, str, bytes)):
            return N.scalar(obj)
        if N.is_key_dtype(obj):  # a key array's dtype (``key.dtype``), not a NumPy one
            return N.key_dtype(obj)
        if isinstance(obj, np.dtype):
            return N.call("jnp.dtype", [N.string(obj.name)])
        if isinstance(obj, type):
            if obj in (int, float, bool, complex):
                return N.name(obj.__name__)
            try:
                return N.dotted(f"jnp.{np.dtype(obj).name}")
            except TypeError:
                pass
        if isinstance(obj, enum.Enum):
            return self.path(N.enum_path(obj))
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            return N.call(self.path(N.public_path(type(obj))), [],
                          [(k, self.expr(v, site)) for k, v in zip(obj._fields, obj)])
        if isinstance(obj, jax.ShapeDtypeStruct):
            dt = obj.dtype if N.is_key_dtype(obj.dtype) else np.dtype(obj.dtype)
            return N.call("jax.ShapeDtypeStruct", [N.shape(obj.shape), self.expr(dt, site)])
        return self._sharding(obj, site)

    def _sharding(self, obj: Any, site: Site) -> Expr:
        from jax.sharding import AbstractMesh, Mesh, NamedSharding, PartitionSpec
        from tracker.firstorder import FirstOrder
        if isinstance(obj, FirstOrder):
            return self.path(obj.public)
        if isinstance(obj, PartitionSpec):
            return N.call("jax.sharding.PartitionSpec", [self.expr(p, site) for p in obj])
        if isinstance(obj, Mesh):
            return N.call("jax.sharding.Mesh", [_device_grid(obj), N.tuple_([N.string(a) for a in obj.axis_names])])
        if isinstance(obj, AbstractMesh):  # ``jax.typeof(x).sharding.mesh`` (nnx.Dropout passes one)
            return N.call("jax.sharding.AbstractMesh",
                          [N.tuple_([self.expr(s, site) for s in obj.axis_sizes]),
                           N.tuple_([N.string(a) for a in obj.axis_names])],
                          [("axis_types", N.tuple_([self.expr(t, site) for t in obj.axis_types]))])
        if isinstance(obj, NamedSharding):
            return N.call("jax.sharding.NamedSharding", [self.expr(obj.mesh, site), self.expr(obj.spec, site)])
        if isinstance(obj, types.FunctionType) and getattr(jax.checkpoint_policies, obj.__name__, None) is obj:
            return N.dotted(f"jax.checkpoint_policies.{obj.__name__}")
        if type(obj).__name__ == "PRNGImpl":
            self.imports.add(Import.of(jaxcompat.PRNG_MODULE))
            return N.subscript(N.dotted(jaxcompat.PRNG_MODULE + ".prngs"), [N.string(obj.name)])
        if _user_object(obj):
            return self._stand_in(obj)
        raise EmitError(f"cannot write a {type(obj).__name__} value as Python: {obj!r:.80}")

    def is_jax_constant(self, obj: Any, node: Expr) -> bool:
        """Whether ``node``, written for ``obj``, is the NumPy constant of a concrete JAX array."""
        return (isinstance(obj, jax.Array) and not isinstance(obj, Tracer) and isinstance(node, cst.Name)
                and self.constants.get(id(obj), ("",))[0] == node.value)

    def _stand_in(self, obj: Any) -> cst.Name:
        """A program's own object that a recorded call only passes along (a Flax module given to
        ``grad`` beside the parameters, an optax transformation as a static argument): the calls it
        makes are recorded where they run, so the repro needs only something with its identity. One
        module-level instance of an empty class of the same name (a stub for a function): hashing, ``is``
        and JAX's "not a valid JAX type" behave as they did for the original."""
        if id(obj) in self.constants:
            return N.name(self.constants[id(obj)][0])
        name = self.fresh("o")
        if isinstance(obj, types.FunctionType):
            identifier = self.fresh(obj.__name__ if obj.__name__.isidentifier() else "function")
            message = N.string("JAX did not call this function in the original run")
            self.node_definitions.append(N.function_def(identifier, N.parameters((), star_args=True),
                                                        [N.raises(N.call("NotImplementedError", [message]))]))
            value: Expr = N.name(identifier)
        else:
            value = N.call(self._stand_in_class(type(obj)))
        self.keep.append(obj)
        self.constants[id(obj)] = (name, value)
        return N.name(name)

    def _stand_in_class(self, cls: type) -> str:
        if cls not in self.node_classes:
            taken = set(self.node_classes.values())
            identifier = next(candidate for candidate in
                              (cls.__name__ + (str(n) if n > 1 else "") for n in itertools.count(1))
                              if candidate not in taken)
            self.node_classes[cls] = identifier
            self.node_definitions.append(N.class_def(identifier, N.same_class_path(identifier, cls)))
        return self.node_classes[cls]

    def _constant(self, array: Any) -> cst.Name:
        if id(array) in self.constants:
            return N.name(self.constants[id(array)][0])
        name = self.fresh("c")
        saved = self._saver(name) if self.flags.save_arrays and self.npz_name else None
        kept = self.snapshots.get(id(array))
        value = kept[1] if kept is not None and kept[0] is array else array  # donated: the copy
        literal = N.array(value, self.flags.fake_array_threshold, saved)
        self.keep.append(array)
        self.constants[id(array)] = (name, literal)
        return N.name(name)

    def _saver(self, name: str) -> Callable[[np.ndarray], Expr]:
        """Saves an array under ``name`` in the ``.npz``; the repro reads ``_arrays[name]``."""
        def saved(array: np.ndarray) -> Expr:
            self.arrays[name] = array
            return N.subscript(N.name("_arrays"), [N.string(name)])
        return saved

    # -- statements --------------------------------------------------------------------------------

    def statement_nodes(self, stmt: Statement, scope: Scope) -> list[cst.BaseStatement]:
        site = Site(self, stmt, scope)
        try:
            call = stmt.handler.emit(stmt, site)
        except EmitError as error:
            self.problems.append(str(error))
            # One comment line: a value's repr (a Flax module's) may span several.
            said = " ".join(str(error).split())
            self.pending_comments.append(f"jax-reduce could not write this {stmt.kind} call ({stmt.name}): {said}")
            return []
        out = list(site.prelude)
        if stmt.kind == "collect":
            out.append(N.assign("result", call))
        else:
            target, extra = self._targets(stmt, site)
            out.append(N.assign(target, call) if target is not None else N.expression_statement(call))
            out.extend(extra)
        for _, leaf in made(stmt):
            out.extend(self._publish(leaf, scope))
        return out

    def _targets(self, stmt: Statement, site: Site) -> tuple[Expr | None, list[cst.BaseStatement]]:
        if not stmt.returned:
            return None, []
        used = self.used_ids
        pairs = [(keys, leaf) for keys, leaf in made(stmt) if is_named(leaf) and id(leaf) in used]
        if not pairs:
            return None, []
        if len(pairs) == 1 and pairs[0][0] == ():
            return N.name(self.name_of(pairs[0][1])), []
        bound = {id(leaf) for _, leaf in pairs}
        if _is_tuple_tree(stmt.result):
            return _pattern(stmt.result, lambda leaf: self.name_of(leaf) if id(leaf) in bound else "_"), []
        temp = self.fresh("out")
        return N.name(temp), [N.assign(self.name_of(leaf), self._reach(N.name(temp), keys, site))
                              for keys, leaf in pairs]

    def _publish(self, leaf: Any, scope: Scope) -> list[cst.BaseStatement]:
        leaks = self.analysis.leaks
        if id(leaf) in leaks and scope is not None:
            return [N.assign(leaks[id(leaf)], N.name(self.name_of(leaf)))]
        return []

    # -- functions and scopes ----------------------------------------------------------------------

    def body_nodes(self, statements: list[Statement], scope: Scope) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for stmt in statements:
            for fdef in self._defs_before(stmt, scope):
                out.extend(self._commented([self.function_node(fdef)]))
            out.extend(self._commented(self.statement_nodes(stmt, scope)))
        return out

    def _commented(self, statements: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """The pending comments (calls that could not be written) said before the first statement."""
        if not statements or not self.pending_comments:
            return statements
        lines = [cst.EmptyLine(comment=cst.Comment(f"# {text}")) for text in self.pending_comments]
        self.pending_comments = []
        first = statements[0]
        return [first.with_changes(leading_lines=[*lines, *first.leading_lines]), *statements[1:]]

    def _defs_before(self, stmt: Statement, scope: Scope) -> list[FunctionDef]:
        """Functions placed in ``scope`` that ``stmt`` (or a call under it) passes to JAX."""
        found = []
        stack = [stmt]
        while stack:
            current = stack.pop()
            for fdef in current.children():
                if fdef.id in self.emitted_functions:
                    continue
                if self.analysis.placement.get(fdef.id, None) is scope:
                    found.append(fdef)
                    self.emitted_functions.add(fdef.id)
                stack.extend(fdef.body)
        return sorted(found, key=lambda f: f.id)

    def function_node(self, fdef: FunctionDef) -> cst.FunctionDef:
        positional, keyword_only, unpack = self._params(fdef)
        body = unpack + self.body_nodes(fdef.body, fdef)
        if fdef.returned:
            tail = [N.returns(self.expr(fdef.result, Site(self, fdef.parent, fdef)))]
        else:
            tail = _own_raise(fdef) if fdef.error is not None else []
        body += self._commented(tail)
        analysis = self.analysis
        globals_ = sorted({analysis.leaks[id(v)] for v in analysis.keep if id(v) in analysis.leaks
                           and fdef in analysis.def_scopes.get(id(v), [])})
        if globals_:
            body.insert(0, N.global_(globals_))
        return N.function_def(self.function_name(fdef), N.parameters(positional, keyword_only), body)

    def _needed(self, fdef: FunctionDef) -> set[int]:
        """Values the body of ``fdef`` reads: its own uses and the free values of functions placed in it."""
        analysis = self.analysis
        needed = {id(v) for v in analysis.uses.get(fdef, [])}
        for inner in analysis.functions:
            if analysis.placement.get(inner.id) is fdef:
                needed |= analysis.free(inner)
        return needed

    def _params(self, fdef: FunctionDef) -> tuple[list[str], list[str], list[cst.BaseStatement]]:
        positional: list[str] = []
        unpack: list[cst.BaseStatement] = []
        needed = self._needed(fdef)
        site = Site(self, fdef.parent, fdef)

        def unpacked(param: str, tree: Any) -> list[cst.BaseStatement]:
            return [N.assign(self.name_of(leaf, "x"), self._reach(N.name(param), keys, site))
                    for keys, leaf in paths(tree) if is_named(leaf) and id(leaf) in needed]

        for i, arg in enumerate(fdef.args):
            if is_named(arg):
                positional.append(self.name_of(arg, "x"))
                continue
            param = self.analysis.param_names.get((fdef.id, i)) or self.fresh("args")
            positional.append(param)
            unpack += unpacked(param, arg)
        for key, arg in fdef.kwargs.items():
            unpack += unpacked(key, arg)
        for _, leaf in paths((fdef.args, fdef.kwargs)):
            unpack.extend(self._publish(leaf, fdef))
        return positional, list(fdef.kwargs), unpack

    # -- the module --------------------------------------------------------------------------------

    def emit(self) -> Emitted:
        self.analysis.run()
        self.used_ids = {id(v) for used in self.analysis.uses.values() for v in used}
        body = self.body_nodes(self.roots, None)
        if self.pending_comments:  # the last calls could not be written: say so at the end
            body.append(N.comment("; ".join(self.pending_comments)))
            self.pending_comments = []
        constants = [N.assign(name, literal) for name, literal in self.constants.values()]
        if self.arrays:
            self.implied.add(Import.of("os"))
            constants[:0] = npz_loader(self.npz_name)
        declared = [N.assign(g, N.name("None")) for g in sorted(set(self.analysis.leaks.values()))]
        imports = import_lines(self.imports, self.implied)
        sections = [imports, config_statements(), self.node_definitions, constants + declared, body]
        return Emitted(cst.Module(spaced(sections)), dict(self.arrays), tuple(self.problems))


def _device_grid(mesh: Any) -> Expr:
    """``np.array([jax.devices()[i] for i in ids]).reshape(shape)``: the mesh's devices by id."""
    device = N.subscript(N.call("jax.devices"), [N.name("i")])
    ids = N.list_([N.integer(d.id) for d in mesh.devices.flat])
    devices = cst.ListComp(device, cst.CompFor(target=N.name("i"), iter=ids))
    return N.call(N.attribute(N.call("np.array", [devices]), "reshape"), [N.shape(mesh.devices.shape)])


def _user_object(obj: Any) -> bool:
    """An object of the program's or a library's own (not JAX's, NumPy's or a builtin type's), so
    not a value a JAX primitive needs as itself."""
    if isinstance(obj, (type, types.ModuleType)) or isinstance(obj, enum.Enum):
        return False
    owner = obj.__module__ if isinstance(obj, types.FunctionType) else type(obj).__module__
    return (owner or "").split(".")[0] not in ("jax", "jaxlib", "numpy", "builtins", "tracker")


def _own_raise(fdef: FunctionDef) -> list[cst.BaseStatement]:
    """``raise ValueError(...)`` when the function's own code raised a builtin exception (a shape
    check of the program's), not a call it made: the repro has no other way to raise it."""
    error = fdef.error
    if any(stmt.error is error for stmt in fdef.body) or not isinstance(error, Exception) \
            or type(error).__module__ != "builtins" or fdef.error_site.split(".")[0] in ("jax", "jaxlib"):
        return []
    plain = (str, int, float, bool, type(None))
    args = error.args if all(isinstance(a, plain) for a in error.args) else (str(error),)
    return [N.raises(N.call(type(error).__name__, [N.scalar(a) for a in args]))]


def _stub_parameters(signature: inspect.Signature | None) -> cst.Parameters:
    """The user function's parameters, by name and kind (JAX checks ``static_argnums`` against them);
    ``(*args, **kwargs)`` when unknown or variadic."""
    if signature is None or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.kind == p.POSITIONAL_ONLY
                                for p in signature.parameters.values()):
        return N.parameters((), star_args=True)
    params = list(signature.parameters.values())
    return N.parameters([p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD],
                        [p.name for p in params if p.kind == p.KEYWORD_ONLY])


def _is_tuple_tree(tree: Any) -> bool:
    if isinstance(tree, (dict, V.Node)):
        return False
    if V.is_sequence(tree):
        return all(_is_tuple_tree(x) for x in tree)
    return True


def _pattern(tree: Any, leaf_name: Callable[[Any], str]) -> Expr:
    """The unpacking target for a tuple tree: ``(a, (b, _))``."""
    if V.is_sequence(tree):
        return N.tuple_([_pattern(x, leaf_name) for x in tree])
    return N.name(leaf_name(tree))


def _defining_module(primitive: Any) -> tuple[str, str] | None:
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
