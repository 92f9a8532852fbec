"""Candidate segments for set-of-marks prompting, and reading mark numbers back from a reply.

Candidates come from a class-agnostic over-segmentation of the scene's own points (``method``):

- ``colour`` (default): the ``baseline:cluster`` recipe extended with colour. Floor and ceiling
  bands are dropped as there, the rest goes on a voxel grid (``voxel``), each occupied voxel gets
  its points' mean colour, and two touching voxels (26-neighbourhood) join only when their colours
  differ by less than ``colour_step`` (Euclidean RGB in [0, 1]). Connected components of that
  graph (one ``scipy.sparse.csgraph`` call) wider than ``max_extent`` horizontally (walls, floors)
  are dropped. Objects touching each other but coloured differently (a sofa and its side table), and
  tall ones that the wall-column rule would drop (a fridge), become their own candidates.
- ``components``: exactly ``baseline:cluster``'s segments
  (:func:`scenebench.models.builtin.heuristics.cluster_cloud`: walls and wall-sized parts removed,
  components of the occupancy grid, touching objects merged).

Segments are ordered largest first, at most ``max_marks``, each at least ``min_points`` points.
Mark ``k`` (1-based, as drawn) is segment ``k - 1``. No label and no ground truth is used, so the
best any model can do through the marks (pick the best mark for every question) is an upper bound
set by this segmentation: :func:`best_mark_masks` / :func:`best_mark_boxes` compute it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from scenebench.models.builtin.heuristics import cluster_cloud


@dataclass(frozen=True)
class SegmentSettings:
    method: str = "colour"  # "colour" or "components" (baseline:cluster's segments)
    voxel: float = 0.1  # metres, the grid of the connected components
    min_points: int = 20  # smaller components are noise
    max_marks: int = 60  # the largest segments get marks; the rest are not candidates
    colour_step: float = 0.15  # colour: largest RGB distance ([0, 1]) between joined neighbouring voxels
    max_extent: float = 3.0  # colour: components wider than this (m) are structure (walls, floors)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Segmentation:
    """``indices[k]``: point indices of segment k (mark k + 1); ``boxes[k]``: its centre-size box."""

    indices: list[np.ndarray]
    boxes: list[list[float]]
    n_points: int

    def __len__(self) -> int:
        return len(self.indices)

    def labels(self) -> np.ndarray:
        """(N,) segment of every point, -1 for points in no segment."""
        out = np.full(self.n_points, -1, np.int64)
        for k, idx in enumerate(self.indices):
            out[idx] = k
        return out

    def mask(self, marks: list[int]) -> np.ndarray:
        """Sorted point indices of the union of the given marks (1-based)."""
        parts = [self.indices[m - 1] for m in marks if 1 <= m <= len(self.indices)]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Plain arrays for the on-disk cache (``np.savez``; read back without pickles)."""
        return {"labels": self.labels(), "boxes": np.asarray(self.boxes, float).reshape(-1, 6)}

    @classmethod
    def from_arrays(cls, labels: np.ndarray, boxes: np.ndarray) -> Segmentation:
        labels = np.asarray(labels, np.int64)
        n = len(boxes)
        order = np.argsort(labels, kind="stable")
        sorted_labels = labels[order]
        starts = np.searchsorted(sorted_labels, np.arange(n))
        ends = np.searchsorted(sorted_labels, np.arange(n), side="right")
        return cls([np.sort(order[a:b]) for a, b in zip(starts, ends)], [list(map(float, b)) for b in boxes], len(labels))


def over_segment(points: np.ndarray, up: int, s: SegmentSettings = SegmentSettings(), colors: np.ndarray | None = None) -> Segmentation:
    pts = np.asarray(points, float)
    if s.method == "components" or colors is None:
        clusters = cluster_cloud(pts, up=up, voxel=s.voxel, min_points=s.min_points)
    elif s.method == "colour":
        clusters = colour_components(pts, np.asarray(colors, float), up, s)
    else:
        raise ValueError(f"unknown segmentation method {s.method!r} (colour or components)")
    clusters = clusters[: s.max_marks]
    return Segmentation([np.asarray(i, np.int64) for i, _ in clusters], [list(b) for _, b in clusters], len(pts))


# The 13 "forward" offsets of the 26-neighbourhood: each undirected voxel pair is looked at once.
_OFFSETS = np.array([(i, j, k) for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1) if (i, j, k) > (0, 0, 0)], np.int64)


