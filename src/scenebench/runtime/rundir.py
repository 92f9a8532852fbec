"""Run folders: where a run keeps its settings, per-sample records and results.

Layout::

    RUN_DIR/
      run.json          what was asked (benchmark, protocol, settings, input checksums, fingerprint)
      samples.sqlite    per-sample records (predictions, scores, judgements), written as computed
      results.json      the summary in the shared results schema (scenebench.results)

Opening an existing folder with the same fingerprint resumes it; a different fingerprint (other
predictions, other protocol, other threshold) is refused unless ``overwrite`` is set, because mixing
samples scored under different settings would silently corrupt the numbers.
"""

from __future__ import annotations

import datetime as _dt
import shutil
from pathlib import Path
from typing import Any

from scenebench.errors import InputError, RunMismatchError
from scenebench.io.files import atomic_write_json, read_json
from scenebench.io.fingerprints import fingerprint
from scenebench.runtime.store import SampleStore

DEFAULT_RUNS_ROOT = Path("runs")
__all__ = ["DEFAULT_RUNS_ROOT", "RunDir", "default_run_dir", "fingerprint"]


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

    def open(self, meta: dict[str, Any], *, overwrite: bool = False, key_fields: tuple[str, ...] = ("benchmark", "protocol", "fingerprint")) -> "RunDir":
        """Create the folder or resume it; refuse a folder made with other inputs or settings."""
        self.path.mkdir(parents=True, exist_ok=True)
        if self.exists():
            old = self.read_meta()
            if any(old.get(k) != meta.get(k) for k in key_fields):
                if not overwrite:
                    diffs = ", ".join(f"{k}: {old.get(k)!r} -> {meta.get(k)!r}" for k in key_fields if old.get(k) != meta.get(k))
                    raise RunMismatchError(
                        f"run folder {self.path} holds a run with other inputs or settings ({diffs}); "
                        "choose another --out or pass --overwrite to start it again"
                    )
                self.reset()
            else:
                return self
        atomic_write_json(self.run_json, meta)
        return self

    def reset(self) -> None:
        for p in (self.store_path, self.results_json, self.run_json):
            for q in (p, p.with_name(p.name + "-wal"), p.with_name(p.name + "-shm")):
                q.unlink(missing_ok=True)
        for sub in ("report",):
            shutil.rmtree(self.path / sub, ignore_errors=True)

    def store(self) -> SampleStore:
        return SampleStore(self.store_path)
