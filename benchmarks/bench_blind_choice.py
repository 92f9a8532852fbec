"""Question-only shortcuts of the 3DBench multiple-choice tasks (issue 25 item 3). Prints figures.

Builds houses in process exactly as ``scenebench generate`` does (same seeds, split rule and
default sensor), keeps the classification, counting and position-relation records, "trains" a few
question-only predictors on the train split and scores them on the test split:

- ``form value``: per normalised question form, the option value most often right in train;
- ``form+noun value``: the same with the counted noun / the asked categories added to the form;
- ``option rate``: the option whose value was right most often per time it was offered in train;
- ``form letter``: per form, the letter most often right in train.

Forms: counting = kind of set (category in the house / in one room, furniture on a room's floor,
items on a support); position relation = which of the two asked objects is the faced one
(subject, reference, neither); classification has one form. Chance is 1/options. Nothing is
fitted beyond counting; a house takes ≈0.3 s.

Usage: python benchmarks/bench_blind_choice.py [--houses 40] [--seed 11] [--test-every 2]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np  # noqa: E402

from scenebench.synth.house import build_house  # noqa: E402
from scenebench.synth.relations import sentence  # noqa: E402
from scenebench.synth.sensing import SensorSettings, capture  # noqa: E402
from scenebench.synth.tasks3d import TaskSettings, house_tasks  # noqa: E402

STEMS = ("Classification", "Counting", "PositionRelation")


def _count_kind(r: dict) -> str:
    q = r["query"].split(" Options:")[0]
    if r["object"] == "furniture":
        return "floor"
    if r["object"] == "item":
        return "support"
    return "house" if "in the house" in q else "room"


def _relation_of(choice: str, a: str, b: str) -> str:
    for rel in ("left", "right", "front", "behind", "front-left", "front-right", "behind-left", "behind-right", "above", "below"):
        if sentence(rel, a, b) == choice:
            return rel
    raise ValueError(f"unparsed relation option {choice!r}")


def features(stem: str, r: dict) -> tuple[str, str, list]:
    """(form, form+noun, option values) as a question-only reader sees them."""
    if stem == "Counting":
        kind = _count_kind(r)
        return kind, f"{kind}|{r['object']}", list(r["gt_choices"])
    if stem == "PositionRelation":
        from scenebench.synth.relations import words

        a, b = r["objects"]
        faced = r["viewpoint"][1]
        role = "subject" if a == faced else "reference" if b == faced else "neither"
        vals = [_relation_of(c, words(a), words(b)) for c in r["gt_choices"]]
        return role, f"{role}|{a}|{b}", vals
    return "all", "all", list(r["gt_choices"])


def collect(houses: int, seed: int, test_every: int) -> dict[str, dict[str, list]]:
    out: dict[str, dict[str, list]] = {s: {"train": [], "test": []} for s in STEMS}
    for i in range(houses):
        test = i % test_every == test_every - 1
        h = build_house(seed, i)
        cap = capture(h, SensorSettings(), np.random.default_rng([seed, i, 1]))
        b = house_tasks(h, cap.coverage, np.random.default_rng([seed, i, 2]), TaskSettings(), test=test)
        for s in STEMS:
            out[s]["test" if test else "train"].extend(b.records[s])
    return out


def _argmax(vals: list, score) -> int:
    best = max(range(len(vals)), key=lambda k: (score(vals[k]), -k))
    return best


def evaluate(stem: str, train: list[dict], test: list[dict]) -> dict[str, float]:
    by_form: dict[str, Counter] = defaultdict(Counter)
    by_fine: dict[str, Counter] = defaultdict(Counter)
    letters: dict[str, Counter] = defaultdict(Counter)
    right, offered, overall = Counter(), Counter(), Counter()
    for r in train:
        form, fine, vals = features(stem, r)
        ans = vals[r["gt_choice"]]
        by_form[form][ans] += 1
        by_fine[fine][ans] += 1
        letters[form][r["gt_choice"]] += 1
        overall[ans] += 1
        right[ans] += 1
        offered.update(vals)
    hits: Counter = Counter()
    for r in test:
        form, fine, vals = features(stem, r)
        g = r["gt_choice"]
        fc, nc = by_form[form], by_fine[fine]
        hits["form value"] += _argmax(vals, lambda v, fc=fc: (fc[v], overall[v])) == g
        hits["form+noun value"] += _argmax(vals, lambda v, fc=fc, nc=nc: (nc[v], fc[v], overall[v])) == g
        hits["option rate"] += _argmax(vals, lambda v: right[v] / offered[v] if offered[v] else 0.0) == g
        lc = letters[form]
        hits["form letter"] += (max(range(len(vals)), key=lambda k: (lc[k], -k)) if lc else 0) == g
    n = max(len(test), 1)
    return {k: 100.0 * v / n for k, v in hits.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--houses", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--test-every", type=int, default=2)
    a = ap.parse_args()
    data = collect(a.houses, a.seed, a.test_every)
    print("| task | train | test | chance | form value | form+noun value | option rate | form letter | test answers per form |")
    print("|---|---|---|---|---|---|---|---|---|")
    for stem in STEMS:
        tr, te = data[stem]["train"], data[stem]["test"]
        if not te:
            continue
        acc = evaluate(stem, tr, te)
        k = len(te[0]["gt_choices"])
        forms: dict[str, Counter] = defaultdict(Counter)
        for r in te:
            form, _, vals = features(stem, r)
            forms[form][vals[r["gt_choice"]]] += 1
        spread = "; ".join(f"{f}: {dict(sorted(c.items()))}" for f, c in sorted(forms.items()))
        cells = " | ".join(f"{acc[m]:.1f}" for m in ("form value", "form+noun value", "option rate", "form letter"))
        print(f"| {stem} | {len(tr)} | {len(te)} | {100 / k:.1f} | {cells} | {spread} |")


if __name__ == "__main__":
    main()
