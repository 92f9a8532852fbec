"""End to end: score every task on fixtures written by the writer, at both protocols; bad inputs."""

import json

import pytest
from tests.bench3d.fixtures import make_bench, records_for
from typer.testing import CliRunner

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.cli import build_app

app = build_app()
from scenebench.errors import InputError
from scenebench.judges.api import JudgeVerdict
from scenebench.results import Results

GOOD = {
    "classification": lambda r: f"It looks like a {r['gt_choices'][r['gt_choice']]}.",  # official ignores letters
    "counting": lambda r: f"There are {r['gt_choices'][r['gt_choice']]} chairs.",
    "position_relation": lambda r: r["gt_choices"][r["gt_choice"]],
    "detection": lambda r: "; ".join(f"{o.get('name') or o.get('label')}: {o.get('BoundingBox') or o.get('bbox')}" for o in r["object"]),
    "visual_grounding": lambda r: f"The vase is at {r['object']}.",
    "visual_grounding_plus": lambda r: f"Its centre is ({r['object'][0]}, {r['object'][1]}, {r['object'][2]}).",
    "room_detection": lambda r: "; ".join(f"{o['label']}: {o['bbox']}" for o in r["object"]),
    "navigation": lambda r: " -> ".join(str(p) for p in r["positions"]),
}


def write_answers(path, tasks, fn=None, skip=()):
    with open(path, "w") as f:
        for t in tasks:
            for r in records_for(t):
                if r["question_id"] in skip:
                    continue
                text = (fn or {}).get(t, GOOD.get(t, lambda r: "a kitchen next to a living room with a sofa"))(r)
                f.write(json.dumps({"question_id": r["question_id"], "task": t, "text": text}) + "\n")
    return path


@pytest.fixture
def bench(tmp_path):
    return make_bench(tmp_path / "bench", list(TASKS))


@pytest.mark.parametrize("protocol", ["strict", "official"])
def test_perfect_answers_score_full_marks_on_every_rule_task(bench, tmp_path, protocol, monkeypatch):
    monkeypatch.setenv("SCENEBENCH_METEOR_JAR", str(tmp_path / "no-meteor.jar"))  # the Java-free mode
    ans = write_answers(tmp_path / "a.jsonl", list(TASKS))
    res = score_3dbench(bench, ans, protocol=protocol, out=tmp_path / "run", n_resamples=50)
    bt = res.metrics["by_task"]
    assert set(bt) == set(TASKS)
    prim = res.extra["primary_metric"]
    full = ("classification", "counting", "visual_grounding", "visual_grounding_plus", "room_detection", "navigation")
    for t in full + (("detection",) if protocol == "strict" else ()):
        assert bt[t][prim[t]] == pytest.approx(100.0), t
    if protocol == "official":  # the released loop moves each GT centre to (centre + size) / 2 first
        assert bt["detection"][prim["detection"]] < 100.0
    if protocol == "strict":
        assert bt["position_relation"]["accuracy"] == 100.0
        assert bt["detection"]["recall"] == 100.0
    else:  # official position relation is judged: n/a without a judge, and says so
        assert bt["position_relation"]["judge_same"] is None
        assert any("judge_same is n/a" in w for w in res.warnings)
    for t in ("scene_caption", "object_caption"):
        assert bt[t]["judge_score"] is None and bt[t]["rouge_l_py"] is not None
    assert bt["scene_caption"]["meteor_java"] is None and any("meteor_java is n/a" in w for w in res.warnings)
    assert res.counts.n_missing == 0 and res.counts.n_invalid == 0
    assert "position_relation" not in res.extra["aggregates"]["overall"]["left_out"] or protocol == "official"
    assert set(res.metrics["by_level"]) == {"object", "scene"} and set(res.metrics["by_ability"]) == {
        "perception",
        "reasoning",
        "expression",
    }
    assert res.metrics["by_ability"]["expression"]["mean_primary"] is None  # only judged tasks: n/a, not dropped
    assert Results.load(tmp_path / "run" / "results.json").protocol == protocol


