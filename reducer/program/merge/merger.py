"""The merge itself: each local module's body inlined where Python would first run it, in that order."""

from __future__ import annotations

import libcst as cst
import libcst.metadata as meta

from reducer.program.merge.files import (
    MAX_CHARS, MAX_MODULES, MODULE_DUNDERS, PROGRAM, File, ModuleRef, Refusal, ValueRef, as_name, binding_of,
    builtin_reads, dotted, droppable, fresh, future_names, future_position, globally_declared, identifiers,
    is_import_line, local_names, parse_file, position, walk, where,
)
from reprokit.localmodules import Finder
from reducer.program.merge.renamer import Renamer


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


