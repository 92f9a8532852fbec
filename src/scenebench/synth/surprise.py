"""SURPRISE3D samples for one house: questions that never name their target.

Every question type is computed from geometry or from the affordance lists and emitted only when
exactly one object of the house satisfies it (the satisfying set is computed, not assumed):

- ``cs``   common sense: the object whose use is ``X`` (category unique in the house);
- ``hi``   human intention: "I want to X" for the same kind of unique object;
- ``rel_pos`` relative position: the only thing on a support, the support under a unique object,
  or the object nearest an anchor with a clear 0.3 m margin;
- ``abs``  absolute distance between surfaces (AABB gap, as annotators clicked surface points);
- ``first_view`` narrative perspective: standing at X facing Y, the nearest object in a 60-degree
  sector (left / right / ahead / behind) with a 0.5 m margin to the next;
- ``camera_view`` parametric perspective: a camera pose given by numbers (z-up frame, heading in
  degrees counter-clockwise from +x) and the object filling the centre of its view.

Scene arrays are in the ScanNet++ preprocessed shape, z up (converted from scenebench's y up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scenebench.synth.categories import CATEGORIES
from scenebench.synth.frames import points_to_zup
from scenebench.synth.house import House
from scenebench.synth.relations import SceneFacts, words
from scenebench.synth.sensing import Capture

QUESTION_TYPES = ("cs", "hi", "rel_pos", "abs", "first_view", "camera_view")
_STRUCT = ("doorway", "window")

_CS = ("Which object here can be used to {u}?", "What would someone use to {u}?", "Find the thing that is meant to {u}.",
       "Point to the object you would need to {u}.", "What in this room is made to {u}?", "Segment the object that helps you {u}.")
_HI = ("I want to {u}. Which object should I go to?", "I'd like to {u}; what can help me?", "I need to {u} right now. What do I use?",
       "Help me {u}: which object is for that?", "If I wanted to {u}, what would I reach for?", "My plan is to {u}. What should I use?")
_SECTORS = {"ahead": 0.0, "left": 90.0, "behind": 180.0, "right": -90.0}
_SECTOR_TEXT = {"ahead": "straight ahead of you", "left": "on your left", "behind": "behind you", "right": "on your right"}


@dataclass(frozen=True)
class SurpriseSettings:
    per_type: dict[str, int] = field(default_factory=lambda: {t: 2 for t in QUESTION_TYPES})
    min_points: int = 40
    superpoint_size: float = 0.3  # metres; superpoints = (instance, coarse voxel) cells


def scene_arrays(cap: Capture, superpoint_size: float) -> dict[str, np.ndarray]:
    c = cap.cloud
    coords = points_to_zup(c.xyz).astype(np.float32)
    inst = np.where(c.instance > 0, c.instance, -1).astype(np.int32)
    q = np.floor(coords / superpoint_size).astype(np.int64)
    q -= q.min(0) if len(q) else 0
    dims = q.max(0) + 1 if len(q) else np.ones(3, np.int64)
    key = (((inst.astype(np.int64) + 1) * dims[0] + q[:, 0]) * dims[1] + q[:, 1]) * dims[2] + q[:, 2]
    _, sp = np.unique(key, return_inverse=True)
    return {"coords": coords, "colors": (c.rgb * 255).astype(np.float32), "instance": inst, "superpoints": sp.reshape(-1).astype(np.int32),
            "labels": c.semantic.astype(np.int32)}  # SEMANTIC_LABELS index, -1 none (written as sampled_labels, -100)


class SurpriseGenerator:
    def __init__(self, house: House, cap: Capture, rng: np.random.Generator, scene_id: str, s: SurpriseSettings):
        self.h, self.cap, self.rng, self.sid, self.s = house, cap, rng, scene_id, s
        self.f = SceneFacts(house, cap.coverage, s.min_points)
        self.things = [o for o in self.f.visible if o.category not in _STRUCT]  # may be targets
        # every physical object counts when checking that exactly one satisfies a question
        self.all = [o for o in house.objects if o.category not in _STRUCT]
        self._vis = np.array([o.index in self.f.visible_ids for o in self.all], bool)
        self.records: list[dict[str, Any]] = []

    def _emit(self, target, text: str, qtype: str) -> None:
        low = text.lower()
        if words(target.category).lower() in low or target.category in low.replace(" ", ""):
            return  # never name the target
        self.records.append({"scene_id": self.sid, "object_id": int(target.index), "description": text,
                             "object_name": [target.category], "question_type": qtype})

    def _pick(self, items: list, n: int) -> list:
        return [items[i] for i in sorted(self.rng.permutation(len(items))[:n])] if items else []

    def knowledge(self) -> None:
        uniq = [o for o in self.things if self.f.counts[o.category] == 1]
        for qtype, bank, k in (("cs", _CS, 0), ("hi", _HI, -1)):
            for o in self._pick(uniq, self.s.per_type.get(qtype, 0)):
                use = CATEGORIES[o.category].uses[k]
                sat = [p for p in self.h.objects if use in CATEGORIES[p.category].uses]
                if len(sat) != 1:
                    continue
                self._emit(o, bank[int(self.rng.integers(len(bank)))].format(u=use), qtype)

    def _geometry(self):
        if not hasattr(self, "_lo"):
            self._lo = np.array([o.aabb[0] for o in self.all]).reshape(-1, 3)
            self._hi = np.array([o.aabb[1] for o in self.all]).reshape(-1, 3)
            self._c = (self._lo + self._hi) / 2
            d = np.maximum(0.0, np.maximum(self._lo[None] - self._hi[:, None], self._lo[:, None] - self._hi[None]))
            self._gap = np.linalg.norm(d, axis=-1)  # (n, n) surface gap between boxes
            self._room = np.array([o.room for o in self.all])
            self._sup = np.array([o.support for o in self.all])
        return self._gap

    def relative(self) -> None:
        out: list[tuple[Any, str]] = []
        vis = self.f.visible_ids
        G = self._geometry()
        for i, o in enumerate(self.all):
            d = self.f.describe(o)
            if not d or not self._vis[i]:
                continue
            on = [p for p in self.h.objects if p.support == o.index]
            if len(on) == 1 and on[0].index in vis:
                out.append((on[0], f"Which object is resting on top of the {d}?"))
            if o.support and o.support in vis and self.h.object(o.support).category not in _STRUCT:
                out.append((self.h.object(o.support), f"What is the {d} standing on?"))
            same = np.flatnonzero((self._room == o.room) & (np.arange(len(self.all)) != i))
            if len(same) >= 2:
                g = G[i, same]
                order = np.argsort(g, kind="stable")
                if g[order[1]] - g[order[0]] >= 0.3 and self._vis[same[order[0]]]:
                    out.append((self.all[same[order[0]]], f"Which object is closest to the {d}?"))
        for t, text in self._pick(out, self.s.per_type.get("rel_pos", 0)):
            self._emit(t, text, "rel_pos")

    def absolute(self) -> None:
        cands = []
        G = self._geometry()
        n = len(self.all)
        for i, a in enumerate(self.all):
            d = self.f.describe(a)
            if not d or not self._vis[i]:
                continue
            others = np.arange(n) != i
            ts = np.flatnonzero((self._room == a.room) & others & self._vis & (G[i] >= 0.5) & (G[i] <= 3.0))
            for t in ts:
                g1 = round(float(G[i, t]), 1)
                sat = np.flatnonzero(others & (np.abs(G[i] - g1) < 0.3))
                if len(sat) == 1 and sat[0] == t:
                    cands.append((self.all[t], f"Which object is about {g1:.1f} m away from the {d}, measured between their closest surfaces?"))
        for t, text in self._pick(cands, self.s.per_type.get("abs", 0)):
            self._emit(t, text, "abs")

    def narrative(self) -> None:
        cands = []
        self._geometry()
        anchors = [(i, o, self.f.describe(o)) for i, o in enumerate(self.all) if not o.support and self._vis[i]]
        anchors = [(i, o, d) for i, o, d in anchors if d]
        cxz = self._c[:, [0, 2]]
        for i, x, dx in anchors:
            for j, y, dy in anchors:
                if i == j or x.room != y.room:
                    continue
                fwd = cxz[j] - cxz[i]
                if np.linalg.norm(fwd) < 0.8:
                    continue
                fwd = fwd / np.linalg.norm(fwd)
                right = np.array([-fwd[1], fwd[0]])  # fwd x up, in (x, z)
                v = cxz - cxz[i]
                dist = np.linalg.norm(v, axis=1)
                ok = (self._room == x.room) & (dist >= 0.3) & (dist <= 5.0) & ~np.isin(self._sup, [x.index, y.index])
                ok[[i, j]] = False
                bearing = np.degrees(np.arctan2(-(v @ right), v @ fwd))  # + = to the left
                for sector, ang in _SECTORS.items():
                    diff = (bearing - ang + 180) % 360 - 180
                    hit = np.flatnonzero(ok & (np.abs(diff) <= 30))
                    if not len(hit):
                        continue
                    ds = np.sort(dist[hit])
                    best = hit[np.argmin(dist[hit])]
                    if (len(hit) == 1 or ds[1] - ds[0] >= 0.5) and self._vis[best]:
                        cands.append((self.all[best], f"Standing at the {dx} and facing the {dy}, which object is the closest one {_SECTOR_TEXT[sector]}?"))
        for t, text in self._pick(cands, self.s.per_type.get("first_view", 0)):
            self._emit(t, text, "first_view")

    def camera(self) -> None:
        seen: dict[int, int] = {}
        for k, (cid, share) in enumerate(zip(self.cap.centre_ids, self.cap.centre_share)):
            if cid and cid <= len(self.h.objects) and share >= 0.03 and cid in self.f.visible_ids and self.h.object(cid).category not in _STRUCT:
                seen.setdefault(cid, k)
        for cid, k in self._pick(sorted(seen.items()), self.s.per_type.get("camera_view", 0)):
            pose = self.cap.frames_poses[k]
            eye = points_to_zup(pose[:3, 3][None])[0]
            fwd = pose[:3, 2]
            heading = float(np.degrees(np.arctan2(-fwd[2], fwd[0])) % 360)
            pitch = float(np.degrees(np.arcsin(np.clip(fwd[1], -1, 1))))
            text = (f"A camera stands at x = {eye[0]:.2f} m, y = {eye[1]:.2f} m, {eye[2]:.2f} m above the floor, heading "
                    f"{heading:.0f} degrees counter-clockwise from the +x axis and tilted {abs(pitch):.0f} degrees down. "
                    f"Which object fills the centre of its view?")
            self._emit(self.h.object(cid), text, "camera_view")


def surprise_house(house: House, cap: Capture, rng: np.random.Generator, scene_id: str, s: SurpriseSettings) -> list[dict[str, Any]]:
    g = SurpriseGenerator(house, cap, rng, scene_id, s)
    g.knowledge()
    g.relative()
    g.absolute()
    g.narrative()
    g.camera()
    return g.records
