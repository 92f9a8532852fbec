import math

from scenebench.benchmarks.surprise3d.layout import LAYOUT as SURPRISE3D
from scenebench.metrics.aggregate import Mean
from scenebench.report.runs import load_run, load_runs
from scenebench.report.tables import latex_escape, long_table, paper_table, tables_for, to_latex, to_markdown
from scenebench.results import Results
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import SCORE_KIND, SampleScore, summarize_scores

from .conftest import SPECS

S3D_SPECS = [Mean("mIoU", "iou", scale=100, unit="%"), Mean("A25", "a25", scale=100, unit="%"), Mean("A50", "a50", scale=100, unit="%")]


def s3d_run(path, values):
    """A surprise3d-shaped run: question types cs / hi / abs with given per-sample IoUs."""
    recs = []
    for i, (qt, iou) in enumerate(values):
        recs.append(
            SampleScore(
                f"s{i}", f"scene{i % 3}", "scored", {"iou": iou, "a25": float(iou >= 0.25), "a50": float(iou >= 0.5)}, {"question_type": qt}
            )
        )
    run = RunDir(path).open({"benchmark": "surprise3d", "protocol": "strict", "fingerprint": "x"})
    with run.store() as st:
        st.put_many(SCORE_KIND, [(r.sample_id, r.to_json()) for r in recs])
    s = summarize_scores(recs, S3D_SPECS, groups=["question_type"], n_resamples=50)
    Results(
        benchmark="surprise3d",
        protocol="strict",
        metrics=s.metrics,
        confidence_intervals=s.intervals,
        counts=s.counts,
        counts_by_group=s.counts_by_group,
        metric_info=s.metric_info,
    ).save(run.results_json)
    return path


def test_surprise3d_paper_layout_groups_question_types_under_knowledge_and_spatial(tmp_path):
    a = s3d_run(tmp_path / "a", [("cs", 1.0), ("cs", 0.0), ("hi", 0.4), ("abs", 0.3)])
    b = s3d_run(tmp_path / "b", [("cs", 0.5), ("cs", 0.5), ("hi", 0.6), ("abs", 0.1)])
    runs = load_runs([a, b], ["ModelA", "Model_B"])
    t = paper_table(runs, SURPRISE3D)
    # blocks in paper order, only those present; metric order A25, A50, mIoU
    assert t.spans[0] == [("Knowledge", 6), ("Spatial", 3), ("", 3)]
    assert t.spans[1] == [("Common sense", 3), ("Human intention", 3), ("Absolute distance", 3), ("Overall", 3)]
    assert t.leaf[:3] == ["A25", "A50", "mIoU"]
    row_a = t.rows[0][1]
    # cs for A: IoUs 1.0 and 0.0 -> A25 50, A50 50, mIoU 50
    assert [c.value for c in row_a[:3]] == [50.0, 50.0, 50.0]
    # overall mIoU: A = (1+0+0.4+0.3)/4 = 42.5 ; B = (0.5+0.5+0.6+0.1)/4 = 42.5 -> tie, both bold
    assert math.isclose(row_a[-1].value, 42.5) and row_a[-1].best and t.rows[1][1][-1].best
    # hi A50: A 0 (0.4), B 100 (0.6) -> B best only
    hi_a50 = 4
    assert t.rows[1][1][hi_a50].best and not row_a[hi_a50].best
    tex = to_latex([t], digits=1, ci=False)
    assert "\\multicolumn{6}{c}{Knowledge}" in tex and "\\cmidrule(lr){2-7}" in tex and "\\cmidrule(lr){8-10}" in tex
    assert "Model\\_B" in tex and "\\toprule" in tex and "\\bottomrule" in tex
    assert "\\textbf{100.0}" in tex
    md = to_markdown([t], digits=1, ci=False)
    assert "| Method | Common sense A25 | Common sense A50 | Common sense mIoU |" in md
    assert "| ModelA | 50.0 | 50.0 | **50.0** |" in md  # cs mIoU ties with B (0.5, 0.5)


