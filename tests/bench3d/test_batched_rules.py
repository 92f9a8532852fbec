"""The batched box rules of 3DBench (``score_*_many``: one numpy pass over all answers of a task)
against the per-answer rules they replaced (copied below verbatim as the reference), on many random
and adversarial answers, both protocols: same status, values (bit for bit, key order included) and
details."""

import json
import math
import random
from typing import Any

import numpy as np
import pytest

from scenebench.benchmarks.bench3d import parsing as P
from scenebench.benchmarks.bench3d import sample_scores as S
from scenebench.benchmarks.bench3d.records import Record, validate_record
from scenebench.benchmarks.bench3d.sample_scores import VOCAB, box_labels, missing_values, norm_label, official_within_1m
from scenebench.geometry.boxes import room_box_to_center_size
from scenebench.metrics import localization as L

Outcome = tuple[str, dict[str, float], dict[str, Any]]

# ----------------------------------------------------------------------------- reference (per answer)


def ref_score_grounding(rec: Record, text: str, protocol: str) -> Outcome:
    boxes = P.parse_boxes(text, protocol)
    gt = rec.gt["box"]
    detail: dict[str, Any] = {"n_boxes": len(boxes)}
    if len(boxes) != 1:
        status = "invalid"
        detail["reason"] = "no box" if not boxes else f"{len(boxes)} boxes (exactly one expected)"
        return status, missing_values("grounding", protocol), detail
    b = np.asarray(boxes[0])
    iou = float(L.box_iou(b, gt))
    detail["box"] = boxes[0]
    return (
        "scored",
        {
            "hit": float(L.around_box(b, gt, protocol)),
            "in_box": float(L.point_in_box(b[:3], gt)),
            "iou": iou,
            "iou25": float(iou >= 0.25),
            "iou50": float(iou >= 0.5),
        },
        detail,
    )


def ref_score_grounding_plus(rec: Record, text: str, protocol: str) -> Outcome:
    pt = P.parse_point(text, protocol)
    if pt is None:
        return "invalid", missing_values("grounding_plus", protocol), {"reason": "no point"}
    p = np.asarray(pt)
    gt = rec.gt["box"]
    detail: dict[str, Any] = {"point": pt}
    if protocol == "official":
        within = official_within_1m(pt, gt)
        if within is None:
            within = False
            detail["released_crash"] = "OverflowError: a squared offset beyond the float range (scored as a miss)"
    else:
        within = bool(np.linalg.norm(p - gt[:3]) <= L.AROUND_M)
    return "scored", {"in_box": float(L.point_in_box(p, gt)), "within_1m": float(within)}, detail


def ref_score_boxes(rec: Record, text: str, protocol: str, rooms: bool) -> Outcome:
    """Detection / room detection; official counts per GT any box, strict matches one-to-one."""
    spans = P.parse_box_spans(text, protocol)
    gt_labels: list[str] = rec.gt["labels"]
    gt_boxes = rec.gt["boxes"]
    n_pred = len(spans)
    pred = np.asarray([s.values for s in spans], dtype=float).reshape(-1, 6)
    if rooms:  # (x, z, y, lx, lz, h) -> (x, y, z, lx, h, lz); IoU needs both in one order
        pred_c, gt_c = room_box_to_center_size(pred), room_box_to_center_size(gt_boxes)
    else:
        pred_c, gt_c = pred, gt_boxes
    detail: dict[str, Any] = {"n_boxes": n_pred}
    if n_pred and len(gt_c):
        ok = L.box_iou_matrix(pred_c, gt_c) if rooms else L.center_in_box_matrix(pred_c, gt_c).astype(float)
    else:
        ok = np.zeros((n_pred, len(gt_c)))
    if protocol == "official":
        low = text.lower()
        # released: detection tests the label as written against the lower-cased answer (so "Chair"
        # never matches); room detection lower-cases both
        named = np.array([(lab.lower() if rooms else lab) in low for lab in gt_labels], dtype=bool)
        if rooms:  # boxes as written, (x, z, y, lx, lz, h): the released IoU never reorders them
            iou, crash = L.official_room_iou(np.asarray(gt_boxes, float).reshape(-1, 6), pred)
            found = (iou > 0.5).any(axis=1) if n_pred else np.zeros(len(gt_labels), dtype=bool)
            if crash[named].any():
                detail["released_crash"] = "ZeroDivisionError: a zero-volume GT and predicted box pair (scored as no match)"
        else:
            found = L.official_detection_hits(pred, np.asarray(gt_boxes, float).reshape(-1, 6), named)
        hits = int((named & found).sum()) if n_pred else 0
        vals = {"hits": float(hits), "n_pred": float(n_pred)}
    else:
        cands = tuple(sorted({*gt_labels, *VOCAB}))
        gt_norm = np.array([norm_label(g) for g in gt_labels], dtype=object)
        default = gt_labels[0] if len(set(gt_norm.tolist())) == 1 else None
        labels = box_labels(text, spans, cands, default)
        pred_norm = np.array([norm_label(lab) if lab is not None else "\x00" for lab in labels], dtype=object)
        same = (pred_norm[:, None] == gt_norm[None, :]).astype(bool).reshape(n_pred, len(gt_labels))
        valid = same & ((ok >= 0.5) if rooms else (ok > 0))
        cost = 1.0 - ok if rooms else None
        tp = L.match_count(valid, cost)
        vals = {"tp": float(tp), "n_pred": float(n_pred), "n_gt": float(len(gt_labels))}
        detail["labels"] = labels
    status = "scored" if n_pred else "invalid"
    if not n_pred:
        detail["reason"] = "no box"
    return status, vals, detail


