"""3DBench ``official`` number for number: the released evaluators' float arithmetic, ties and NaN.

Every case of issue 13's table, with the value worked out by hand from the released formulas
(documented in docs/metrics/bench3d_*.md), plus the inputs on which the released code crashes
(scored as failures here). ``strict`` values are asserted beside them where they differ, to show
that strict is unchanged.
"""

import math
import random

import numpy as np
import pytest

from scenebench.benchmarks.bench3d import sample_scores as S
from scenebench.benchmarks.bench3d.records import validate_record
from scenebench.metrics import localization as L
from scenebench.metrics import navigation as N


def rec(task, **fields):
    return validate_record(task, {"question_id": "q", "id": "1", "pcl": "p.npy", "query": "q", **fields})


def boxes_rec(task, objs):
    return rec(task, object=[{"label": lab, "bbox": b} for lab, b in objs])


# ----------------------------------------------------------------------------- visual grounding


@pytest.mark.parametrize(
    ("answer", "gt", "official", "strict"),
    [
        # released: g - 1 <= p <= g + 1 per axis; 1.35 - 1 = 0.3500000000000001 > 0.35 -> miss
        ("0.35 0 0 0 0 0", [1.35, 0, 0, 1, 1, 1], 0.0, 1.0),
        # 1.95 + 1 rounds to the double of 2.95, so 2.95 <= 1.95 + 1 holds (2.95 - 1.95 > 1 though) -> hit
        ("2.95 0 0 0 0 0", [1.95, 0, 0, 1, 1, 1], 1.0, 0.0),
        # max(0.01, nan) is 0.01 in Python: the NaN x becomes 0.01, within 1 of 0.5
        ("[nan,0,0,0,0,0]", [0.5, 0.5, 0.5, 1, 1, 1], 1.0, 0.0),
    ],
)
def test_visual_grounding_float_edges(answer, gt, official, strict):
    r = rec("visual_grounding", object=gt)
    assert S.score_grounding(r, answer, "official")[1]["hit"] == official
    assert S.score_grounding(r, answer, "strict")[1]["hit"] == strict


def test_visual_grounding_edge_arithmetic_by_hand():
    assert 1.35 - 1 == 0.3500000000000001 and 1.35 - 1 > 0.35
    assert 2.95 - 1.95 > 1.0 and 1.95 + 1 >= 2.95  # |Δ| > 1 but the released test passes
    assert L.around_box([0.35, 0, 0, 0, 0, 0], [1.35, 0, 0, 1, 1, 1], "official") == np.False_
    assert L.around_box([2.95, 0, 0, 0, 0, 0], [1.95, 0, 0, 1, 1, 1], "official") == np.True_


# ----------------------------------------------------------------------------- navigation


def test_navigation_sequential_sum_and_builtin_min():
    r = rec("navigation", positions=[[0, 0]])
    _, off, _ = S.score_navigation(r, "[.1,0]" * 10, "official")
    # ten distances of 0.1 added one by one: 0.9999999999999999 < 1 (numpy's pairwise sum gives 1.0)
    assert off["loss"] == 0.9999999999999999 and off["success"] == 1.0
    assert S.score_navigation(r, "[.1,0]" * 10, "strict")[1]["success"] == 0.0
    r3 = rec("navigation", positions=[[0, 0], [0, 0.5], [0, 1]])
    _, off, _ = S.score_navigation(r3, "[nan,0][0,.5]", "official")
    # GT is the longer list; each GT point's nearest predicted point skips the NaN distance:
    # 0.5 + 0 + 0.5 = 1.0 < 3
    assert off["loss"] == 1.0 and off["success"] == 1.0


def test_navigation_released_crash_and_empty_path():
    r = rec("navigation", positions=[[0, 0]])
    _, off, detail = S.score_navigation(r, "[1e200,0]", "official")  # (1e200) ** 2 raises OverflowError
    assert off["success"] == 0.0 and math.isnan(off["loss"]) and "OverflowError" in detail["released_crash"]
    assert N.official_path_loss([[1e200, 0]], [[0, 0]]) is None
    assert N.official_path_loss(np.zeros((0, 2)), [[0, 0], [1, 1]]) == math.inf  # no crash: inf loss
    assert N.official_path_loss([[math.inf, 0]], [[0, 0]]) == math.inf  # inf ** 2 is inf, no error


