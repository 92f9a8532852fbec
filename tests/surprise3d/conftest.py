"""Small SURPRISE3D datasets made with the project's own writer, in .npz and .pth."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene


@dataclass
class Fixture:
    root: Path
    annotations: Path
    scenes: Path
    inst: dict[str, np.ndarray]  # scene_id -> instance ids
    coords: dict[str, np.ndarray]
    ids: list[str]  # sample ids in file order

    def write_preds(self, records, name="preds.jsonl") -> Path:
        p = self.root / name
        p.write_text("".join(json.dumps(r) + "\n" for r in records))
        return p

    def gt(self, index: int, targets) -> np.ndarray:
        scene = RECORDS[index][0]
        return np.flatnonzero(np.isin(self.inst[scene], targets))


# (scene_id, object_id, question_type); instance 9 exists in no scene -> empty GT mask.
RECORDS = [
    ("0a5c013435", 1, "cs"),
    ("0a5c013435", [2, 3], "rel_pos"),
    ("0a5c013435", 4, "hi"),
    ("1b7d02a6ff", 1, "cs"),
    ("1b7d02a6ff", 9, "abs"),
    ("1b7d02a6ff", 2, "rel_pos"),
    ("2c8e113b70", 3, "cs"),
]


def make_dataset(root: Path, suffix: str = ".npz", n_points: int = 400, seed: int = 0) -> Fixture:
    rng = np.random.default_rng(seed)
    scenes = root / "scenes"
    scenes.mkdir(parents=True, exist_ok=True)
    inst, coords = {}, {}
    for sid in dict.fromkeys(r[0] for r in RECORDS):
        # Instances occupy separate unit cubes along x, so their boxes do not overlap.
        ids = rng.integers(-1, 5, n_points)
        xyz = rng.random((n_points, 3)) + np.where(ids >= 0, ids, 6)[:, None] * np.array([2.0, 0, 0])
        colors = rng.integers(0, 256, (n_points, 3))
        write_scene(scenes / f"{sid}{suffix}", xyz, colors, ids, superpoints=np.arange(n_points) // 10)
        inst[sid], coords[sid] = ids, xyz.astype(np.float32)
    recs = [
        annotation_record(s, o, f"question {i} about something in the room?", [f"object{i}"], q, extra_field=i)
        for i, (s, o, q) in enumerate(RECORDS)
    ]
    ann = write_annotations(root / "surprise-3d-val.json", recs)
    ids = [s.sample_id for s in load_annotations(ann).samples]
    return Fixture(root, ann, scenes, inst, coords, ids)


@pytest.fixture
def dataset(tmp_path) -> Fixture:
    return make_dataset(tmp_path)


@pytest.fixture(params=[".npz", pytest.param(".pth", marks=pytest.mark.torch)])
def any_dataset(request, tmp_path) -> Fixture:
    if request.param == ".pth":
        pytest.importorskip("torch", reason="torch extra not installed")
    return make_dataset(tmp_path, request.param)