# ----------------------------------------------------------------------------- random answers

LABELS = ["chair", "Chair", "dining table", "DiningTable", "sofa", "Kitchen", "LivingRoom", "Bedroom", "bathroom", "armchair", "vase"]
SPECIAL = [0.0, -0.0, 1e400, -1e400, 1e308, 0.005, 0.01, 0.25, 0.5, 1.0, -1.0]


def num(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.15:
        return repr(rng.choice(SPECIAL)).replace("inf", "1e400")
    if r < 0.25:
        return str(rng.randint(-3, 3))
    return f"{rng.uniform(-3, 3):.{rng.randint(0, 3)}f}"


def group(rng: random.Random, k: int) -> str:
    o, c = rng.choice(["[]", "()", "【】", "（）"])
    sep = rng.choice([", ", ",", " ", "，"])
    return o + sep.join(num(rng) + rng.choice(["", "", "", " m", "cm", " mm"]) for _ in range(k)) + c


def answer(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 5)):
        r = rng.random()
        if r < 0.3:
            parts.append(f"a {rng.choice(LABELS)}{rng.choice(['', 's'])} at")
        parts.append(group(rng, rng.choice([6, 6, 6, 3, 3, 2, 12, 1])) if r < 0.85 else num(rng))
    if rng.random() < 0.1:
        parts.append("no idea")
    return " ".join(parts)


def gt_box(rng: random.Random) -> list[float]:
    b = [rng.uniform(-2, 2) for _ in range(3)] + [rng.uniform(0, 2) for _ in range(3)]
    if rng.random() < 0.2:
        b[rng.randrange(6)] = rng.choice([0.0, 0.005, -0.5, 2.0])
    return [round(v, rng.randint(0, 2)) for v in b]


def record(task: str, rng: random.Random) -> Any:
    base = {"question_id": "q", "id": "1", "pcl": "p.npy", "query": "q"}
    if task in ("detection", "room_detection"):
        objs = [{"label": rng.choice(LABELS), "bbox": gt_box(rng)} for _ in range(rng.randint(0, 4))]
        return validate_record(task, {**base, "object": objs})
    if task == "visual_grounding_plus":
        return validate_record(task, {**base, "bbox": gt_box(rng)})
    return validate_record(task, {**base, "object": gt_box(rng), "name": "vase"})


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN, -0.0 not equal to 0.0, dict key order included."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("protocol", ["strict", "official"])
@pytest.mark.parametrize("task", ["visual_grounding", "visual_grounding_plus", "detection", "room_detection"])
def test_batched_rules_match_the_per_answer_rules(task, protocol):
    rng = random.Random(f"{task}-{protocol}")
    items = [(record(task, rng), answer(rng)) for _ in range(1500)]
    with np.errstate(all="ignore"):
        if task == "visual_grounding":
            got, ref = S.score_grounding_many(items, protocol), [ref_score_grounding(r, t, protocol) for r, t in items]
        elif task == "visual_grounding_plus":
            got, ref = S.score_grounding_plus_many(items, protocol), [ref_score_grounding_plus(r, t, protocol) for r, t in items]
        else:
            rooms = task == "room_detection"
            got = S.score_boxes_many(items, protocol, rooms)
            ref = [ref_score_boxes(r, t, protocol, rooms) for r, t in items]
    scored = sum(o[0] == "scored" for o in ref)
    assert scored > 300  # the random answers do reach the metrics
    for (rec, text), g, r in zip(items, got, ref):
        assert same(g, r), (text, rec.gt, g, r)
        assert json.dumps(g, default=str) == json.dumps(r, default=str)
    # and one at a time (a batch of one) gives the same
    for k, (rec, text) in enumerate(items[:50]):
        with np.errstate(all="ignore"):
            if task == "visual_grounding":
                one = S.score_grounding(rec, text, protocol)
            elif task == "visual_grounding_plus":
                one = S.score_grounding_plus(rec, text, protocol)
            else:
                one = S.score_boxes(rec, text, protocol, task == "room_detection")
        assert same(one, got[k])


