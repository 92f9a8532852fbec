"""ScanQA data from a generated folder: questions about the ScanNet-shaped scenes of the generator's
ScanRefer export (``<out>/scanrefer``), answered from the scene truth (labels, boxes, colours, what
stands on what: :mod:`scenebench.synth.scene_truth`), in the released layout
``ScanQA_v1.0_{train,val,test_w_obj,test_wo_obj}.json`` with the scenes' ``scannet_data`` arrays.

Questions, one ``qclass1`` type each (``docs/synth.md``), only where the answer is unambiguous:

- Place: "Where is the <x>?" (x the only one of its class) -> "on <support>", or "next to <n>" when
  one object is nearest by at least 0.3 m;
- Number: "How many <xs> are there?" -> a number word (also a class absent from the scene: "zero");
- Color: "What color is the <x>?" / "What is the color of the <x>?" -> its palette colour;
- Object nature: "What kind/type of object is on the <s>?" -> the one thing on the only <s>, or
  "What kind/type of object is next to the <x>?" -> the clearly nearest object's class (the first
  reference; its colour and class the second: a reference containing the first);
- Object: "What is on the <s>?" / "What is next to the <x>?" (the same facts, the other wording: a
  seeded coin decides which of the two types asks each), "What is the <x> placed on?";
- Other: "Which is closer to the <a>: the <b> or the <c>?" (distances 0.75 m apart, order drawn).

Every question has 1-3 references: the first is a fixed point of every lineage's cleaning (what the
oracle answers; ``strict`` and every ``official`` lineage score it 100), the others paraphrase it
with the normalisation traps of the spec's section 1.6 (capitals, trailing periods, articles, ``2``
vs ``two``, ``0``/``none``, a reference containing another). Answers are balanced per question
type and split: no answer is kept more often than the median answer's count (so a per-type
majority guess earns little), records are shuffled before ids are given, and ids
``<split>-<scene>-<k>`` count within a scene in that shuffled order.

The test files hold the val questions without answers (``test_w_obj``) and also without objects
(``test_wo_obj``), ids ``test-<scene>-<k>``: what ``validate --submission`` checks.
"""

from __future__ import annotations

import math
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import atomic_write_json
from scenebench.metrics.answers import NUMBER_WORDS, cleaned_fixed_point, normalize
from scenebench.synth.categories import CATEGORIES
from scenebench.synth.scene_truth import SCENES, Scene, load_generated, plural

from .data import qclass1

EXPORT = "scanrefer"  # the generator's ScanRefer export: the scenes these questions are about
SEGMENTATION = "surprise3d"  # the export whose segment annotations name the scenes' instances


PER_SCENE_TYPE = 8  # questions of one type per scene at most (a house scene has ~50 objects)
NEAR_GAP = 0.3  # metres: the nearest object is nearer than the second by at least this
WHICH_GAP = 0.75  # metres: of two objects, the closer is closer by at least this
MIN_SUPPORTS = 3  # "on <support>" only for classes the generator puts on at least this many kinds of support (else guessed blind)
MIN_COLORS = 3  # colour questions only about classes the generator paints in at least this many colours (else guessed blind)


def references(first: str, *paraphrases: str) -> list[str]:
    """The canonical first answer, then up to two distinct paraphrases."""
    out = [cleaned_fixed_point(first)]
    for p in paraphrases:
        if p not in out and len(out) < 3:
            out.append(p)
    return out


def _nearest(scene: Scene, k: int) -> int | None:
    """The object nearest object ``k`` when clearly so (module docstring), else None."""
    c = scene.objects[k].centre
    d = sorted((float(np.linalg.norm(o.centre - c)), o.k) for o in scene.objects.values() if o.k != k)
    if not d or (len(d) > 1 and d[1][0] - d[0][0] < NEAR_GAP):
        return None
    return d[0][1]


Candidate = tuple[str, list[str], list[int]]  # (question, references, object ids)


