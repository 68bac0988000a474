"""Reading frozen records back from JSON written by this or another version."""

from __future__ import annotations

import dataclasses
from typing import Any


def known_fields(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` that are fields of the dataclass ``cls``: a record written by a newer version
    may carry fields this one does not know."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {key: value for key, value in data.items() if key in names}
