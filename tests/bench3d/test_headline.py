"""3DBench's headline is defined the same with and without a judge (issue 27 item 2).

``mean_rule``: the mean of the primary metrics of the tasks scored by rules; ``mean_judged``: the
judged tasks' mean, null without a judge. ``compare`` recomputes both from per-sample values.
"""

import pytest
from tests.bench3d.fixtures import make_bench
from tests.bench3d.test_scorer import FakeJudge, write_answers

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.report.compare import compare_runs
from scenebench.report.runs import load_runs

JUDGED_OFFICIAL = {"object_caption", "object_conversation", "scene_caption", "scene_qa", "relation", "position_relation"}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return make_bench(tmp_path_factory.mktemp("b") / "bench", list(TASKS))


def _answers(path):
    # classification half right (official reads the class name), navigation wrong: rule tasks < 100
    return write_answers(
        path,
        list(TASKS),
        {"classification": lambda r: "chair" if r["gt_choice"] % 2 else "sofa", "navigation": lambda r: "[9, 9]"},
    )


def test_mean_rule_is_the_same_with_and_without_a_judge(bench, tmp_path):
    ans = _answers(tmp_path / "a.jsonl")
    plain = score_3dbench(bench, ans, protocol="official", out=tmp_path / "p", n_resamples=20)
    judged = score_3dbench(bench, ans, protocol="official", judge=FakeJudge(), out=tmp_path / "j", n_resamples=20)
    po, jo = plain.metrics["overall"], judged.metrics["overall"]
    rule_tasks = [t for t in TASKS if t not in JUDGED_OFFICIAL]
    assert plain.extra["aggregates"]["overall"]["rule_tasks"] == judged.extra["aggregates"]["overall"]["rule_tasks"] == rule_tasks
    # by hand: the rule tasks' primaries from by_task, averaged
    prim = plain.extra["primary_metric"]
    by_hand = sum(plain.metrics["by_task"][t][prim[t]] for t in rule_tasks) / len(rule_tasks)
    assert po["mean_rule"] == pytest.approx(by_hand) and jo["mean_rule"] == pytest.approx(by_hand)
    assert po["mean_rule"] < 100
    # the judged mean: null without a judge; FakeJudge scores every text answer 7 (x10) and calls
    # every relation "same" (100)
    assert po["mean_judged"] is None
    assert jo["mean_judged"] == pytest.approx((5 * 70 + 100) / 6)
    assert judged.extra["aggregates"]["overall"]["judged_tasks"] == [t for t in TASKS if t in JUDGED_OFFICIAL]
    # mean_primary (every available task) is what changed with the judge: kept, not the headline
    assert po["n_tasks"] == 7 and jo["n_tasks"] == 13
    assert plain.metric_info["mean_rule"]["kind"] == "group_mean"


def test_compare_recomputes_both_means_from_per_sample_values(bench, tmp_path):
    good = write_answers(tmp_path / "g.jsonl", list(TASKS))
    score_3dbench(bench, good, protocol="official", judge=FakeJudge(), out=tmp_path / "g", n_resamples=20)
    score_3dbench(bench, _answers(tmp_path / "a.jsonl"), protocol="official", judge=FakeJudge(), out=tmp_path / "a", n_resamples=20)
    runs = load_runs([tmp_path / "g", tmp_path / "a"])
    (c,) = compare_runs(runs, n_resamples=200)
    ov = {d.metric: d for d in c.overall}
    for name in ("mean_rule", "mean_judged", "mean_primary"):
        assert ov[name].a == pytest.approx(runs[0].results.metrics["overall"][name])
        assert ov[name].b == pytest.approx(runs[1].results.metrics["overall"][name])
    assert ov["mean_rule"].diff < 0 and ov["mean_judged"].diff == pytest.approx(0.0)
    assert not any(s.startswith(("mean_", "n_tasks")) for s in c.skipped)
    assert ov["mean_rule"].ci is None and ov["mean_rule"].note == "2 scenes < 10: no interval or p-value"
