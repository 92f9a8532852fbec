"""Geometric heuristics: what simple, explainable rules score, between chance and a real model.

``baseline:nearest`` (scene-graph rules) reads the scene's object list (labels and boxes) and the
question's words:

- grounding (box): the object whose label the query names first; when several objects carry
  that label and the query names a second category (the anchor), the candidate nearest to an anchor
  object;
- segmentation (mask, SURPRISE3D): questions never name their target, so a category the query
  names is the anchor and the target category comes from the blind prior's word statistics
  (``fit``), chosen among the scene's labels that the query does not name; of several candidates,
  the one nearest to an anchor object;
- counting: the number of listed objects with the named label, mapped to the nearest option;
- position relation: the 3DBench direction rule applied to the two named objects' centres
  (0.5 m threshold; left = smaller x, front = larger z as in the synthetic houses), then the option
  that states that relation;
- detection: the boxes of every listed object whose label the query names;
- navigation: a straight path (a point every 1.5 m) from the start to the nearest object of the
  target category;
- RIO re-localization: translation-only nearest-surface alignment (``translate_onto``) of the
  reference instance's points to the rescan cloud without its floor, starting from "nothing moved":
  ICP steps, each moving the instance horizontally by the mean offset to its nearest rescan points
  within a shrinking radius (0.3, 0.2, 0.1 m; at most 10 steps each). No rotation: a turned object is found only when the
  turn is under the 10 (20) degree threshold;
- anything else (classification of an object cloud, room detection, captions): the blind prior's
  answer, so the table shows exactly where the rules add something.

``baseline:cluster`` uses geometry only, no labels: it removes the floor and ceiling bands, cuts
the cloud into connected components on a voxel grid (one ``scipy.ndimage.label`` call), drops
wall-sized components, and then

- names each cluster by the nearest train size prototype (sorted extents per label, learned from
  the train split's labelled boxes) for counting, detection and grounding;
- re-localizes a RIO instance: when 70% of its reference points still have rescan surface within
  5 cm it stays (identity); otherwise it moves (translation only) onto the rescan cluster whose
  size matches best near its old place;
- segments a SURPRISE3D target (mask): the target category is guessed from the question's words
  as ``baseline:labels`` does, but instead of every instance of that label it predicts one
  connected component of the label's points (``split_components``: the points carrying that
  ground-truth label, on the same voxel grid, 26-connected; instance ids are not used): the
  component nearest to an anchor object (a category the question names) or, when the question
  names none, the largest. Where several instances share the target label it answers one blob
  instead of their union, so its numbers differ from ``baseline:labels`` by that split;
- falls back to the blind prior elsewhere (and when there is no train split to name clusters).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import numpy as np

from scenebench.models.base import ModelSample, SceneBatch, SceneObject
from scenebench.models.builtin.labels import LabelsModel
from scenebench.models.builtin.prior import mentions
from scenebench.models.predictions import (
    BoxesPrediction,
    BoxPrediction,
    LabelledBox,
    MaskPrediction,
    PosePrediction,
    Prediction,
    WaypointsPrediction,
    option_prediction,
)

_WORD = re.compile(r"[a-z0-9]+")
RELATION_THRESHOLD = 0.5  # metres, the 3DBench direction rule
STATIC_DISTANCE = 0.05  # metres: a reference point with rescan surface this close is still "there"
STATIC_COVERAGE = 0.7  # share of an instance's points that must still be there to keep it in place
FLOOR_BAND = 0.05  # metres above the lowest rescan point treated as floor when aligning
ALIGN_RADII = (0.3, 0.2, 0.1)  # metres: nearest-surface search radius of each alignment stage
ALIGN_STEPS = 10  # ICP steps per stage at most


def mention_order(query: str, labels: set[str]) -> list[str]:
    """Labels named in ``query``, in order of first mention (whole words; ``diningtable`` = "dining table")."""
    toks = _WORD.findall(query.lower())
    found: dict[str, int] = {}
    for lab in labels:
        target = "".join(_WORD.findall(lab.lower()))
        if not target:
            continue
        forms = {target, target + "s", target + "es"}
        for i in range(len(toks)):
            if any("".join(toks[i : i + n]) in forms for n in (1, 2, 3)):
                found[lab] = i
                break
    # Longer labels first at equal positions: "coffee table" should win over "table".
    return sorted(found, key=lambda lab: (found[lab], -len(lab), lab))


def centre(obj: SceneObject) -> np.ndarray:
    return np.asarray(obj.box[:3], float)


def direction_words(a: np.ndarray, b: np.ndarray, threshold: float = RELATION_THRESHOLD) -> set[str] | None:
    """Relation words of A relative to B by 3DBench's 0.5 m rule (y up, world x/z); None when no rule fires.

    above/below: |dy| > t with both horizontal offsets < t; left/right: |dx| > t and |dz| < t;
    front/behind: |dz| > t and |dx| < t; diagonal: both |dx| and |dz| > t (two words). Signs follow
    scenebench's synthetic houses (``scenebench.synth.relations``): left = smaller x, front = larger z.
    """
    dx, dy, dz = (float(v) for v in (np.asarray(a, float) - np.asarray(b, float))[:3])
    ax, ay, az = abs(dx), abs(dy), abs(dz)
    lr = "right" if dx > 0 else "left"
    fb = "front" if dz > 0 else "behind"
    if ay > threshold and ax < threshold and az < threshold:
        return {"above" if dy > 0 else "below"}
    if ax > threshold and az < threshold:
        return {lr}
    if az > threshold and ax < threshold:
        return {fb}
    if ax > threshold and az > threshold:
        return {lr, fb}
    return None


def option_with_words(options: tuple[str, ...], wanted: set[str]) -> int | None:
    """The single option whose words contain every wanted relation word and no other direction word."""
    directions = {"left", "right", "front", "behind", "above", "below"}
    hits = []
    for i, o in enumerate(options):
        ws = set(_WORD.findall(o.lower()))
        if wanted <= ws and not ((ws & directions) - wanted):
            hits.append(i)
    return hits[0] if len(hits) == 1 else None


def straight_path(start: np.ndarray, goal: np.ndarray, step: float = 1.5) -> np.ndarray:
    """(K, 2) points every ``step`` metres from ``start`` to ``goal`` (both included).

    The spacing is a compromise forced by 3DBench's path loss, which sums, over the longer of the two
    lists, each point's distance to the nearest point of the other: too few points are penalised for
    every GT waypoint in between, too many for each extra point.
    """
    n = max(1, int(np.ceil(np.linalg.norm(goal - start) / step)))
    return start + np.linspace(0.0, 1.0, n + 1)[:, None] * (goal - start)


def nearest_option(options: tuple[str, ...], value: float) -> int | None:
    nums = []
    for o in options:
        try:
            nums.append(float(o))
        except ValueError:
            return None
    return int(np.argmin(np.abs(np.asarray(nums) - value))) if nums else None


def translate_onto(
    ref: np.ndarray, tree: Any, surface: np.ndarray, up: int, radii: tuple[float, ...] = ALIGN_RADII, steps: int = ALIGN_STEPS
) -> np.ndarray:
    """Horizontal translation (3,) moving the points ``ref`` onto the surface ``surface`` (indexed by ``tree``).

    Point-to-point ICP restricted to a translation: each step matches every moved point to its
    nearest surface point within the stage's radius and moves by the mean offset, up to ``steps``
    steps per radius (fewer once a step is under 0.5 mm). The mean, not the median: on faces that
    slide along themselves most offsets are 0 and only the leading faces pull, so a median would
    never move. The vertical part stays 0 because objects rest where they were. A stage stops when
    under 10% of the points find surface (nothing to align to: the object left).
    """
    t = np.zeros(3)
    horiz = np.arange(3) != up
    for r in radii:
        for _ in range(steps):
            d, j = tree.query(ref + t, k=1, distance_upper_bound=r)
            ok = np.isfinite(d)
            if ok.sum() < max(3, 0.1 * len(ref)):
                break
            step = np.mean(surface[j[ok]] - (ref[ok] + t), axis=0)
            t[horiz] += step[horiz]
            if np.linalg.norm(step[horiz]) < 5e-4:
                break
    return t


class NearestObjectModel:
    name = "baseline:nearest"
    ground_truth_perception = True  # reads the ground-truth scene graph (labels, boxes, instances)

    def __init__(self, seed: int = 0) -> None:
        self.prior = LabelsModel(seed=seed)

    def settings(self) -> dict[str, Any]:
        return {
            "relation_threshold_m": RELATION_THRESHOLD,
            "align_radii_m": list(ALIGN_RADII),
            "align_steps": ALIGN_STEPS,
            "rules": 3,
        }  # rules: bumped when the rules change, so old runs restart

    def fit(self, train: list[tuple[ModelSample, Prediction]]) -> None:
        self.prior.fit(train)

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        objects = batch.scene.objects
        cache: dict[str, Any] = {}
        return [self._one(batch, s, objects, cache) or self.prior.answer(batch, s) for s in batch.samples]

    def _pose(self, batch: SceneBatch, s: ModelSample, cache: dict[str, Any]) -> Prediction | None:
        scene = batch.scene
        if not scene.has("reference_points") or "instance" not in s.inputs:
            return None
        up = int(scene.get("up_axis")) if scene.has("up_axis") else 2
        if "tree" not in cache:
            from scipy.spatial import cKDTree

            pts = np.asarray(scene.points, float)
            # Floor points lie under every object and would pin it in place: align to the rest.
            cache["floor"] = float(np.min(pts[:, up])) + FLOOR_BAND if len(pts) else 0.0
            cache["surface"] = pts[pts[:, up] > cache["floor"]]
            cache["tree"] = cKDTree(cache["surface"]) if len(cache["surface"]) else None
        ref = np.asarray(scene.get("reference_points"), float)[np.asarray(scene.get("reference_instance_ids")) == int(s.inputs["instance"])]
        ref = ref[ref[:, up] > cache["floor"]]
        if len(ref) == 0 or cache["tree"] is None:
            return None
        pose = np.eye(4)
        pose[:3, 3] = translate_onto(ref, cache["tree"], cache["surface"], up)
        return PosePrediction(s.sample_id, pose=pose.tolist())

    def _one(self, batch: SceneBatch, s: ModelSample, objects: list[SceneObject], cache: dict[str, Any]) -> Prediction | None:
        if s.answer_kind == "pose":
            return self._pose(batch, s, cache)
        if not objects:
            return None
        labels = {o.label for o in objects}
        named = mention_order(s.query, labels)
        kind, sid = s.answer_kind, s.sample_id
        if kind in ("box", "mask"):
            if kind == "mask":  # SURPRISE3D never names its target: a named category is the anchor
                target = self.prior.guess_label(s.query, among=labels - set(named))
                anchor = named[0] if named else None
            else:
                target = named[0] if named else self.prior.guess_label(s.query)
                anchor = named[1] if len(named) > 1 else None
            cands = [o for o in objects if o.label == target]
            if not cands:
                return None
            anchors = [o for o in objects if anchor is not None and o.label == anchor]
            if len(cands) > 1 and anchors:
                a = np.stack([centre(o) for o in anchors])
                d = [float(np.min(np.linalg.norm(a - centre(c), axis=1))) for c in cands]
                pick = cands[int(np.argmin(d))]
            else:
                pick = cands[0]
            if kind == "box":
                return BoxPrediction(sid, box=list(pick.box))
            return None if pick.point_indices is None else MaskPrediction(sid, indices=np.asarray(pick.point_indices).tolist())
        if kind == "option" and s.options:
            if s.task == "counting" and named:
                i = nearest_option(s.options, sum(o.label == named[0] for o in objects))
                return None if i is None else option_prediction(sid, s.options, i)
            if s.task == "position_relation" and len(named) >= 2:
                a = [o for o in objects if o.label == named[0]]
                b = [o for o in objects if o.label == named[1]]
                if len(a) == 1 and len(b) == 1:
                    words = direction_words(centre(a[0]), centre(b[0]))
                    i = option_with_words(s.options, words) if words else None
                    return None if i is None else option_prediction(sid, s.options, i)
            return None
        if kind == "boxes" and s.task != "room_detection" and named:
            wanted = set(named)
            return BoxesPrediction(sid, boxes=[LabelledBox(o.label, list(o.box)) for o in objects if o.label in wanted])
        if kind == "waypoints":
            target = s.inputs.get("target") or (named[0] if named else None)
            cands = [o for o in objects if target is not None and (o.label == target or mentions(str(target), o.label))]
            if not cands or "start" not in s.inputs:
                return None
            start = np.asarray(s.inputs["start"], float)
            goals = np.stack([centre(o)[[0, 2]] for o in cands])
            goal = goals[int(np.argmin(np.linalg.norm(goals - start, axis=1)))]
            return WaypointsPrediction(sid, points=straight_path(start, goal).tolist())
        return None


def cluster_cloud(
    points: np.ndarray,
    up: int = 2,
    voxel: float = 0.1,
    band: float = 0.08,
    min_points: int = 20,
    max_extent: float = 3.0,
    wall_fill: float = 0.85,
) -> list[tuple[np.ndarray, list[float]]]:
    """Connected components of an occupancy grid, floor/ceiling bands, walls and wall-sized parts removed.

    Args:
        points: (N, 3) metres. up: index of the vertical axis. voxel: grid cell (m). band: height of the
        floor and ceiling slabs dropped (m). min_points: smaller components are noise.
        max_extent: components wider than this horizontally (m) are structure (walls, floors).
        wall_fill: a vertical column of cells filled over more than this share of the height is wall.
    Returns:
        ``[(point indices (K,), centre-size box [cx, cy, cz, dx, dy, dz])]``, largest first.
    """
    from scipy import ndimage

    pts = np.asarray(points, float)
    if len(pts) == 0:
        return []
    h = pts[:, up]
    keep = np.flatnonzero((h > h.min() + band) & (h < h.max() - band))
    if keep.size == 0:
        return []
    cells = np.floor((pts[keep] - pts[keep].min(axis=0)) / voxel).astype(np.int64)
    grid = np.zeros(cells.max(axis=0) + 1, dtype=bool)
    grid[tuple(cells.T)] = True
    # Walls touch most furniture and would join everything into one component: drop every column
    # occupied over more than ``wall_fill`` of the room height (furniture is shorter than that).
    wall = grid.sum(axis=up) > wall_fill * grid.shape[up]
    grid &= ~np.expand_dims(wall, up)
    on = grid[tuple(cells.T)]
    keep, cells = keep[on], cells[on]
    if keep.size == 0:
        return []
    lab, _ = ndimage.label(grid, structure=np.ones((3, 3, 3), bool))
    point_lab = lab[tuple(cells.T)]
    order = np.argsort(point_lab, kind="stable")
    uniq, starts, counts = np.unique(point_lab[order], return_index=True, return_counts=True)
    out = []
    horiz = [i for i in range(3) if i != up]
    for _comp, st, n in zip(uniq, starts, counts):
        if n < min_points:
            continue
        idx = keep[order[st : st + n]]
        p = pts[idx]
        lo, hi = p.min(axis=0), p.max(axis=0)
        if max(hi[horiz] - lo[horiz]) > max_extent:
            continue
        out.append((idx, [*((lo + hi) / 2).tolist(), *(hi - lo).tolist()]))
    out.sort(key=lambda c: -len(c[0]))
    return out


def split_components(points: np.ndarray, idx: np.ndarray, voxel: float = 0.1, min_points: int = 10) -> list[np.ndarray]:
    """The points ``idx`` of ``points`` split into connected components of their voxel grid (26-connected).

    Returns index arrays into ``points``, largest first (ties: lowest first index); components with
    fewer than ``min_points`` points are noise and dropped unless nothing else is left.
    """
    from scipy import ndimage

    idx = np.asarray(idx, np.int64)
    if idx.size == 0:
        return []
    p = np.asarray(points, float)[idx]
    cells = np.floor((p - p.min(axis=0)) / voxel).astype(np.int64)
    grid = np.zeros(cells.max(axis=0) + 1, dtype=bool)
    grid[tuple(cells.T)] = True
    lab, _ = ndimage.label(grid, structure=np.ones((3, 3, 3), bool))
    point_lab = lab[tuple(cells.T)]
    order = np.argsort(point_lab, kind="stable")
    _, starts, counts = np.unique(point_lab[order], return_index=True, return_counts=True)
    comps = [np.sort(idx[order[st : st + n]]) for st, n in zip(starts, counts)]
    big = [c for c in comps if len(c) >= min_points]
    comps = big or comps
    comps.sort(key=lambda c: (-len(c), int(c[0])))
    return comps


class ClusterModel:
    name = "baseline:cluster"
    ground_truth_perception = True  # names clusters with ground-truth labels

    def __init__(self, seed: int = 0, voxel: float = 0.1) -> None:
        self.prior = LabelsModel(seed=seed)
        self.voxel = float(voxel)
        self.prototypes: dict[str, np.ndarray] = {}

    def settings(self) -> dict[str, Any]:
        return {"voxel": self.voxel, "mask": "components"}  # mask: SURPRISE3D masks are label components, not the labels answer

    def fit(self, train: list[tuple[ModelSample, Prediction]]) -> None:
        self.prior.fit(train)
        sizes: dict[str, list[np.ndarray]] = defaultdict(list)
        for s, a in train:
            if a.kind == "boxes" and s.task != "room_detection":
                for b in a.boxes:  # type: ignore[attr-defined]
                    sizes[b.label].append(np.sort(np.asarray(b.box[3:], float)))
            elif a.kind == "box" and getattr(a, "label", None):
                sizes[a.label].append(np.sort(np.asarray(a.box[3:], float)))  # type: ignore[attr-defined]
        self.prototypes = {lab: np.median(np.stack(v), axis=0) for lab, v in sizes.items()}

    def name_clusters(self, clusters: list[tuple[np.ndarray, list[float]]]) -> list[str]:
        """Nearest prototype in log-size space (scale-free: a 10 cm error matters more on a cup than a bed)."""
        if not clusters or not self.prototypes:
            return []
        labs = sorted(self.prototypes)
        protos = np.log(np.maximum(np.stack([self.prototypes[x] for x in labs]), 1e-3))
        sizes = np.log(np.maximum(np.stack([np.sort(np.asarray(b[3:])) for _, b in clusters]), 1e-3))
        d = np.linalg.norm(sizes[:, None, :] - protos[None, :, :], axis=2)
        return [labs[i] for i in np.argmin(d, axis=1)]

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        scene = batch.scene
        up = int(scene.get("up_axis")) if scene.has("up_axis") else 2
        cache: dict[str, Any] = {}

        def clusters() -> list[tuple[np.ndarray, list[float]]]:
            if "c" not in cache:
                cache["c"] = cluster_cloud(scene.points, up=up, voxel=self.voxel)
                cache["names"] = self.name_clusters(cache["c"])
            return cache["c"]

        out = []
        for s in batch.samples:
            p = self._one(batch, s, clusters, cache, up)
            out.append(p if p is not None else self.prior.answer(batch, s))
        return out

    def _one(self, batch: SceneBatch, s: ModelSample, clusters: Any, cache: dict[str, Any], up: int) -> Prediction | None:
        kind, sid = s.answer_kind, s.sample_id
        if kind == "pose":
            return self._pose(batch, s, clusters(), up, cache)
        if kind == "mask":
            return self._mask(batch, s)
        if not self.prototypes or kind not in ("option", "boxes", "box") or s.task == "room_detection":
            return None
        named = mention_order(s.query, set(self.prototypes))
        if not named:
            return None
        cl = clusters()
        names = cache["names"]
        if kind == "option" and s.task == "counting":
            i = nearest_option(s.options, sum(n == named[0] for n in names))
            return None if i is None else option_prediction(sid, s.options, i)
        if kind == "boxes":
            return BoxesPrediction(sid, boxes=[LabelledBox(n, b) for (_, b), n in zip(cl, names) if n in set(named)])
        if kind == "box":
            hits = [b for (_, b), n in zip(cl, names) if n == named[0]]
            return BoxPrediction(sid, box=hits[0]) if hits else None
        return None

    def _mask(self, batch: SceneBatch, s: ModelSample) -> Prediction | None:
        objs = [o for o in batch.scene.objects if o.point_indices is not None]
        target = self.prior.guess_label(s.query, among={o.label for o in objs})
        hits = [o for o in objs if o.label == target]
        if not hits:
            return None
        idx = np.unique(np.concatenate([np.asarray(o.point_indices, np.int64) for o in hits]))
        comps = split_components(batch.scene.points, idx, voxel=self.voxel)
        if not comps:
            return None
        named = [lab for lab in mention_order(s.query, {o.label for o in objs}) if lab != target]
        anchors = [centre(o) for o in objs if named and o.label == named[0]]
        pick = comps[0]
        if anchors and len(comps) > 1:
            pts = np.asarray(batch.scene.points, float)
            a = np.stack(anchors)
            d = [float(np.min(np.linalg.norm(a - pts[c].mean(axis=0), axis=1))) for c in comps]
            pick = comps[int(np.argmin(d))]
        return MaskPrediction(s.sample_id, indices=pick.tolist())

    def _pose(
        self, batch: SceneBatch, s: ModelSample, cl: list[tuple[np.ndarray, list[float]]], up: int, cache: dict[str, Any]
    ) -> Prediction | None:
        scene = batch.scene
        if not cl or not scene.has("reference_points"):
            return None
        ref = np.asarray(scene.get("reference_points"), float)[np.asarray(scene.get("reference_instance_ids")) == int(s.inputs["instance"])]
        if len(ref) == 0:
            return None
        from scipy.spatial import cKDTree

        if "tree" not in cache:
            cache["tree"] = cKDTree(np.asarray(scene.points, float))
        near, _ = cache["tree"].query(ref, k=1, distance_upper_bound=STATIC_DISTANCE)
        if np.mean(np.isfinite(near)) >= STATIC_COVERAGE:
            return PosePrediction(s.sample_id, pose=np.eye(4).tolist())  # the rescan still has surface where the object was
        lo, hi = ref.min(axis=0), ref.max(axis=0)
        c0, size = (lo + hi) / 2, np.sort(hi - lo)
        boxes = np.asarray([b for _, b in cl], float)
        size_d = np.linalg.norm(np.log(np.maximum(np.sort(boxes[:, 3:], axis=1), 1e-3)) - np.log(np.maximum(size, 1e-3)), axis=1)
        dist = np.linalg.norm(boxes[:, :3] - c0, axis=1)
        j = int(np.argmin(size_d + 0.1 * dist))
        pose = np.eye(4)
        pose[:3, 3] = boxes[j, :3] - c0
        pose[up, 3] = 0.0  # objects rest on the floor: keep the height
        return PosePrediction(s.sample_id, pose=pose.tolist())
