"""Without Dask: the local batch and triage never import it, and --scheduler says how to install it.

Kept apart from test_cluster.py, which needs Dask installed and is skipped without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])


def test_the_local_batch_never_imports_dask(tmp_path):
    (tmp_path / "repros").mkdir()
    (tmp_path / "repros" / "broken.py").write_text("def f(:\n")
    code = textwrap.dedent(f"""
        import sys, reducer
        report = reducer.reduce_dir({str(tmp_path / 'repros')!r}, {str(tmp_path / 'out')!r}, pool=False)
        triaged = reducer.triage_dir({str(tmp_path / 'repros')!r}, None, pool=False)
        print(report.files[0].status.value, triaged.files[0].status.value,
              sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert done.stdout == "invalid invalid []\n", done.stderr


def test_without_dask_scheduler_says_how_to_install_it(tmp_path):
    (tmp_path / "repros").mkdir()
    code = ("import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None\n"
            "from reducer.cli import main\n"
            f"sys.exit(main([{str(tmp_path / 'repros')!r}, '--scheduler', 'local:2']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("jax-reduce: jax-reduce needs Dask for --scheduler, and it is not installed here: "
                           "pip install 'jax-reduce[dask]'\n")
    assert list((tmp_path / "repros").iterdir()) == []
