import numpy as np
import pytest

from scenebench.models.base import ModelSample, SceneBatch, SceneObject, SceneView
from scenebench.models.builtin.chance import RandomModel, yaw_pose
from scenebench.models.builtin.heuristics import (
    ClusterModel,
    NearestObjectModel,
    cluster_cloud,
    direction_words,
    mention_order,
    option_with_words,
    straight_path,
)
from scenebench.models.builtin.prior import PriorModel, mentions
from scenebench.models.predictions import BoxesPrediction, LabelledBox, TextPrediction, option_prediction
from scenebench.models.sources.base import make_source
from scenebench.runtime.runner import run_benchmark


def _scene(objects, points=None, **extra):
    pts = np.zeros((1, 3)) if points is None else points
    return SceneView(
        "s", {"points": lambda: pts, "objects": lambda: objects, "up_axis": lambda: 1, **{k: (lambda v=v: v) for k, v in extra.items()}}
    )


def test_mentions_whole_words_plurals_and_joined_labels():
    assert mentions("How many dining tables?", "diningtable")
    assert mentions("the chairs", "chair") and mentions("two boxes", "box")
    assert not mentions("the armchair", "chair")
    assert mention_order("Where is the sofa relative to the coffee table?", {"table", "coffeetable", "sofa"}) == [
        "sofa",
        "coffeetable",
        "table",
    ]


def test_prior_never_reads_points_and_learns_the_most_frequent_answer():
    class Boom(SceneView):
        @property
        def points(self):
            raise AssertionError("the blind prior read the point cloud")

    opts = ("1", "2", "3")
    train = [(ModelSample(f"t{i}", "h", "counting", "option", "how many?", opts), option_prediction(f"t{i}", opts, 1)) for i in range(3)]
    train.append((ModelSample("t9", "h", "counting", "option", "how many?", opts), option_prediction("t9", opts, 2)))
    train.append((ModelSample("c", "h", "scene_caption", "text", "describe"), TextPrediction("c", "a kitchen")))
    train.append(
        (
            ModelSample("d", "h", "detection", "boxes", "find chairs"),
            BoxesPrediction("d", boxes=[LabelledBox("chair", [0, 0, 0, 1, 1, 1]), LabelledBox("chair", [2, 0, 0, 1, 1, 1])]),
        )
    )
    m = PriorModel()
    m.fit(train)
    samples = [
        ModelSample("q1", "s", "counting", "option", "how many sofas?", ("3", "2", "1")),  # "2" is the frequent text, at position 1
        ModelSample("q2", "s", "scene_caption", "text", "describe"),
        ModelSample("q3", "s", "detection", "boxes", "Detect all chairs."),
        ModelSample("q4", "s", "relocalization", "pose", "find it"),
    ]
    out = m.predict(SceneBatch(Boom("s", {}), samples))
    assert out[0].option == "2" and out[1].text == "a kitchen"
    assert [b.box for b in out[2].boxes] == [[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]]
    assert out[3].pose == np.eye(4).tolist()
    assert PriorModel().choose_option("counting", ("a", "b")) == 0  # no train split: the first option


def test_labels_baseline_guesses_the_segmentation_target_from_words_and_the_blind_prior_cannot():
    from scenebench.models.builtin.labels import LabelsModel

    train = [
        (ModelSample(f"t{i}", "h", "cs", "mask", q), TextPrediction(f"t{i}", n))
        for i, (q, n) in enumerate(
            [("where to sit", "chair"), ("sit down here", "chair"), ("where to sleep", "bed"), ("sit and watch tv", "sofa")]
        )
    ]
    m = LabelsModel()
    m.fit(train)
    assert m.guess_label("I want to sit") == "chair" and m.guess_label("time to sleep") == "bed"
    objs = [
        SceneObject(1, "bed", [0] * 6, np.array([0, 1])),
        SceneObject(2, "chair", [0] * 6, np.array([5, 6, 7])),
        SceneObject(3, "chair", [0] * 6, np.array([8])),
    ]
    pred = m.predict(SceneBatch(_scene(objs), [ModelSample("q", "s", "cs", "mask", "somewhere to sit")]))[0]
    assert pred.indices == [5, 6, 7, 8]  # every instance of the guessed label: labels alone cannot tell chairs apart
    assert LabelsModel.ground_truth_perception is True
    # the blind prior never points at anything, whatever the scene holds
    p = PriorModel()
    p.fit(train)
    assert p.predict(SceneBatch(_scene(objs), [ModelSample("q", "s", "cs", "mask", "somewhere to sit")]))[0].indices == []
    assert not getattr(PriorModel, "ground_truth_perception", False)


