"""Agreement between two judges: kappa/Spearman functions, run-folder and JSONL inputs, the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scenebench.cli import main
from scenebench.commands.judge import load_judged
from scenebench.errors import InputError
from scenebench.judges.agreement import JudgedItem, agreement, bucket, cohen_kappa, compare
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import SCORE_KIND, SampleScore


def kappa_reference(a, b, L, quadratic=False):
    """Plain double loop over the definition."""
    n = len(a)
    obs = [[0.0] * L for _ in range(L)]
    for x, y in zip(a, b):
        obs[x][y] += 1 / n
    ra = [sum(obs[i]) for i in range(L)]
    cb = [sum(obs[i][j] for i in range(L)) for j in range(L)]
    num = den = 0.0
    for i in range(L):
        for j in range(L):
            w = (i - j) ** 2 if quadratic else float(i != j)
            num += w * obs[i][j]
            den += w * ra[i] * cb[j]
    return math.nan if den == 0 else 1 - num / den


def test_kappa_golden_cases():
    assert cohen_kappa(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])) == pytest.approx(0.5)
    assert cohen_kappa(np.array([0, 1, 2]), np.array([0, 2, 2]), weights="quadratic") == pytest.approx(0.8)
    assert cohen_kappa(np.array([0, 1, 0, 1]), np.array([0, 1, 0, 1])) == pytest.approx(1.0)
    assert cohen_kappa(np.array([0, 1]), np.array([1, 0])) == pytest.approx(-1.0)
    assert math.isnan(cohen_kappa(np.array([1, 1]), np.array([1, 1])))  # chance agreement 1: undefined
    assert math.isnan(cohen_kappa(np.array([], dtype=int), np.array([], dtype=int)))


@pytest.mark.parametrize("seed", range(20))
def test_kappa_matches_reference_on_random_cases(seed):
    rng = np.random.default_rng(seed)
    L = int(rng.integers(2, 11))
    n = int(rng.integers(1, 60))
    a, b = rng.integers(0, L, n), rng.integers(0, L, n)
    for q in (False, True):
        got = cohen_kappa(a, b, weights="quadratic" if q else None, n_labels=L)
        ref = kappa_reference(a.tolist(), b.tolist(), L, q)
        assert (math.isnan(got) and math.isnan(ref)) or got == pytest.approx(ref, abs=1e-12)


def test_buckets():
    assert bucket(np.array([0, 3.9, 4, 6.99, 7, 10]), binary=False).tolist() == [0, 0, 1, 1, 2, 2]
    assert bucket(np.array([0, 1, 1]), binary=True).tolist() == [0, 1, 1]


def test_compare_scores_hand_worked():
    r = compare([2, 5, 8, 9], [3, 5, 7, 1])
    assert r["n_pairs"] == 4 and not r["binary"]
    assert r["agreement_pct"] == pytest.approx(25.0)
    assert r["bucket_agreement_pct"] == pytest.approx(75.0)  # low/low, mid/mid, high/high, high/low
    assert r["mean_abs_diff"] == pytest.approx((1 + 0 + 1 + 8) / 4)
    assert r["spearman_rho"] == pytest.approx(-0.2)  # ranks (1,2,3,4) vs (2,3,4,1)
    assert r["cohen_kappa"] == pytest.approx(kappa_reference([0, 1, 2, 2], [0, 1, 2, 0], 3))


def test_compare_binary_and_degenerate():
    r = compare([1, 0, 1, 1], [1, 0, 0, 1])
    assert r["binary"] and r["agreement_pct"] == 75.0 and r["weighted_kappa"] is None
    assert r["cohen_kappa"] == pytest.approx(kappa_reference([1, 0, 1, 1], [1, 0, 0, 1], 2))
    const = compare([5, 5], [5, 5])
    assert const["spearman_rho"] is None and const["cohen_kappa"] is None and const["agreement_pct"] == 100.0
    assert compare([], [])["agreement_pct"] is None


def test_agreement_counts_missing_and_invalid():
    a = {s: JudgedItem(s, v, v is not None, t) for s, v, t in [("1", 7, "qa"), ("2", 3, "qa"), ("3", None, "cap"), ("4", 9, "cap")]}
    b = {
        s: JudgedItem(s, v, v is not None)
        for s, v in [
            (
                "1",
                7,
            ),
            ("2", 4),
            ("3", 5),
            ("5", 1),
        ]
    }
    r = agreement(a, b)
    assert r["counts"] == {"n_a": 4, "n_b": 4, "n_common": 3, "only_a": 1, "only_b": 1, "invalid_a": 1, "invalid_b": 0, "invalid_both": 0}
    assert r["overall"]["n_pairs"] == 2 and r["overall"]["agreement_pct"] == 50.0
    assert set(r["by_task"]) == {"qa"}


def make_run(folder, verdicts: dict[str, tuple[float | None, bool]], model_id="local:x@1"):
    run = RunDir(folder).open({"benchmark": "3dbench", "protocol": "strict", "fingerprint": "f"})
    recs = []
    for sid, (value, valid) in verdicts.items():
        detail = {"judge": {"kind": "score", "value": value, "valid": valid, "model_id": model_id, "prompt_version": "score-v1"}}
        recs.append(SampleScore(sid, "house_1", "scored", {"judge": value or 0.0}, {"task": "scene_caption"}, detail))
    recs.append(SampleScore("not-judged", "house_1", "scored", {"acc": 1.0}, {"task": "counting"}, {}))
    with run.store() as st:
        st.put_many(SCORE_KIND, [(r.sample_id, r.to_json()) for r in recs])
    return folder


def test_load_run_and_jsonl(tmp_path):
    run = make_run(tmp_path / "run_a", {"a": (7.0, True), "b": (None, False), "c": (2.0, True)})
    items, meta = load_judged(run)
    assert set(items) == {"a", "b", "c"} and not items["b"].valid and items["a"].task == "scene_caption"
    assert meta["model_ids"] == ["local:x@1"] and meta["prompt_versions"] == ["score-v1"]
    human = tmp_path / "human.jsonl"
    human.write_text('{"sample_id": "a", "score": 8}\n{"sample_id": "b", "score": 6}\n{"sample_id": "c", "score": null}\n')
    h, hmeta = load_judged(human)
    assert h["a"].value == 8.0 and not h["c"].valid and hmeta["kind"] == "jsonl"


@pytest.mark.parametrize(
    "text,field",
    [
        ('{"score": 3}\n', "sample_id"),
        ('{"sample_id": "a"}\n', "score"),
        ('{"sample_id": "a", "score": "high"}\n', "score"),
        ('{"sample_id": "a", "score": 1}\n{"sample_id": "a", "score": 2}\n', "sample_id"),
        ('{"sample_id": "a", "score": null, "valid": true}\n', "score"),
    ],
)
def test_bad_jsonl_names_line_and_field(tmp_path, text, field):
    p = tmp_path / "h.jsonl"
    p.write_text(text)
    with pytest.raises(InputError) as ei:
        load_judged(p)
    assert ei.value.field == field and ei.value.where.startswith("line ") and str(p) in str(ei.value)


def test_not_a_run_or_unjudged_run(tmp_path):
    with pytest.raises(InputError, match="not a run folder"):
        load_judged(tmp_path)
    run = RunDir(tmp_path / "r").open({"benchmark": "b", "protocol": "strict", "fingerprint": "f"})
    with run.store() as st:
        st.put_many(SCORE_KIND, [("s", SampleScore("s", "h", "scored", {"acc": 1.0}).to_json())])
    with pytest.raises(InputError, match="no judged samples"):
        load_judged(tmp_path / "r")


def test_cli_agreement_run_vs_human(tmp_path, capsys):
    run = make_run(tmp_path / "run_a", {"a": (7.0, True), "b": (3.0, True), "c": (9.0, True), "d": (None, False)})
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps({"sample_id": s, "score": v}) + "\n" for s, v in [("a", 8), ("b", 3), ("c", 9), ("d", 5)]))
    out = tmp_path / "agree.json"
    main(["judge", "agreement", str(run), str(human), "--json", str(out)])
    printed = capsys.readouterr().out
    assert "judge agreement" in printed and "overall" in printed
    res = json.loads(out.read_text())
    assert res["overall"]["n_pairs"] == 3 and res["counts"]["invalid_a"] == 1
    assert res["overall"]["agreement_pct"] == pytest.approx(200 / 3)
    assert res["overall"]["spearman_rho"] == pytest.approx(1.0)
    assert res["a"]["model_ids"] == ["local:x@1"]


def test_cli_agreement_bad_input_is_one_line_error(tmp_path, capsys):
    bad = tmp_path / "h.jsonl"
    bad.write_text('{"sample_id": "a"}\n')
    with pytest.raises(SystemExit) as ei:
        main(["judge", "agreement", str(bad), str(bad)])
    assert ei.value.code == 2
    assert "field 'score'" in capsys.readouterr().err


def _ranks(xs):
    """Average ranks (1-based), ties share the mean of their positions: a plain loop."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


