"""3DBench ground truth for one house: the ten tasks (plus visual grounding plus) and dialogues.

Every sample is built from the scene graph and only about objects the fused cloud actually shows
(coverage >= ``min_points``); counting and detection skip a type when any of its instances is
hidden. Multiple-choice distractors follow the published rules (classification offers five other
categories, counting six consecutive integers around the truth, position relation three other
relation sentences) and are drawn so that no option is likelier right than another given the
question's form: answers are uniform over each form's options across houses (counting per counted
noun or room type, position relation per relation type, both by keeping a drawn answer with a
probability set from shares measured on the generator's own houses, ``choice_tables.py``),
distractors come from the same distribution as answers, option order is a uniform permutation. Record shapes are those of ``scenebench.benchmarks.bench3d.records``.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scenebench.synth import templates as T
from scenebench.synth.categories import ALIASES, CATEGORIES, CATEGORY_NAMES, DETECTION_NAME
from scenebench.synth.choice_tables import COUNT_FORMS, REL_SHARE
from scenebench.synth.house import House
from scenebench.synth.navigation import GOAL_REACH_M, NavGrid
from scenebench.synth.placement import ROOM_CONTENTS
from scenebench.synth.relations import RELATIONS, VERTICAL, SceneFacts, box6, room_box, sentence, view_relation, viewer_frame, words

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

TASK_TYPE = {
    "Classification": "Classification3d",
    "Counting": "Counting",
    "Detection": "Detection3d",
    "VisualGrounding": "VisualGrounding3d",
    "VisualGrounding_plus": "VisualGrounding3d_plus",
    "RoomDetection": "RoomDetection3d",
    "PositionRelation": "PositionRelation",
    "Navigation": "Navigation",
    "DescriptionObj": "DescriptionObj",
    "ConversationObj": "ConversationObj",
    "SCaption": "SCaption",
    "SVQA": "SVQA",
    "Relation": "Relation",
}
STEMS = tuple(TASK_TYPE)

DEFAULT_PER_HOUSE = {
    "Classification": 2,
    "Counting": 6,  # a cap: each set a house holds is asked with a probability, ≈2.5 a house
    "Detection": 2,
    "VisualGrounding": 3,
    "VisualGrounding_plus": 2,
    "RoomDetection": 1,
    "PositionRelation": 3,  # a mean over houses (draws that miss are not redrawn)
    "Navigation": 2,
    "DescriptionObj": 2,
    "ConversationObj": 2,
    "SCaption": 1,
    "SVQA": 3,
    "Relation": 2,
}


@dataclass(frozen=True)
class TaskSettings:
    per_house: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_PER_HOUSE))
    min_points: int = 40  # an object is visible (may be asked about) with at least this many scene points
    object_min_points: int = 150  # objects given as their own cloud need this many


@dataclass
class Bench3DHouse:
    records: dict[str, list[dict[str, Any]]]  # stem -> records (the split is decided by the caller)
    instructions: list[dict[str, Any]]
    object_uids: list[int]  # instance ids whose clouds are referenced as Objects/<name>.npy
    object_names: dict[int, str]  # instance id -> file stem under Objects/


def object_names(house: House, rng: np.random.Generator) -> dict[int, str]:
    """Object cloud file stems ``<house>_<token>``: the token is a seeded random draw, so the name
    says nothing about placement order or category (a name built from the index let a blind
    reader sort files into placement order, which correlates with category)."""
    n = len(house.objects)
    while True:  # 40-bit tokens: a repeat is rare, but names must be unique
        tokens = rng.integers(0, 1 << 40, n)
        if len(set(tokens.tolist())) == n:
            break
    return {o.index: f"{house.house_id}_{int(t):010x}" for o, t in zip(house.objects, tokens)}


def _options(choices: list) -> str:
    return " Options: " + " ".join(f"({LETTERS[k]}) {c}" for k, c in enumerate(choices))


def _fmt_box(b: list[float]) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in b) + "]"


# Counting: every question form (the category counted in the house, or the furniture of one room
# type) has one window of six consecutive counts, and a set is asked with a probability that makes
# its form's answers uniform over that window across houses (:func:`count_keep`); the shares behind
# it are measured on the generator's own houses (choice_tables.py, scripts/fit_choice_tables.py).
COUNT_WINDOW = 6
MAX_COUNT = max(lo for lo, _share in COUNT_FORMS.values()) + COUNT_WINDOW - 1  # the largest count offered
FURNITURE_NAMES = ("piece of furniture", "item of furniture", "furnishing")  # what counting calls a room's floor-standing things
NAV_MIN_START_GOAL_M = 2.0  # straight-line start-to-goal distance of every navigation path: 2x the strict success radius
_NUMBER = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
_VIEW = (
    "Standing at the {x} and facing the {y}, ",
    "Imagine you stand by the {x}, looking towards the {y}. ",
    "From the {x}, facing the {y}: ",
    "Seen from the {x} while you look at the {y}, ",
    "Suppose you are at the {x} and face the {y}. ",
)
_REL_WORDS = {
    "left": ("to the left of", "on the left side of", "left of"),
    "right": ("to the right of", "on the right side of", "right of"),
    "front": ("in front of", "closer to you than", "nearer than"),
    "behind": ("behind", "farther away than", "beyond"),
    "front-left": ("in front of and to the left of", "nearer and to the left of", "left of and closer than"),
    "front-right": ("in front of and to the right of", "nearer and to the right of", "right of and closer than"),
    "behind-left": ("behind and to the left of", "farther and to the left of", "left of and beyond"),
    "behind-right": ("behind and to the right of", "farther and to the right of", "right of and beyond"),
    "above": ("above", "higher than", "over"),
    "below": ("below", "lower than", "under"),
}

# The pair facts of a free-text Relation reference, each in four phrasings (fields: _relation_reference)
_PAIR_FACTS = {
    "apart": (
        "They are about {apart:.1f} m apart.",
        "Roughly {apart:.1f} m separate them.",
        "The gap between them is close to {apart:.1f} m.",
        "Their centres lie {cm:.0f} cm from each other.",
    ),
    "viewer": (
        "The {near} is nearer to you, about {dmin:.1f} m away.",
        "You stand {da:.1f} m from the first and {db:.1f} m from the second.",
        "From where you stand the farther one is {dmax:.1f} m off.",
        "Of the two, the {near} is closer to you.",
    ),
    "tops": (
        "The {high} reaches higher, to about {top:.1f} m.",
        "Their tops are at {ta:.1f} and {tb:.1f} m.",
        "The {high} one has the higher top.",
        "Top heights: {ta:.2f} and {tb:.2f} m.",
    ),
    "widths": (
        "They are {sa:.1f} and {sb:.1f} m wide.",
        "The first spans {sa:.2f} m, the second {sb:.2f} m.",
        "Widths: {sa:.2f} m and {sb:.2f} m.",
        "The {wide} is the wider, {width:.1f} m.",
    ),
    "colours": (
        "One is {ca}, the other {cb}.",
        "The first is {ca}, the second {cb}.",
        "Colours: {ca} and {cb}.",
        "You can tell them by colour, {ca} and {cb}.",
    ),
    "room": ("Both are in the {room}.", "This is in the {room}.", "They share the {room}.", "All of it happens in the {room}."),
    "mates": (
        "The same room also holds {mates}.",
        "Also in that room: {mates}.",
        "They share the room with {mates}.",
        "Around them are {mates}.",
    ),
}


def count_window(form: str) -> tuple[int, ...]:
    """The six counts offered for questions of ``form``."""
    lo = COUNT_FORMS[form][0]
    return tuple(range(lo, lo + COUNT_WINDOW))


def count_keep(form: str) -> tuple[float, ...]:
    """Probability of asking about a set of ``form`` at each count of its window: the window's
    rarest share over the count's share, so that across houses every count of the window is asked
    equally often (share x keep is the same for all six)."""
    share = COUNT_FORMS[form][1]
    return tuple(min(share) / v for v in share)


def draw_counts(cands: list[tuple[int, str]], n: int, rng: np.random.Generator) -> list[int]:
    """Indices of the candidate sets ``(count, form)`` to ask about (at most ``n``). A house holds
    each form at most once (one wording names one set); a set whose form has a window and whose
    count lies in it is asked, independently, with probability :func:`count_keep`. Across houses a
    form's count is then asked with probability share x keep, the same for every count of its
    window, so the counted noun (or room) says nothing about which option is right. Houses with
    more sets than ``n`` picks keep a uniform subset."""
    out = []
    for k in sorted(range(len(cands)), key=lambda i: (cands[i][1], cands[i][0])):
        v, form = cands[k]
        if form not in COUNT_FORMS or v not in count_window(form):
            continue
        if rng.random() < count_keep(form)[count_window(form).index(v)]:
            out.append(k)
    if len(out) > n:
        out = [out[i] for i in sorted(rng.permutation(len(out))[: max(n, 0)])]
    return [out[i] for i in rng.permutation(len(out))]


def relation_keep(types: tuple[str, ...]) -> dict[str, float]:
    """Probability of keeping a drawn relation type the house holds: the rarest of ``types``' shares
    (:data:`~scenebench.synth.choice_tables.REL_SHARE`) over the type's share."""
    floor = min(REL_SHARE[t] for t in types)
    return {t: floor / REL_SHARE[t] for t in types}