def _candidates(scene: Scene, absent: list[str], rng: np.random.Generator) -> dict[str, list[Candidate]]:
    objs = scene.objects
    unique = {o.label: o.k for o in objs.values() if scene.count(o.label) == 1}
    on: dict[int, list[int]] = defaultdict(list)
    for o in objs.values():
        if o.on is not None:
            on[o.on].append(o.k)
    out: dict[str, list[Candidate]] = defaultdict(list)
    for label, k in sorted(unique.items()):
        o = objs[k]
        if o.on is not None and len(CATEGORIES[label].supports if label in CATEGORIES else ()) >= MIN_SUPPORTS:
            s = objs[o.on].label
            out["Place"].append((f"Where is the {label}?", references(f"on the {s}", f"On the {s}.", f"on top of the {s}"), [k, o.on]))
            out["Object"].append((f"What is the {label} placed on?", references(s, f"The {s}.", f"a {s}"), [k, o.on]))
        elif o.on is None:
            n = _nearest(scene, k)
            if n is not None:
                a = objs[n].label
                out["Place"].append((f"Where is the {label}?", references(f"next to the {a}", f"Beside the {a}.", f"next to {a}"), [k, n]))
        if o.color and len(CATEGORIES[label].colors if label in CATEGORIES else ()) >= MIN_COLORS:
            ask = f"What color is the {label}?" if rng.random() < 0.5 else f"What is the color of the {label}?"
            out["Color"].append((ask, references(o.color, f"{o.color.capitalize()}.", f"the {o.color} {label}."), [k]))
        n = _nearest(scene, k)
        if n is not None and objs[n].on != k and o.on != n:
            a = objs[n].label
            if rng.random() < 0.5:
                out["Object"].append((f"What is next to the {label}?", references(a, f"The {a}.", f"a {a}"), [k, n]))
            else:
                ask = f"What {'kind' if rng.random() < 0.5 else 'type'} of object is next to the {label}?"
                refs = references(a, f"{objs[n].color} {a}" if objs[n].color else f"The {a}.", f"The {a}.")
                out["Object nature"].append((ask, refs, [k, n]))
        items = on.get(k, [])
        if len(items) == 1:
            x = objs[items[0]]
            if rng.random() < 0.5:
                ask = f"What {'kind' if rng.random() < 0.5 else 'type'} of object is on the {label}?"
                refs = references(x.label, f"{x.color} {x.label}" if x.color else f"The {x.label}.", f"The {x.label}.")
                out["Object nature"].append((ask, refs, [k, x.k]))
            else:
                out["Object"].append((f"What is on the {label}?", references(x.label, f"The {x.label}.", f"a {x.label}"), [k, x.k]))
    for label in sorted({o.label for o in objs.values()}):
        c = scene.count(label)
        if c <= 20:
            # no object ids: how many it lists would be the answer (a metadata leak)
            out["Number"].append((f"How many {plural(label)} are there?", references(NUMBER_WORDS[c], str(c)), []))
    for label in absent:
        out["Number"].append((f"How many {plural(label)} are there?", references("zero", "0", "none"), []))
    names = sorted(unique)
    for a in names:
        others = [b for b in names if b != a]
        if len(others) < 2:
            break
        pick = rng.choice(len(others), size=2, replace=False)
        one, two = others[int(pick[0])], others[int(pick[1])]
        ka, k1, k2 = unique[a], unique[one], unique[two]
        d1 = float(np.linalg.norm(objs[k1].centre - objs[ka].centre))
        d2 = float(np.linalg.norm(objs[k2].centre - objs[ka].centre))
        if abs(d1 - d2) < WHICH_GAP:
            continue
        win = one if d1 < d2 else two
        out["Other"].append(
            (f"Which is closer to the {a}: the {one} or the {two}?", references(win, f"the {win}", f"The {win}."), [ka, k1, k2])
        )
    return out


