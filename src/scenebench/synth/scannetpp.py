"""ScanNet++-shaped object labels for a synthetic SURPRISE3D scene: ``<scene_id>/scans/segments_anno.json``.

Real SURPRISE3D scenes come from ScanNet++, whose ``segments_anno.json`` names every annotated
instance (``segGroups[].id`` = the ``sampled_instance_anno_id`` of the preprocessed scene). The
preprocessed ``.pth`` keeps only ids, so a model that wants labels reads them from ScanNet++; the
generator writes the same file so label-reading baselines see synthetic scenes as they would see
real ones. Labels are scene content, not the answer: the question never names its target, and the
target's ``object_name`` stays hidden.

Fields per group, as in ScanNet++: ``id`` and ``objectId`` (the instance id), ``label`` (the object
category, the same vocabulary as the annotations' ``object_name``; ``wall`` / ``floor`` /
``ceiling`` for structure), ``segments`` (the instance's superpoint ids: synthetic scenes have no
mesh segmentation, and their superpoints are the segments of this file) and ``obb`` (``centroid``,
``axesLengths``, ``normalizedAxes`` row-major 3x3; axis aligned here, from the instance's points,
z up, metres).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SEGMENTS_ANNO = "segments_anno.json"
FOLDER = "scannetpp"  # OUT/surprise3d/scannetpp/<scene_id>/scans/segments_anno.json
_IDENTITY = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]


def segments_anno(
    scene_id: str, coords: np.ndarray, instance: np.ndarray, superpoints: np.ndarray, label_of: Callable[[int], str]
) -> dict[str, Any]:
    """The ``segments_anno.json`` document of one scene.

    Args:
        coords: (N, 3) float, z up, metres. instance: (N,) int, -1 = unannotated.
        superpoints: (N,) int superpoint id per point. label_of: instance id -> label.
    Returns:
        ``{"sceneId", "segGroups": [{id, objectId, label, segments, obb}]}`` in increasing id order.
    """
    inst = np.asarray(instance).reshape(-1)
    keep = np.flatnonzero(inst >= 0)
    groups: list[dict[str, Any]] = []
    if keep.size:
        order = keep[np.argsort(inst[keep], kind="stable")]
        ids, starts = np.unique(inst[order], return_index=True)
        pts = np.asarray(coords, float)[order]
        lo = np.minimum.reduceat(pts, starts, axis=0)
        hi = np.maximum.reduceat(pts, starts, axis=0)
        # unique (instance, superpoint) pairs, sorted by instance then superpoint: one split per instance
        pairs = np.unique(np.stack([inst[keep].astype(np.int64), np.asarray(superpoints).reshape(-1)[keep].astype(np.int64)], 1), axis=0)
        seg_lists = np.split(pairs[:, 1], np.flatnonzero(np.diff(pairs[:, 0])) + 1)
        for i, a, b, segs in zip(ids.tolist(), lo, hi, seg_lists):
            groups.append(
                {
                    "id": int(i),
                    "objectId": int(i),
                    "label": label_of(int(i)),
                    "segments": segs.tolist(),
                    "obb": {"centroid": _r((a + b) / 2), "axesLengths": _r(b - a), "normalizedAxes": list(_IDENTITY)},
                }
            )
    return {"sceneId": scene_id, "segGroups": groups}


def _r(v: np.ndarray) -> list[float]:
    return [round(float(x), 4) for x in v]


__all__ = ["FOLDER", "SEGMENTS_ANNO", "segments_anno"]
