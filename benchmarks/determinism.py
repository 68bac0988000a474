"""Is the reduced program a function of the input and the options only? Reduce every corpus program with
1, 2 and 4 jobs (and with 2 jobs while other processes load every core) and compare the bytes; or any other settings, the
sandbox off among them, and earlier committed outputs.

    python benchmarks/determinism.py [--only 03 05] [--settings jobs1 jobs4-nosandbox-loaded]
        [--against benchmarks/corpus-outputs] [--reuse] [--load 2] [--out-dir DIR] [--results FILE]

Per program and setting: final tokens, decided tests, candidates rejected by timeout, seconds; then whether
every setting gave byte-identical output. Only a timeout can legitimately make two runs differ (it only ever
rejects a candidate), so a difference with 0 timeouts on both sides is a bug.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import multiprocessing
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from benchmarks import stamp  # noqa: E402


from reducer.api import Result, reduce  # noqa: E402
from reducer import InputError  # noqa: E402

REFUSED = "refused"  # a setting in which the reducer refused the original (it gave no result)

@dataclasses.dataclass(frozen=True)
class Setting:
    """One way to run the same reduction: the job count, busy processes beside it, the sandbox on or off."""

    jobs: int
    loaded: bool = False
    sandbox: bool = True

    @classmethod
    def parse(cls, text: str) -> Setting:
        """``jobs2``, ``jobs2-loaded``, ``jobs4-nosandbox``, ``jobs1-loaded-nosandbox``."""
        head, *flags = text.split("-")
        if not head.startswith("jobs") or not head[4:].isdigit() or set(flags) - {"loaded", "nosandbox"}:
            raise SystemExit(f"unknown setting {text!r}: use jobsN[-loaded][-nosandbox]")
        return cls(int(head[4:]), "loaded" in flags, "nosandbox" not in flags)

    @property
    def label(self) -> str:
        return f"jobs {self.jobs}" + (", loaded" if self.loaded else "") + ("" if self.sandbox else ", no sandbox")

    @property
    def slug(self) -> str:
        return f"jobs{self.jobs}" + ("-loaded" if self.loaded else "") + ("" if self.sandbox else "-nosandbox")


DEFAULT_SETTINGS = ["jobs1", "jobs2", "jobs4", "jobs2-loaded"]


def body(text: bytes) -> bytes:
    """The program without its provenance header: the header's options line names the sandbox setting."""
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith(b"# "):
        lines.pop(0)
    return b"".join(lines)


def busy(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=None, help="program name prefixes or substrings")
    parser.add_argument("--settings", nargs="+", default=DEFAULT_SETTINGS, type=Setting.parse,
                        help="jobsN[-loaded][-nosandbox] each (default: %(default)s)")
    parser.add_argument("--against", metavar="DIR",
                        help="also compare with earlier outputs DIR/NAME.reduced.py (e.g. benchmarks/corpus-outputs)")
    parser.add_argument("--reuse", action="store_true",
                        help="take a setting's output from --out-dir when an earlier run left it (compare again)")
    parser.add_argument("--load", type=int, default=os.cpu_count() or 2, help="busy processes for loaded runs")
    parser.add_argument("--out-dir", default=str(HERE / "determinism"))
    parser.add_argument("--results", default=str(HERE / "determinism-results.md"))
    args = parser.parse_args()
    settings: list[Setting] = args.settings
    programs = sorted(p for p in (HERE / "corpus").glob("*.py") if not p.name.endswith(".min.py"))
    if args.only:
        programs = [p for p in programs if any(p.name.startswith(o) or o in p.name for o in args.only)]
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    columns = [s.label for s in settings] + ([f"earlier ({args.against})"] if args.against else [])
    header = ("| program | " + " | ".join(columns) + " | identical |\n|---|" + "---|" * len(columns) + "---|")
    print(header, flush=True)
    rows, identical = [], 0
    for program in programs:
        outputs, cells = [], []
        for setting in settings:
            target = out / f"{program.stem}.{setting.slug}.py"
            cell = target.with_suffix(".cell")
            if not (args.reuse and target.exists() and cell.exists()):
                try:
                    result = run(program, target, setting, args.load)
                except InputError as err:  # e.g. an original whose runs disagree: no result, and say why
                    target.write_bytes(b"")
                    cell.write_text(f"{REFUSED} ({err.reason}: {str(err).splitlines()[0][-80:]})")
                else:
                    cell.write_text(f"{result.tokens_after} tok, {result.tests} tests, {result.timeouts} to, "
                                    f"{result.seconds:.0f}s")
            outputs.append(body(target.read_bytes()))
            cells.append(cell.read_text())
        if args.against:
            earlier = Path(args.against) / f"{program.stem}.reduced.py"
            outputs.append(body(earlier.read_bytes()) if earlier.exists() else b"(missing)")
            cells.append("same" if outputs[-1] == outputs[0] else "**differs**")
        refused = any(c.startswith(REFUSED) for c in cells)
        same = not refused and all(o == outputs[0] for o in outputs)
        identical += same
        verdict = "refused (no result to compare)" if refused else "yes" if same else "**no**"
        rows.append(f"| {program.name} | " + " | ".join(cells) + f" | {verdict} |")
        print(rows[-1], flush=True)
        # Rewritten after every program, so a run stopped early still leaves what it found.
        write_report(args, header, rows, identical, len(programs), out)
    print(Path(args.results).read_text())


def write_report(args: argparse.Namespace, header: str, rows: list[str], identical: int, total: int,
                 out: Path) -> None:
    command = "python benchmarks/determinism.py " + " ".join(sys.argv[1:])
    done = "" if len(rows) == total else f" (stopped early: {len(rows)} of {total} programs run)"
    text = "\n".join([
        "# Determinism: the same bytes whatever --jobs, load and the sandbox",
        "",
        f"{stamp.stamp()}; {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.1f} when "
        f"written; loaded = {args.load} busy processes of its own. "
        f"Command: `{command.strip()}`.",
        "",
        f"**Identical programs in every setting: {identical} of {len(rows)}{done}.** Cells: final tokens, tests run, "
        "candidates rejected by timeout, seconds. Compared: the program below the provenance header (whose options "
        f"line names the sandbox setting). Outputs: `{out}`, NAME.SETTING.py each (with its cell in NAME.SETTING.cell).",
        "",
        header,
        *rows,
        "",
    ])
    Path(args.results).write_text(text)


def run(program: Path, target: Path, setting: Setting, load: int) -> Result:
    """Reduce ``program`` into ``target`` under ``setting``, with busy processes beside it when loaded."""
    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=busy, args=(stop,)) for _ in range(load if setting.loaded else 0)]
    for hog in hogs:
        hog.start()
    try:
        return reduce(program, output=str(target), jobs=setting.jobs, sandbox=setting.sandbox)
    finally:
        stop.set()
        for hog in hogs:
            hog.join()


if __name__ == "__main__":
    main()
