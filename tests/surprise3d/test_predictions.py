"""Prediction records: every accepted form, and a clear error (file, line, field) for every bad one."""

import json

import numpy as np
import pytest

from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.predictions import read_predictions, rle_to_indices
from scenebench.benchmarks.surprise3d.scorer import Surprise3DScorer
from scenebench.benchmarks.surprise3d.validate import check
from scenebench.errors import InputError


def _read(fx, records, **kw):
    return read_predictions(fx.write_preds(records), load_annotations(fx.annotations), **kw)


def test_every_mask_form_gives_the_same_sorted_indices(dataset):
    sid = dataset.ids[0]
    idx = [5, 3, 3, 9, 10, 11]
    scores = np.zeros(400)
    scores[[3, 5, 9, 10, 11]] = [0.5, 0.9, 0.7, 1.0, 0.51]
    scores[[1, 2]] = 0.4999
    forms = [
        {"sample_id": sid, "mask_indices": idx},
        {"index": 0, "mask_rle": [9, 3, 3, 1, 5, 1]},
        {"sample_id": sid, "index": 0, "scores": scores.tolist()},
    ]
    for rec in forms:
        p = _read(dataset, [rec]).by_sample[sid]
        assert p.indices.tolist() == [3, 5, 9, 10, 11], rec
    assert _read(dataset, [forms[2]], score_threshold=0.4).by_sample[sid].indices.tolist() == [1, 2, 3, 5, 9, 10, 11]


def test_rle_expansion_matches_a_plain_loop():
    rng = np.random.default_rng(0)
    for _ in range(50):
        runs = np.stack([rng.integers(0, 100, 8), rng.integers(0, 6, 8)], 1).ravel()
        plain = [s + j for s, n in zip(runs[0::2], runs[1::2]) for j in range(n)]
        assert rle_to_indices(runs).tolist() == plain


def test_box_record_parsed(dataset):
    p = _read(dataset, [{"index": 2, "box": [0, 0, 0, 1, 2, 3]}]).by_sample[dataset.ids[2]]
    assert p.kind == "box" and p.box.tolist() == [0, 0, 0, 1, 2, 3]


BAD = [
    ({"mask_indices": [1]}, "line 1", "sample_id", "names no sample"),
    ({"sample_id": "nope:123", "mask_indices": [1]}, "line 1", "sample_id", "unknown sample"),
    ({"sample_id": 5, "mask_indices": [1]}, "line 1", "sample_id", "a string"),
    ({"index": 99, "mask_indices": [1]}, "line 1", "index", "0 <= index < 7"),
    ({"index": "0", "mask_indices": [1]}, "line 1", "index", "integer row"),
    ({"index": True, "mask_indices": [1]}, "line 1", "index", "integer row"),
    ({"index": 0}, "line 1", None, "no prediction"),
    ({"index": 0, "mask_indices": [1], "scores": [0.1]}, "line 1", "scores", "several predictions"),
    ({"index": 0, "mask_indices": [1, 2.5]}, "line 1", "mask_indices", "non-integer value 2.5 at position 1"),
    ({"index": 0, "mask_indices": [1, "2"]}, "line 1", "mask_indices", "non-integer"),
    ({"index": 0, "mask_indices": [1, None]}, "line 1", "mask_indices", "non-integer"),
    ({"index": 0, "mask_indices": [[1, 2]]}, "line 1", "mask_indices", "nested"),
    ({"index": 0, "mask_indices": [3, -1]}, "line 1", "mask_indices", "negative value -1"),
    ({"index": 0, "mask_indices": "1,2"}, "line 1", "mask_indices", "is a str"),
    ({"index": 0, "mask_rle": [1, 2, 3]}, "line 1", "mask_rle", "odd length"),
    ({"index": 0, "mask_rle": [1, -2]}, "line 1", "mask_rle", "negative"),
    ({"index": 0, "scores": [0.2, 1.5]}, "line 1", "scores", "outside [0, 1]"),
    ({"index": 0, "scores": [0.2, None]}, "line 1", "scores", "non-numeric"),
    ({"index": 0, "box": [0, 0, 0, 1, 1]}, "line 1", "box", "6 finite numbers"),
    ({"index": 0, "box": [0, 0, 2, 1, 1, 1]}, "line 1", "box", "zmax < zmin"),
    ({"index": 0, "box": "0 0 0 1 1 1"}, "line 1", "box", "is a str"),
]


@pytest.mark.parametrize("rec,where,field,expected", BAD)
def test_bad_record_names_file_line_and_field(dataset, rec, where, field, expected):
    with pytest.raises(InputError) as e:
        _read(dataset, [rec])
    msg = str(e.value)
    assert "preds.jsonl" in msg and where in msg and expected in msg, msg
    if field:
        assert f"field '{field}'" in msg, msg


def test_sample_id_and_index_must_agree(dataset):
    with pytest.raises(InputError, match=r"line 1.*name different samples"):
        _read(dataset, [{"sample_id": dataset.ids[1], "index": 0, "mask_indices": [1]}])


def test_duplicate_sample_names_both_lines(dataset):
    recs = [{"index": 0, "mask_indices": [1]}, {"index": 1, "mask_indices": [1]}, {"sample_id": dataset.ids[0], "mask_indices": [2]}]
    with pytest.raises(InputError, match=r"line 3.*field 'sample_id'.*second prediction.*first at line 1"):
        _read(dataset, recs)


def test_nan_score_names_line_and_position(dataset):
    p = dataset.root / "nan.jsonl"
    p.write_text(json.dumps({"index": 0, "mask_indices": [1]}) + "\n" + '{"index": 1, "scores": [0.1, NaN, 0.3]}\n')
    with pytest.raises(InputError) as e:
        read_predictions(p, load_annotations(dataset.annotations))
    assert "nan.jsonl" in str(e.value) and "line 2" in str(e.value) and "field 'scores[1]'" in str(e.value)


