"""Golden cases at both protocols and vectorised-vs-plain equality for the SURPRISE3D metrics."""

import numpy as np
import pytest

from scenebench.geometry.boxes import points_aabb, points_in_minmax
from scenebench.metrics import segmentation as S

# 10 points: instance 1 = points 0-3, instance 2 = points 4-5, unannotated 6-7, instance 3 = 8-9.
INST = np.array([1, 1, 1, 1, 2, 2, -1, -1, 3, 3])


def _one(pred, target, protocol):
    r = S.score_scene(INST, [np.array(pred, dtype=np.int64)], [np.array(target)], protocol=protocol)
    return {k: v[0] for k, v in r.items()}


def test_iou_exactly_quarter_flips_a25_between_protocols():
    # |P∩G| = 1, |P∪G| = 4: strict IoU is exactly 0.25 and counts (>=); official divides in float32 by
    # 4 + 1e-6 = 4 + 2**-20 and compares with >, so the sample does not count.
    strict = _one([0], [1], "strict")
    official = _one([0], [1], "official")
    assert strict["iou"] == 0.25 and strict["a25"] == 1.0 and strict["a50"] == 0.0
    assert official["iou"] == 0.25 - 2**-24 and official["a25"] == 0.0


def test_iou_exactly_half_flips_a50_between_protocols():
    strict = _one([0, 1], [1], "strict")
    official = _one([0, 1], [1], "official")
    assert strict["iou"] == 0.5 and strict["a25"] == 1.0 and strict["a50"] == 1.0
    assert official["iou"] == 0.5 - 2**-23  # float32 2 / (4 + 2**-20)
    assert official["a25"] == 1.0 and official["a50"] == 0.0


def test_official_strict_inequality_alone_decides_at_threshold():
    # Without the epsilon (exact 0.5), official '>' and strict '>=' still disagree.
    iou = np.array([0.25, 0.5, 0.5000001])
    assert S.acc_at(iou, 0.5, protocol="official").tolist() == [0, 0, 1]
    assert S.acc_at(iou, 0.5, protocol="strict").tolist() == [0, 1, 1]
    assert S.acc_at(iou, 0.25, protocol="strict").tolist() == [1, 1, 1]


def test_empty_prediction_scores_zero():
    for protocol in ("strict", "official"):
        r = _one([], [1], protocol)
        assert r["iou"] == 0.0 and r["a25"] == 0.0 and r["n_pred"] == 0 and r["n_gt"] == 4


def test_empty_union_scores_zero_without_warnings():
    with np.errstate(all="raise"):
        for protocol in ("strict", "official"):
            r = _one([], [7], protocol)  # instance 7 has no points
            assert r["iou"] == 0.0 and r["n_gt"] == 0 and r["a25"] == 0.0


def test_multi_target_ground_truth_is_the_union():
    r = _one([4, 5, 6], [1, 2], "strict")  # G = points 0-5, inter 2, union 7
    assert (r["inter"], r["n_pred"], r["n_gt"]) == (2, 3, 6)
    assert r["iou"] == pytest.approx(2 / 7)
    assert _one([0, 1, 2, 3, 4, 5], [2, 1], "strict")["iou"] == 1.0


def test_perfect_prediction():
    assert _one([0, 1, 2, 3], [1], "strict")["iou"] == 1.0
    off = _one([0, 1, 2, 3], [1], "official")
    assert off["iou"] == 1 - 2**-22 and off["a50"] == 1.0  # float32 4 / (4 + 2**-20); 1.0 from 32 points on


def test_unannotated_points_never_match_a_target():
    assert _one([6, 7], [1], "strict")["inter"] == 0


def _random_scene(rng, n):
    inst = rng.integers(-1, 12, n)
    k = int(rng.integers(1, 30))
    preds, targets = [], []
    for _ in range(k):
        t = rng.choice(14, size=int(rng.integers(1, 4)), replace=False)  # ids 12, 13 have no points
        targets.append(t)
        mode = rng.integers(0, 3)
        if mode == 0:
            p = np.unique(rng.integers(0, n, int(rng.integers(0, n))))
        elif mode == 1:  # near the truth: the GT plus/minus some points
            g = np.flatnonzero(np.isin(inst, t))
            p = np.unique(np.concatenate([g[rng.random(g.size) < 0.7], rng.integers(0, n, 3)]))
        else:
            p = np.zeros(0, dtype=np.int64)
        preds.append(p)
    return inst, preds, targets


