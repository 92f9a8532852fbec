"""The fast JSONL path (msgspec into numpy arrays) against the standard-library path it replaced:
the same predictions for every accepted line, the same error message for every refused one."""

import numpy as np
import pytest

import scenebench.benchmarks.surprise3d.predictions as P
from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.errors import InputError


def _slow_only(raw: bytes):
    raise ValueError("standard-library path, as before the fast decoder")


def _outcome(path, ann, **kw):
    try:
        got = P.read_predictions(path, ann, **kw)
    except InputError as exc:
        return ("error", str(exc))
    return (
        "ok",
        {
            sid: (
                p.kind,
                p.where,
                None if p.indices is None else p.indices.tolist(),
                p.limit,
                p.n_scores,
                None if p.box is None else p.box.tolist(),
            )
            for sid, p in got.by_sample.items()
        },
        dict(got.kinds),
    )


LINES = [
    # accepted
    '{"index": 0, "mask_indices": [5, 3, 3, 9]}',
    '{"index": 0, "mask_indices": []}',
    '{"sample_id": "%(sid)s", "index": 0, "mask_rle": [9, 3, 3, 1]}',
    '{"index": 0, "scores": %(scores)s}',
    '{"index": 0, "scores": %(int_scores)s}',
    '{"index": 0, "box": [0, 0, 0, 1.5, 2, 1e-3]}',
    '{"index": 0, "mask_indices": [1, 2], "extra": {"any": ["thing", null]}, "box": null}',
    '{"index": 0, "mask_indices": [1, 2], "note": "caf\\u00e9 \u00e9"}',
    # mask_indices is read from its raw text by numpy's parser: whitespace, absent, null, -0, 18 digits
    '{"index": 0, "mask_indices": [ ]}',
    '{"index": 0, "mask_indices": [\t3 ,\r\n1 ]}',
    '{"index": 0, "mask_indices": null, "box": [0, 0, 0, 1, 1, 1]}',
    '{"index": 0, "mask_indices": [-0, 0, 7]}',
    '{"index": 0, "mask_indices": [999999999999999999]}',
    '{"index": 0, "mask_indices": [1000000000000000000]}',
    '{"index": 0, "mask_indices": [12, 1e2]}',
    '{"index": 0, "mask_indices": [12, -1]}',
    '{"index": 0, "mask_indices": [12, 3E1]}',
    '{"index": 0, "mask_indices": {"a": 1}}',
    '{"index": 0, "mask_indices": "1,2"}',
    # refused: each must give the standard-library message
    '{"index": 0, "mask_indices": [1, 2.5]}',
    '{"index": 0, "mask_indices": [1, true]}',
    '{"index": 0, "mask_indices": [1, "2"]}',
    '{"index": 0, "mask_indices": [1, null]}',
    '{"index": 0, "mask_indices": [1, -4]}',
    '{"index": 0, "mask_indices": [1, [2]]}',
    '{"index": 0, "mask_indices": 7}',
    '{"index": 0, "mask_indices": [1, 99999999999999999999999]}',
    '{"index": 0, "mask_indices": [1, 9223372036854775808]}',
    '{"index": 0, "mask_rle": [1, 2, 3]}',
    '{"index": 0, "mask_rle": [0, 1000000000000]}',
    '{"index": 0, "scores": [0.1, NaN]}',
    '{"index": 0, "scores": [0.1, 1e999]}',
    '{"index": 0, "scores": [0.1, 1.5]}',
    '{"index": 0, "scores": [0.1, "x"]}',
    '{"index": 0, "scores": [0.1, 99999999999999999999999]}',
    '{"index": 0, "box": [0, 0, 0, 1, 1]}',
    '{"index": 0, "box": [0, 0, 0, 1, 1, Infinity]}',
    '{"index": 0, "box": [2, 0, 0, 1, 1, 1]}',
    '{"index": 0, "box": [0, 0, 0, 1, 1, "1"]}',
    '{"index": 0, "mask_indices": [1], "box": [0, 0, 0, 1, 1, 1]}',
    '{"index": 0}',
    '{"index": 1.0, "mask_indices": [1]}',
    '{"index": true, "mask_indices": [1]}',
    '{"index": 99999, "mask_indices": [1]}',
    '{"sample_id": 5, "mask_indices": [1]}',
    '{"sample_id": "nope", "mask_indices": [1]}',
    '{"mask_indices": [1]}',
    "[1, 2]",
    '{"index": 0, "mask_indices": [1, 2]',
    '{"index": 0, "mask_indices": [1, 2]} trailing',
]


@pytest.mark.parametrize("line", LINES)
def test_fast_path_gives_what_the_standard_library_path_gives(dataset, monkeypatch, line):
    ann = load_annotations(dataset.annotations)
    rng = np.random.default_rng(len(line))
    scores = ", ".join(repr(float(x)) for x in rng.random(dataset.n_points if hasattr(dataset, "n_points") else 400))
    text = line % {"sid": dataset.ids[0], "scores": f"[{scores}]", "int_scores": "[" + ", ".join(["0", "1"] * 200) + "]"}
    path = dataset.root / "one.jsonl"
    path.write_bytes(('{"index": 1, "mask_indices": [4, 2]}\n' + text + "\n").encode("utf-8"))
    fast = _outcome(path, ann)
    monkeypatch.setattr(P, "_fast_decoder", lambda: _slow_only)
    slow = _outcome(path, ann)
    assert fast == slow