def test_match_matrices_equal_the_per_answer_matrices():
    rng = np.random.default_rng(18)
    for rooms in (False, True):
        pairs = []
        for _ in range(400):
            n, m = rng.integers(0, 5, 2)
            p = rng.normal(size=(n, 6)) * rng.choice([0.01, 1, 3])
            g = rng.normal(size=(m, 6))
            if n and rng.random() < 0.2:
                p[rng.integers(n), rng.integers(6)] = rng.choice([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e308])
            pairs.append((p, g))
        with np.errstate(all="ignore"):
            got = S.match_matrices(pairs, rooms)
            for (p, g), mat in zip(pairs, got):
                if len(p) and len(g):
                    ref = L.box_iou_matrix(p, g) if rooms else L.center_in_box_matrix(p, g).astype(float)
                else:
                    ref = np.zeros((len(p), len(g)))
                assert mat.shape == ref.shape
                np.testing.assert_array_equal(mat, ref)
                assert (np.signbit(mat) == np.signbit(ref)).all()


# ----------------------------------------------------------------------------- label mentions

from scenebench.benchmarks.bench3d.sample_scores import _WORD, MAX_LABEL_WORDS, _label_lookup, _which  # noqa: E402


def ref_label_mentions(text: str, candidates: tuple[str, ...]) -> list[tuple[int, str]]:
    """(end offset, label) of every whole-word mention of a candidate in lower-cased ``text``.

    A mention is one to three consecutive words joined by at most one space, ``_`` or ``-`` each
    ("dining table" = "diningtable"), optionally plural; at each word the longest mention wins, so
    "armchair" is never read as "chair" and "coffee table" is one mention.
    """
    lookup = _label_lookup(candidates)
    ms = list(_WORD.finditer(text))
    words = [m.group() for m in ms]
    ends = [m.end() for m in ms]
    # joinable[k]: word k and k+1 are separated by nothing or one space / "_" / "-"
    joinable = [ms[k + 1].start() - ends[k] <= 1 and (ms[k + 1].start() == ends[k] or text[ends[k]] in " _-") for k in range(len(ms) - 1)]
    out: list[tuple[int, str]] = []
    i, n_words = 0, len(words)
    while i < n_words:
        step, joined, found = 1, "", None
        for n in range(min(MAX_LABEL_WORDS, n_words - i)):
            if n and not joinable[i + n - 1]:
                break
            joined += words[i + n]
            lab = _which(joined, lookup)
            if lab is not None:
                found, step = (ends[i + n], lab), n + 1  # keep looking: the longest mention wins
        if found:
            out.append(found)
        i += step
    return out


WORDS = [
    "chair",
    "chairs",
    "arm",
    "armchair",
    "dining",
    "table",
    "tables",
    "coffee",
    "coffeetable",
    "paper",
    "towel",
    "roll",
    "rolls",
    "box",
    "boxes",
    "boxe",
    "living",
    "room",
    "livingroom",
    "bed",
    "beds",
    "bedroom",
    "s",
    "es",
    "the",
    "a",
    "of",
    "kitchens",
    "tv",
    "stand",
    "teddy",
    "bear",
    "desk",
    "lamp",
    "desklamp",
    "sofa",
    "Sofa",
    "dog",
    "doorway",
    "wash",
    "ing",
    "machine",
    "x",
    "7",
]