def test_runner_hides_ground_truth_objects_from_models_that_do_not_ask():
    from scenebench.models.execution import perception_view

    objs = [SceneObject(1, "bed", [0] * 6, np.array([0, 1]))]
    scene = _scene(objs)
    assert perception_view(scene, PriorModel()).objects == [] and not perception_view(scene, PriorModel()).has("objects")
    from scenebench.models.builtin.labels import LabelsModel

    assert perception_view(scene, LabelsModel()).objects == objs
    assert perception_view(scene, PriorModel()).points is scene.points or np.array_equal(
        perception_view(scene, PriorModel()).points, scene.points
    )


@pytest.mark.parametrize(
    "a, b, words",
    [
        ([2, 0, 0], [0, 0, 0], {"right"}),
        ([-2, 0, 0.2], [0, 0, 0], {"left"}),
        ([0, 0, 2], [0, 0, 0], {"front"}),
        ([0, 0, -2], [0, 0, 0], {"behind"}),
        ([1, 0, -1], [0, 0, 0], {"right", "behind"}),
        ([0, 2, 0], [0, 0, 0], {"above"}),
        ([0.4, 0, 0.4], [0, 0, 0], None),
    ],
)
def test_direction_rule_matches_the_synthetic_generator(a, b, words):
    from scenebench.synth.relations import relation

    assert direction_words(np.array(a, float), np.array(b, float)) == words
    rel = relation(np.array(a, float), np.array(b, float))
    assert (rel is None and words is None) or set(rel.split("-")) == words


def test_relation_option_needs_exactly_the_words():
    opts = (
        "The sofa is above the bed.",
        "The sofa is in front of and to the left of the bed.",
        "The sofa is behind the bed.",
        "The sofa is to the left of the bed.",
    )
    assert (
        option_with_words(opts, {"left"}) == 3
        and option_with_words(opts, {"front", "left"}) == 1
        and option_with_words(opts, {"right"}) is None
    )


def test_nearest_grounds_counts_and_relates():
    objs = [
        SceneObject(1, "chair", [0, 0.5, 0, 0.5, 1, 0.5]),
        SceneObject(2, "chair", [5, 0.5, 0, 0.5, 1, 0.5]),
        SceneObject(3, "window", [5, 1.5, 1, 1, 1, 0.1]),
        SceneObject(4, "sofa", [2, 0.4, 3, 2, 0.8, 1]),
    ]
    samples = [
        ModelSample("g", "s", "visual_grounding", "box", "Find the chair next to the window."),
        ModelSample("c", "s", "counting", "option", "How many chairs?", ("1", "2", "3")),
        ModelSample(
            "r",
            "s",
            "position_relation",
            "option",
            "Where is the sofa relative to the window?",
            (
                "The sofa is to the left of the window.",
                "The sofa is in front of and to the left of the window.",
                "The sofa is behind the window.",
                "The sofa is above the window.",
            ),
        ),
        ModelSample("n", "s", "navigation", "waypoints", "Go to the sofa.", inputs={"start": [2.0, 0.0], "target": "sofa"}),
        ModelSample("d", "s", "detection", "boxes", "Detect the chairs."),
    ]
    out = NearestObjectModel().predict(SceneBatch(_scene(objs), samples))
    assert out[0].box == [5, 0.5, 0, 0.5, 1, 0.5]
    assert out[1].option == "2"
    assert out[2].index == 1  # dx = -3 (left), dz = +2 (front)
    assert out[3].points[0] == [2.0, 0.0] and out[3].points[-1] == [2.0, 3.0]
    assert [b.box[0] for b in out[4].boxes] == [0, 5]


