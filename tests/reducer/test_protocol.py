"""The typed messages between the reducer, its zygotes and candidate processes: JSON, never pickle."""

from __future__ import annotations

import textwrap
import threading

import pytest

from reducer.execution.outcome import Kind, Outcome
from reducer.execution.protocol import (
    Abandoned, Candidate, Cancel, Exit, Finished, How, Job, ProtocolError, Ready, Report, Run, Settled, decode,
    encode,
)

MESSAGES = [
    Run(Job("x = 1\n", 2.5, "/some/dir", 0, b"\x80dill\x00", True)),
    Run(Job("x = 1\n", 2.0, "", 512, None, False)),
    Cancel(), Exit(), Ready(False, ("flax", "optax")),
    Finished(Outcome(Kind.EXCEPTION, "TypeError", "bad\nshapes", "jax._src.lax.lax", "f", seconds=0.25,
                     verdict=True, verdict_error=""), How("new", ("a thread is still running",))),
    Abandoned(How("fork")),
    Candidate("print(1)\n", "/tmp/w", "", b"p"),
    Report(Outcome(Kind.CRASH, signal=6, stderr_tail="F0000 check failed")),
    Settled(("a thread is still running",)), Settled(),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(message):
    assert decode(encode(message)) == message


@pytest.mark.parametrize("data", [
    b"", b"not json", b"[]", b'{"kind": "exception"}',
    b'{"type": "Popen"}',  # only our message types
    b'{"type": "Exit", "extra": 1}',  # only their fields
    b'{"type": "Ready", "unsafe": 1, "skipped": []}',  # of their declared types
    b'{"type": "Report", "outcome": {"kind": "exception", "message": ["a"]}}',
    b'{"type": "Report", "outcome": {"kind": "sideways"}}',
    b'{"type": "Candidate", "source": "", "workdir": "", "sys_path": "", "check": {"base64": "%%%"}}',
])
def test_anything_else_is_refused(data):
    with pytest.raises(ProtocolError):
        decode(data)


def test_decode_checks_the_expected_type():
    with pytest.raises(ProtocolError, match="expected Report"):
        decode(encode(Exit()), Report)


def test_a_candidate_writing_a_pickle_to_its_runners_socket_runs_nothing_outside_it(pool, tmp_path):
    """A candidate can find its runner's socket and write to it; were replies unpickled, the payload would
    run in the zygote. It is refused, and the candidate gets a crash outcome."""
    marker = tmp_path / "unpickled"
    source = textwrap.dedent(f"""
        import os, pickle, stat, struct

        class Payload:
            def __reduce__(self):
                return (open, ({str(marker)!r}, "w"))

        data = pickle.dumps(Payload())
        for fd in range(3, 256):
            try:
                if stat.S_ISSOCK(os.fstat(fd).st_mode):
                    os.write(fd, struct.pack("!i", len(data)) + data)
            except OSError:
                pass
        raise ValueError("wrote to every socket")
    """)
    outcome = pool.run(source, 60.0, threading.Event())
    assert outcome.kind is Kind.CRASH
    assert not marker.exists()
    after = pool.run("import jax.numpy as jnp\njnp.ones(2) + jnp.ones(3)\n", 60.0, threading.Event())
    assert after.exc_type == "TypeError"  # the pool goes on