def test_invalid_json_line(dataset):
    p = dataset.root / "broken.jsonl"
    p.write_text('{"index": 0, "mask_indices": [1]}\n{"index": 1, \n')
    with pytest.raises(InputError, match=r"broken.jsonl.*line 2.*invalid JSON"):
        read_predictions(p, load_annotations(dataset.annotations))


def test_box_and_mask_in_one_file_refused(dataset):
    with pytest.raises(InputError, match=r"line 2.*field 'box'.*whose line 1 holds a mask"):
        _read(dataset, [{"index": 0, "mask_indices": [1]}, {"index": 1, "box": [0, 0, 0, 1, 1, 1]}])


def _scene_error(fx, rec):
    """Errors that need the scene's point count: raised by validate and by the scorer alike."""
    path = fx.write_preds([rec])
    with pytest.raises(InputError) as e1:
        check(fx.annotations, fx.scenes, path)
    scorer = Surprise3DScorer(load_annotations(fx.annotations), fx.scenes, path)
    with pytest.raises(InputError) as e2:
        list(scorer.iter_scores(set()))
    assert str(e1.value) == str(e2.value)
    return str(e1.value)


def test_index_beyond_point_count(dataset):
    msg = _scene_error(dataset, {"index": 0, "mask_indices": [1, 400]})
    assert "preds.jsonl" in msg and "line 1" in msg and "field 'mask_indices'" in msg and "index 400 is beyond" in msg
    msg = _scene_error(dataset, {"index": 0, "mask_rle": [395, 6]})
    assert "field 'mask_rle'" in msg and "index 400" in msg
    _scene_error(dataset, {"index": 0, "mask_indices": [2**40]})


def test_scores_of_wrong_length(dataset):
    msg = _scene_error(dataset, {"index": 0, "scores": [0.9] * 399})
    assert "line 1" in msg and "field 'scores'" in msg and "399 scores" in msg and "(400)" in msg


def test_rle_run_ending_exactly_at_the_last_point_is_fine(dataset):
    path = dataset.write_preds([{"index": 0, "mask_rle": [395, 5, 0, 0]}])
    rep = check(dataset.annotations, dataset.scenes, path)
    assert rep.n_predictions == 1 and len(rep.missing_ids) == 6


# ---- Parquet -------------------------------------------------------------------------------------


def _parquet(path, rows, schema=None):
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {k: [r.get(k) for r in rows] for k in dict.fromkeys(k for r in rows for k in r)}
    pq.write_table(pa.table(cols, schema=schema), path)
    return path


def test_parquet_with_the_same_columns_reads_like_jsonl(dataset):
    rows = [
        {"sample_id": dataset.ids[0], "mask_indices": [4, 2, 2]},
        {"index": 1, "mask_rle": [10, 3]},
        {"index": 3, "scores": [0.7] * 10 + [0.1] * 390},
    ]
    ann = load_annotations(dataset.annotations)
    pq_set = read_predictions(_parquet(dataset.root / "p.parquet", rows), ann)
    js_set = read_predictions(dataset.write_preds(rows), ann)
    assert pq_set.by_sample.keys() == js_set.by_sample.keys()
    for sid, p in js_set.by_sample.items():
        assert np.array_equal(pq_set.by_sample[sid].indices, p.indices) and pq_set.by_sample[sid].kind == p.kind
    assert pq_set.by_sample[dataset.ids[1]].where == "row 2"


def test_parquet_nan_score_names_row_and_field(dataset):
    rows = [{"index": 0, "scores": [0.1, 0.2]}, {"index": 1, "scores": [0.3, float("nan")]}]
    with pytest.raises(InputError, match=r"p.parquet.*row 2.*field 'scores'.*NaN"):
        read_predictions(_parquet(dataset.root / "p.parquet", rows), load_annotations(dataset.annotations))


def test_parquet_without_key_column_or_not_parquet(dataset):
    with pytest.raises(InputError, match="no 'sample_id' or 'index' column"):
        read_predictions(_parquet(dataset.root / "p.parquet", [{"mask_indices": [1]}]), load_annotations(dataset.annotations))
    (dataset.root / "x.parquet").write_text("hello")
    with pytest.raises(InputError, match="not a readable Parquet"):
        read_predictions(dataset.root / "x.parquet", load_annotations(dataset.annotations))


def test_jsonl_is_streamed_not_loaded_whole(dataset, monkeypatch):
    # The reader must go through the line iterator; a whole-file read would defeat 1 GB inputs.
    import scenebench.benchmarks.surprise3d.predictions as P

    seen = []
    real = P.iter_jsonl_decoded

    def spy(path, decode, **kw):
        for item in real(path, decode, **kw):
            seen.append(item[0])
            yield item

    monkeypatch.setattr(P, "iter_jsonl_decoded", spy)
    _read(dataset, [{"index": i, "mask_indices": [i]} for i in range(3)])
    assert seen == [1, 2, 3]


def test_index_means_the_file_row_even_for_a_subset_of_samples(dataset):
    from scenebench.benchmarks.surprise3d.annotations import Annotations

    full = load_annotations(dataset.annotations)
    subset = Annotations(full.path, [full.samples[2], full.samples[5]])
    got = read_predictions(dataset.write_preds([{"index": 5, "mask_indices": [1]}]), subset)
    assert list(got.by_sample) == [dataset.ids[5]]
    with pytest.raises(InputError, match=r"field 'index'.*0 is not a row"):
        read_predictions(dataset.write_preds([{"index": 0, "mask_indices": [1]}]), subset)
