import base64
import json
import re

import numpy as np
import pytest

from scenebench.cli import main
from scenebench.errors import InputError
from scenebench.report import viewer as vw
from scenebench.report.html import build_payload, json_for_script, pick_view_samples, write_html_report
from scenebench.report.runs import load_run

from . import toyviews
from .conftest import EVIL, toy_scores, write_run


def embedded_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="sb-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_json_for_script_cannot_close_the_script_block():
    text = json_for_script({"p": EVIL + "</SCRIPT><!-- \u2028", "x": float("nan")})
    assert "<" not in text and ">" not in text and "\u2028" not in text
    back = json.loads(text)
    assert back["p"] == EVIL + "</SCRIPT><!-- \u2028" and back["x"] is None


def test_report_embeds_predictions_only_as_escaped_json(toy_run, tmp_path):
    out = write_html_report(toy_run, tmp_path / "r.html", views=False)
    html = out.read_text()
    # the only script tags are ours: one data block and the three inlined assets
    assert html.count("<script") == 4
    assert "pwned" in html and "<script>document.title='pwned'" not in html
    data = embedded_data(html)
    sample = next(s for s in data["runs"][0]["samples"] if s["id"] == "scene0:0")
    assert sample["detail"]["prediction"] == EVIL
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html  # nothing fetched


def test_report_of_a_finished_run_reads_files_only(toy_run, tmp_path):
    data = build_payload([load_run(toy_run)], views=False)
    run = data["runs"][0]
    assert run["counts"]["n_missing"] == 1 and len(run["samples"]) == 30
    assert run["fields"][0] == "iou"  # graded values before 0/1 indicators
    assert run["group_keys"] == ["question_type"]
    assert run["view_notes"] == ["3D views not requested"]


def test_benchmark_without_viewer_says_so(toy_run):
    data = build_payload([load_run(toy_run)])
    assert data["runs"][0]["view_notes"] == ["no 3D viewer for benchmark 'toy'"]
    assert not any(s["view"] for s in data["runs"][0]["samples"])


def test_views_are_embedded_with_scene_and_layers(toy_run, monkeypatch):
    toyviews.install(monkeypatch)
    data = build_payload([load_run(toy_run)])
    views = data["views"]["0"]
    assert len(views) == 29  # every non-excluded sample
    v = views["scene0:0"]
    assert v["scene"] in data["scenes"] and {layer["kind"] for layer in v["layers"]} == {"cloud", "box", "path"}
    assert data["scenes"][v["scene"]]["cloud"]["n"] == 30000 and data["scenes"][v["scene"]]["cloud"]["total"] == 60000


def test_view_sample_cap_prefers_failures(toy_run):
    run = load_run(toy_run)
    picked = pick_view_samples(run, 10)
    assert len(picked) == 10
    by = run.scores_by_id()
    worst = sorted((s for s in run.scores if s.status == "scored"), key=lambda s: s.values["iou"])[:4]
    assert "scene1:1" in picked  # the missing prediction
    assert all(s.sample_id in picked for s in worst)
    assert picked == pick_view_samples(run, 10)  # seeded
    assert [i for i in [s.sample_id for s in run.scores] if i in picked] == picked
    assert all(by[i].status != "excluded" for i in picked)


def test_cloud_encoding_round_trips_within_quantisation_and_is_seeded():
    rng = np.random.default_rng(0)
    pts = rng.uniform(-3, 5, (5000, 3))
    pts[7] = np.nan  # non-finite points are dropped, not drawn at the origin
    c = vw.encode_cloud(pts, colors=rng.uniform(0, 1, (5000, 3)), max_points=1000, key="k")
    assert c["n"] == 1000 and c["total"] == 5000
    q = np.frombuffer(base64.b64decode(c["q"]), dtype="<u2").reshape(-1, 3)
    lo, hi = np.array(c["lo"]), np.array(c["hi"])
    back = lo + q / 65535.0 * (hi - lo)
    finite = np.flatnonzero(np.isfinite(pts).all(axis=1))
    idx = finite[vw.seeded_subset(finite.size, 1000, "k")]
    assert np.abs(back - pts[idx]).max() <= (hi - lo).max() / 65535
    assert c["q"] == vw.encode_cloud(pts, max_points=1000, key="k")["q"]  # same points for the same key
    rgb = np.frombuffer(base64.b64decode(c["rgb"]), dtype=np.uint8)
    assert rgb.size == 3000 and rgb.max() <= 255


