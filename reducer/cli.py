"""``jax-reduce FILE``: reduce a failing JAX program to a small one that fails the same way.

``jax-reduce DIR`` reduces every repro under a directory and buckets them; ``jax-reduce triage DIR`` only
runs and buckets them; ``jax-reduce bisect FILE`` finds the JAX release that introduced or fixed a failure.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import faulthandler
import json
import os
import sys
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

# Only what parsing the command line and starting the fork server need (below, _early_forks): the rest of the
# reducer (libcst's import above all, 0.4-0.7 s) is imported after the server started, beside its `import jax`.
from reducer.execution.accelerators import PLATFORMS, platform_env
from reducer.execution.fresh import ForkServer, FreshExecutor, fork_server
from reducer.execution.platform import warm_pool_supported
from reducer.execution.sandbox import SandboxError, SandboxWarning, warn_once
from reducer.judging.checks import InputError
from reducer.judging.signature import Level, Signature
from reducer.program.files import default_output, program_dir, read_source, same_file
from reprokit import jaxcompat

if TYPE_CHECKING:
    from reducer.api import Result
    from reducer.options import Options
    from reducer.reports.records import Report
    from reducer.search.engine import PassStats

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
EXIT_GRACE_SECONDS = 30  # after Ctrl-C, an exit still waiting for threads this long prints their stacks


def parse_args(argv: list[str] | None, triage: bool = False) -> argparse.Namespace:
    parser = argument_parser(triage)
    return with_options(parser, parser.parse_args(argv))


def argument_parser(triage: bool = False) -> argparse.ArgumentParser:
    if triage:
        parser = argparse.ArgumentParser(
            prog="jax-reduce triage",
            description="Run every *.py repro under DIR (twice) and bucket them by signature, without reducing.",
        )
        parser.add_argument("file", metavar="DIR", help="directory of repros, searched recursively (never modified)")
        parser.add_argument("-o", "--output", metavar="OUTDIR", help="also write report.{md,json,html} there")
    else:
        parser = argparse.ArgumentParser(
            prog="jax-reduce",
            description="Reduce a failing JAX program to the smallest program that fails the same way; given a "
                        "directory, reduce every *.py repro under it and bucket them by signature. "
                        "`jax-reduce triage DIR` only buckets.",
        )
        parser.add_argument("file", metavar="FILE|DIR", help="the failing program, or a directory of them "
                                                             "(never modified)")
        parser.add_argument("-o", "--output", metavar="OUT",
                            help="where to write the reduced program (default: FILE.reduced.py), or for a "
                                 "directory the output directory (default: DIR.reduced)")
    parser.add_argument("--jobs", "-j", type=int, default=None, help="candidates run in parallel (default: cores; with an accelerator, the runners sharing it)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per candidate (default: 10x the original's run where candidates run: at least 2 on "
                             "the warm pool, 10 in fresh interpreters; on the warm pool also at most 3x the original's "
                             "CPU time there, at least 2 s)")
    parser.add_argument("--signature", choices=[level.value for level in Level], default=Level.TEMPLATE.value,
                        help="how closely a candidate's failure must match the original's. type: the exception class "
                             "(crashes: the signal or exit code). template (default): the class, the raising site, "
                             "every line of the message with numbers, shapes, paths and the program's own names "
                             "abstracted, the JAX function and primitive that raised, and its operands' dtype kinds "
                             "(bool/int/uint/float/complex/key), weak types and ranks (crashes: also the XLA CHECK location "
                             "or fatal message). exact: as template, with the message word for word and exact "
                             "operand dtypes and ranks")
    parser.add_argument("--match", metavar="REGEX", help="the error message must also match REGEX")
    parser.add_argument("--pure-jax", action="store_true",
                        help="reduce to JAX alone even when the failing call entered through another library "
                             "(Flax, Optax): by default the result still calls JAX through it, so that it shows "
                             "whose call failed")
    parser.add_argument("--no-pool", dest="pool", action="store_false", default=None,
                        help="run every candidate in a fresh interpreter instead of warm workers (slow)")
    if not triage:
        parser.add_argument("--memory-limit", type=int, default=0, metavar="MB",
                            help="cap each candidate's resident memory (default: a quarter of the machine's)")
    parser.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                        help="run candidates with your full rights (no Landlock, socket filter, namespaces or "
                             "limits); only for programs you trust in every mutated form")
    parser.add_argument("--allow-write", action="append", default=[], metavar="DIR",
                        help="let candidates also write under DIR (repeatable); for programs that must write "
                             "there to fail")
    parser.add_argument("--flaky", metavar="N/M", default=None,
                        help="for programs that fail only sometimes: a program counts as failing the same way when "
                             "at least N of M runs do (e.g. 2/3); without it, every check run must agree")
    parser.add_argument("--platform", choices=PLATFORMS, default="auto",
                        help="where candidates compute: auto (default) where the program fails, searching on the "
                             "CPU first when it fails the same way there and confirming where it failed; or a "
                             "platform by name (JAX_PLATFORMS for every run)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="for a directory: run its files on a Dask cluster, tcp://HOST:PORT of its scheduler, or "
                             "local:N to start N worker processes here (default: $DASK_SCHEDULER_ADDRESS if set; "
                             "needs pip install 'jax-reduce[dask]')")
    if triage:
        parser.add_argument("--per-bucket", type=int, default=0, metavar="K",
                            help="with -o: also reduce the K smallest files of each bucket into OUTDIR")
    parser.add_argument("--json", action="store_true", help="print one JSON object with the result on stdout")
    if not triage:
        parser.add_argument("--stats", action="store_true",
                            help="after the summary, a table per pass: runs, tests, successes, tokens removed, seconds")
        parser.add_argument("--issue", action="store_true",
                            help="for a file: also write NAME.issue.md beside OUT, the text of a JAX bug report "
                                 "(program, error, jax.print_environment_info(), environment, command), with home "
                                 "paths, user name and long literals scrubbed")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress display and no summary")
    return parser


def with_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with ``args.options``, their one record of the reduction options (a usage error if one is bad)."""
    try:
        args.options = options_from(args)
    except ValueError as err:
        parser.error(_with_flag_names(str(err)))
    return args