# ----------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("answer", "objs", "hits", "n_pred", "strict_tp"),
    [
        # GT centre rewritten to ((4+1)/2, ...) = (2.5, 2.5, 2.5) before the test: 4 is outside [2, 3]
        ("chair [4,4,4,1,1,1]", [("chair", [4, 4, 4, 1, 1, 1])], 0.0, 1, 1.0),
        # rewritten once per box: 2.5, then (2.5 + 1) / 2 = 1.75; never contains 4
        ("chair [4,4,4,1,1,1] [4,4,4,1,1,1]", [("chair", [4, 4, 4, 1, 1, 1])], 0.0, 2, 1.0),
        # centre (1+2)/2 = 1.5, box [0.5, 2.5] per axis: x = 0.2 is outside
        ("cup [0.2,1,1,1,1,1]", [("cup", [1, 1, 1, 2, 2, 2])], 0.0, 1, 1.0),
        # the rewrite can also help: GT (0,0,0) size 2 -> centre (1,1,1), box [0,2]: (1.5,1.5,1.5) inside
        ("cup [1.5,1.5,1.5,1,1,1]", [("cup", [0, 0, 0, 2, 2, 2])], 1.0, 1, 0.0),
    ],
)
def test_detection_rewrites_the_gt_centre_per_predicted_box(answer, objs, hits, n_pred, strict_tp):
    r = boxes_rec("detection", objs)
    _, off, _ = S.score_boxes(r, answer, "official", rooms=False)
    assert off == {"hits": hits, "n_pred": float(n_pred)}
    assert S.score_boxes(r, answer, "strict", rooms=False)[1]["tp"] == strict_tp


def test_detection_rewrite_stops_at_the_first_hit_and_clamps_sizes():
    # GT (0,0,0) size (2, 2, 0): first rewrite -> centre (1, 1, 0), size z 0 -> 0.01; box 1 at x=5
    # misses; second rewrite -> centre ((1+2)/2, (1+2)/2, (0+0.01)/2) = (1.5, 1.5, 0.005)
    hit = L.official_detection_hits([[5, 5, 5, 1, 1, 1], [1.5, 1.5, 0.005, 1, 1, 1]], [[0, 0, 0, 2, 2, 0]], [True])
    assert hit.tolist() == [True]
    # not named: never rewritten, never found
    assert L.official_detection_hits([[1, 1, 0, 1, 1, 1]], [[0, 0, 0, 2, 2, 0]], [False]).tolist() == [False]


# ----------------------------------------------------------------------------- room detection


@pytest.mark.parametrize(
    ("answer", "gt", "official", "strict"),
    [
        ("Kitchen (0,0,1.5,-4,-4,3)", [0, 0, 1.5, 4, 4, 3], 1.0, 0.0),  # abs() of sizes: the same room
        ("kitchen [1.6666,1,1.5,2,2,3]", [1, 1, 1.5, 2, 2, 3], 0.0, 1.0),  # corners 0.667/2.667: IoU 1.333/2.667
        ("kitchen [0,0,0,.55,2.8,2.89]", [0, 0, 0, 1.1, 2.8, 2.89], 1.0, 1.0),  # (lx*lz)*h: IoU 0.5000000000000001
        ("kitchen [0,0,0,1.7,.4,1.61]", [0, 0, 0, 1.7, 0.8, 1.61], 0.0, 1.0),  # IoU exactly 0.5 in file order
    ],
)
def test_room_detection_abs_rounding_and_product_order(answer, gt, official, strict):
    r = boxes_rec("room_detection", [("kitchen", gt)])
    assert S.score_boxes(r, answer, "official", rooms=True)[1]["hits"] == official
    assert S.score_boxes(r, answer, "strict", rooms=True)[1]["tp"] == strict


def test_room_iou_values_by_hand():
    def iou(g, p):
        return L.official_room_iou(np.array([g], float), np.array([p], float))[0].item()

    # extents 1.1, 2.8, 2.89 (GT) and 0.55, 2.8, 2.89: inter = (0.55 * 2.8) * 2.89,
    # union = ((1.1 * 2.8) * 2.89 + inter) - inter, one bit above twice inter
    inter = (0.55 * 2.8) * 2.89
    assert inter / (((1.1 * 2.8) * 2.89 + inter) - inter) == 0.5000000000000001
    assert iou([0, 0, 0, 1.1, 2.8, 2.89], [0, 0, 0, 0.55, 2.8, 2.89]) == 0.5000000000000001
    assert iou([0, 0, 0, 1.7, 0.8, 1.61], [0, 0, 0, 1.7, 0.4, 1.61]) == 0.5
    # rounded corners: x in [0, 2] vs [0.667, 2.667] (round(0.6666, 3)), overlap 1.333 of union 2.667
    assert iou([1, 1, 1.5, 2, 2, 3], [1.6666, 1, 1.5, 2, 2, 3]) == pytest.approx(1.333 / 2.667, abs=1e-12)
    assert 1.333 / 2.667 < 0.5 < 1.3334 / 2.6666  # unrounded corners would pass
    # a NaN in the prediction: Python max/min ignore it in the intersection, but the union is NaN
    assert math.isnan(iou([0, 0, 0, 1, 1, 1], [math.nan, 0, 0, 1, 1, 1]))


