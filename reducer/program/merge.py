"""Merging a program's own local modules into it, so that its reduction is one standalone file.

A program that imports modules found beside it (``import utils``, ``from mylib import model``, a package
with relative imports inside) is rewritten, before the search, into one module: each local module's body is
inlined where Python would first run it (at its first import, its own imports first), its top-level names
renamed where they would clash with another file's, ``m.f`` and ``x.CONST`` rewritten to the inlined names,
and the local import statements removed. Modules of the standard library and installed packages are never
inlined. When a construct makes that unsafe (a star import, a dynamic import, a module used as a value or
written to from outside, circular imports, a local import inside a function or block), nothing is merged and
:attr:`Merge.note` says why. The caller still checks that the merged program fails like the original.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path

import libcst as cst
import libcst.metadata as meta

from reducer.interrupts import interrupted
from reprokit.localmodules import Finder
from reprokit.pysource import imported_tops

__all__ = ["Merge", "merge_program"]

# What a module reads about itself that changes meaning once its code runs as the program's.
MODULE_DUNDERS = frozenset({"__name__", "__file__", "__spec__", "__package__", "__loader__", "__path__",
                            "__cached__", "globals", "locals", "vars"})
PROGRAM = "__main__"
# Beyond these, the "local modules" are a library, not the program's own code: merging it is no repro.
MAX_MODULES = 100
MAX_CHARS = 2 * 10**6


@dataclasses.dataclass(frozen=True)
class Merge:
    """The outcome of merging: ``source`` (None when nothing was merged), the local modules it inlined, in
    the order they run, and a sentence for the summary ("" when the program imports no local module)."""

    source: str | None
    modules: tuple[str, ...] = ()
    note: str = ""


class Refusal(Exception):
    """A construct that merging cannot keep exact; the message says which and where."""


@dataclasses.dataclass(frozen=True)
class ModuleRef:
    """A name bound to a local module (``import m``, ``import m as x``, ``from pkg import sub``)."""

    module: str


@dataclasses.dataclass(frozen=True)
class ValueRef:
    """A name bound to a top-level name of a local module (``from m import a as b``)."""

    module: str
    name: str


@dataclasses.dataclass
class File:
    """One parsed file: the program (name ``__main__``) or a local module, with its scope analysis."""

    name: str
    path: Path
    is_package: bool
    module: cst.Module
    wrapper: meta.MetadataWrapper
    scopes: dict[cst.CSTNode, meta.Scope | None]
    global_scope: meta.GlobalScope
    # index of a top-level statement that imports local modules -> the modules it loads, in order
    loads: dict[int, list[str]] = dataclasses.field(default_factory=dict)
    aliases: dict[str, ModuleRef | ValueRef] = dataclasses.field(default_factory=dict)
    local_import_nodes: set[int] = dataclasses.field(default_factory=set)  # ids of Import/ImportFrom nodes
    statement_of: dict[int, int] = dataclasses.field(default_factory=dict)  # node id -> its top-level statement

    @property
    def package(self) -> str:
        """The package its relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    @property
    def body(self) -> Sequence[cst.BaseStatement]:
        return self.wrapper.module.body


def merge_program(source: str, path: str) -> Merge:
    """Merge the local modules the program at ``path`` (whose text is ``source``) imports; never raises for
    what the program contains (a refusal is a note), and never touches the files."""
    finder = Finder(Path(path).resolve().parent, Path(path).resolve())
    try:
        names = sorted({n for n in imported_tops(source) if finder.is_local_name(n)})
    except SyntaxError:
        return Merge(None)
    if not names:
        return Merge(None)  # the common case: no scope analysis at all
    try:
        merger = Merger(finder, parse_file(PROGRAM, Path(path), source, False))
        merged = merger.run()
    except Refusal as why:
        return Merge(None, (), f"kept the multi-file setup (the result still imports {', '.join(names)}): {why}")
    except Exception as err:  # noqa: BLE001 - a construct the merge did not foresee must not stop the reduction
        if interrupted(err):
            raise KeyboardInterrupt from err
        return Merge(None, (), f"kept the multi-file setup: the merge failed ({type(err).__name__}: {err})")
    try:
        compile(merged, path, "exec")
    except SyntaxError as err:  # e.g. a `return` the merge cannot know about; say so rather than guess
        return Merge(None, (), f"kept the multi-file setup: the merged program is not valid Python ({err.msg})")
    modules = tuple(merger.emitted)
    return Merge(merged, modules, f"merged {len(modules)} local module(s) into one file: {', '.join(modules)}")


