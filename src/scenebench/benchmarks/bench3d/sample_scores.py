"""Score one 3DBench answer against its record: (status, per-sample values, detail).

Values are the per-sample fields of :mod:`scenebench.benchmarks.bench3d.specs`. A missing answer
is worth 0 on every rate (denominators are the records); an answer nothing can be read from is
``invalid`` and also worth 0 — except where the released script divides by parsed answers only
(visual grounding plus, ``official``), which is then reproduced with NaN (not counted).
"""

from __future__ import annotations

import bisect
import math
import re
from functools import lru_cache
from typing import Any

import numpy as np

from scenebench.benchmarks.bench3d import parsing as P
from scenebench.benchmarks.bench3d.choice import rotate, score_choice
from scenebench.benchmarks.bench3d.records import Record
from scenebench.geometry.boxes import room_box_to_center_size
from scenebench.metrics import localization as L
from scenebench.metrics import navigation as N
from scenebench.protocol import Protocol

Outcome = tuple[str, dict[str, float], dict[str, Any]]

# 3DBench's 93 object categories and room types: candidate labels for boxes in strict answers.
VOCAB = (
    "alarmclock apple armchair baseballbat basketball bed book boots bottle bowl box bread butterknife candle cart "
    "cellphone chair cloth clothesdryer coffeemachine coffeetable countertop creditcard cup desk desklamp desktop "
    "diningtable dishsponge dogbed doorway dresser dumbbell egg faucet floorlamp fork fridge garbagebag garbagecan "
    "houseplant kettle keychain knife ladle laptop laundryhamper lettuce microwave mug newspaper ottoman painting pan "
    "papertowelroll pen pencil peppershaker pillow plate plunger pot potato remotecontrol safe saltshaker "
    "shelvingunit sidetable sink soapbar soapbottle sofa spatula spoon spraybottle statue stool tabletopdecor "
    "teddybear television tennisracket tissuebox toaster toilet toiletpaper tomato tvstand vacuumcleaner vase "
    "washingmachine watch window winebottle cabinet shelf kitchen livingroom bedroom bathroom"
).split()


_NON_ALNUM = re.compile(r"[^0-9a-z]")


@lru_cache(maxsize=8192)
def norm_label(s: str) -> str:
    """``"Living room"``, ``"living_room"``, ``"LivingRoom"`` -> ``"livingroom"``."""
    return _NON_ALNUM.sub("", s.lower())


_WORD = re.compile(r"[a-z]+")
MAX_LABEL_WORDS = 3  # "paper towel roll"


@lru_cache(maxsize=256)
def _label_lookup(candidates: tuple[str, ...]) -> dict[str, str]:
    """Normalised form (``"diningtable"``) -> candidate label as given."""
    lookup: dict[str, str] = {}
    for c in sorted(candidates, key=lambda c: -len(norm_label(c))):
        if norm_label(c):
            lookup.setdefault(norm_label(c), c)
    return lookup


@lru_cache(maxsize=256)
def _label_prefixes(candidates: tuple[str, ...]) -> frozenset[str]:
    """Every prefix of every form :func:`_which` accepts (``label``, ``label + "s"``, ``label + "es"``):
    words joined so far that are not in it can never become a mention, however many follow."""
    return frozenset(f[:k] for key in _label_lookup(candidates) for f in (key, key + "s", key + "es") for k in range(1, len(f) + 1))


def _which(joined: str, lookup: dict[str, str]) -> str | None:
    """The label ``joined`` names, also in plural (``chairs``, ``boxes``)."""
    lab = lookup.get(joined)
    if lab is None and joined[-1:] == "s":
        lab = lookup.get(joined[:-1])
        if lab is None and joined[-2:] == "es":
            lab = lookup.get(joined[:-2])
    return lab


