"""Smaller protocol details: official denominators and label rules, subsets, METEOR plumbing, aggregates."""

import numpy as np
import pytest
from tests.bench3d.fixtures import make_bench
from tests.bench3d.test_scorer import FakeJudge, write_answers

from scenebench.benchmarks.bench3d import sample_scores as S
from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.benchmarks.bench3d.records import validate_record
from scenebench.benchmarks.bench3d.scorer import aggregate
from scenebench.benchmarks.bench3d.specs import Primary
from scenebench.metrics import text as T
from scenebench.runtime.scoring import SampleScore


def det_record(labels_boxes):
    r = {"question_id": "d", "id": "1", "pcl": "p.npy", "query": "q", "object": [{"name": n, "BoundingBox": b} for n, b in labels_boxes]}
    return validate_record("detection", r)


def test_official_detection_label_case_quirk():
    rec = det_record([("Chair", [0, 0, 0, 1, 1, 1])])
    text = "Chair at [0, 0, 0, 1, 1, 1]"
    _, off, _ = S.score_boxes(rec, text, "official", rooms=False)
    _, st, _ = S.score_boxes(rec, text, "strict", rooms=False)
    assert off == {"hits": 0.0, "n_pred": 1.0}  # "Chair" is searched in the lower-cased answer: never found
    assert st["tp"] == 1.0


def test_official_detection_counts_one_box_for_several_objects():
    rec = det_record([("chair", [0, 0, 0, 2, 2, 2]), ("chair", [0.5, 0, 0, 2, 2, 2])])
    # one box inside both chairs as the released code sees them: it first rewrites each GT centre to
    # (centre + size) / 2, i.e. (1, 1, 1) and (1.25, 1, 1); (1, 1, 1) is also inside both as given
    text = "chair [1, 1, 1, 0.1, 0.1, 0.1]"
    _, off, _ = S.score_boxes(rec, text, "official", rooms=False)
    _, st, _ = S.score_boxes(rec, text, "strict", rooms=False)
    assert off["hits"] / off["n_pred"] == 2.0  # precision-like value above 100%
    assert st["tp"] == 1.0


def test_strict_box_labels_are_whole_words_and_follow_the_text():
    rec = det_record([("chair", [0, 0, 0, 1, 1, 1]), ("armchair", [5, 0, 0, 1, 1, 1]), ("diningtable", [9, 0, 0, 1, 1, 1])])
    text = "An armchair [5, 0, 0, 1, 1, 1]. A chair: (0, 0, 0, 1, 1, 1). The dining table [9, 0, 0, 1, 1, 1]"
    _, st, d = S.score_boxes(rec, text, "strict", rooms=False)
    assert d["labels"] == ["armchair", "chair", "diningtable"] and st["tp"] == 3.0
    _, st2, d2 = S.score_boxes(rec, "An armchair [0, 0, 0, 1, 1, 1]", "strict", rooms=False)
    assert d2["labels"] == ["armchair"] and st2["tp"] == 0.0  # right place, wrong label: no match


def test_room_boxes_compared_in_room_order():
    rec = validate_record(
        "room_detection",
        {"question_id": "r", "id": "1", "pcl": "p.npy", "query": "q", "object": [{"label": "LivingRoom", "bbox": [0, 0, 1.25, 4, 2, 2.5]}]},
    )
    # IoU exactly 0.5: the predicted room covers half of the GT (lx 4 -> 2, same centre x offset 1)
    text = "living room [-1, 0, 1.25, 2, 2, 2.5]"
    _, off, _ = S.score_boxes(rec, text, "official", rooms=True)
    _, st, _ = S.score_boxes(rec, text, "strict", rooms=True)
    assert off["hits"] == 0.0  # released IoU > 0.5
    assert st["tp"] == 1.0  # strict IoU >= 0.5


def test_vg_plus_official_denominator_is_parsed_answers(tmp_path):
    bench = make_bench(tmp_path / "b", ["visual_grounding_plus"])
    fn = {"visual_grounding_plus": lambda r: "no idea" if r["id"] == "460" else "(2.0, 0.5, 2.0)"}
    ans = write_answers(tmp_path / "a.jsonl", ["visual_grounding_plus"], fn)
    o = score_3dbench(bench, ans, protocol="official", out=tmp_path / "o", n_resamples=0)
    s = score_3dbench(bench, ans, protocol="strict", out=tmp_path / "s", n_resamples=0)
    assert o.metrics["by_task"]["visual_grounding_plus"]["within_1m"] == 100.0
    assert s.metrics["by_task"]["visual_grounding_plus"]["within_1m"] == 50.0
    assert o.counts.n_invalid == s.counts.n_invalid == 1