def test_long_tables_have_counts_and_cis_and_notes(toy_run):
    run = load_run(toy_run)
    t = long_table([run], "question_type")
    assert [r[0][1] for r in t.rows] == ["abs", "cs", "rel_pos"]
    assert [r[0][2] for r in t.rows] == ["6", "12", "12"]
    md = to_markdown(tables_for([run]), digits=1)
    assert "protocol strict" in md and "missing 1" in md and "excluded 1" in md
    ov = run.results.metrics["overall"]["mIoU"]
    lo, hi = run.results.confidence_intervals.overall["mIoU"]
    assert f"{ov:.1f} [{lo:.1f}, {hi:.1f}]" in md
    # metres keep two decimals even with --digits 1
    med = run.results.metrics["overall"]["MedErr"]
    assert f"{med:.2f}" in md


def test_single_run_marks_nothing_bold(toy_run):
    md = to_markdown(tables_for([load_run(toy_run)]))
    assert "**" not in md.replace("**toy (strict)**", "").replace("**toy (strict) by question_type**", "")


def test_latex_escapes_special_characters():
    assert (
        latex_escape("a_b & 50% #1 {x} ~ ^ \\") == "a\\_b \\& 50\\% \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}"
    )


def test_missing_metric_is_a_dash_not_a_number(tmp_path):
    recs = [SampleScore("a", "s", "missing", {"iou": math.nan, "a25": 0.0, "err": math.nan})]
    path = tmp_path / "r"
    run = RunDir(path).open({"benchmark": "toy", "protocol": "strict", "fingerprint": "x"})
    s = summarize_scores(recs, SPECS, n_resamples=10)
    Results(
        benchmark="toy", protocol="strict", metrics=s.metrics, confidence_intervals=s.intervals, counts=s.counts, metric_info=s.metric_info
    ).save(run.results_json)
    tabs = tables_for([load_run(path)])
    assert "| – |" in to_markdown(tabs) and " -- " in to_latex(tabs)


def rio_run(path, model, static_hits, moved_hits):
    """A RIO-shaped run: per-instance hit_10 (0/1), split by motion."""
    recs = [SampleScore(f"s{i}", f"scan{i % 2}", "scored", {"hit_10": float(h)}, {"motion": "static"}) for i, h in enumerate(static_hits)]
    recs += [SampleScore(f"m{i}", f"scan{i % 2}", "scored", {"hit_10": float(h)}, {"motion": "moved"}) for i, h in enumerate(moved_hits)]
    run = RunDir(path).open({"benchmark": "rio", "protocol": "strict", "fingerprint": path.name, "model": model})
    with run.store() as st:
        st.put_many(SCORE_KIND, [(r.sample_id, r.to_json()) for r in recs])
    s = summarize_scores(recs, [Mean("recall_10cm_10deg", "hit_10", scale=100, unit="%")], groups=["motion"], n_resamples=50)
    Results(
        benchmark="rio",
        protocol="strict",
        metrics=s.metrics,
        confidence_intervals=s.intervals,
        counts=s.counts,
        counts_by_group=s.counts_by_group,
        metric_info=s.metric_info,
        settings={"model": model},
    ).save(run.results_json)
    return path


def test_rio_warns_when_the_identity_pose_wins_overall_but_not_on_moved_instances(tmp_path):
    from scenebench.report.tables import baseline_warnings, tables_by_benchmark

    # identity: every static instance right (6/6), every moved one wrong (0/2): 75 overall, 0 moved
    ident = rio_run(tmp_path / "prior", "baseline:prior", [1] * 6, [0, 0])
    # the model: 3/6 static, 2/2 moved: 62.5 overall, 100 moved
    model = rio_run(tmp_path / "fpfh", "baseline:fpfh", [1, 1, 1, 0, 0, 0], [1, 1])
    # a model worse on moved too: no warning about it
    bad = rio_run(tmp_path / "random", "random", [0] * 6, [0, 0])
    runs = load_runs([ident, model, bad])
    w = baseline_warnings(runs)
    assert len(w) == 1
    assert w[0].startswith(
        "baseline:prior (identity pose: nothing moved) beats baseline:fpfh on all instances (recall_10cm_10deg 75.0 vs 62.5) but not on moved ones (0.0 vs 100.0)"
    )
    t = tables_by_benchmark(runs)[0]
    assert t.notes[0] == w[0]
    # the paper table has All / Static / Moved blocks
    assert t.spans[-1] == [("All instances", 1), ("Static", 1), ("Moved", 1)]
    assert [c.value for c in t.rows[1][1]] == [62.5, 50.0, 100.0]
    assert "rank by the moved column" in to_markdown([t])


