"""Rewriting one file's code for its place in the merged program: its top-level names renamed where they
clash, references to other local modules (``m.f``, ``x.CONST``) pointed at their inlined names."""

from __future__ import annotations

from typing import Protocol

import libcst as cst
import libcst.metadata as meta

from reducer.program.merge.files import File, ModuleRef, Refusal, ValueRef, as_name, dotted, where
from reprokit.localmodules import Finder


class Names(Protocol):
    """What the renamer asks of the merge: each file's top-level names in the merged program, and where a
    name a module imports comes from."""

    finder: Finder
    final: dict[tuple[str, str], str]

    def resolve(self, module: str, name: str) -> ModuleRef | str: ...


class Renamer(cst.CSTTransformer):
    """One file's statements in the merged program: top-level names renamed to their final names,
    ``module.attr`` chains replaced by the names they reach, local names of a mixed import dropped."""

    def __init__(self, merger: Names, file: File):
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