def test_position_relation_official_primary_is_the_judge(tmp_path):
    bench = make_bench(tmp_path / "b", ["position_relation"])
    ans = write_answers(tmp_path / "a.jsonl", ["position_relation"], {"position_relation": lambda r: "left, I think"})
    res = score_3dbench(bench, ans, protocol="official", judge=FakeJudge(), out=tmp_path / "o", n_resamples=0)
    m = res.metrics["by_task"]["position_relation"]
    assert m["judge_same"] == 100.0 and m["accuracy"] == 0.0
    assert res.extra["primary_metric"]["position_relation"] == "judge_same"
    assert res.metrics["overall"]["mean_primary"] == 100.0


def test_subset_warns_that_cider_depends_on_the_corpus(tmp_path):
    bench = make_bench(tmp_path / "b", ["scene_caption", "counting"])
    ans = write_answers(tmp_path / "a.jsonl", ["scene_caption", "counting"])
    full = score_3dbench(bench, ans, out=tmp_path / "f", n_resamples=0)
    part = score_3dbench(bench, ans, limit=1, out=tmp_path / "p", n_resamples=0)  # answers of cut records: skipped
    assert not any("subset" in w for w in full.warnings if "CIDEr" in w)
    assert any("CIDEr-D depends on the evaluated corpus" in w and "subset" in w for w in part.warnings)
    assert part.extra["text_metrics"]["cider_corpus_size"]["scene_caption"] == 1
    assert part.counts.n_samples == 2 and part.extra["answers"]["not_scored"] == 6  # 5 counting + 1 caption


@pytest.mark.skipif(T.meteor_unavailable_reason() is not None, reason=str(T.meteor_unavailable_reason()))
def test_meteor_through_the_jar_corpus_from_summed_statistics(tmp_path):
    # a perfect single-chunk match has no fragmentation penalty at all: exactly 1.0, and its chunks are
    # left out of the corpus sums (the jar's addStats)
    parts, scores, corpus = T.meteor_stats(["chair table lamp", "sofa"], [["chair table lamp"], ["sofa"]])
    assert scores == [1.0, 1.0] and corpus == 1.0 and all(p["met_ch"] == 0 for p in parts)
    # hand-worked: "chair table" vs "chair lamp table" (content words, weight δ = 0.75 each): P = 1,
    # R = 1.5 / 2.25 = 2/3, Fmean = 1 / (0.15 / 1 + 0.85 / (2/3)) = 1 / 1.425; 2 chunks over 2 matched
    # words: frag 1, penalty 0.6 -> 0.4 / 1.425 = 0.280701...
    parts, scores, corpus = T.meteor_stats(["chair table"], [["chair lamp table"]])
    assert scores[0] == pytest.approx(0.4 / (0.15 + 0.85 * 1.5), abs=1e-12)
    assert T.meteor_score(parts[0]) == pytest.approx(scores[0], abs=1e-12) and corpus == pytest.approx(scores[0], abs=1e-12)
    bench = make_bench(tmp_path / "b", ["scene_caption"])
    ans = write_answers(tmp_path / "a.jsonl", ["scene_caption"])
    res = score_3dbench(bench, ans, out=tmp_path / "r", n_resamples=0)
    bt = res.metrics["by_task"]["scene_caption"]
    assert bt["meteor_java"] == pytest.approx(100.0) and bt["meteor_mean"] == pytest.approx(100.0)
    assert res.extra["text_metrics"]["meteor"] == "java" and res.extra["text_metrics"]["tokenizer"] == "ptb-py-2"