def test_straight_path_spacing():
    p = straight_path(np.array([0.0, 0.0]), np.array([3.0, 4.0]), step=1.5)
    assert p[0].tolist() == [0, 0] and p[-1].tolist() == [3, 4] and len(p) == 5
    assert np.allclose(np.diff(np.linalg.norm(p, axis=1)), 1.25)


def _room(rng):
    """A 6 x 2.5 x 6 m room (y up): floor, ceiling, four walls, two 0.5 m cubes and a 1 m cube."""
    pts = []
    g = np.linspace(0, 6, 61)
    xx, zz = np.meshgrid(g, g)
    pts += [np.c_[xx.ravel(), np.zeros(xx.size), zz.ravel()], np.c_[xx.ravel(), np.full(xx.size, 2.5), zz.ravel()]]
    h = np.linspace(0, 2.5, 26)
    ww, hh = np.meshgrid(g, h)
    for wall in (
        np.c_[ww.ravel(), hh.ravel(), np.zeros(ww.size)],
        np.c_[ww.ravel(), hh.ravel(), np.full(ww.size, 6.0)],
        np.c_[np.zeros(ww.size), hh.ravel(), ww.ravel()],
        np.c_[np.full(ww.size, 6.0), hh.ravel(), ww.ravel()],
    ):
        pts.append(wall)
    boxes = [([1.0, 0.25, 1.0], 0.5), ([3.0, 0.25, 3.0], 0.5), ([4.5, 0.5, 1.5], 1.0)]
    for c, s in boxes:
        pts.append(np.asarray(c) + rng.uniform(-s / 2, s / 2, size=(800, 3)))
    return np.concatenate(pts), boxes


def test_cluster_cloud_finds_objects_between_walls():
    pts, boxes = _room(np.random.default_rng(0))
    found = cluster_cloud(pts, up=1, voxel=0.1)
    assert len(found) == 3
    got = np.array(sorted(b[:3] for _, b in found))
    want = np.array(sorted(c for c, _ in boxes))
    # x and z exact to a voxel; y is raised by the floor band cut from the bottom of each object.
    assert np.abs(got[:, [0, 2]] - want[:, [0, 2]]).max() < 0.1 and np.abs(got[:, 1] - want[:, 1]).max() < 0.1


def test_cluster_model_counts_by_size_prototype():
    pts, _ = _room(np.random.default_rng(1))
    train = [
        (
            ModelSample("t", "h", "detection", "boxes", "find"),
            BoxesPrediction("t", boxes=[LabelledBox("stool", [0, 0, 0, 0.5, 0.5, 0.5]), LabelledBox("crate", [0, 0, 0, 1, 1, 1])]),
        )
    ]
    m = ClusterModel()
    m.fit(train)
    s = [
        ModelSample("c", "s", "counting", "option", "How many stools?", ("1", "2", "3")),
        ModelSample("d", "s", "detection", "boxes", "Detect the crates."),
    ]
    out = m.predict(SceneBatch(_scene([], pts), s))
    assert out[0].option == "2"
    assert [b.label for b in out[1].boxes] == ["crate"] and out[1].boxes[0].box[0] == pytest.approx(4.5, abs=0.1)


