"""``--units auto`` for 3RScan decides per scan, from the evaluated split only (issue 28 item 8).

Before: the single largest |translation| of the whole ``3RScan.json`` decided for every scan, so one
value of 150 in a train scene divided every validation ground-truth translation by 1,000.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from cli_run import run_cli

from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.errors import InputError


def _copy(fuzz_ctx, tmp_path):
    root = tmp_path / "rio"
    shutil.copytree(fuzz_ctx.rio, root)
    return root, json.loads((root / "3RScan.json").read_text())


def _write(root, idx):
    (root / "3RScan.json").write_text(json.dumps(idx))


def _scale_scan(r, factor):
    r["transform"] = [x * factor if i in (12, 13, 14) else x for i, x in enumerate(r["transform"])]
    for rg in r.get("rigid") or []:
        rg["transform"] = [x * factor if i in (12, 13, 14) else x for i, x in enumerate(rg["transform"])]


def _truth(data, split="validation"):
    return {(r.scan_id, g.sample_id): np.asarray(g.pose) for r in data.split_rescans(split) for g in data.ground_truth(r)}


def test_one_large_train_translation_leaves_the_validation_ground_truth_alone(fuzz_ctx, tmp_path):
    root, idx = _copy(fuzz_ctx, tmp_path)
    want = _truth(ThreeRScan(root, split="validation"))
    train = next(s for s in idx if s["type"] == "train")
    train["scans"][0]["transform"][12] = 150.0  # one odd value, in a scene nobody evaluates
    _write(root, idx)
    data = ThreeRScan(root, split="validation")
    assert data.scale == 1.0 and data.unit_decision.startswith("metres (detected")
    got = _truth(data)
    assert got.keys() == want.keys() and all(np.array_equal(got[k], want[k]) for k in want)
    # Scoring train itself sees the mix (one scan of 150, one of about 1): refused, naming both.
    with pytest.raises(InputError, match=r"'train' split disagree: 1 scan\(s\) look like millimetres .*" + train["scans"][0]["reference"]):
        ThreeRScan(root, split="train")


def test_a_millimetre_file_is_still_detected_and_converted(fuzz_ctx, tmp_path):
    root, idx = _copy(fuzz_ctx, tmp_path)
    want = _truth(ThreeRScan(root, split="validation"))
    for s in idx:
        for r in s["scans"]:
            _scale_scan(r, 1000.0)
        for g in s.get("ambiguity") or []:
            for e in g if isinstance(g, list) else [g]:
                e["transform"] = [x * 1000.0 if i in (12, 13, 14) else x for i, x in enumerate(e["transform"])]
    _write(root, idx)
    data = ThreeRScan(root, split="validation")
    assert data.scale == 1e-3 and data.unit_decision.startswith("millimetres (detected")
    got = _truth(data)
    assert all(np.allclose(got[k], want[k], atol=1e-9) for k in want)


_cli = run_cli


def test_mixed_units_in_the_evaluated_split_are_refused_naming_the_scans(fuzz_ctx, tmp_path):
    root, idx = _copy(fuzz_ctx, tmp_path)
    val = next(s for s in idx if s["type"] == "validation")
    for s in idx:  # every scene evaluated: the split holds several rescans whatever the context's size
        s["type"] = "validation"
    others = [r["reference"] for s in idx for r in s["scans"] if r is not val["scans"][0]]
    assert others, "the fuzz context needs two rescans"
    mm_scan = val["scans"][0]
    _scale_scan(mm_scan, 1000.0)  # this rescan in millimetres, the others of its split in metres
    _write(root, idx)
    with pytest.raises(InputError) as ei:
        ThreeRScan(root, split="validation")
    msg = str(ei.value)
    assert str(root / "3RScan.json") in msg and mm_scan["reference"] in msg and others[0] in msg, msg
    assert "--units mm or --units m" in msg
    preds = fuzz_ctx.root / "rio_predictions.jsonl"
    r = _cli(["score", "rio", "--data", root, "--predictions", preds, "--out", tmp_path / "run", "--bootstrap", "0"])
    err = r.stderr.strip()
    assert r.returncode == 2 and "Traceback" not in err and "disagree" in err and mm_scan["reference"] in err, err
    # The user decides: --units m reads every scan as metres (the mm scan's poses are then wrong, as asked).
    r = _cli(["score", "rio", "--data", root, "--predictions", preds, "--out", tmp_path / "run", "--bootstrap", "0", "--units", "m"])
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads((tmp_path / "run" / "results.json").read_text())["settings"]["units"].startswith("metres (set by the user")
