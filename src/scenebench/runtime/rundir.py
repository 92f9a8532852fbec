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

``overwrite`` deletes only what scenebench can prove it wrote: the store, results and ``run.json``
when ``run.json`` is a scenebench run record of the same benchmark, and a report (``report.html``,
``report.tex``, ``report.md``, ``report/``) only when the folder's ledger ``.scenebench-written.json``
lists it (``scenebench report`` adds every report it writes into a run folder). Anything else stops
the command, naming it, before anything is deleted: ``--out .`` must never cost a user their files.

One writer at a time: ``open`` takes an exclusive lock (``RUN_DIR/.lock``, ``flock``) held until the
process ends (the Python API gives it up when its call returns), so two identical ``run`` or
``score`` commands on one folder do not both write every row; the second stops with a clear error.
The lock belongs to one thread: another thread of the same process is refused like another process
while the holder is alive (two ``scenebench.score`` calls in threads would otherwise write into, and
read back, one store).
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scenebench.errors import InputError, RunMismatchError, ScenebenchError
from scenebench.io.files import atomic_write_json, read_json
from scenebench.io.fingerprints import fingerprint
from scenebench.io.store import LOCK_NAME, SampleStore

__all__ = ["DEFAULT_RUNS_ROOT", "RunDir", "default_run_dir", "fingerprint"]

DEFAULT_RUNS_ROOT = Path("runs")
LEDGER_NAME = ".scenebench-written.json"  # the report outputs scenebench wrote into a run folder
REPORT_OUTPUTS = ("report.html", "report.tex", "report.md", "report")
_RUN_FILES = ("samples.sqlite", "samples.sqlite-wal", "samples.sqlite-shm", "results.json", "run.json")

_LOCKS: dict[str, tuple[int, int, int]] = {}  # resolved folder -> (fd, inode of its lock file, holding thread) in this process
_LOCKS_GUARD = threading.Lock()  # _LOCKS is read and changed by every thread that opens a run folder


class RunLockedError(ScenebenchError):
    """Another process is writing the same run folder."""


def lock_run_folder(folder: Path) -> None:
    """Take (or keep) this thread's exclusive lock on ``folder``; refuse when another process, or
    another live thread of this one, holds it.

    The lock is an ``flock`` on ``folder/.lock``: the kernel releases it when the process ends, however
    it ends (a SIGKILLed run leaves no stale lock). A lock whose thread has ended passes to the caller.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory lock
        return
    key = str(folder.resolve())
    path = folder / LOCK_NAME
    me = threading.get_ident()
    with _LOCKS_GUARD:
        held = _LOCKS.get(key)
        if held is not None:
            try:
                same_file = os.stat(path).st_ino == held[1]
            except OSError:
                same_file = False
            if same_file:
                if held[2] == me:
                    return
                if held[2] in {t.ident for t in threading.enumerate()}:
                    raise RunLockedError(
                        f"run folder {folder} is in use by another thread of this process; wait for its call to return, "
                        "then rerun (it resumes), or choose another out"
                    )
                _LOCKS[key] = (held[0], held[1], me)  # its thread ended without giving it up
                return
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
        _LOCKS[key] = (fd, os.fstat(fd).st_ino, me)


def release_run_folder(folder: Path) -> None:
    """Give up this process's lock on ``folder`` (tests, and the API when its call returns; the CLI keeps it until it exits)."""
    with _LOCKS_GUARD:
        held = _LOCKS.pop(str(Path(folder).resolve()), None)
    if held is not None:
        os.close(held[0])


@contextmanager
def run_folder_call(folder: Path) -> Iterator[None]:
    """The span of one API call on ``folder``: a lock the call takes is given up when it returns, so
    another thread may use the folder next; a lock this thread held before the call is kept."""
    key = str(Path(folder).resolve()) if Path(folder).exists() else None
    with _LOCKS_GUARD:
        held_before = key is not None and key in _LOCKS and _LOCKS[key][2] == threading.get_ident()
    try:
        yield
    finally:
        if not held_before:
            with _LOCKS_GUARD:
                held = _LOCKS.get(str(Path(folder).resolve()))
            if held is not None and held[2] == threading.get_ident():
                release_run_folder(folder)