def test_protocols_differ_where_the_quirks_bite(bench, tmp_path):
    fn = {
        "classification": lambda r: "It is a cupboard-like chair" if r["gt_choice"] == 0 else "The answer is (A)",
        "visual_grounding": lambda r: f"centre {r['object'][0] + 0.9}, {r['object'][1] + 0.9}, {r['object'][2] + 0.9}, size 0.3 0.6 0.3",
        "navigation": lambda r: "x -0 z 0, x -1 z 0, x -2 z 0, x -2 z 1",  # signs lost by official fallback
    }
    ans = write_answers(tmp_path / "a.jsonl", ["classification", "visual_grounding", "navigation"], fn)
    kw = dict(tasks="classification,visual_grounding,navigation", n_resamples=0)
    s = score_3dbench(bench, ans, protocol="strict", out=tmp_path / "s", **kw).metrics["by_task"]
    o = score_3dbench(bench, ans, protocol="official", out=tmp_path / "o", **kw).metrics["by_task"]
    # VG: the centre moved +0.9 m on each axis (1.56 m): strict misses. Official reads the unbracketed
    # numbers with the sign-dropping fallback (z = -0.6 -> 0.6) and clamps the GT's z = -1.5 to 0.01,
    # then every axis is within 1 m (L∞): a hit for both reasons.
    assert s["visual_grounding"]["around_box_l2"] == 0.0
    assert o["visual_grounding"]["around_box_linf"] == 100.0
    # navigation: strict reads negative x and fails the GT path at positive x; official reads |x| and succeeds
    assert s["navigation"]["success"] == 0.0 and o["navigation"]["success"] == 100.0


def test_detection_official_precision_vs_strict_one_to_one(bench, tmp_path):
    # three boxes all inside the first chair: official counts per GT (both chairs? only the first
    # contains them) over 3 predicted boxes; strict matches one chair only.
    fn = {
        "detection": lambda r: (
            "chair: [1.0, 0.5, 1.0, 0.1, 0.1, 0.1] chair: [1.1, 0.5, 1.0, 0.1, 0.1, 0.1] chair: [0.9, 0.5, 1.0, 0.1, 0.1, 0.1]"
        )
    }
    ans = write_answers(tmp_path / "a.jsonl", ["detection"], fn)
    o = score_3dbench(bench, ans, protocol="official", tasks="detection", out=tmp_path / "o", n_resamples=0).metrics["by_task"]["detection"]
    s = score_3dbench(bench, ans, protocol="strict", tasks="detection", out=tmp_path / "s", n_resamples=0).metrics["by_task"]["detection"]
    assert o["precision_official"] == pytest.approx(100 / 3)  # 1 GT hit per house / 3 boxes
    assert s["precision"] == pytest.approx(100 / 3) and s["recall"] == pytest.approx(100 / 3)


def test_zero_predicted_boxes_do_not_divide_by_zero(bench, tmp_path):
    ans = write_answers(
        tmp_path / "a.jsonl", ["detection", "room_detection"], {"detection": lambda r: "none", "room_detection": lambda r: "none"}
    )
    for protocol in ("official", "strict"):
        res = score_3dbench(bench, ans, protocol=protocol, tasks="detection,room_detection", out=tmp_path / protocol, n_resamples=10)
        d = res.metrics["by_task"]["detection"]
        assert (d.get("precision_official") if protocol == "official" else d["precision"]) is None  # 0/0: n/a
        if protocol == "strict":
            assert d["recall"] == 0.0 and d["f1"] is None
        assert res.counts_by_group["by_task"]["detection"].n_invalid == 2


def test_missing_answers_refused_then_counted(bench, tmp_path):
    first = records_for("counting")[0]["question_id"]
    ans = write_answers(tmp_path / "a.jsonl", ["counting"], skip={first})
    with pytest.raises(InputError, match="1 missing"):
        score_3dbench(bench, ans, tasks="counting", out=tmp_path / "r")
    res = score_3dbench(bench, ans, tasks="counting", out=tmp_path / "r2", allow_missing=True, n_resamples=0)
    assert res.counts.n_missing == 1 and res.metrics["by_task"]["counting"]["accuracy"] == pytest.approx(500 / 6)
    assert any("missing" in w for w in res.warnings)


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ({"question_id": "nope", "task": "counting", "text": "3"}, "is not a counting record"),
        ({"question_id": "counting-460-0", "task": "sorting", "text": "3"}, "unknown task"),
        ({"question_id": "counting-460-0", "task": "counting", "text": 3}, "field 'text'"),
        ({"question_id": "counting-460-0", "task": "classification", "text": "3"}, "is a question_id of counting"),
        ({"task": "counting", "text": "3"}, "field 'question_id'"),
    ],
)
def test_bad_answer_lines_name_file_line_field(bench, tmp_path, line, match):
    p = write_answers(tmp_path / "a.jsonl", ["counting", "classification"])
    with open(p, "a") as f:
        f.write(json.dumps(line) + "\n")
    with pytest.raises(InputError, match=match) as ei:
        score_3dbench(bench, p, tasks="counting,classification", out=tmp_path / "r")
    assert "a.jsonl" in str(ei.value) and "line 13" in str(ei.value)