def label_mentions(text: str, candidates: tuple[str, ...]) -> list[tuple[int, str]]:
    """(end offset, label) of every whole-word mention of a candidate in lower-cased ``text``.

    A mention is one to three consecutive words joined by at most one space, ``_`` or ``-`` each
    ("dining table" = "diningtable"), optionally plural; at each word the longest mention wins, so
    "armchair" is never read as "chair" and "coffee table" is one mention.
    """
    lookup = _label_lookup(candidates)
    prefixes = _label_prefixes(candidates)
    ms = list(_WORD.finditer(text))
    out: list[tuple[int, str]] = []
    i, n_words = 0, len(ms)
    while i < n_words:
        m = ms[i]
        joined = m.group()
        step, found = 1, None
        if joined in prefixes:  # (most words start no label: one set lookup)
            end = m.end()
            lab = _which(joined, lookup)
            if lab is not None:
                found = (end, lab)
            for n in range(1, min(MAX_LABEL_WORDS, n_words - i)):
                nxt = ms[i + n]
                gap = nxt.start()
                # joinable: separated by nothing or one space / "_" / "-"
                if gap - end > 1 or (gap != end and text[end] not in " _-"):
                    break
                joined += nxt.group()
                if joined not in prefixes:
                    break
                end = nxt.end()
                lab = _which(joined, lookup)
                if lab is not None:
                    found, step = (end, lab), n + 1  # keep looking: the longest mention wins
        if found:
            out.append(found)
        i += step
    return out


@lru_cache(maxsize=1024)
def _candidates(gt_labels: tuple[str, ...]) -> tuple[str, ...]:
    """Labels a strict answer's boxes may name: the record's GT labels and :data:`VOCAB`, sorted."""
    return tuple(sorted({*gt_labels, *VOCAB}))


def box_labels(text: str, spans: list[P.Span], candidates: tuple[str, ...], default: str | None) -> list[str | None]:
    """Label of each box: the last candidate named between the previous box and this one (whole words).

    Boxes without a name take ``default`` (the record's only GT label, when it has just one).
    """
    found = label_mentions(P.normalize_text(text).lower(), candidates)
    ends = [e for e, _ in found]
    out: list[str | None] = []
    prev_end = 0
    for s in spans:
        best = None
        if s.start >= 0:
            k = bisect.bisect_right(ends, s.start) - 1  # last label ending before this box
            if k >= 0 and ends[k] >= prev_end:
                best = found[k][1]
        out.append(best if best is not None else default)
        prev_end = s.end if s.end >= 0 else prev_end
    return out


def missing_values(kind: str, protocol: Protocol) -> dict[str, float]:
    """What a missing answer is worth: 0 on every rate, NaN where the field is undefined."""
    nan = math.nan
    return {
        "choice": {"correct": 0.0, "rot_correct": 0.0, "parsed": 0.0},
        "grounding": {"hit": 0.0, "in_box": 0.0, "iou": 0.0, "iou25": 0.0, "iou50": 0.0},
        "grounding_plus": {"in_box": 0.0, "within_1m": nan if protocol == "official" else 0.0},
        "detection": {"hits": 0.0, "tp": 0.0, "n_pred": 0.0},
        "room_detection": {"hits": 0.0, "tp": 0.0, "n_pred": 0.0},
        "navigation": {"success": 0.0, "loss": nan, "spl": 0.0, "ndtw": 0.0},
        "text": {},
    }[kind]


def score_choice_record(
    rec: Record, text: str | None, protocol: Protocol, *, rotation: int | None = None, llm_choice: int | None = None
) -> tuple[bool | None, int | None, str, bool]:
    """(correct or None when missing, chosen index, rule, parsed) for one (possibly rotated) answer.

    ``llm_choice`` (the judge's ``option`` verdict) is used in ``strict`` only, and only when no
    rule could read the answer.
    """
    if text is None:
        return None, None, "missing", False
    options, gt = rec.gt["choices"], rec.gt["answer"]
    if rotation is not None:
        options, gt = rotate(options, gt, rotation)
    out = score_choice(text, options, gt, task=rec.task, protocol=protocol)
    if protocol == "strict" and not out.parsed and llm_choice is not None:
        return llm_choice == gt, llm_choice, "llm", True
    return out.correct, out.chosen, out.rule, out.parsed


def _boxes_of(items: list[tuple[Record, str]], protocol: Protocol) -> list[list[list[float]]]:
    return [P.parse_boxes(text, protocol) for _, text in items]