def test_seeded_subset_is_stable_and_differs_by_key():
    a = vw.seeded_subset(1000, 100, "scene1")
    assert np.array_equal(a, vw.seeded_subset(1000, 100, "scene1"))
    assert not np.array_equal(a, vw.seeded_subset(1000, 100, "scene2"))
    assert np.array_equal(vw.seeded_subset(50, 100, "x"), np.arange(50))
    assert np.all(np.diff(a) > 0)


def test_mask_layers_split_true_positives_misses_and_false_alarms():
    pts = np.arange(30, dtype=float).reshape(10, 3)
    gt = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], bool)
    pred = np.array([0, 1, 1, 1, 1, 0, 0, 0, 0, 0], bool)
    layers = vw.mask_layers(pts, gt, pred, key="s")
    assert [layer["label"] for layer in layers] == ["GT ∩ prediction: 2 pts", "GT only (missed): 1 pts", "prediction only (wrong): 2 pts"]
    assert vw.mask_layers(pts, gt, None, key="s")[0]["label"] == "GT only (missed): 3 pts"


def test_box_corners_follow_bit_order():
    c = vw.box_corners([0, 0, 0], [2, 4, 6])
    assert c[0].tolist() == [-1, -2, -3] and c[7].tolist() == [1, 2, 3] and c[1].tolist() == [1, -2, -3] and c[4].tolist() == [-1, -2, 3]


def test_report_cli_writes_default_html_latex_and_markdown(toy_run, tmp_path, capsys):
    main(["report", str(toy_run), "--markdown", "--latex", str(tmp_path / "t.tex")])
    out = capsys.readouterr()
    assert "| Method | n | A25 (%) | mIoU (%) | MedErr (m) |" in out.out
    assert (toy_run / "report.html").exists() and "HTML report" in out.err
    assert "\\begin{tabular}" in (tmp_path / "t.tex").read_text()
    main(["report", str(toy_run), "--no-html", "--latex", "-"])
    assert "\\toprule" in capsys.readouterr().out


def test_report_of_several_runs_goes_to_the_cwd_or_where_html_says(tmp_path, monkeypatch, capsys):
    from .conftest import toy_scores, write_run

    a, b = write_run(tmp_path / "a", toy_scores(0)), write_run(tmp_path / "b", toy_scores(1))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    main(["report", str(a), str(b)])
    assert (work / "report.html").exists() and not (a / "report.html").exists()
    main(["report", str(a), str(b), "--html", str(tmp_path / "both.html")])
    assert (tmp_path / "both.html").exists() and "both.html" in capsys.readouterr().err


def test_report_of_unscored_folder_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no results in this run folder"):
        load_run(tmp_path / "empty")
    with pytest.raises(SystemExit) as exc:
        main(["report", str(tmp_path / "nope")])
    assert exc.value.code == 2 and "run folder does not exist" in capsys.readouterr().err


def test_report_over_runs_of_different_benchmarks_is_one_report(tmp_path, capsys):
    a = write_run(tmp_path / "a", toy_scores(0))
    b = write_run(tmp_path / "b", toy_scores(1), benchmark="other")
    out = tmp_path / "mixed.html"
    main(["report", str(a), str(b), "--html", str(out), "--markdown", "--latex", str(tmp_path / "t.tex")])
    md = capsys.readouterr().out
    assert "**toy (strict)**" in md and "**other (strict)**" in md  # a section per benchmark
    assert md.index("**toy (strict)**") < md.index("**other (strict)**")
    tex = (tmp_path / "t.tex").read_text()
    assert "\\caption{toy (strict)" in tex and "\\caption{other (strict)" in tex
    data = embedded_data(out.read_text())
    assert [r["benchmark"] for r in data["runs"]] == ["toy", "other"]


def test_runs_of_the_same_model_are_named_by_what_differs(tmp_path):
    from scenebench.report.runs import load_runs

    a = write_run(tmp_path / "a", toy_scores(0), meta_extra={"model": "baseline:prior", "model_options": {"seed": 0, "k": 3}})
    b = write_run(tmp_path / "b", toy_scores(1), meta_extra={"model": "baseline:prior", "model_options": {"seed": 1, "k": 3}})
    c = write_run(tmp_path / "c", toy_scores(2), meta_extra={"model": "oracle"})
    d = write_run(tmp_path / "d", toy_scores(2), benchmark="other", meta_extra={"model": "baseline:prior"})
    runs = load_runs([a, b, c, d])
    # fingerprints (the folder names here) differ too but say nothing: only the seed is named
    assert [r.label for r in runs] == [
        "baseline:prior [model_options.seed=0]",
        "baseline:prior [model_options.seed=1]",
        "oracle",
        "baseline:prior",
    ]
    # nothing in the settings differs: the folder names tell them apart
    e = write_run(tmp_path / "e", toy_scores(0), meta_extra={"model": "random"})
    f = write_run(tmp_path / "f", toy_scores(0), meta_extra={"model": "random"})
    assert [r.label for r in load_runs([e, f])] == ["random [e]", "random [f]"]


