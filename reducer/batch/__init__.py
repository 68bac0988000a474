"""Many programs at once: reduce or triage every repro under a directory, here or on a Dask cluster.

One driver (:mod:`reducer.batch.driver`: manifest, resume, records, reports, progress) and two runners
with one protocol (:mod:`reducer.batch.runner`): :mod:`reducer.batch.local` (a warm worker pool here) and
:mod:`reducer.batch.cluster` (a warm pool on every Dask worker; imported only when a cluster is asked for).
"""

from reducer.batch.driver import reduce_dir, triage, triage_dir
from reducer.batch.events import BatchEvent, FileDone, FileProgress, FileStarted
from reducer.batch.inputs import check_dirs, find_repros, resolve
from reducer.batch.manifest import MANIFEST, Manifest
from reducer.reports.records import Bucket, FileRecord, Report, Status

__all__ = [
    "MANIFEST", "BatchEvent", "Bucket", "FileDone", "FileProgress", "FileRecord", "FileStarted", "Manifest",
    "Report", "Status", "check_dirs", "find_repros", "reduce_dir", "resolve", "triage", "triage_dir",
]
