"""What kind of value an expression produced at run time, recorded in the program's own process.

A :class:`ValueFact` says what a value was, as far as a program that only needs "a value of that kind" cares:
a JAX array or tracer (shape, dtype, weak type; a tracer by its aval), a typed PRNG key array (shape and
implementation; a raw ``uint32`` key is an array like any other), a NumPy array or scalar, a Python
scalar or string (with its value), None, or a tuple, list or dict of such; anything else is ``other``. The
reducer's ``computed-values`` pass replaces an expression by the smallest constructor of the kind its fact
names (``Env().reset()`` -> ``jnp.zeros(3)``).

The facts come from a *capture run*: the program with its replaceable expressions wrapped as
``__jr_probe__(k, expr)`` (the pass does that), run under :func:`envelope`, which defines the probe and,
when the program ends however it ends, raises a :class:`ValuesReport` whose message is the facts as JSON.
So a capture run travels through any executor (warm pool or fresh interpreter, with their sandbox, limits
and timeout) as an ordinary failing program, and its facts come back as that outcome's message: no second
channel out of the sandbox. The judged runs never contain a probe.

Like :mod:`.facts`, values are inspected duck-typed through ``sys.modules``: this module imports only the
standard library (it runs inside candidate processes).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import tempfile
from typing import Any

from reprokit import jaxcompat
from reprokit.records import known_fields

PROBE = "__jr_probe__"  # a dunder name: never mangled inside a class body

# Kinds of values.
JAX, TRACER, NUMPY, NUMPY_SCALAR, KEY = "jax", "tracer", "numpy", "numpy-scalar", "key"
SCALAR, STR, NONE, TUPLE, LIST, DICT, OTHER = "scalar", "str", "none", "tuple", "list", "dict", "other"

# Dtypes a replacement can name (jnp.<dtype> / np.<dtype>); others (keys, strings, objects) are "other".
ARRAY_DTYPES = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
})
MAX_ITEMS = 16  # a longer container is "other": its constructor would rarely be smaller than its expression
MAX_DEPTH = 4
MAX_STR = 200


@dataclasses.dataclass(frozen=True)
class ValueFact:
    """The kind of one value, and what a constructor of an equal kind needs."""

    kind: str
    shape: tuple[int, ...] = ()  # arrays and tracers
    dtype: str = ""  # arrays, tracers and NumPy scalars
    weak_type: bool = False  # JAX arrays and tracers
    literal: str = ""  # the repr of a Python scalar or string
    items: tuple[ValueFact, ...] = ()  # tuple, list and dict elements (dict: its values)
    keys: tuple[str, ...] = ()  # a dict's keys, as reprs of Python scalars or strings
    type_name: str = ""  # "other": the value's type, for people

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name != "kind" and value != field.default:
                data[field.name] = [item.to_json() for item in value] if field.name == "items" else value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ValueFact:
        values = known_fields(cls, data)
        values["shape"] = tuple(values.get("shape", ()))
        values["keys"] = tuple(values.get("keys", ()))
        values["items"] = tuple(cls.from_json(item) for item in values.get("items", ()))
        return cls(**values)


def _other(value: Any) -> ValueFact:
    return ValueFact(OTHER, type_name=f"{type(value).__module__}.{type(value).__qualname__}")


# Typed PRNG keys' dtypes (`key<fry>`), by the implementation name `jax.random.key(..., impl=)` takes.
KEY_IMPLS = {"key<fry>": "threefry2x32", "key<rbg>": "rbg", "key<urbg>": "unsafe_rbg"}


def _array_fact(kind: str, holder: Any, value: Any) -> ValueFact:
    shape, dtype = getattr(holder, "shape", None), str(getattr(holder, "dtype", ""))
    if not isinstance(shape, tuple) or not all(isinstance(n, int) for n in shape):
        return _other(value)  # symbolic shapes: no constructor names them
    if dtype in KEY_IMPLS:  # a typed key array (concrete or traced): made by jax.random.key and split
        return ValueFact(KEY, shape=shape, dtype=dtype)
    if dtype not in ARRAY_DTYPES:
        return _other(value)  # string or other extended dtypes
    return ValueFact(kind, shape=shape, dtype=dtype, weak_type=bool(getattr(holder, "weak_type", False)))


def _key_literal(key: Any) -> str | None:
    if key is None or type(key) in (bool, int, str) or (type(key) is float and math.isfinite(key)):
        return repr(key)
    return None


def private_places() -> tuple[str, ...]:
    """This run's own directories (its working and temporary directory, its home): a worker or fresh
    interpreter makes new ones for every run, so a string that names them is no constant of the program."""
    places = {os.getcwd(), tempfile.gettempdir(), os.environ.get("HOME", "")}
    return tuple(sorted(p for p in places if len(p.strip(os.sep)) > 0))


def fact_of(value: Any, depth: int = 0, private: tuple[str, ...] = ()) -> ValueFact:
    """The :class:`ValueFact` of ``value`` (exact types only: a subclass may behave differently). A string
    that contains one of the ``private`` directories is ``other``: a constant naming it would differ from
    run to run (a path under the run's temporary directory)."""
    if value is None:
        return ValueFact(NONE)
    tracer, jax, np = jaxcompat.loaded_tracer_type(), sys.modules.get("jax"), sys.modules.get("numpy")
    if tracer is not None and isinstance(value, tracer):
        return _array_fact(TRACER, getattr(value, "aval", None), value)
    if jax is not None and isinstance(value, jax.Array):
        return _array_fact(JAX, value, value)
    if np is not None and type(value) is np.ndarray:
        return _array_fact(NUMPY, value, value)
    if np is not None and isinstance(value, np.generic):  # before Python scalars: np.float64 is a float
        return _array_fact(NUMPY_SCALAR, value, value)
    if type(value) in (bool, int, complex) or (type(value) is float and math.isfinite(value)):
        if type(value) is complex and not (math.isfinite(value.real) and math.isfinite(value.imag)):
            return _other(value)
        return ValueFact(SCALAR, literal=repr(value))
    if type(value) is str:
        if len(value) > MAX_STR or any(place in value for place in private):
            return _other(value)
        return ValueFact(STR, literal=repr(value))
    if type(value) in (tuple, list) and len(value) <= MAX_ITEMS and depth < MAX_DEPTH:
        return ValueFact(TUPLE if type(value) is tuple else LIST,
                         items=tuple(fact_of(item, depth + 1, private) for item in value))
    if type(value) is dict and len(value) <= MAX_ITEMS and depth < MAX_DEPTH:
        keys = [_key_literal(key) for key in value]
        if None in keys:
            return _other(value)
        if any(place in key for key in keys for place in private):  # type: ignore[operator]
            return _other(value)
        items = tuple(fact_of(item, depth + 1, private) for item in value.values())
        return ValueFact(DICT, keys=tuple(keys), items=items)  # type: ignore[arg-type]
    return _other(value)


class Probe:
    """``__jr_probe__(k, value)``: records the fact of the first value expression ``k`` produced and returns
    the value unchanged (later values of ``k`` cost a dictionary lookup).

    The first, not the last: the last (the failing pass of a loop, where the first pass may not fail) left
    corpus 47 at 3.1x its minimal instead of 1.7x and changed no other program's result."""

    def __init__(self) -> None:
        self.facts: dict[int, ValueFact] = {}
        self.private = private_places()

    def __call__(self, k: int, value: Any) -> Any:
        if k not in self.facts:
            try:
                self.facts[k] = fact_of(value, private=self.private)
            except Exception:  # noqa: BLE001 - odd objects (a broken __eq__, a failing .shape) must not change the run
                self.facts[k] = ValueFact(OTHER)
        return value

    def report(self) -> str:
        return json.dumps({str(k): fact.to_json() for k, fact in sorted(self.facts.items())})


class ValuesReport(Exception):
    """Raised when a capture run ends, however the program ended: its message is the facts as JSON."""


REPORT_TYPE = f"{ValuesReport.__module__}.{ValuesReport.__qualname__}"


def run_probed(source: str) -> None:
    """Run the probed ``source`` as the ``__main__`` module (where the runner put this envelope), then report
    the facts by raising :class:`ValuesReport` (also when the program raised or called ``sys.exit``)."""
    main = sys.modules["__main__"]
    probe = Probe()
    namespace = main.__dict__
    namespace[PROBE] = probe
    try:
        exec(compile(source, getattr(main, "__file__", "<probed>"), "exec"), namespace)
    finally:
        raise ValuesReport(probe.report())  # noqa: B012 - the program's own ending is not what this run is for


def envelope(probed_source: str, head: str = "") -> str:
    """A program that runs ``probed_source`` (its expressions wrapped as ``__jr_probe__(k, expr)``) and ends
    by raising its facts (:func:`run_probed`). ``head``, the source's leading lines that decide where it may run
    (its environment settings), runs first as they are, and the rest inside the envelope."""
    if not probed_source.startswith(head):
        raise ValueError("the head must be the start of the probed source")
    rest = probed_source[len(head):]
    return f"{head}import reprokit.values\nreprokit.values.run_probed({rest!r})\n"


def facts_from_report(exc_type: str, message: str) -> dict[int, ValueFact] | None:
    """The facts a capture run reported (an outcome's exception type and message), or None if it did not
    end by reporting them (it crashed, timed out, or could not import this module)."""
    if exc_type != REPORT_TYPE:
        return None
    try:
        data = json.loads(message)
        return {int(k): ValueFact.from_json(v) for k, v in data.items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