_FLAGS = {"jobs": "--jobs", "timeout": "--timeout", "memory_mb": "--memory-limit", "match": "--match",
          "allow_write:": "--allow-write", "flaky": "--flaky"}


def _with_flag_names(message: str) -> str:
    """An Options error names its field; on the command line, name the flag."""
    field, _, rest = message.partition(" ")
    return f"{_FLAGS[field]} {rest}" if field in _FLAGS else message


def options_from(args: argparse.Namespace) -> Options:
    """The one record of the reduction options the command line chose (ValueError if one is bad)."""
    from reducer.options import Options

    return Options.of(jobs=args.jobs, timeout=args.timeout,
                      signature=Signature(Level(args.signature), args.match, args.pure_jax),
                      pool=warm_pool_supported() if args.pool is None else args.pool,
                      memory_mb=getattr(args, "memory_limit", 0), flaky=args.flaky,
                      sandbox=args.sandbox, allow_write=tuple(args.allow_write), platform=args.platform)


def summary(result: Result) -> str:
    from reducer.reports.library import whose

    def shrink(before: int, after: int) -> str:
        percent = 100.0 * (before - after) / before if before else 0.0
        return f"{before} -> {after} ({percent:.0f}% smaller)"

    lines = [
        f"signature: {result.signature}",
        f"tokens:    {shrink(result.tokens_before, result.tokens_after)}",
        f"lines:     {shrink(result.lines_before, result.lines_after)}",
        f"tests:     {result.tests} run, {result.cache_hits} cache hits, {result.timeouts} rejected by timeout, "
        f"{result.seconds:.1f}s",
        f"output:    {result.output}",
        result.sandbox,
    ]
    if result.original.platform:  # where the original computed; candidates were held to the same
        lines.insert(1, f"platform:  {result.original.platform_fact}")
    if result.placement:
        lines.insert(2, f"search:    {result.placement}")
    if (who := whose(result.original, result.source)) is not None:
        lines.insert(1, f"library:   {who.line()}")
    if result.merged:
        lines.append(f"modules:   {result.merged}")
    if result.flaky:
        lines.append(f"flaky:     a program counted as failing when {result.flaky.replace('/', ' of ')} runs did; "
                     "the result may not fail on every run")
    if result.disagreements:
        lines.append(f"warning:   {result.disagreements} accepted program(s) did not fail in a fresh interpreter; "
                     "the output is the newest one that does")
    return "\n".join(lines)


