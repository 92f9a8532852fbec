"""Regression tests for the reader bugs the fault harness found (one test per bug).

Each case used to escape as a bare Python/numpy exception (or a silently wrong value); now it is an
InputError naming the file and where in it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.io.files import is_finite_number, iter_jsonl, read_json


def _ann(scene_id="0a5c013435", object_id=3):
    return [
        {
            "scene_id": scene_id,
            "object_id": object_id,
            "description": "the thing to sit on",
            "object_name": ["chair"],
            "question_type": "cs",
        }
    ]


def test_read_json_names_the_key_holding_nan_or_infinity(tmp_path):
    p = tmp_path / "a.json"
    for token in ("NaN", "Infinity", "-Infinity", "1e999"):
        p.write_text('[{"a": 1}, {"b": [0, %s]}]' % token)
        with pytest.raises(InputError, match=r"at \$\[1\]\.b\[1\].*non-finite number") as ei:
            read_json(p)
        assert ei.value.where == "at $[1].b[1]" and str(p) in str(ei.value)


def test_read_json_and_jsonl_refuse_deep_nesting(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="nested too deeply"):
        read_json(p)
    q = tmp_path / "deep.jsonl"
    q.write_text('{"a": 1}\n{"x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(InputError, match="line 2.*nested too deeply"):
        list(iter_jsonl(q))


def test_is_finite_number_with_an_int_beyond_float_range():
    assert not is_finite_number(10**400)
    assert is_finite_number(10**300) and not is_finite_number(float("nan"))


def test_surprise3d_object_id_beyond_int64(tmp_path):
    from scenebench.benchmarks.surprise3d.annotations import load_annotations

    p = tmp_path / "ann.json"
    p.write_text(json.dumps(_ann(object_id=[10**30, 1])))
    with pytest.raises(InputError, match="record 0.*object_id.*too large"):
        load_annotations(p)


def test_surprise3d_scene_id_too_long_for_a_file_name(tmp_path):
    from scenebench.benchmarks.surprise3d.annotations import load_annotations

    p = tmp_path / "ann.json"
    p.write_text(json.dumps(_ann(scene_id="a" * 300)))
    with pytest.raises(InputError, match="record 0.*scene_id"):
        load_annotations(p)


def test_surprise3d_mask_index_beyond_int64(tmp_path):
    from scenebench.benchmarks.surprise3d.annotations import load_annotations
    from scenebench.benchmarks.surprise3d.predictions import read_predictions

    a = tmp_path / "ann.json"
    a.write_text(json.dumps(_ann()))
    p = tmp_path / "p.jsonl"
    p.write_text(json.dumps({"index": 0, "mask_indices": [0, 2**63, 2, 3]}) + "\n")
    with pytest.raises(InputError, match="line 1.*mask_indices"):
        read_predictions(p, load_annotations(a))
    p.write_text(json.dumps({"index": 0, "mask_indices": [-1, 2**64]}) + "\n")
    with pytest.raises(InputError, match="line 1.*mask_indices"):
        read_predictions(p, load_annotations(a))


def test_surprise3d_damaged_parquet_page(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from scenebench.benchmarks.surprise3d.annotations import load_annotations
    from scenebench.benchmarks.surprise3d.predictions import read_predictions

    a = tmp_path / "ann.json"
    a.write_text(json.dumps(_ann()))
    p = tmp_path / "p.parquet"
    pq.write_table(pa.table({"index": [0], "mask_indices": [list(range(2000))]}), p, compression="snappy")
    raw = bytearray(p.read_bytes())
    # Damage the data pages but keep the footer, so the file opens and fails only when read.
    for i in range(8, 200):
        raw[i] ^= 0x5A
    p.write_bytes(bytes(raw))
    with pytest.raises(InputError) as ei:
        read_predictions(p, load_annotations(a))
    assert str(p) in str(ei.value)


def test_surprise3d_float_instance_ids_beyond_exact_range(tmp_path):
    from scenebench.benchmarks.surprise3d.scenes import check_scene_arrays

    n = 4
    data = {
        "sampled_coords": np.zeros((n, 3), np.float32),
        "sampled_colors": np.zeros((n, 3), np.float32),
        "sampled_instance_anno_id": np.array([1.0, 2.0, 1e300, -1.0]),
    }
    with pytest.raises(InputError, match="sampled_instance_anno_id"):
        check_scene_arrays(tmp_path / "s.npz", data, "s")


def test_bench3d_counting_option_beyond_float_range(tmp_path):
    from scenebench.benchmarks.bench3d.records import validate_record

    rec = {"question_id": "q", "id": "h", "pcl": "x.npy", "query": "how many?", "gt_choices": [1, 10**400], "gt_choice": 0}
    # Used to raise OverflowError (int -> float -> int); an integer option is kept exactly.
    assert validate_record("counting", rec, path=tmp_path / "Counting.json").gt["choices"] == ["1", str(10**400)]


def test_bench3d_box_value_beyond_float_range(tmp_path):
    from scenebench.benchmarks.bench3d.records import validate_record

    rec = {"question_id": "q", "id": "h", "pcl": "x.npy", "query": "where?", "object": [1, 1, 1, 1, 1, int("9" * 400)]}
    with pytest.raises(InputError, match="record 0.*object"):
        validate_record("visual_grounding", rec, path=tmp_path / "VisualGrounding.json")


def test_bench3d_point_cloud_name_too_long(tmp_path):
    from scenebench.benchmarks.bench3d.loader import _check_cloud

    problem = _check_cloud(tmp_path, "a" * 400 + ".npy")
    assert problem and "not a usable path" in problem


def test_rio_non_list_fields_are_named(tmp_path):
    from scenebench.benchmarks.rio.loader import ThreeRScan

    eye = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    for key, value in (("removed", 1e308), ("nonrigid", 7), ("rigid", {"a": 1})):
        scan = {"reference": "r1", "transform": eye, key: value}
        (tmp_path / "3RScan.json").write_text(json.dumps([{"reference": "ref", "type": "validation", "scans": [scan]}]))
        with pytest.raises(InputError, match=f"scene 0.*field '{key}'.*expected a list"):
            ThreeRScan(tmp_path)
    (tmp_path / "3RScan.json").write_text(json.dumps([{"reference": "ref", "type": "validation", "scans": []}]))
    (tmp_path / "objects.json").write_text(json.dumps({"scans": [{"scan": "ref", "objects": 10**40}]}))
    with pytest.raises(InputError, match="scans\\[0\\].*field 'objects'"):
        ThreeRScan(tmp_path)


def test_rio_missing_lists_name_their_key(tmp_path):
    from scenebench.benchmarks.rio.loader import ThreeRScan

    (tmp_path / "3RScan.json").write_text(json.dumps([{"reference": "ref", "type": "validation", "scans": []}]))
    (tmp_path / "objects.json").write_text(json.dumps({"nothing": []}))
    with pytest.raises(InputError) as ei:
        ThreeRScan(tmp_path)
    assert ei.value.field == "scans"


@pytest.mark.parametrize("option", ["²", "١٢", "³"])
def test_bench3d_counting_option_unicode_digit(tmp_path, option):
    from scenebench.benchmarks.bench3d.records import validate_record

    rec = {"question_id": "q", "id": "h", "pcl": "x.npy", "query": "how many?", "gt_choices": ["1", option], "gt_choice": 0}
    with pytest.raises(InputError, match="gt_choices.*whole number"):
        validate_record("counting", rec, path=tmp_path / "Counting.json")


def test_rio_instance_id_unicode_digit(tmp_path):
    from scenebench.benchmarks.rio.loader import ThreeRScan

    (tmp_path / "3RScan.json").write_text(
        json.dumps([{"reference": "ref", "type": "validation", "scans": [{"reference": "r1", "removed": ["²"]}]}])
    )
    with pytest.raises(InputError, match="field 'removed'.*integer"):
        ThreeRScan(tmp_path)


@pytest.mark.parametrize("runs", [[0, 10**12], [0, 2**31 - 1], [0, 10**9] * 20, [2**62, 2**62]])
def test_surprise3d_rle_that_would_allocate_terabytes(tmp_path, runs):
    from scenebench.benchmarks.surprise3d.annotations import load_annotations
    from scenebench.benchmarks.surprise3d.predictions import read_predictions

    a = tmp_path / "ann.json"
    a.write_text(json.dumps(_ann()))
    p = tmp_path / "p.jsonl"
    p.write_text(json.dumps({"index": 0, "mask_rle": runs}) + "\n")
    with pytest.raises(InputError, match="line 1.*mask_rle.*beyond"):
        read_predictions(p, load_annotations(a))


@pytest.mark.parametrize("where", ["ambiguity", "scans", "rigid"])
def test_rio_unit_detection_survives_non_lists(tmp_path, where):
    from scenebench.benchmarks.rio.loader import ThreeRScan

    scan = {"reference": "r1", "rigid": True if where == "rigid" else []}
    scene = {"reference": "ref", "type": "validation", "scans": True if where == "scans" else [scan]}
    if where == "ambiguity":
        scene["ambiguity"] = True
    (tmp_path / "3RScan.json").write_text(json.dumps([scene]))
    with pytest.raises(InputError, match=f"field '{where}'"):
        ThreeRScan(tmp_path)


def _npy_with_header(path, header: bytes):
    import numpy.lib.format as fmt

    magic = fmt.magic(1, 0)
    pad = (-(len(magic) + 2 + len(header) + 1)) % 64
    body = header + b" " * pad + b"\n"
    path.write_bytes(magic + len(body).to_bytes(2, "little") + body + b"\0" * 24)
    return path


@pytest.mark.parametrize(
    "header",
    [
        b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,\x00), }",  # null byte: SyntaxError in numpy
        b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,",  # unterminated: tokenize.TokenError
        b"{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000000,), }",  # MemoryError
    ],
)
def test_npy_damaged_or_lying_header(tmp_path, header):
    from scenebench.benchmarks.bench3d.loader import _check_cloud
    from scenebench.io.arrays import load_npy, load_npz

    p = _npy_with_header(tmp_path / "a.npy", header)
    with pytest.raises(InputError, match="a.npy"):
        load_npy(p)
    assert "not a readable" in _check_cloud(tmp_path, "a.npy")
    import zipfile

    with zipfile.ZipFile(tmp_path / "s.npz", "w") as z:
        z.writestr("sampled_coords.npy", p.read_bytes())
    with pytest.raises(InputError, match="s.npz.*sampled_coords"):
        load_npz(tmp_path / "s.npz")


def test_bench3d_run_source_refuses_nan_points(tmp_path):
    from scenebench.benchmarks.bench3d.source import Bench3DSource
    from scenebench.benchmarks.bench3d.writer import write_task

    rec = {"question_id": "q1", "id": "h", "pcl": "scene/h.npy", "query": "how many chairs?", "gt_choices": ["1", "2"], "gt_choice": 0}
    write_task(tmp_path, "counting", [rec])
    (tmp_path / "scene").mkdir()
    pts = np.zeros((5, 6))
    pts[2, 1] = np.nan
    np.save(tmp_path / "scene" / "h.npy", pts)
    view = Bench3DSource(str(tmp_path)).scene("scene/h.npy")
    with pytest.raises(InputError, match="h.npy.*pcl.*non-finite"):
        view.get("points")


@pytest.mark.parametrize("text", ["2", "[]", '"run"', "null"])
def test_run_json_that_is_not_an_object(tmp_path, text):
    from scenebench.runtime.rundir import RunDir

    (tmp_path / "run.json").write_text(text)
    with pytest.raises(InputError, match="run.json.*top level"):
        RunDir(tmp_path).open({"benchmark": "x", "protocol": "strict", "fingerprint": "f"})


def test_surprise3d_dense_masks_are_held_as_bits(tmp_path):
    """Per-point scores used to be held as int32 indices (a third of the file): memory grew with the file."""
    from scenebench.benchmarks.surprise3d.predictions import parse_mask_indices, parse_mask_rle, parse_scores

    rng = np.random.default_rng(0)
    scores = rng.random(100_000)
    p = parse_scores(tmp_path / "p.jsonl", "line 1", scores.tolist(), 0.5)
    assert p.bits is not None and p.bits.nbytes <= 100_000 // 8 + 1
    assert np.array_equal(p.indices, np.flatnonzero(scores >= 0.5)) and p.indices.dtype == np.int32
    sparse = parse_mask_indices(tmp_path / "p.jsonl", "line 1", [5, 99_999, 7, 7])
    assert sparse.bits is None and sparse.indices.tolist() == [5, 7, 99_999] and sparse.limit == 100_000
    rle = parse_mask_rle(tmp_path / "p.jsonl", "line 1", [10, 5000, 0, 3])
    assert rle.bits is not None and rle.indices.tolist() == [0, 1, 2, *range(10, 5010)]


def test_generate_resume_removes_half_written_temp_files(tmp_path):
    """A generate killed inside an atomic write left '.<name>.*.tmp' litter that the resumed run kept."""
    from scenebench.synth.pipeline import GenerateSettings, run

    s = GenerateSettings(seed=1, houses=1, min_rooms=2, max_rooms=2, width=32, height=24, formats=("3dbench",))
    run(tmp_path, s, progress=False)
    litter = tmp_path / "3dbench" / ".Counting.json.abc123.tmp"
    litter.write_text("[")
    run(tmp_path, s, progress=False)
    assert not litter.exists()
