"""``OUT/ATTRIBUTION.json``: every library model a generated dataset uses, with its creator and licence.

CC-BY models must be credited wherever the data travels, so the file sits at the dataset's root and
is listed in the manifest with its checksum; the manifest also records each library's name, version,
licence and SHA-256 (never its path: the same libraries elsewhere give the same bytes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scenebench.io.files import atomic_write_json

ATTRIBUTION = "ATTRIBUTION.json"


def write_attribution(out: Path, assets: tuple[str, ...], summaries: list[dict[str, Any]]) -> tuple[Path, dict[str, Any]]:
    """Write the attribution file into ``out``; return its path and the manifest's ``assets`` entry."""
    from scenebench.synth.assets.furnish import furnisher_for

    f = furnisher_for(assets)
    assert f is not None
    libs = f.assets.manifest()
    used = sorted({k for sm in summaries for k in sm.get("assets", {}).get("models", [])})
    by_key = {m.key: m for m in f.assets.models}
    models = [
        {
            "id": k,
            "name": by_key[k].name,
            "category": by_key[k].category,
            "creator": by_key[k].creator,
            "licence": by_key[k].licence,
            "library": libs[by_key[k].library]["name"],
        }
        for k in used
    ]
    doc = {
        "note": "3D models used to build these scenes; credit their creators under the licences given.",
        "libraries": libs,
        "models": models,
    }
    path = out / ATTRIBUTION
    atomic_write_json(path, doc)
    objects = sum(sm.get("assets", {}).get("objects", 0) for sm in summaries)
    pts = sum(sm.get("assets", {}).get("object_points", 0) for sm in summaries)
    all_pts = sum(sm.get("assets", {}).get("all_object_points", 0) for sm in summaries)
    all_objects = sum(sm["n_objects"] for sm in summaries)
    entry = {
        "libraries": libs,
        "models_used": len(models),
        "objects_from_models": objects,
        "objects": all_objects,
        "object_points_from_models": pts,
        "object_points": all_pts,
        "attribution": ATTRIBUTION,
    }
    return path, entry