def _points_of(items: list[tuple[Record, str]], protocol: Protocol) -> list[list[float] | None]:
    return [P.parse_point(text, protocol) for _, text in items]


def score_grounding(rec: Record, text: str, protocol: Protocol) -> Outcome:
    return score_grounding_many([(rec, text)], protocol)[0]


def score_grounding_many(items: list[tuple[Record, str]], protocol: Protocol) -> list[Outcome]:
    """:func:`score_grounding` of many answers: boxes read at once (strict; official one by one), the
    metrics computed on the stacked (answers, 6) boxes at once (elementwise, so each row's values
    are those of one box)."""
    parsed = _boxes_of(items, protocol)
    one = [k for k, boxes in enumerate(parsed) if len(boxes) == 1]
    out: list[Outcome] = []
    for boxes in parsed:
        if len(boxes) != 1:
            reason = "no box" if not boxes else f"{len(boxes)} boxes (exactly one expected)"
            out.append(("invalid", missing_values("grounding", protocol), {"n_boxes": len(boxes), "reason": reason}))
        else:
            out.append(("scored", {}, {"n_boxes": 1, "box": boxes[0]}))
    if one:
        b = np.array([parsed[k][0] for k in one], dtype=float).reshape(-1, 6)
        gt = np.array([items[k][0].gt["box"] for k in one], dtype=float).reshape(-1, 6)
        iou = L.box_iou(b, gt).tolist()
        hit = L.around_box(b, gt, protocol).tolist()
        in_box = L.point_in_box(b[:, :3], gt).tolist()
        for j, k in enumerate(one):
            v = out[k][1]
            v["hit"], v["in_box"], v["iou"] = float(hit[j]), float(in_box[j]), iou[j]
            v["iou25"], v["iou50"] = float(iou[j] >= 0.25), float(iou[j] >= 0.5)
    return out


def score_grounding_plus(rec: Record, text: str, protocol: Protocol) -> Outcome:
    return score_grounding_plus_many([(rec, text)], protocol)[0]


def score_grounding_plus_many(items: list[tuple[Record, str]], protocol: Protocol) -> list[Outcome]:
    """:func:`score_grounding_plus` of many answers; the in-box test on the stacked points at once."""
    pts = _points_of(items, protocol)
    out: list[Outcome] = []
    for (rec, _), pt in zip(items, pts):
        if pt is None:
            out.append(("invalid", missing_values("grounding_plus", protocol), {"reason": "no point"}))
            continue
        gt = rec.gt["box"]
        detail: dict[str, Any] = {"point": pt}
        if protocol == "official":
            within = official_within_1m(pt, gt)
            if within is None:
                within = False
                detail["released_crash"] = "OverflowError: a squared offset beyond the float range (scored as a miss)"
        else:
            # one vector at a time: the norm of a 1-D vector is a dot product, not the row sum of a batch
            within = bool(np.linalg.norm(np.asarray(pt) - gt[:3]) <= L.AROUND_M)
        out.append(("scored", {"in_box": 0.0, "within_1m": float(within)}, detail))
    ok = [k for k, pt in enumerate(pts) if pt is not None]
    if ok:
        p = np.array([pts[k] for k in ok], dtype=float).reshape(-1, 3)
        gt = np.array([items[k][0].gt["box"] for k in ok], dtype=float).reshape(-1, 6)
        for k, inside in zip(ok, L.point_in_box(p, gt).tolist()):
            out[k][1]["in_box"] = float(inside)
    return out


def official_within_1m(point: list[float], gt_box: np.ndarray) -> bool | None:
    """Released ``VG_plus_acc``: ``math.sqrt((g0 - p0) ** 2 + (g1 - p1) ** 2 + (g2 - p2) ** 2) <= 1``
    in Python floats (a NaN is a miss); None where the released code raises OverflowError."""
    g = [float(v) for v in gt_box[:3]]
    q = [float(v) for v in point[:3]]
    try:
        d = math.sqrt((g[0] - q[0]) ** 2 + (g[1] - q[1]) ** 2 + (g[2] - q[2]) ** 2)
    except OverflowError:
        return None
    return d <= L.AROUND_M