def test_counts_print_as_integers_and_scores_keep_their_decimals(tmp_path):
    a = s3d_run(tmp_path / "a", [("cs", 1.0), ("cs", 0.0), ("hi", 0.4)])
    res = Results.load(a / "results.json")
    res.metrics["overall"]["n_tasks"] = 8.0
    res.metric_info["n_tasks"] = {"kind": "count", "unit": "", "higher_is_better": True}
    res.save(a / "results.json")
    md = to_markdown([long_table(load_runs([a]), None)], digits=1, ci=False)
    # mIoU of IoUs 1.0, 0.0, 0.4 = 46.666.. -> 46.7; the count: 8, not 8.00
    assert "| a | 3 | 46.7 | 66.7 | 33.3 | 8 |" in md.replace("Method", "")
    assert "8.00" not in to_latex([long_table(load_runs([a]), None)])


def test_3dbench_text_task_without_a_judge_shows_its_text_metric_and_says_so(tmp_path):
    from scenebench.benchmarks.bench3d.layout import LAYOUT as BENCH3D

    run = RunDir(tmp_path / "r").open({"benchmark": "3dbench", "protocol": "strict", "fingerprint": "r"})
    Results(
        benchmark="3dbench",
        protocol="strict",
        metrics={
            "overall": {"mean_primary": 50.0, "n_tasks": 1.0, "mean_rule": 50.0, "mean_judged": None},
            "by_task": {"classification": {"accuracy": 50.0}, "scene_caption": {"judge_score": None, "bleu4_py": 12.5, "rouge_l_py": 30.0}},
        },
        metric_info={
            "accuracy": {"unit": "%"},
            "judge_score": {"unit": "/10"},
            "bleu4_py": {"unit": "%"},
            "n_tasks": {"kind": "count", "unit": ""},
        },
        extra={"primary_metric": {"classification": "accuracy", "scene_caption": "judge_score"}},
    ).save(run.results_json)
    t = paper_table(load_runs([tmp_path / "r"]), BENCH3D)
    assert t.leaf == ["accuracy", "bleu4_py", "mean_rule"]
    assert [c.value for c in t.rows[0][1]] == [50.0, 12.5, 50.0]
    assert t.notes[0] == "Scene cap.: judge_score is n/a (no judge), bleu4_py shown instead (not in the mean)"


def test_console_table_collapses_a_breakdown_of_many_values():
    # RIO's per-scene breakdown holds thousands of scenes: printing them took seconds; one line
    # says how many there are (all are in results.json), small breakdowns are printed in full.
    import io

    from rich.console import Console

    from scenebench.report.console import MAX_GROUP_ROWS, print_results
    from scenebench.results import Results

    many = {f"s{i}": {"m": float(i)} for i in range(MAX_GROUP_ROWS + 1)}
    res = Results(benchmark="rio", protocol="strict", metrics={"overall": {"m": 1.0}, "by_label": {"chair": {"m": 2.0}}, "by_scene": many})
    buf = io.StringIO()
    print_results(res, console=Console(file=buf, width=200, markup=False))
    text = buf.getvalue()
    assert f"scene: {MAX_GROUP_ROWS + 1} values (in results.json)" in text
    assert "label=chair" in text and "scene=s1" not in text


def test_latex_tables_are_scaled_to_fit_the_text_width(toy_run):
    # 3DBench's paper table has 14 columns: wider than a page in \small; scaled down only when wider
    tex = to_latex(tables_for([load_run(toy_run)]))
    assert "needs \\usepackage{booktabs,graphicx}" in tex
    assert tex.count("\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%") == tex.count("\\begin{tabular}")
    assert tex.count("\\end{tabular}}") == tex.count("\\begin{tabular}") > 0


def test_groups_of_fewer_than_five_samples_show_no_interval(tmp_path):
    from .conftest import toy_scores, write_run

    scores = [s for s in toy_scores(0) if s.groups["question_type"] != "abs" or s.scene_id == "scene0"]
    run = load_run(write_run(tmp_path / "few", scores))
    assert run.results.counts_by_group["by_question_type"]["abs"].n_samples == 1  # scene0's abs sample
    md = to_markdown([long_table([run], "question_type")], ci=True)
    abs_row = next(line for line in md.splitlines() if "| abs |" in line)
    cs_row = next(line for line in md.splitlines() if "| cs |" in line)
    assert "[" not in abs_row and "| 1 |" in abs_row and "[" in cs_row
