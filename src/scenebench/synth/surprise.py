"""SURPRISE3D samples for one house: questions that never name their target.

Every question type is computed from geometry or from the affordance table and emitted only when
exactly one object of the house satisfies it (the satisfying set is computed, not assumed):

- ``cs``   common sense: "which object that can be used to X ..." plus a spatial part (the room it
  is in, the object it stands on or is nearest to). Uses are many-to-many (``AFFORDANCES``: every
  use fits several categories, most categories have several uses), so the use alone never singles
  out a category, and targets whose category has several instances are preferred: the answer
  needs the spatial part;
- ``hi``   human intention: "I want to X ..." with the same kind of spatial part;
- ``rel_pos`` relative position: the only thing on a support, the support under a unique object,
  or the object nearest an anchor with a clear 0.3 m margin;
- ``abs``  absolute distance between surfaces (AABB gap, as annotators clicked surface points);
- ``first_view`` narrative perspective: standing at X facing Y, the nearest object in a 60-degree
  sector (left / right / ahead / behind) with a 0.5 m margin to the next; the target lies within
  15 degrees of the sector's centre and no rival (as near as the target + 0.5 m) lies within
  15 degrees of either sector edge;
- ``camera_view`` parametric perspective: a camera pose given by numbers (z-up frame, heading in
  degrees counter-clockwise from +x) and the object filling the centre of its view.

Each type has at least five sentence frames. No query contains a word (or the stem of a word) of
the target's name, including parts of compound names ("coffee" for the coffee machine, "TV" for the
television). Scenes are whole houses, so queries say "house" or "here", never "this room"; a room is
only named by its type ("in the kitchen").

Scene arrays are in the ScanNet++ preprocessed shape, z up (converted from scenebench's y up).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scenebench.synth.categories import spoken_names
from scenebench.synth.floorplan import CELL
from scenebench.synth.frames import IDENTITY, WorldFrame, points_to_zup
from scenebench.synth.house import House
from scenebench.synth.relations import SceneFacts, words
from scenebench.synth.sensing import Capture
from scenebench.vocabulary import AFFORDANCES, ALIASES, USES  # re-exported (the solver reads the same words)

QUESTION_TYPES = ("cs", "hi", "rel_pos", "abs", "first_view", "camera_view")
_STRUCT = ("doorway", "window")

# extra words that name a category though not in its display name
_SYNONYMS = {
    "television": ("tv", "telly"),
    "fridge": ("refrigerator", "fridge"),
    "cellphone": ("phone", "mobile"),
    "remotecontrol": ("remote",),
    "diningtable": ("table",),
    "coffeetable": ("table",),
    "sidetable": ("table",),
    "tvstand": ("tv", "stand"),
    "laundryhamper": ("laundry", "hamper"),
    "dogbed": ("dog",),
    "desklamp": ("lamp",),
    "floorlamp": ("lamp",),
    "garbagecan": ("bin", "trash", "rubbish", "garbage"),
    "garbagebag": ("bin", "trash", "rubbish", "garbage"),
    "houseplant": ("plant",),
    "desktop": ("computer",),
    "washingmachine": ("washer", "washing"),
    "clothesdryer": ("dryer",),
    "papertowelroll": ("towel", "paper"),
    "toiletpaper": ("toilet", "paper"),
    "winebottle": ("wine",),
    "soapbottle": ("soap",),
    "soapbar": ("soap",),
    "dishsponge": ("sponge", "dish"),
    "butterknife": ("butter", "knife"),
    "shelvingunit": ("shelf", "shelves", "shelving"),
    "countertop": ("counter",),
    "tabletopdecor": ("decoration", "decor"),
}
_STOP = {"of", "a", "the", "pair", "bar", "unit", "roll", "set"}
_TOKEN = re.compile(r"[a-z]+")


def name_stems(category: str) -> set[str]:
    """Lower-case words (and compound parts) that name ``category``: its display words, the parts of
    its compound name and synonyms."""
    out = set(_TOKEN.findall(words(category).lower())) | set(_SYNONYMS.get(category, ()))
    out |= {_TOKEN.findall(a.lower())[-1] for a in ALIASES.get(category, ())}  # an alias's head noun names it too
    name = category.lower()
    for w in list(out):
        name = name.replace(w, " ")
    out |= {w for w in name.split() if len(w) >= 3}
    out.add(category.lower())
    return {w for w in out if w not in _STOP}


def leaks_name(text: str, category: str) -> bool:
    """True when ``text`` contains a word of the target's name, its stem or a word built on it ("laundry"
    for the laundry hamper, "cooking" for the cooking pot, "tv" for the television, "bedroom" for the bed,
    "armchair" for the chair, "desk" for the desktop computer)."""
    toks = _TOKEN.findall(text.lower())
    for stem in name_stems(category):
        root = stem[:5] if len(stem) > 5 else stem
        for t in toks:
            if (
                t == stem
                or (len(stem) >= 3 and t.startswith(stem))
                or (len(root) >= 4 and t.startswith(root))
                or (len(stem) >= 4 and stem in t)
                or (len(t) >= 4 and t in stem)
                or (len(t) >= 4 and stem.startswith(t) and len(t) >= len(stem) - 2)
            ):
                return True
    return False


_CS = (
    "Which object {where} can be used to {u}?",
    "What {where} would someone use to {u}?",
    "Find the thing {where} that is meant to {u}.",
    "Point to the object {where} you would need to {u}.",
    "Segment the item {where} that helps you {u}.",
    "Among the things {where}, which one is good for when you {u}?",
    "Show me what {where} lets a person {u}.",
    "Which thing {where} is there so that people can {u}?",
    "Segment the object {where} that would let you {u}.",
    "If someone had to {u}, which object {where} would do?",
    "What {where} serves when a person wants to {u}?",
    "Pick out the item {where} suited to {u}.",
    "Which of the objects {where} is useful to {u}?",
    "Locate what {where} one would choose to {u}.",
    "Mark the object {where} that a person could use to {u}.",
    "Which item {where} would you grab to {u}?",
    "Name the object {where} that is handy when you want to {u}.",
    "Segment whatever {where} a person would turn to in order to {u}.",
    "Someone needs to {u}; which object {where} fits the purpose?",
)
_HI = (
    "I want to {u}. Which object {where} should I go to?",
    "I'd like to {u}; what {where} can help me?",
    "I need to {u} right now. What do I use {where}?",
    "Help me {u}: which object {where} is for that?",
    "If I wanted to {u}, what {where} would I reach for?",
    "My plan is to {u}. What should I use {where}?",
    "I'm about to {u}. Which thing {where} do I need?",
    "Could you show me what {where} I can use to {u}?",
    "To {u}, which object {where} should I pick?",
    "I feel like I should {u}. What {where} is right for it?",
    "Where would I go {where} to {u}? Segment the object.",
    "Somebody asked me to {u}. Which item {where} would I use?",
    "Let me {u}: point out the object {where} I can use.",
    "What {where} would you hand me so I can {u}?",
    "I'm hoping to {u}. Is there something {where} for that? Segment it.",
    "Time to {u}. Which object {where} do I head for?",
    "Later on I want to {u}. What {where} lets me do it?",
    "Can you find me something {where} to {u} with?",
)
_ON = (
    "Which object is resting on top of the {d}?",
    "What has been placed on the {d}?",
    "Segment the thing lying on the {d}.",
    "Something sits on the {d}. Which object is it?",
    "What can you find on top of the {d}?",
    "Which item is sitting on the {d}?",
    "Segment whatever lies on top of the {d}.",
    "What object has been put down on the {d}?",
    "Look at the {d}: what is resting on it?",
    "Find the object that the {d} is holding up.",
    "Which object sits directly on the {d}?",
    "Segment the item that rests on the {d}.",
)
_UNDER = (
    "What is the {d} standing on?",
    "Which object holds up the {d}?",
    "What is underneath the {d}?",
    "Find the object that the {d} rests on.",
    "The {d} is placed on something. What is it?",
    "Which object is below the {d}, carrying it?",
    "Segment what the {d} has been set down on.",
    "What surface is the {d} lying on?",
    "Look under the {d}: which object supports it?",
    "Find the thing on which the {d} stands.",
    "What is supporting the {d} from below?",
    "Segment the object carrying the {d}.",
)
_NEAR = (
    "Which object is closest to the {d}?",
    "What is the nearest thing to the {d}?",
    "Segment the object right next to the {d}.",
    "Which item lies nearest the {d}?",
    "Find what is closest to the {d}.",
    "Which object is the {d}'s closest neighbour?",
    "Segment the thing that is nearest to the {d}.",
    "What stands closest of all to the {d}?",
    "Among everything around the {d}, which object is nearest?",
    "Look next to the {d}: which object is the closest one?",
    "Which object would you bump into first near the {d}?",
    "Segment the nearest neighbour of the {d}.",
)
_ABS = (
    "Which object is about {g} m away from the {d}, measured between their closest surfaces?",
    "Find the thing whose nearest surface is roughly {g} metres from the {d}.",
    "What lies about {g} m from the {d} (surface to surface)?",
    "Segment the object with a gap of about {g} m to the {d}.",
    "There is something about {g} metres from the {d}, edge to edge. Which object is it?",
    "Which object has its closest surface about {g} m from the {d}?",
    "Segment the thing roughly {g} metres away from the {d}, surface to surface.",
    "Measured edge to edge, what is about {g} m from the {d}?",
    "What object is separated from the {d} by a gap of roughly {g} m?",
    "Find what stands about {g} metres from the {d}, counting from the nearest surfaces.",
    "Which thing is roughly {g} m clear of the {d}, surface to surface?",
    "Segment the object about {g} metres from the {d} at its closest point.",
)
_FIRST = (
    "Standing at the {x} and facing the {y}, which object is the closest one {s}?",
    "Imagine you stand by the {x}, looking towards the {y}. What is the nearest thing {s}?",
    "You are at the {x} and face the {y}. Which object is closest {s}?",
    "From the {x}, looking at the {y}: what is the first object {s}?",
    "Suppose I stand next to the {x}, turned towards the {y}. What is nearest to me {s}?",
    "Picture yourself at the {x}, facing the {y}. Which object is nearest {s}?",
    "When I stand at the {x} and look towards the {y}, what is the closest thing {s}?",
    "Positioned beside the {x} and facing the {y}, which object do you find nearest {s}?",
    "Stand by the {x} with the {y} in front of you. Which object is closest {s}?",
    "Standing at the {x}, turned to face the {y}: which object is nearest {s}?",
    "Say you wait beside the {x} with your face towards the {y}. What is closest {s}?",
    "Picture standing at the {x}, eyes on the {y}. What is the closest object {s}?",
)
_CAMERA = (
    (
        "A camera stands at x = {x} m, y = {y} m, {z} m above the floor, heading {h} degrees counter-clockwise from the +x axis "
        "and tilted {p} degrees down. Which object fills the centre of its view?"
    ),
    (
        "Which object is in the middle of the picture taken from ({x}, {y}) at a height of {z} m, looking along a heading of "
        "{h} degrees (counter-clockwise from +x) and {p} degrees downwards?"
    ),
    (
        "Put a camera at x = {x}, y = {y}, height {z} m; turn it to {h} degrees from the +x axis (counter-clockwise) and tilt it {p} "
        "degrees down. What does it see in the centre?"
    ),
    (
        "Segment the object at the image centre of a view from position ({x} m, {y} m, {z} m) with heading {h} degrees and "
        "downward pitch {p} degrees (z up, heading counter-clockwise from +x)."
    ),
    (
        "A photo is taken at x = {x} m, y = {y} m, z = {z} m, facing {h} degrees counter-clockwise from +x, pitched {p} degrees down. "
        "What object is at the centre of the photo?"
    ),
    (
        "Imagine a camera at x = {x} m, y = {y} m and {z} m up, turned {h} degrees counter-clockwise from +x and {p} degrees "
        "down. Which object is right in the middle of its image?"
    ),
    (
        "Looking from the point ({x}, {y}, {z}) in metres along a heading of {h} degrees (from +x, counter-clockwise) with a "
        "{p}-degree downward tilt, which object is at the centre of the view?"
    ),
    (
        "A viewer's eye is at x = {x}, y = {y}, z = {z} (metres, z up), heading {h} degrees from +x counter-clockwise and "
        "looking {p} degrees below the horizon. What is at the centre of their view?"
    ),
    (
        "Segment the object that a camera sees in the middle of its frame when placed at ({x} m, {y} m), {z} m high, "
        "pointing {h} degrees counter-clockwise from the +x axis and {p} degrees down."
    ),
)
NEXT_WORDS = ("next to", "nearest", "closest to", "right by", "beside", "near", "close to", "by")
_SECTORS = {"ahead": 0.0, "left": 90.0, "behind": 180.0, "right": -90.0}
_SECTOR_TEXT = {
    "ahead": ("straight ahead of you", "in front of you", "ahead", "directly in front", "dead ahead"),
    "left": ("on your left", "to your left", "at your left-hand side", "off to the left", "on the left side"),
    "behind": ("behind you", "at your back", "behind your back", "back behind you", "to your rear"),
    "right": ("on your right", "to your right", "at your right-hand side", "off to the right", "on the right side"),
}
SECTOR_HALF = 30.0  # degrees: half-width of a narrative sector
SECTOR_MARGIN = 15.0  # degrees: the target within SECTOR_HALF - MARGIN of the centre, no rival within MARGIN of an edge


PER_TYPE = {"cs": 60, "hi": 60, "rel_pos": 45, "abs": 40, "first_view": 50, "camera_view": 30}
MAX_SHARE = 0.5  # a target's category: no instance holds more than this share of the category's points in the scene
PER_TARGET = 12  # questions per target and type at most
PHRASINGS = 6  # sentence frames one fact is asked in
DRAW_ROUNDS = PER_TARGET  # rounds of visits (one per instance of each askable category; a uniform instance drawn at each)
FALLBACK_QUOTA = 1 / 6  # share of the quotas a scene gets when no category passes MAX_SHARE
MIN_INSTANCES = (
    4  # instances (in the scene) of a cs / hi target's category (generator 14: 3 gave a random instance of the guessed category 16 mIoU)
)
MIN_GROUP = 4  # visible instances (over two or more categories) a use needs to be asked in cs / hi


@dataclass(frozen=True)
class SurpriseSettings:
    per_type: dict[str, int] = field(default_factory=lambda: dict(PER_TYPE))
    min_points: int = 40
    superpoint_size: float = 0.3  # metres; superpoints = (instance, coarse voxel) cells


def instance_ids(n: int, rng: np.random.Generator) -> np.ndarray:
    """The written instance id of every scene instance: ``ids[k]`` for placement index ``k`` (1..n;
    ``ids[0] = -1``, none), a random permutation of 1..n.

    Placement indices run room by room, supports before what stands on them, objects before walls
    and floors: as written ids they would tell a label-and-id reader what belongs together (a probe
    reading only labels and ids reached 34 mIoU, chance 0.9). Drawn from their own stream, so the
    same seed gives the same ids."""
    ids = np.empty(n + 1, np.int32)
    ids[0] = -1
    ids[1:] = rng.permutation(n) + 1
    return ids


def relabel(records: list[dict[str, Any]], ids: np.ndarray, rng: np.random.Generator) -> list[dict[str, Any]]:
    """The records with ``object_id`` mapped through ``ids``, in a seeded random order: generated
    by question type, multi-instance targets first, their order would hint at the answer."""
    out = [{**r, "object_id": int(ids[r["object_id"]])} for r in records]
    return [out[i] for i in rng.permutation(len(out))]


def scene_arrays(
    cap: Capture,
    superpoint_size: float,
    ids: np.ndarray | None = None,
    keep: np.ndarray | None = None,
    world: WorldFrame = IDENTITY,
) -> dict[str, np.ndarray]:
    """The scene arrays; ``ids`` (from :func:`instance_ids`) maps placement indices to written ids
    before superpoints are numbered (superpoint ids follow instance ids); ``keep``: the point
    indices of a one-room scene (default every point); ``world``: the house's placement in the
    written frame (``House.world``)."""
    c = cap.cloud if keep is None else cap.cloud.take(keep)
    coords = points_to_zup(world.points(c.xyz)).astype(np.float32)
    inst = np.where(c.instance > 0, c.instance, -1).astype(np.int32) if ids is None else ids[c.instance]
    q = np.floor(coords / superpoint_size).astype(np.int64)
    q -= q.min(0) if len(q) else 0
    dims = q.max(0) + 1 if len(q) else np.ones(3, np.int64)
    key = (((inst.astype(np.int64) + 1) * dims[0] + q[:, 0]) * dims[1] + q[:, 1]) * dims[2] + q[:, 2]
    _, sp = np.unique(key, return_inverse=True)
    return {
        "coords": coords,
        "colors": (c.rgb * 255).astype(np.float32),
        "instance": inst,
        "superpoints": sp.reshape(-1).astype(np.int32),
        "labels": c.semantic.astype(np.int32),
    }  # SEMANTIC_LABELS index, -1 none (written as sampled_labels, -100)


class SurpriseGenerator:
    def __init__(self, house: House, cap: Capture, rng: np.random.Generator, scene_id: str, s: SurpriseSettings, room: int | None = None):
        """``room``: the scene is that room alone (uniqueness, shares and counts within it), else the house."""
        self.h, self.cap, self.rng, self.sid, self.s, self.scene_room = house, cap, rng, scene_id, s, room
        self.f = SceneFacts(house, cap.coverage, s.min_points)
        inside = [o for o in house.objects if o.category not in _STRUCT and (room is None or o.room == room)]
        self.things = [o for o in inside if o.index in self.f.visible_ids]  # may be targets
        # every physical object of the scene counts when checking that exactly one satisfies a question
        self.all = inside
        self.counts = Counter(o.category for o in inside)
        self._vis = np.array([o.index in self.f.visible_ids for o in self.all], bool)
        self.records: list[dict[str, Any]] = []

    def _emit(self, target, text: str, qtype: str) -> bool:
        if leaks_name(text, target.category):
            return False  # never name the target, not even part of its name
        self.records.append(
            {
                "scene_id": self.sid,
                "object_id": int(target.index),
                "description": text,
                "object_name": [target.category],
                "question_type": qtype,
            }
        )
        return True

    def _say(self, d: str, o: Any) -> str:
        """``d`` (the unique description of ``o``) with the category's name drawn among its spoken
        names (:func:`~scenebench.synth.categories.spoken_names`): "the couch" as often as "the
        sofa". Each alias names that category only, so the description stays unique."""
        names = spoken_names(o.category)
        return say_as(d, o.category, names[int(self.rng.integers(len(names)))])

    def _pick(self, items: list, n: int) -> list:
        return [items[i] for i in sorted(self.rng.permutation(len(items))[:n])] if items else []

    def _one(self, bank: tuple[str, ...]) -> str:
        return bank[int(self.rng.integers(len(bank)))]

    def _frames(self, bank: tuple[str, ...]) -> list[str]:
        """``PHRASINGS`` distinct frames of ``bank`` for one fact: real scenes hold several queries a
        target, and one fact asked in several words is how annotators reach ~200 a scene."""
        return [bank[i] for i in self.rng.permutation(len(bank))[:PHRASINGS]]

    def _category_points(self) -> dict[str, int]:
        """Scene points per category (every instance of the scene)."""
        if not hasattr(self, "_cat_points"):
            self._cat_points: dict[str, int] = {}
            for o in self.all:
                self._cat_points[o.category] = self._cat_points.get(o.category, 0) + int(self.cap.coverage.get(o.index, 0))
        return self._cat_points

    def _eligible(self, category: str) -> bool:
        """A category that passes the share rule: none of its instances holds more than
        ``MAX_SHARE`` of the category's points in the scene, so the union of its instances (what a
        reader of labels alone can mark) overlaps any one of them by at most that much."""
        if not hasattr(self, "_cat_max"):
            self._cat_max: dict[str, int] = {}
            for o in self.all:
                n = int(self.cap.coverage.get(o.index, 0))
                self._cat_max[o.category] = max(self._cat_max.get(o.category, 0), n)
        return self._cat_max.get(category, 0) <= MAX_SHARE * max(1, self._category_points().get(category, 0))

    def _pools(self) -> dict[str, list[Any]]:
        """Category -> its visible instances (placement order): the instances a target is drawn
        among. Only categories with at least two visible instances (a unique one would be found
        from the labels alone) that pass :meth:`_eligible`; a scene where none passes (most
        two-room houses: until generator 12 they got no question) falls back to every category
        with two or more visible instances, at ``FALLBACK_QUOTA`` of the quotas, so that such
        scenes, whose categories hold few instances, weigh little in what a labels reader scores."""
        if not hasattr(self, "_pool"):
            by_cat: dict[str, list[Any]] = {}
            for o in self.things:
                by_cat.setdefault(o.category, []).append(o)
            repeated = {c: v for c, v in by_cat.items() if len(v) >= 2}
            passing = {c: v for c, v in repeated.items() if self._eligible(c)}
            self._fallback = not passing
            self._pool = passing or repeated
        return self._pool

    def _group_pools(self) -> dict[str, list[Any]]:
        """Use -> the visible instances a common-sense or intention question's target is drawn
        among (generator 14): every instance of every category that serves the use whose category
        holds ``MIN_INSTANCES`` or more in the scene.

        The question states the use, never a category (:data:`AFFORDANCES`), so a reader of its
        words learns the group, not the category; drawn over the group's instances, each category
        is asked in proportion to its instances. The place part (room, support, neighbour) still
        hints at the category ("next to the bed" for a side table), hence ``MIN_INSTANCES``: drawn
        over every instance, categories unique in the scene made a third of the targets of a first cut
        and a reader who guessed them scored 1 (seed 4343: 28 mIoU on cs). A use needs
        ``MIN_GROUP`` visible instances over at least two categories; an instance holding more
        than ``MAX_SHARE`` of the group's points is never a target."""
        if not hasattr(self, "_group_pool"):
            cover = self.cap.coverage
            self._group_pool: dict[str, list[Any]] = {}
            for use, cats in AFFORDANCES.items():
                inst = [o for o in self.things if o.category in cats]
                if len(inst) < MIN_GROUP or len({o.category for o in inst}) < 2:
                    continue
                total = sum(int(cover.get(o.index, 0)) for o in self.all if o.category in cats)
                pool = [
                    o for o in inst if self.counts[o.category] >= MIN_INSTANCES and int(cover.get(o.index, 0)) <= MAX_SHARE * max(1, total)
                ]
                if pool:
                    self._group_pool[use] = pool
        return self._group_pool

    def _emit_some(
        self, cands: list[tuple[Any, str]] | list[tuple[Any, str, str]], qtype: str, pools: dict[str, list[Any]] | None = None
    ) -> None:
        """Emit up to the type's quota; each question's target is an instance of its pool drawn
        uniformly, without regard to size, point count or visibility rank. ``cands``: (target, text)
        pairs, pooled by the target's category (:meth:`_pools`), or (target, text, key) triples
        pooled by ``pools[key]`` (a use's group, :meth:`_group_pools`).

        A draw: pools that have a candidate text are visited in a seeded
        random order, each once per visible instance of it, ``DRAW_ROUNDS`` rounds; at each visit
        one of the pool's visible instances is drawn uniformly and asked about (its next unused text, at most ``PER_TARGET`` per
        target and type) when the answer rule made it unambiguous; when it did not, the visit is
        **skipped, never redrawn**: drawing again until an askable instance turns up would ask
        the instances that more often have an unambiguous question (the larger ones: a larger
        instance more often carries a thing, has a clear neighbour or fills a camera's view), and
        on generator 11 "the instance of the guessed category with the most points" beat a random
        one (18.3 against 13.8 mIoU, issue 42). Until generator 10 the smallest instances were
        asked first and "the fewest points" scored 30.7."""
        start = len(self.records)
        self._draw(cands, qtype, pools)
        self._balance_ranks(start)

    def _draw(self, cands: list[tuple[Any, str]] | list[tuple[Any, str, str]], qtype: str, pools: dict[str, list[Any]] | None) -> None:
        """:meth:`_emit_some`'s draw (see there)."""
        n = self.s.per_type.get(qtype, 0)
        by_category = self._pools()
        if pools is None:
            pools = by_category
        if self._fallback:
            n = int(n * FALLBACK_QUOTA)
        if not cands or n <= 0:
            return
        texts: dict[tuple[str, int], list[str]] = {}
        target_of: dict[int, Any] = {}
        for c in cands:
            t, text = c[0], c[1]
            key = c[2] if len(c) > 2 else t.category  # type: ignore[misc]
            if key in pools and any(o.index == t.index for o in pools[key]):
                texts.setdefault((key, t.index), []).append(text)
                target_of[t.index] = t
        queues = {k: [v[i] for i in self.rng.permutation(len(v))] for k, v in sorted(texts.items())}
        # one slot per instance: a category is visited as often as it has instances, so questions
        # spread over instances as before and the labels reader's 1 / (instances) does not grow
        slots = [c for c, inst in sorted(pools.items()) if any((c, o.index) in queues for o in inst) for _ in inst]
        made, seen, per = 0, set(), Counter()
        for _ in range(DRAW_ROUNDS):
            for c in [slots[i] for i in self.rng.permutation(len(slots))]:
                if made >= n:
                    return
                k = pools[c][int(self.rng.integers(len(pools[c])))].index
                q = queues.get((c, k))
                while q and q[0] in seen:
                    q.pop(0)
                if not q or per[k] >= PER_TARGET:
                    continue  # no question for the drawn instance: skip, do not redraw
                text = q.pop(0)
                seen.add(text)
                if self._emit(target_of[k], text, qtype):
                    made += 1
                    per[k] += 1

    def _balance_ranks(self, start: int) -> None:
        """Drop questions of ``records[start:]`` until the largest and the smallest instance of a
        target's category are asked no more often than a uniform draw would ask them (generator 14).

        The draw of :meth:`_emit_some` is uniform, but an instance without an unambiguous question
        is skipped, and larger instances more often have one (they carry things, have a clear
        neighbour, fill a view): on generator 13 "the instance of the guessed category with the
        most points" beat a random instance by 4--7 mIoU on cs / hi / rel_pos. With ``k``
        instances a uniform target is the largest (or the smallest) one time in ``k``; questions
        over that expectation are dropped, drawn at random among those on the largest (smallest)
        instances. Point counts are the scene's (the capture's coverage), ties broken by
        placement index, as a reader of the scene file would rank them."""
        cover = self.cap.coverage
        rank_of: dict[int, tuple[bool, bool, int]] = {}
        for c in {r["object_name"][0] for r in self.records[start:]}:
            inst = sorted((o for o in self.all if o.category == c), key=lambda o: (int(cover.get(o.index, 0)), o.index))
            for j, o in enumerate(inst):
                rank_of[o.index] = (j == len(inst) - 1, j == 0, len(inst))
        for side in (0, 1):  # the largest, then the smallest
            recs = self.records[start:]
            ranked = [r for r in recs if rank_of[r["object_id"]][2] >= 2]
            expected = sum(1.0 / rank_of[r["object_id"]][2] for r in ranked)
            on_side = [i for i, r in enumerate(recs) if rank_of[r["object_id"]][2] >= 2 and rank_of[r["object_id"]][side]]
            excess = len(on_side) - int(np.ceil(expected))
            if excess > 0:
                drop = {on_side[int(i)] for i in self.rng.permutation(len(on_side))[:excess]}
                self.records[start:] = [r for i, r in enumerate(recs) if i not in drop]

    def knowledge(self) -> None:
        """Use + spatial part; exactly one object of the house has the use and fits the part."""
        phys = self.all
        room_of = {o.index: self.f.room_type(o) for o in phys}
        sup_of = {o.index: o.support for o in phys}
        groups = self._group_pools()
        for qtype, bank in (("cs", _CS), ("hi", _HI)):
            cands: list[tuple[Any, str, str]] = []
            for o in self.things:
                for use in USES.get(o.category, ()):
                    if use not in groups:
                        continue  # too few instances serve it: the use would all but name the answer
                    # every instance of every category of the use counts, visible or not
                    fit = [p for p in phys if p.category in AFFORDANCES[use]]
                    wheres = [(f"in the {room_of[o.index]}", [p for p in fit if room_of[p.index] == room_of[o.index]])]
                    if o.support and self.h.object(o.support).category not in _STRUCT:
                        d = self.f.describe(self.h.object(o.support))
                        if d:
                            wheres.append(
                                (f"on the {self._say(d, self.h.object(o.support))}", [p for p in fit if sup_of[p.index] == o.support])
                            )
                    wheres += self._nearest_parts(o, fit)
                    for where, sat in wheres:
                        if len(sat) == 1 and sat[0].index == o.index:
                            cands += [(o, f.format(u=use, where=where), use) for f in self._frames(bank)]
            self._emit_some(cands, qtype, groups)

    def _nearest_parts(self, o, fit: list) -> list[tuple[str, list]]:
        """Spatial parts "next to the {anchor}" that single out ``o`` among the objects serving a use:
        ``o`` is the serving object nearest the anchor (surface gap), with a 0.3 m margin to the next."""
        G = self._geometry()
        pos = self._pos
        fi = np.array([pos[p.index] for p in fit if p.index != o.index], int)
        out: list[tuple[str, list]] = []
        oi = pos[o.index]
        for ai in np.flatnonzero((self._room == o.room) & self._vis):
            a = self.all[ai]
            if a.index == o.index or a.category in {p.category for p in fit} or a.support == o.index or o.support == a.index:
                continue
            d = self.f.describe(a)
            if not d or G[ai, oi] > 1.5:
                continue
            if len(fi) and G[ai, fi].min() - G[ai, oi] < 0.3:
                continue
            out.append((f"{self._one(NEXT_WORDS)} the {self._say(d, a)}", [o]))
        return out

    def _geometry(self):
        if not hasattr(self, "_lo"):
            self._lo = np.array([o.aabb[0] for o in self.all]).reshape(-1, 3)
            self._hi = np.array([o.aabb[1] for o in self.all]).reshape(-1, 3)
            self._c = (self._lo + self._hi) / 2
            d = np.maximum(0.0, np.maximum(self._lo[None] - self._hi[:, None], self._lo[:, None] - self._hi[None]))
            self._gap = np.linalg.norm(d, axis=-1)  # (n, n) surface gap between boxes
            self._room = np.array([o.room for o in self.all])
            self._sup = np.array([o.support for o in self.all])
            self._pos = {o.index: k for k, o in enumerate(self.all)}
        return self._gap

    def relative(self) -> None:
        out: list[tuple[Any, str]] = []
        vis = self.f.visible_ids
        G = self._geometry()
        for i, o in enumerate(self.all):
            d = self.f.describe(o)
            if not d or not self._vis[i]:
                continue
            on = [p for p in self.all if p.support == o.index]
            if len(on) == 1 and on[0].index in vis:
                out += [(on[0], f.format(d=self._say(d, o))) for f in self._frames(_ON)]
            if o.support and o.support in vis and self.h.object(o.support).category not in _STRUCT:
                out += [(self.h.object(o.support), f.format(d=self._say(d, o))) for f in self._frames(_UNDER)]
            same = np.flatnonzero((self._room == o.room) & (np.arange(len(self.all)) != i))
            if len(same) >= 2:
                g = G[i, same]
                order = np.argsort(g, kind="stable")
                if g[order[1]] - g[order[0]] >= 0.3 and self._vis[same[order[0]]]:
                    out += [(self.all[same[order[0]]], f.format(d=self._say(d, o))) for f in self._frames(_NEAR)]
        self._emit_some(out, "rel_pos")

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
                    cands += [(self.all[t], f.format(g=f"{g1:.1f}", d=self._say(d, a))) for f in self._frames(_ABS)]
        self._emit_some(cands, "abs")

    def narrative(self) -> None:
        cands = []
        self._geometry()
        anchors = [(i, o, self.f.describe(o)) for i, o in enumerate(self.all) if not o.support and self._vis[i]]
        anchors = [(i, o, d) for i, o, d in anchors if d]
        cxz = self._c[:, [0, 2]]
        inner = SECTOR_HALF - SECTOR_MARGIN
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
                    diff = np.abs((bearing - ang + 180) % 360 - 180)
                    hit = np.flatnonzero(ok & (diff <= SECTOR_HALF))
                    if not len(hit):
                        continue
                    ds = np.sort(dist[hit])
                    best = hit[np.argmin(dist[hit])]
                    if not ((len(hit) == 1 or ds[1] - ds[0] >= 0.5) and self._vis[best] and diff[best] <= inner):
                        continue
                    # no rival near an edge: anything as close as the target + 0.5 m within the margin band
                    band = ok & (diff > SECTOR_HALF - SECTOR_MARGIN) & (diff <= SECTOR_HALF + SECTOR_MARGIN) & (dist <= dist[best] + 0.5)
                    band[best] = False
                    if band.any():
                        continue
                    cands += [
                        (self.all[best], f.format(x=self._say(dx, x), y=self._say(dy, y), s=self._one(_SECTOR_TEXT[sector])))
                        for f in self._frames(_FIRST)
                    ]
        self._emit_some(cands, "first_view")

    def camera(self) -> None:
        cands = []
        for k, (cid, share) in enumerate(zip(self.cap.centre_ids, self.cap.centre_share)):
            if not (
                cid
                and cid <= len(self.h.objects)
                and share >= 0.03
                and cid in self.f.visible_ids
                and self.h.object(cid).category not in _STRUCT
            ):
                continue
            pose = self.cap.frames_poses[k]
            if self.scene_room is not None and (
                self.h.object(cid).room != self.scene_room or room_at(self.h, pose[:3, 3][None])[0] != self.scene_room
            ):
                continue  # a room scene: the camera stands in the room and sees one of its objects
            # the pose as written: in the house's world frame, like the scene's points
            eye = points_to_zup(self.h.world.points(pose[:3, 3][None]))[0]
            fwd = pose[:3, 2]
            fx, fz = self.h.world.turn(float(fwd[0]), float(fwd[2]))
            heading = float(np.degrees(np.arctan2(-fz, fx)) % 360)
            pitch = float(np.degrees(np.arcsin(np.clip(fwd[1], -1, 1))))
            num = dict(x=f"{eye[0]:.2f}", y=f"{eye[1]:.2f}", z=f"{eye[2]:.2f}", h=f"{heading:.0f}", p=f"{abs(pitch):.0f}")
            cands += [(self.h.object(cid), f.format(**num)) for f in self._frames(_CAMERA)]
        self._emit_some(cands, "camera_view")


