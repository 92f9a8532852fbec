"""A view builder for the toy benchmark: a room of points, GT/pred masks, boxes, a path, a moved cloud."""

from __future__ import annotations

import numpy as np

from scenebench.report import viewer as vw
from scenebench.report.views import VIEW_BUILDERS, ViewOptions, ViewSet


def room(scene: str, n: int = 60000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(sum(map(ord, scene)))
    floor = np.c_[rng.uniform(0, 6, n // 2), rng.uniform(0, 4, n // 2), np.zeros(n // 2)]
    wall = np.c_[rng.uniform(0, 6, n - n // 2), np.full(n - n // 2, 4.0), rng.uniform(0, 2.5, n - n // 2)]
    pts = np.r_[floor, wall]
    cols = np.where(pts[:, 2:3] > 0, [200, 190, 170], [120, 100, 80]).astype(float)
    return pts, cols


def build_views(run, sample_ids, opts: ViewOptions) -> ViewSet:
    vs = ViewSet()
    by_id = run.scores_by_id()
    for sid in sample_ids:
        s = by_id[sid]
        key = f"toy:{s.scene_id}"
        pts, cols = room(s.scene_id)
        if key not in vs.scenes:
            vs.scenes[key] = vw.scene_payload(pts, cols, key=key, max_points=opts.max_scene_points, seed=opts.seed)
        gt_box = np.array([2.0, 1.0, -0.01, 3.0, 2.0, 0.01])
        shift = 1.0 - s.values.get("iou", 0.0)
        pred_box = gt_box + np.array([shift, 0, 0, shift, 0, 0])
        inside = lambda b: np.all((pts >= b[:3]) & (pts <= b[3:]), axis=1)  # noqa: E731
        layers = vw.mask_layers(pts, inside(gt_box), inside(pred_box), key=f"{key}/{sid}", max_points=opts.max_layer_points)
        layers.append(vw.box_layer("GT box", [2, 1, 0, 3, 2, 1], vw.GT))
        layers.append(vw.box_layer("predicted box", [2 + shift, 1, 0, 3 + shift, 2, 1], vw.PRED))
        layers.append(vw.path_layer("path", np.array([[0.5, 0.5, 0.1], [1.5, 2.5, 0.1], [4, 3, 0.1]]), vw.EXTRA))
        layers.append(
            vw.cloud_layer("moved object", np.random.default_rng(0).normal([5, 1, 0.5], 0.1, (300, 3)), vw.PRED, key=f"{sid}/obj")
        )
        vs.views[sid] = {"scene": key, "layers": layers, "note": "toy overlay"}
    return vs


def install(monkeypatch) -> None:
    monkeypatch.setitem(VIEW_BUILDERS._paths, "toy", "toyviews:build_views")
    monkeypatch.setitem(VIEW_BUILDERS._loaded, "toy", build_views)