def pass_table(passes: Iterable[PassStats]) -> str:
    """Per-pass statistics, most productive first (what ``--stats`` prints); under a pass made of sub-passes,
    a row per sub-pass that offered edits (and one for candidates that mixed them), most productive first. ``payoff`` is tokens
    removed per test, the measure that orders passes after the first round; ``not run`` counts candidates rejected
    without a run, certain to raise NameError before the failure (reducer/search/unbound.py); ``set aside``
    counts edits not offered in a round between full rounds, the same change rejected alone before (``edits``
    counts those offered)."""
    from reducer.search.engine import MIXED

    header = ("pass", "runs", "edits", "set aside", "tests", "not run", "successes", "tokens removed", "payoff",
              "seconds")
    rows = []
    for p in sorted(passes, key=lambda p: -p.tokens_removed):
        rows.append((p.name, str(p.runs), str(p.edits), str(p.remembered), str(p.tests), str(p.not_run),
                     str(p.successes), str(p.tokens_removed), _payoff(p.tokens_removed, p.tests), f"{p.seconds:.1f}"))
        for sub in sorted(p.subpasses, key=lambda s: (s.name == MIXED, -s.tokens_removed)):
            if not (sub.edits or sub.tests):
                continue  # it never had anything to offer on this program
            rows.append((f"  {sub.name}", "", str(sub.edits) if sub.name != MIXED else "", "", str(sub.tests), "",
                         str(sub.successes), str(sub.tokens_removed), _payoff(sub.tokens_removed, sub.tests), ""))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in [header, *rows]]
    return "\n".join(lines)


def stages_line(stages: dict[str, float]) -> str:
    """Where the wall time went, stage by stage (Result.stages): all but the search is the fixed cost."""
    return (f"stages: checking the original and starting the pool {stages['checks']:.1f}s, search "
            f"{stages['search']:.1f}s, closing the pool {stages['close']:.1f}s, confirmation {stages['confirm']:.1f}s")


def timing_line(timing: dict[str, float]) -> str:
    """Where a test's time went, on average (Result.timing)."""
    waited, program = timing["waited_ms"], timing["program_ms"]
    phases = ""
    if timing["timed_runs"]:
        phases = (f" (JAX over {int(timing['timed_runs'])} warm runs: trace {timing['trace_ms']:.0f}, lower "
                  f"{timing['lower_ms']:.0f}, compile {timing['compile_ms']:.0f})")
    # A fresh interpreter per candidate costs 10-30x a warm run: say how many there were, which --stats once hid.
    fresh, where = int(timing.get("fresh_runs", 0)), ""
    if fresh:
        why = "" if fresh == timing["runs"] else " (candidates the warm workers cannot run)"
        where = f"; {fresh} of the runs in a fresh interpreter{why}"
    return (f"per test, mean of {int(timing['runs'])} runs: {waited:.0f} ms waited = {program:.0f} ms in the program"
            f"{phases} + {waited - program:.0f} ms around it (fork, sandbox, messages, the runner's checks){where}")


def runners_line(runners: dict[str, Any]) -> str:
    """What the warm workers did (Result.runners): a runner forked for many candidates is the cheap case; a new
    one per candidate (crashes, patches, threads left running) costs a fork and cold caches each."""
    others = [f"{runners['own_child']} in a child of their own"] if runners["own_child"] else []
    others += [f"{runners['fresh']} in a fresh interpreter"] if runners["fresh"] else []
    line = (f"runners: {runners['forked']} forked for {runners['warm']} runs on them"
            + (f" ({', '.join(others)})" if others else ""))
    retired = runners["retired"]
    if retired:
        line += f"; {sum(retired.values())} retired: " + ", ".join(f"{why} {n}" for why, n in retired.items())
    return line