def test_duplicate_and_malformed_lines(bench, tmp_path):
    p = write_answers(tmp_path / "a.jsonl", ["counting"])
    first = open(p).readline()
    with open(p, "a") as f:
        f.write(first)
    with pytest.raises(InputError, match="already answered on line 1"):
        score_3dbench(bench, p, tasks="counting", out=tmp_path / "r")
    p.write_text(first + "{not json\n")
    with pytest.raises(InputError, match="line 2"):
        score_3dbench(bench, p, tasks="counting", out=tmp_path / "r")


def test_circular_needs_every_rotation(bench, tmp_path):
    recs = records_for("position_relation")
    with open(tmp_path / "c.jsonl", "w") as f:
        for r in recs:
            for k in range(4):
                gt = (r["gt_choice"] - k) % 4
                right = r["question_id"] != recs[0]["question_id"] or k != 3  # first question fails one rotation
                f.write(
                    json.dumps(
                        {
                            "question_id": f"{r['question_id']}#rot{k}",
                            "task": "PositionRelation",
                            "text": f"The answer is ({'ABCD'[gt if right else (gt + 1) % 4]}).",
                        }
                    )
                    + "\n"
                )
    res = score_3dbench(bench, tmp_path / "c.jsonl", tasks="position_relation", circular=True, out=tmp_path / "r", n_resamples=0)
    m = res.metrics["by_task"]["position_relation"]
    assert m["circular_accuracy"] == pytest.approx(75.0) and m["accuracy"] == pytest.approx(100 * 15 / 16)
    with pytest.raises(InputError, match="rotation ids need --circular"):
        score_3dbench(bench, tmp_path / "c.jsonl", tasks="position_relation", out=tmp_path / "r2")


class FakeJudge:
    """Implements the Judge protocol for aggregation tests only (the real judge has its own tests)."""

    model_id = "fake-judge-1"
    prompt_versions = {"score": "s1", "same": "m1", "option": "o1"}

    def __init__(self):
        self.calls = 0

    def judge_many(self, requests, *, progress=False):
        out = []
        for r in requests:
            self.calls += 1
            if r.kind == "score":
                bad = "garbage" in r.payload["answer"]
                out.append(
                    JudgeVerdict(None if bad else 7.0, not bad, "seven" if not bad else "??", False, False, "no number" if bad else None)
                )
            elif r.kind == "same":
                out.append(JudgeVerdict(1, True, "same", False, False))
            else:
                out.append(JudgeVerdict(2, True, "C", False, False))
        return out

    def usage(self):
        return {"calls": self.calls}

    def close(self):
        pass


@pytest.mark.parametrize(("protocol", "expected"), [("official", (7 - 1) / 2), ("strict", 7 / 2)])
def test_judge_scores_invalid_replies_per_protocol(bench, tmp_path, protocol, expected):
    garbage = records_for("scene_caption")[0]["question_id"]
    fn = {"scene_caption": lambda r: "garbage" if r["question_id"] == garbage else "a kitchen"}
    ans = write_answers(tmp_path / "a.jsonl", ["scene_caption"], fn)
    judge = FakeJudge()
    res = score_3dbench(bench, ans, tasks="scene_caption", protocol=protocol, judge=judge, out=tmp_path / "r", n_resamples=0)
    assert res.metrics["by_task"]["scene_caption"]["judge_score"] == pytest.approx(expected)
    assert res.counts.n_invalid == 1
    assert res.extra["judge"]["model_id"] == "fake-judge-1" and res.extra["judge"]["usage"]["calls"] == 2
    assert res.metrics["by_ability"]["expression"]["mean_primary"] == pytest.approx(expected * 10)


