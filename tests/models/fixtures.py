"""Tiny benchmark folders written with the benchmarks' own writers (fast, no synth pipeline)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def box_points(rng, centre, size, n):
    c, s = np.asarray(centre, float), np.asarray(size, float)
    return c + (rng.uniform(-0.5, 0.5, size=(n, 3)) * s)


def make_surprise3d(root: Path, n_scenes: int = 2) -> Path:
    from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene

    rng = np.random.default_rng(0)
    scenes = root / "scenes"
    val, train = [], []
    for k in range(n_scenes):
        sid = f"scene{k:02d}"
        objs = [
            (1, "chair", [1, 1, 0.5], [0.5, 0.5, 1.0]),
            (2, "table", [3, 1, 0.4], [1.2, 0.8, 0.8]),
            (3, "lamp", [1, 3, 1.0], [0.3, 0.3, 2.0]),
        ]
        pts, inst = [rng.uniform([0, 0, 0], [4, 4, 0.02], size=(200, 3))], [np.full(200, -1)]
        for oid, _, c, s in objs:
            pts.append(box_points(rng, c, s, 100))
            inst.append(np.full(100, oid))
        coords = np.concatenate(pts)
        write_scene(scenes / f"{sid}.npz", coords, rng.uniform(0, 255, size=(len(coords), 3)), np.concatenate(inst))
        val.append(annotation_record(sid, 1, f"Where would you sit in scene {k}?", ["chair"], "hi"))
        val.append(annotation_record(sid, [2], f"What holds the plates, near the sofa {k}?", ["table"], "rel_pos"))
        val.append(annotation_record(sid, 3, f"What gives light {k}?", ["lamp"], "cs"))
        train.append(annotation_record(sid, 1, "Where would you sit down?", ["chair"], "hi"))
        train.append(annotation_record(sid, 1, "Which one can you sit on?", ["chair"], "cs"))
    write_annotations(root / "surprise-3d-val.json", val)
    write_annotations(root / "surprise-3d-train.json", train)
    return root


def _yaw(deg, t):
    a = np.deg2rad(deg)
    m = np.eye(4)
    m[:2, :2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
    m[:3, 3] = t
    return m


def make_rio(root: Path) -> Path:
    """One reference scan with 3 instances and one rescan: table 2 moved (yaw 30 deg, 0.5 m), chair 1
    listed in ``rigid[]`` with the identity (changed in the annotation, not moved: a "static" sample),
    shelf 3 not listed (static, not a sample under the protocol's ``scope="changed"``)."""
    from scenebench.benchmarks.rio.writer import write_index, write_scan

    rng = np.random.default_rng(1)
    specs = [
        (1, "chair", [1, 1, 0.5], [0.5, 0.4, 1.0]),
        (2, "table", [3, 1, 0.4], [1.2, 0.8, 0.8]),
        (3, "shelf", [1, 3, 1.0], [0.3, 0.9, 2.0]),
    ]
    pts, ids = [], []
    for iid, _, c, s in specs:
        pts.append(box_points(rng, c, s, 150))
        ids.append(np.full(150, iid))
    ref_xyz, ref_ids = np.concatenate(pts), np.concatenate(ids)
    moved = _yaw(30, [0.5, 0.2, 0.0])
    moved_xyz = ref_xyz.copy()
    m = ref_ids == 2
    centre = np.array([3, 1, 0.4])
    # Rotate about the object's centre, then translate: the rigid transform maps reference -> rescan.
    T = np.eye(4)
    T[:3, :3] = moved[:3, :3]
    T[:3, 3] = centre - moved[:3, :3] @ centre + moved[:3, 3]
    moved_xyz[m] = ref_xyz[m] @ T[:3, :3].T + T[:3, 3]
    instances = [{"id": iid, "global_id": iid, "label": lab} for iid, lab, _, _ in specs]
    colors = rng.integers(0, 255, size=(len(ref_xyz), 3))
    write_scan(root / "ref0", ref_xyz, colors, None, ref_ids, instances)
    write_scan(root / "scan0", moved_xyz, colors, None, ref_ids, instances)
    scenes = [
        {
            "reference": "ref0",
            "type": "validation",
            "scans": [
                {
                    "reference": "scan0",
                    "rigid": [
                        {"instance_reference": 1, "instance_rescan": 1, "symmetry": 0, "transform": np.eye(4)},
                        {"instance_reference": 2, "instance_rescan": 2, "symmetry": 0, "transform": T},
                    ],
                }
            ],
        }
    ]
    write_index(root, scenes, {"ref0": instances, "scan0": instances})
    return root


def make_bench3d(root: Path, with_train: bool = True) -> Path:
    """Two houses (clouds of box-shaped objects), every task kind, optionally a train/ split."""
    from scenebench.benchmarks.bench3d.writer import write_point_cloud, write_task

    rng = np.random.default_rng(2)

    def house(h: int, folder: Path, prefix: str) -> dict[str, list[dict]]:
        objs = [
            ("chair", [1.0, 0.5, 1.0 + h], [0.5, 1.0, 0.5]),
            ("chair", [2.0, 0.5, 1.0], [0.5, 1.0, 0.5]),
            ("sofa", [4.0, 0.4, 3.0], [2.0, 0.8, 0.9]),
            ("diningtable", [2.0, 0.4, 4.0], [1.5, 0.8, 1.0]),
        ]
        cloud = np.concatenate([np.c_[box_points(rng, c, s, 80), rng.uniform(0, 255, size=(80, 3))] for _, c, s in objs])
        pcl = f"pcl/{prefix}house{h}.npy"
        write_point_cloud(folder, pcl, cloud)
        obj_pcl = f"pcl/{prefix}obj{h}.npy"
        write_point_cloud(folder, obj_pcl, np.c_[box_points(rng, [0, 0, 0], [0.5, 1, 0.5], 60), np.zeros((60, 3))])
        q = lambda t: f"{prefix}{t}-{h}"  # noqa: E731
        base = {"id": f"{prefix}{h}"}
        return {
            "classification": [
                {
                    **base,
                    "question_id": q("cls"),
                    "pcl": obj_pcl,
                    "query": "What is this object?",
                    "gt_choices": ["sofa", "chair", "bed", "lamp", "cup", "vase"],
                    "gt_choice": 1,
                }
            ],
            "counting": [
                {
                    **base,
                    "question_id": q("cnt"),
                    "pcl": pcl,
                    "query": "How many chairs are there?",
                    "gt_choices": [1, 2, 3, 4, 5, 6],
                    "gt_choice": 1,
                    "object": "chair",
                }
            ],
            "detection": [
                {
                    **base,
                    "question_id": q("det"),
                    "pcl": pcl,
                    "query": "Detect all chairs and sofas.",
                    "object": [{"name": n, "BoundingBox": [*c, *s]} for n, c, s in objs if n in ("chair", "sofa")],
                }
            ],
            "visual_grounding": [
                {
                    **base,
                    "question_id": q("vg"),
                    "pcl": pcl,
                    "query": "Where is the sofa?",
                    "object": [4.0, 0.4, 3.0, 2.0, 0.8, 0.9],
                    "name": "sofa",
                },
                {
                    **base,
                    "question_id": q("vg2"),
                    "pcl": pcl,
                    "query": "Where is the dining table?",
                    "object": [2.0, 0.4, 4.0, 1.5, 0.8, 1.0],
                    "name": "diningtable",
                },
            ],
            "room_detection": [
                {
                    **base,
                    "question_id": q("room"),
                    "pcl": pcl,
                    "query": "Detect the rooms.",
                    "object": [{"label": "LivingRoom", "bbox": [2.5, 2.5, 1.4, 5.0, 5.0, 2.8]}],
                }
            ],
            "position_relation": [
                {
                    **base,
                    "question_id": q("pos"),
                    "pcl": pcl,
                    "query": "Where is the sofa relative to the dining table?",
                    "gt_choices": [
                        "The sofa is left of the dining table",
                        "The sofa is right of the dining table",
                        "The sofa is in front of the dining table",
                        "The sofa is behind the dining table",
                    ],
                    "gt_choice": 1,
                }
            ],
            "navigation": [
                {
                    **base,
                    "question_id": q("nav"),
                    "pcl": pcl,
                    "query": "Go to the sofa.",
                    "positions": [[0.0, 0.0], [2.0, 1.5], [4.0, 2.5]],
                    "start": [0.0, 0.0],
                    "target": "sofa",
                }
            ],
            "scene_caption": [
                {
                    **base,
                    "question_id": q("cap"),
                    "pcl": pcl,
                    "query": "Describe the scene.",
                    "reference": "A living room with two chairs and a sofa.",
                    "rooms": ["LivingRoom"],
                    "objects": ["chair", "sofa", "diningtable"],
                }
            ],
        }

    for folder, prefix, houses in ((root, "", (0, 1)), (root / "train", "tr", (2, 3, 4)) if with_train else (None, None, ())):
        if folder is None:
            continue
        tasks: dict[str, list[dict]] = {}
        for h in houses:
            for t, recs in house(h, folder, prefix).items():
                tasks.setdefault(t, []).extend(recs)
        for t, recs in tasks.items():
            write_task(folder, t, recs)
    return root