def relation_slots(n: int, types: tuple[str, ...]) -> int:
    """Draws per house that yield ``n`` position-relation samples on average: each draw yields one
    with probability the rarest share of ``types``."""
    return round(n / min(REL_SHARE[t] for t in types))


def draw_relations(present: set[str], n: int, types: tuple[str, ...], rng: np.random.Generator) -> list[str]:
    """Relation types to ask in a house holding pairs of the ``present`` types, for ``n`` samples
    on average. Each of :func:`relation_slots` draws takes a type uniformly from ``types`` and keeps
    it only if the house holds it, with probability :func:`relation_keep`; a miss is not drawn
    again. Across houses a draw then gives each type with probability rarest share / len(types),
    the same for all: redrawing a missing type within the house (the former rule) favoured the
    types most houses hold."""
    keep = relation_keep(types)
    out = []
    for _ in range(relation_slots(n, types)):
        rel = types[int(rng.integers(len(types)))]
        if rng.random() < keep[rel] and rel in present:
            out.append(rel)
    return out


def _viewpoint(rng: np.random.Generator, x: str, y: str) -> str:
    return _VIEW[int(rng.integers(len(_VIEW)))].format(x=x, y=y)


def _relation_text(rng: np.random.Generator, rel: str, a: str, b: str) -> str:
    """The relation sentence that opens a free-text Relation reference, in one of six phrasings;
    four say "it" for one of the two objects the question names."""
    w = _REL_WORDS[rel][int(rng.integers(3))]
    forms = (
        f"The {a} is {w} the {b}.",
        f"From here the {a} appears {w} the {b}.",
        f"It is {w} the {b}.",
        f"You see it {w} the {b}.",
        f"Relative to the {b}, the {a} is {w} it.",
        f"The {a} is {w} it.",
    )
    return forms[int(rng.integers(len(forms)))]


@functools.cache
def given_by_category(cat: str) -> frozenset[str]:
    """Facts of an object that its category name gives away: the room when the category is only ever
    placed in one room type, the colour when its palette has one colour. Scene QA names the object,
    so it does not ask for these: a blind model knows that toilets stand in bathrooms."""
    out = set()
    if sum(any(c == cat for c, *_ in spec) for spec in ROOM_CONTENTS.values()) == 1:
        out.add("room")
    if len(CATEGORIES[cat].colors) == 1:
        out.add("colour")
    return frozenset(out)


