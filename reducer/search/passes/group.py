"""Pass groups: one pass made of named sub-passes, each proposing one kind of edit.

A sub-pass is a small plug-in: ``visit_<Node>`` methods that offer the edits of its kind for nodes of that
type, reading what its group's :class:`Analysis` resolved once about the module (libcst metadata, imports).
A group walks the module once and at each node asks its sub-passes in their listed order, so its edits come
in source pre-order (large chunks of the search then remove whole blocks first) and interleave exactly as
one visitor's would. Every edit records the sub-pass that offered it (``Edit.origin``), which is how the
engine measures each kind's payoff without knowing what the kinds are.

``group.only(name)`` is a pass with one sub-pass, for running a kind on its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import libcst as cst
from libcst.metadata import ProviderT

from reducer.search.passes.base import Edit, apply_edits, metadata
from reducer.search.passes.traversal import walk


class Analysis:
    """What a group's sub-passes read about one module, computed once per module: the libcst metadata the
    group declares in ``METADATA`` and whatever a subclass adds (import aliases, helper queries)."""

    METADATA: ClassVar[tuple[ProviderT, ...]] = ()

    def __init__(self, module: cst.Module):
        self.module = module
        # Not copied, so the nodes edits name are the module's own.
        self._metadata = metadata(module).resolve_many(self.METADATA)

    def get(self, provider: ProviderT, node: cst.CSTNode, default: Any = None) -> Any:
        return self._metadata[provider].get(node, default)


class SubPass:
    """One kind of edit. Subclasses set ``name`` (``family.kind``), say in their docstring what the kind
    removes and why, and define ``visit_<Node>(node)`` methods that call :meth:`offer`."""

    name: ClassVar[str] = ""

    def __init__(self, analysis: Analysis, found: list[Edit]):
        self.analysis = analysis
        self._found = found

    def offer(self, edit: Edit) -> None:
        self._found.append(dataclasses.replace(edit, origin=self.name))

    def handlers(self) -> Iterable[tuple[str, Callable[[cst.CSTNode], None]]]:
        """(node class name, handler) for each ``visit_<Node>`` method."""
        for attribute in dir(type(self)):
            if attribute.startswith("visit_"):
                yield attribute[len("visit_"):], getattr(self, attribute)


class _Dispatch(cst.CSTVisitor):
    def __init__(self, handlers: dict[str, list[Callable[[cst.CSTNode], None]]], prune: tuple[type, ...]):
        super().__init__()
        self.handlers = handlers
        self.prune = prune

    def on_visit(self, node: cst.CSTNode) -> bool:
        for handler in self.handlers.get(type(node).__name__, ()):
            handler(node)
        return not isinstance(node, self.prune)


class PassGroup:
    """A pass whose edits are those of its sub-passes, listed in one walk of the module."""

    name: ClassVar[str] = ""
    analysis: ClassVar[type[Analysis]] = Analysis
    subpasses: ClassVar[tuple[type[SubPass], ...]] = ()
    prune: ClassVar[tuple[type[cst.CSTNode], ...]] = ()  # nodes whose insides no sub-pass looks into

    def __init__(self, only: Sequence[str] | None = None):
        known = [kind.name for kind in self.subpasses]
        unknown = sorted(set(only or ()) - set(known))
        if unknown:
            raise ValueError(f"{self.name} has no sub-pass {', '.join(unknown)} (it has {', '.join(known)})")
        self.chosen = tuple(kind for kind in self.subpasses if only is None or kind.name in only)
        if only is not None and len(self.chosen) == 1:
            self.name = self.chosen[0].name  # type: ignore[misc]

    @property
    def subpass_names(self) -> tuple[str, ...]:
        return tuple(kind.name for kind in self.chosen)

    def only(self, name: str) -> PassGroup:
        """This group reduced to one sub-pass (a pass named after it)."""
        return type(self)(only=[name])

    def collect(self, module: cst.Module, kinds: Sequence[type[SubPass]]) -> list[Edit]:
        """The edits of ``kinds`` on ``module``, in source pre-order (at one node, in the order of ``kinds``)."""
        analysis = self.analysis(module)
        found: list[Edit] = []
        handlers: dict[str, list[Callable[[cst.CSTNode], None]]] = {}
        for kind in kinds:
            for node_type, handler in kind(analysis, found).handlers():
                handlers.setdefault(node_type, []).append(handler)
        walk(module, _Dispatch(handlers, self.prune))
        return found

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        return self.collect(module, self.chosen)

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        return apply_edits(module, edits)
