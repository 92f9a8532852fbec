"""SURPRISE3D ``official`` in float32 as released: IoU, mIoU mean, score threshold and logits.

Hand-worked values first; the ``torch`` tests then compare with real ``torch`` float32 arithmetic
(our own few lines of the published formula, not the released code).
"""

import json

import numpy as np
import pytest
from tests.surprise3d.conftest import RECORDS

from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.api import score_run
from scenebench.benchmarks.surprise3d.predictions import read_predictions
from scenebench.errors import InputError
from scenebench.metrics import segmentation as S


def test_epsilon_vanishes_in_float32_from_32_points_on():
    # float32(1e-6) is below half a float32 step at 32 (2**-19 / 2 = 9.5e-7 < 1e-6 < 2**-18 / 2)
    iou = S.official_iou_f32(np.array([4, 31, 32, 8, 2]), np.array([4, 31, 32, 8, 2]), np.array([4, 31, 32, 32, 4]))
    assert iou.tolist() == [1 - 2**-22, 1 - 2**-24, 1.0, 0.25, 0.5 - 2**-23]
    # 8 of a 32-point union is exactly 0.25 at official too: only the strict '>' keeps it out of A25
    off = S.iou_from_counts(np.array([8]), np.array([8]), np.array([32]), protocol="official")
    assert off.tolist() == [0.25] and S.acc_at(off, 0.25, protocol="official").tolist() == [0.0]


def test_official_miou_is_a_float32_mean_in_file_order(dataset, tmp_path):
    fx = dataset
    # every sample perfect: index 0 has a small GT (< 32 points -> IoU 1 - 2**-k), others are larger
    sizes = {i: fx.gt(i, np.atleast_1d(o)).size for i, (_, o, _) in enumerate(RECORDS) if i != 4}
    recs = [{"index": i, "mask_indices": fx.gt(i, np.atleast_1d(o)).tolist()} for i, (_, o, _) in enumerate(RECORDS) if i != 4]
    pfile = fx.write_preds(recs)
    res, _, _ = score_run(fx.annotations, fx.scenes, pfile, tmp_path / "run", protocol="official", n_resamples=0, progress=False)
    assert all(n >= 32 for n in sizes.values())  # 400-point scenes, six instance ids: ~67 points each
    assert res.metrics["overall"]["mIoU"] == 100.0  # the old card's 99.999975 holds only below 32 points

    small = fx.root / "small.jsonl"
    # now index 0 predicts 4 of its GT points and nothing else: IoU 4 / n0 in float32
    n0 = sizes[0]
    small.write_text("".join(json.dumps(r) + "\n" for r in [{"index": 0, "mask_indices": fx.gt(0, [1])[:4].tolist()}] + recs[1:]))
    res2, _, _ = score_run(fx.annotations, fx.scenes, small, tmp_path / "run2", protocol="official", n_resamples=0, progress=False)
    f = np.float32
    ious = np.array([f(4) / f(n0)] + [f(1)] * 5, dtype=f)
    assert res2.metrics["overall"]["mIoU"] == 100 * float(np.mean(ious))


def test_score_threshold_compares_in_float32(dataset, tmp_path):
    fx = dataset
    scene, obj, _ = RECORDS[0]
    s = np.zeros(fx.inst[scene].size)
    gt = fx.gt(0, [obj])
    s[gt] = 0.699999988079071  # float32(0.7) written out
    p = fx.write_preds([{"index": 0, "scores": s.tolist()}])
    ann = load_annotations(fx.annotations)
    off = read_predictions(p, ann, score_threshold=0.7, protocol="official").by_sample[fx.ids[0]]
    st = read_predictions(p, ann, score_threshold=0.7, protocol="strict").by_sample[fx.ids[0]]
    assert off.indices.tolist() == gt.tolist()  # float32(0.6999999881) >= float32(0.7): equal
    assert st.indices.size == 0  # 0.699999988079071 < 0.7
    res, _, _ = score_run(
        fx.annotations, fx.scenes, p, tmp_path / "o", protocol="official", score_threshold=0.7, n_resamples=0, progress=False
    )
    # question type cs = indices 0, 3, 6; only 0 has a prediction, perfect with >= 32 points: IoU 1
    assert res.metrics["by_question_type"]["cs"]["mIoU"] == pytest.approx(100 / 3, abs=1e-5)


def test_four_point_threshold_case_by_hand():
    # GT = 4 points, every one predicted at float32(0.7) with threshold 0.7: official IoU 4 / (4 + 1e-6)
    # in float32 = 1 - 2**-22; strict predicts nothing: 0
    keep = np.full(4, 0.699999988079071).astype(np.float32) >= np.float32(0.7)
    assert keep.all()
    assert S.official_iou_f32(np.array([4]), np.array([int(keep.sum())]), np.array([4])).tolist() == [1 - 2**-22]
    assert not (np.full(4, 0.699999988079071) >= 0.7).any()


def test_scores_outside_unit_interval_point_to_logits(dataset):
    fx = dataset
    s = np.zeros(fx.inst[RECORDS[0][0]].size)
    s[3] = 2.5
    p = fx.write_preds([{"index": 0, "scores": s.tolist()}])
    with pytest.raises(InputError) as e:
        read_predictions(p, load_annotations(fx.annotations))
    msg = str(e.value)
    assert "logits" in msg and "scores" in msg and "line 1" in msg and "2.5" in msg


