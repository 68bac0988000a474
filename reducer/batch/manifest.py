"""A batch's memory of finished files (``OUT/manifest.json`` and its journal), which is what makes it resumable."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from reducer.program.files import write_atomically
from reducer.reports.records import FileRecord, Status

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1


@dataclasses.dataclass
class Manifest:
    """Finished files of a batch, by relative path: the options they were reduced with and their record.

    Kept as a snapshot (``manifest.json``) plus a journal beside it (``manifest.journal``, one JSON line per
    finished file, fsync'd before the next file starts). Rewriting the whole snapshot after every file costs
    time proportional to the batch (0.3 s per file at 10,000 files); appending costs the same for any size.
    The snapshot absorbs the journal whenever the journal has grown as long as the snapshot (so rewriting
    stays linear in the batch overall) and when the batch ends (:meth:`close`); a crash leaves the journal,
    which :meth:`load` replays.
    """

    path: Path
    root: str
    entries: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    journaled: int = 0  # lines in the journal, i.e. entries the snapshot does not hold yet
    torn: bool = False  # the journal may end in a partial line (a crash mid-append)

    @property
    def journal(self) -> Path:
        return self.path.with_suffix(".journal")

    @classmethod
    def load(cls, path: Path, root: str) -> Manifest:
        """The manifest at ``path`` with its journal replayed, or an empty one if there is none (or it is
        from another version)."""
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {"version": MANIFEST_VERSION}
        manifest = cls(path, root, dict(data.get("files", {})) if data.get("version") == MANIFEST_VERSION else {})
        try:
            lines = manifest.journal.read_bytes().split(b"\n")
        except OSError:
            return manifest
        manifest.torn = lines[-1] != b""
        for line in filter(None, lines):
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash: that file is simply not finished
            if entry.get("version") == MANIFEST_VERSION:
                manifest.entries[entry["path"]] = {"options": entry["options"], "record": entry["record"]}
                manifest.journaled += 1
        return manifest

    def finished(self, rel: str, sha256: str, options: dict[str, Any]) -> FileRecord | None:
        """The earlier record of this file, if its content and options are unchanged and it finished."""
        entry = self.entries.get(rel)
        if entry is None or entry.get("options") != options:
            return None
        record = FileRecord.from_json(entry["record"])
        if record.sha256 != sha256 or record.status is Status.ERROR:
            return None
        return record

    def put(self, record: FileRecord, options: dict[str, Any]) -> None:
        """Record a finished file, durably, before returning: an interruption loses at most the next file."""
        self.entries[record.path] = {"options": options, "record": record.to_json()}
        if self.journaled + 1 >= len(self.entries) - self.journaled:
            self.close()  # the journal would be as long as the snapshot: fold it in
            return
        line = json.dumps({"version": MANIFEST_VERSION, "path": record.path, **self.entries[record.path]})
        with open(self.journal, "ab") as f:
            f.write((b"\n" if self.torn else b"") + line.encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())
        self.torn = False
        self.journaled += 1

    def close(self) -> None:
        """Fold the journal into the snapshot (written atomically), then drop the journal."""
        if self.journaled or not self.path.exists() or self.torn:
            data = {"version": MANIFEST_VERSION, "root": self.root, "files": self.entries}
            write_atomically(str(self.path), json.dumps(data, indent=1) + "\n")
        self.journal.unlink(missing_ok=True)
        self.journaled, self.torn = 0, False
