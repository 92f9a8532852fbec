"""Read 3RScan (real or written by :mod:`.writer`): the index, the per-scan files, the ground truth.

:class:`ThreeRScan` is the 3RScan root folder the scorer, the run source and the report use. It
combines :class:`.index.RioIndex` (``3RScan.json`` and ``objects.json``, parsed on construction) and
:class:`.scans.ScanFiles` (per-scan annotations and geometry, read lazily) and derives the
ground-truth samples of a rescan from both. See ``docs/protocols.md`` (RIO) for the conventions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.geometry.poses import is_identity, symmetry_class_name, symmetry_order
from scenebench.io.files import read_json
from scenebench.io.generated import MANIFEST, generate_root, require_finished

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
from .writer import INDEX_NAME, OBJECTS_NAME

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
    "GroundTruthTable",
    "ObjectInfo",
    "RigidEntry",
    "Rescan",
    "RioIndex",
    "ScanFiles",
    "Scene",
    "ThreeRScan",
    "check_scope",
    "ground_truth_root",
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


@dataclass
class GroundTruthTable:
    """The samples of many rescans as columns (one entry per sample, in :meth:`ThreeRScan.ground_truth`
    order, rescan after rescan): what the scorer needs, without an object and a pose stack per
    sample. ``pose`` / ``centroid`` entries are ``None`` for excluded samples; ``partner_poses[i]``
    are the candidate poses after the own one (``pose[i]``), landing sample i on ``partners[i]``."""

    rescan: list[str] = field(default_factory=list)
    scene: list[str] = field(default_factory=list)
    instance: list[int] = field(default_factory=list)
    label: list[str] = field(default_factory=list)
    pose: list[np.ndarray | None] = field(default_factory=list)
    symmetry_order: list[int] = field(default_factory=list)
    moved: list[bool] = field(default_factory=list)
    centroid: list[Sequence[float] | np.ndarray | None] = field(default_factory=list)
    centroid_source: list[str] = field(default_factory=list)
    partners: list[list[int]] = field(default_factory=list)
    partner_poses: list[list[np.ndarray]] = field(default_factory=list)
    excluded: list[str | None] = field(default_factory=list)
    bounds: list[tuple[int, int]] = field(default_factory=list)  # [start, end) of each rescan's samples
    _group_columns: dict[str, list[str]] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.instance)

    def sample_id(self, i: int) -> str:
        return f"{self.rescan[i]}/{self.instance[i]}"

    def group_columns(self) -> dict[str, list[str]]:
        """:meth:`groups` of every sample, as columns (built once)."""
        if self._group_columns is None or len(self._group_columns["scene"]) != len(self):
            names = {o: symmetry_class_name(o) for o in set(self.symmetry_order)}
            motion = [
                ("moved" if m else "static") if ex is None else ("nonrigid" if ex.startswith("nonrigid") else "unannotated")
                for m, ex in zip(self.moved, self.excluded)
            ]
            self._group_columns = {
                "motion": motion,
                "label": [lb or "unknown" for lb in self.label],
                "symmetry": [names[o] for o in self.symmetry_order],
                "scene": list(self.scene),
            }
        return self._group_columns

    def groups(self, i: int) -> dict[str, str]:
        """The breakdown keys of sample i (as the scorer reports them)."""
        ex = self.excluded[i]
        if ex is None:
            motion = "moved" if self.moved[i] else "static"
        else:
            motion = "nonrigid" if ex.startswith("nonrigid") else "unannotated"
        return {
            "motion": motion,
            "label": self.label[i] or "unknown",
            "symmetry": symmetry_class_name(self.symmetry_order[i]),
            "scene": self.scene[i],
        }


SCOPES = ("changed", "all")


def check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise InputError(None, f"got {scope!r}", field="scope", expected=" or ".join(SCOPES))
    return scope


GT_TREE = ("gt", "3rscan")  # <data>/../gt/3rscan: the ground-truth tree of generated data


def ground_truth_root(root: str | Path, gt: str | Path | None = None) -> Path | None:
    """The ground-truth tree of the 3RScan folder ``root``: ``gt`` when given (it must exist), else
    ``<root>/../gt/3rscan`` when that folder exists, else None (released data: the truth is in ``root``).

    ``scenebench generate`` writes there what the real benchmark keeps hidden for the evaluated
    split: the full ``3RScan.json`` and ``objects.json`` (the model-facing ones hold no ``rigid``,
    ``nonrigid``, ``removed`` lists and no rescan object lists for that split) and the evaluated
    rescans' label files."""
    if gt is not None:
        g = Path(gt)
        if not g.is_dir():
            raise InputError(g, "ground-truth folder does not exist", field="gt", expected="a folder holding 3RScan.json")
        return g
    cand = Path(root).parent.joinpath(*GT_TREE)
    if cand.is_dir():
        return cand
    out = generate_root(root)
    if out is not None and (out / MANIFEST).is_file():
        listed = read_json(out / MANIFEST, what="generate manifest").get("aggregated", {})
        if "/".join((*GT_TREE, INDEX_NAME)) in listed:  # the folder was copied without its answers
            raise InputError(
                root,
                f"is generated data whose evaluated-split ground truth was written to {'/'.join(GT_TREE)} beside it, "
                "and that folder is not there",
                field="gt",
                expected="--gt pointing at the ground-truth tree, or the tree at <data>/../gt/3rscan",
            )
    return None


