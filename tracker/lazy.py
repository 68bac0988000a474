"""libcst and the node builders, loaded when a repro is first written: recording never needs them, and
importing libcst would add a third of a second to the start of every tracked program."""

from __future__ import annotations

import importlib
from typing import Any


class _Lazy:
    def __init__(self, module: str):
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module(self._module), name)


cst: Any = _Lazy("libcst")
nodes: Any = _Lazy("tracker.nodes")
