"""write_atomically: whole files only, the user's umask for new files, the old mode for replaced ones."""

from __future__ import annotations

import os
import stat

import pytest

from reprokit.files import same_file, write_atomically


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
