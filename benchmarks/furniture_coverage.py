"""How much of generated houses comes from library models: per category, placed objects, objects
from a model and object points from a model (issue 38's coverage goal).

Run: ``python benchmarks/furniture_coverage.py [--seed 11] [--houses 8] [--assets /usr/share/sweethome3d/furniture]``.
Builds and captures each house exactly as ``scenebench generate`` does on default settings (no files
written), then prints the totals (all objects, and without doorways and windows) and one line per
category, primitive-only categories marked. Prints figures only (no assertions).
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

STRUCTURE = ("doorway", "window")


def measure(seed: int, houses: int, assets: tuple[str, ...]) -> tuple[Counter, Counter, Counter, Counter]:
    from scenebench.synth.house import build_house
    from scenebench.synth.pipeline import GenerateSettings, _rng
    from scenebench.synth.sensing import capture

    s = GenerateSettings(seed=seed, houses=houses, assets=assets)
    placed, from_model, points, model_points = Counter(), Counter(), Counter(), Counter()
    for i in range(houses):
        house = build_house(s.seed, i, min_rooms=s.min_rooms, max_rooms=s.max_rooms, density=s.density, assets=s.assets)
        cap = capture(house, s.sensor(), _rng(s, i, 1))
        counts = np.bincount(cap.cloud.instance[cap.cloud.instance >= 1], minlength=len(house.objects) + 1)
        for o in house.objects:
            n = int(counts[o.index]) if o.index < len(counts) else 0
            placed[o.category] += 1
            points[o.category] += n
            if o.asset:
                from_model[o.category] += 1
                model_points[o.category] += n
        print(f"house {i}: {len(house.objects)} objects", flush=True)
    return placed, from_model, points, model_points


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--houses", type=int, default=8)
    ap.add_argument("--assets", default="/usr/share/sweethome3d/furniture")
    a = ap.parse_args()
    placed, from_model, points, model_points = measure(a.seed, a.houses, (a.assets,))

    def share(cats) -> str:
        o, om = sum(placed[c] for c in cats), sum(from_model[c] for c in cats)
        p, pm = sum(points[c] for c in cats), sum(model_points[c] for c in cats)
        return f"objects {om}/{o} = {100 * om / max(o, 1):.1f}%   points {pm}/{p} = {100 * pm / max(p, 1):.1f}%"

    cats = sorted(placed)
    print(f"seed {a.seed}, {a.houses} houses, assets {a.assets}")
    print("all:                          " + share(cats))
    print("without doorways and windows: " + share([c for c in cats if c not in STRUCTURE]))
    print(f"{'category':16s} {'placed':>6s} {'model':>6s} {'points':>8s} {'model pts':>9s}")
    for c in sorted(cats, key=lambda c: -points[c]):
        mark = "  (primitive)" if not from_model[c] else ""
        print(f"{c:16s} {placed[c]:6d} {from_model[c]:6d} {points[c]:8d} {model_points[c]:9d}{mark}")


if __name__ == "__main__":
    main()