def balance(cands: list[Candidate], rng: np.random.Generator) -> list[Candidate]:
    """At most the median answer's count of each answer (normalised first reference), seeded picks."""
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for c in cands:
        groups[normalize(c[1][0])].append(c)
    if not groups:
        return []
    cap = max(1, math.ceil(float(np.median([len(g) for g in groups.values()]))))
    kept: list[Candidate] = []
    for key in sorted(groups):
        g = groups[key]
        kept += [g[int(i)] for i in sorted(rng.permutation(len(g))[:cap])]
    return kept


def questions(scenes: list[Scene], rng: np.random.Generator) -> dict[str, list[dict[str, Any]]]:
    """The records of each split (``train``, ``val``), shuffled, with their ids."""
    vocabulary = sorted({o.label for s in scenes for o in s.objects.values()})
    out: dict[str, list[dict[str, Any]]] = {}
    for split in ("train", "val"):
        by_type: dict[str, list[tuple[str, Candidate]]] = defaultdict(list)
        for scene in (s for s in scenes if s.split == split):
            missing = [v for v in vocabulary if scene.count(v) == 0]
            absent = [missing[int(i)] for i in rng.permutation(len(missing))[:2]]
            for qtype, cands in _candidates(scene, absent, rng).items():
                picked = [cands[int(i)] for i in sorted(rng.permutation(len(cands))[:PER_SCENE_TYPE])]
                by_type[qtype] += [(scene.scene_id, c) for c in picked]
        recs: list[dict[str, Any]] = []
        names = {s.scene_id: s.objects for s in scenes}
        for qtype in sorted(by_type):
            tagged = {id(c): sid for sid, c in by_type[qtype]}
            for c in balance([c for _, c in by_type[qtype]], rng):
                question, refs, ids = c
                if qclass1(question) != qtype:  # the trigger strings are the type: a label must not change it
                    continue
                sid = tagged[id(c)]
                recs.append(
                    {
                        "scene_id": sid,
                        "question": question,
                        "answers": refs,
                        "object_ids": ids,
                        "object_names": [names[sid][k].label for k in ids],
                    }
                )
        recs = [recs[int(i)] for i in rng.permutation(len(recs))]
        count: dict[str, int] = defaultdict(int)
        for r in recs:
            r["question_id"] = f"{split}-{r['scene_id']}-{count[r['scene_id']]}"
            count[r["scene_id"]] += 1
        out[split] = recs
    return out


def write_synthetic(folder: Path, root: Path, summaries: list[dict[str, Any]], rng: np.random.Generator) -> list[Path]:
    src = root / EXPORT
    if not (src / "ScanRefer_filtered_val.json").is_file():
        return []  # derived from the ScanRefer export: without it, nothing to write
    scenes = load_generated(root / EXPORT, root / SEGMENTATION, summaries, "surprise3d_scenes", "surprise3d_objects")
    written: list[Path] = []
    (folder / SCENES).mkdir(parents=True, exist_ok=True)
    keys = ("question_id", "scene_id", "question", "answers", "object_ids", "object_names")
    splits = questions(scenes, rng)
    for split, recs in splits.items():
        path = folder / f"ScanQA_v1.0_{split}.json"
        atomic_write_json(path, [{k: r[k] for k in keys} for r in recs], indent=None)
        written.append(path)
    test = [{**r, "question_id": "test" + r["question_id"][len("val") :]} for r in splits["val"]]
    for name, drop in (("test_w_obj", ("answers",)), ("test_wo_obj", ("answers", "object_ids", "object_names"))):
        path = folder / f"ScanQA_v1.0_{name}.json"
        atomic_write_json(path, [{k: r[k] for k in keys if k not in drop} for r in test], indent=None)
        written.append(path)
    for scene in sorted({r["scene_id"] for recs in splits.values() for r in recs}):
        for kind in ("aligned_bbox", "aligned_vert", "ins_label"):
            shutil.copyfile(src / SCENES / f"{scene}_{kind}.npy", folder / SCENES / f"{scene}_{kind}.npy")
            written.append(folder / SCENES / f"{scene}_{kind}.npy")
    return written
