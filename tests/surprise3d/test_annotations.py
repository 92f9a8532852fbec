import json

import numpy as np
import pytest

from scenebench.benchmarks.surprise3d.annotations import derive_sample_id, load_annotations
from scenebench.benchmarks.surprise3d.scenes import load_scene
from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene
from scenebench.errors import InputError

GOOD = {"scene_id": "0a5c013435", "object_id": [3, 1], "description": "Where do I sit?", "object_name": ["chair"], "question_type": "hi"}


def _write(tmp_path, recs):
    p = tmp_path / "ann.json"
    p.write_text(json.dumps(recs))
    return p


def test_sample_id_is_content_derived_and_survives_reordering(tmp_path):
    a = dict(GOOD)
    b = dict(GOOD, description="What keeps milk cold?", object_id=7, question_type="cs")
    ids1 = {s.index: s.sample_id for s in load_annotations(_write(tmp_path, [a, b])).samples}
    ids2 = {s.index: s.sample_id for s in load_annotations(_write(tmp_path, [b, a])).samples}
    assert ids1[0] == ids2[1] and ids1[1] == ids2[0]
    assert ids1[0] == derive_sample_id("0a5c013435", (1, 3), "Where do I sit?", "hi")
    assert ids1[0].startswith("0a5c013435:") and len(ids1[0].split(":")[1]) == 12
    # object_id order does not matter: the GT is a union
    assert derive_sample_id("s", (1, 3), "q", "t") == derive_sample_id("s", (3, 1), "q", "t")


def test_identical_records_get_numbered_ids(tmp_path):
    ann = load_annotations(_write(tmp_path, [GOOD, GOOD, GOOD]))
    base = ann.samples[0].sample_id
    assert [s.sample_id for s in ann.samples] == [base, base + "#2", base + "#3"]


def test_question_types_are_enumerated_from_the_file(tmp_path):
    recs = [dict(GOOD, question_type=q, description=f"q{i}") for i, q in enumerate(["cs", "first_view", "cs", "new_family"])]
    ann = load_annotations(_write(tmp_path, recs))
    assert ann.question_types() == {"cs": 2, "first_view": 1, "new_family": 1}
    assert ann.samples[1].object_ids == (3, 1) and ann.samples[1].object_name == ("chair",)


@pytest.mark.parametrize(
    "field,value,expected",
    [
        ("scene_id", 12, "scene id"),
        ("scene_id", "../../etc/passwd", "scene id"),
        ("scene_id", ".hidden", "scene id"),
        ("object_id", "3.5", "integer"),  # int("3.5") fails in the released loader too
        ("object_id", [], "integer"),
        ("object_id", [1, "two"], "integer"),
        ("object_id", 2.5, "integer"),
        ("object_id", True, "integer"),
        ("object_id", [-1], "negative"),
        ("description", "", "non-empty string"),
        ("description", None, "non-empty string"),
        ("object_name", 7, "list of strings"),
        ("object_name", [1], "list of strings"),
        ("object_name", [["chair", None]], "list of strings"),
        ("question_type", "", "non-empty string"),
    ],
)
def test_bad_records_name_file_record_and_field(tmp_path, field, value, expected):
    p = _write(tmp_path, [GOOD, dict(GOOD, **{field: value})])
    with pytest.raises(InputError) as e:
        load_annotations(p)
    msg = str(e.value)
    assert str(p) in msg and "record 1" in msg and f"field '{field}'" in msg and expected in msg


def test_missing_field_and_wrong_top_level(tmp_path):
    rec = dict(GOOD)
    del rec["question_type"]
    with pytest.raises(InputError, match=r"record 0.*field 'question_type'.*missing"):
        load_annotations(_write(tmp_path, [rec]))
    with pytest.raises(InputError, match="JSON list"):
        load_annotations(_write(tmp_path, {"annotations": [GOOD]}))
    with pytest.raises(InputError, match="no records"):
        load_annotations(_write(tmp_path, []))
    with pytest.raises(InputError, match="record 0.*JSON object"):
        load_annotations(_write(tmp_path, ["x"]))
    (tmp_path / "bad.json").write_text("[{")
    with pytest.raises(InputError, match="invalid JSON"):
        load_annotations(tmp_path / "bad.json")


