"""Did a reduction slip to a different bug? A check stricter than any signature level.

    python benchmarks/slip.py --dir OUT                    # corpus/NAME.py vs OUT/NAME.reduced.py, each found
    python benchmarks/slip.py --dir OUT --only 13 16       # some of them
    python benchmarks/slip.py ORIGINAL REDUCED [...]       # explicit pairs
    python benchmarks/slip.py --minimals                   # calibration: each original vs its hand-written minimal

Runs the original and the reduced program in fresh interpreters and compares their fingerprints line by
line: the exception class and raising site, the whole message (every line; numbers, paths, the two
programs' own names, the name of a scan body's carry parameter that JAX quotes (_CARRY_NAME) and the repr
of an unhashable static argument abstracted, nothing else), the public JAX function and primitive that
raised, and each operand's exact dtype, rank and weak type. Signatures may abstract more (dtype kinds, JAX boilerplate); this check does not, so it catches what they miss. Prints the differing lines and "slipped: N of M".

The hand-written minimal beside each corpus program is the same bug by construction, so it calibrates the
check: ``--minimals`` lists where the check tells a minimal from its original, and in ``--dir`` mode a result
that differs from its original only in lines where the minimal differs the same way is reported as "as the
minimal" and not counted as slipped (its lines are still printed).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import dataclasses
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from benchmarks import stamp  # noqa: E402

from reducer.api import signature_of  # noqa: E402
from reducer.execution.outcome import Kind, Outcome  # noqa: E402

CORPUS = HERE / "corpus"

_PATH = re.compile(r"(?:File \"[^\"]+\", line \d+)|(?:(?:[\w.~-]*/)+[\w.-]+\.py(?::\d+)*)")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?!\w)")  # not inside float32, x64
_HINTS = re.compile(r"^(?:-{4,}|For simplicity, JAX has removed its internal frames.*|<path> \(<name>\))$")
# A path into one of the program's own values (params['w'], state.n_pos, carry[0]) names the program's data
# the way a variable does: inlining and flattening change it, the bug stays. So a path counts as a name; an
# array's own attributes (x.shape, x.dtype) say what the message is about and stay.
_KEY_PATH = r"<name>(?:\['[^']*'\]|\[N\]|\.(?!(?:shape|dtype|ndim|size|aval|weak_type|T)\b)\w+|\.<name>)*"
_KEY_PATHS = re.compile(_KEY_PATH)
_NAME_LISTS = re.compile(_KEY_PATH + r"(?:,? (?:and )?" + _KEY_PATH + ")+")
_PLURALS = ((re.compile(r"\bvalues of the arguments\b"), "value of the argument"),)
# Where a scan or loop's carry does not match, JAX quotes the body function's first parameter by name
# (jax/_src/lax/control_flow/loops.py, _check_carry_type: `inspect.signature(body_fun)`), whoever wrote the
# function: the program, or a library that wraps it (Flax's `nn.scan` names it `c`), which lowering to pure
# JAX replaces. The name is the program's choice in that position, as its variables are elsewhere.
_CARRY_NAME = re.compile(r"(\binput carry (?:component )?)(?!component\b)[A-Za-z_]\w*")
# The repr of the value JAX could not hash as a static argument is the program's data, as its numbers are:
# `['relu', 'tanh']` and `[]` are the same bug. Its type stays (a list is not a dict or an array).
_UNHASHABLE = re.compile(r"(an object of type <class '[^']+'>), .*?\. (The error was:)")


def program_names(source: str) -> set[str]:
    """Names the program itself defines (functions, classes, parameters, assigned variables, the string keys
    of its dict literals), minus builtins."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Dict):  # keys name the program's data as a variable does: {"w": ...}
            names.update(k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
                         and k.value.isidentifier())
    return names - set(dir(builtins))


def message_lines(message: str, names: set[str]) -> list[str]:
    """The message's lines with paths, addresses, numbers and the programs' own names abstracted."""
    name_pattern = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
                              + r"|<lambda>)(?!\w)") if names else None
    lines = []
    for line in message.splitlines():
        line = _UNHASHABLE.sub(r"\1, <value>. \2", _ADDRESS.sub("0xH", _PATH.sub("<path>", line.strip())))
        line = _CARRY_NAME.sub(r"\1<name>", line)  # before the programs' names: `carry` may be one
        if name_pattern is not None:
            line = name_pattern.sub("<name>", line)
        line = _NUMBER.sub("N", line)
        line = _KEY_PATHS.sub("<name>", _NAME_LISTS.sub("<name>", line))
        for pattern, replacement in _PLURALS:
            line = pattern.sub(replacement, line)
        if line and not _HINTS.match(line) and not re.fullmatch(r"<path>(?::N)* \(<name>\)", line):
            lines.append(line)
    return lines


