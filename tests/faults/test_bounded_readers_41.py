"""Readers stay bounded in memory and time on hostile files (issue 41), each a one-line InputError
naming the file (and where in it). The hostile files are made here.

- One NaN in a large JSON document: msgspec refuses it, and the standard-library parser used to
  build the whole document as Python objects (and walk it) to name the key. Now the key path is
  read from the bytes where msgspec stopped; the same path as before.
- A 2,500-digit vertex coordinate in an OBJ rescan: the byte-string array of all vertex values was
  as wide as its longest token (2,500 bytes a cell: GBs for a real scan).
- A 1.6 KB Parquet predictions file declaring 200,000,000 values in one row was decoded whole before
  any length check; now its metadata is checked before any page is decoded.
- A 584-byte ``.pth`` of self-nested shared lists (2**60 paths) was expanded path by path until killed.
"""

from __future__ import annotations

import json
import pickle
import random
import sys
import zipfile

import bombs
import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.io.files import read_json


def test_one_nan_in_a_large_json_is_named_without_building_the_document(tmp_path):
    # An 17.5 MB annotation file: one flat list of 4.5 million instance ids, a NaN at its end.
    ids = np.random.default_rng(0).integers(0, 100, 4_500_000)
    p = tmp_path / "annotations.json"
    p.write_text('{"scene": "x", "instance_ids": [' + ", ".join(map(str, ids.tolist())) + ", NaN]}")
    code = f"from scenebench.io.files import read_json\nread_json({str(p)!r})"
    rc, mb, out = bombs.peak_rss_mb(code)
    assert rc != 0 and f"{p}: at $.instance_ids[4500000]: non-finite number NaN" in out
    assert mb < 200, f"peak {mb:.0f} MB"  # was 1,190 MB (the standard-library document and a path string per value); now ~70


@pytest.mark.parametrize("seed", range(24))
def test_the_key_path_from_the_bytes_is_the_one_the_standard_library_path_names(tmp_path, monkeypatch, seed):
    import scenebench.io.files as F

    rng = random.Random(seed)

    def value(depth):
        k = rng.random()
        if depth > 3 or k < 0.4:
            return rng.choice([1, -2.5, "a,b", 'q"[{', None, True, "x:y"])
        if k < 0.7:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(["a", "b c", "d.e", "é", 'k"q', "k,1"]) + str(i): value(depth + 1) for i in range(rng.randint(0, 4))}

    doc = {"root": [value(0) for _ in range(5)]}
    containers = []
    stack = [doc]
    while stack:
        c = stack.pop()
        containers.append(c)
        stack += [v for v in (c.values() if isinstance(c, dict) else c) if isinstance(v, dict | list)]
    target = rng.choice(containers)
    if isinstance(target, dict):
        target['z,"q:'] = 123456789
    else:
        target.insert(rng.randint(0, len(target)), 123456789)
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
    token = rng.choice(["NaN", "Infinity", "-Infinity", "1e999"])
    p = tmp_path / "doc.json"
    p.write_text(text.replace("123456789", token), encoding="utf-8")
    with pytest.raises(InputError) as fast:
        read_json(p)
    monkeypatch.setattr(F, "_fast_json", lambda raw: F._REFUSED)
    with pytest.raises(InputError) as slow:
        read_json(p)
    assert fast.value.where == slow.value.where and str(fast.value) == str(slow.value)


def test_a_2500_digit_vertex_coordinate_is_refused_before_the_array_is_built(tmp_path):
    p = tmp_path / "mesh.refined.v2.obj"
    rows = [f"v {i * 0.001:.4f} 0.5 1.25\n" for i in range(40_000)]
    p.write_text("# rescan\n" + "".join(rows[:20_000]) + "v 0.1 " + "7" * 2500 + " 0.2\n" + "".join(rows[20_000:]))
    code = f"from pathlib import Path\nfrom scenebench.benchmarks.rio.scans import obj_points\nobj_points(Path({str(p)!r}))"
    rc, mb, out = bombs.peak_rss_mb(code)
    assert rc != 0 and "a vertex value of 2,500 characters (777777777777...)" in out and "line 20002" in out and str(p) in out
    assert mb < 110, f"peak {mb:.0f} MB"  # was ~350 MB here (120,003 cells of 2,500 bytes); GBs on a real scan


