"""For the HTML report: the views a vision model saw for each sample, as embeddable thumbnails.

``openai-vision:`` predictions keep ``extra["vision"]["thumbnails"]`` (paths of half-size PNGs in the
image cache). :func:`run_thumbnails` reads them from the run's prediction records and returns the
images once each (keyed by their sha256, so the views of a scene shared by many samples are
embedded once) and, per sample, the keys of its views. Thumbnails no longer in the cache are left
out and counted, so the report can say why.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_thumbnails(run_path: str | Path, sample_ids: set[str] | None = None) -> tuple[dict[str, str], dict[str, list[str]], int]:
    """(images: sha256 -> ``data:image/png;base64,...``, per sample: list of sha256, number missing)."""
    from scenebench.runtime.rundir import RunDir
    from scenebench.runtime.runner import PREDICTION_KIND

    run = RunDir(run_path)
    images: dict[str, str] = {}
    per_sample: dict[str, list[str]] = {}
    missing = 0
    if not run.store_path.exists():
        return images, per_sample, missing
    by_path: dict[str, str | None] = {}
    with run.reader() as store:
        for sid, body in store.iter(PREDICTION_KIND):
            if sample_ids is not None and sid not in sample_ids:
                continue
            vision = ((body.get("prediction") or {}).get("extra") or {}).get("vision") or {}
            keys = []
            for p in vision.get("thumbnails") or []:
                if p not in by_path:
                    by_path[p] = _embed(Path(p), images)
                if by_path[p] is None:
                    missing += 1
                else:
                    keys.append(by_path[p])
            if keys:
                per_sample[sid] = keys
    return images, per_sample, missing


def _embed(path: Path, images: dict[str, str]) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(PNG_MAGIC):  # only our own PNGs go into the page
        return None
    key = hashlib.sha256(data).hexdigest()[:16]
    images.setdefault(key, "data:image/png;base64," + base64.b64encode(data).decode("ascii"))
    return key


def payload_notes(missing: int) -> list[str]:
    if not missing:
        return []
    return [
        f"{missing} thumbnails of the views the vision model saw are no longer in its image cache (rerun the model to render them again)"
    ]


def attach(payload: dict[str, Any], run_entry: dict[str, Any], run_path: str | Path) -> None:
    """Add the thumbnails of one run to a report payload: ``payload["thumbs"]`` and each sample's ``thumbs``."""
    images, per_sample, missing = run_thumbnails(run_path)
    if not images and not missing:
        return
    payload.setdefault("thumbs", {}).update(images)
    for s in run_entry["samples"]:
        if s["id"] in per_sample:
            s["thumbs"] = per_sample[s["id"]]
    run_entry["view_notes"] = list(run_entry.get("view_notes") or []) + payload_notes(missing)