def test_invalid_utf8_in_an_ignored_field_is_still_refused(dataset, monkeypatch):
    path = dataset.root / "bad.jsonl"
    path.write_bytes(b'{"index": 0, "mask_indices": [1], "note": "\xff"}\n')
    with pytest.raises(InputError, match=r"bad.jsonl.*line 1.*not UTF-8"):
        P.read_predictions(path, load_annotations(dataset.annotations))


def test_fast_path_decodes_into_arrays_without_a_python_list(dataset):
    decode = P._fast_decoder()
    rec = decode(b'{"index": 3, "mask_indices": [7, 1], "scores": [0.5, 1], "box": [0, 0, 0, 1, 1, 1], "x": 1}')
    assert rec["index"] == 3 and "x" not in rec
    # mask_indices: its raw JSON text parsed by numpy, no Python int per index
    assert rec["mask_indices"].dtype == np.int64 and rec["mask_indices"].tolist() == [7, 1]
    assert rec["scores"].dtype == np.float64 and rec["scores"].tolist() == [0.5, 1.0]
    assert rec["box"] == [0, 0, 0, 1, 1, 1]


def _refuse(raw):
    raise ValueError("standard-library path")


@pytest.mark.parametrize("form", ["mask_indices", "mask_rle", "scores", "box"])
def test_results_json_equal_with_and_without_the_fast_paths(dataset, monkeypatch, form):
    """results.json of a run through the fast paths (msgspec decoding, records kept in memory)
    equals the one through the standard-library paths (the way it was read before)."""
    import json

    import scenebench.io.files as F
    from scenebench.benchmarks.surprise3d.api import score_run

    rng = np.random.default_rng(7)
    ann = load_annotations(dataset.annotations)
    recs = []
    for k, s in enumerate(ann.samples):
        if k == 2:
            continue  # one missing prediction
        n = dataset.inst[s.scene_id].size
        gt = np.flatnonzero(np.isin(dataset.inst[s.scene_id], s.targets))
        idx = np.unique(np.concatenate([gt[rng.random(gt.size) < 0.7], rng.integers(0, n, 20)]))
        if form == "mask_indices":
            recs.append({"index": s.index, "mask_indices": idx.tolist()})
        elif form == "mask_rle":
            recs.append({"sample_id": s.sample_id, "mask_rle": [v for i in idx.tolist() for v in (i, 1)]})
        elif form == "scores":
            sc = rng.random(n) * 0.5
            sc[idx] += 0.5
            recs.append({"index": s.index, "scores": sc.tolist()})
        else:
            c = dataset.coords[s.scene_id][idx]
            recs.append({"index": s.index, "box": [*c.min(0).tolist(), *c.max(0).tolist()]})
    pfile = dataset.write_preds(recs)
    args = (dataset.annotations, dataset.scenes, pfile)
    fast, _, _ = score_run(*args, dataset.root / "fast", progress=False, n_resamples=200)
    monkeypatch.setattr(P, "_fast_decoder", lambda: _slow_only)
    monkeypatch.setattr(F, "_dict_decoder", lambda: _refuse)
    monkeypatch.setattr(F, "_fast_json", lambda raw: F._REFUSED)
    slow, _, _ = score_run(*args, dataset.root / "slow", progress=False, n_resamples=200)
    a = json.loads((dataset.root / "fast" / "results.json").read_text())
    b = json.loads((dataset.root / "slow" / "results.json").read_text())
    for key in ("metrics", "confidence_intervals", "counts", "counts_by_group", "extra", "warnings"):
        assert a[key] == b[key], key
    assert a["counts"]["n_missing"] == 1 and a["metrics"]["overall"]["mIoU"] > 10


def test_raw_mask_indices_parse_like_json_loads():
    # mask_indices is parsed from its JSON text by numpy's C parser (no Python int per index)
    import json

    rng = np.random.default_rng(18)
    for k in range(300):
        vals = rng.integers(0, 10 ** int(rng.integers(1, 19)), int(rng.integers(0, 50))).tolist()
        seps = [", ", ",", " ,\n", "\t,\t"][k % 4]
        text = ("[" + seps.join(str(v) for v in vals) + "]").encode()
        got = P._raw_int_array(text)
        assert got.dtype == np.int64 and got.tolist() == json.loads(text)
    for bad in (b"[1, 2.5]", b"[1e3]", b"[[1]]", b'["1"]', b"[null]", b"[true]", b"[1234567890123456789]", b"{}", b"7"):
        with pytest.raises(P._NotPlainInts):
            P._raw_int_array(bad)
