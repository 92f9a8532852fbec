import json
import math

import numpy as np
import pytest

from scenebench.cli import main
from scenebench.errors import RunMismatchError
from scenebench.metrics.aggregate import Mean, cluster_weights
from scenebench.report.compare import _p_value, check_comparable, compare_pair, compare_runs, comparison_markdown, specs_from_info
from scenebench.report.runs import load_runs
from scenebench.runtime.scoring import SampleScore

from .conftest import toy_scores, write_run

SCENES = 12  # at least MIN_SCENES: intervals and p-values are computed


def two_runs(tmp_path, shift=0.1, n_scenes=SCENES, **kw):
    a = write_run(tmp_path / "a", toy_scores(0, n_scenes=n_scenes), **kw)
    b = write_run(tmp_path / "b", toy_scores(1, n_scenes=n_scenes, shift=shift), **kw)
    return load_runs([a, b])


def test_specs_are_rebuilt_from_results_json(tmp_path):
    runs = two_runs(tmp_path)
    specs, skipped = specs_from_info(runs[0].results.metric_info)
    assert [type(s).__name__ for s in specs] == ["Mean", "Mean", "Median"]
    assert specs[1] == Mean("mIoU", "iou", scale=100, unit="%", higher_is_better=True)
    assert skipped == []
    _, skipped = specs_from_info({"X": {"kind": "derived", "fn": "lambda", "metrics": ["a"]}, "Y": {"kind": "mean"}})
    assert len(skipped) == 2 and skipped[0].startswith("X:")


def test_identical_runs_differ_by_zero_with_p_one(tmp_path):
    a = write_run(tmp_path / "a", toy_scores(0, n_scenes=SCENES))
    b = write_run(tmp_path / "b", toy_scores(0, n_scenes=SCENES))
    (c,) = compare_runs(load_runs([a, b]), n_resamples=300)
    for d in c.overall:
        assert d.diff == 0.0 and d.ci == [0.0, 0.0] and d.p_value == 1.0
    assert all(w.wins == 0 and w.losses == 0 for w in c.wins)


def test_paired_bootstrap_matches_plain_reference(tmp_path):
    runs = two_runs(tmp_path, shift=0.05)
    c = compare_pair(*runs, n_resamples=400, seed=3)
    # plain reference: loop over resamples, rebuild both runs' sample lists from the drawn scenes
    a, b = runs[0].scores_by_id(), runs[1].scores_by_id()
    ids = [s.sample_id for s in runs[0].scores if s.status != "excluded"]
    scenes = sorted({a[i].scene_id for i in ids})
    cid, w = cluster_weights(np.array([a[i].scene_id for i in ids]), n_resamples=400, seed=3)
    diffs = []
    for r in range(400):
        xa, xb = [], []
        for k, sc in enumerate(scenes):
            for _ in range(w[r, k]):
                xa += [a[i].values["iou"] for i in ids if a[i].scene_id == sc]
                xb += [b[i].values["iou"] for i in ids if b[i].scene_id == sc]
        diffs.append(100 * (np.mean(xb) - np.mean(xa)))
    diffs = np.array(diffs)
    d = next(x for x in c.overall if x.metric == "mIoU")
    assert d.ci == pytest.approx([np.quantile(diffs, 0.025), np.quantile(diffs, 0.975)])
    point = 100 * (np.mean([b[i].values["iou"] for i in ids]) - np.mean([a[i].values["iou"] for i in ids]))
    assert d.diff == pytest.approx(point)


def test_uniformly_better_run_gets_smallest_p_and_all_wins(tmp_path):
    base = toy_scores(0, n_scenes=SCENES, evil=False)
    better = [
        SampleScore(
            s.sample_id, s.scene_id, s.status, {k: (v + 0.01 if k == "iou" else v) for k, v in s.values.items()}, s.groups, s.detail
        )
        for s in base
    ]
    a, b = write_run(tmp_path / "a", base), write_run(tmp_path / "b", better)
    (c,) = compare_runs(load_runs([a, b]), n_resamples=199)
    d = next(x for x in c.overall if x.metric == "mIoU")
    # every scene favours B: only the identity and the full swap are as extreme, of 2**12 assignments
    assert d.diff == pytest.approx(1.0) and d.ci[0] > 0 and d.p_value == pytest.approx(2 / 2**12)
    assert d.p_method == "sign-flip exact (all 2^12 assignments)" and (d.n, d.n_scenes) == (59, 12)
    iou = next(w for w in c.wins if w.field == "iou")
    assert (iou.wins, iou.losses, iou.ties) == (iou.n, 0, 0)
    assert iou.n == 59  # 60 samples, one excluded; the missing one is scored 0 -> 0.01


