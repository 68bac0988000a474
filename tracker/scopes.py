"""A scope check for emitted repros, on libcst's scope analysis.

Every name a repro reads must be bound in a scope that encloses the read (or be a builtin), and the
root of every dotted module path it uses (``jax.lax.scan``) must be bound by an import. A repro that
breaks this fails with NameError instead of the original program's error.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import (Access, ImportAssignment, MetadataWrapper, PositionProvider, Scope,
                             ScopeProvider)


def check_scopes(module: cst.Module) -> list[str]:
    """What ``module`` reads without binding, as ``"line N: name 'x' is not bound"`` messages (none
    when every read is bound)."""
    wrapper = MetadataWrapper(module)
    scopes = {s for s in wrapper.resolve(ScopeProvider).values() if isinstance(s, Scope)}
    positions = wrapper.resolve(PositionProvider)
    problems = []
    for scope in scopes:
        for access in scope.accesses:
            if not access.referents and not _interpreter_global(access):
                problems.append(_message(access, positions, "is not bound"))
            elif _module_path(access) and not any(isinstance(r, ImportAssignment) for r in access.referents):
                problems.append(_message(access, positions, "is used as a module but not imported"))
    return sorted(set(problems), key=lambda m: (int(m.split(":")[0].split()[1]), m))


# Names every module has without binding them (``__file__`` locates a repro's saved arrays).
_MODULE_GLOBALS = frozenset({"__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__",
                             "__builtins__"})


def _interpreter_global(access: Access) -> bool:
    return isinstance(access.node, cst.Name) and access.node.value in _MODULE_GLOBALS


def _module_path(access: Access) -> bool:
    """Whether the read is the root of a dotted path the repro spells as a module (jax.*, jnp.*,
    np.*, lax.*): those names come only from imports."""
    return isinstance(access.node, cst.Name) and access.node.value in ("jax", "jnp", "np", "lax", "prims")


def _message(access: Access, positions, what: str) -> str:
    line = positions[access.node].start.line if access.node in positions else 0
    name = access.node.value if isinstance(access.node, cst.Name) else cst.Module([]).code_for_node(access.node)
    return f"line {line}: name {name!r} {what}"
