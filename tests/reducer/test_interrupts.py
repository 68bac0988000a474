"""Ctrl-C found behind the error a library raised while unwinding from it."""

from __future__ import annotations

import signal

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from reducer.program.interrupts import interrupted


def test_an_interrupt_in_the_chain_counts_and_nothing_else_does():
    def during(handled: BaseException, raised: BaseException) -> BaseException:
        try:
            try:
                raise handled
            except BaseException:
                raise raised
        except BaseException as err:
            return err

    assert interrupted(KeyboardInterrupt())
    assert interrupted(during(KeyboardInterrupt(), KeyError("node")))
    assert interrupted(during(during(KeyboardInterrupt(), OSError()), ValueError()))
    assert not interrupted(during(ValueError(), KeyError("node")))
    looped = ValueError()
    looped.__context__ = looped
    assert not interrupted(looped)


# An interrupt that lands in a finalizer is dropped by Python (pytest reports it as unraisable).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_ctrl_c_while_libcst_tracks_positions_is_still_found():
    # Interrupted inside its position tracking, libcst (1.0 and 1.9 alike) raises KeyError from its cleanup
    # (the case the reducer met: a quarter to a half of the interrupts that land in resolving positions);
    # anywhere else the KeyboardInterrupt arrives as it is. Either way it is found.
    module = cst.parse_module("".join(f"def f{i}(a, b):\n    return {{'k': [a, b, {i}]}}\n" for i in range(500)))

    def ctrl_c(signum, frame):
        raise KeyboardInterrupt

    raised: list[BaseException] = []
    previous = signal.signal(signal.SIGALRM, ctrl_c)
    try:
        for attempt in range(60):
            wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
            try:
                try:
                    signal.setitimer(signal.ITIMER_REAL, 0.01 + 0.003 * (attempt % 30))
                    wrapper.resolve(PositionProvider)  # finished first, or the interrupt was dropped: again
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except BaseException as err:  # noqa: BLE001 - what Ctrl-C turned into is the point
                raised.append(err)
            if {type(err) for err in raised} == {KeyboardInterrupt, KeyError}:
                break
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert all(interrupted(err) for err in raised), raised
    assert {type(err) for err in raised} == {KeyboardInterrupt, KeyError}