def test_yaw_pose_moves_centre_onto_target():
    m = np.asarray(yaw_pose(0.7, np.array([1.0, 2.0, 0.5]), np.array([4.0, -1.0, 0.5])))
    assert m @ np.array([1.0, 2.0, 0.5, 1.0]) == pytest.approx([4.0, -1.0, 0.5, 1.0])
    assert np.linalg.det(m[:3, :3]) == pytest.approx(1.0) and m[2, 2] == 1.0


def test_random_answers_depend_only_on_seed_and_sample(b3d_dir, tmp_path):
    src = make_source("3dbench", data=str(b3d_dir))
    a = run_benchmark(src, "random", tmp_path / "a", seed=5, progress=False, score=False).predictions
    m = RandomModel(seed=5)
    m.fit(src.train())
    one = src.samples()[3]
    again = m.predict(SceneBatch(src.scene(one.scene_id), [one]))[0]
    assert again == a[one.sample_id]


def test_heuristics_beat_chance_and_stay_below_the_oracle_on_3dbench(b3d_dir, tmp_path):
    src = make_source("3dbench", data=str(b3d_dir))
    score = {
        m: run_benchmark(src, m, tmp_path / m.replace(":", "-"), progress=False).results.overall()["mean_primary"]
        for m in ("oracle", "random", "baseline:nearest")
    }
    assert score["oracle"] == 100.0
    assert score["random"] < score["baseline:nearest"] <= 100.0


def test_nearest_segments_an_unnamed_target_next_to_the_named_anchor():
    train = [
        (ModelSample(f"t{i}", "h", "rel_pos", "mask", q), TextPrediction(f"t{i}", n))
        for i, (q, n) in enumerate(
            [
                ("What is resting on top of the table?", "cup"),
                ("Which object is on top of the desk?", "cup"),
                ("What is the cup standing on?", "table"),
            ]
        )
    ]
    objs = [
        SceneObject(1, "table", [0, 0, 0.4, 1, 1, 0.8], np.array([0, 1])),
        SceneObject(2, "cup", [5, 5, 0.8, 0.1, 0.1, 0.1], np.array([2])),
        SceneObject(3, "cup", [0.1, 0, 0.85, 0.1, 0.1, 0.1], np.array([3, 4])),
    ]
    m = NearestObjectModel()
    m.fit(train)
    out = m.predict(SceneBatch(_scene(objs), [ModelSample("q", "s", "rel_pos", "mask", "Which object is resting on top of the table?")]))[0]
    assert out.indices == [3, 4]  # a cup, not the named table; of the two cups the one at the table
    # the prior alone picks a category without looking where it is
    assert PriorModel().guess_label("resting on top of the table", among={"table"}) is None
    p = PriorModel()
    p.fit(train)
    assert p.guess_label("resting on top of the table", among={"table"}) == "table"
    assert p.guess_label("resting on top of the table", among={"cup", "table"}) == "cup"


def _grid_blob(lo, size, step=0.05):
    """Points on a regular grid filling the cube [lo, lo + size] (deterministic, dense for a 0.1 m voxel)."""
    g = np.arange(0.0, size + 1e-9, step)
    return np.asarray(lo, float) + np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)