def say_as(d: str, category: str, name: str) -> str:
    """The description ``d`` of an object of ``category`` with its display name (first whole-word
    occurrence) replaced by ``name``."""
    return re.sub(rf"\b{re.escape(words(category))}\b", lambda _m: name, d, count=1)


def room_at(house: House, xyz: np.ndarray) -> np.ndarray:
    """The plan room under each y-up point (-1 outside every room), from the plan grid."""
    g = house.plan.grid
    ij = np.floor(np.asarray(xyz, float)[:, [0, 2]] / CELL).astype(np.int64)
    ok = (ij[:, 0] >= 0) & (ij[:, 0] < g.shape[0]) & (ij[:, 1] >= 0) & (ij[:, 1] < g.shape[1])
    out = np.full(len(ij), -1, np.int64)
    out[ok] = g[ij[ok, 0], ij[ok, 1]]
    return out


def point_rooms(house: House, cloud: Any) -> np.ndarray:
    """The room each point of ``cloud`` belongs to: an object's points go with the object's room, a
    floor's or ceiling's with its room, a wall's with the room on the side the point lies (a shared
    wall is split down its middle; an outer wall's outside face goes with the room it bounds)."""
    n_obj = len(house.objects)
    inst = np.asarray(cloud.instance).reshape(-1)
    lookup = np.full(n_obj + len(house.parts) + 1, -1, np.int64)
    fallback = lookup.copy()
    lookup[1 : n_obj + 1] = [o.room for o in house.objects]
    for k, p in enumerate(house.parts):
        lookup[n_obj + 1 + k] = p.room
        fallback[n_obj + 1 + k] = max(p.rooms) if p.rooms else p.room
    safe = np.clip(inst, 0, len(lookup) - 1)
    out = np.where(inst > 0, lookup[safe], -1)
    walls = (inst > 0) & (out < 0)
    if walls.any():
        under = room_at(house, cloud.xyz[walls])
        out[walls] = np.where(under >= 0, under, fallback[safe[walls]])
    return out


def surprise_house(
    house: House, cap: Capture, rng: np.random.Generator, scene_id: str, s: SurpriseSettings, room: int | None = None
) -> list[dict[str, Any]]:
    """The samples of one scene: the whole house, or ``room`` alone (one-room scenes, ScanNet++-like)."""
    g = SurpriseGenerator(house, cap, rng, scene_id, s, room)
    g.knowledge()
    g.relative()
    g.absolute()
    g.narrative()
    g.camera()
    return g.records