def test_scene_budget_shrinks_scenes_when_many_are_embedded(toy_run):
    from scenebench.report.html import scene_budget
    from scenebench.report.views import ViewOptions

    run = load_run(toy_run)
    ids = [s.sample_id for s in run.scores]  # 6 scenes
    assert scene_budget(run, ids, ViewOptions(max_scene_points=30000, max_total_points=60000)).max_scene_points == 10000
    assert scene_budget(run, ids, ViewOptions(max_scene_points=30000, max_total_points=6000)).max_scene_points == 5000
    assert scene_budget(run, ids, ViewOptions(max_scene_points=1000)).max_scene_points == 1000
    assert scene_budget(run, ids[:1], ViewOptions()).max_scene_points == 30000


def test_histogram_defaults_to_a_score_not_a_ratios_raw_count(tmp_path):
    """3DBench's BLEU is a corpus ratio of n-gram counts; a histogram of the count m1 says nothing."""
    from scenebench.metrics.aggregate import Mean, Ratio
    from scenebench.report.html import _fields
    from scenebench.report.runs import load_run
    from scenebench.results import Results
    from scenebench.runtime.rundir import RunDir
    from scenebench.runtime.scoring import SCORE_KIND, SampleScore, summarize_scores

    scores = [
        SampleScore(f"s{i}", f"scene{i % 3}", "scored", {"m1": float(i * 3), "g1": float(i * 4 + 1), "rouge": i / 10}, {}, {})
        for i in range(9)
    ]
    specs = [Ratio("bleu1", "m1", "g1", scale=100, unit="%"), Mean("rouge_l", "rouge", scale=100, unit="%")]
    run = RunDir(tmp_path / "r")
    run.open({"benchmark": "toy", "protocol": "strict", "fingerprint": "r", "settings": {}, "inputs": {}})
    with run.store() as store:
        store.put_many(SCORE_KIND, [(s.sample_id, s.to_json()) for s in scores])
    summ = summarize_scores(scores, specs, n_resamples=50)
    Results(
        benchmark="toy",
        protocol="strict",
        metrics=summ.metrics,
        confidence_intervals=summ.intervals,
        counts=summ.counts,
        counts_by_group=summ.counts_by_group,
        metric_info=summ.metric_info,
        inputs={},
    ).save(run.results_json)
    assert _fields(load_run(tmp_path / "r"))[0] == "rouge"


def test_view_size_cap_keeps_views_in_priority_order_and_counts_each_scene_once():
    from scenebench.report.html import cap_views_by_size
    from scenebench.report.views import ViewSet

    vs = ViewSet(
        scenes={"A": {"cloud": "x" * 1000}, "B": {"cloud": "y" * 1000}},
        views={
            "v1": {"scene": "A", "layers": []},
            "v2": {"scene": "A", "layers": []},
            "v3": {"scene": "B", "layers": [], "scenes": [{"scene": "A"}]},
            "v4": {"scene": "B", "layers": []},
        },
    )
    scene = len(json.dumps({"cloud": "x" * 1000}, separators=(",", ":")))  # 1013 bytes
    view = len(json.dumps({"scene": "A", "layers": []}, separators=(",", ":")))  # 25 bytes
    # v1 costs its scene A plus itself; v2 only itself (A already paid); v3 needs B (A is paid)
    dropped = cap_views_by_size(vs, ["v1", "v2", "v3", "v4"], scene + 2 * view + 10)
    assert dropped == 2 and list(vs.views) == ["v1", "v2"] and list(vs.scenes) == ["A"]
    vs2 = ViewSet(
        scenes={"A": {"cloud": "x" * 1000}, "B": {"cloud": "y" * 1000}},
        views={"v3": {"scene": "B", "layers": [], "scenes": [{"scene": "A"}]}, "v1": {"scene": "A", "layers": []}},
    )
    # order decides: v1 first fits, v3 (two scenes) then does not
    assert cap_views_by_size(vs2, ["v1", "v3"], 2 * scene) == 1 and list(vs2.views) == ["v1"]
