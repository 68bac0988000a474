"""``jax-track [--repro-dir D] [--flags F] [--reduce] script.py [args...]``: run a script under the tracker."""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="jax-track", description="Run a JAX script with its JAX calls recorded; on an uncaught "
        "error under a JAX API, save a standalone repro (and optionally reduce it).")
    parser.add_argument("--repro-dir", default=os.environ.get("JAX_REPRO_DIR") or "jax_repros",
                        help="where repros are saved (default: $JAX_REPRO_DIR, else ./jax_repros)")
    parser.add_argument("--flags", default=os.environ.get("JAX_REPRO_FLAGS", ""),
                        help="JAX_REPRO_FLAGS, e.g. 'fake_array_threshold=16,save_arrays'")
    parser.add_argument("--reduce", action="store_true", help="also reduce the repro with jax-reduce")
    parser.add_argument("--jobs", type=int, default=None, help="reducer jobs (default: cores)")
    parser.add_argument("--install-hook", action="store_true",
                        help="install the start-up hook (a .pth file) that makes JAX_REPRO_DIR work for "
                        "every Python program in this environment, then exit (pip install, editable or not, "
                        "installs it already; this is for a source checkout used from PYTHONPATH)")
    parser.add_argument("script", nargs="?", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = parse_args(sys.argv[1:] if argv is None else argv)
    if options.install_hook:
        return install_hook()
    if not options.script or not os.path.isfile(options.script):
        print(f"jax-track: no such script: {options.script}", file=sys.stderr)
        return 2
    os.environ["JAX_REPRO_DIR"] = os.path.abspath(options.repro_dir)
    os.environ["JAX_REPRO_FLAGS"] = options.flags
    from tracker import config
    from tracker.api import enable, save_failure
    try:
        flags = config.flags()
    except config.ConfigError as error:
        print(f"jax-track: {error}", file=sys.stderr)
        return 2
    from tracker.hook import install
    if not install():
        print("jax-track: jax is already imported; tracking through its public APIs", file=sys.stderr)
    enable(flags)
    sys.argv = [options.script] + options.args
    sys.path.insert(0, os.path.dirname(os.path.abspath(options.script)))
    try:
        runpy.run_path(options.script, run_name="__main__")
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except BaseException as error:  # report like Python would, after saving the repro
        traceback.print_exc()
        saved = save_failure(error)
        if saved is None:
            print("jax-track: the error did not come from a recorded JAX call; no repro saved", file=sys.stderr)
            return 1
        print(f"jax-reduce tracker: {saved.describe()}", file=sys.stderr)
        if options.reduce:
            return _reduce(saved.to_reduce, options.jobs)
        return 1
    print("jax-track: the script finished without an error under a JAX API", file=sys.stderr)
    return 0


def install_hook() -> int:
    import shutil
    import sysconfig
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_reduce_tracker.pth")
    target = os.path.join(sysconfig.get_paths()["purelib"], os.path.basename(source))
    shutil.copyfile(source, target)
    print(f"jax-track: installed {target}; JAX_REPRO_DIR now turns tracking on", file=sys.stderr)
    return 0


def _reduce(path: str, jobs: int | None) -> int:
    """Reduce the verified repro, or the copy of the original program when the repro does not reproduce."""
    from tracker.runtime import RUNTIME
    import reducer
    RUNTIME.enabled = False  # the reducer's own JAX calls are not the user's program
    output = path[:-3] + ".reduced.py"
    try:
        result = reducer.reduce(path, output=output, **({"jobs": jobs} if jobs else {}))
    except reducer.InputError as error:
        print(f"jax-track: the saved repro cannot be reduced: {error}", file=sys.stderr)
        return 1
    print(f"jax-track: reduced {result.tokens_before} -> {result.tokens_after} tokens: {output}",
          file=sys.stderr)
    issue = reducer.write_issue(result)  # the command defaults to this interpreter's own (sys.orig_argv)
    print(f"jax-track: issue text (scrubbed; review before posting): {issue}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