def test_lower_is_better_metric_counts_decrease_as_win(tmp_path):
    runs = two_runs(tmp_path, shift=0.3)
    c = compare_pair(*runs, n_resamples=200)
    err = next(w for w in c.wins if w.field == "err")
    iou = next(w for w in c.wins if w.field == "iou")
    assert not err.higher_is_better
    # err = 1 - iou per sample, so a lower err wins exactly where a higher iou wins; the missing
    # sample (iou 0 in both runs, a tie) has no err
    assert (err.wins, err.losses, err.n) == (iou.wins, iou.losses, iou.n - 1) and err.wins > 0
    med = next(d for d in c.overall if d.metric == "MedErr")
    assert med.diff < 0


def test_p_value_rules():
    assert _p_value(np.array([1.0, 2.0, 3.0])) == pytest.approx(2 / 4)
    assert _p_value(np.array([-1.0, 1.0])) == 1.0
    assert _p_value(np.array([math.nan])) is None


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(benchmark="other"), "different benchmarks"),
        (dict(protocol="official"), "different protocols"),
        (dict(meta_extra={"inputs": {"annotations": {"path": "/x", "sha256": "b" * 64, "bytes": 1}}}), "different benchmark data"),
    ],
)
def test_mismatched_runs_are_refused(tmp_path, change, message):
    a = write_run(tmp_path / "a", toy_scores(0))
    b = write_run(tmp_path / "b", toy_scores(1), **change)
    with pytest.raises(RunMismatchError, match=message):
        check_comparable(load_runs([a, b]))


def test_different_settings_and_sample_sets_are_refused(tmp_path):
    from scenebench.results import Results

    a = write_run(tmp_path / "a", toy_scores(0))
    b = write_run(tmp_path / "b", toy_scores(1))
    res = Results.load(b / "results.json")
    res.settings = {"score_threshold": 0.3}
    res.save(b / "results.json")
    with pytest.raises(RunMismatchError, match="score_threshold"):
        check_comparable(load_runs([a, b]))
    res.settings = {"model": "other-model", "bootstrap": {"n_resamples": 50}}  # the model may differ: that is the point
    res.save(b / "results.json")
    check_comparable(load_runs([a, b]))
    c = write_run(tmp_path / "c", toy_scores(1)[:-2])
    with pytest.raises(RunMismatchError, match="different samples: 2 only in a"):
        check_comparable(load_runs([a, c]))
    moved = toy_scores(1)
    moved[2] = SampleScore(moved[2].sample_id, moved[2].scene_id, "excluded", {}, moved[2].groups)
    d = write_run(tmp_path / "d", moved)
    with pytest.raises(RunMismatchError, match="excluded in one run only"):
        check_comparable(load_runs([a, d]))


def test_compare_cli_prints_table_writes_json_and_refuses_with_exit_2(tmp_path, capsys):
    a = write_run(tmp_path / "a", toy_scores(0, n_scenes=SCENES))
    b = write_run(tmp_path / "b", toy_scores(1, n_scenes=SCENES, shift=0.2))
    main(["compare", str(a), str(b), "--resamples", "200", "--json", str(tmp_path / "cmp.json")])
    out = capsys.readouterr().out
    assert "b vs a" in out and "mIoU" in out and "wins" in out
    # not a terminal: the table is laid out wide, each row whole on one line (issue 27 UX)
    row = next(line for line in out.splitlines() if "mIoU" in line and "overall" in line)
    assert "59 (12)" in row and row.count("[") == 1 and "]" in row
    data = json.loads((tmp_path / "cmp.json").read_text())
    assert data[0]["baseline"] == "a" and data[0]["n_samples"] == 59 and data[0]["min_scenes"] == 10
    main(["compare", str(a), str(b), "--resamples", "200", "--markdown"])
    assert "| overall | mIoU | 59 (12) |" in capsys.readouterr().out
    c = write_run(tmp_path / "c", toy_scores(1), protocol="official")
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(a), str(c)])
    assert exc.value.code == 2
    assert "different protocols" in capsys.readouterr().err


