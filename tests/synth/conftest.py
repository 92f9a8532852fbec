"""Tiny generated runs shared by the synth tests (small houses, small frames: seconds, not minutes)."""

from __future__ import annotations

import pytest

from scenebench.synth.pipeline import GenerateSettings, run

TINY = GenerateSettings(seed=7, houses=3, min_rooms=2, max_rooms=4, test_every=2, width=64, height=48, voxel=0.05)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth") / "run"
    manifest = run(out, TINY, workers=1, progress=False)
    return out, manifest


def tree_bytes(root):
    """{relative path: bytes} of every file under ``root`` (hidden staging folder included)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