@pytest.mark.parametrize("seed", range(10))
def test_spearman_and_agreement_match_reference_on_random_scores(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 40))
    a = rng.integers(0, 11, n).astype(float).tolist()
    b = rng.integers(0, 11, n).astype(float).tolist()
    r = compare(a, b)
    if len(set(a)) > 1 and len(set(b)) > 1:
        assert r["spearman_rho"] == pytest.approx(_pearson(_ranks(a), _ranks(b)), abs=1e-9)
    assert r["agreement_pct"] == pytest.approx(100 * sum(x == y for x, y in zip(a, b)) / n)
    bx = [0 if v < 4 else 1 if v < 7 else 2 for v in a]
    by = [0 if v < 4 else 1 if v < 7 else 2 for v in b]
    assert r["bucket_agreement_pct"] == pytest.approx(100 * sum(x == y for x, y in zip(bx, by)) / n)
    ref_k = kappa_reference(bx, by, 3)
    assert (r["cohen_kappa"] is None and math.isnan(ref_k)) or r["cohen_kappa"] == pytest.approx(ref_k)
    ref_w = kappa_reference([int(v) for v in a], [int(v) for v in b], 11, quadratic=True)
    assert (r["weighted_kappa"] is None and math.isnan(ref_w)) or r["weighted_kappa"] == pytest.approx(ref_w)
    assert r["mean_abs_diff"] == pytest.approx(sum(abs(x - y) for x, y in zip(a, b)) / n)