def test_llm_extractor_only_for_leftovers_in_strict(bench, tmp_path):
    fn = {"classification": lambda r: "The answer is (A)." if r["gt_choice"] == 0 else "Hmm, hard to say."}
    ans = write_answers(tmp_path / "a.jsonl", ["classification"], fn)
    judge = FakeJudge()  # always picks index 2
    res = score_3dbench(bench, ans, tasks="classification", judge=judge, out=tmp_path / "r", n_resamples=0)
    assert judge.calls == 4  # only the four unreadable answers went to the judge
    assert res.metrics["by_task"]["classification"]["accuracy"] == pytest.approx(100 * 4 / 6)  # 2 letters + 2 llm picks of index 2
    no_judge = score_3dbench(bench, ans, tasks="classification", out=tmp_path / "r2", n_resamples=0)
    assert no_judge.metrics["by_task"]["classification"]["accuracy"] == pytest.approx(100 * 2 / 6)
    assert no_judge.counts.n_invalid == 4


def test_run_resumes_and_cli_prints_rows(bench, tmp_path):
    ans = write_answers(tmp_path / "a.jsonl", ["counting", "navigation"])
    runner = CliRunner()
    args = [
        "score",
        "3dbench",
        "--data",
        str(bench),
        "--predictions",
        str(ans),
        "--tasks",
        "counting,navigation",
        "--out",
        str(tmp_path / "run"),
        "--bootstrap",
        "20",
    ]
    r1 = runner.invoke(app, args)
    assert r1.exit_code == 0, r1.output
    assert "counting" in r1.output and "navigation" in r1.output and "mean_primary" in r1.output
    r2 = runner.invoke(app, args)
    assert r2.exit_code == 0
    v = runner.invoke(app, ["validate", "3dbench", "--data", str(bench), "--predictions", str(ans), "--tasks", "counting,navigation"])
    assert v.exit_code == 0 and "answers: 8 paired" in v.output


def test_cli_unknown_task_is_one_clear_error(bench, tmp_path):
    from scenebench.cli import main

    ans = write_answers(tmp_path / "a.jsonl", ["counting"])
    with pytest.raises(SystemExit) as ei:
        main(["score", "3dbench", "--data", str(bench), "--predictions", str(ans), "--tasks", "sorting", "--out", str(tmp_path / "r")])
    assert ei.value.code == 2


@pytest.mark.parametrize(
    ("kw", "field"), [({"protocol": "lenient"}, "--protocol"), ({"limit": 0}, "--limit"), ({"tasks": "counting,sorting"}, "--tasks")]
)
def test_bad_options_are_input_errors(bench, tmp_path, kw, field):
    ans = write_answers(tmp_path / "a.jsonl", ["counting"])
    with pytest.raises(InputError, match=field):
        score_3dbench(bench, ans, out=tmp_path / "r", **kw)


def test_a_changed_protocol_does_not_resume_into_the_same_folder(bench, tmp_path):
    from scenebench.errors import RunMismatchError

    ans = write_answers(tmp_path / "a.jsonl", ["counting"])
    score_3dbench(bench, ans, tasks="counting", out=tmp_path / "r", n_resamples=0)
    with pytest.raises(RunMismatchError):
        score_3dbench(bench, ans, tasks="counting", protocol="official", out=tmp_path / "r", n_resamples=0)


def test_judge_usage_adds_up_over_a_resumed_run(bench, tmp_path):
    """A run stopped after some samples and resumed reports the calls of both invocations."""
    from scenebench.runtime.rundir import RunDir
    from scenebench.runtime.scoring import SCORE_KIND

    ans = write_answers(tmp_path / "a.jsonl", ["scene_caption"], {"scene_caption": lambda r: "a kitchen"})
    first = FakeJudge()
    score_3dbench(bench, ans, tasks="scene_caption", judge=first, out=tmp_path / "r", n_resamples=0)
    assert first.calls == 2
    # forget one scored sample, as if the first invocation had been stopped before storing it
    with RunDir(tmp_path / "r").store() as st:
        sid = sorted(st.ids(SCORE_KIND))[0]
        st._db.execute("DELETE FROM records WHERE kind=? AND sample_id=?", (SCORE_KIND, sid))
    second = FakeJudge()
    res = score_3dbench(bench, ans, tasks="scene_caption", judge=second, out=tmp_path / "r", n_resamples=0)
    assert second.calls == 1  # only the sample left was judged again
    usage = res.extra["judge"]["usage"]
    assert usage["calls"] == 3 and usage["invocations"] == 2
    assert usage["this_invocation"] == {"calls": 1}
