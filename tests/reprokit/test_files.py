"""write_atomically: whole files only, the user's umask for new files, the old mode for replaced ones.
NewestWriter: the newest version on disk when it closes, errors not lost, its thread gone."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from reprokit.files import NewestWriter, same_file, write_atomically


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_file_gets_the_umask_mode_and_no_temporary_is_left(tmp_path, umask_022):
    target = tmp_path / "out.py"
    write_atomically(str(target), "x = 1\n")
    assert target.read_text() == "x = 1\n"
    assert mode(target) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.py"]


def test_replacing_keeps_the_old_mode_and_writes_bytes(tmp_path, umask_022):
    target = tmp_path / "data.npz"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    write_atomically(str(target), b"\x00new")
    assert target.read_bytes() == b"\x00new"
    assert mode(target) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.py"
    target.write_text("old\n")
    with pytest.raises(TypeError):
        write_atomically(str(target), 12)  # type: ignore[arg-type]  (neither text nor bytes)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.py"]


def test_same_file_sees_through_links(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("")
    (tmp_path / "sym.py").symlink_to(a)
    os.link(a, tmp_path / "hard.py")
    assert same_file(a, tmp_path / "sym.py") and same_file(a, tmp_path / "hard.py")
    assert same_file(tmp_path / "missing.py", tmp_path / "." / "missing.py")
    assert not same_file(a, tmp_path / "missing.py")


def _writers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("writer ")]


def test_the_newest_version_is_on_disk_when_the_writer_closes(tmp_path):
    target = tmp_path / "best.py"
    with NewestWriter(str(target)) as writer:
        for size in range(200, 0, -1):
            writer.write("x = 1\n" * size)
    assert target.read_text() == "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.py"]
    assert _writers() == []


def test_the_newest_version_is_written_when_the_block_fails(tmp_path):
    target = tmp_path / "best.py"
    with pytest.raises(KeyboardInterrupt):
        with NewestWriter(str(target)) as writer:
            writer.write("a = 1\n")
            writer.write("b = 1\n")
            raise KeyboardInterrupt
    assert target.read_text() == "b = 1\n"
    assert _writers() == []


def test_a_failed_background_write_is_raised_to_the_caller(tmp_path):
    target = tmp_path / "gone" / "best.py"  # its directory does not exist
    writer = NewestWriter(str(target))
    writer.write("x = 1\n")
    with pytest.raises(FileNotFoundError):
        writer.close()
    assert _writers() == []
    with pytest.raises(ValueError, match="original"):
        with NewestWriter(str(target)) as writer:
            writer.write("x = 1\n")
            raise ValueError("the original error")  # not hidden by the writer's own
