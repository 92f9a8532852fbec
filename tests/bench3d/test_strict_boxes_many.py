"""The many-answer scorers (``score_boxes_strict_many``, the path losses and lengths) against the
per-answer rules, on random and adversarial answers (units, Chinese punctuation, unclosed groups,
non-ASCII, labels outside the vocabulary): same outcomes, bit for bit."""

import random

import numpy as np
import pytest

from scenebench.benchmarks.bench3d import sample_scores as S
from scenebench.benchmarks.bench3d.records import validate_record

from .test_batched_rules import answer, gt_box, ref_score_boxes, same
from .test_fast_paths import random_text

EXTRA = ["İstanbul", "ΣΑΣ", "K", "ß", "\u00a0", "\t", "e-3", "1e", "5.", ".", "room_", "LIVING ROOM", "table lamp", "lamp-post"]
LABELS = ["chair", "Chair", "dining table", "DiningTable", "sofa", "Kitchen", "LivingRoom", "table lamp", "lamp", "post", "!!", "x"]


def texts(seed: int, n: int = 2500) -> list[str]:
    rng = random.Random(seed)
    out = [random_text(rng) for _ in range(n)] + [answer(rng) for _ in range(n)]
    out += ["".join(rng.choice(EXTRA + [answer(rng)]) for _ in range(rng.randint(1, 4))) for _ in range(n // 5)]
    return out + ["", "[", "(", "[)", "[1, 2, 3, 4, 5, 6", "(1, 2)(3, 4)[5, 6]"]


def bits(values: list[float]) -> bytes:
    return np.asarray(values, dtype=float).tobytes()


@pytest.mark.parametrize("rooms", [False, True])
def test_strict_boxes_many_match_the_per_answer_rules_with_any_labels(rooms):
    rng = random.Random(f"boxes-{rooms}")
    task = "room_detection" if rooms else "detection"
    base = {"question_id": "q", "id": "1", "pcl": "p.npy", "query": "q"}
    items = []
    for t in texts(4, 800):
        objs = [{"label": rng.choice(LABELS), "bbox": gt_box(rng)} for _ in range(rng.randint(0, 5))]
        items.append((validate_record(task, {**base, "object": objs}), t))
    # answers that name the GT objects and put boxes on them: matchings that need a search
    for _ in range(800):
        objs = [{"label": rng.choice(LABELS[:3]), "bbox": [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]} for _ in range(rng.randint(1, 5))]
        text = " ".join(f"{rng.choice(LABELS[:3])} [{rng.uniform(-0.5, 0.5):.2f}, 0, 0, 2, 2, 2]" for _ in range(rng.randint(0, 6)))
        items.append((validate_record(task, {**base, "object": objs}), text))
    with np.errstate(all="ignore"):
        got = S.score_boxes_strict_many(items, rooms)
        ref = [ref_score_boxes(r, t, "strict", rooms) for r, t in items]
    for (rec, text), g, r in zip(items, got, ref):
        assert same(g, r), (text, rec.gt["labels"], g, r)
    assert sum(o[1]["tp"] >= 2 for o in ref) > 200


def nav_pairs(seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    preds, gts = [], []
    for _ in range(1500):
        # lengths past 8 and 128: numpy's pairwise sum changes shape there
        n, m = (
            int(x)
            for x in rng.choice([0, 1, 2, 3, 7, 8, 9, 17, 130, 300], size=2, p=[0.05, 0.1, 0.2, 0.2, 0.15, 0.1, 0.1, 0.06, 0.02, 0.02])
        )
        p = rng.normal(size=(n, 2)) * rng.choice([1e-8, 0.1, 1, 5, 1e16, 1e154])
        g = rng.normal(size=(m, 2)) * 3
        if n and rng.random() < 0.15:
            p[rng.integers(n), rng.integers(2)] = rng.choice([np.inf, -np.inf, np.nan, -0.0, 1e308])
        preds.append(p)
        gts.append(g)
    return preds, gts


def test_path_losses_and_lengths_equal_the_per_path_functions():
    from scenebench.metrics import navigation as N

    preds, gts = nav_pairs(7)
    with np.errstate(all="ignore"):
        losses = N.path_losses(preds, gts)
        ref = [N.path_loss(p, g) for p, g in zip(preds, gts)]
        strict = N.strict_path_losses(preds, gts)
        ref_strict = [N.strict_path_loss(p, g) for p, g in zip(preds, gts)]
        lengths = N.path_lengths(preds + gts)
        ref_len = [N.path_length(p) for p in preds + gts]
    assert bits(losses) == bits(ref)
    assert bits(strict) == bits(ref_strict)
    assert bits(lengths) == bits(ref_len)