def _parquet(path, rows, per_row, *, dictionary=True):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    lst = pa.ListArray.from_arrays(pa.array(np.arange(rows + 1) * per_row, pa.int32()), pa.array(np.zeros(rows * per_row, np.float32)))
    pq.write_table(pa.table({"sample_id": [f"scene0000_00:{i:012x}" for i in range(rows)], "scores": lst}), path, use_dictionary=dictionary)
    return path


def test_a_parquet_row_declaring_more_values_than_a_scene_is_refused_from_its_metadata(tmp_path, monkeypatch):
    from scenebench.benchmarks.surprise3d import predictions as P

    # The file declares 200,000,000 zeros in one row; the same file at 1/100 of the size
    # against a limit 1/100 as large (the real one would take GBs to write here).
    monkeypatch.setattr(P, "MAX_VALUES_PER_ROW", 2**20)
    p = _parquet(tmp_path / "p.parquet", 1, 2_000_000)
    assert p.stat().st_size < 4096
    with pytest.raises(
        InputError, match=r"field 'scores': row group 0 declares 2,000,000 values in 1 row\(s\).*refused before decoding"
    ) as ei:
        list(P.iter_records(p))
    assert str(p) in str(ei.value)


def test_a_parquet_of_run_length_zeros_over_many_rows_is_refused_from_its_metadata(tmp_path, monkeypatch):
    from scenebench.benchmarks.surprise3d import predictions as P

    monkeypatch.setattr(P, "BOMB_VALUES", 2**20)  # 4,194,304 zeros in ~500 encoded bytes: ~8,900 values a byte
    p = _parquet(tmp_path / "p.parquet", 64, 65_536)
    with pytest.raises(InputError, match=r"declares 4,194,304 values in 64 row\(s\), encoded in \d+ bytes"):
        list(P.iter_records(p))
    ok = _parquet(tmp_path / "ok.parquet", 64, 64)  # small files of the same shape are read
    assert len(list(P.iter_records(ok))) == 64


def test_a_pth_of_self_nested_shared_lists_is_refused_quickly(tmp_path):
    from scenebench.io.arrays import MAX_PTH_VALUES, read_pth

    x: list = [0]
    for _ in range(60):
        x = [x, x]  # pickled once each (the pickle memo): 2**60 paths from a few hundred bytes
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    p = tmp_path / "scene.pth"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"sampled_coords": x}, protocol=2))
    assert p.stat().st_size < 1024
    with pytest.raises(InputError, match=f"expands to more than {MAX_PTH_VALUES:,} values") as ei:
        read_pth(p)
    assert str(p) in str(ei.value)


def test_a_pth_sharing_one_tensor_in_many_places_copies_it_once(tmp_path):
    torch = pytest.importorskip("torch")
    from scenebench.io.arrays import read_pth

    t = torch.arange(5, dtype=torch.int64)
    p = tmp_path / "shared.pth"
    torch.save({"a": [t, t, {"b": t}]}, p)
    got = read_pth(p)
    assert got["a"][0] is got["a"][1] is got["a"][2]["b"] and got["a"][0].tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "text",
    [
        '{"s": "1e999", "x": [1, 1e999]}',
        '{"s": "NaN", "x": [1, NaN]}',
        '{"s\\"": "a\\"1e999", "y": -1e999}',
        '[{"a": "[{,"}, {"b": [0, -Infinity]}]',
    ],
)
def test_numbers_inside_strings_are_not_the_refused_token(tmp_path, monkeypatch, text):
    import scenebench.io.files as F

    p = tmp_path / "doc.json"
    p.write_text(text)
    with pytest.raises(InputError) as fast:
        read_json(p)
    monkeypatch.setattr(F, "_fast_json", lambda raw: F._REFUSED)
    with pytest.raises(InputError) as slow:
        read_json(p)
    assert str(fast.value) == str(slow.value)