def _payoff(tokens: int, tests: int) -> str:
    return f"{tokens / tests:.2f}" if tests else "-"


def main(argv: list[str] | None = None) -> int:
    # The command line says what the sandbox leaves open in its own line (warn_once, silenced by --quiet and
    # by --no-sandbox, which the user chose); the library's SandboxWarning would say it a second time.
    if (untested := jaxcompat.untested_once()) is not None:
        print(f"jax-reduce: warning: {untested}", file=sys.stderr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SandboxWarning)
        try:
            code = run(sys.argv[1:] if argv is None else argv)
        except SandboxError as err:  # the best program so far is on disk already
            print(err, file=sys.stderr)
            return EXIT_INTERNAL
    if code == EXIT_INTERRUPTED:
        # After Ctrl-C the interpreter's exit joins every thread still running; if one never ends, say where
        # each thread is (on stderr) instead of hanging without a word. The exit is not forced.
        faulthandler.dump_traceback_later(EXIT_GRACE_SECONDS, exit=False)
    return code


def entry() -> NoReturn:
    """The ``jax-reduce`` command: :func:`main`, then the interpreter's exit without its teardown."""
    exit_now(main())


def exit_now(code: int) -> NoReturn:
    """Exit with ``code`` as Python would, without freeing every module first: the threads are joined, the
    atexit callbacks run and the streams flushed, but the teardown of the modules (libcst alone defines
    hundreds of classes) is skipped, which cost every command 0.1-0.3 s. After Ctrl-C, and where this
    Python has no ``threading._shutdown``, the exit is Python's own (the faulthandler's report of a thread
    that never ends needs it)."""
    shutdown = getattr(threading, "_shutdown", None)
    if code == EXIT_INTERRUPTED or shutdown is None:
        sys.exit(code)
    shutdown()  # joins the threads that are not daemons, as Python's exit does first
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: Python's own exit reports it with status 120
        code = code or 120
    os._exit(code)


def run(argv: list[str]) -> int:
    if argv[:1] == ["bisect"]:
        return bisect_main(argv)
    if argv[:1] == ["triage"]:
        args = parse_args(argv[1:], triage=True)
        if not args.quiet:
            warn_once(args.options.resolve().sandbox)
        return triage_main(args)
    parser = argument_parser()
    args = parser.parse_args(argv)
    with _early_forks(args) as forks:
        return _reduce_main(with_options(parser, args), argv, forks)


@contextlib.contextmanager
def _early_forks(args: argparse.Namespace) -> Iterator[ForkServer | None]:
    """The fork server for a file's fresh runs (fresh.ForkServer), started before the reducer's own imports so
    that its `import jax` (2-3 s with ml_dtypes 0.7) goes on beside them, and ended on exit; the reduction
    takes it (api.reduce's ``forks``). None for a directory, a flaky program, and a file that cannot be read
    (the reduction says why)."""
    if args.flaky is not None or not os.path.isfile(args.file):
        yield None
        return
    try:
        source = read_source(args.file).source
    except InputError:
        yield None
        return
    executor = FreshExecutor(sys_path=program_dir(args.file), env=platform_env(args.platform))
    with fork_server(executor, source) as server:
        yield server


