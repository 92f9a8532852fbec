"""The one-pass scan writer gives the bytes of a plain reference built on plyfile's own writer."""

import io
import json

import numpy as np
from plyfile import PlyData, PlyElement

from scenebench.benchmarks.rio.writer import _VERTEX_DTYPE, gravity_aligned_obb, write_scan


def _reference_files(scan_id, v, c, f, ids, instances):
    """Plain reference: plyfile writes the PLY row by row; a boolean mask per instance for semseg."""
    by_id = {int(i["id"]): i for i in instances}
    rec = np.empty(len(v), dtype=_VERTEX_DTYPE)
    rec["x"], rec["y"], rec["z"] = v[:, 0], v[:, 1], v[:, 2]
    rec["red"], rec["green"], rec["blue"] = c[:, 0], c[:, 1], c[:, 2]
    rec["objectId"] = ids
    for col, key in (("globalId", "global_id"), ("NYU40", "nyu40"), ("Eigen13", "eigen13"), ("RIO27", "rio27")):
        rec[col] = [int(by_id[i].get(key, 0)) if i in by_id else 0 for i in ids.tolist()]
    frec = np.empty(len(f), dtype=[("vertex_indices", "i4", (3,))])
    frec["vertex_indices"] = f
    buf = io.BytesIO()
    PlyData([PlyElement.describe(rec, "vertex"), PlyElement.describe(frec, "face", len_types={"vertex_indices": "u1"})], text=True).write(
        buf
    )
    obj = "# written by scenebench (3RScan mesh.refined.v2.obj layout)\n"
    obj += "".join(f"v {x:.6f} {y:.6f} {z:.6f}\n" for x, y, z in v.tolist())
    obj += "".join(f"f {a + 1} {b + 1} {d + 1}\n" for a, b, d in f.tolist())
    groups = []
    for iid in sorted(by_id):
        pts = v[ids == iid]
        g = {"id": iid, "objectId": iid, "label": by_id[iid]["label"], "segments": [iid] if len(pts) else []}
        if len(pts):
            g["obb"] = gravity_aligned_obb(pts)
        groups.append(g)
    return {
        "labels.instances.annotated.v2.ply": buf.getvalue(),
        "mesh.refined.v2.obj": obj.encode(),
        "semseg.v2.json": (
            json.dumps({"scan_id": scan_id, "segmentsFile": "mesh.refined.0.010000.segs.v2.json", "segGroups": groups}, indent=2) + "\n"
        ).encode(),
    }


def test_scan_files_match_the_plain_reference(tmp_path):
    rng = np.random.default_rng(7)
    n = 500
    v = rng.normal(size=(n, 3)) * 2.0
    v[0] = [1e-7, -0.0, 123456.789]  # tiny, negative zero and large values through %.18g
    c = rng.integers(0, 256, size=(n, 3), dtype=np.uint8)
    ids = rng.integers(0, 4, size=n)
    f = rng.integers(0, n, size=(40, 3))
    instances = [
        {"id": 1, "global_id": 5, "label": "chair", "nyu40": 5},
        {"id": 2, "global_id": 7, "label": "table", "rio27": 3},
        {"id": 3, "global_id": 9, "label": "lamp"},
        {"id": 9, "global_id": 1, "label": "absent"},
    ]
    for atomic in (True, False):
        d = tmp_path / f"scan{int(atomic)}"
        write_scan(d, v, c, f, ids, instances, atomic=atomic)
        for name, data in _reference_files(d.name, v, c, f, ids, instances).items():
            assert (d / name).read_bytes() == data, name
