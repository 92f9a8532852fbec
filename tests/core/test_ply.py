"""``scenebench.io.ply``: the vertex block of an ASCII PLY through numpy's C parser gives plyfile's
array byte for byte, and every file the fast path does not take (binary, list properties, a short or
malformed block) goes to plyfile, which reads it or raises."""

from __future__ import annotations

import numpy as np
import pytest
from plyfile import PlyData, PlyElement

from scenebench.io import ply

DTYPE = [("x", "f4"), ("y", "f4"), ("z", "f4"), ("red", "u1"), ("objectId", "u2"), ("d", "f8"), ("s", "i2")]


def _vertices(n: int = 50) -> np.ndarray:
    rng = np.random.default_rng(3)
    v = np.empty(n, DTYPE)
    v["x"], v["y"], v["z"] = (rng.normal(size=(3, n)) * 7).astype("f4")
    v["red"] = rng.integers(0, 256, n)
    v["objectId"] = rng.integers(0, 65536, n)
    v["d"] = rng.normal(size=n) * 1e10
    v["s"] = rng.integers(-32768, 32768, n)
    return v


def _write(path, v, text=True, faces=True, comments=()):
    els = [PlyElement.describe(v, "vertex")]
    if faces:
        f = np.empty(3, dtype=[("vertex_indices", "i4", (3,))])
        f["vertex_indices"] = [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
        els.append(PlyElement.describe(f, "face", len_types={"vertex_indices": "u1"}))
    PlyData(els, text=text, comments=list(comments)).write(str(path))
    return path


def _plyfile(path) -> np.ndarray:
    return np.asarray(PlyData.read(str(path))["vertex"].data)


@pytest.mark.parametrize("faces", [True, False])
def test_ascii_vertex_block_is_plyfiles_array_byte_for_byte(tmp_path, faces):
    p = _write(tmp_path / "a.ply", _vertices(), faces=faces, comments=["made by a test", "end_header in a comment"])
    fast = ply._ascii_vertex_block(p)
    assert fast is not None  # the fast path took it
    want = _plyfile(p)
    assert fast.dtype == want.dtype and fast.tobytes() == want.tobytes()
    assert ply.read_ply_vertices(p).tobytes() == want.tobytes()


def test_one_and_zero_vertices(tmp_path):
    for n in (1, 0):
        p = _write(tmp_path / f"n{n}.ply", _vertices(n), faces=False)
        got = ply.read_ply_vertices(p)
        assert len(got) == n and got.tobytes() == _plyfile(p).tobytes()


def test_binary_and_list_properties_go_to_plyfile(tmp_path):
    p = _write(tmp_path / "b.ply", _vertices(), text=False)
    assert ply._ascii_vertex_block(p) is None and ply.read_ply_vertices(p).tobytes() == _plyfile(p).tobytes()
    v = np.empty(2, dtype=[("x", "f4"), ("idx", "O")])
    v["x"] = [1.5, 2.5]
    v["idx"] = [np.array([1, 2], "i4"), np.array([3], "i4")]
    q = tmp_path / "l.ply"
    PlyData([PlyElement.describe(v, "vertex")], text=True).write(str(q))
    assert ply._ascii_vertex_block(q) is None
    assert list(ply.read_ply_vertices(q)["x"]) == [1.5, 2.5]


@pytest.mark.parametrize(
    "damage",
    [
        lambda rows: rows[:-2],  # fewer rows than the header says
        lambda rows: [rows[0] + b" 7"] + rows[1:],  # a row with an extra value
        lambda rows: [b"1 2 3"] + rows[1:],  # a row with too few
        lambda rows: [rows[0].replace(rows[0].split()[0], b"abc", 1)] + rows[1:],  # not a number
        lambda rows: [b" ".join(rows[0].split()[:3] + [b"300"] + rows[0].split()[4:])] + rows[1:],  # uchar out of range
    ],
    ids=["short", "extra-value", "few-values", "not-a-number", "uchar-300"],
)
def test_a_damaged_block_is_plyfiles_to_judge(tmp_path, damage):
    p = _write(tmp_path / "d.ply", _vertices(6), faces=False)
    raw = p.read_bytes()
    head, body = raw.split(b"end_header\n")
    rows = body.rstrip(b"\n").split(b"\n")
    p.write_bytes(head + b"end_header\n" + b"\n".join(damage(rows)) + b"\n")
    assert ply._ascii_vertex_block(p) is None  # never a silently different array
    with pytest.raises(Exception):  # noqa: B017 - plyfile's own error type; callers wrap it with the file name
        ply.read_ply_vertices(p)