def _is_run_record(meta: Any) -> bool:
    """A ``run.json`` as scenebench writes it (every writer records these three strings)."""
    return isinstance(meta, dict) and all(isinstance(meta.get(k), str) and meta.get(k) for k in ("benchmark", "protocol", "fingerprint"))


def read_ledger(folder: Path) -> set[str]:
    """The report outputs the ledger of ``folder`` lists (empty when there is none or it is not ours)."""
    try:
        doc = read_json(Path(folder) / LEDGER_NAME, what="scenebench ledger")
    except (OSError, ScenebenchError):
        return set()
    written = doc.get("written") if isinstance(doc, dict) and doc.get("tool") == "scenebench" else None
    return {w for w in written if isinstance(w, str) and w in REPORT_OUTPUTS} if isinstance(written, list) else set()


def record_written(path: str | Path) -> None:
    """Note in the ledger of ``path``'s folder that scenebench wrote ``path`` there, so a later
    ``--overwrite`` may delete it; only report outputs directly in a run folder are noted (elsewhere
    nothing of scenebench's ever deletes them). The ledger is replaced atomically."""
    p = Path(path)
    if p.name not in REPORT_OUTPUTS or not (p.parent / "run.json").is_file():
        return
    names = read_ledger(p.parent) | {p.name}
    atomic_write_json(p.parent / LEDGER_NAME, {"tool": "scenebench", "written": sorted(names)})


def _forget_written(folder: Path, names: Iterable[str]) -> None:
    left = read_ledger(folder) - set(names)
    if left:
        atomic_write_json(folder / LEDGER_NAME, {"tool": "scenebench", "written": sorted(left)})
    else:
        (folder / LEDGER_NAME).unlink(missing_ok=True)


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
            self.reset(benchmark=meta.get("benchmark"))
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

    def foreign_outputs(self, benchmark: str | None) -> list[str]:
        """The entries ``reset`` would delete that scenebench cannot prove it wrote (sorted)."""
        present = [n for n in (*_RUN_FILES, *REPORT_OUTPUTS) if os.path.lexists(self.path / n)]
        foreign: list[str] = []
        run_files = [n for n in present if n in _RUN_FILES]
        if run_files:
            try:
                meta = read_json(self.run_json, what="run metadata") if self.run_json.is_file() and not self.run_json.is_symlink() else None
            except ScenebenchError:
                meta = None
            record = meta if isinstance(meta, dict) and _is_run_record(meta) else None
            if record is None or (benchmark is not None and record.get("benchmark") != benchmark):
                foreign += run_files
        ledger = read_ledger(self.path)
        for n in present:
            p = self.path / n
            if n in REPORT_OUTPUTS and (n not in ledger or p.is_symlink() or p.is_dir() != (n == "report")):
                foreign.append(n + ("/" if p.is_dir() and not p.is_symlink() else ""))
        return sorted(foreign)

    def reset(self, benchmark: str | None = None) -> None:
        """Remove what an earlier run of ``benchmark`` wrote here (store, results, run.json, the reports
        its ledger lists); refuse, deleting nothing, when the folder holds any of those names that
        scenebench did not write (a foreign ``run.json``, another benchmark's run, an unlisted report).
        Predictions and logs stay: the run rewrites its own predictions file."""
        foreign = self.foreign_outputs(benchmark)
        if foreign:
            raise InputError(
                self.path,
                f"--overwrite refused: holds {', '.join(foreign)}, which scenebench did not write here"
                + (f" for a {benchmark} run" if benchmark else "")
                + "; nothing was deleted",
                expected="another --out, or move those entries away first",
            )
        for name in _RUN_FILES:
            (self.path / name).unlink(missing_ok=True)
        written = [n for n in REPORT_OUTPUTS if os.path.lexists(self.path / n)]
        for name in written:  # reports of the old results must not sit beside new ones
            p = self.path / name
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
        _forget_written(self.path, written)

    def store(self) -> SampleStore:
        return SampleStore(self.store_path)

    def reader(self) -> SampleStore:
        """The store opened read-only (export, report, compare): nothing is written to the run folder,
        which may sit on a read-only mount."""
        return SampleStore(self.store_path, readonly=True)