def score_boxes(rec: Record, text: str, protocol: Protocol, rooms: bool) -> Outcome:
    """Detection / room detection; official counts per GT any box, strict matches one-to-one."""
    return score_boxes_many([(rec, text)], protocol, rooms)[0]


def pair_rows(n_pred: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (predicted, GT) box pair of answers with ``n_pred[k]`` and ``m[k]`` boxes, answer by
    answer and row-major as its (n, m) matrix: (row in the concatenated predictions, row in the
    concatenated GT boxes). Pair t of answer k is (op[k] + t // m[k], og[k] + t % m[k])."""
    nm = n_pred * m
    owner = np.repeat(np.arange(len(nm)), nm)
    local = np.arange(int(nm.sum())) - np.repeat(np.cumsum(nm) - nm, nm)
    return (np.cumsum(n_pred) - n_pred)[owner] + local // m[owner], (np.cumsum(m) - m)[owner] + local % m[owner]


def pair_values(pred: np.ndarray, gt: np.ndarray, pi: np.ndarray, gi: np.ndarray, rooms: bool) -> np.ndarray:
    """``L.box_iou`` (rooms) or the centre-in-box test as floats (objects) of the pairs (``pred[pi]``,
    ``gt[gi]``) of centre-size boxes: elementwise, so each value is the one of its own matrix."""
    return L.box_iou(pred[pi], gt[gi]) if rooms else L.point_in_box(pred[pi, :3], gt[gi]).astype(float)


def match_matrices(pairs: list[tuple[np.ndarray, np.ndarray]], rooms: bool) -> list[np.ndarray]:
    """For each (predicted (n, 6), GT (m, 6)) pair of centre-size arrays, the (n, m) matrix
    ``L.box_iou_matrix`` (rooms) or ``L.center_in_box_matrix`` as floats (objects); zeros when
    either is empty. All answers' box pairs are gathered into one (pairs, 6) array and computed at
    once (:func:`pair_rows`, :func:`pair_values`, as :func:`score_boxes_strict_many` does)."""
    out = [np.zeros((len(p), len(g))) for p, g in pairs]
    full = [k for k, (p, g) in enumerate(pairs) if len(p) and len(g)]
    if not full:
        return out
    n = np.array([len(pairs[k][0]) for k in full])
    m = np.array([len(pairs[k][1]) for k in full])
    pred = np.concatenate([pairs[k][0] for k in full]).reshape(-1, 6)
    gt = np.concatenate([pairs[k][1] for k in full]).reshape(-1, 6)
    vals = pair_values(pred, gt, *pair_rows(n, m), rooms)
    at = 0
    for k in full:
        rows, cols = len(pairs[k][0]), len(pairs[k][1])
        out[k] = vals[at : at + rows * cols].reshape(rows, cols)
        at += rows * cols
    return out


def score_boxes_many(items: list[tuple[Record, str]], protocol: Protocol, rooms: bool) -> list[Outcome]:
    """:func:`score_boxes` of many answers (strict: :func:`score_boxes_strict_many`)."""
    if protocol != "official":
        return score_boxes_strict_many(items, rooms)
    out = []
    for rec, text in items:
        boxes = P.parse_boxes(text, protocol)
        out.append(_score_boxes_official(rec, text, len(boxes), np.asarray(boxes, dtype=float).reshape(-1, 6), rooms))
    return out


def score_boxes_strict_many(items: list[tuple[Record, str]], rooms: bool) -> list[Outcome]:
    """Strict detection / room detection of many answers, every step on all answers at once.

    The strict rules (their per-answer form is ``ref_score_boxes`` in the tests,
    ``tests/bench3d/test_batched_rules.py``): boxes read and labelled answer by answer
    (:func:`P.parse_box_spans`, :func:`box_labels`); every (predicted, GT) pair of every answer in one array
    (:func:`pair_rows`), valid when the normalised labels agree and the centre lies in the
    GT box (IoU >= 0.5 for rooms); ``tp`` is the size of a maximum one-to-one matching of the valid
    pairs, the number :func:`L.match_count` returns whatever its tie-breaking cost. Most answers
    need no search: when no GT box has two valid boxes (or no box two valid GT boxes), the matching
    takes every box (GT box) with a valid pair; the others go to :func:`L.max_matching_size`.
    """
    n = len(items)
    gt_labels: list[list[str]] = [rec.gt["labels"] for rec, _ in items]
    spans = [P.parse_box_spans(text, "strict") for _, text in items]
    n_pred = np.array([len(sp) for sp in spans], dtype=np.int64)
    box_owner = np.repeat(np.arange(n), n_pred)
    gt_norm = [[norm_label(g) for g in labs] for labs in gt_labels]
    defaults = [labs[0] if len(set(gn)) == 1 else None for labs, gn in zip(gt_labels, gt_norm)]
    labels = [
        lab
        for (_, text), sp, labs, default in zip(items, spans, gt_labels, defaults)
        for lab in box_labels(text, sp, _candidates(tuple(labs)), default)
    ]
    m = np.array([len(labs) for labs in gt_labels], dtype=np.int64)
    gt = np.concatenate([np.asarray(rec.gt["boxes"], dtype=float).reshape(-1, 6) for rec, _ in items]) if n else np.zeros((0, 6))
    pred = np.array([s.values for sp in spans for s in sp], dtype=float).reshape(-1, 6)
    if rooms:  # (x, z, y, lx, lz, h) -> (x, y, z, lx, h, lz); IoU needs both in one order
        pred, gt = room_box_to_center_size(pred), room_box_to_center_size(gt)
    pi, gi = pair_rows(n_pred, m)
    ok = pair_values(pred, gt, pi, gi, rooms)
    ids: dict[str, int] = {}
    gid = np.array([ids.setdefault(g, len(ids)) for gn in gt_norm for g in gn], dtype=np.int64)
    pid = np.array([-1 if lab is None else ids.setdefault(norm_label(lab), len(ids)) for lab in labels], dtype=np.int64)
    valid = (pid[pi] == gid[gi]) & ((ok >= 0.5) if rooms else (ok > 0))
    tp = _matching_sizes(valid, pi, gi, box_owner, np.repeat(np.arange(n), m), n_pred, m)
    out: list[Outcome] = []
    at = 0
    for k, (np_, tp_k) in enumerate(zip(n_pred.tolist(), tp)):
        detail: dict[str, Any] = {"n_boxes": np_, "labels": labels[at : at + np_]}
        at += np_
        vals = {"tp": float(tp_k), "n_pred": float(np_), "n_gt": float(len(gt_labels[k]))}
        if not np_:
            detail["reason"] = "no box"
        out.append(("scored" if np_ else "invalid", vals, detail))
    return out


def _matching_sizes(
    valid: np.ndarray, pi: np.ndarray, gi: np.ndarray, box_owner: np.ndarray, gt_owner: np.ndarray, n_pred: np.ndarray, m: np.ndarray
) -> list[int]:
    """Size of a maximum matching of each answer's valid (box, GT) pairs (see :func:`L.max_matching_size`)."""
    n = len(n_pred)
    row_deg = np.bincount(pi[valid], minlength=len(box_owner))
    col_deg = np.bincount(gi[valid], minlength=len(gt_owner))
    cols_ok = np.bincount(gt_owner[col_deg > 1], minlength=n) == 0
    rows_ok = np.bincount(box_owner[row_deg > 1], minlength=n) == 0
    rows_hit = np.bincount(box_owner[row_deg > 0], minlength=n)
    cols_hit = np.bincount(gt_owner[col_deg > 0], minlength=n)
    tp = np.where(cols_ok, rows_hit, np.where(rows_ok, cols_hit, -1)).tolist()
    hard = [k for k, t in enumerate(tp) if t < 0]
    if hard:
        first_box, first_gt = np.cumsum(n_pred) - n_pred, np.cumsum(m) - m
        pair_owner = box_owner[pi]
        for k in hard:
            v = np.zeros((int(n_pred[k]), int(m[k])), dtype=bool)
            sel = valid & (pair_owner == k)
            v[pi[sel] - first_box[k], gi[sel] - first_gt[k]] = True
            tp[k] = L.max_matching_size(v)
    return tp


def _score_boxes_official(rec: Record, text: str, n_pred: int, pred: np.ndarray, rooms: bool) -> Outcome:
    """Official detection / room detection of one answer: a GT object counts when the answer names
    its label and some predicted box is on it (the released tests)."""
    gt_labels: list[str] = rec.gt["labels"]
    gt_boxes = rec.gt["boxes"]
    detail: dict[str, Any] = {"n_boxes": n_pred}
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
    status = "scored" if n_pred else "invalid"
    if not n_pred:
        detail["reason"] = "no box"
    return status, vals, detail


def score_navigation(rec: Record, text: str, protocol: Protocol) -> Outcome:
    return score_navigation_many([(rec, text)], protocol)[0]


def score_navigation_many(items: list[tuple[Record, str]], protocol: Protocol) -> list[Outcome]:
    """:func:`score_navigation` of many answers: nDTW's dynamic programme on all answers at once
    (``N.dtw_many``), strict path loss, goal distance and path lengths likewise
    (``N.strict_path_losses``, ``N.goal_distances``, ``N.path_lengths``); success and SPL from those per
    answer (strict success: :func:`N.strict_success`; official: the released :func:`N.path_success`)."""
    parsed = [np.asarray(P.parse_waypoints(text, protocol), dtype=float).reshape(-1, 2) for _, text in items]
    ok = [k for k, p in enumerate(parsed) if len(p)]
    gts = [items[k][0].gt["positions"] for k in ok]
    preds = [parsed[k] for k in ok]
    with np.errstate(invalid="ignore", over="ignore"):
        dists = N.dtw_many(preds, gts)
        if protocol == "official":
            loss_of: dict[int, float] = {}
            goal_of: dict[int, float] = {}  # official success has no goal condition
        else:
            loss_of = dict(zip(ok, N.strict_path_losses(preds, gts).tolist()))
            goal_of = dict(zip(ok, N.goal_distances(preds, gts).tolist()))
        pred_len = dict(zip(ok, N.path_lengths(preds).tolist()))
        gt_len = dict(zip(ok, N.path_lengths(gts).tolist()))
    dtw_of = dict(zip(ok, dists))
    out: list[Outcome] = []
    for k, (rec, _) in enumerate(items):
        p = parsed[k]
        if not len(p):
            out.append(("invalid", missing_values("navigation", protocol), {"reason": "no waypoint"}))
            continue
        gt = rec.gt["positions"]
        detail: dict[str, Any] = {"n_waypoints": len(p)}
        if protocol == "official":
            off = N.official_path_loss(p, gt)
            if off is None:
                detail["released_crash"] = "OverflowError: a squared offset beyond the float range (scored as a failure)"
            elif not math.isfinite(off):  # an inf waypoint: the released mean would be inf, which no results file can hold
                detail["released_inf"] = "the released path loss is inf (scored as a failure, left out of mean_path_loss)"
                off = None
            loss = math.nan if off is None else off  # no released loss: left out of mean_path_loss
            success = N.path_success(loss, len(gt))
        else:
            loss = loss_of[k]
            success = N.strict_success(loss, goal_of[k], len(gt))
            detail["goal_distance"] = goal_of[k]
        detail["loss"] = loss
        n_gt = len(np.asarray(gt, dtype=float).reshape(-1, 2))
        spl = _spl(success, pred_len[k], gt_len[k])
        values = {"success": float(success), "loss": loss, "spl": spl, "ndtw": N.ndtw_from_dtw(dtw_of[k], n_gt)}
        out.append(("scored", values, detail))
    return out


def _spl(success: bool, lp: float, lg: float) -> float:
    """:func:`N.spl` from the path lengths (predicted ``lp``, GT ``lg``)."""
    if not success or math.isnan(lp):
        return 0.0
    m = max(lp, lg)
    return 1.0 if m == 0 else lg / m