def test_room_zero_volume_pair_is_the_released_crash_scored_as_no_match():
    r = boxes_rec("room_detection", [("kitchen", [0, 0, 0, 0, 1, 1])])
    _, vals, detail = S.score_boxes(r, "kitchen [0,0,0,0,0,0]", "official", rooms=True)
    assert vals["hits"] == 0.0 and "ZeroDivisionError" in detail["released_crash"]
    iou, crash = L.official_room_iou(np.array([[0, 0, 0, 0, 1, 1.0]]), np.array([[0, 0, 0, 0, 0, 0.0], [0, 0, 0, 1, 1, 1]]))
    assert crash.tolist() == [[True, False]] and iou.tolist() == [[0.0, 0.0]]


# ----------------------------------------------------------------------------- visual grounding plus


def test_vg_plus_official_distance_in_python_floats_and_crash():
    r = rec("visual_grounding_plus", object=[0, 0, 0, 1, 1, 1])
    assert S.score_grounding_plus(r, "(0.6, 0.8, 0)", "official")[1]["within_1m"] == 1.0  # 0.36 + 0.64 = 1.0
    assert S.score_grounding_plus(r, "(nan, 0, 0)", "official")[1]["within_1m"] == 0.0
    _, vals, detail = S.score_grounding_plus(r, "(1e200, 0, 0)", "official")
    assert vals["within_1m"] == 0.0 and "OverflowError" in detail["released_crash"]


# ----------------------------------------------------------------------------- plain references


def _plain_detection(pred, gt, named):
    """Scalar Python version of the released loop (lists, in-place rewrite), written for this test."""
    out = []
    for g, nm in zip(gt, named):
        box = [float(v) for v in g]
        found = False
        if nm:
            for p in pred:
                box[:3] = [(box[i] + box[i + 3]) / 2 for i in range(3)]
                box[3:] = [max(0.01, v) for v in box[3:]]
                if all(box[i] - abs(box[i + 3] / 2) <= p[i] <= box[i] + abs(box[i + 3] / 2) for i in range(3)):
                    found = True
                    break
        out.append(found)
    return out


def _plain_room_iou(g, p):
    def corners(b):
        return [round(b[i] - abs(b[i + 3] / 2), 3) for i in range(3)] + [round(b[i] + abs(b[i + 3]) / 2, 3) for i in range(3)]

    a, b = corners(g), corners(p)
    lo = [max(a[i], b[i]) for i in range(3)]
    hi = [min(a[i + 3], b[i + 3]) for i in range(3)]
    inter = max(0, hi[0] - lo[0]) * max(0, hi[1] - lo[1]) * max(0, hi[2] - lo[2])
    va = (a[3] - a[0]) * (a[4] - a[1]) * (a[5] - a[2])
    vb = (b[3] - b[0]) * (b[4] - b[1]) * (b[5] - b[2])
    uni = va + vb - inter
    if uni == 0:
        return None
    iou = inter / uni
    return 0 if iou > 1 or iou < 0 else iou


def _rand_value(rng):
    k = rng.random()
    if k < 0.05:
        return math.nan
    if k < 0.08:
        return rng.choice([math.inf, -math.inf, 0.0, -0.0])
    if k < 0.5:
        return round(rng.uniform(-3, 3), rng.choice([0, 1, 2]))  # ties and exact decimals
    return rng.uniform(-3, 3)


def test_vectorised_official_box_rules_equal_plain_python_on_random_boxes():
    rng = random.Random(13)
    for _ in range(400):
        n, m = rng.randint(0, 4), rng.randint(1, 4)
        pred = [[_rand_value(rng) for _ in range(6)] for _ in range(n)]
        gt = [
            [round(rng.uniform(-3, 3), rng.choice([0, 1, 2])) for _ in range(3)] + [round(rng.uniform(0, 3), 1) for _ in range(3)]
            for _ in range(m)
        ]
        named = [rng.random() < 0.7 for _ in range(m)]
        got = L.official_detection_hits(np.array(pred, float).reshape(-1, 6), np.array(gt, float), named).tolist()
        assert got == _plain_detection(pred, gt, named)
        if n:
            iou, crash = L.official_room_iou(np.array(gt, float), np.array(pred, float))
            for i in range(m):
                for j in range(n):
                    want = _plain_room_iou(gt[i], pred[j])
                    if want is None:
                        assert crash[i, j]
                    else:
                        assert not crash[i, j]
                        assert (iou[i, j] > 0.5) == (want > 0.5)
                        assert iou[i, j] == want or (math.isnan(iou[i, j]) and math.isnan(want))