def _plain_sign_flip(a, b, ids, field, stat):
    """Reference: every assignment of swapped scenes, the samples' lists rebuilt, ``stat`` of each."""
    scenes = sorted({a[i].scene_id for i in ids})
    out = []
    for m in range(2 ** len(scenes)):
        swapped = {sc for k, sc in enumerate(scenes) if m >> k & 1}
        xa = [(b if a[i].scene_id in swapped else a)[i].values.get(field, math.nan) for i in ids]
        xb = [(a if a[i].scene_id in swapped else b)[i].values.get(field, math.nan) for i in ids]
        out.append(stat([x for x in xb if not math.isnan(x)]) - stat([x for x in xa if not math.isnan(x)]))
    d = np.array(out)
    return float((np.abs(d) >= abs(d[0]) - 1e-9).sum() / d.size)


def test_sign_flip_p_equals_plain_enumeration_for_means_and_medians(tmp_path):
    runs = two_runs(tmp_path, shift=0.04, n_scenes=10)
    c = compare_pair(*runs, n_resamples=200, seed=1)
    a, b = runs[0].scores_by_id(), runs[1].scores_by_id()
    ids = [s.sample_id for s in runs[0].scores if s.status != "excluded"]
    miou = next(d for d in c.overall if d.metric == "mIoU")
    med = next(d for d in c.overall if d.metric == "MedErr")
    assert miou.p_value == pytest.approx(_plain_sign_flip(a, b, ids, "iou", lambda x: 100 * np.mean(x)), abs=1e-12)
    assert med.p_value == pytest.approx(_plain_sign_flip(a, b, ids, "err", np.median), abs=1e-12)
    assert 2 / 1024 <= miou.p_value <= 1 and miou.p_method == "sign-flip exact (all 2^10 assignments)"


def test_fewer_than_ten_scenes_give_no_interval_and_no_p(tmp_path):
    runs = two_runs(tmp_path, shift=0.3, n_scenes=6)
    c = compare_pair(*runs, n_resamples=200)
    for d in c.overall:
        assert d.ci is None and d.p_value is None and d.note == "6 scenes < 10: no interval or p-value"
        assert (d.n, d.n_scenes) == (29, 6)
    md = comparison_markdown([c])
    assert "| overall | mIoU | 29 (6) |" in md and "— (6 scenes < 10: no interval or p-value) | — |" in md
    assert "no CI or p below 10 scenes" in md


def test_groups_under_five_samples_show_the_count_only(tmp_path):
    from scenebench.report.compare import MIN_SAMPLES

    scores = [s for s in toy_scores(0, n_scenes=SCENES) if s.groups["question_type"] != "abs" or s.scene_id == "scene0"]
    better = [SampleScore(s.sample_id, s.scene_id, s.status, {**s.values, "iou": s.values.get("iou", 0) + 0.1}, s.groups) for s in scores]
    c = compare_pair(*load_runs([write_run(tmp_path / "a", scores), write_run(tmp_path / "b", better)]), n_resamples=200)
    (small,) = [d for d in c.groups["question_type"]["abs"] if d.metric == "mIoU"]
    assert small.n < MIN_SAMPLES and small.ci is None and small.p_value is None and small.note.startswith(f"n={small.n} < 5")
    (big,) = [d for d in c.groups["question_type"]["cs"] if d.metric == "mIoU"]
    assert big.ci is not None and big.p_value is not None and big.n_scenes == SCENES


def test_many_scenes_use_a_seeded_monte_carlo_sign_flip(tmp_path):
    from scenebench.report.compare import sign_flip_assignments

    flips, exact = sign_flip_assignments(20, 500, 7)
    assert not exact and flips.shape == (501, 20) and not flips[0].any()
    assert np.array_equal(flips, sign_flip_assignments(20, 500, 7)[0])  # fixed seed: the same assignments
    runs = two_runs(tmp_path, shift=0.02, n_scenes=20)
    c1, c2 = compare_pair(*runs, n_resamples=500, seed=7), compare_pair(*runs, n_resamples=500, seed=7)
    d1 = next(d for d in c1.overall if d.metric == "mIoU")
    assert d1.p_value == next(d for d in c2.overall if d.metric == "mIoU").p_value
    assert 1 / 501 <= d1.p_value <= 1 and d1.p_method == "sign-flip Monte Carlo (500 assignments, seed 7)"


def test_consoles_off_a_terminal_are_wide_unless_columns_says(monkeypatch):
    from scenebench.consoles import PLAIN_WIDTH, make_console

    monkeypatch.delenv("COLUMNS", raising=False)
    assert make_console().width == PLAIN_WIDTH  # pytest's captured stdout is no terminal
    monkeypatch.setenv("COLUMNS", "132")
    assert make_console(stderr=True).width == 132
