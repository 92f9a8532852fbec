"""Run folders: where a run keeps its settings, per-sample records and results.

Layout::

    RUN_DIR/
      run.json          what was asked (benchmark, protocol, settings, input checksums, fingerprint)
      samples.sqlite    per-sample records (predictions, scores, judgements), written as computed
      results.json      the summary in the shared results schema (scenebench.results)

Opening an existing folder with the same fingerprint resumes it; a different fingerprint (other
predictions, other protocol, other threshold) is refused unless ``overwrite`` is set, because mixing
samples scored under different settings would silently corrupt the numbers. ``overwrite`` always
starts the folder again (store, results, report), even when the fingerprint matches.

One process at a time: ``open`` takes an exclusive lock (``RUN_DIR/.lock``, ``flock``) held until the
process ends, so two identical ``run`` or ``score`` commands on one folder do not both write every
row; the second stops with a clear error.
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
from pathlib import Path
from typing import Any

from scenebench.errors import InputError, RunMismatchError, ScenebenchError
from scenebench.io.files import atomic_write_json, read_json
from scenebench.io.fingerprints import fingerprint
from scenebench.runtime.store import SampleStore

__all__ = ["DEFAULT_RUNS_ROOT", "RunDir", "default_run_dir", "fingerprint"]

DEFAULT_RUNS_ROOT = Path("runs")
LOCK_NAME = ".lock"

_LOCKS: dict[str, tuple[int, int]] = {}  # resolved folder -> (fd, inode of its lock file) held by this process


class RunLockedError(ScenebenchError):
    """Another process is writing the same run folder."""


def lock_run_folder(folder: Path) -> None:
    """Take (or keep) this process's exclusive lock on ``folder``; refuse when another process holds it.

    The lock is an ``flock`` on ``folder/.lock``: the kernel releases it when the process ends, however
    it ends (a SIGKILLed run leaves no stale lock).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory lock
        return
    key = str(folder.resolve())
    path = folder / LOCK_NAME
    held = _LOCKS.get(key)
    if held is not None:
        try:
            if os.stat(path).st_ino == held[1]:
                return
        except OSError:
            pass
        os.close(held[0])
        del _LOCKS[key]
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            other = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
        except OSError:
            other = ""
        os.close(fd)
        who = f" (pid {other})" if other.isdigit() else ""
        raise RunLockedError(
            f"run folder {folder} is in use by another scenebench process{who}; wait for it to finish, "
            "then rerun (it resumes), or choose another --out"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    _LOCKS[key] = (fd, os.fstat(fd).st_ino)


def release_run_folder(folder: Path) -> None:
    """Give up this process's lock on ``folder`` (tests; the CLI keeps it until it exits)."""
    held = _LOCKS.pop(str(Path(folder).resolve()), None)
    if held is not None:
        os.close(held[0])


def default_run_dir(benchmark: str, root: Path = DEFAULT_RUNS_ROOT) -> Path:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return root / f"{benchmark}-{stamp}"


class RunDir:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @property
    def run_json(self) -> Path:
        return self.path / "run.json"

    @property
    def results_json(self) -> Path:
        return self.path / "results.json"

    @property
    def store_path(self) -> Path:
        return self.path / "samples.sqlite"

    def exists(self) -> bool:
        return self.run_json.exists()

    def read_meta(self) -> dict[str, Any]:
        meta = read_json(self.run_json, what="run metadata")
        if not isinstance(meta, dict):  # a damaged or foreign run.json must not crash the resume check
            raise InputError(self.run_json, f"top level is a {type(meta).__name__}", expected="the JSON object scenebench writes")
        return meta

    def open(
        self, meta: dict[str, Any], *, overwrite: bool = False, key_fields: tuple[str, ...] = ("benchmark", "protocol", "fingerprint")
    ) -> RunDir:
        """Create the folder or resume it; refuse a folder made with other inputs or settings.

        ``overwrite`` always starts again: what the folder held is removed even if it matches.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        lock_run_folder(self.path)
        if overwrite:
            self.reset()
        elif self.exists():
            old = self.read_meta()
            diffs = ", ".join(f"{k}: {old.get(k)!r} -> {meta.get(k)!r}" for k in key_fields if old.get(k) != meta.get(k))
            if not diffs:
                return self
            raise RunMismatchError(
                f"run folder {self.path} holds a run with other inputs or settings ({diffs}); "
                "choose another --out or pass --overwrite to start it again"
            )
        atomic_write_json(self.run_json, meta)
        return self

    def reset(self) -> None:
        """Remove everything a run wrote (store, results, predictions stay only if the user gave them, reports)."""
        for p in (self.store_path, self.results_json, self.run_json):
            for q in (p, p.with_name(p.name + "-wal"), p.with_name(p.name + "-shm")):
                q.unlink(missing_ok=True)
        for name in ("report.html", "report.tex", "report.md"):  # reports of the old results must not sit beside new ones
            (self.path / name).unlink(missing_ok=True)
        for sub in ("report",):
            shutil.rmtree(self.path / sub, ignore_errors=True)

    def store(self) -> SampleStore:
        return SampleStore(self.store_path)