@pytest.mark.parametrize("protocol", ["strict", "official"])
@pytest.mark.parametrize("id_offset", [0, 10**9])  # small ids use a lookup table, huge ones a sorted search
def test_vectorised_equals_plain_boolean_masks_on_random_scenes(protocol, id_offset):
    rng = np.random.default_rng(1234)
    for _ in range(60):
        inst, preds, targets = _random_scene(rng, int(rng.integers(1, 400)))
        inst = np.where(inst >= 0, inst + id_offset, inst)
        targets = [t + id_offset for t in targets]
        got = S.score_scene(inst, preds, targets, protocol=protocol)
        for k, (p, t) in enumerate(zip(preds, targets)):
            iou, a25, a50 = S.reference_sample(inst, p, t, protocol=protocol)
            assert got["iou"][k] == pytest.approx(iou, abs=1e-12)
            assert (got["a25"][k], got["a50"][k]) == (a25, a50)


def test_scene_without_samples():
    r = S.score_scene(INST, [], [], protocol="strict")
    assert all(v.size == 0 for v in r.values())


def test_gt_aabbs_match_points_aabb_of_the_union():
    rng = np.random.default_rng(7)
    coords = rng.normal(size=(500, 3))
    inst = rng.integers(-1, 8, 500)
    targets = [np.array([0]), np.array([1, 5]), np.array([99]), np.array([2, 3, 4])]
    boxes = S.gt_aabbs(coords, inst, targets)
    for k, t in enumerate(targets):
        m = np.isin(inst, t)
        if m.any():
            assert np.allclose(boxes[k], points_aabb(coords[m]))
        else:
            assert np.isnan(boxes[k]).all()


def test_points_in_boxes_equals_points_in_minmax():
    rng = np.random.default_rng(3)
    coords = rng.random((2000, 3)).astype(np.float32) * 5
    boxes = [np.r_[lo, lo + rng.random(3) * 3] for lo in rng.random((20, 3)) * 4]
    boxes.append(np.array([1, 1, 1, 1, 1, 1.0]))  # degenerate box
    for b, got in zip(boxes, S.points_in_boxes(coords, boxes)):
        assert np.array_equal(got, np.flatnonzero(points_in_minmax(coords, b)))


def test_box_detection_uses_inclusive_thresholds_and_clamped_overlap():
    gt = np.array([[0, 0, 0, 2, 2, 2.0]] * 4)
    pred = np.array(
        [
            [0, 0, 0, 2, 2, 1.0],  # IoU exactly 0.5
            [0, 0, 0, 2, 2, 0.5],  # IoU exactly 0.25
            [0, 0, 0, 2, 2, 0.4],  # 0.2
            [3, 3, 0, 4, 4, 2.0],  # disjoint in x and y: 0, not a positive product of negatives
        ]
    )
    r = S.box_detection(pred, gt)
    assert r["box_iou"].tolist() == pytest.approx([0.5, 0.25, 0.2, 0.0])
    assert r["box_a25"].tolist() == [1, 1, 0, 0]
    assert r["box_a50"].tolist() == [1, 0, 0, 0]


def test_membership_is_the_per_sample_lookup():
    # one scatter for all samples (the vectorised form) against the per-sample searchsorted it replaced
    rng = np.random.default_rng(5)
    for _ in range(50):
        targets = [rng.choice(40, size=int(rng.integers(1, 4)), replace=False) for _ in range(int(rng.integers(0, 20)))]
        values = S._target_values(targets)
        want = np.zeros((len(targets), values.size + 1), dtype=bool)
        for k, x in enumerate(targets):
            want[k, np.searchsorted(values, np.asarray(x, dtype=np.int64))] = True
        assert np.array_equal(S.membership(targets, values), want)


def test_int32_and_int64_predictions_count_alike():
    rng = np.random.default_rng(6)
    inst, preds, targets = _random_scene(rng, 300)
    a = S.scene_counts(inst, preds, targets)
    b = S.scene_counts(inst, [p.astype(np.int32) for p in preds], targets)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