def test_logits_official_sigmoid_ties_at_one_half(dataset):
    fx = dataset
    n = fx.inst[RECORDS[0][0]].size
    x = np.full(n, -5.0)
    x[[0, 1, 2, 3]] = [-1e-7, -1.7e-7, -1.79e-7, 0.0]
    p = fx.write_preds([{"index": 0, "logits": x.tolist()}])
    ann = load_annotations(fx.annotations)
    off = read_predictions(p, ann, protocol="official").by_sample[fx.ids[0]]
    st = read_predictions(p, ann, protocol="strict").by_sample[fx.ids[0]]
    # float32: exp(1e-7) rounds to 1 + 2**-23, 1 + that ties to 2 -> exactly 0.5 >= 0.5;
    # 1.79e-7 is beyond 1.5 * 2**-23 = 1.788e-7, so exp rounds to 1 + 2**-22 and the sigmoid to 0.49999994
    assert off.indices.tolist() == [0, 1, 3]
    assert st.indices.tolist() == [3]  # the exact sigmoid of a negative logit is below 0.5
    assert S.torch_sigmoid_f32(np.array([-1e-7, -1.7e-7, -1.79e-7, 0.0], np.float32)).tolist() == [0.5, 0.5, 0.5 - 2**-24, 0.5]


def test_logits_count_must_match_the_scene(dataset, tmp_path):
    fx = dataset
    p = fx.write_preds([{"index": 0, "logits": [0.1, 0.2]}])
    with pytest.raises(InputError) as e:
        score_run(fx.annotations, fx.scenes, p, tmp_path / "r", n_resamples=0, progress=False)
    assert "logits" in str(e.value) and "one value per point" in str(e.value)


# ----------------------------------------------------------------------------- against real torch


@pytest.mark.torch
def test_sigmoid_equals_torch_bit_for_bit():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            (rng.standard_normal(200_000) * 6).astype(np.float32),
            rng.uniform(-1e-6, 1e-6, 40_000).astype(np.float32),
            (rng.standard_normal(40_000) * 80).astype(np.float32),
            np.tile(
                np.array([0, -0.0, -1.788e-7, -1.79e-7, 88.7, -88.7, 104.5, -104.5, 100.5, -100.5, 1e-30, 30, -30, 17, -17, 3], np.float32),
                16,
            ),
        ]
    )
    x = x[: x.size // 16 * 16]  # whole vectors: torch's tail elements use the C library's expf
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        want = torch.sigmoid(torch.from_numpy(x)).numpy()
    finally:
        torch.set_num_threads(threads)
    got = S.torch_sigmoid_f32(x)
    assert np.array_equal(got, want)
    assert got[np.flatnonzero(x == np.float32(-1.788e-7))[0]] == 0.5


@pytest.mark.torch
def test_official_miou_equals_torch_float32_released_formula(dataset, tmp_path):
    torch = pytest.importorskip("torch")
    fx = dataset
    rng = np.random.default_rng(5)
    recs, logits = [], {}
    for i, (scene, _, _) in enumerate(RECORDS):
        if i == 4:  # empty GT: the released code asserts; scenebench excludes it
            continue
        n = fx.inst[scene].size  # 400: a whole number of 16-value vectors
        x = rng.normal(0, 2, n).astype(np.float32)
        x[rng.integers(0, n, 20)] = np.float32(-1e-7)  # ties at exactly 0.5
        logits[i] = x
        recs.append({"index": i, "logits": x.astype(np.float64).tolist()})
    p = fx.write_preds(recs)
    res, _, _ = score_run(fx.annotations, fx.scenes, p, tmp_path / "run", protocol="official", n_resamples=0, progress=False)
    pious = []
    for i, x in logits.items():  # file order
        scene, obj, _ = RECORDS[i]
        target = torch.from_numpy(np.isin(fx.inst[scene], np.atleast_1d(obj)).astype(np.float32))
        binar = torch.sigmoid(torch.from_numpy(x)) >= 0.5
        inter = (binar * target).sum(-1)
        union = target.sum(-1) + binar.sum(-1) - inter
        pious.append(inter / (union + 1e-6))
    released = torch.stack(pious, dim=0).numpy().mean()
    assert released.dtype == np.float32
    assert abs(res.metrics["overall"]["mIoU"] / 100 - float(released)) <= 1e-9
    a50 = float((torch.stack(pious).numpy() > 0.5).sum()) / len(pious)
    assert res.metrics["overall"]["A50"] == pytest.approx(100 * a50, abs=1e-12)


def test_zero_volume_gt_box_scores_zero():
    # GT points all at z = 0 (a flat target): its box has no volume, so no box can overlap it in volume
    gt = np.array([[0, 0, 0, 1, 1, 0.0], [0, 0, 0, 1, 1, 0.0]])
    pred = np.array([[0, 0, -1, 1, 1, 1.0], [0, 0, 0, 1, 1, 0.0]])  # a box around it; the same flat box
    r = S.box_detection(pred, gt)
    assert r["box_iou"].tolist() == [0.0, 0.0] and r["box_a25"].tolist() == [0.0, 0.0]