class ThreeRScan(RioIndex, ScanFiles):
    """A 3RScan root folder: ``3RScan.json``, ``objects.json`` and one folder per scan, with the
    ground truth read from :func:`ground_truth_root` when there is such a tree (``index_path`` and
    ``objects_path``, when given, win over the tree's files)."""

    def __init__(
        self,
        root: str | Path,
        *,
        units: str = "auto",
        symmetry_codes: Mapping[int, int] | None = None,
        index_path: str | Path | None = None,
        objects_path: str | Path | None = None,
        split: str | None = None,
        gt: str | Path | None = None,
    ) -> None:
        g = ground_truth_root(root, gt)
        if g is not None:
            require_finished(g)
            if index_path is None and (g / INDEX_NAME).is_file():
                index_path = g / INDEX_NAME
            if objects_path is None and (g / OBJECTS_NAME).is_file():
                objects_path = g / OBJECTS_NAME
        RioIndex.__init__(
            self, root, units=units, symmetry_codes=symmetry_codes, index_path=index_path, objects_path=objects_path, split=split
        )
        ScanFiles.__init__(self, g)

    def roots(self) -> dict[str, dict[str, str]]:
        """For a run's inputs when a ground-truth tree is read: the scan folder and the tree, so a
        report finds the scans (the recorded index is then the tree's); {} for released data."""
        if self.gt_root is None:
            return {}
        return {"data_root": {"path": str(self.root)}, "gt_root": {"path": str(self.gt_root)}}

    def ground_truth(self, rescan: Rescan, scope: str = "changed") -> list[GroundTruthInstance]:
        """The samples of a rescan, sorted by reference instance id (its :meth:`ground_truth_table` as objects).

        ``scope="changed"`` (the protocol): the changed objects, i.e. the instances listed in
        ``rigid[]`` (scored) and in ``nonrigid`` (listed with ``excluded`` set: no rigid pose).
        Instances without an entry are static and are not samples: scoring them would let
        "nothing moved" pass the benchmark.

        ``scope="all"`` (a diagnostic): every reference instance the rescan keeps; an unlisted one
        is static with the identity as its true pose, and one the rescan's annotation does not
        contain is listed with ``excluded`` set. Removed instances are never samples.
        """
        t = self.ground_truth_table([rescan], scope)
        out: list[GroundTruthInstance] = []
        for i in range(len(t)):
            head = (t.rescan[i], t.scene[i], t.instance[i], t.label[i])
            excluded, pose, order = t.excluded[i], t.pose[i], t.symmetry_order[i]
            if excluded is not None or pose is None:
                out.append(GroundTruthInstance(*head, np.eye(4), order, False, np.zeros(3), "", [], [], excluded))
                continue
            centroid = np.asarray(t.centroid[i], dtype=float)
            cands = [pose, *t.partner_poses[i]]
            out.append(GroundTruthInstance(*head, pose, order, t.moved[i], centroid, t.centroid_source[i], cands, t.partners[i]))
        return out

    def _reference_ids(self, ref: str) -> set[int]:
        """The instance ids of reference scan ``ref``; an InputError when it has no instance list."""
        ref_ids = self.instance_ids(ref)
        if ref_ids is None:
            raise InputError(
                self.scan_dir(ref),
                "reference scan has neither an objects.json entry nor semseg.v2.json",
                expected="the reference's instance list",
            )
        return ref_ids

    def ground_truth_table(self, rescans: Sequence[Rescan], scope: str = "changed") -> GroundTruthTable:
        """The samples of ``rescans`` as columns (tests compare them with a reference written object
        by object): the obb centroids are taken from the semseg records (checked when read),
        ``moved`` is decided for all poses in one array call."""
        check_scope(scope)
        t = GroundTruthTable()
        eye = np.eye(4)
        scored: list[int] = []  # rows whose ``moved`` is decided below, in one call
        partners_of: dict[str, dict[int, dict[int, np.ndarray]]] = {}
        for rescan in rescans:
            start = len(t.instance)
            ref = rescan.scene_id
            ref_ids = self._reference_ids(ref)
            present = self.instance_ids(rescan.scan_id)
            rigid, nonrigid, removed = rescan.rigid, rescan.nonrigid, rescan.removed
            if ref not in partners_of:
                partners_of[ref] = self._partners(self.scene_by_id[ref])
            partners = partners_of[ref]
            sem: Mapping[int, Sequence[float] | None] | None = None
            objs = self.objects.get(ref, {})
            for iid in sorted(ref_ids):
                if iid in removed:
                    continue
                in_rigid = iid in rigid
                if scope == "changed" and not in_rigid and iid not in nonrigid:
                    continue
                order = symmetry_order(self.symmetry_code(rescan, iid), self.symmetry_codes)
                o = objs.get(iid)
                label = o.label if o is not None and o.label else self.label(ref, iid)
                excluded = None
                if iid in nonrigid:
                    excluded = "nonrigid (no rigid ground-truth pose)"
                elif present is not None and not in_rigid and iid not in present:
                    excluded = "not annotated in the rescan and not listed as removed"
                t.rescan.append(rescan.scan_id)
                t.scene.append(ref)
                t.instance.append(iid)
                t.label.append(label)
                t.symmetry_order.append(order)
                t.excluded.append(excluded)
                if excluded:
                    t.pose.append(None)
                    t.moved.append(False)
                    t.centroid.append(None)
                    t.centroid_source.append("")
                    t.partners.append([])
                    t.partner_poses.append([])
                    continue
                t.pose.append(rigid[iid].transform if in_rigid else eye)
                if sem is None:
                    sem = self.obb_centroids(ref)
                obb = sem.get(iid)
                if obb is not None:
                    t.centroid.append(obb)  # 3 finite numbers: checked when read
                    t.centroid_source.append("obb")
                else:
                    c, src = self.centroid(ref, iid)
                    t.centroid.append(c)
                    t.centroid_source.append(src)
                pids: list[int] = []
                cands: list[np.ndarray] = []
                mine = partners.get(iid)
                if mine:
                    for j, A in sorted(mine.items()):
                        if j in ref_ids and j not in removed and j not in nonrigid:  # j has a pose
                            cands.append((rigid[j].transform if j in rigid else eye) @ A)
                            pids.append(j)
                t.partners.append(pids)
                t.partner_poses.append(cands)
                t.moved.append(False)
                scored.append(len(t.instance) - 1)
            t.bounds.append((start, len(t.instance)))
        if scored:
            P = np.stack([t.pose[i] for i in scored])  # type: ignore[misc]
            still = is_identity(P, rot_tol_deg=STATIC_ROT_DEG, trans_tol_m=STATIC_TRANS_M).tolist()
            for i, s in zip(scored, still):
                t.moved[i] = not s
        return t

    def reference_instances(self) -> dict[str, set[int]]:
        """Reference instance ids per rescan (what a prediction may name), without reading geometry."""
        out = {}
        for r in self.rescans.values():
            ids = self.instance_ids(r.scene_id)
            out[r.scan_id] = ids if ids is not None else set()
        return out
