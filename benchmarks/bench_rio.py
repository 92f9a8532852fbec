"""Speed of RIO pose scoring: 200,000 instance poses with symmetries, vectorised vs plain reference.

Prints instances/second of the vectorised scorer (both protocols, and strict with the one-to-one
assignment of interchangeable instances) and of the plain per-instance reference
(``instance_errors_reference`` of ``tests/rio/reference.py``) measured in the same run on a subset, plus their ratio (target >= 50x),
and checks that both agree on the subset.

    python benchmarks/bench_rio.py [--n 200000] [--reference-n 5000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from scenebench.geometry.poses import about_pivot, compose, rotation_z
from scenebench.metrics.pose import assign_one_to_one, best_candidate_errors, candidate_errors

# the plain reference lives with the tests (library code keeps one implementation per hot path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.rio.reference import instance_errors_reference  # noqa: E402


def make_case(n: int, seed: int = 0, partner_share: float = 0.05):
    rng = np.random.default_rng(seed)
    order = rng.choice([1, 2, 4], size=n, p=[0.6, 0.3, 0.1])
    centroid = rng.normal(size=(n, 3)) * 3
    T_gt = compose(Rotation.random(n, random_state=rng).as_matrix(), rng.normal(size=(n, 3)))
    k = (rng.random(n) * order).astype(int)
    S = np.stack([about_pivot(R, c) for R, c in zip(rotation_z(2 * np.pi * k / order), centroid)])
    noise = compose(Rotation.from_rotvec(rng.normal(size=(n, 3)) * 0.1).as_matrix(), rng.normal(size=(n, 3)) * 0.05)
    T_pred = noise @ T_gt @ S
    # a share of instances has one interchangeable partner: a second candidate
    has_partner = rng.random(n) < partner_share
    n_cand = 1 + has_partner.astype(int)
    owner = np.repeat(np.arange(n), n_cand)
    T_cand = T_gt[owner].copy()
    second = np.r_[False, owner[1:] == owner[:-1]]
    T_cand[second] = compose(Rotation.random(int(second.sum()), random_state=rng).as_matrix(), rng.normal(size=(int(second.sum()), 3)))
    location = np.where(second, owner + n, owner)
    return T_pred, T_cand, owner, location, centroid, order, n_cand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--reference-n", type=int, default=5_000)
    args = ap.parse_args()
    T_pred, T_cand, owner, location, centroid, order, n_cand = make_case(args.n)
    print(f"{args.n:,} instances; symmetry orders 1/2/4: {[(order == o).sum() for o in (1, 2, 4)]}; with a partner: {(n_cand > 1).sum():,}")

    # Warm-up on a tiny case so one-off imports (scipy.optimize, scipy.sparse) are not timed.
    w = make_case(50, seed=1)
    assign_one_to_one(*candidate_errors(w[0][w[2]], w[1], w[4][w[2]], w[5][w[2]], "strict"), w[2], w[3])
    rates = {}
    for protocol in ("strict", "official"):
        t0 = time.perf_counter()
        r, t, _ = best_candidate_errors(T_pred, T_cand, owner, centroid, order, protocol)
        dt = time.perf_counter() - t0
        rates[protocol] = args.n / dt
        print(
            f"vectorised {protocol:8s}: {dt:6.3f} s  {rates[protocol]:12,.0f} instances/s  (median r {np.median(r):.2f} deg, t {np.median(t):.3f} m)"
        )
    t0 = time.perf_counter()
    r_all, t_all = candidate_errors(T_pred[owner], T_cand, centroid[owner], order[owner], "strict")
    assign_one_to_one(r_all, t_all, owner, location)
    dt = time.perf_counter() - t0
    rates["strict_one_to_one"] = args.n / dt
    print(f"vectorised strict + one-to-one assignment: {dt:6.3f} s  {rates['strict_one_to_one']:12,.0f} instances/s")

    m = min(args.reference_n, args.n)
    starts = np.r_[0, np.cumsum(n_cand)]
    for protocol in ("strict", "official"):
        t0 = time.perf_counter()
        ref = [
            instance_errors_reference(T_pred[i], list(T_cand[starts[i] : starts[i + 1]]), centroid[i], int(order[i]), protocol)
            for i in range(m)
        ]
        dt = time.perf_counter() - t0
        ref_rate = m / dt
        r_v, t_v, _ = best_candidate_errors(T_pred[:m], T_cand[: starts[m]], owner[: starts[m]], centroid[:m], order[:m], protocol)
        agree = np.allclose(r_v, [x[0] for x in ref], atol=1e-5) and np.allclose(t_v, [x[1] for x in ref], atol=1e-9)
        print(
            f"plain reference {protocol:8s} ({m:,} instances): {ref_rate:10,.0f} instances/s; "
            f"vectorised is {rates[protocol] / ref_rate:6.1f}x faster; results agree: {agree}"
        )
        if protocol == "strict":
            print(
                f"  strict + one-to-one assignment vs the plain strict reference (which has no assignment): "
                f"{rates['strict_one_to_one'] / ref_rate:6.1f}x"
            )


if __name__ == "__main__":
    main()
