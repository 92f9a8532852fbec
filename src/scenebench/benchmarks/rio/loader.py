"""Read 3RScan (real or written by :mod:`.writer`): the index, the per-scan files, the ground truth.

:class:`ThreeRScan` is the 3RScan root folder the scorer, the run source and the report use. It
combines :class:`.index.RioIndex` (``3RScan.json`` and ``objects.json``, parsed on construction) and
:class:`.scans.ScanFiles` (per-scan annotations and geometry, read lazily) and derives the
ground-truth samples of a rescan from both. See ``docs/protocols.md`` (RIO) for the conventions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.geometry.poses import is_identity, symmetry_order

from .index import (
    HIDDEN_SPLITS,
    INDEX_ROTATION_TOL,
    MM_THRESHOLD,
    SPLITS,
    STATIC_ROT_DEG,
    STATIC_TRANS_M,
    AmbiguityLink,
    ObjectInfo,
    Rescan,
    RigidEntry,
    RioIndex,
    Scene,
)
from .scans import ScanFiles

__all__ = [
    "HIDDEN_SPLITS",
    "SCOPES",
    "INDEX_ROTATION_TOL",
    "MM_THRESHOLD",
    "SPLITS",
    "STATIC_ROT_DEG",
    "STATIC_TRANS_M",
    "AmbiguityLink",
    "GroundTruthInstance",
    "ObjectInfo",
    "RigidEntry",
    "Rescan",
    "RioIndex",
    "ScanFiles",
    "Scene",
    "ThreeRScan",
    "check_scope",
]


@dataclass
class GroundTruthInstance:
    """One sample: a reference instance to re-localize in one rescan."""

    rescan: str
    scene: str
    instance: int
    label: str
    pose: np.ndarray  # (4, 4) true pose, reference -> rescan (reference frame)
    symmetry_order: int
    moved: bool
    centroid: np.ndarray  # (3,) reference frame
    centroid_source: str  # "obb" or "vertices"
    candidates: list[np.ndarray]  # own pose first, then poses that land it on interchangeable partners
    partners: list[int]
    excluded: str | None = None  # why it cannot be scored (e.g. "nonrigid"), None when scored

    @property
    def sample_id(self) -> str:
        return f"{self.rescan}/{self.instance}"


SCOPES = ("changed", "all")


def check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise InputError(None, f"got {scope!r}", field="scope", expected=" or ".join(SCOPES))
    return scope


class ThreeRScan(RioIndex, ScanFiles):
    """A 3RScan root folder: ``3RScan.json``, ``objects.json`` and one folder per scan."""

    def __init__(
        self,
        root: str | Path,
        *,
        units: str = "auto",
        symmetry_codes: Mapping[int, int] | None = None,
        index_path: str | Path | None = None,
        objects_path: str | Path | None = None,
    ) -> None:
        RioIndex.__init__(self, root, units=units, symmetry_codes=symmetry_codes, index_path=index_path, objects_path=objects_path)
        ScanFiles.__init__(self)

    def ground_truth(self, rescan: Rescan, scope: str = "changed") -> list[GroundTruthInstance]:
        """The samples of a rescan, sorted by reference instance id.

        ``scope="changed"`` (the protocol): the changed objects, i.e. the instances listed in
        ``rigid[]`` (scored) and in ``nonrigid`` (listed with ``excluded`` set: no rigid pose).
        Instances without an entry are static and are not samples: scoring them would let
        "nothing moved" pass the benchmark.

        ``scope="all"`` (a diagnostic): every reference instance the rescan keeps; an unlisted one
        is static with the identity as its true pose, and one the rescan's annotation does not
        contain is listed with ``excluded`` set. Removed instances are never samples.
        """
        check_scope(scope)
        ref = rescan.scene_id
        ref_ids = self.instance_ids(ref)
        if ref_ids is None:
            raise InputError(
                self.scan_dir(ref),
                "reference scan has neither an objects.json entry nor semseg.v2.json",
                expected="the reference's instance list",
            )
        present = self.instance_ids(rescan.scan_id)
        scene = self.scene_by_id[ref]
        poses: dict[int, np.ndarray] = {}
        for iid in ref_ids:
            if iid in rescan.removed or iid in rescan.nonrigid:
                continue
            poses[iid] = rescan.rigid[iid].transform if iid in rescan.rigid else np.eye(4)
        partners = self._partners(scene)
        out: list[GroundTruthInstance] = []
        for iid in sorted(ref_ids):
            if iid in rescan.removed:
                continue
            if scope == "changed" and iid not in rescan.rigid and iid not in rescan.nonrigid:
                continue
            code = self.symmetry_code(rescan, iid)
            order = symmetry_order(code, self.symmetry_codes)
            excluded = None
            if iid in rescan.nonrigid:
                excluded = "nonrigid (no rigid ground-truth pose)"
            elif present is not None and iid not in rescan.rigid and iid not in present:
                excluded = "not annotated in the rescan and not listed as removed"
            if excluded:
                out.append(
                    GroundTruthInstance(
                        rescan.scan_id, ref, iid, self.label(ref, iid), np.eye(4), order, False, np.zeros(3), "", [], [], excluded
                    )
                )
                continue
            pose = poses[iid]
            centroid, src = self.centroid(ref, iid)
            cands, pids = [pose], []
            for j, A in sorted(partners.get(iid, {}).items()):
                if j in poses:
                    cands.append(poses[j] @ A)
                    pids.append(j)
            moved = not bool(is_identity(pose, rot_tol_deg=STATIC_ROT_DEG, trans_tol_m=STATIC_TRANS_M))
            out.append(GroundTruthInstance(rescan.scan_id, ref, iid, self.label(ref, iid), pose, order, moved, centroid, src, cands, pids))
        return out

    def reference_instances(self) -> dict[str, set[int]]:
        """Reference instance ids per rescan (what a prediction may name), without reading geometry."""
        out = {}
        for r in self.rescans.values():
            ids = self.instance_ids(r.scene_id)
            out[r.scan_id] = ids if ids is not None else set()
        return out
