"""Close-up pictures of one furnished room: its fused point cloud (top-down and oblique) and one
rendered RGB view, as ``scenebench generate`` builds and captures it.

    python scripts/furnished_room.py --out docs/img [--seed 3] [--house 1] [--assets auto|none|PATH]

Frames are 320x240 here (the generator's default is 128x96) so a page can show the furniture; the
cloud is the generator's own fusion of those frames (2 cm object voxels).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def main() -> None:
    from scenebench.synth.cli import _asset_paths
    from scenebench.synth.floorplan import CELL
    from scenebench.synth.house import build_house
    from scenebench.synth.preview import cloud_views, write_png
    from scenebench.synth.raycast import make_raycaster
    from scenebench.synth.sensing import SensorSettings, camera_poses, capture, render_frames

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--house", type=int, default=1)
    ap.add_argument("--room", default="living room", help="room type to show (the first of that type)")
    ap.add_argument("--assets", action="append", default=[])
    a = ap.parse_args()
    assets = _asset_paths(a.assets or ["auto"])
    house = build_house(a.seed, a.house, assets=assets)
    room = next(r.index for r in house.plan.rooms if r.type == a.room)
    s = SensorSettings(width=320, height=240, hole_rate=0.0, depth_noise=0.0)
    mesh = house.scene_mesh()
    caster = make_raycaster(mesh.vertices, mesh.faces, s.raycaster)
    cap = capture(house, s, np.random.default_rng(0), caster=caster, mesh=mesh)
    ij = np.floor(cap.cloud.xyz[:, [0, 2]] / CELL).astype(int)
    g = house.plan.grid
    ok = (ij[:, 0] >= 0) & (ij[:, 1] >= 0) & (ij[:, 0] < g.shape[0]) & (ij[:, 1] < g.shape[1])
    inside = np.zeros(len(ij), bool)
    inside[ok] = g[ij[ok, 0], ij[ok, 1]] == room
    a.out.mkdir(parents=True, exist_ok=True)
    room_tag = "" if a.room == "living room" else "_" + a.room.replace(" ", "")  # living room: the names docs/ cite
    tag = f"room_s{a.seed}_h{a.house}{room_tag}_{'models' if assets else 'primitives'}"
    write_png(a.out / f"{tag}_cloud.png", cloud_views(cap.cloud.xyz[inside], cap.cloud.rgb[inside], ppm=90.0))
    # the rendered view of this room that sees the most distinct objects
    poses = [p for p in camera_poses(house, s, np.random.default_rng(0)) if _room_of(house, p[:3, 3], CELL) == room]
    frames = render_frames(mesh, poses, s, caster)
    best = max(frames, key=lambda f: len(np.unique(f.instance[(f.instance > 0) & (f.instance <= len(house.objects))])))
    write_png(a.out / f"{tag}_view.png", best.rgb)
    used = sorted({o.category for o in house.objects if o.room == room and o.asset})
    print(f"{tag}: models for {', '.join(used) or 'nothing'}")


def _room_of(house, p, cell) -> int:
    i, j = int(p[0] // cell), int(p[2] // cell)
    return int(house.plan.grid[i, j])


if __name__ == "__main__":
    main()