def fingerprint(outcome: Outcome, names: set[str]) -> list[str]:
    if outcome.kind is Kind.CRASH:
        tail = [line for line in outcome.stderr_tail.splitlines() if line.strip()][-3:]
        return [f"crash: {outcome.signal or outcome.exit_code}", *(f"stderr: {line}" for line in tail)]
    if outcome.kind is not Kind.EXCEPTION:
        return [outcome.kind.value]
    return [
        f"class: {outcome.exc_type}",
        f"site: {outcome.site_module}.{outcome.site_function}",
        f"api: {outcome.api}",
        f"primitive: {outcome.primitive}",
        f"operands: {', '.join(outcome.operands)}",
        *(f"message: {line}" for line in message_lines(outcome.message, names)),
    ]


@dataclasses.dataclass(frozen=True)
class Verdict:
    name: str
    slipped: bool
    differences: tuple[str, ...]
    as_minimal: bool = False  # every difference is one the hand-written minimal shows too


def compare(original: Path, reduced: Path) -> Verdict:
    names = program_names(original.read_text()) | program_names(reduced.read_text())
    before = fingerprint(signature_of(str(original)), names)
    after = fingerprint(signature_of(str(reduced)), names)
    differences = tuple([f"- {line}" for line in before if line not in after]
                        + [f"+ {line}" for line in after if line not in before])
    return Verdict(reduced.name, bool(differences) or len(before) != len(after), differences)


def minimal_of(original: Path) -> Path:
    return original.with_name(f"{original.stem}.min.py")


def calibrated(original: Path, verdict: Verdict) -> Verdict:
    """``verdict``, marked as the minimal's when the hand-written minimal differs from the original in the
    same lines (a difference the corpus's author made too is not a different bug)."""
    minimal = minimal_of(original)
    if not verdict.slipped or not minimal.exists():
        return verdict
    reference = compare(original, minimal)
    if set(verdict.differences) <= set(reference.differences):
        return dataclasses.replace(verdict, slipped=False, as_minimal=True)
    return verdict


def pairs_of(args: argparse.Namespace) -> list[tuple[Path, Path]]:
    if args.minimals:
        return [(original, minimal_of(original)) for original in sorted(CORPUS.glob("*.py"))
                if not original.name.endswith(".min.py") and minimal_of(original).exists()
                and (not args.only or any(original.name.startswith(o) for o in args.only))]
    if args.dir:
        out = Path(args.dir)
        found = []
        for original in sorted(p for p in CORPUS.glob("*.py") if not p.name.endswith(".min.py")):
            reduced = out / f"{original.stem}.reduced.py"
            if reduced.exists() and (not args.only or any(original.name.startswith(o) for o in args.only)):
                found.append((original, reduced))
        return found
    if len(args.pairs) % 2:
        raise SystemExit("slip.py: give ORIGINAL REDUCED pairs")
    return [(Path(a), Path(b)) for a, b in zip(args.pairs[::2], args.pairs[1::2])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="*", help="ORIGINAL REDUCED pairs")
    parser.add_argument("--dir", help="a benchmarks/run.py --out-dir: pair each corpus program with its result")
    parser.add_argument("--minimals", action="store_true",
                        help="compare each corpus program with its hand-written minimal (calibration)")
    parser.add_argument("--only", nargs="*", default=[], help="corpus name prefixes (with --dir or --minimals)")
    args = parser.parse_args()
    verdicts = []
    for original, reduced in pairs_of(args):
        verdict = compare(original, reduced)
        verdicts.append(calibrated(original, verdict) if args.dir else verdict)
    print(f"# slip check at {stamp.stamp()}")
    for verdict in verdicts:
        flagged = "DIFFERS" if args.minimals else "SLIPPED"
        state = flagged if verdict.slipped else "same, differing as the minimal does" if verdict.as_minimal else "same"
        print(f"{verdict.name}: {state}")
        for line in verdict.differences:
            print(f"    {line}")
    as_minimal = sum(v.as_minimal for v in verdicts)
    print(f"{'minimals told apart from their originals' if args.minimals else 'slipped'}: "
          f"{sum(v.slipped for v in verdicts)} of {len(verdicts)}"
          + (f" ({as_minimal} more differ only as their hand-written minimal does)" if as_minimal else ""))

if __name__ == "__main__":
    main()
