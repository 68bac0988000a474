"""``jax-track [--repro-dir D] [--flags F] [--reduce] script.py [args...]``: run a script under the tracker."""

from __future__ import annotations

import argparse
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import traceback
from typing import Any, NoReturn

from reprokit import jaxcompat
from tracker import ahead

# Set in the child's environment (to the file where it names a repro it saved): this process runs the script.
CHILD = "JAX_TRACK_CHILD"
# The signals a crash inside JAX dies of; no Python code runs after them, so only the parent can save.
FATAL = tuple(getattr(signal, n) for n in ("SIGSEGV", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE") if hasattr(signal, n))
FORWARDED = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


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


def entry() -> NoReturn:
    """The ``jax-track`` command."""
    sys.exit(main(fork=True))


def main(argv: list[str] | None = None, *, fork: bool = False) -> int:
    """``fork``: the script's process is this one forked, past its start-up, instead of a new interpreter;
    only for this command's own entry points (:func:`entry`, ``python -m tracker``), where returning from
    here leads to nothing but the exit."""
    options = parse_args(sys.argv[1:] if argv is None else argv)
    if options.install_hook:
        return install_hook()
    if not options.script or not os.path.isfile(options.script):
        print(f"jax-track: no such script: {options.script}", file=sys.stderr)
        return 2
    told = os.environ.pop(CHILD, None)  # popped: a jax-track the script itself runs is a parent again
    if told is None:
        if (untested := jaxcompat.untested_once()) is not None:
            print(f"jax-track: warning: {untested}", file=sys.stderr)
        return parent(options, sys.argv[1:] if argv is None else argv, fork)
    return run_script(options, told)


def run_script(options: argparse.Namespace, told: str = "") -> int:
    """The child: run the script in this process with its JAX calls recorded, as ``jax-track`` always did;
    a saved repro's path goes to the file ``told`` (the parent saves nothing then, even after a crash)."""
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
    from tracker import verify
    parents = ahead.from_parent()
    if flags.verify:
        verify.run_next_in(parents or ahead.local(os.environ["JAX_REPRO_DIR"]))
    verify.running_script(options.script)
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
            copy = _save_untraced(options, error)
            if copy and told:
                _tell_parent(told, copy)
            if copy and options.reduce:
                return _reduce(copy, options.jobs)
            return 1
        print(f"jax-reduce tracker: {saved.describe()}", file=sys.stderr)
        _tell_parent(told, saved.to_reduce)
        if options.reduce:
            return _reduce(saved.to_reduce, options.jobs)
        return 1
    print("jax-track: the script finished without an error under a JAX API", file=sys.stderr)
    return 0


def parent(options: argparse.Namespace, argv: list[str], fork: bool = False) -> int:
    """Run the script in a child process and wait: a child that dies of a fatal signal inside JAX runs no
    more Python, so this process saves what it can, the script copied with its local modules. Exit codes,
    stdout and stderr pass through (inherited); so does the child's death by a signal. The child is this
    process forked with ``fork`` (the fork returns the script's status from here), else this CLI again."""
    fd, told = tempfile.mkstemp(prefix="jax-track-", suffix=".saved")
    os.close(fd)
    verifier = _verifier(options)
    own = _is_own_command(argv)
    # Ctrl-C reaches the whole foreground process group: the child gets its KeyboardInterrupt and ends as
    # it always did; this process must outlive it to pass on its status. A handler, not SIG_IGN: exec resets
    # a handler to the default in the child (an ignored SIGINT would stay ignored there); a fork puts the
    # previous one back.
    previous = {signal.SIGINT: signal.signal(signal.SIGINT, lambda signum, frame: None)}
    child: subprocess.Popen[bytes] | _Forked | None = None
    if fork:
        child = _fork(previous[signal.SIGINT], verifier)
        if child.pid == 0:
            return run_script(options, told)
    try:
        if child is None:
            command = [sys.executable, *sys.orig_argv[1:]] if own else [sys.executable, "-m", "tracker", *argv]
            env = {**os.environ, CHILD: told, **(verifier.child_env() if verifier else {})}
            child = subprocess.Popen(command, env=env, pass_fds=verifier.child_fds if verifier else ())
        # A SIGTERM or SIGHUP sent to this process alone (a job runner, a closed terminal) ends the child too.
        for forwarded in FORWARDED:
            previous[forwarded] = signal.signal(forwarded, lambda signum, frame: child.send_signal(signum))
        if verifier is not None:
            verifier.start(os.path.abspath(options.repro_dir))
        status = child.wait()
        with open(told) as f:
            saved = f.read()
    finally:
        if verifier is not None:
            verifier.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        os.unlink(told)
    if status >= 0:
        return status
    signum = -status
    if signum in FATAL and not saved:
        _save_crash(options, signal.Signals(signum).name)
    return _die_of(signum) if own else 128 + signum  # a Python caller of main() is not to be killed


class _Forked:
    """The child when it is this process forked: what :class:`subprocess.Popen` offers of it (pid 0 in the child)."""

    def __init__(self, pid: int):
        self.pid = pid

    def send_signal(self, signum: int) -> None:
        os.kill(self.pid, signum)

    def wait(self) -> int:
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def _fork(sigint: Any, verifier: ahead.Verifier | None) -> _Forked:
    """Fork this process (no thread runs yet); in the child, Ctrl-C raises KeyboardInterrupt again and the
    verifier's pipes are its own (tracker.ahead.from_parent finds them)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGINT, sigint if sigint is not None else signal.SIG_DFL)
        if verifier is not None:
            os.environ.update(verifier.child_env())
            verifier.forked()
    return _Forked(pid)


def _verifier(options: argparse.Namespace) -> ahead.Verifier | None:
    """The interpreter the child's repro will be verified in, when repros are verified (tracker.ahead)."""
    from tracker import config
    try:
        verified = config.Flags.parse(options.flags).verify
    except config.ConfigError:
        return None  # the child says what is wrong
    return ahead.Verifier() if verified else None


def _is_own_command(argv: list[str]) -> bool:
    """Whether this process was started as this jax-track command (``jax-track``, ``python -m tracker`` or a
    script calling main()): then the child is started the same way (it reaches ``main`` again, and a
    reduction's issue.md names the command the user typed), else as ``python -m tracker ARGS``."""
    return bool(argv) and sys.orig_argv[-len(argv):] == argv


def _tell_parent(told: str, path: str) -> None:
    if told:
        with open(told, "w") as f:
            f.write(path)


def _save_crash(options: argparse.Namespace, signal_name: str) -> None:
    """The source-level fallback of a run that died of ``signal_name``; reduced when ``--reduce``."""
    from tracker.verify import save_crash_fallback
    directory = os.path.abspath(options.repro_dir)
    try:
        os.makedirs(directory, exist_ok=True)
        copy = save_crash_fallback(directory, options.script, signal_name)
    except Exception as error:  # noqa: BLE001 - the crash is the user's news; ours is a footnote
        print(f"jax-track: the program died of {signal_name}; could not copy it: {error}", file=sys.stderr)
        return
    print(f"jax-reduce tracker: the program died of {signal_name}; no traced repro could be saved; the "
          f"original program is copied to {copy}; reduce that", file=sys.stderr)
    if options.reduce:
        _reduce(copy, options.jobs)


def _save_untraced(options: argparse.Namespace, error: BaseException) -> str:
    """The source-level fallback of an error raised inside JAX outside every recorded call; "" if none."""
    from tracker.api import save_untraced
    copy, said = save_untraced(error, os.path.abspath(options.repro_dir))
    if said:
        print(said, file=sys.stderr)
    return copy


def _die_of(signum: int) -> int:
    """End this process by the child's signal, so that a caller sees what running the script plainly gives
    (a shell's 128+N and its "Segmentation fault", a negative returncode in subprocess). No core file: the
    child's core, if any, is the one worth reading, not a copy of this waiting process."""
    import resource
    sys.stdout.flush()
    sys.stderr.flush()
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    try:
        signal.signal(signum, signal.SIG_DFL)
    except (OSError, ValueError):
        pass  # SIGKILL's handler cannot be set (it is the default already)
    os.kill(os.getpid(), signum)
    return 128 + signum  # the shell's number, if the signal did not end this process


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