# ---- scene files ---------------------------------------------------------------------------------


def _scene(n=20):
    rng = np.random.default_rng(0)
    return {
        "sampled_coords": rng.random((n, 3)).astype(np.float32),
        "sampled_colors": rng.random((n, 3)).astype(np.float32) * 255,
        "sampled_instance_anno_id": rng.integers(-1, 3, n).astype(np.int32),
    }


@pytest.mark.parametrize(
    "mutate,field,expected",
    [
        (lambda d: d.pop("sampled_coords"), "sampled_coords", "key missing"),
        (lambda d: d.update(sampled_coords=d["sampled_coords"][:, :2]), "sampled_coords", "(N, 3)"),
        (lambda d: d["sampled_coords"].__setitem__((4, 1), np.nan), "sampled_coords", "non-finite coordinate at point 4"),
        (lambda d: d.update(sampled_colors=d["sampled_colors"][:5]), "sampled_colors", "(20, 3)"),
        (lambda d: d.update(sampled_instance_anno_id=d["sampled_instance_anno_id"][:5]), "sampled_instance_anno_id", "(20,)"),
        (lambda d: d.update(sampled_instance_anno_id=np.full(20, 0.5)), "sampled_instance_anno_id", "non-integer"),
        (lambda d: d.update(superpoints=np.zeros(3, np.int32)), "superpoints", "(20,) integers"),
    ],
)
def test_bad_scene_arrays_name_file_and_key(tmp_path, mutate, field, expected):
    d = _scene()
    mutate(d)
    np.savez(tmp_path / "s.npz", **d)
    with pytest.raises(InputError) as e:
        load_scene(tmp_path, "s")
    assert "s.npz" in str(e.value) and f"field '{field}'" in str(e.value) and expected in str(e.value)


def test_missing_scene_file_says_what_was_looked_for(tmp_path):
    with pytest.raises(InputError, match=r"no point cloud for scene 'abc'.*abc.pth or abc.npz"):
        load_scene(tmp_path, "abc")


def test_pickled_npz_is_refused(tmp_path):
    d = _scene()
    d["sampled_instance_anno_id"] = np.array([object()] * 20, dtype=object)
    np.savez(tmp_path / "s.npz", **d)
    with pytest.raises(InputError, match="pickled"):
        load_scene(tmp_path, "s")


def test_pth_that_is_not_a_torch_file_is_one_clear_error(tmp_path):
    (tmp_path / "s.pth").write_bytes(b"not really")
    with pytest.raises(InputError, match=r"s\.pth: .*not a readable pickle"):
        load_scene(tmp_path, "s")


@pytest.mark.torch
def test_pth_with_a_pickled_object_is_refused(tmp_path):
    torch = pytest.importorskip("torch", reason="torch extra not installed")

    import datetime

    torch.save({"sampled_coords": datetime.datetime(2020, 1, 1)}, tmp_path / "s.pth")  # not an allowed global
    with pytest.raises(InputError, match=r"s\.pth: .*global datetime\.datetime"):
        load_scene(tmp_path, "s")


def test_writer_round_trip_through_loader(tmp_path):
    write_annotations(tmp_path / "a.json", [annotation_record("s1", [1, 2], "q?", ["a", "b"], "cs")])
    ann = load_annotations(tmp_path / "a.json")
    assert ann.samples[0].object_ids == (1, 2)
    write_scene(tmp_path / "s1.npz", np.zeros((3, 3)), np.zeros((3, 3)), [1, 2, -1])
    assert load_scene(tmp_path, "s1").n_points == 3


def test_sample_id_key_text_is_json_dumps():
    # derive_sample_id reuses one encoder: the key text must stay exactly json.dumps's
    import hashlib
    import json

    cases = [("s0", (3, 1, 3), 'Où est la \u2028 "lampe" \\ ? \U0001f600', "cs"), ("s_1", (10**20,), "", "t"), ("x", (0,), "\x00\t", "ü")]
    for scene, ids, desc, qt in cases:
        key = json.dumps([scene, sorted(set(ids)), desc, qt], ensure_ascii=False, separators=(",", ":"))
        assert derive_sample_id(scene, ids, desc, qt) == f"{scene}:{hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]}"