def colour_components(
    points: np.ndarray, colors: np.ndarray, up: int, s: SegmentSettings, band: float = 0.08
) -> list[tuple[np.ndarray, list[float]]]:
    """Colour-aware connected components on a voxel grid; ``[(point indices, centre-size box)]``, largest first."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if len(points) == 0:
        return []
    col = colors / 255.0 if colors.max(initial=0) > 1.0 else colors
    h = points[:, up]
    keep = np.flatnonzero((h > h.min() + band) & (h < h.max() - band))
    if keep.size == 0:
        return []
    cells = np.floor((points[keep] - points[keep].min(axis=0)) / s.voxel).astype(np.int64)
    dims = cells.max(axis=0) + 3
    key = ((cells[:, 0] + 1) * dims[1] + cells[:, 1] + 1) * dims[2] + cells[:, 2] + 1
    vox, point_vox = np.unique(key, return_inverse=True)
    n_vox = len(vox)
    count = np.bincount(point_vox, minlength=n_vox).astype(float)
    mean = np.stack([np.bincount(point_vox, weights=col[keep, c], minlength=n_vox) for c in range(3)], 1) / count[:, None]
    rows, cols = [], []
    for off in _OFFSETS:
        nb = vox + (off[0] * dims[1] + off[1]) * dims[2] + off[2]
        j = np.searchsorted(vox, nb)
        j = np.minimum(j, n_vox - 1)
        hit = vox[j] == nb
        a, b = np.flatnonzero(hit), j[hit]
        similar = np.linalg.norm(mean[a] - mean[b], axis=1) < s.colour_step
        rows.append(a[similar])
        cols.append(b[similar])
    r, c = np.concatenate(rows), np.concatenate(cols)
    graph = coo_matrix((np.ones(len(r), np.int8), (r, c)), shape=(n_vox, n_vox))
    _, vox_comp = connected_components(graph, directed=False)
    comp = vox_comp[point_vox]
    order = np.argsort(comp, kind="stable")
    _, starts, counts = np.unique(comp[order], return_index=True, return_counts=True)
    horiz = [i for i in range(3) if i != up]
    out = []
    for st, n in zip(starts, counts):
        if n < s.min_points:
            continue
        idx = keep[order[st : st + n]]
        p = points[idx]
        lo, hi = p.min(axis=0), p.max(axis=0)
        if max(hi[horiz] - lo[horiz]) > s.max_extent:
            continue
        out.append((np.sort(idx), [*((lo + hi) / 2).tolist(), *(hi - lo).tolist()]))
    out.sort(key=lambda x: -len(x[0]))
    return out


def best_mark_masks(seg: Segmentation, gt_masks: list[np.ndarray]) -> list[tuple[int | None, float]]:
    """For each GT point mask (boolean, N): the best single mark (1-based, None if no segment) and its IoU.

    One sparse overlap count per segment (``np.bincount`` over the GT points' segment labels): the
    mark oracle, i.e. the segmentation's upper bound for a model that answers with one mark.
    """
    labels = seg.labels()
    sizes = np.array([len(i) for i in seg.indices], float)
    out = []
    for gt in gt_masks:
        gt = np.asarray(gt, bool)
        if len(seg) == 0 or not gt.any():
            out.append((None, 0.0))
            continue
        lab = labels[gt]
        inter = np.bincount(lab[lab >= 0], minlength=len(seg)).astype(float)
        iou = inter / (sizes + gt.sum() - inter)
        k = int(np.argmax(iou))
        out.append((k + 1, float(iou[k])) if iou[k] > 0 else (None, 0.0))
    return out


def best_mark_boxes(seg: Segmentation, gt_boxes: list[list[float]]) -> list[tuple[int | None, float]]:
    """For each GT centre-size box: the mark whose segment box has the highest 3D IoU with it, and that IoU."""
    if len(seg) == 0:
        return [(None, 0.0) for _ in gt_boxes]
    b = np.asarray(seg.boxes, float)
    lo, hi = b[:, :3] - b[:, 3:] / 2, b[:, :3] + b[:, 3:] / 2
    out = []
    for g in gt_boxes:
        g = np.asarray(g, float)
        glo, ghi = g[:3] - g[3:] / 2, g[:3] + g[3:] / 2
        inter = np.prod(np.clip(np.minimum(hi, ghi) - np.maximum(lo, glo), 0, None), axis=1)
        union = np.prod(b[:, 3:], axis=1) + np.prod(g[3:]) - inter
        iou = inter / np.maximum(union, 1e-12)
        k = int(np.argmax(iou))
        out.append((k + 1, float(iou[k])) if iou[k] > 0 else (None, 0.0))
    return out


_MARK_RE = re.compile(r"\bmarks?\s*(?:number\s*)?((?:#?\s*\d+\s*(?:,|and|&|or|/)?\s*)+)", re.IGNORECASE)
_NUM_RE = re.compile(r"\d+")


def parse_marks(reply: str, n_marks: int) -> list[int]:
    """Mark numbers a reply names, in order, without repeats, limited to 1..n_marks.

    Numbers count when they follow the word "mark"/"marks" ("Mark 3", "Marks: 3, 7 and 9",
    "mark #4"); a reply that never says "mark" counts only when it is a lone number ("3").
    """
    text = reply.replace(":", " ")
    found: list[int] = []
    for m in _MARK_RE.finditer(text):
        found += [int(x) for x in _NUM_RE.findall(m.group(1))]
    if not found:
        bare = reply.strip().strip(".[]()# ")
        if bare.isdigit():
            found = [int(bare)]
    return [k for k in dict.fromkeys(found) if 1 <= k <= n_marks]


_LABELLED_RE = re.compile(r"([A-Za-z][A-Za-z _-]*?)\s*[:=-]\s*marks?\s*#?\s*((?:\d+\s*(?:,|and|&)?\s*)+)", re.IGNORECASE)


def parse_labelled_marks(reply: str, n_marks: int) -> list[tuple[str, int]]:
    """``label: Mark N`` entries of a reply (detection), as (label, mark) in order; marks outside 1..n dropped.

    ``chair: Mark 3, sofa: Marks 5 and 7`` -> [("chair", 3), ("sofa", 5), ("sofa", 7)].
    """
    out: list[tuple[str, int]] = []
    for m in _LABELLED_RE.finditer(reply):
        label = m.group(1).strip().lower()
        for k in (int(x) for x in _NUM_RE.findall(m.group(2))):
            if 1 <= k <= n_marks and (label, k) not in out:
                out.append((label, k))
    return out
