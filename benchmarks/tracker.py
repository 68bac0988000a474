"""The tracker on the corpus: does each program yield a standalone repro with the same signature?

    python benchmarks/tracker.py [--only 03] [--results benchmarks/tracker-results.md] [--repeat 2]

Per program: the plain run's time, the run under ``jax-track`` (time and overhead ratio, measured
side by side, up to the error: the tracker's own verification of the saved repro is timed by the
tracker and reported apart; "whole": the whole command, saving and verifying included, over the plain
run), whether a repro was saved, whether it imports only jax/numpy/the standard library, the tracker's own
verdict (the repro's first line), whether running it here gives the original's signature (template level,
JAX alone as a repro is; fresh interpreter: an independent check of that verdict), whether
the benchmarks' strict slip check (benchmarks/slip.py, stricter than any signature level) finds the two
failures the same bug, and its size against the original program. A program that dies of a fatal
signal has no traced repro ("saved" no); its verdict says so and "fallback" whether jax-track copied it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks import stamp  # noqa: E402

from benchmarks.slip import fingerprint, program_names  # noqa: E402
from reducer.api import signature_of  # noqa: E402
from reducer.search.size import count_tokens  # noqa: E402
from reducer.judging.signature import Level, Signature  # noqa: E402
from tracker.api import imports_of  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"
ALLOWED = {"jax", "numpy"} | set(sys.stdlib_module_names)


def timed(argv: list[str], cwd: str) -> tuple[float, subprocess.CompletedProcess]:
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_REPRO_DIR", "JAX_REPRO_FLAGS")}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    return time.perf_counter() - start, done


def standalone(source: str) -> bool:
    return imports_of(source) <= ALLOWED


def run_one(program: Path, repeat: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="jax-track-bench-") as work:
        # Plain and tracked runs alternate, ``repeat`` times each, and each keeps its fastest: a ratio of
        # runs made side by side, so that load from other processes falls on both alike.
        plains, trackeds, wholes, saves, verifies = [], [], [], [], []
        for attempt in range(repeat):
            plain_s, _ = timed([sys.executable, str(program)], work)
            repro_dir_n = os.path.join(work, f"repros{attempt}")
            tracked_s, done_n = timed([sys.executable, "-m", "tracker", "--repro-dir", repro_dir_n, str(program)],
                                      work)
            verify_s = sum(float(s) for s in re.findall(r"\[verified in ([0-9.]+) s\]", done_n.stderr))
            # Writing and verifying the repro happen after the failure: reported apart, as the overhead is
            # measured up to the error.
            save_s = sum(float(s) for s in re.findall(r"\[saved in ([0-9.]+) s\]", done_n.stderr)) or verify_s
            plains.append(plain_s)
            wholes.append(tracked_s)
            trackeds.append(tracked_s - save_s)
            saves.append(save_s)
            verifies.append(verify_s)
            if attempt == 0:
                repro_dir, done = repro_dir_n, done_n
        plain_s, tracked_s, whole_s = min(plains), min(trackeds), min(wholes)
        save_s, verify_s = saves[0], verifies[0]
        saved = sorted(Path(repro_dir).glob("*.py")) if os.path.isdir(repro_dir) else []
        row = {"program": program.stem, "plain s": round(plain_s, 2), "tracked s": round(tracked_s, 2),
               "overhead": round(tracked_s / plain_s, 2), "whole s": round(whole_s, 2),
               "whole": round(whole_s / plain_s, 2), "verify s": round(verify_s, 2),
               "save s": round(save_s, 2), "saved": bool(saved)}
        if not saved:
            row.update({"standalone": False, "same signature": False, "tokens": 0,
                        "error": done.stderr.strip().splitlines()[-1:] or [""]})
            # A run that died of a signal saves no traced repro; jax-track copies the program instead.
            copies = sorted(Path(repro_dir).glob("*_crash_*_original")) if os.path.isdir(repro_dir) else []
            if done.returncode < 0 and copies:
                row.update({"verdict": f"died of {signal.Signals(-done.returncode).name}", "fallback": True,
                            "crash": True})
            return row
        source = saved[0].read_text()
        original = signature_of(str(program))
        repro = signature_of(str(saved[0]))
        first = source.splitlines()[0] if source else ""
        row.update({
            "verdict": "reproduces" if first.startswith("# jax-reduce tracker: reproduces") else
                       "does not" if first.startswith("# jax-reduce tracker: does NOT") else "none",
            "fallback": any(p.is_dir() for p in Path(repro_dir).glob("*_original")),
            "standalone": standalone(source),
            "same signature": Signature(Level.TEMPLATE, pure_jax=True).same(original, repro),
            "strict": strict_differences(program.read_text(), source, original, repro),
            "tokens": count_tokens(source), "original tokens": count_tokens(program.read_text()),
            "lines": len(source.splitlines()),
            "original": Signature(Level.TEMPLATE, pure_jax=True).describe(original),
            "repro": Signature(Level.TEMPLATE, pure_jax=True).describe(repro),
        })
        return row


def strict_differences(program: str, repro_source: str, original, repro) -> list[str]:
    """What the benchmarks' slip check (benchmarks/slip.py: stricter than any signature level) finds
    different between the original's failure and the repro's; empty when it is the same bug."""
    names = program_names(program) | program_names(repro_source)
    before, after = fingerprint(original, names), fingerprint(repro, names)
    differences = [f"- {line}" for line in before if line not in after] + [f"+ {line}" for line in after
                                                                            if line not in before]
    return differences or ([] if len(before) == len(after) else ["(a line repeated)"])


def markdown(rows: list[dict], seconds: float, command: str, repeat: int) -> str:
    kept = sum(r["saved"] and r["standalone"] and r["same signature"] for r in rows)
    standalone_ = sum(r["saved"] and r["standalone"] for r in rows)
    verified = sum(r.get("verdict") == "reproduces" for r in rows)
    agree = sum(r["saved"] and (r.get("verdict") == "reproduces") == r["same signature"] for r in rows)
    strict = sum(r["saved"] and not r.get("strict", ["not checked"]) for r in rows)
    covered = sum(r.get("verdict") != "does not" or r.get("fallback") for r in rows)
    crashed = [r for r in rows if r.get("crash")]
    overheads = sorted(r["overhead"] for r in rows)
    wholes = sorted(r["whole"] for r in rows)
    verifying = sorted(r.get("verify s", 0.0) for r in rows if r["saved"])
    saving = sorted(r.get("save s", 0.0) for r in rows if r["saved"])
    lines = [
        "# Tracker on the corpus", "",
        f"Run on {datetime.date.today()} ({stamp.stamp()}) with `{command}`, {seconds:.0f} s in all; plain and tracked runs "
        f"alternate, {repeat} of each per program, and each keeps its fastest.", "",
        f"- programs: {len(rows)}; standalone repro with the same signature: {kept}/{len(rows)}; "
        f"standalone: {standalone_}/{len(rows)}",
        f"- the tracker's own verdict \"reproduces\": {verified}/{len(rows)}; it agrees with the independent "
        f"check here on {agree}/{sum(r['saved'] for r in rows)} saved repros; a non-reproducing repro without "
        f"its copied original: {len(rows) - covered}; died of a fatal signal (no traced repro possible), "
        f"the program copied instead: {len(crashed)}",
        f"- the same bug by the benchmarks' strict slip check (benchmarks/slip.py's fingerprint: the whole "
        f"message, primitive, exact operand dtypes, ranks and weak types): {strict}/{len(rows)}",
        f"- tracking overhead up to the error (the tracked run minus the saving of the repro after the error, "
        f"over the plain run, wall time, both including interpreter start-up): median "
        f"{overheads[len(overheads) // 2]:.2f}x, max {overheads[-1]:.2f}x",
        f"- the whole jax-track command (tracking, writing the repro and verifying it) over the plain run: median "
        f"{wholes[len(wholes) // 2]:.2f}x, max {wholes[-1]:.2f}x (issue 35's target: at most 1.3x)",
        f"- saving the repro after the error (writing it, then verifying it): median "
        f"{saving[len(saving) // 2] if saving else 0:.2f} s, max {saving[-1] if saving else 0:.2f} s; of which "
        f"verification (one fresh run of the repro): median "
        f"{verifying[len(verifying) // 2] if verifying else 0:.2f} s, max {verifying[-1] if verifying else 0:.2f} s", "",
        "| program | saved | standalone | verdict | fallback | same signature | strict check | repro tokens "
        "| original tokens | plain s | tracked s | overhead | save s | verify s | whole s | whole |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        yes = lambda b: "yes" if b else "**no**"  # noqa: E731
        fallback = "yes" if r.get("fallback") else "-" if r.get("verdict") != "does not" else "**no**"
        lines.append(f"| {r['program']} | {yes(r['saved'])} | {yes(r['standalone'])} | {r.get('verdict', '-')} "
                     f"| {fallback} | {yes(r['same signature'])} | {strict_cell(r)} | {r.get('tokens', 0)} "
                     f"| {r.get('original tokens', '-')} | {r['plain s']} | {r['tracked s']} | {r['overhead']}x "
                     f"| {r.get('save s', 0)} | {r.get('verify s', 0)} | {r['whole s']} | {r['whole']}x |")
    misses = [r for r in rows if not (r["saved"] and r["same signature"])]
    if misses:
        lines += ["", "Misses:", ""]
        lines += [f"- {r['program']}: original `{r.get('original', '')}`, repro `{r.get('repro', r.get('error'))}`"
                  for r in misses]
    slipped = [r for r in rows if r["saved"] and r["same signature"] and r.get("strict")]
    if slipped:
        lines += ["", "Same signature, but the strict check differs:", ""]
        lines += [f"- {r['program']}: " + "; ".join(f"`{d}`" for d in r["strict"]) for r in slipped]
    return "\n".join(lines) + "\n"


def strict_cell(row: dict) -> str:
    if not row["saved"]:
        return "-"
    return "same" if not row.get("strict") else "**differs**"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated program number prefixes")
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "tracker-results.md"))
    parser.add_argument("--repeat", type=int, default=2, help="plain and tracked runs per program (fastest kept)")
    parser.add_argument("--merge", default="",
                        help="comma-separated .json results of earlier runs (shards of the corpus run side by "
                             "side): write their rows as one table, running nothing")
    args = parser.parse_args()
    if args.merge:
        parts = [json.loads(Path(p).read_text()) for p in args.merge.split(",")]
        rows = sorted((r for part in parts for r in part["rows"]), key=lambda r: r["program"])
        text = markdown(rows, max(part["seconds"] for part in parts), " and ".join(p["command"] for p in parts),
                        parts[0]["repeat"])
        Path(args.results).write_text(text)
        Path(args.results).with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
        print(text)
        return
    wanted = [p for p in args.only.split(",") if p]
    programs = [p for p in sorted(CORPUS.glob("[0-9]*.py")) if not p.name.endswith(".min.py")
                and (not wanted or any(p.name.startswith(w) for w in wanted))]
    start = time.perf_counter()
    rows = []
    for program in programs:
        row = run_one(program, args.repeat)
        rows.append(row)
        print(json.dumps(row), flush=True)
    command = " ".join(["python", "benchmarks/tracker.py"] + sys.argv[1:])
    text = markdown(rows, time.perf_counter() - start, command, args.repeat)
    print(text)
    Path(args.results).write_text(text)
    seconds = time.perf_counter() - start
    Path(args.results).with_suffix(".json").write_text(json.dumps(
        {"command": command, "seconds": seconds, "repeat": args.repeat, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