def test_label_mentions_match_the_reference():
    rng = random.Random(5)
    cand_sets = [tuple(sorted({*VOCAB})), tuple(sorted({"Dining Table", "arm", "armchair", "tv-stand", *VOCAB})), ("chair",), ("a b",)]
    for _ in range(20000):
        text = "".join(
            rng.choice(WORDS) + rng.choice([" ", " ", "_", "-", "  ", ", ", "", "[1, 2] ", ". "]) for _ in range(rng.randint(0, 14))
        )
        text = text.lower()
        for cands in cand_sets:
            assert S.label_mentions(text, cands) == ref_label_mentions(text, cands), (text, cands)


# ----------------------------------------------------------------------------- navigation

from scenebench.metrics import navigation as N  # noqa: E402


def ref_score_navigation(rec: Record, text: str, protocol: str) -> Outcome:
    pts = P.parse_waypoints(text, protocol)
    gt = rec.gt["positions"]
    if not pts:
        return "invalid", missing_values("navigation", protocol), {"reason": "no waypoint"}
    p = np.asarray(pts, dtype=float)
    detail: dict[str, Any] = {"n_waypoints": len(pts)}
    if protocol == "official":
        off = N.official_path_loss(p, gt)
        if off is None:
            detail["released_crash"] = "OverflowError: a squared offset beyond the float range (scored as a failure)"
        elif not math.isfinite(off):
            detail["released_inf"] = "the released path loss is inf (scored as a failure, left out of mean_path_loss)"
            off = None
        loss = math.nan if off is None else off  # no released loss: left out of mean_path_loss
        ok = N.path_success(loss, len(gt))
    else:
        loss = N.strict_path_loss(p, gt)
        detail["goal_distance"] = N.goal_distance(p, gt)
        ok = N.strict_success(loss, detail["goal_distance"], len(gt))
    detail["loss"] = loss
    return "scored", {"success": float(ok), "loss": loss, "spl": N.spl(ok, p, gt), "ndtw": N.ndtw(p, gt)}, detail


