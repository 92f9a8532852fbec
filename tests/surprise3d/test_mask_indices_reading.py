"""mask_indices read by the fast decoder (its raw text parsed by numpy) against the standard-library
path: the same predictions for every file, the same first error (file, line, field) for every
refused one, wherever the unusual lines fall."""

import json

import numpy as np
import pytest

import scenebench.benchmarks.surprise3d.predictions as P
from scenebench.benchmarks.surprise3d.annotations import load_annotations

from .test_fast_decoding import _outcome, _slow_only

# Lines the fast decoder leaves to the standard-library path, and lines that are not mask_indices at all.
UNUSUAL = [
    '{"index": %d, "mask_indices": [3, -0, 1]}',
    '{"index": %d, "mask_indices": [3, 12345678]}',
    '{"index": %d, "mask_indices": [3, 1.0]}',
    '{"index": %d, "mask_indices": [3, 1e1]}',
    '{"index": %d, "mask_indices": [3, -4]}',
    '{"index": %d, "mask_indices": [3, "4"]}',
    '{"index": %d, "mask_indices": [[3]]}',
    '{"index": %d, "mask_indices": null, "mask_rle": [3, 2]}',
    '{"index": %d, "mask_rle": [3, 2]}',
    '{"index": %d, "mask_indices": [3, 2], "mask_rle": [1, 1]}',
    '{"index": %d, "box": [0, 0, 0, 1, 1, 1]}',
    '{"index": %d, "mask_indices": [3, 2, 4000]}',
    '{"index": %d, "mask_indices": [3, 2]',
    '{"index": %d, "mask_indices": [3, 2]}  {"index": 0}',
    "",
    "   ",
]


def _plain(rng: np.random.Generator, index: int) -> str:
    vals = rng.integers(0, 400, int(rng.integers(0, 60)))
    if rng.random() < 0.5:
        vals = np.unique(vals)  # increasing, the usual case
    sep = [", ", ",", " , "][int(rng.integers(3))]
    return '{"index": %d, "mask_indices": [%s]}' % (index, sep.join(map(str, vals.tolist())))


@pytest.mark.parametrize("seed", range(12))
def test_fast_reading_gives_what_the_standard_library_path_gives(dataset, monkeypatch, seed):
    ann = load_annotations(dataset.annotations)
    rng = np.random.default_rng(seed)
    lines = []
    for index in rng.permutation(len(ann.samples)).tolist():
        if rng.random() < 0.15 * (seed % 3):
            lines.append(UNUSUAL[int(rng.integers(len(UNUSUAL)))].replace("%d", str(index)))
        else:
            lines.append(_plain(rng, index))
    path = dataset.root / "batched.jsonl"
    path.write_text("\n".join(lines) + "\n")
    fast = _outcome(path, ann)
    monkeypatch.setattr(P, "_fast_decoder", lambda: _slow_only)
    assert fast == _outcome(path, ann)


def test_a_damaged_later_line_does_not_hide_an_earlier_error(dataset):
    # line 2 names an unknown sample, line 4 is not JSON: line 2's error comes first
    rows = [
        json.dumps({"index": 0, "mask_indices": [1, 2]}),
        json.dumps({"sample_id": "nope", "mask_indices": [1]}),
        json.dumps({"index": 1, "mask_indices": [1]}),
        '{"index": 2, "mask_indices": [1, 2',
    ]
    path = dataset.root / "order.jsonl"
    path.write_text("\n".join(rows) + "\n")
    kind, msg = _outcome(path, load_annotations(dataset.annotations))
    assert kind == "error" and "line 2" in msg and "unknown sample 'nope'" in msg
    path.write_text("\n".join(rows[:1] + rows[2:]) + "\n")
    kind, msg = _outcome(path, load_annotations(dataset.annotations))
    assert kind == "error" and "line 3" in msg


def test_read_indices_are_compact_int32(dataset):
    rows = [{"index": 0, "mask_indices": [9, 3, 3, 250]}, {"index": 1, "mask_indices": []}, {"index": 3, "mask_indices": [0, 1, 5]}]
    got = P.read_predictions(dataset.write_preds(rows), load_annotations(dataset.annotations)).by_sample
    preds = [got[dataset.ids[i]] for i in (0, 1, 3)]
    assert [p.indices.tolist() for p in preds] == [[3, 9, 250], [], [0, 1, 5]]
    assert [p.limit for p in preds] == [251, 0, 6]
    assert all(p.indices.dtype == np.int32 for p in preds)
