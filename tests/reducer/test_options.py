"""The one Options record: defaults, validation, keyword settings, and what changes a result."""

import os

import pytest

from reducer.judging.signature import Level, Signature
from reducer.options import Options
from reducer.search.passes import statement_passes


def test_defaults_and_keyword_settings():
    options = Options.of(jobs=3, signature="exact", match="shape", passes=statement_passes())
    assert options.jobs == 3
    assert options.signature == Signature(Level.EXACT, "shape")
    assert [p.name for p in options.pass_list()] == ["statements", "cleanup"]
    assert isinstance(options.passes, tuple)
    assert Options.of(options, timeout=5.0).signature == options.signature  # settings apply on top
    assert Options.of(jobs=None).jobs >= 1  # None: one per core


@pytest.mark.parametrize("settings, message", [
    ({"jobs": 0}, "jobs must be at least 1"),
    ({"timeout": 0}, "timeout must be positive"),
    ({"memory_mb": -1}, "memory_mb must not be negative"),
    ({"match": "("}, "match is not a valid regular expression"),
    ({"signature": "loose"}, "'loose' is not a valid Level"),
    ({"interesting": 3}, "interesting must be a callable"),
])
def test_bad_settings_say_which(settings, message):
    with pytest.raises(ValueError, match=message):
        Options.of(**settings)


def test_unknown_setting():
    with pytest.raises(TypeError, match="unknown reduction option.*jbos"):
        Options.of(jbos=2)


def test_result_key_ignores_jobs():
    assert Options.of(jobs=1).result_key() == Options.of(jobs=4).result_key()
    assert Options.of(timeout=3).result_key() != Options().result_key()


def test_result_key_holds_the_sandbox_setting(tmp_path):
    assert Options(jobs=1).result_key() == {
        "signature": "template", "match": None, "timeout": None, "interesting": None, "passes": "default",
        "memory_mb": 0, "sandbox": True, "allow_write": [], "flaky": None}
    off = Options.of(jobs=1, sandbox=False).result_key()
    wider = Options.of(jobs=1, allow_write=[str(tmp_path)]).result_key()
    assert off["sandbox"] is False and off != Options(jobs=1).result_key()
    assert wider["allow_write"] == [str(tmp_path.resolve())] and wider != Options(jobs=1).result_key()


def test_memory_cap_is_what_candidates_get():
    quarter = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    machine = max(1024, quarter // (256 << 20) * 256)  # MiB, in 256 MiB steps
    assert Options().memory_cap_mb() == machine
    assert Options(memory_mb=2048).memory_cap_mb() == 2048
    assert Options(sandbox=False).memory_cap_mb() == 0  # no sandbox, no cap unless one is given
    assert Options(sandbox=False, memory_mb=512).memory_cap_mb() == 512
