import numpy as np
import pytest

from scenebench.geometry import boxes as B


def _iou_plain(a, b):
    """Reference: explicit per-axis loop, min-max boxes."""
    inter = 1.0
    for k in range(3):
        ov = min(a[k + 3], b[k + 3]) - max(a[k], b[k])
        if ov <= 0:
            return 0.0
        inter *= ov
    va = np.prod([a[k + 3] - a[k] for k in range(3)])
    vb = np.prod([b[k + 3] - b[k] for k in range(3)])
    return inter / (va + vb - inter)


def test_hand_worked_iou():
    a = [0, 0, 0, 2, 2, 2]  # volume 8
    b = [1, 1, 1, 3, 3, 3]  # overlap 1x1x1
    assert B.iou_minmax(a, b) == pytest.approx(1 / 15)
    assert B.iou_minmax(a, a) == pytest.approx(1.0)


def test_two_negative_overlaps_do_not_make_positive_volume():
    # x and y overlaps are both negative (-1), z overlaps by 1: an unclamped product gives +1.
    a = [0, 0, 0, 1, 1, 2]
    b = [2, 2, 1, 3, 3, 3]
    assert B.iou_minmax(a, b) == 0.0


def test_center_size_roundtrip_and_iou():
    cs = np.array([1.0, 2.0, 3.0, 2.0, 4.0, 6.0])
    mm = B.center_size_to_minmax(cs)
    assert mm.tolist() == [0, 0, 0, 2, 4, 6]
    assert B.minmax_to_center_size(mm) == pytest.approx(cs)
    assert B.iou_center_size(cs, cs) == pytest.approx(1.0)


def test_room_box_reorder():
    assert B.room_box_to_center_size([1, 2, 3, 4, 5, 6]).tolist() == [1, 3, 2, 4, 6, 5]


def test_points_in_box_inclusive():
    pts = np.array([[0, 0, 0], [1, 1, 1], [1.0001, 0, 0]])
    assert B.points_in_minmax(pts, [0, 0, 0, 1, 1, 1]).tolist() == [True, True, False]


def test_matrix_matches_plain_reference():
    rng = np.random.default_rng(0)
    lo = rng.uniform(-2, 2, size=(40, 3))
    a = np.concatenate([lo, lo + rng.uniform(0.01, 2, size=(40, 3))], axis=1)
    lo = rng.uniform(-2, 2, size=(30, 3))
    b = np.concatenate([lo, lo + rng.uniform(0.01, 2, size=(30, 3))], axis=1)
    m = B.iou_matrix_minmax(a, b)
    ref = np.array([[_iou_plain(x, y) for y in b] for x in a])
    assert m == pytest.approx(ref)


def test_degenerate_boxes_give_zero_not_nan():
    assert B.iou_minmax([0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]) == 0.0
