import json

import numpy as np
import pytest

from scenebench.benchmarks.rio.api import score_matching
from scenebench.benchmarks.rio.matching import (
    draw_negatives,
    load_pair,
    pair_rng,
    top1_correct,
)
from scenebench.errors import InputError

from .reference import top1_correct_reference


def _pair(root, name, ref, res):
    d = root / name
    d.mkdir(parents=True)
    np.save(d / "reference.npy", ref)
    np.save(d / "rescan.npy", res)
    return d


@pytest.mark.parametrize("k", [51, 300, 3000])
def test_negatives_are_distinct_and_never_the_positive(k):
    neg = draw_negatives(k, 50, np.random.default_rng(0))
    assert neg.shape == (k, 50)
    assert not (neg == np.arange(k)[:, None]).any()
    s = np.sort(neg, axis=1)
    assert not (s[:, 1:] == s[:, :-1]).any()
    assert neg.min() >= 0 and neg.max() < k


def test_negatives_with_51_rows_are_all_other_rows():
    neg = draw_negatives(51, 50, np.random.default_rng(1))
    for i in range(51):
        assert set(neg[i].tolist()) == set(range(51)) - {i}


def test_negative_draw_is_reproducible_per_pair_name_and_seed():
    a = draw_negatives(200, 50, pair_rng(0, "ref__rescan"))
    b = draw_negatives(200, 50, pair_rng(0, "ref__rescan"))
    c = draw_negatives(200, 50, pair_rng(1, "ref__rescan"))
    d = draw_negatives(200, 50, pair_rng(0, "other"))
    assert np.array_equal(a, b) and not np.array_equal(a, c) and not np.array_equal(a, d)


def test_vectorised_top1_matches_reference():
    rng = np.random.default_rng(3)
    ref = rng.normal(size=(400, 16))
    res = ref + rng.normal(scale=1.2, size=ref.shape)
    neg = draw_negatives(400, 50, rng)
    ok = top1_correct(ref, res, neg)
    assert np.array_equal(ok, top1_correct_reference(ref, res, neg))
    assert 0 < ok.mean() < 1


def test_hand_worked_tie_is_failure():
    ref = np.zeros((51, 2))
    res = np.zeros((51, 2))
    neg = draw_negatives(51, 50, np.random.default_rng(0))
    assert not top1_correct(ref, res, neg).any()  # every candidate is equally near: no credit
    res2 = np.c_[np.arange(51.0), np.zeros(51)]
    ref2 = res2 + 0.4  # nearest is always its own row (distance 0.57 < 0.6+ for the others)
    assert top1_correct(ref2, res2, neg).all()


def test_score_matching_end_to_end(tmp_path):
    rng = np.random.default_rng(0)
    good = rng.normal(size=(120, 8))
    _pair(tmp_path / "d", "s1__r1", good, good + 0.01)
    _pair(tmp_path / "d", "s1__r2", rng.normal(size=(60, 8)), rng.normal(size=(60, 8)))
    res, run = score_matching(tmp_path / "d", seed=7, out=tmp_path / "run", n_resamples=50, progress=False)
    assert res.extra["per_pair"]["s1__r1"] == 100.0
    assert res.extra["per_pair"]["s1__r2"] < 40.0
    pooled = (120 + res.extra["per_pair"]["s1__r2"] / 100 * 60) / 180 * 100
    assert res.overall()["top1_accuracy"] == pytest.approx(pooled)
    assert res.settings["seed"] == 7 and res.settings["n_negatives"] == 50
    again, _ = score_matching(tmp_path / "d", seed=7, out=tmp_path / "run2", n_resamples=50, progress=False)
    assert again.overall() == res.overall()
    assert json.loads(run.results_json.read_text())["benchmark"] == "rio-matching"


def test_single_pair_folder(tmp_path):
    d = _pair(tmp_path, "one", np.eye(60), np.eye(60))
    res, _ = score_matching(d, out=tmp_path / "run", n_resamples=10, progress=False)
    assert res.overall()["top1_accuracy"] == 100.0


@pytest.mark.parametrize(
    "ref,res,text",
    [
        (np.zeros((50, 4)), np.zeros((50, 4)), "at least 51"),
        (np.zeros((60, 4)), np.zeros((60, 5)), "reference.npy is (60, 4) but rescan.npy is (60, 5)"),
        (np.full((60, 4), np.nan), np.zeros((60, 4)), "NaN or infinity"),
        (np.zeros(60), np.zeros(60), "2-D array"),
    ],
)
def test_bad_pairs_are_refused(tmp_path, ref, res, text):
    d = _pair(tmp_path, "p", ref, res)
    with pytest.raises(InputError, match=text.replace("(", r"\(").replace(")", r"\)")):
        load_pair(d)


def test_missing_array_and_pickles_are_refused(tmp_path):
    d = tmp_path / "p"
    d.mkdir()
    np.save(d / "reference.npy", np.zeros((60, 3)))
    with pytest.raises(InputError, match="rescan.npy.*missing"):
        load_pair(d)
    np.save(d / "rescan.npy", np.array([{"a": 1}] * 60, dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="pickled"):
        load_pair(d)
    with pytest.raises(InputError, match="holds no scan-pair folders"):
        score_matching(tmp_path / "empty" if (tmp_path / "empty").mkdir() is None else None, progress=False)


def test_cli_matching(tmp_path, capsys):
    from scenebench.cli import main

    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 4))
    _pair(tmp_path / "d", "a__b", x, x)
    main(
        [
            "score",
            "rio-matching",
            "--descriptors",
            str(tmp_path / "d"),
            "--out",
            str(tmp_path / "run"),
            "--bootstrap",
            "10",
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert "100.00" in out and "negatives seed: 0" in out
