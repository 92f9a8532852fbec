"""Small 3DBench folders in the official shapes, written with the project's own writer."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from scenebench.benchmarks.bench3d.writer import write_point_cloud, write_task

CLASSES = ["chair", "cup", "sofa", "bed", "vase", "mug"]


def cloud(seed: int, n: int = 64) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.uniform(-3, 3, (n, 3)), rng.uniform(0, 1, (n, 3))], axis=1).astype(np.float32)


def records_for(task: str, houses: tuple[str, ...] = ("460", "461")) -> list[dict]:
    out: list[dict] = []
    for h in houses:
        base = {"id": h, "pcl": f"pcl/{h}.npy"}
        q = lambda k: {**base, "question_id": f"{task}-{h}-{k}"}  # noqa: E731
        if task == "classification":
            out += [
                {
                    **q(k),
                    "pcl": f"pcl/{h}_obj{k}.npy",
                    "query": "What is this object? Options: (A) chair (B) cup (C) sofa (D) bed (E) vase (F) mug",
                    "gt_choices": CLASSES,
                    "gt_choice": k % 6,
                }
                for k in range(3)
            ]
        elif task == "counting":
            out += [
                {**q(k), "query": "How many chairs are there?", "gt_choices": [1, 2, 3, 4, 5, 12], "gt_choice": k, "object": "chair"}
                for k in range(3)
            ]
        elif task == "position_relation":
            opts = [
                "The sofa is to the left of the bed.",
                "The sofa is to the right of the bed.",
                "The sofa is in front of the bed.",
                "The sofa is behind the bed.",
            ]
            out += [
                {**q(k), "query": "Where is the sofa relative to the bed?", "gt_choices": opts, "gt_choice": k, "objects": ["sofa", "bed"]}
                for k in range(2)
            ]
        elif task == "detection":
            out.append(
                {
                    **q(0),
                    "query": "Detect the chairs and the sofa.",
                    "object": [
                        {"name": "chair", "BoundingBox": [1.0, 0.5, 1.0, 0.5, 1.0, 0.5]},
                        {"name": "chair", "BoundingBox": [-1.0, 0.5, 2.0, 0.5, 1.0, 0.5]},
                        {"label": "sofa", "bbox": [0.0, 0.4, -2.0, 2.0, 0.8, 1.0]},
                    ],
                }
            )
        elif task == "visual_grounding":
            out += [
                {**q(k), "query": "Find the red vase.", "object": [0.5 * k, 1.0, -1.5, 0.3, 0.6, 0.3], "name": "vase"} for k in range(2)
            ]
        elif task == "visual_grounding_plus":
            out.append(
                {
                    **q(0),
                    "query": "Where is the object described?",
                    "object": [2.0, 0.5, 2.0, 1.0, 1.0, 1.0],
                    "name": "armchair",
                    "caption": "A soft blue armchair.",
                }
            )
        elif task == "room_detection":
            out.append(
                {
                    **q(0),
                    "query": "Detect every room.",
                    "object": [
                        {"label": "Kitchen", "bbox": [2.0, 2.0, 1.25, 4.0, 4.0, 2.5]},
                        {"label": "LivingRoom", "bbox": [-3.0, 2.0, 1.25, 6.0, 4.0, 2.5]},
                    ],
                }
            )
        elif task == "navigation":
            out.append(
                {
                    **q(0),
                    "query": "Go from (0, 0) to the fridge.",
                    "positions": [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 1.0]],
                    "start": [0.0, 0.0],
                    "target": "fridge",
                }
            )
        elif task in ("object_caption", "object_conversation"):
            out.append(
                {
                    **q(0),
                    "pcl": f"pcl/{h}_obj0.npy",
                    "query": "Describe this object.",
                    "object": "chair",
                    "reference": ["a wooden chair with four legs", "a brown chair"],
                }
            )
        elif task in ("scene_caption", "scene_qa", "relation"):
            out.append(
                {
                    **q(0),
                    "query": "Describe the scene.",
                    "rooms": ["Kitchen", "LivingRoom"],
                    "objects": ["fridge", "sofa", "chair"],
                    "reference": "a kitchen next to a living room with a sofa",
                }
            )
    return out


def make_bench(root: Path, tasks: list[str], houses: tuple[str, ...] = ("460", "461"), prefix: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for t in tasks:
        recs = records_for(t, houses)
        write_task(root, t, recs, prefix=prefix)
        for r in recs:
            if not (root / r["pcl"]).exists():
                write_point_cloud(root, r["pcl"], cloud(zlib.crc32(r["pcl"].encode()) % 1000))  # stable across runs
    return root
