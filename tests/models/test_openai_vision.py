"""``openai-vision:MODEL`` end to end against a scripted OpenAI-compatible server on 127.0.0.1.

The server decodes every image it gets (size, count, yellow mark boxes drawn) and answers with the
mark the test chose from the ground truth (a side channel: the best-overlapping segment of each
question, worked out here by brute force). Through the real client, run engine, prediction files
and scorers, that oracle-via-marks must score exactly what the segmentation allows: on these scenes
(objects apart, floating above the floor) the segments are the objects, so IoU 1 for every question.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openai", reason="needs the judge extra (openai client)")

from vision_data import B3D_OBJECTS, S3D_OBJECTS, VisionServer, centre_size, decode_png, make_b3d, make_s3d  # noqa: E402

from scenebench.errors import ScenebenchError  # noqa: E402
from scenebench.models.base import ModelSample, SceneBatch, SceneView  # noqa: E402
from scenebench.models.sources.base import make_source  # noqa: E402
from scenebench.models.vision.marks import SegmentSettings, over_segment, parse_marks  # noqa: E402
from scenebench.models.vision.render import MARK_FILL, ViewSettings, _splat, render_views  # noqa: E402
from scenebench.runtime.runner import PREDICTION_KIND, run_benchmark  # noqa: E402

CANARY = "sk-vision-CANARY-5e1f0b7d9a3c"
MODEL = "openai-vision:fake-vlm"


@pytest.fixture
def server():
    s = VisionServer()
    yield s
    s.close()


@pytest.fixture(scope="module")
def s3d(tmp_path_factory):
    return make_s3d(tmp_path_factory.mktemp("vision") / "s3d")


@pytest.fixture(scope="module")
def b3d(tmp_path_factory):
    return make_b3d(tmp_path_factory.mktemp("vision") / "b3d")


@pytest.mark.parametrize(
    "reply, n, want",
    [
        ("Mark 3", 5, [3]),
        ("Marks: 3, 7 and 2.", 9, [3, 7, 2]),
        ("It is mark #4.", 5, [4]),
        ("4", 5, [4]),
        ("[2]", 5, [2]),
        ("Mark 9", 5, []),
        ("There are 3 chairs", 5, []),
        ("mark 2 or mark 2", 5, [2]),
        ("no idea", 5, []),
    ],
)
def test_parse_marks(reply, n, want):
    assert parse_marks(reply, n) == want


def test_parse_labelled_marks():
    from scenebench.models.vision.marks import parse_labelled_marks

    assert parse_labelled_marks("chair: Mark 3, sofa: Marks 5 and 7", 9) == [("chair", 3), ("sofa", 5), ("sofa", 7)]
    assert parse_labelled_marks("armchair: Mark 2\nfloor lamp - mark 3\nbed: Mark 99", 4) == [("armchair", 2), ("floor lamp", 3)]
    assert parse_labelled_marks("Mark 3", 5) == [] and parse_labelled_marks("chair: [1, 2, 3, 1, 1, 1]", 5) == []


def test_colour_segments_split_touching_objects_the_cluster_baseline_merges():
    from vision_data import lattice_box, slab

    # A red box and a blue box touching side by side (in neighbouring 0.1 m voxels), and a ceiling-height grey column (a wall piece).
    red, blue = lattice_box((0.02, 0, 0.1), (0.48, 0.5, 0.8)), lattice_box((0.52, 0, 0.1), (0.98, 0.5, 0.6))
    floor, top = slab((-1, -1, 0), (2, 2, 0)), lattice_box((1.8, 1.8, 1.0), (1.9, 1.9, 1.2))
    pts = np.concatenate([floor, red, blue, top])
    cols = np.concatenate(
        [
            np.full((len(floor), 3), 0.5),
            np.tile([0.9, 0.1, 0.1], (len(red), 1)),
            np.tile([0.1, 0.1, 0.9], (len(blue), 1)),
            np.full((len(top), 3), 0.5),
        ]
    )
    n0, n1 = len(floor), len(floor) + len(red)
    seg = over_segment(pts, 2, SegmentSettings(), cols)
    assert [sorted(i.tolist()) for i in seg.indices[:2]] == [list(range(n0, n1)), list(range(n1, n1 + len(blue)))]
    assert np.allclose(seg.boxes[0], [0.25, 0.25, 0.45, 0.46, 0.5, 0.7])
    merged = over_segment(pts, 2, SegmentSettings(method="components"), cols)
    assert len(merged.indices[0]) == len(red) + len(blue)  # the baseline's components join them
    same = over_segment(pts, 2, SegmentSettings(), np.full((len(pts), 3), 0.5))
    assert len(same.indices[0]) == len(red) + len(blue)  # one colour: one component
    assert seg.mask([1, 2]).tolist() == list(range(n0, n1 + len(blue))) and seg.mask([99]).size == 0


def test_z_buffer_nearest_point_wins_by_hand():
    # Two points fall in pixel (u=5, v=3); the one at depth 1 is nearer and must be drawn, whatever the order.
    for order in ([0, 1], [1, 0]):
        u, v, d, ids = (np.array(a)[order] for a in ([5.2, 5.7], [3.1, 3.9], [2.0, 1.0], [10, 11]))
        pid = _splat(u, v, d, ids, 8, 6, 1)
        assert pid[3, 5] == 11 and (pid >= 0).sum() == 1
    # a 3x3 splat covers the 8 neighbours too
    pid = _splat(np.array([4.5]), np.array([2.5]), np.array([1.0]), np.array([7]), 8, 6, 3)
    assert set(zip(*np.nonzero(pid == 7))) == {(r, c) for r in (1, 2, 3) for c in (3, 4, 5)}


def test_views_size_count_and_marks_on_their_segments(s3d):
    scene = make_source("surprise3d", data=str(s3d)).scene("room01")
    pts = np.asarray(scene.points)
    seg = over_segment(pts, 2, SegmentSettings(), scene.colors)
    labels = seg.labels()
    views = render_views(pts, scene.colors, 2, ViewSettings(), labels, len(seg))
    assert [v.name for v in views] == ["corner-1", "corner-2", "corner-3", "corner-4", "top"]
    for v in views:
        assert v.image.shape == (480, 640, 3) and v.image.dtype == np.uint8
        assert v.marks, f"no mark in view {v.name}"
        for n, u, vv in v.marks:  # every mark sits on a pixel of its own segment
            assert labels[v.point_id[vv, u]] == n - 1
        assert np.all(v.image == MARK_FILL, axis=2).sum() > 40 * len(v.marks)
    # the top view's grid maps world metres to pixels: the armchair's centre (0.8, 0.8) is drawn there
    top = views[-1]
    g = top.grid
    u = int((0.8 - g["origin"][0]) * g["pixels_per_metre"])
    v = int((0.8 - g["origin"][1]) * g["pixels_per_metre"] * g["down_sign"])
    ids = np.asarray(scene.get("instance_ids"))
    assert ids[top.point_id[v, u]] == 1
    small = render_views(pts, scene.colors, 2, ViewSettings(width=320, height=200, corner_views=2, top_view=False))
    assert [im.image.shape for im in small] == [(200, 320, 3)] * 2 and not any(im.marks for im in small)


def _best_marks(seg, gt: np.ndarray) -> list[int]:
    """Brute force: the marks whose segment lies mostly inside the GT mask; else the single best-IoU mark."""
    inside = [k + 1 for k, idx in enumerate(seg.indices) if gt[idx].mean() > 0.5]
    if inside:
        return inside
    ious = [np.sum(gt[idx]) / (len(idx) + gt.sum() - np.sum(gt[idx])) for idx in seg.indices]
    return [int(np.argmax(ious)) + 1]


def _holders(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_surprise3d_oracle_via_marks_end_to_end(s3d, server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    source = make_source("surprise3d", data=str(s3d))
    scene = source.scene("room01")
    ids = np.asarray(scene.get("instance_ids"))
    seg = over_segment(np.asarray(scene.points), 2, SegmentSettings(), scene.colors)
    assert len(seg) == 4  # the four objects, nothing else (floor and ceiling are cut off)
    want = {}
    for s in source.samples():
        gt = np.zeros(len(ids), bool)
        gt[source.truth(s).indices] = True
        marks = _best_marks(seg, gt)
        server.answers[s.query] = "Mark " + str(marks[0]) if len(marks) == 1 else "Marks " + ", ".join(map(str, marks))
        want[s.sample_id] = np.flatnonzero(gt).tolist()

    # The model may read the points, their colours and the up axis, nothing of the annotation.
    read: list[str] = []
    orig_get = SceneView.get
    monkeypatch.setattr(SceneView, "get", lambda self, name: (read.append(name), orig_get(self, name))[1])
    cache = tmp_path / "cache"
    opts = {"base_url": server.base_url, "cache_dir": str(cache), "concurrency": 2}
    out = run_benchmark(make_source("surprise3d", data=str(s3d)), MODEL, tmp_path / "run", model_options=opts, progress=False)
    assert set(read) <= {"points", "colors", "up_axis"}, read

    # what the server saw: 4 questions, 5 views of 640x480 each, yellow marks drawn in every view
    assert len(server.checked) == 4
    for c in server.checked:
        assert c["sizes"] == [(640, 480)] * 5
        assert all(y > 100 for y in c["yellow"]), c["yellow"]
    # no ground-truth label reaches a request (the questions never name their targets)
    for text in server.texts:
        for _, label, *_ in S3D_OBJECTS:
            assert label not in text.lower()
    assert all({k.lower(): v for k, v in h.items()}.get("authorization") == f"Bearer {CANARY}" for h in server.headers)

    # mark -> mask: every prediction is exactly its target's points; the scorer agrees (upper bound 100)
    assert {sid: out.predictions[sid].indices for sid in want} == want
    m = out.results.metrics["overall"]
    assert m["mIoU"] == pytest.approx(100.0) and m["A50"] == pytest.approx(100.0) and out.results.counts.n_scored == 4
    with out.run.store() as store:
        extras = [body["prediction"]["extra"]["vision"] for _, body in store.iter(PREDICTION_KIND)]
    assert all(len(e["thumbnails"]) == 5 and all(Path(p).is_file() for p in e["thumbnails"]) for e in extras)
    assert sorted(len(e["marks"]) for e in extras) == [1, 1, 1, 2]

    # the API key is nowhere on disk: run folder, image cache
    assert not _holders(tmp_path, CANARY.encode())

    # a rerun asks nothing; a new run reads the images back from the cache instead of rendering again
    again = run_benchmark(make_source("surprise3d", data=str(s3d)), MODEL, tmp_path / "run", model_options=opts, progress=False)
    assert again.predicted_now == 0 and len(server.checked) == 4
    import scenebench.models.vision.scene_images as si

    monkeypatch.setattr(si, "render_views", lambda *a, **k: pytest.fail("rendered again despite the cache"))
    fresh = run_benchmark(make_source("surprise3d", data=str(s3d)), MODEL, tmp_path / "run2", model_options=opts, progress=False)
    assert fresh.predicted_now == 4 and fresh.results.metrics["overall"]["mIoU"] == pytest.approx(100.0)
    # other view settings are another cache entry
    monkeypatch.undo()
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    other = run_benchmark(
        make_source("surprise3d", data=str(s3d)), MODEL, tmp_path / "run3", model_options={**opts, "corner_views": 2}, progress=False
    )
    assert other.predicted_now == 4 and server.checked[-1]["sizes"] == [(640, 480)] * 3
    assert len([p for p in cache.rglob("meta.json")]) == 2

    # the report's sample panel gets the thumbnails of the views, embedded once per image
    from scenebench.report.html import build_payload
    from scenebench.report.runs import load_run

    payload = build_payload([load_run(tmp_path / "run")], views=False)
    samples = payload["runs"][0]["samples"]
    assert all(len(s["thumbs"]) == 5 for s in samples) and len(payload["thumbs"]) == 5
    thumb = decode_png(__import__("base64").b64decode(payload["thumbs"][samples[0]["thumbs"][0]].split(",", 1)[1]))
    assert thumb.shape == (240, 320, 3)


def _box_iou(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    lo = np.maximum(a[:3] - a[3:] / 2, b[:3] - b[3:] / 2)
    hi = np.minimum(a[:3] + a[3:] / 2, b[:3] + b[3:] / 2)
    inter = np.prod(np.clip(hi - lo, 0, None))
    return inter / (np.prod(a[3:]) + np.prod(b[3:]) - inter)


def test_3dbench_grounding_choice_and_navigation_end_to_end(b3d, server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    source = make_source("3dbench", data=str(b3d))
    house = source.scene("pcl/house0.npy")
    seg = over_segment(np.asarray(house.points), 1, SegmentSettings(), house.colors)
    for s in source.samples():
        if s.answer_kind == "box":
            gt = source.truth(s).box
            k = int(np.argmax([_box_iou(b, gt) for b in seg.boxes])) + 1
            server.answers[s.query] = f"The object is Mark {k}."
    marks = {label: int(np.argmax([_box_iou(b, centre_size(lo, hi)) for b in seg.boxes])) + 1 for label, lo, hi in B3D_OBJECTS}
    server.answers["Detect every armchair and floor lamp."] = f"armchair: Mark {marks['armchair']}\nfloor lamp: Mark {marks['floorlamp']}"
    server.answers["How many lamps are there?"] = "The answer is (A)."
    server.answers["Go to the lamp."] = "The path is [2.0, 2.0], [1.0, 2.8]."
    out = run_benchmark(
        source, MODEL, tmp_path / "run", model_options={"base_url": server.base_url, "cache_dir": str(tmp_path / "c")}, progress=False
    )
    by_task = out.results.metrics["by_task"]
    assert by_task["visual_grounding"]["mean_iou"] == pytest.approx(100.0, abs=1e-3)
    assert by_task["visual_grounding"]["acc_iou50"] == pytest.approx(100.0)
    assert by_task["counting"]["accuracy"] == pytest.approx(100.0)
    # label: Mark N -> labelled segment boxes, matched one to one with the GT objects
    assert by_task["detection"]["precision"] == pytest.approx(100.0) and by_task["detection"]["recall"] == pytest.approx(100.0)
    assert [b.label for b in out.predictions["detection:det-0"].boxes] == ["armchair", "floor lamp"]
    assert by_task["navigation"]["success"] == pytest.approx(100.0) and by_task["navigation"]["mean_path_loss"] == pytest.approx(0.0)
    # mark -> box: the grounding predictions are the segments' boxes, i.e. the objects' boxes
    for (label, lo, hi), qid in zip(B3D_OBJECTS, ["visual_grounding:vg-0", "visual_grounding:vg-1", "visual_grounding:vg-2"]):
        assert np.allclose(out.predictions[qid].box, centre_size(lo, hi), atol=1e-6), label
    assert out.predictions["counting:cnt-0"].kind == "text" and out.predictions["navigation:nav-0"].kind == "text"
    # views and the grid: 5 images a request, the top view's grid explained for navigation
    assert all(c["sizes"] == [(640, 480)] * 5 for c in server.checked)
    nav_text = next(t for t in server.texts if "Go to the lamp." in t)
    assert "metric grid" in nav_text and "[x, z]" in nav_text and "Start position [x, z]: [2.00, 2.00]" in nav_text
    # no ground-truth label beyond what the question itself says
    for text in server.texts:
        q = [ln for ln in text.splitlines() if ln.startswith("Question: ")][0].lower()
        for label, *_ in B3D_OBJECTS:
            if label not in q and label.replace("floorlamp", "floor lamp") not in q:
                assert label not in text.lower(), (label, text)
    assert not _holders(tmp_path, CANARY.encode())


def test_rio_and_bad_settings_are_clear_errors(tmp_path):
    from scenebench.models.builtin.openai_vision import OpenAIVisionModel
    from scenebench.models.registry import make_model

    m = OpenAIVisionModel("x", base_url="http://127.0.0.1:9/v1", cache_dir=str(tmp_path))
    view = SceneView("scan", {"points": lambda: np.zeros((3, 3)), "up_axis": lambda: 2})
    with pytest.raises(ScenebenchError, match="does not support pose samples"):
        m.predict(SceneBatch(view, [ModelSample("r", "scan", "relocalization", "pose")]))
    with pytest.raises(ScenebenchError, match="--base-url"):
        make_model("openai-vision:x")
    with pytest.raises(ScenebenchError, match="model id"):
        make_model("openai-vision:", base_url="http://x/v1")
    with pytest.raises(ScenebenchError, match="corner_views"):
        OpenAIVisionModel("x", base_url="http://x/v1", corner_views=7)
    m = make_model("openai-vision:my-vlm", base_url="http://127.0.0.1:9/v1", width=320, height=240)
    assert m.name == "openai-vision:my-vlm" and m.settings()["views"]["width"] == 320
    assert "base_url" not in json.dumps(m.settings()) and "cache_dir" not in m.settings()


def test_cli_run_surprise3d_and_3dbench_with_model_args(s3d, b3d, server, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from scenebench.cli import build_app

    app = build_app()

    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    server.answers["Where are the novels kept?"] = "Mark 1"  # the bookshelf: the largest segment
    common = [
        "--model",
        MODEL,
        "--base-url",
        server.base_url,
        "--model-arg",
        f"cache_dir={tmp_path / 'c'}",
        "--model-arg",
        "corner_views=1",
        "--model-arg",
        "width=320",
        "--model-arg",
        "height=240",
        "--no-progress",
    ]
    res = CliRunner().invoke(app, ["run", "surprise3d", "--data", str(s3d), "--out", str(tmp_path / "s"), *common], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "4 new, 0 reused" in res.output and "mIoU" in res.output
    assert all(c["sizes"] == [(320, 240)] * 2 for c in server.checked)
    res_json = json.loads((tmp_path / "s" / "results.json").read_text())
    assert res_json["counts"]["n_scored"] == 1 and res_json["counts"]["n_missing"] == 3  # "I cannot tell." is no mask
    res = CliRunner().invoke(
        app,
        ["run", "3dbench", "--data", str(b3d), "--out", str(tmp_path / "b"), "--tasks", "visual_grounding", *common],
        env={"COLUMNS": "200"},
    )
    assert res.exit_code == 0, res.output
    assert "3 new, 0 reused" in res.output and len(server.checked) == 7
    assert CANARY not in res.output and not _holders(tmp_path, CANARY.encode())


def test_transient_server_errors_are_retried_and_a_dead_server_stops_the_run(s3d, tmp_path):
    import openai

    # 500, then a dropped connection, then 429: the client retries each and every question gets its answer.
    srv = VisionServer(script=["500", "reset", "429"])
    try:
        srv.answers["Where are the novels kept?"] = "Mark 1"
        out = run_benchmark(
            make_source("surprise3d", data=str(s3d)),
            MODEL,
            tmp_path / "run",
            model_options={"base_url": srv.base_url, "cache_dir": str(tmp_path / "c"), "concurrency": 1},
            progress=False,
        )
        assert srv.requests == 4 + 3 and out.results.counts.n_scored == 1
    finally:
        srv.close()
    # a server that stays down: the run stops with one line naming the fault (issue 29 item 9), nothing is stored for that scene
    from scenebench.models.builtin.openai_server import ModelUnavailable

    srv = VisionServer(default="503")
    try:
        with pytest.raises(ModelUnavailable, match=r"unavailable: HTTP 503 .*after 2 attempts; rerun the same command to resume") as ei:
            run_benchmark(
                make_source("surprise3d", data=str(s3d)),
                MODEL,
                tmp_path / "down",
                model_options={"base_url": srv.base_url, "cache_dir": str(tmp_path / "c"), "max_retries": 1, "timeout": 5},
                progress=False,
            )
        assert isinstance(ei.value.__cause__, openai.InternalServerError)
        assert srv.requests >= 2
        from scenebench.runtime.rundir import RunDir

        with RunDir(tmp_path / "down").store() as store:
            assert not store.ids(PREDICTION_KIND)
    finally:
        srv.close()


def test_image_cache_keys_reuse_and_damaged_entries(s3d, tmp_path):
    from scenebench.models.vision.scene_images import scene_images

    scene = make_source("surprise3d", data=str(s3d)).scene("room01")
    pts, cols = np.asarray(scene.points), scene.colors
    a = scene_images("room01", pts, cols, 2, ViewSettings(), SegmentSettings(), tmp_path)
    assert [p.name for p in a.image_paths()] == [f"view-{k}.png" for k in range(1, 6)] and len(a.segmentation) == 4
    stamp = [p.stat().st_mtime_ns for p in a.image_paths()]
    b = scene_images("room01", pts, cols, 2, ViewSettings(), SegmentSettings(), tmp_path)
    assert b.folder == a.folder and [p.stat().st_mtime_ns for p in b.image_paths()] == stamp  # read back, not rendered
    assert [i.tolist() for i in b.segmentation.indices] == [i.tolist() for i in a.segmentation.indices]
    # other content (a moved point) or other settings: another entry
    moved = pts.copy()
    moved[0, 0] += 0.01
    assert scene_images("room01", moved, cols, 2, ViewSettings(), SegmentSettings(), tmp_path).folder != a.folder
    assert scene_images("room01", pts, cols, 2, ViewSettings(splat=5), SegmentSettings(), tmp_path).folder != a.folder
    # a damaged entry (a view deleted by hand) is rendered again in place
    a.image_paths()[2].unlink()
    c = scene_images("room01", pts, cols, 2, ViewSettings(), SegmentSettings(), tmp_path)
    assert c.folder == a.folder and all(p.is_file() for p in c.image_paths())
    assert not [p for p in Path(tmp_path).rglob("*.tmp")]  # no temporary folders left behind