def _reduce_main(args: argparse.Namespace, argv: list[str], forks: ForkServer | None) -> int:
    from reducer.api import reduce
    from reducer.reports.issue import write_issue
    from reducer.reports.library import whose
    from reducer.reports.live import LiveView

    if not args.quiet:
        warn_once(args.options.resolve().sandbox)
    if os.path.isdir(args.file):
        if args.issue:
            print("jax-reduce: --issue writes the bug report of one reduced file; it takes a FILE, not a directory",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        return batch_main(args)
    if args.scheduler:
        print("jax-reduce: --scheduler runs a directory of repros on a cluster; a single file runs here",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    output = args.output or default_output(args.file)
    if same_file(output, args.file):
        print(f"jax-reduce: refusing to overwrite the input {args.file}; choose another -o", file=sys.stderr)
        return EXIT_BAD_INPUT
    # On a terminal, the live view (reports/live.py); elsewhere nothing until the summary.
    view = LiveView(sys.stderr, args.file) if not args.quiet and sys.stderr.isatty() else None
    try:
        with view if view is not None else contextlib.nullcontext():
            result = reduce(args.file, args.options, output=output, forks=forks, on_progress=view)
    except InputError as err:
        print(f"jax-reduce: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"jax-reduce: interrupted; the smallest program so far is in {output}", file=sys.stderr)
        return EXIT_INTERRUPTED
    issue = write_issue(result, command=["jax-reduce", *argv], options=args.options) if args.issue else None
    if args.json:
        who = whose(result.original, result.source)
        print(json.dumps({**result.to_json(), **({"issue": issue} if issue else {}),
                          **({"library": dataclasses.asdict(who)} if who else {})}, indent=2))
    elif not args.quiet:
        print(summary(result) + (f"\nissue:     {issue}" if issue else ""), file=sys.stderr)
    if args.stats:
        if args.quiet or args.json:  # else the summary above already said it
            print(result.sandbox, file=sys.stderr)
        print(pass_table(result.passes), file=sys.stderr)
        if result.timing:
            print(timing_line(result.timing), file=sys.stderr)
        if result.runners:
            print(runners_line(result.runners), file=sys.stderr)
        if result.stages:
            print(stages_line(result.stages), file=sys.stderr)
    return EXIT_OK


# --- directories --------------------------------------------------------------------------------------


def batch_summary(report: Report) -> str:
    from reducer.reports.render import summary_line

    lines = [summary_line(report)]
    for rank, bucket in enumerate(report.buckets, 1):
        lines.append(f"  {rank}. [{bucket.count}] {bucket.signature}")
        lines.append(f"       representative: {bucket.representative} ({bucket.tokens_after} tokens)")
    if report.out:
        lines.append(f"report: {os.path.join(report.out, 'report.md')} (also report.json, report.html)")
    return "\n".join(lines)


def scheduler_of(args: argparse.Namespace) -> str | None:
    """The Dask scheduler asked for, by flag or by Dask's own environment variable; None: run here."""
    return args.scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


@contextlib.contextmanager
def cluster_client(address: str | None, quiet: bool) -> Iterator[Any]:
    """A connected Dask client for ``address`` (closed on exit), or None; Dask is imported only here."""
    if address is None:
        yield None
        return
    from reducer.batch.cluster import connect  # ClusterError (an InputError) says how to install the extra

    with connect(address) as connection:
        if not quiet:
            workers = len(connection.client.scheduler_info(n_workers=-1)["workers"])
            print(f"jax-reduce: Dask cluster at {connection.client.scheduler.address}, {workers} workers; "
                  f"dashboard: {connection.client.dashboard_link}", file=sys.stderr)
        yield connection.client


def worker_summary(report: Report, quiet: bool) -> None:
    if report.ran_on and not quiet:
        from reducer.batch.cluster import worker_throughput

        for line in worker_throughput(report):
            print(f"jax-reduce: worker {line}", file=sys.stderr)


def batch_main(args: argparse.Namespace) -> int:
    from reducer.batch import reduce_dir
    from reducer.batch.progress import batch_display

    display = batch_display(sys.stderr, quiet=args.quiet)
    try:
        with cluster_client(scheduler_of(args), args.quiet) as client, display:
            report = reduce_dir(args.file, args.output, args.options, on_event=display.on_event, client=client)
        worker_summary(report, args.quiet)
    except InputError as err:
        print(f"jax-reduce: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("jax-reduce: interrupted; finished files are recorded in the output directory's manifest.json: "
              "run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    return finish_batch(args, report, sys.stderr)


def finish_batch(args: argparse.Namespace, report: Report, summary_to: TextIO) -> int:
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    elif not args.quiet:
        print(batch_summary(report), file=summary_to)
    return EXIT_OK


def triage_main(args: argparse.Namespace) -> int:
    from reducer.batch.progress import record_line
    from reducer.batch import triage_dir

    if not os.path.isdir(args.file):
        print(f"jax-reduce: {args.file}: not a directory", file=sys.stderr)
        return EXIT_BAD_INPUT
    quiet = args.quiet or args.json
    if args.per_bucket and not args.output:
        print("jax-reduce: --per-bucket needs -o OUTDIR (where the reduced programs go)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        with cluster_client(scheduler_of(args), quiet) as client:
            report = triage_dir(
                args.file, args.output, args.options, client=client, per_bucket=args.per_bucket,
                on_done=None if quiet else lambda r: print(f"jax-reduce: {r.path}: {record_line(r)}",
                                                           file=sys.stderr),
            )
        worker_summary(report, quiet)
    except InputError as err:
        print(f"jax-reduce: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("jax-reduce: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return finish_batch(args, report, sys.stdout)  # the buckets are triage's result


# --- bisect -----------------------------------------------------------------------------------------------


def bisect_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="jax-reduce bisect",
        description="Find the JAX release that introduced a failure, or fixed it: run FILE (usually a reduced "
                    "repro) on JAX releases, each in its own cached virtual environment (CPU wheels), and compare "
                    "each run with its failure on the installed jax.")
    parser.add_argument("file", metavar="FILE", help="the failing program (never modified)")
    parser.add_argument("--jax", metavar="A..B", help="the releases to consider, e.g. 0.10.0..0.12.0.1 (either end "
                                                      "may be left out; default: every supported release)")
    parser.add_argument("--python", metavar="PATH", help="the interpreter to build the environments from "
                                                         "(default: this one); it decides which releases install")
    parser.add_argument("--all", dest="every", action="store_true",
                        help="run every release in the range instead of a binary search")
    parser.add_argument("--signature", choices=[level.value for level in Level], default=Level.TYPE.value,
                        help="how closely a release's failure must match (default: type, since the raising site "
                             "inside jax moves between releases)")
    parser.add_argument("--cache-dir", metavar="DIR", help="where the environments are kept (default: "
                                                           "$XDG_CACHE_HOME/jax-reduce/bisect, ~/.cache/...)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per run (default: 10x the run on the installed jax, at least 60)")
    parser.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                        help="run the program with your full rights (default: the candidates' sandbox)")
    parser.add_argument("--allow-write", action="append", default=[], metavar="DIR",
                        help="let the program also write under DIR (repeatable)")
    parser.add_argument("--issue", action="store_true",
                        help="also write NAME.issue.md beside FILE with the answer and the table")
    parser.add_argument("--json", action="store_true", help="print one JSON object with the result on stdout")
    parser.add_argument("--quiet", "-q", action="store_true", help="no line per release and no summary")
    return parser.parse_args(argv)


def bisect_main(argv: list[str]) -> int:
    from reducer.bisect import InstallError, bisect
    from reducer.options import Options
    from reducer.reports.issue import write_bisect_issue

    args = bisect_args(argv[1:])
    sandbox = Options(sandbox=args.sandbox, allow_write=tuple(args.allow_write)).resolve().sandbox
    if not args.quiet:
        warn_once(sandbox)

    def tell(text: str) -> None:
        if not (args.quiet or args.json):
            print(f"jax-reduce: {text}", file=sys.stderr)

    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always", RuntimeWarning)
            try:
                found = bisect(args.file, jax=args.jax, python=args.python, every=args.every,
                               signature=Signature(Level(args.signature)), cache_dir=args.cache_dir,
                               sandbox=sandbox, timeout=args.timeout,
                               on_trial=lambda t: tell(f"jax {t.release}: {t.outcome} ({t.seconds:.1f}s)"),
                               on_install=lambda release, folder: tell(f"installing jax {release} into {folder} (once)"))
            finally:
                for warning in warned:
                    print(f"jax-reduce: warning: {warning.message}", file=sys.stderr)
        issue = write_bisect_issue(found, sandbox=sandbox, command=["jax-reduce", *argv]) if args.issue else None
    except (InputError, InstallError) as err:
        print(f"jax-reduce: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("jax-reduce: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps({**found.to_json(), **({"issue": issue} if issue else {})}, indent=2))
    elif not args.quiet:
        print(f"reference: {found.reference} (jax {found.installed})\n{found.table()}\n{found.answer()}"
              + (f"\nissue:     {issue}" if issue else ""), file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    entry()
