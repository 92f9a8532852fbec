"""Pose errors: hand-worked cases at both protocols and vectorised == plain reference on random cases."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from scenebench.geometry.poses import about_pivot, axis_angle_matrix, compose, rotation_z
from scenebench.metrics.pose import (
    assign_one_to_one,
    best_candidate_errors,
    candidate_errors,
    official_symmetry_shortcut_deg,
    recall_hit,
    rotation_error_deg,
    symmetric_rotation_error_deg,
)

from .reference import assign_one_to_one_reference, instance_errors_reference

C = np.array([2.0, 1.0, 0.4])  # an off-origin centroid, so turning about it changes the 4x4 translation
T_GT = compose(rotation_z(np.deg2rad(25.0)), [0.3, -0.2, 0.0])  # the instance moved in the rescan


def _turned(R, pivot=C, base=T_GT):
    """The ground truth followed by a rotation ``R`` of the object about ``pivot`` (reference frame)."""
    return base @ about_pivot(R, pivot)


def _errs(T_pred, order, protocol):
    r, t = candidate_errors(T_pred[None], T_GT[None], C[None], np.array([order]), protocol)
    return float(r[0]), float(t[0])


def test_180_turn_of_two_fold_table_is_zero_error_strict():
    r, t = _errs(_turned(rotation_z(np.pi)), 2, "strict")
    assert r == pytest.approx(0.0, abs=1e-5) and t == pytest.approx(0.0, abs=1e-9)


def test_180_turn_of_two_fold_table_official_forgives_angle_but_not_translation():
    r, t = _errs(_turned(rotation_z(np.pi)), 2, "official")
    assert r == pytest.approx(0.0, abs=1e-5)
    # the 4x4 translation moved by R (c - R_180 c) = 2 * |c_xy| = 2 * sqrt(5): official penalises it
    assert t == pytest.approx(2 * np.sqrt(5.0), abs=1e-9)


@pytest.mark.parametrize("protocol", ["strict", "official"])
def test_180_turn_of_asymmetric_chair_is_180(protocol):
    r, _ = _errs(_turned(rotation_z(np.pi)), 1, protocol)
    assert r == pytest.approx(180.0, abs=1e-5)


def test_turn_about_tilted_axis_is_not_forgiven_strict_but_is_by_official_shortcut():
    # 180 deg about an axis 45 deg from vertical; composing with the 180 deg vertical symmetry leaves
    # a 90 deg rotation, so the exact group minimum is 90 deg. The shortcut maps e=180 to 0.
    T_pred = _turned(axis_angle_matrix([1.0, 0.0, 1.0], np.pi))
    assert _errs(T_pred, 2, "strict")[0] == pytest.approx(90.0, abs=1e-5)
    assert _errs(T_pred, 2, "official")[0] == pytest.approx(0.0, abs=1e-5)
    assert _errs(T_pred, 1, "strict")[0] == pytest.approx(180.0, abs=1e-5)


@pytest.mark.parametrize(
    "deg,order,strict,official",
    [
        (90.0, 4, 0.0, 0.0),
        (270.0, 4, 0.0, 0.0),
        (45.0, 4, 45.0, 45.0),
        (30.0, 2, 30.0, 30.0),
        (90.0, 2, 90.0, 0.0),  # quirk: the single shortcut formula forgives 90 deg on a 2-fold object
        (170.0, 2, 10.0, 10.0),
        (100.0, 1, 100.0, 100.0),
    ],
)
def test_vertical_turn_table(deg, order, strict, official):
    T_pred = _turned(rotation_z(np.deg2rad(deg)))
    assert _errs(T_pred, order, "strict")[0] == pytest.approx(strict, abs=1e-5)
    assert _errs(T_pred, order, "official")[0] == pytest.approx(official, abs=1e-5)


def test_translation_is_consistent_under_symmetric_turn_about_off_origin_centroid():
    # Prediction = the symmetric equivalent plus a 5 cm shift: strict sees exactly the shift.
    shift = compose(np.eye(3), [0.05, 0.0, 0.0])
    T_pred = shift @ _turned(rotation_z(np.pi))
    r, t = _errs(T_pred, 2, "strict")
    assert r == pytest.approx(0.0, abs=1e-5) and t == pytest.approx(0.05, abs=1e-9)
    assert recall_hit(np.array([r]), np.array([t]), 10.0, 0.1)[0] == 1.0
    r_o, t_o = _errs(T_pred, 2, "official")
    assert recall_hit(np.array([r_o]), np.array([t_o]), 10.0, 0.1)[0] == 0.0


def test_rotation_error_clamps_trace_and_is_in_degrees():
    R = rotation_z(np.deg2rad(33.0))
    assert rotation_error_deg(R, R * (1 + 1e-12)) == pytest.approx(0.0, abs=1e-5)  # trace slightly > 3: clamped, not NaN
    assert rotation_error_deg(np.eye(3), R) == pytest.approx(33.0)
    assert rotation_error_deg(np.eye(3), rotation_z(np.pi)) == pytest.approx(180.0)


def test_official_shortcut_only_for_symmetric():
    e = np.array([180.0, 180.0, 100.0])
    assert official_symmetry_shortcut_deg(e, np.array([True, False, True])).tolist() == [0.0, 180.0, 10.0]


def test_recall_threshold_is_inclusive():
    assert recall_hit(np.array([10.0, 10.0 + 1e-9, 5.0]), np.array([0.1, 0.05, np.inf]), 10.0, 0.1).tolist() == [1.0, 0.0, 0.0]


def test_ambiguous_partner_is_accepted():
    # Two identical chairs 1 m apart, both static; the prediction lands chair A on chair B's place.
    cA, cB = np.array([0.0, 0.0, 0.4]), np.array([1.0, 0.0, 0.4])
    A_to_B = compose(np.eye(3), cB - cA)
    T_pred = A_to_B.copy()
    own_only = best_candidate_errors(T_pred[None], np.eye(4)[None], np.array([0]), cA[None], np.array([1]))
    assert own_only[1][0] == pytest.approx(1.0)
    with_partner = best_candidate_errors(T_pred[None], np.stack([np.eye(4), A_to_B]), np.array([0, 0]), cA[None], np.array([1]))
    assert with_partner[0][0] == pytest.approx(0.0, abs=1e-5) and with_partner[1][0] == pytest.approx(0.0)
    assert with_partner[2][0] == 1


def _random_case(rng, n):
    R_gt = Rotation.random(n, random_state=rng).as_matrix()
    order = rng.choice([0, 1, 2, 4], size=n)  # 0: continuous
    centroid = rng.normal(size=(n, 3)) * 3
    T_gt = compose(R_gt, rng.normal(size=(n, 3)))
    # Predictions: half near a symmetric equivalent (exercises the min), half random.
    T_pred = np.empty((n, 4, 4))
    for i in range(n):
        if i % 2:
            turn = rng.uniform(0, 2 * np.pi) if order[i] == 0 else 2 * np.pi * rng.integers(0, order[i]) / order[i]
            noise = Rotation.from_rotvec(rng.normal(size=3) * 0.1).as_matrix()
            T_pred[i] = compose(noise, rng.normal(size=3) * 0.05) @ T_gt[i] @ about_pivot(rotation_z(turn), centroid[i])
        else:
            T_pred[i] = compose(Rotation.random(random_state=rng).as_matrix(), rng.normal(size=3))
    n_cand = rng.integers(1, 4, size=n)
    owner = np.repeat(np.arange(n), n_cand)
    T_cand = compose(Rotation.random(len(owner), random_state=rng).as_matrix(), rng.normal(size=(len(owner), 3)))
    firsts = np.r_[0, np.cumsum(n_cand)[:-1]]
    T_cand[firsts] = T_gt
    return T_pred, T_cand, owner, centroid, order, n_cand


@pytest.mark.parametrize("protocol", ["strict", "official"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_matches_plain_reference(protocol, seed):
    rng = np.random.default_rng(seed)
    T_pred, T_cand, owner, centroid, order, n_cand = _random_case(rng, 300)
    r, t, chosen = best_candidate_errors(T_pred, T_cand, owner, centroid, order, protocol)
    starts = np.r_[0, np.cumsum(n_cand)]
    for i in range(len(T_pred)):
        cands = list(T_cand[starts[i] : starts[i + 1]])
        r_ref, t_ref, j = instance_errors_reference(T_pred[i], cands, centroid[i], int(order[i]), protocol)
        assert r[i] == pytest.approx(r_ref, abs=1e-5)
        assert t[i] == pytest.approx(t_ref, abs=1e-9)
        assert chosen[i] - starts[i] == j


@pytest.mark.parametrize("turn_deg", [37.0, 45.0, 163.0])
def test_round_table_turned_about_its_axis_is_exact_zero_with_continuous_symmetry(turn_deg):
    T = _turned(rotation_z(np.deg2rad(turn_deg)))
    r, t = _errs(T, 0, "strict")
    assert r == pytest.approx(0.0, abs=1e-5) and t == pytest.approx(0.0, abs=1e-9)
    # as 4-fold (3RScan's nearest code, what the generator wrote before) the same correct pose was
    # wrong by the distance to the nearest multiple of 90 deg: up to 45 deg
    r4, _ = _errs(T, 4, "strict")
    assert r4 == pytest.approx(min(turn_deg % 90, 90 - turn_deg % 90), abs=1e-5)


def test_continuous_symmetry_keeps_the_tilt_and_the_translation():
    # turned 70 deg about the up axis and tilted 12 deg about x (about the centroid): only the tilt counts,
    # the angle between the up axes; a 0.3 m shift of the whole object stays a 0.3 m error
    tilt = axis_angle_matrix(np.array([1.0, 0.0, 0.0]), np.deg2rad(12.0))
    T = compose(np.eye(3), [0.3, 0.0, 0.0]) @ _turned(tilt @ rotation_z(np.deg2rad(70.0)))
    r, t = _errs(T, 0, "strict")
    assert r == pytest.approx(12.0, abs=1e-6) and t == pytest.approx(0.3, abs=1e-9)


def test_symmetric_error_never_exceeds_plain_and_is_exact_group_min():
    rng = np.random.default_rng(5)
    Rp, Rg = Rotation.random(500, random_state=rng).as_matrix(), Rotation.random(500, random_state=rng).as_matrix()
    order = rng.choice([0, 1, 2, 4], size=500)
    sym = symmetric_rotation_error_deg(Rp, Rg, order)
    plain = rotation_error_deg(Rp, Rg)
    assert np.all(sym <= plain + 1e-9)
    assert np.allclose(sym[order == 1], plain[order == 1], atol=1e-9)
    fin = order > 0
    brute = np.min(
        [np.where(order > k, rotation_error_deg(Rp, Rg @ rotation_z(2 * np.pi * k / np.maximum(order, 1))), np.inf) for k in range(4)],
        axis=0,
    )
    assert np.allclose(sym[fin], brute[fin], atol=1e-5)
    # continuous: a dense sweep of angles never beats it, and it is the angle between the up axes
    sweep = np.min([rotation_error_deg(Rp, Rg @ rotation_z(a)) for a in np.linspace(0, 2 * np.pi, 3601)], axis=0)
    up = np.degrees(np.arccos(np.clip(np.einsum("ni,ni->n", Rp[:, :, 2], Rg[:, :, 2]), -1, 1)))
    assert np.all(sym[~fin] <= sweep[~fin] + 1e-9) and np.allclose(sym[~fin], sweep[~fin], atol=0.1)
    assert np.allclose(sym[~fin], up[~fin], atol=1e-5)


def test_one_to_one_does_not_credit_two_predictions_with_one_object():
    # Chairs A (own place 0 m away) and B; both predictions land on A's place.
    # candidates: owner 0 -> loc A (hit), loc B (miss); owner 1 -> loc B (miss), loc A (hit)
    r = np.array([0.0, 0.0, 0.0, 0.0])
    t = np.array([0.0, 1.0, 1.0, 0.0])
    owner = np.array([0, 0, 1, 1])
    loc = np.array([10, 11, 11, 10])
    chosen = assign_one_to_one(r, t, owner, loc)
    hits = recall_hit(r[chosen], t[chosen], 10, 0.1)
    assert hits.sum() == 1.0  # one of them gets the object, the other is a miss
    # the min-over-partners rule (official) credits both
    _, t_best, _ = best_candidate_errors(np.stack([np.eye(4)] * 2), np.stack([np.eye(4)] * 4), owner, np.zeros((2, 3)), np.ones(2, int))
    assert t_best.tolist() == [0.0, 0.0]


def test_one_to_one_prefers_swapped_assignment_when_it_hits_more():
    # owner 0 is far from its own place but on partner's; owner 1 likewise: the swap hits both.
    r = np.zeros(4)
    t = np.array([2.0, 0.05, 2.0, 0.05])
    chosen = assign_one_to_one(r, t, np.array([0, 0, 1, 1]), np.array([1, 2, 2, 1]))
    assert chosen.tolist() == [1, 3]


@pytest.mark.parametrize("seed", range(5))
def test_one_to_one_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_groups = 6
    owner, loc = [], []
    o = 0
    for g in range(n_groups):
        size = rng.integers(1, 5)
        places = np.arange(size) + 100 * g
        for _ in range(size if rng.random() < 0.7 else max(1, size - 1)):
            for p in places:
                owner.append(o)
                loc.append(p)
            o += 1
    owner, loc = np.array(owner), np.array(loc)
    r = rng.choice([1.0, 15.0, 50.0], size=len(owner)) * rng.random(len(owner))
    t = rng.choice([0.05, 0.15, 1.0], size=len(owner)) * rng.random(len(owner)) * 1.5
    chosen = assign_one_to_one(r, t, owner, loc)
    assert len(set(loc[chosen].tolist())) == len(chosen)  # no location used twice
    from scenebench.metrics.pose import _assignment_cost

    cost = _assignment_cost(r, t, ((0.1, 10.0), (0.2, 20.0)))
    assert cost[chosen].sum() == pytest.approx(assign_one_to_one_reference(r, t, owner, loc), rel=1e-12, abs=1e-9)