def _fmt_names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class Generator:
    def __init__(self, house: House, coverage: dict[int, int], rng: np.random.Generator, s: TaskSettings):
        self.h = house
        self.rng = rng
        self.s = s
        self.f = SceneFacts(house, coverage, s.min_points)
        self.scene_pcl = f"scene/{house.house_id}.npy"
        self.records: dict[str, list[dict]] = {k: [] for k in STEMS}
        self.instructions: list[dict] = []
        self.obj_uids: list[int] = []
        self._letters: dict[str, list[int]] = {}
        self.obj_names = object_names(house, rng)
        self.scene_rooms = [r.type for r in house.plan.rooms]
        # shuffled: in placement order the house metadata's object list gave away categories by position
        self.scene_objects = [self.f.visible[i].category for i in rng.permutation(len(self.f.visible))]

    # --- plumbing ------------------------------------------------------------------------------
    def _add(self, stem: str, rec: dict, answer: str) -> None:
        qid = f"{self.h.house_id}_{stem}_{len(self.records[stem]):02d}"
        full = {"question_id": qid, "pcl": rec.pop("pcl", self.scene_pcl), "id": self.h.house_id, **rec}
        self.records[stem].append(full)
        self.instructions.append(
            {
                "id": qid,
                "pcl": full["pcl"],
                "conversations": [{"from": "human", "value": full["query"]}, {"from": "gpt", "value": answer}],
                "task_type": TASK_TYPE[stem],
            }
        )

    def _pick(self, items: list, n: int) -> list:
        if not items:
            return []
        idx = self.rng.permutation(len(items))[:n]
        return [items[i] for i in sorted(idx)]

    def _right_position(self, stem: str, k: int) -> int:
        """Position of the right option among ``k``: the positions of a house's questions of
        ``stem`` are dealt from seeded permutations of the ``k`` positions, so each question's is
        uniform and a house never repeats one before using all. Independent uniform draws left the
        letter tallies of a 20-house split far enough from even (one letter 18 of 57) that a blind
        prior taking the commonest train letter beat chance by 10 points on some seeds."""
        deck = self._letters.setdefault(stem, [])
        if not deck:
            deck.extend(int(i) for i in self.rng.permutation(k))
        return deck.pop()

    def _object_pcl(self, o) -> str:
        if o.index not in self.obj_uids:
            self.obj_uids.append(o.index)
        return f"Objects/{self.obj_names[o.index]}.npy"

    def n(self, stem: str) -> int:
        return int(self.s.per_house.get(stem, 0))

    # --- object level --------------------------------------------------------------------------
    def _cloud_objects(self) -> list:
        ok = [
            o
            for o in self.f.visible
            if self.f.coverage.get(o.index, 0) >= self.s.object_min_points and o.category not in ("doorway", "window")
        ]  # a frame in a wall is no object to hold up
        by_cat: dict[str, list] = {}
        for o in ok:
            by_cat.setdefault(o.category, []).append(o)
        pool = [v[0] for _, v in sorted(by_cat.items())]
        # a random order: in category order the records' order within a house followed their answers
        return [pool[i] for i in self.rng.permutation(len(pool))]

    def classification(self) -> None:
        """Options are six categories of objects this house shows as object clouds: the asked one
        and five others drawn the same way, so every option is as likely a right answer as the
        truth (no "never-right" distractors); the order is a uniform permutation."""
        pool = self._cloud_objects()
        if len(pool) < 6:
            return
        for o in self._pick(pool, self.n("Classification")):
            others = [p.category for p in pool if p.category != o.category]
            choices = [o.category] + [others[i] for i in self.rng.choice(len(others), 5, replace=False)]
            order = self.rng.permutation(6)
            choices = [choices[i] for i in order]
            gi = choices.index(o.category)
            q = T.question("Classification", self.rng) + _options(choices)
            a = T.answer("Classification", self.rng, a_name=T.article(o.category), name=o.category, letter=LETTERS[gi])
            self._add("Classification", {"pcl": self._object_pcl(o), "query": q, "gt_choices": choices, "gt_choice": gi}, a)

    def description(self) -> None:
        """An object caption: what the object is and its colour, then every other fact of it (size,
        room, one use, support, neighbour, two more things in its room), each from the shared
        phrasing pool of :meth:`_fact_sentence`, in a random order."""
        for o in self._pick(self._cloud_objects(), self.n("DescriptionObj")):
            fx = self._obj_facts(o)
            uses = CATEGORIES[o.category].uses
            fx["use"] = self._one(uses)
            name, colour = fx["object"], fx["colour"]
            head = self._one(
                (
                    f"{T.article(colour + ' ' + name).capitalize()}.",
                    f"This is {T.article(colour + ' ' + name)}.",
                    f"A {name} in {colour}.",
                    f"It is {T.article(name)}, coloured {colour}.",
                    f"The object is {T.article(colour + ' ' + name)}.",
                )
            )
            ref, extra = self._with_extras(head, fx, {"object", "colour"})
            facts = self._facts_list(fx, {"object", "colour", *extra}) + [f"other use: {u}" for u in uses if u != fx["use"]]
            q = T.question("DescriptionObj", self.rng)
            a = T.answer("DescriptionObj", self.rng, description=ref, a_name=T.article(name))
            rec = {"pcl": self._object_pcl(o), "query": q, "reference": ref, "object": o.category, "facts": facts}
            self._add("DescriptionObj", rec, a)

    def _one(self, options: tuple[str, ...]) -> str:
        return options[int(self.rng.integers(len(options)))]

    def _obj_facts(self, o) -> dict[str, str]:
        """What the house says about ``o``: the facts its text references are built from (and that
        the judge is shown as the record's ``facts``)."""
        w, h, d = (float(v) for v in o.aabb[1] - o.aabb[0])
        out = {"object": words(o.category), "colour": o.color, "room": self.f.room_type(o), "height": f"{h:.2f} m"}
        out["size"] = f"{w:.2f} x {h:.2f} x {d:.2f} m"
        sup = self.f.support_cat(o)
        near = self.f.nearest(o)
        if sup:
            out["on"] = words(sup)
        if near is not None:
            out["near"] = f"{near.color} {words(near.category)}"
        also = self._room_mates(o.room, {o.index} | ({near.index} if near is not None else set()))
        if also:
            out["also"] = also
        on = [p for p in self.h.objects if p.support == o.index and p.index in self.f.visible_ids]
        if on:
            named = Counter(f"{p.color} {words(p.category)}" for p in on)
            out["holds"] = _fmt_names(
                [T.article(k) if c == 1 else f"{_NUMBER.get(c, str(c))} {T.plural(k)}" for k, c in sorted(named.items())]
            )
        return out

    def _room_mates(self, room: int, skip: set[int]) -> str:
        """Two other visible things of ``room`` with their colours ("a red vase and a grey
        armchair"), or "" when it holds fewer: a fact of this house that the asked object's
        category does not predict, stated in every answer about something in the room."""
        mates = [p for p in self.f.visible if p.room == room and p.index not in skip and p.category not in ("doorway", "window")]
        if len(mates) < 2:
            return ""
        return _fmt_names([T.article(f"{mates[i].color} {words(mates[i].category)}") for i in sorted(self.rng.permutation(len(mates))[:2])])

    def _fact_sentence(self, key: str, fx: dict[str, str]) -> str:
        """One sentence stating fact ``key`` of an object, in one of several phrasings that call it
        "it" (the question names it already: repeating the name is free BLEU for a blind model
        that copies the question). Every task and question form draws from this one pool."""
        it, It = "it", "It"
        v = fx[key]
        if key in ("height", "size"):
            nums = [float(x) for x in v.replace(" m", "").split(" x ")]
            h = nums[0] if key == "height" else nums[1]
            forms: tuple[str, ...] = (
                f"{It} is about {h:.1f} m tall.",
                f"{It} rises roughly {h * 100:.0f} cm.",
                f"Height: around {h:.2f} m.",
                f"{It} reaches {h * 100:.0f} centimetres.",
            )
            if key == "size":
                w, _, d = nums
                forms = (
                    f"{It} measures about {w:.2f} x {h:.2f} x {d:.2f} m.",
                    f"Its box is roughly {w * 100:.0f} by {h * 100:.0f} by {d * 100:.0f} cm.",
                    f"{It} is {w:.1f} m wide and {h:.1f} m high.",
                    f"Width {w:.2f} m, height {h:.2f} m, depth {d:.2f} m.",
                )
        else:
            forms = {
                "colour": (
                    f"{It} is {v}.",
                    f"Its colour is {v}.",
                    f"{It} comes in {v}.",
                    f"{v.capitalize()}, mostly.",
                    f"{It} is painted {v}.",
                ),
                "room": (
                    f"{It} is in the {v}.",
                    f"{It} stands in the {v}.",
                    f"You find {it} in the {v}.",
                    f"In the {v}.",
                    f"Look in the {v}.",
                ),
                "on": (f"{It} rests on the {v}.", f"{It} sits on top of the {v}.", f"You see {it} on the {v}.", f"The {v} holds {it}."),
                "near": (f"Next to {it} is the {v}.", f"The {v} is close by.", f"Close by stands the {v}.", f"Beside {it}: the {v}."),
                "also": (
                    f"The same room also holds {v}.",
                    f"Also in that room: {v}.",
                    f"{It} shares the room with {v}.",
                    f"Around {it} in the room are {v}.",
                ),
                "holds": (f"On {it} there is {v}.", f"{It} holds {v}.", f"I see {v} on top of {it}.", f"Its top carries {v}."),
                "use": (
                    f"You can use {it} to {v}.",
                    f"{It} is good to {v}.",
                    f"People use {it} to {v}.",
                    f"Its use: to {v}.",
                    f"Handy to {v}.",
                ),
            }[key]
        return self._one(forms)

    def _with_extras(self, core: str, fx: dict[str, str], used: set[str]) -> tuple[str, list[str]]:
        """``core`` followed by every other fact of the object in a random order (the size, which
        holds the height; not the list of what it holds); returns the text and the fact keys it
        states beyond ``used``. With every fact in every answer, the question's form does not decide
        which sentences an answer has: a train answer to the same form shares with a reference only
        what the object's category predicts, and a template answer cannot pick the likeliest facts."""
        rest = [k for k in fx if k not in used and k not in ("object", "holds", "height")]
        keys = [rest[i] for i in self.rng.permutation(len(rest))]
        return " ".join([core] + [self._fact_sentence(key, fx) for key in keys]), keys

    @staticmethod
    def _facts_list(fx: dict[str, str], keys: list[str] | set[str]) -> list[str]:
        return [f"{k}: {fx[k]}" for k in fx if k in keys]

    def conversation(self) -> None:
        """One question about the object cloud; the answer states the asked fact (colour, size,
        room, use: from the shared phrasing pool of :meth:`_fact_sentence`; the name: its own
        phrasings), then every other fact of the object (:meth:`_with_extras`)."""
        for o in self._pick(self._cloud_objects(), self.n("ConversationObj")):
            c = CATEGORIES[o.category]
            fx = self._obj_facts(o)
            use0, use1 = c.uses[0], c.uses[-1]  # a use is a fact too: stated by the use questions or as an extra
            article = T.article(c.words)
            qa: list[tuple[str, tuple[str, ...] | str, set[str]]] = [
                ("what colour is this object?", "colour", {"colour"}),
                ("how tall is this object?", self._one(("height", "size")), {"height", "size"}),
                ("in which room would you usually find this object?", "room", {"room"}),
                ("what can I use this object for?", "use", {"use"}),
                (
                    "what is this object called?",
                    (
                        f"It is {article}.",
                        f"This is {T.article(fx['colour'] + ' ' + c.words)}.",
                        f"I would call it {article}.",
                        f"That is {article}.",
                    ),
                    {"colour"},
                ),
                ("what else could this object be used for?", "use", {"use"}),
            ]
            qq, how, used = qa[int(self.rng.integers(len(qa)))]
            fx["use"] = use1 if qq.startswith("what else") else use0
            core = self._fact_sentence(how, fx) if isinstance(how, str) else self._one(how)
            aa, extra = self._with_extras(core, fx, used)
            facts = self._facts_list(fx, used | set(extra) | {"object"})
            q = T.question("ConversationObj", self.rng, question=qq)
            a = T.answer("ConversationObj", self.rng, answer=aa, answer_lc=T.lower_first(aa), a_name=article)
            self._add("ConversationObj", {"pcl": self._object_pcl(o), "query": q, "reference": aa, "object": o.category, "facts": facts}, a)

    # --- scene perception ----------------------------------------------------------------------
    def count_sets(self) -> list[tuple[int, str, str, str, str]]:
        """(count, key, noun, scope text, form) for every countable set: a category in the house or
        the furniture of one room, whose members are all visible. ``form`` names the question's
        wording up to its template (the category, or the room type for furniture), the unit over
        which :data:`~scenebench.synth.choice_tables.COUNT_FORMS` balances answers. Not asked,
        because their answers could not be balanced over six options: a category in one room (1 or
        2 in nine houses of ten) and the things on one support (small items are often hidden, so
        fully visible sets of four or more are rare)."""
        out: list[tuple[int, str, str, str, str]] = []
        vis = self.f.visible_ids
        phys = [o for o in self.h.objects if o.category not in ("doorway", "window")]
        for cat in sorted({o.category for o in phys}):
            members = [o for o in phys if o.category == cat]
            if all(o.index in vis for o in members):
                out.append((len(members), cat, words(cat), "in the house", cat))
        for r in self.h.plan.rooms:
            furn = [o for o in phys if o.room == r.index and not o.support]
            if furn and all(o.index in vis for o in furn):
                out.append((len(furn), "furniture", "piece of furniture", f"standing on the floor of the {r.type}", f"furniture/{r.type}"))
        # the same wording must not name two different sets (two bedrooms)
        texts: dict[tuple[str, str], list[int]] = {}
        for n, _key, noun, scope, _form in out:
            texts.setdefault((noun, scope), []).append(n)
        return [q for q in out if len(texts[(q[2], q[3])]) == 1]

    def counting(self) -> None:
        """Each question form has one option window of six consecutive counts and its answers are
        made uniform over that window across houses (:func:`draw_counts`). Given the question's
        wording and its options every option is then as likely right; the right option's position
        is uniform (:meth:`_right_position`), the distractors' order a uniform permutation."""
        cands = self.count_sets()
        for k in draw_counts([(c[0], c[4]) for c in cands], self.n("Counting"), self.rng):
            n, key, noun, scope, form = cands[k]
            others = [v for v in count_window(form) if v != n]
            choices = [others[i] for i in self.rng.permutation(len(others))]
            gi = self._right_position("Counting", len(others) + 1)
            choices.insert(gi, n)
            plural = f"{T.plural(noun)} {scope}"
            asked = f"{T.plural(self._spoken(key, noun))} {scope}"  # the question may use another name; the answer keeps the display name
            q = T.question("Counting", self.rng, plural=asked) + _options(choices)
            a = T.answer("Counting", self.rng, n=n, plural=plural, plural_n=f"{T.counted(n, noun)} {scope}", letter=LETTERS[gi])
            self._add("Counting", {"query": q, "gt_choices": choices, "gt_choice": gi, "object": key}, a)

    def _spoken(self, key: str, noun: str) -> str:
        """A name for the category ``key`` (or the furniture of a room) drawn uniformly among its
        display name ``noun`` and its :data:`~scenebench.synth.categories.ALIASES`: each names that
        category only, so the question stays unambiguous while its wording varies (issue 42)."""
        names = FURNITURE_NAMES if key == "furniture" else (noun, *ALIASES.get(key, ()))
        return names[int(self.rng.integers(len(names)))]

    def detection(self) -> None:
        classes = sorted({DETECTION_NAME[o.category] for o in self.f.visible if o.category in DETECTION_NAME})
        classes = [c for c in classes if all(self.f.all_visible(k) for k, v in DETECTION_NAME.items() if v == c)]
        for _ in range(self.n("Detection")):
            if not classes:
                return
            pick = self._pick(classes, int(self.rng.integers(1, 4)))
            objs = [o for o in self.h.objects if DETECTION_NAME.get(o.category) in pick]
            items = [{"name": DETECTION_NAME[o.category], "BoundingBox": box6(o, self.h.world)} for o in objs]
            q = T.question("Detection", self.rng, names=_fmt_names(pick))
            a = T.answer("Detection", self.rng, boxes="; ".join(f"{it['name']} {_fmt_box(it['BoundingBox'])}" for it in items))
            self._add("Detection", {"query": q, "object": items}, a)

    def grounding(self) -> None:
        cands = [(o, self.f.describe(o)) for o in self.f.visible if o.category not in ("doorway", "window")]
        cands = [(o, d) for o, d in cands if d]
        for o, desc in self._pick(cands, self.n("VisualGrounding")):
            b = box6(o, self.h.world)
            q = T.question("VisualGrounding", self.rng, desc=desc)
            a = T.answer("VisualGrounding", self.rng, desc=desc, box=_fmt_box(b))
            self._add("VisualGrounding", {"query": q, "object": b, "name": o.category}, a)
        for o, desc in self._pick(cands, self.n("VisualGrounding_plus")):
            b = box6(o, self.h.world)
            near = self.f.nearest(o)
            h = float(o.aabb[1][1] - o.aabb[0][1])
            where = "standing on the floor" if not o.support else f"resting on the {words(self.f.support_cat(o))}"
            cap = f"The {desc}, {where} in the {self.f.room_type(o)}"
            cap += f", close to the {words(near.category)}" if near is not None else ""
            cap += f". It is about {h:.1f} m tall."
            q = T.question("VisualGrounding_plus", self.rng, caption=cap)
            a = T.answer("VisualGrounding_plus", self.rng, name=words(o.category), box=_fmt_box(b))
            self._add("VisualGrounding_plus", {"query": q, "object": b, "name": o.category, "caption": cap}, a)

    def rooms(self) -> None:
        items = [{"label": r.type, "bbox": room_box(self.h, r.index)} for r in self.h.plan.rooms]
        for _ in range(self.n("RoomDetection")):
            q = T.question("RoomDetection", self.rng)
            a = T.answer("RoomDetection", self.rng, rooms="; ".join(f"{it['label']} {_fmt_box(it['bbox'])}" for it in items))
            self._add("RoomDetection", {"query": q, "object": items}, a)

    # --- scene reasoning -----------------------------------------------------------------------
    def _view_pairs(self, allow_vertical: bool) -> dict[str, list[tuple[Any, Any, Any, Any]]]:
        """Relation -> [(viewer anchor, faced object, A, B)]: A and B unique, visible and in the same
        room as each other and as the viewer, the relation read from the viewer's standpoint.
        Neither A nor B is the viewer or the faced object, nor stands on either: a faced A (or a
        vase on the faced table) is mostly farther than B ("behind"), a faced B mostly nearer, so
        which object is faced, or what it carries, would give the answer away.
        Both orders of every pair are kept, so each relation's opposite is as available."""
        uniq = [o for o in self.f.unique_visible() if o.category not in ("doorway", "window")]
        by_rel: dict[str, list] = {}
        for r in sorted({o.room for o in uniq}):
            inroom = [o for o in uniq if o.room == r]
            anchors = [o for o in inroom if not o.support]
            if len(inroom) < 4 or len(anchors) < 2:
                continue
            for x in anchors:
                for y in anchors:
                    if x is y or np.linalg.norm((y.center - x.center)[[0, 2]]) < 0.8:
                        continue
                    fwd, right = viewer_frame(x.center, y.center)
                    objs = [o for o in inroom if o is not x and o is not y and o.support not in (x.index, y.index)]
                    for i, a in enumerate(objs):
                        for b in objs[i + 1 :]:
                            for p, q in ((a, b), (b, a)):
                                rel = view_relation(p.center, q.center, fwd, right)
                                if rel is None or (rel in VERTICAL and not allow_vertical):
                                    continue
                                by_rel.setdefault(rel, []).append((x, y, p, q))
        return by_rel

    def position(self, test: bool) -> None:
        """Relations read from a stated viewpoint ("standing at the sofa facing the TV"), objects in
        one room, the answer uniform over the relation types across houses (:func:`draw_relations`;
        about ``per_house`` samples a house, no pair asked twice), three distractor relations drawn
        uniformly from the others (so given the four options each is as likely right)."""
        types = tuple(r for r in RELATIONS if (r not in VERTICAL) or not test)
        by_rel = self._view_pairs(allow_vertical=not test)
        used: set[tuple[int, ...]] = set()
        for rel in draw_relations(set(by_rel), self.n("PositionRelation"), types, self.rng):
            free = [it for it in by_rel[rel] if tuple(o.index for o in it) not in used]
            if not free:  # every pair of this type already asked (rare: a type holds dozens of pairs)
                continue
            x, y, a, b = free[int(self.rng.integers(len(free)))]
            used.add((x.index, y.index, a.index, b.index))
            wa, wb = words(a.category), words(b.category)
            others = [r for r in types if r != rel]
            rels = [others[i] for i in self.rng.choice(len(others), 3, replace=False)]  # a uniform ordered draw
            gi = self._right_position("PositionRelation", 4)
            rels.insert(gi, rel)
            choices = [sentence(r, wa, wb) for r in rels]
            view = _viewpoint(self.rng, words(x.category), words(y.category))
            q = T.join(view, T.lower_first(T.question("PositionRelation", self.rng, a=wa, b=wb))) + _options(choices)
            s = choices[gi]
            ans = T.answer("PositionRelation", self.rng, sentence=s, sentence_lc=T.lower_first(s), letter=LETTERS[gi])
            self._add(
                "PositionRelation",
                {
                    "query": q,
                    "gt_choices": choices,
                    "gt_choice": gi,
                    "objects": [a.category, b.category],
                    "viewpoint": [x.category, y.category],
                },
                ans,
            )
        pairs = self._view_pairs(allow_vertical=True)
        for rel in draw_relations(set(pairs), self.n("Relation"), RELATIONS, self.rng):
            x, y, a, b = pairs[rel][int(self.rng.integers(len(pairs[rel])))]
            wa, wb = words(a.category), words(b.category)
            view = _viewpoint(self.rng, words(x.category), words(y.category))
            s, facts = self._relation_reference(rel, x, y, a, b)
            q = T.join(view, T.lower_first(T.question("Relation", self.rng, a=wa, b=wb)))
            dist = f"{float(np.linalg.norm(a.center - b.center)):.1f}"
            ans = T.answer("Relation", self.rng, sentence=s, sentence_lc=T.lower_first(s), dist=dist)
            rec = {"query": q, "reference": s, "rooms": self.scene_rooms, "objects": self.scene_objects, "facts": facts}
            self._add("Relation", rec, ans)

    def _relation_reference(self, rel: str, x, y, a, b) -> tuple[str, list[str]]:
        """The free-text Relation reference and its facts: the relation sentence, then every fact
        of the pair in a random order (distance apart, which is nearer the viewer, tops, widths,
        colours, room, two more things in the room), told of "the first" / "the second" or "they"
        rather than by name: the question names both, and a blind answer copies names for free."""
        wa, wb = words(a.category), words(b.category)
        apart = float(np.linalg.norm(a.center - b.center))
        da, db = (float(np.linalg.norm((o.center - x.center)[[0, 2]])) for o in (a, b))
        ta, tb = float(a.aabb[1][1]), float(b.aabb[1][1])
        sa, sb = (float(max(o.aabb[1][k] - o.aabb[0][k] for k in (0, 2))) for o in (a, b))
        room = self.f.room_type(a)
        v = {
            "apart": apart,
            "cm": apart * 100,
            "near": "first" if da < db else "second",
            "da": da,
            "db": db,
            "dmin": min(da, db),
            "dmax": max(da, db),
            "high": "first" if ta > tb else "second",
            "top": max(ta, tb),
            "ta": ta,
            "tb": tb,
            "wide": "first" if sa > sb else "second",
            "width": max(sa, sb),
            "sa": sa,
            "sb": sb,
            "ca": a.color,
            "cb": b.color,
            "room": room,
            "mates": self._room_mates(a.room, {a.index, b.index, x.index, y.index}),
        }
        keys = [k for k in _PAIR_FACTS if k != "mates" or v["mates"]]
        order = [keys[i] for i in self.rng.permutation(len(keys))]
        text = " ".join([_relation_text(self.rng, rel, wa, wb)] + [self._one(_PAIR_FACTS[k]).format(**v) for k in order])
        facts = [
            f"viewpoint: at the {words(x.category)}, facing the {words(y.category)}",
            f"relation: the {wa} is {_REL_WORDS[rel][0]} the {wb}",
            f"distance apart: {apart:.1f} m",
            f"from the viewer: {wa} {da:.1f} m, {wb} {db:.1f} m",
            f"top heights: {wa} {ta:.2f} m, {wb} {tb:.2f} m",
            f"widths: {wa} {sa:.2f} m, {wb} {sb:.2f} m",
            f"colours: {wa} {a.color}, {wb} {b.color}",
            f"room: {room}",
        ] + ([f"also in the room: {v['mates']}"] if v["mates"] else [])
        return text, facts

    def navigation(self) -> None:
        targets = [o for o in self.f.unique_visible() if o.category not in ("doorway", "window")]
        if not targets:
            return
        grid = NavGrid(self.h.walkable)
        free = np.flatnonzero(self.h.walkable.ravel())
        made = 0
        # a uniform order over every object unique in the house: in placement order (the former
        # _pick) the living room's sofa and TV stand came first and took most routes (issue 42)
        for k in self.rng.permutation(len(targets)):
            o = targets[int(k)]
            if made >= self.n("Navigation"):
                break
            goals = grid.goal_cells(o.footprint)
            # Starts at least NAV_MIN_START_GOAL_M from any goal cell (triangle inequality through the
            # footprint): a blind answer that stays at or near the start cannot end within the strict
            # success radius (1 m) of the goal, and no route is short enough for the released 1 m per
            # waypoint threshold to pass it by itself (issue 25 item 2).
            far = free[grid.footprint_distance(free, o.footprint) >= NAV_MIN_START_GOAL_M + GOAL_REACH_M]
            other_room = far[self.h.nav_room.ravel()[far] != o.room]
            pool = other_room if len(other_room) else far
            if not len(pool):
                continue
            start = int(pool[int(self.rng.integers(len(pool)))])
            local = grid.path(start, goals)
            if local is None or len(local) < 4:
                continue
            xs, zs = self.h.world.xz(np.array([p[0] for p in local]), np.array([p[1] for p in local]))
            path = [[round(float(x), 2), round(float(z), 2)] for x, z in zip(xs, zs)]
            start_xz = path[0]
            q = T.question(
                "Navigation", self.rng, start=f"[{start_xz[0]:.2f}, {start_xz[1]:.2f}]", target=self._spoken(o.category, words(o.category))
            )
            a = T.answer("Navigation", self.rng, path="[" + ", ".join(f"[{x:.2f}, {z:.2f}]" for x, z in path) + "]")
            self._add("Navigation", {"query": q, "positions": path, "start": start_xz, "target": o.category}, a)
            made += 1

    # --- scene expression ----------------------------------------------------------------------
    def caption_text(self) -> tuple[str, list[str]]:
        """A varied scene caption: rooms in a random order, each told in one of several phrasings
        with a random subset of its objects (colour, support or neighbour attached); and the facts
        it states (room count and types, each listed object with its colour, room and support)."""
        rng = self.rng
        rooms = list(self.h.plan.rooms)
        order = [rooms[i] for i in rng.permutation(len(rooms))]

        one = self._one

        n = len(rooms)
        facts = [f"rooms: {n} ({', '.join(r.type for r in rooms)})"]
        parts = [
            one(
                (
                    f"A home of {_NUMBER.get(n, str(n))} rooms.",
                    f"The layout counts {n} rooms, among them {T.article(order[0].type)}.",
                    f"{_NUMBER.get(n, str(n)).capitalize()} rooms make up this flat.",
                    f"It is a {n}-room dwelling.",
                    f"There are {_fmt_names([T.article(r.type) for r in order])} here.",
                )
            )
        ]
        for r in order:
            objs = [o for o in self.f.visible if o.room == r.index and o.category not in ("doorway", "window")]
            if not objs:
                continue
            k = int(rng.integers(1, min(4, len(objs)) + 1))
            picked = [objs[i] for i in sorted(rng.permutation(len(objs))[:k])]
            names = []
            for o in picked:
                style = int(rng.integers(3))
                base = f"{o.color} {words(o.category)}" if style == 0 else words(o.category)
                if style == 2 and o.support:
                    base += f" on the {words(self.f.support_cat(o))}"
                names.append(T.article(base))
                sup = f", on the {words(self.f.support_cat(o))}" if o.support else ""
                facts.append(f"in the {r.type}: {o.color} {words(o.category)}{sup}")
            listed = _fmt_names(names)
            parts.append(
                one(
                    (
                        f"In the {r.type} you find {listed}.",
                        f"The {r.type} holds {listed}.",
                        f"{listed.capitalize()} can be seen in the {r.type}.",
                        f"Inside the {r.type}: {listed}.",
                        f"The {r.type} is furnished with {listed}.",
                        f"Walking into the {r.type}, there is {listed}.",
                    )
                )
            )
        return " ".join(parts), facts

    def scaption(self) -> None:
        ref, facts = self.caption_text()
        for _ in range(self.n("SCaption")):
            q = T.question("SCaption", self.rng)
            a = T.answer("SCaption", self.rng, caption=ref, n_rooms=len(self.h.plan.rooms))
            rec = {"query": q, "reference": ref, "rooms": self.scene_rooms, "objects": self.scene_objects, "facts": facts}
            self._add("SCaption", rec, a)

    def _svqa_items(self) -> list[tuple[str, str, list[str]]]:
        """(question, reference, facts) candidates of one house. Each answer states the asked fact
        in one of several phrasings and most add facts of this house (colour, size, neighbour, the
        rooms), so the answer to the same question in another house shares little beyond the
        question's noun: a retrieval of the nearest train question's answer scores near a random one."""
        one = self._one
        out: list[tuple[str, str, list[str]]] = []
        rooms = [r.type for r in self.h.plan.rooms]
        n = len(rooms)
        listed = _fmt_names([T.article(r) for r in rooms])
        nn = _NUMBER.get(n, str(n))
        room_fact = [f"rooms: {n} ({', '.join(rooms)})"]
        out.append(
            (
                "how many rooms does this house have?",
                one(
                    (
                        f"It has {n} rooms.",
                        f"{nn.capitalize()} rooms: {listed}.",
                        f"There are {n}: {listed}.",
                        f"I count {nn} rooms, {listed}.",
                        f"The house is made of {listed}, so {n} rooms.",
                    )
                ),
                room_fact,
            )
        )
        for o in self.f.unique_visible():
            if o.category in ("doorway", "window"):
                continue
            fx = self._obj_facts(o)
            w = fx["object"]
            given = given_by_category(o.category)
            forms = [(f"which room is the {w} in?", "room")] if "room" not in given else []
            forms += [(f"what colour is the {w}?", "colour")] if "colour" not in given else []
            forms.append((f"how big is the {w}?", self._one(("size", "height"))))
            forms += [(f"what is next to the {w}?", "near")] if "near" in fx else []
            forms += [(f"what is on the {w}?", "holds")] if "holds" in fx else []
            for qq, key in forms:
                used = {key, "size", "height"} if key in ("size", "height") else {key}
                aa, extra = self._with_extras(self._fact_sentence(key, fx), fx, used)
                out.append((qq, aa, self._facts_list(fx, used | set(extra) | {"object"})))
        present = {o.category for o in self.h.objects}
        absent = [c for c in CATEGORY_NAMES if c not in present]
        if absent:
            w = words(absent[int(self.rng.integers(len(absent)))])
            aa = one(
                (
                    f"No, there is no {w} in this house.",
                    f"No. The house has {listed}, but no {w}.",
                    f"There is none; none of its {n} rooms holds {T.article(w)}.",
                    f"No {w} anywhere in the {nn} rooms.",
                )
            )
            out.append((f"is there {T.article(w)} in this house?", aa, [f"absent: {w}", *room_fact]))
        # a yes-case about any visible thing (not always the first one, a doorway or window)
        pool = [o for o in self.f.visible if o.category not in ("doorway", "window")]
        if pool:
            o = pool[int(self.rng.integers(len(pool)))]
            fx = self._obj_facts(o)
            w, room, col = fx["object"], fx["room"], fx["colour"]
            aa = one(
                (
                    f"Yes, there is {T.article(w)} in the {room}.",
                    f"Yes: {T.article(col + ' ' + w)} in the {room}.",
                    f"Yes, the {room} has {T.article(w)}.",
                    f"It does; {T.article(col + ' ' + w)} stands in the {room}.",
                )
            )
            out.append((f"is there {T.article(w)} in this house?", aa, self._facts_list(fx, {"object", "room", "colour"})))
        return out

    def svqa(self) -> None:
        for qq, aa, facts in self._pick(self._svqa_items(), self.n("SVQA")):
            q = T.question("SVQA", self.rng, question=qq)
            a = T.answer("SVQA", self.rng, answer=aa, answer_lc=T.lower_first(aa))
            rec = {"query": q, "reference": aa, "rooms": self.scene_rooms, "objects": self.scene_objects, "facts": facts}
            self._add("SVQA", rec, a)


def house_tasks(house: House, coverage: dict[int, int], rng: np.random.Generator, s: TaskSettings, *, test: bool) -> Bench3DHouse:
    """All 3DBench samples of one house. ``test`` drops vertical pairs from position relation."""
    g = Generator(house, coverage, rng, s)
    g.classification()
    g.counting()
    g.detection()
    g.grounding()
    g.rooms()
    g.position(test)
    g.navigation()
    g.description()
    g.conversation()
    g.scaption()
    g.svqa()
    return Bench3DHouse(g.records, g.instructions, sorted(g.obj_uids), {i: g.obj_names[i] for i in g.obj_uids})
