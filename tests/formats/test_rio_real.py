"""3RScan as released: the labelled PLY carries faces as ``property list uchar uint vertex_indices``
(binary little-endian in the download). The loader reads it exactly like the project's ASCII PLY."""

from __future__ import annotations

import numpy as np
import pytest
from tests.rio.rooms import REF, RESCAN_A, write_room

from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.benchmarks.rio.writer import PLY_NAME


@pytest.mark.parametrize("binary", [False, True], ids=["ascii", "binary"])
def test_ply_with_uint_face_indices_reads_like_the_project_ply(tmp_path, binary):
    from plyfile import PlyData, PlyElement

    room = write_room(tmp_path / "room", units="m", density=150.0)
    before = ThreeRScan(room.root)
    xyz0, rgb0, ids0 = before.points(REF)
    gt0 = [(g.instance, g.moved, g.excluded, g.centroid.tolist()) for g in before.ground_truth(before.rescans[RESCAN_A], "all")]
    p = room.root / REF / PLY_NAME
    ply = PlyData.read(str(p))
    faces = np.zeros(3, dtype=[("vertex_indices", "u4", (3,))])
    faces["vertex_indices"] = [[0, 1, 2], [2, 3, 4], [4, 5, 0]]
    PlyData(
        [ply["vertex"], PlyElement.describe(faces, "face", len_types={"vertex_indices": "u1"}, val_types={"vertex_indices": "u4"})],
        text=not binary,
        byte_order="<",
    ).write(str(p))
    header = p.read_bytes().split(b"end_header")[0].decode("ascii")
    assert "property list uchar uint vertex_indices" in header
    after = ThreeRScan(room.root)
    xyz, rgb, ids = after.points(REF)
    assert np.allclose(xyz, xyz0, atol=1e-6) and np.array_equal(rgb, rgb0) and np.array_equal(ids, ids0)
    gt = [(g.instance, g.moved, g.excluded, g.centroid.tolist()) for g in after.ground_truth(after.rescans[RESCAN_A], "all")]
    assert gt == gt0 and len(gt0) > 5  # same samples (removed lamp absent, non-rigid curtain excluded)