@pytest.mark.skipif(T.meteor_unavailable_reason() is not None, reason=str(T.meteor_unavailable_reason()))
def test_meteor_jar_started_once_per_process_and_restarted_when_it_died():
    hyps, refs = ["a red chair", "the lamp"], [["a red chair near the table"], ["lamp", "the lamp on the desk"]]
    first = T.meteor_stats(hyps, refs)
    proc = next(iter(T._METEOR.values()))
    assert T.meteor_stats(hyps, refs) == first and next(iter(T._METEOR.values())) is proc  # reused, same numbers
    assert T.meteor_stats(["chair table"], [["chair lamp table"]])[1][0] == pytest.approx(0.4 / 1.425, abs=1e-12)
    proc.proc.kill()  # the JVM died between two scorings (OOM killer, a user's kill)
    proc.proc.wait()
    assert T.meteor_stats(hyps, refs) == first and next(iter(T._METEOR.values())) is not proc


def _rec(house, **values):
    return SampleScore(f"{house}-{len(values)}-{id(values)}", house, "scored", {k: float(v) for k, v in values.items()})


def test_aggregate_is_the_mean_of_primary_metrics_hand_worked():
    recs = {
        "a": [_rec("h1", correct=1), _rec("h1", correct=0), _rec("h2", correct=1), _rec("h2", correct=1)],  # 75 %
        "b": [_rec("h1", tp=1, n_pred=2, n_gt=1), _rec("h2", tp=1, n_pred=2, n_gt=3)],  # P 50, R 50 -> F1 50
        "c": [_rec("h1", judge=6), _rec("h2", judge=8)],  # 7/10 -> 70 %
    }
    prim = {
        "a": Primary("accuracy", "mean", ("correct",)),
        "b": Primary("f1", "f1", ("tp", "n_pred", "n_gt")),
        "c": Primary("judge_score", "mean", ("judge",), to_percent=10.0),
    }
    value, ci, used = aggregate(recs, prim, n_resamples=200, seed=0)
    assert value == pytest.approx((75 + 50 + 70) / 3) and used == ["a", "b", "c"]
    assert ci[0] <= value <= ci[1]
    # resampling houses jointly: the plain reference recomputes each task on the same drawn houses
    rng = np.random.default_rng(0)
    draws = rng.integers(0, 2, size=(200, 2))
    ref = []
    for d in draws:
        hs = [("h1", "h2")[i] for i in d]
        a = np.mean([r.values["correct"] for h in hs for r in recs["a"] if r.scene_id == h])
        tp = sum(r.values["tp"] for h in hs for r in recs["b"] if r.scene_id == h)
        p = tp / sum(r.values["n_pred"] for h in hs for r in recs["b"] if r.scene_id == h)
        rc = tp / sum(r.values["n_gt"] for h in hs for r in recs["b"] if r.scene_id == h)
        f = 2 * p * rc / (p + rc) if p + rc else 0.0
        c = np.mean([r.values["judge"] for h in hs for r in recs["c"] if r.scene_id == h])
        ref.append((100 * a + 100 * f + 10 * c) / 3)
    assert ci == pytest.approx([float(np.quantile(ref, 0.025)), float(np.quantile(ref, 0.975))])


def test_aggregate_leaves_out_unavailable_tasks():
    recs = {"a": [_rec("h1", correct=1)], "c": [SampleScore("x", "h1", "scored", {})]}
    prim = {"a": Primary("accuracy", "mean", ("correct",)), "c": Primary("judge_score", "mean", ("judge",), to_percent=10.0)}
    value, _, used = aggregate(recs, prim, n_resamples=0, seed=0)
    assert value == 100.0 and used == ["a"]


def test_validate_reports_bad_point_clouds(tmp_path):
    from typer.testing import CliRunner

    from scenebench.cli import build_app

    app = build_app()

    bench = make_bench(tmp_path / "b", ["counting"])
    (bench / "pcl" / "461.npy").unlink()
    r = CliRunner().invoke(app, ["validate", "3dbench", "--data", str(bench)])
    assert r.exit_code != 0 and "pcl/461.npy does not exist" in r.output


def test_label_mentions_whole_words_plurals_and_multiword_names():
    cands = tuple(S.VOCAB)
    got = S.label_mentions("two armchairs, a dining table, paper towel rolls and a cupboard near boxes", cands)  # no "cup", no "chair"
    assert [lab for _, lab in got] == ["armchair", "diningtable", "papertowelroll", "box"]
    text = "a coffee table"
    assert S.label_mentions(text, ("coffeetable", "table")) == [(len(text), "coffeetable")]  # longest wins
