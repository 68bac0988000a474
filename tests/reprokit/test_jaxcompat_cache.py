"""Storing compilations in jax's persistent-cache directory for other processes (a zygote, for its runners):
whole or not at all, never over an entry, and read back by jax's own cache."""

from __future__ import annotations

import os
from pathlib import Path

from reprokit import jaxcompat

KEY = "jit_f-" + "0" * 64


def test_a_stored_entry_is_read_back_by_jaxs_file_cache(tmp_path: Path) -> None:
    assert jaxcompat.store_compilation(str(tmp_path), KEY, b"executable")
    assert os.listdir(tmp_path) == [KEY + "-cache"]  # no part file left behind
    disk = jaxcompat.load("lru_cache").LRUCache(str(tmp_path), max_size=-1)
    assert disk.get(KEY) == b"executable"


def test_an_existing_entry_is_never_replaced(tmp_path: Path) -> None:
    assert jaxcompat.store_compilation(str(tmp_path), KEY, b"first")
    assert not jaxcompat.store_compilation(str(tmp_path), KEY, b"second")
    assert Path(tmp_path, KEY + "-cache").read_bytes() == b"first"
    assert os.listdir(tmp_path) == [KEY + "-cache"]


def test_what_is_no_cache_key_is_not_stored(tmp_path: Path) -> None:
    for key in ("../outside", ".hidden", "a/b", "", "x" * 300, "key with space"):
        assert not jaxcompat.store_compilation(str(tmp_path), key, b"data")
    assert not jaxcompat.store_compilation(str(tmp_path), KEY, b"")
    assert os.listdir(tmp_path) == []
    assert not (tmp_path.parent / "outside-cache").exists()


def test_a_runners_compilations_are_kept_for_shipping_only_when_asked(tmp_path: Path) -> None:
    memory = jaxcompat.MemoryFirst(jaxcompat.load("lru_cache").LRUCache(str(tmp_path), max_size=-1), 100)
    memory.put("a", b"1")
    assert memory.take_made() == ()
    memory.shipping = True
    memory.put("b", b"22")
    memory.put("c", b"333")
    assert memory.take_made() == (("b", b"22"), ("c", b"333"))
    assert memory.take_made() == ()
    assert memory.get("c") == b"333"
    assert os.listdir(tmp_path) == []  # kept in memory, never written by the runner itself
    memory.disk_writes = True
    memory.put("d", b"4")
    assert memory.take_made() == () and os.listdir(tmp_path) == ["d-cache"]
