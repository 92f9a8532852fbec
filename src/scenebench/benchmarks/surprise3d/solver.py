"""A sighted SURPRISE3D probe: the question's words, the scene's labelled instances **and their
points**, and a few geometric rules (``scenebench audit``, beside the labels-only probes).

It shows what a model that looks at the scene reaches with no learning beyond the category guess:
the target's category from the question (the audit's TF-IDF model), the objects the question names
(runs of its words that spell a label of the scene or name one, "side table" -> ``sidetable``,
"couch" -> ``sofa``: :data:`scenebench.vocabulary.NAME_LABELS`), then a rule per
question type on the instances' boxes (z up, metres):

- ``cs`` / ``hi``: among instances of every category that serves the stated use
  (:data:`scenebench.vocabulary.AFFORDANCES`; the guessed category when no use is found), the one on the named object ("on the
  ..."), else the one nearest it (surface gap); with no object named (a room), a seeded pick;
- ``rel_pos``: the object resting on the named one, the one it rests on ("standing on", "holds up",
  "underneath" ...), or the one nearest it;
- ``abs``: the object whose surface gap to the named one is closest to the stated distance;
- ``first_view``: standing at the first named object facing the second, the nearest object in the
  named 60-degree sector;
- ``camera_view``: the first object a ray from the stated pose meets (the nearest point within 3
  degrees of the optical axis).

Rooms are not in the scene files, so "in the kitchen" is not used. A named object with several
instances (its colour or room told them apart) is tried instance by instance: the best fit wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from scenebench.vocabulary import AFFORDANCES, NAME_LABELS, use_in

STRUCTURE = frozenset({"wall", "floor", "ceiling", "doorway", "window"})
_WORD = re.compile(r"[a-z]+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_UNDER = re.compile(
    r"standing on\?|holds up the|underneath|rests on\.|placed on something|below the|set down on\.|lying on\?|look under|on which the"
)
_NEAR = re.compile(r"closest|nearest|next to|neighbour|right by|beside|\bnear\b|close to|\bby the\b")
_SECTORS = (("left", 90.0), ("right", -90.0), ("behind", 180.0), ("back", 180.0), ("rear", 180.0), ("ahead", 0.0), ("front", 0.0))
SECTOR_HALF = 30.0  # degrees, as the generator's narrative sectors
RAY_DEGREES = 3.0  # the camera's central pixels subtend about this much
NAME_WORDS = 3  # the longest label spelled by a run of words


@dataclass
class SceneBoxes:
    """The object instances of a scene (structure left out): ids, labels, points and boxes."""

    ids: np.ndarray  # (K,)
    labels: list[str]
    lo: np.ndarray  # (K, 3)
    hi: np.ndarray  # (K, 3)
    points: list[np.ndarray]

    @classmethod
    def build(cls, coords: np.ndarray, instance: np.ndarray, labels: dict[int, str]) -> SceneBoxes:
        order = np.argsort(instance, kind="stable")
        inst, xyz = instance[order], coords[order]
        ids, starts = np.unique(inst, return_index=True)
        keep_ids, keep_labels, los, his, pts = [], [], [], [], []
        for i, a, b in zip(ids, starts, [*starts[1:], len(inst)]):
            label = labels.get(int(i))
            if i < 0 or label is None or label in STRUCTURE:
                continue
            p = xyz[a:b]
            keep_ids.append(int(i))
            keep_labels.append(label)
            los.append(p.min(0))
            his.append(p.max(0))
            pts.append(p)
        lo = np.array(los).reshape(-1, 3)
        return cls(np.array(keep_ids, np.int64), keep_labels, lo, np.array(his).reshape(-1, 3), pts)

    def gap(self, k: int) -> np.ndarray:
        """Surface gap (axis-aligned boxes) from instance ``k`` to every instance."""
        d = np.maximum(0.0, np.maximum(self.lo - self.hi[k], self.lo[k] - self.hi))
        return np.linalg.norm(d, axis=1)

    def of(self, label: str) -> list[int]:
        return [k for k, lab in enumerate(self.labels) if lab == label]


def named_labels(text: str, labels: set[str]) -> list[str]:
    """Labels of the scene the question spells, in order (runs of up to ``NAME_WORDS`` words joined)."""
    words = _WORD.findall(text.lower())
    out: list[str] = []
    i = 0
    while i < len(words):
        for k in range(min(NAME_WORDS, len(words) - i), 0, -1):
            name = "".join(words[i : i + k])
            name = name if name in labels else NAME_LABELS.get(name, name)  # "the couch" names ``sofa``
            if name in labels:
                out.append(name)
                i += k
                break
        else:
            i += 1
    return out


def _overlap_xy(s: SceneBoxes, a: int) -> np.ndarray:
    """Floor-plane overlap (m^2) of every box with box ``a``."""
    w = np.clip(np.minimum(s.hi[:, :2], s.hi[a, :2]) - np.maximum(s.lo[:, :2], s.lo[a, :2]), 0, None)
    return w[:, 0] * w[:, 1]


def _resting_on(s: SceneBoxes, a: int) -> np.ndarray:
    """Score of each instance resting on ``a`` (higher is better; -inf: not on it)."""
    score = _overlap_xy(s, a) - 10.0 * np.abs(s.lo[:, 2] - s.hi[a, 2])
    ok = (np.abs(s.lo[:, 2] - s.hi[a, 2]) < 0.15) & (_overlap_xy(s, a) > 0)
    ok[a] = False
    return np.where(ok, score, -np.inf)


def _under(s: SceneBoxes, a: int) -> np.ndarray:
    score = _overlap_xy(s, a) - 10.0 * np.abs(s.hi[:, 2] - s.lo[a, 2])
    ok = (np.abs(s.hi[:, 2] - s.lo[a, 2]) < 0.15) & (_overlap_xy(s, a) > 0)
    ok[a] = False
    return np.where(ok, score, -np.inf)


def _best(scores: list[np.ndarray]) -> int | None:
    """The instance with the highest score over every tried anchor instance (None: all -inf)."""
    best, at = -np.inf, None
    for sc in scores:
        if len(sc) and np.max(sc) > best:
            best, at = float(np.max(sc)), int(np.argmax(sc))
    return at


def _sector(text: str) -> float | None:
    low = text.lower()
    for word, ang in _SECTORS:
        if word in low:
            return ang
    return None


def solve(text: str, qtype: str, guess: str | None, s: SceneBoxes, rng: np.random.Generator) -> int | None:
    """The instance id the rules answer (None: no answer)."""
    if not len(s.ids):
        return None
    names = named_labels(text, set(s.labels))
    cands = s.of(guess) if guess else []
    use = use_in(text) if qtype in ("cs", "hi") else None
    if use:  # the use's words fit several categories: every instance of them is a candidate
        cands = [k for k, lab in enumerate(s.labels) if lab in AFFORDANCES[use]]
    anchors = [n for n in names if n != guess] or names
    k: int | None = None
    if qtype in ("cs", "hi"):
        if not cands:
            return None
        if anchors:
            a_inst = s.of(anchors[0])
            words = " ".join(_WORD.findall(text.lower()))
            on = re.search(r"\bon the (\w+ ){0,3}", words) is not None and not _NEAR.search(text.lower())
            mask = np.full(len(s.ids), -np.inf)
            mask[cands] = 0.0
            tried = [(_resting_on(s, a) if on else -s.gap(a)) + mask for a in a_inst]
            for a, sc in zip(a_inst, tried):
                sc[a] = -np.inf  # the named object is not its own answer (a group may hold its category)
            k = _best(tried)
        if k is None:
            k = cands[int(rng.integers(len(cands)))]
    elif qtype == "rel_pos" and anchors:
        low = text.lower()
        tried = []
        for a in s.of(anchors[0]):
            if _UNDER.search(low):
                tried.append(_under(s, a))
            elif _NEAR.search(low):
                g = -s.gap(a)
                g[a] = -np.inf
                tried.append(g)
            else:
                tried.append(_resting_on(s, a))
        k = _best(tried)
    elif qtype == "abs" and anchors:
        nums = [float(v) for v in _NUMBER.findall(text)]
        if nums:
            tried = []
            for a in s.of(anchors[0]):
                g = -np.abs(s.gap(a) - nums[0])
                g[a] = -np.inf
                tried.append(g)
            k = _best(tried)
    elif qtype == "first_view" and len(names) >= 2:
        ang = _sector(text)
        if ang is not None:
            k = _first_view(s, names[0], names[1], ang)
    elif qtype == "camera_view":
        nums = [float(v) for v in _NUMBER.findall(text)]
        if len(nums) >= 5:
            k = _camera(s, *nums[:5])
    return None if k is None else int(s.ids[k])


def _first_view(s: SceneBoxes, x: str, y: str, ang: float) -> int | None:
    c = (s.lo + s.hi)[:, :2] / 2
    best: tuple[float, int] | None = None
    for i in s.of(x):
        for j in s.of(y):
            fwd = c[j] - c[i]
            if i == j or np.linalg.norm(fwd) < 0.8:
                continue
            fwd = fwd / np.linalg.norm(fwd)
            v = c - c[i]
            dist = np.linalg.norm(v, axis=1)
            # z-up: left of the facing direction is its counter-clockwise normal
            left = np.array([-fwd[1], fwd[0]])
            bearing = np.degrees(np.arctan2(v @ left, v @ fwd))
            diff = np.abs((bearing - ang + 180) % 360 - 180)
            ok = (diff <= SECTOR_HALF) & (dist >= 0.3) & (dist <= 5.0)
            ok[[i, j]] = False
            if ok.any():
                k = int(np.flatnonzero(ok)[np.argmin(dist[ok])])
                if best is None or dist[k] < best[0]:
                    best = (float(dist[k]), k)
    return None if best is None else best[1]


def _camera(s: SceneBoxes, x: float, y: float, z: float, heading: float, pitch: float) -> int | None:
    h, p = np.radians(heading), np.radians(pitch)
    d = np.array([np.cos(p) * np.cos(h), np.cos(p) * np.sin(h), -np.sin(p)])
    eye = np.array([x, y, z])
    best: tuple[float, int] | None = None
    cos_max = np.cos(np.radians(RAY_DEGREES))
    for k, pts in enumerate(s.points):
        v = pts - eye
        along = v @ d
        norm = np.linalg.norm(v, axis=1)
        hit = (along > 0.1) & (along >= cos_max * norm)
        if hit.any():
            depth = float(along[hit].min())
            if best is None or depth < best[0]:
                best = (depth, k)
    return None if best is None else best[1]


def scene_boxes(scene: Any, labels: dict[int, str]) -> SceneBoxes:
    """:class:`SceneBoxes` of a loaded scene (``scenes.Scene``) and its instance labels."""
    return SceneBoxes.build(np.asarray(scene.coords, float), np.asarray(scene.instance_ids), labels)
