"""Finished runs on a read-only mount can be exported, reported and compared (issue 41).

Before, every reader opened the run's SQLite store for writing (write-ahead log, CREATE TABLE): on
a read-only mount ``export``, ``report`` and ``compare`` stopped with "unable to open database file
... a bug in scenebench". The store is now opened read-only there (``mode=ro``, ``immutable=1``
where SQLite cannot even keep its shared-memory file). The run folders are made unwritable and the
commands run as an unprivileged user (root ignores permission bits), so any write attempt fails as
it would on a read-only mount; and nothing in the run folders changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from fixtures import make_surprise3d

import scenebench

SRC = str(Path(scenebench.__file__).resolve().parents[1])


def _as_reader() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot drop the right to write")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def _freeze(folder: Path) -> None:
    for p in [folder, *folder.rglob("*")]:
        mode = p.stat().st_mode
        p.chmod((mode | stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH | (0o111 if p.is_dir() else 0)) & ~0o222)


def test_export_report_and_compare_of_runs_on_a_read_only_mount():
    root = Path(tempfile.mkdtemp(prefix="scenebench-ro-"))  # not under pytest's 0700 tmp: the reader must reach it
    try:
        root.chmod(0o755)
        data = make_surprise3d(root / "s3d", n_scenes=2)
        runs = []
        for model in ("oracle", "baseline:labels"):
            runs.append(root / model.replace(":", "-"))
            scenebench.run("surprise3d", model, data=data, out=runs[-1])
        before = {r: _digest(r) for r in runs}
        for r in runs:
            _freeze(r)
        out = root / "out"
        out.mkdir()
        out.chmod(0o777)
        env = {**os.environ, "PYTHONPATH": SRC, "HOME": str(out), "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
        cmd = [*_as_reader(), sys.executable, "-m", "scenebench"]
        probe = subprocess.run(
            [*_as_reader(), sys.executable, "-c", f"open({str(runs[0] / 'probe')!r}, 'w')"], env=env, capture_output=True, text=True
        )
        assert probe.returncode != 0 and "Permission denied" in probe.stderr  # the folder really is read-only to the reader
        for args in (
            ["export", str(runs[0]), "--format", "csv", "--out", str(out / "s.csv")],
            ["report", str(runs[0]), "--html", str(out / "r.html"), "--markdown"],
            ["compare", str(runs[0]), str(runs[1])],
        ):
            r = subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, cwd=out, timeout=600)
            assert r.returncode == 0, (args, r.stderr[-2000:])
            assert "bug in scenebench" not in r.stderr
        assert (out / "s.csv").read_text().count("\n") > 1 and (out / "r.html").stat().st_size > 1000
        assert {r: _digest(r) for r in runs} == before  # nothing written, no -wal/-shm left
        r = subprocess.run([*cmd, "export", str(runs[0]), "--format", "csv"], env=env, capture_output=True, text=True, cwd=out, timeout=600)
        assert r.returncode == 2 and "bug in scenebench" not in r.stderr and "--out" in r.stderr, r.stderr[-2000:]
    finally:
        for p in [root, *root.rglob("*")]:
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)