def test_cluster_segments_one_component_of_the_guessed_label_not_every_instance():
    from scenebench.models.builtin.heuristics import split_components
    from scenebench.models.builtin.labels import LabelsModel

    big = _grid_blob([0, 0, 0], 0.3)  # 7^3 = 343 points
    small = _grid_blob([3, 0, 0], 0.2)  # 5^3 = 125 points, 2.7 m away: another component
    table = _grid_blob([3.5, 0, 0], 0.2)
    pts = np.concatenate([big, small, table])
    i_big, i_small = np.arange(343), 343 + np.arange(125)
    i_table = 468 + np.arange(125)
    objs = [
        SceneObject(1, "chair", [0.15, 0.15, 0.15, 0.3, 0.3, 0.3], i_big),
        SceneObject(2, "chair", [3.1, 0.1, 0.1, 0.2, 0.2, 0.2], i_small),
        SceneObject(3, "table", [3.6, 0.1, 0.1, 0.2, 0.2, 0.2], i_table),
    ]
    comps = split_components(pts, np.concatenate([i_big, i_small]), voxel=0.1)
    assert [len(c) for c in comps] == [343, 125] and comps[0].tolist() == i_big.tolist()
    train = [
        (ModelSample(f"t{i}", "h", "cs", "mask", q), TextPrediction(f"t{i}", "chair")) for i, q in enumerate(["where to sit", "sit down"])
    ]
    m, lab = ClusterModel(), LabelsModel()
    m.fit(train)
    lab.fit(train)
    q_anchor = ModelSample("a", "s", "rel_pos", "mask", "somewhere to sit near the table")
    q_plain = ModelSample("b", "s", "cs", "mask", "somewhere to sit")
    out = m.predict(SceneBatch(_scene(objs, pts), [q_anchor, q_plain]))
    # the question names an anchor (table): the chair component nearest to it, though it is the smaller one
    assert out[0].indices == i_small.tolist()
    # no anchor named: the largest component
    assert out[1].indices == i_big.tolist()
    # baseline:labels answers the union of both chairs for either question
    both = sorted(i_big.tolist() + i_small.tolist())
    assert [sorted(p.indices) for p in lab.predict(SceneBatch(_scene(objs, pts), [q_anchor, q_plain]))] == [both, both]


def _cube_surface(lo, size, step=0.02):
    """Points on the five visible faces (no bottom) of an axis-aligned cube standing on z = lo[2]."""
    g = np.arange(0.0, size + 1e-9, step)
    u, v = (a.ravel() for a in np.meshgrid(g, g, indexing="ij"))
    z0, s = np.zeros_like(u), np.full_like(u, size)
    faces = [np.c_[u, v, s], np.c_[z0, u, v], np.c_[s, u, v], np.c_[u, z0, v], np.c_[u, s, v]]
    return np.asarray(lo, float) + np.unique(np.concatenate(faces).round(6), axis=0)


def test_nearest_recovers_a_translation_that_identity_misses():
    g = np.arange(-1.0, 2.0 + 1e-9, 0.05)
    fx, fy = (a.ravel() for a in np.meshgrid(g, g, indexing="ij"))
    floor = np.c_[fx, fy, np.zeros_like(fx)]
    cube = _cube_surface([0.0, 0.0, 0.0], 0.4)
    static = _cube_surface([1.2, 1.2, 0.0], 0.3)  # an unmoved neighbour, 0.8 m away
    shift = np.array([0.15, 0.0, 0.0])
    rescan = np.concatenate([floor, cube + shift, static])
    ref = np.concatenate([floor, cube, static])
    ids = np.concatenate([np.full(len(floor), 1), np.full(len(cube), 7), np.full(len(static), 8)])
    scene = _scene([], rescan, up_axis=2, reference_points=ref, reference_instance_ids=ids)
    s = [
        ModelSample("r/7", "r", "relocalization", "pose", "find the box", inputs={"instance": 7}),
        ModelSample("r/8", "r", "relocalization", "pose", "find it", inputs={"instance": 8}),
    ]
    moved, still = NearestObjectModel().predict(SceneBatch(scene, s))
    t = np.asarray(moved.pose)[:3, 3]
    assert np.asarray(moved.pose)[:3, :3].tolist() == np.eye(3).tolist()
    assert np.abs(t - shift).max() < 0.02  # within 2 cm of the 15 cm shift, height kept
    assert t[2] == 0.0
    assert np.abs(np.asarray(still.pose)[:3, 3]).max() < 0.02  # the unmoved cube stays
    identity = PriorModel().predict(SceneBatch(scene, s[:1]))[0]
    assert np.linalg.norm(np.asarray(identity.pose)[:3, 3] - shift) == pytest.approx(0.15)