def nav_answer(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.1:
        return rng.choice(["", "go to the fridge", "1 2 3", "(1, 2, 3, 4)"])
    k = rng.choice([2, 2, 2, 3]) if r < 0.9 else rng.choice([1, 4])
    return " -> ".join(group(rng, k) for _ in range(rng.randint(1, 14)))


@pytest.mark.parametrize("protocol", ["strict", "official"])
def test_batched_navigation_matches_the_per_answer_rules(protocol):
    rng = random.Random(f"nav-{protocol}")
    items = []
    for _ in range(1500):
        pos = [[round(rng.uniform(-4, 4), rng.randint(0, 2)), round(rng.uniform(-4, 4), 2)] for _ in range(rng.randint(1, 12))]
        rec = validate_record("navigation", {"question_id": "q", "id": "1", "pcl": "p", "query": "q", "positions": pos})
        items.append((rec, nav_answer(rng)))
    with np.errstate(all="ignore"):
        got = S.score_navigation_many(items, protocol)
        ref = [ref_score_navigation(r, t, protocol) for r, t in items]
    # strict refuses coordinates beyond 1e9 (io.numbers): fewer of these fuzzed answers are readable there
    assert sum(o[0] == "scored" for o in ref) > 700
    for (rec, text), g, r in zip(items, got, ref):
        assert same(g, r), (text, g, r)
        assert json.dumps(g) == json.dumps(r)


def test_dtw_many_equals_dtw():
    rng = np.random.default_rng(3)
    preds, gts = [], []
    for _ in range(1200):
        n, m = int(rng.integers(0, 15)), int(rng.integers(0, 15))
        p = rng.normal(size=(n, 2)) * rng.choice([0.1, 1, 5, 1e154])
        g = rng.normal(size=(m, 2)) * 3
        if n and rng.random() < 0.15:
            p[rng.integers(n), rng.integers(2)] = rng.choice([np.inf, -np.inf, np.nan, -0.0, 1e308])
        preds.append(p)
        gts.append(g)
    preds.append(rng.normal(size=(100, 2)))  # beyond DTW_BATCH_MAX_CELLS: one at a time
    gts.append(rng.normal(size=(50, 2)))
    with np.errstate(all="ignore"):
        got = N.dtw_many(preds, gts)
        ref = [N.dtw(p, g) for p, g in zip(preds, gts)]
    for a, b in zip(got, ref):
        assert same(a, b), (a, b)


# ----------------------------------------------------------------------------- bootstrap weights

from scenebench.benchmarks.bench3d.scorer import _primary_value, task_columns  # noqa: E402
from scenebench.benchmarks.bench3d.scorer import aggregate as new_aggregate  # noqa: E402
from scenebench.benchmarks.bench3d.specs import Primary  # noqa: E402
from scenebench.metrics.records import SampleScore  # noqa: E402


def ref_house_sums(records: list[SampleScore], p: Primary, house_index: dict[str, int]) -> dict[str, np.ndarray]:
    n = len(house_index)
    cols: dict[str, np.ndarray] = {}
    hid = np.array([house_index[r.scene_id] for r in records], dtype=int)
    if p.kind == "mean":
        x = np.array([r.values.get(p.fields[0], math.nan) for r in records], dtype=float)
        ok = ~np.isnan(x)
        cols[p.fields[0]] = np.stack([np.bincount(hid, np.where(ok, x, 0.0), n), np.bincount(hid, ok.astype(float), n)])
    else:
        for f in p.fields:
            x = np.array([r.values.get(f, math.nan) for r in records], dtype=float)
            cols[f] = np.bincount(hid, np.nan_to_num(x), n)
    return cols


def ref_aggregate(
    records_by_task: dict[str, list[SampleScore]], primaries: dict[str, Primary], *, n_resamples: int, seed: int, level: float = 0.95
) -> tuple[float | None, list[float] | None, list[str]]:
    """Mean of the tasks' primary metrics (percent), with a bootstrap that resamples houses jointly.

    Tasks whose primary is unavailable (e.g. judge scores with ``--judge none``) are left out and
    the included tasks are returned, so every aggregate says what it averages.
    """
    houses = sorted({r.scene_id for rs in records_by_task.values() for r in rs})
    index = {h: i for i, h in enumerate(houses)}
    sums = {t: ref_house_sums([r for r in rs if r.status != "excluded"], primaries[t], index) for t, rs in records_by_task.items()}
    point = {t: _primary_value(primaries[t], sums[t]) for t in records_by_task}
    used = [t for t, v in point.items() if v is not None]
    if not used:
        return None, None, []
    value = float(np.mean([point[t] for t in used]))
    if n_resamples <= 0 or not houses:
        return value, None, used
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(houses), size=(n_resamples, len(houses)))
    w = np.zeros((n_resamples, len(houses)))
    np.add.at(w, (np.repeat(np.arange(n_resamples), len(houses)), draws.ravel()), 1.0)
    boot = np.stack([_primary_value(primaries[t], sums[t], w) for t in used])  # tasks x resamples
    with np.errstate(invalid="ignore"):
        means = np.nanmean(np.where(np.isfinite(boot), boot, np.nan), axis=0) if boot.size else np.array([])
    means = means[np.isfinite(means)]
    a = (1 - level) / 2
    ci = [float(np.quantile(means, a)), float(np.quantile(means, 1 - a))] if means.size else None
    return value, ci, used


def test_aggregate_bootstrap_matches_the_add_at_reference():
    from scenebench.benchmarks.bench3d.specs import task_specs
    from scenebench.benchmarks.bench3d.tasks import TASKS

    rng = random.Random(11)
    for protocol in ("strict", "official"):
        prim = {t: task_specs(t, protocol)[1] for t in TASKS if TASKS[t].kind != "text"}
        for trial in range(4):
            by_task = {}
            for t, p in prim.items():
                recs = []
                for k in range(rng.randint(1, 60)):
                    vals = {f: float(rng.randint(0, 3)) for f in p.fields if rng.random() < 0.95}
                    if vals and rng.random() < 0.05:
                        vals[next(iter(vals))] = math.nan
                    status = rng.choice(["scored"] * 8 + ["invalid", "excluded"])
                    recs.append(SampleScore(f"{t}:{k}", f"h{rng.randint(0, 2 + trial * 5)}", status, vals, {"task": t}, {}))
                by_task[t] = recs
            columns = {t: task_columns(rs, prim[t]) for t, rs in by_task.items()}
            for seed in (0, 5):
                got = new_aggregate(by_task, prim, n_resamples=200, seed=seed)
                assert got == ref_aggregate(by_task, prim, n_resamples=200, seed=seed)
                assert got[1] is not None
                some = dict(list(columns.items())[trial : trial + 3])  # the columns read once serve any group of tasks
                got = new_aggregate(some, prim, n_resamples=200, seed=seed)
                assert got == ref_aggregate({t: by_task[t] for t in some}, prim, n_resamples=200, seed=seed)
