"""Plain reference implementations that the vectorised RIO code is tested (and benchmarked) against.

Library code keeps one implementation per hot path (CONTRIBUTING.md); the obvious, slow version of
each lives here: ``tests/rio/test_pose_metrics.py`` and ``test_matching.py`` compare the two, and
``benchmarks/bench_rio.py`` and ``bench_e2e.py`` time the fast one against it.
"""

from __future__ import annotations

import itertools

import numpy as np

from scenebench.geometry.poses import about_pivot, symmetry_rotations
from scenebench.metrics.pose import _assignment_cost
from scenebench.protocol import Protocol


def assign_one_to_one_reference(
    r_err: np.ndarray,
    t_err: np.ndarray,
    owner: np.ndarray,
    location: np.ndarray,
    thresholds: tuple[tuple[float, float], ...] = ((0.1, 10.0), (0.2, 20.0)),
) -> float:
    """Brute force over every injective assignment, one group of owners sharing locations at a
    time (groups found by plain flood fill); returns the optimal total cost. Small cases only."""
    cost = _assignment_cost(np.asarray(r_err, float), np.asarray(t_err, float), thresholds)
    owner = np.asarray(owner).tolist()
    location = np.asarray(location).tolist()
    options: dict[int, list[tuple[int, float]]] = {}
    for m, o in enumerate(owner):
        options.setdefault(o, []).append((location[m], float(cost[m])))
    seen: set[int] = set()
    total = 0.0
    for start in options:
        if start in seen:
            continue
        group, locs, frontier = {start}, set(), [start]
        while frontier:
            o = frontier.pop()
            for loc, _ in options[o]:
                if loc not in locs:
                    locs.add(loc)
                    for o2, opts in options.items():
                        if o2 not in group and any(l2 == loc for l2, _ in opts):
                            group.add(o2)
                            frontier.append(o2)
        seen |= group
        best = np.inf
        for combo in itertools.product(*[options[o] for o in sorted(group)]):
            used = [c[0] for c in combo]
            if len(set(used)) == len(used):
                best = min(best, sum(c[1] for c in combo))
        total += best
    return total


def _angle_reference(R_pred: np.ndarray, R_gt: np.ndarray) -> float:
    cos = (np.trace(R_pred.T @ R_gt) - 1.0) / 2.0
    return float(np.degrees(np.arccos(min(1.0, max(-1.0, cos)))))


def instance_errors_reference(
    T_pred: np.ndarray,
    candidates: list[np.ndarray],
    centroid: np.ndarray,
    order: int,
    protocol: Protocol = "strict",
) -> tuple[float, float, int]:
    """One instance, written the obvious way: build every symmetric ground truth ``T_gt @ S_k``
    explicitly (``S_k`` about the centroid) and take the minimum. Returns ``(r_err, t_err, chosen)``."""
    best: tuple[float, float, int] | None = None
    group = symmetry_rotations(order) if order >= 1 else None
    c_h = np.append(np.asarray(centroid, float), 1.0)
    for j, T_gt in enumerate(candidates):
        if protocol == "strict" and group is None:  # continuous: the angle between the two up axes
            up = float(np.clip(np.dot(T_pred[:3, 2], T_gt[:3, 2]), -1.0, 1.0))
            r = float(np.degrees(np.arccos(up)))
            t = float(np.linalg.norm((T_pred @ c_h)[:3] - (T_gt @ c_h)[:3]))
        elif protocol == "strict":
            assert group is not None
            r = min(_angle_reference(T_pred[:3, :3], (T_gt @ about_pivot(Rk, centroid))[:3, :3]) for Rk in group)
            t = float(np.linalg.norm((T_pred @ c_h)[:3] - (T_gt @ c_h)[:3]))
        else:
            e = _angle_reference(T_pred[:3, :3], T_gt[:3, :3])
            r = min(e, abs(180.0 - e), abs(90.0 - e)) if order != 1 else e
            t = float(np.linalg.norm(T_pred[:3, 3] - T_gt[:3, 3]))
        if best is None or (t, r) < (best[1], best[0]):
            best = (r, t, j)
    assert best is not None
    return best


def top1_correct_reference(reference: np.ndarray, rescan: np.ndarray, negatives: np.ndarray) -> np.ndarray:
    """Plain loop version of :func:`scenebench.benchmarks.rio.matching.top1_correct`."""
    out = []
    for k in range(len(reference)):
        d_pos = float(np.sqrt(((reference[k] - rescan[k]) ** 2).sum()))
        out.append(all(d_pos < float(np.sqrt(((reference[k] - rescan[j]) ** 2).sum())) for j in negatives[k]))
    return np.array(out, dtype=bool)