def parse_file(name: str, path: Path, source: str, is_package: bool) -> File:
    module = split_statements(cst.parse_module(source))
    wrapper = meta.MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = dict(wrapper.resolve(meta.ScopeProvider))
    global_scope = next(s for s in scopes.values() if isinstance(s, meta.GlobalScope))
    return File(name, path, is_package, module, wrapper, scopes, global_scope)


def split_statements(module: cst.Module) -> cst.Module:
    """One small statement per top-level line (``import a; x = 1`` becomes two), so that a local import is
    always a statement of its own."""
    body: list[cst.BaseStatement] = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) > 1:
            for i, small in enumerate(stmt.body):
                body.append(cst.SimpleStatementLine(
                    [small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
                    leading_lines=stmt.leading_lines if i == 0 else ()))
        else:
            body.append(stmt)
    return module.with_changes(body=body)


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from walk(child)


def dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    raise Refusal(f"an import of an unexpected form: {cst.Module([]).code_for_node(node)}")


class Merger:
    """Reads the program's local modules, decides every top-level name's final name, and emits one module."""

    def __init__(self, finder: Finder, program: File):
        self.finder = finder
        self.files: dict[str, File] = {PROGRAM: program}
        self.order: list[str] = []  # local modules, in the order they finish running (dependencies first)
        self.emitted: list[str] = []  # local modules, in the order their code starts in the merged program
        self.final: dict[tuple[str, str], str] = {}  # (file, top-level name) -> its name in the merged program
        self.external: dict[tuple[str, str], tuple[str, ...]] = {}  # (file, name) -> what an import binds it to
        self.copies: dict[tuple[str, int], list[tuple[str, ValueRef]]] = {}
        self.size = 0  # characters of local modules read so far

    def run(self) -> str:
        self.analyse(self.files[PROGRAM])
        self.visit(PROGRAM, [])
        self.check_dunders()
        self.allocate()
        return self.emit()

    # --- reading ---------------------------------------------------------------------------------------

    def load(self, name: str) -> File:
        if name in self.files:
            return self.files[name]
        found = self.finder.locate(name)
        if found is None:
            raise Refusal(f"no local module {name}")
        path, is_package = found
        if path.resolve() == self.finder.program:
            raise Refusal(f"the program imports itself as {name}")
        try:
            text = path.read_text() if path.is_file() else ""
        except (OSError, UnicodeDecodeError) as err:
            raise Refusal(f"{path} cannot be read: {err}") from None
        self.size += len(text)
        if len(self.files) >= MAX_MODULES + 1 or self.size > MAX_CHARS:  # the program is one of the files
            raise Refusal(f"the local modules exceed {MAX_MODULES} files or {MAX_CHARS // 10**6} MB of source "
                          "(a library checked out beside the program?)")
        try:
            file = parse_file(name, path, text, is_package)
        except cst.ParserSyntaxError as err:
            raise Refusal(f"{path} is not valid Python: {err}") from None
        self.files[name] = file
        self.analyse(file)
        return file

    def analyse(self, file: File) -> None:
        """Find ``file``'s local imports (top-level statements only), what they load and what they bind."""
        top_level = {id(small): i for i, stmt in enumerate(file.body) if isinstance(stmt, cst.SimpleStatementLine)
                     for small in stmt.body}
        for node in walk(file.wrapper.module):
            if isinstance(node, cst.Call) and self.dynamic_import(node):
                raise Refusal(f"{where(file)} imports dynamically ({cst.Module([]).code_for_node(node.func)})")
            if not isinstance(node, (cst.Import, cst.ImportFrom)):
                continue
            loads, binds = self.import_of(file, node)
            if not loads:
                continue
            if id(node) not in top_level:
                raise Refusal(f"{where(file)} imports local module {loads[-1]} inside a function or block")
            file.loads[top_level[id(node)]] = loads
            file.local_import_nodes.add(id(node))
            for bound, target in binds:
                if bound in file.aliases and file.aliases[bound] != target:
                    raise Refusal(f"{where(file)} binds {bound} to two different local imports")
                file.aliases[bound] = target

    @staticmethod
    def dynamic_import(call: cst.Call) -> bool:
        func = call.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        return name in ("__import__", "import_module", "reload")

    def import_of(self, file: File, node: cst.Import | cst.ImportFrom) -> tuple[list[str], list[tuple[str, ModuleRef | ValueRef]]]:
        """The local modules an import statement loads (in Python's order) and the names it binds to them."""
        loads: list[str] = []
        binds: list[tuple[str, ModuleRef | ValueRef]] = []
        if isinstance(node, cst.Import):
            for alias in node.names:
                name = dotted(alias.name)
                if not self.finder.is_local_name(name.split(".")[0]):
                    continue
                parts = name.split(".")
                loads.extend(".".join(parts[:i + 1]) for i in range(len(parts)))
                if alias.asname is not None:
                    binds.append((as_name(alias), ModuleRef(name)))
                else:
                    binds.append((parts[0], ModuleRef(parts[0])))
            return loads, binds
        base = self.from_module(file, node)
        if base is None:
            return [], []
        if isinstance(node.names, cst.ImportStar):
            raise Refusal(f"{where(file)} star-imports local module {base}")
        parts = base.split(".")
        loads.extend(".".join(parts[:i + 1]) for i in range(len(parts)))
        package = self.load(base)
        # What the package binds other than through this very statement (`from . import sub` in its __init__).
        defined = {a.name for a in package.global_scope.assignments if a.node is not node}
        for alias in node.names:
            name = dotted(alias.name)
            bound = as_name(alias) if alias.asname is not None else name
            submodule = f"{base}.{name}"
            if isinstance(package.aliases.get(name), ModuleRef):  # a module the package itself imported
                binds.append((bound, package.aliases[name]))
            elif package.is_package and name not in defined and self.finder.locate(submodule):
                loads.append(submodule)
                binds.append((bound, ModuleRef(submodule)))
            else:
                binds.append((bound, ValueRef(base, name)))
        return loads, binds

    def from_module(self, file: File, node: cst.ImportFrom) -> str | None:
        """The absolute name of a from-import's module when it is local, else None."""
        if node.relative:
            if file.name == PROGRAM:
                raise Refusal("the program uses a relative import")
            parts = file.package.split(".")
            up = len(node.relative) - 1
            if up >= len(parts):
                raise Refusal(f"{where(file)} has a relative import beyond its top-level package")
            base = ".".join(parts[:len(parts) - up])
            return f"{base}.{dotted(node.module)}" if node.module is not None else base
        if node.module is None:
            return None
        name = dotted(node.module)
        if name == "__future__" or not self.finder.is_local_name(name.split(".")[0]):
            return None
        return name

    def globals_of(self, file: File) -> list[str]:
        """``file``'s top-level names, in the order they are first bound."""
        names: dict[str, None] = {}
        for assignment in sorted(file.global_scope.assignments, key=lambda a: position(file, a)):
            if "." not in assignment.name:
                names[assignment.name] = None
        return list(names)

    def visit(self, name: str, stack: list[str]) -> None:
        """Load ``name``'s local imports depth first, as Python runs them, recording the order."""
        if name in stack:
            raise Refusal(f"circular imports between local modules: {' -> '.join(stack[stack.index(name):] + [name])}")
        file = self.load(name) if name != PROGRAM else self.files[PROGRAM]
        for index in sorted(file.loads):
            for loaded in file.loads[index]:
                # A package's own modules may import it while it runs: Python hands them the partial module.
                if loaded not in self.order and not (name == loaded or name.startswith(loaded + ".")):
                    self.visit(loaded, stack + [name])
        if name != PROGRAM and name not in self.order:
            self.order.append(name)

    def check_dunders(self) -> None:
        for name in self.order:
            read = builtin_reads(self.files[name]) & MODULE_DUNDERS
            if read:
                raise Refusal(f"local module {name} reads {', '.join(sorted(read))}, which would then be the program's")

    # --- naming ----------------------------------------------------------------------------------------

    def allocate(self) -> None:
        """Every top-level name of every file gets its final name: the program's keep theirs, a module's keep
        theirs unless another file binds or reads that name, two identical external imports share one."""
        owner: dict[str, tuple[str, ...]] = {}
        reserved = {name: local_names(file) | builtin_reads(file) for name, file in self.files.items()}
        everything = set().union(*(identifiers(file) for file in self.files.values()))
        for name in [PROGRAM, *self.order]:
            file = self.files[name]
            for g in self.globals_of(file):
                kind = self.kind_of(file, g)
                if kind is None:
                    continue  # an alias of another module's name: resolved once all names are final
                if name == PROGRAM:
                    final = g
                    for other in self.order:
                        if g in builtin_reads(self.files[other]):
                            raise Refusal(f"the program defines {g}, which local module {other} reads as a builtin")
                else:
                    free = (g not in owner or (owner[g] == kind and kind[0] == "import"))
                    free = free and not any(g in names for other, names in reserved.items() if other != name)
                    final = g if free else fresh(g, name, owner.keys() | everything)
                    if final != g and not self.renameable(file, g):
                        raise Refusal(f"{where(file)} binds {g} with `import a.b`, which cannot be renamed")
                owner[final] = kind
                self.final[(name, g)] = final

    def kind_of(self, file: File, g: str) -> tuple[str, ...] | None:
        """What binds ``g``: ("import", what) for an external import, ("own", file, g) for anything else; None
        for a plain alias of another module's name. A from-import alias that is also reassigned, or whose
        source the module reassigns from its functions, becomes an own name with a copy of the value."""
        assignments = [a for a in file.global_scope.assignments if a.name == g]
        local = [a for a in assignments if isinstance(a, meta.ImportAssignment) and id(a.node) in file.local_import_nodes]
        if local:
            target = file.aliases[g]
            if len(local) == len(assignments):
                if isinstance(target, ModuleRef) or not self.reassigned(target):
                    return None
            elif isinstance(target, ModuleRef):
                raise Refusal(f"{where(file)} rebinds {g}, a local module")
            self.copy(file, g, target, local)
            return ("own", file.name, g)
        imports = [a for a in assignments if isinstance(a, meta.ImportAssignment)]
        if imports and len(imports) == len(assignments):
            bound = {binding_of(a.node, g) for a in imports}
            if len(bound) == 1:
                self.external[(file.name, g)] = bound.pop()
                return ("import", *self.external[(file.name, g)])
        return ("own", file.name, g)

    def reassigned(self, target: ValueRef, seen: frozenset[ValueRef] = frozenset()) -> bool:
        """Whether a module's name may change after its import (assigned from a function, or an alias that is)."""
        if target in seen:
            raise Refusal(f"{target.module}.{target.name} is defined in terms of itself")
        file = self.files[target.module]
        alias = file.aliases.get(target.name)
        if isinstance(alias, ValueRef):
            return self.reassigned(alias, seen | {target})
        return target.name in globally_declared(file)

    def copy(self, file: File, g: str, target: ValueRef, local: list[meta.BaseAssignment]) -> None:
        index = next(i for i, stmts in file.loads.items() if any(position(file, a) == (i,) for a in local))
        self.copies.setdefault((file.name, index), []).append((g, target))

    @staticmethod
    def renameable(file: File, g: str) -> bool:
        for a in file.global_scope.assignments:
            if a.name == g and isinstance(a.node, cst.Import):
                if any(alias.asname is None and "." in dotted(alias.name) for alias in a.node.names):
                    return False
        return True

    def resolve(self, module: str, name: str, seen: tuple[tuple[str, str], ...] = ()) -> ModuleRef | str:
        """What ``module.name`` is in the merged program: a local module, or the final name of a value."""
        if (module, name) in seen:
            raise Refusal(f"{module}.{name} is defined in terms of itself")
        file = self.files[module]
        if (module, name) in self.final:
            return self.final[(module, name)]
        alias = file.aliases.get(name)
        if isinstance(alias, ModuleRef):
            return alias
        if isinstance(alias, ValueRef):
            return self.resolve(alias.module, alias.name, seen + ((module, name),))
        if file.is_package and f"{module}.{name}" in self.order:
            return ModuleRef(f"{module}.{name}")
        raise Refusal(f"{where(file)} has no top-level name {name} that the merge can find")

    # --- writing ---------------------------------------------------------------------------------------

    def emit(self) -> str:
        program = self.files[PROGRAM]
        out: list[cst.BaseStatement] = []
        seen_imports: set[str] = set()
        futures: list[str] = []
        done: set[str] = set()
        gap = [False]  # a blank line before the next statement: a module's code starts or ends there

        def append(stmt: cst.BaseStatement) -> None:
            if gap[0] and out and not stmt.leading_lines:
                stmt = stmt.with_changes(leading_lines=[cst.EmptyLine()])
            gap[0] = False
            out.append(stmt)

        def expand(name: str) -> None:
            file = self.files[name]
            body = Renamer(self, file).transform()
            for i, (original, stmt) in enumerate(zip(file.body, body)):
                if name != PROGRAM and droppable(original, i):
                    futures.extend(future_names(original))
                    continue
                if i in file.loads:
                    for loaded in file.loads[i]:
                        if loaded not in done:
                            done.add(loaded)
                            self.emitted.append(loaded)
                            gap[0] = True
                            expand(loaded)
                            gap[0] = True
                    if stmt is not None and not any(self.is_local_import(file, small) for small in original.body):
                        append(stmt)
                    for g, target in self.copies.get((name, i), []):
                        value = self.resolve(target.module, target.name)
                        if isinstance(value, ModuleRef):
                            raise Refusal(f"{where(file)} rebinds {g}, a local module")
                        append(cst.parse_statement(f"{self.final[(name, g)]} = {value}\n"))
                    continue
                if is_import_line(stmt):
                    code = cst.Module([]).code_for_node(stmt.body[0])
                    if code in seen_imports:
                        continue
                    seen_imports.add(code)
                if stmt is not None:
                    append(stmt)

        expand(PROGRAM)
        own_futures = {n for stmt in program.body for n in future_names(stmt)}
        missing = [n for n in dict.fromkeys(futures) if n not in own_futures]
        if missing:
            out.insert(future_position(out), cst.parse_statement(f"from __future__ import {', '.join(missing)}\n"))
        return program.module.with_changes(body=out).code

    def is_local_import(self, file: File, small: cst.BaseSmallStatement) -> bool:
        """An import statement all of whose names are local (nothing of it stays)."""
        if isinstance(small, cst.ImportFrom):
            return id(small) in file.local_import_nodes
        if isinstance(small, cst.Import) and id(small) in file.local_import_nodes:
            return all(self.finder.is_local_name(dotted(a.name).split(".")[0]) for a in small.names)
        return False


class Renamer(cst.CSTTransformer):
    """One file's statements in the merged program: top-level names renamed to their final names,
    ``module.attr`` chains replaced by the names they reach, local names of a mixed import dropped."""

    def __init__(self, merger: Merger, file: File):
        super().__init__()
        self.merger = merger
        self.file = file
        self.contexts = file.wrapper.resolve(meta.ExpressionContextProvider)
        self.skip: set[int] = set()  # Name nodes that are not identifiers of this scope (attributes, keywords)
        self.chains: dict[int, cst.BaseExpression] = {}

    def transform(self) -> list[cst.BaseStatement | None]:
        module = self.file.module.visit(self)
        return list(module.body)

    def binding(self, node: cst.Name) -> str | None:
        """The top-level name ``node`` refers to in its scope, if it refers to one."""
        scope = self.file.scopes.get(node)
        if scope is None or node.value not in scope:
            return None
        found = scope[node.value]
        if found and all(a.scope is self.file.global_scope and "." not in a.name for a in found):
            return node.value
        return None

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip.add(id(node.attr))
        if id(node) in self.skip:
            return True  # inside a chain already resolved from its outermost attribute
        attrs: list[cst.Attribute] = []
        base: cst.BaseExpression = node
        while isinstance(base, cst.Attribute):
            attrs.append(base)
            self.skip.add(id(base))
            base = base.value
        attrs.reverse()
        if not isinstance(base, cst.Name) or self.binding(base) is None:
            return True
        target = self.file.aliases.get(base.value)
        if not isinstance(target, ModuleRef):
            return True
        self.skip.add(id(base))
        reached: ModuleRef | str = target
        for i, attribute in enumerate(attrs):
            if not isinstance(reached, ModuleRef):
                break
            if self.contexts.get(attribute) in (meta.ExpressionContext.STORE, meta.ExpressionContext.DEL):
                raise Refusal(f"{where(self.file)} writes to {attribute.attr.value} of local module {reached.module}")
            reached = self.merger.resolve(reached.module, attribute.attr.value)
            if isinstance(reached, str):
                self.chains[id(attribute)] = cst.Name(reached)
        if isinstance(reached, ModuleRef):
            raise Refusal(f"{where(self.file)} uses local module {reached.module} as a value")
        return True

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if id(original) in self.chains:
            return self.chains[id(original)]
        return updated

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_Import(self, node: cst.Import) -> bool:
        return False  # its names are handled by leave_Import

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self.skip or self.binding(original) is None:
            return updated
        target = self.file.aliases.get(original.value)
        if isinstance(target, ModuleRef):
            raise Refusal(f"{where(self.file)} uses local module {target.module} as a value ({original.value})")
        key = (self.file.name, original.value)
        if key in self.merger.final:
            return updated.with_changes(value=self.merger.final[key])
        if isinstance(target, ValueRef):
            value = self.merger.resolve(target.module, target.name)
            if isinstance(value, ModuleRef):
                raise Refusal(f"{where(self.file)} uses local module {value.module} as a value ({original.value})")
            return updated.with_changes(value=value)
        return updated

    def visit_Global(self, node: cst.Global) -> bool:
        return False  # its names are always top-level ones: leave_Global renames them

    def leave_Global(self, original: cst.Global, updated: cst.Global) -> cst.Global:
        items = []
        for item in updated.names:
            final = self.merger.final.get((self.file.name, item.name.value))
            items.append(item.with_changes(name=cst.Name(final)) if final else item)
        return updated.with_changes(names=items)

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        if self.file.scopes.get(original) is not self.file.global_scope:
            return updated
        names = []
        for alias in updated.names:
            name = dotted(alias.name)
            if self.merger.finder.is_local_name(name.split(".")[0]):
                continue
            bound = as_name(alias) if alias.asname is not None else name.split(".")[0]
            final = self.merger.final.get((self.file.name, bound), bound)
            if final != bound:
                alias = alias.with_changes(asname=cst.AsName(cst.Name(final)))
            names.append(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        if not names:
            return updated  # all local: the merger leaves the statement out
        return updated.with_changes(names=names)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        if id(original) in self.file.local_import_nodes or isinstance(updated.names, cst.ImportStar):
            if isinstance(updated.names, cst.ImportStar):
                raise Refusal(f"{where(self.file)} uses a star import, whose names the merge cannot see")
            return updated
        if self.file.scopes.get(original) is not self.file.global_scope:
            return updated
        names = []
        for alias in updated.names:
            bound = as_name(alias) if alias.asname is not None else dotted(alias.name)
            final = self.merger.final.get((self.file.name, bound), bound)
            if final != bound:
                alias = alias.with_changes(asname=cst.AsName(cst.Name(final)))
            names.append(alias)
        return updated.with_changes(names=names)


# --- small helpers ---------------------------------------------------------------------------------------


def where(file: File) -> str:
    return "the program" if file.name == PROGRAM else f"local module {file.name}"


def as_name(alias: cst.ImportAlias) -> str:
    assert alias.asname is not None and isinstance(alias.asname.name, cst.Name)
    return alias.asname.name.value


def position(file: File, assignment: meta.BaseAssignment) -> tuple[int, ...]:
    """Index of the top-level statement holding ``assignment``."""
    if not file.statement_of:
        file.statement_of.update({id(n): i for i, stmt in enumerate(file.body) for n in walk(stmt)})
    return (file.statement_of.get(id(assignment.node), len(file.body)),)


def binding_of(node: cst.CSTNode, name: str) -> tuple[str, ...]:
    """What an external import binds ``name`` to: the same tuple means the same object."""
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted(alias.name)
            if alias.asname is not None and as_name(alias) == name:
                return ("module", full)
            if alias.asname is None and full.split(".")[0] == name:
                return ("module", name)
    if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
        base = "." * len(node.relative) + (dotted(node.module) if node.module is not None else "")
        for alias in node.names:
            bound = as_name(alias) if alias.asname is not None else dotted(alias.name)
            if bound == name:
                return ("from", base, dotted(alias.name))
    return ("unknown", str(id(node)))


def local_names(file: File) -> set[str]:
    """Names bound in any scope but the module's (functions, classes, comprehensions)."""
    return {a.name for scope in set(file.scopes.values()) if scope is not None and scope is not file.global_scope
            for a in scope.assignments}


def builtin_reads(file: File) -> set[str]:
    """Names ``file`` reads that no scope of its own binds (builtins, or names the module never defines)."""
    found = set()
    for scope in set(file.scopes.values()):
        if scope is None:
            continue
        for access in scope.accesses:
            if all(isinstance(r, meta.BuiltinAssignment) for r in access.referents) and isinstance(access.node, cst.Name):
                found.add(access.node.value)
    return found


def identifiers(file: File) -> set[str]:
    return {n.value for n in walk(file.module) if isinstance(n, cst.Name)}


def globally_declared(file: File) -> set[str]:
    return {item.name.value for n in walk(file.module) if isinstance(n, cst.Global) for item in n.names}


def fresh(name: str, module: str, taken: set[str]) -> str:
    stem = f"{name}_{module.rpartition('.')[2]}"
    candidate, n = stem, 2
    while candidate in taken:
        candidate, n = f"{stem}_{n}", n + 1
    return candidate


def droppable(stmt: cst.BaseStatement, index: int) -> bool:
    """An inlined module's docstring, ``__all__`` and ``__future__`` imports mean nothing in the program."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        return dotted(small.module) == "__future__"
    if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        return all(isinstance(t, cst.Name) and t.value == "__all__" for t in targets)
    return False


def future_names(stmt: cst.BaseStatement) -> list[str]:
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if (isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative
                    and dotted(small.module) == "__future__" and not isinstance(small.names, cst.ImportStar)):
                return [dotted(a.name) for a in small.names]
    return []


def future_position(body: Sequence[cst.BaseStatement]) -> int:
    """Where a ``__future__`` import may go: after the docstring and the program's own future imports."""
    i = 0
    if body and droppable(body[0], 0) and not future_names(body[0]):
        i = 1
    while i < len(body) and future_names(body[i]):
        i += 1
    return i


def is_import_line(stmt: cst.BaseStatement | None) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom)))
