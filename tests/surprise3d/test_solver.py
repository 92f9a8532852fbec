"""The sighted SURPRISE3D solver of the audit: named objects, then one geometric rule per question
type on a hand-built scene (z up) whose answers are worked out by hand."""

from __future__ import annotations

import numpy as np

from scenebench.benchmarks.surprise3d.solver import SceneBoxes, named_labels, solve

# id: (label, box lo, box hi)
SCENE = {
    1: ("sidetable", (0.0, 0.0, 0.0), (0.6, 0.6, 0.7)),
    2: ("mug", (0.2, 0.2, 0.7), (0.3, 0.3, 0.8)),
    3: ("sidetable", (4.0, 0.0, 0.0), (4.6, 0.6, 0.7)),
    4: ("chair", (1.0, 0.0, 0.0), (1.5, 0.5, 0.9)),  # 0.4 m from table 1
    5: ("chair", (3.0, 2.0, 0.0), (3.5, 2.5, 0.9)),
    6: ("sofa", (0.0, 3.0, 0.0), (2.0, 4.0, 0.8)),
    7: ("wall", (-1.0, -1.0, 0.0), (-0.9, 5.0, 2.5)),
}


def _scene() -> SceneBoxes:
    pts, inst = [], []
    for i, (_label, lo, hi) in SCENE.items():
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])], float)
        pts.append(corners)
        inst += [i] * len(corners)
    return SceneBoxes.build(np.concatenate(pts), np.array(inst), {i: v[0] for i, v in SCENE.items()})


def test_named_labels_join_words_and_skip_structure():
    s = _scene()
    assert s.labels.count("wall") == 0 and sorted(s.ids.tolist()) == [1, 2, 3, 4, 5, 6]
    assert named_labels("What is next to the blue side table in the bedroom?", set(s.labels)) == ["sidetable"]
    assert named_labels("Standing at the sofa, facing the chair", set(s.labels)) == ["sofa", "chair"]


def test_rules_per_question_type():
    s, rng = _scene(), np.random.default_rng(0)
    # rel_pos: on the named object, what it stands on, the nearest to it
    assert solve("What has been placed on the side table?", "rel_pos", None, s, rng) == 2
    assert solve("What is the mug standing on?", "rel_pos", None, s, rng) == 1
    # sofa -> chair 5: 1.12 m (1.0 and 0.5 m along x and y), -> table 1: 2.4 m, -> chair 4: 2.5 m
    assert solve("Which object is closest to the sofa?", "rel_pos", None, s, rng) == 5
    # cs: the guessed category's instance next to the named object
    assert solve("Which object next to the sofa can be used to sit down?", "cs", "chair", s, rng) == 5
    assert solve("Which object on the side table can be used to have something to drink?", "cs", "mug", s, rng) == 2
    # abs: surface gap closest to the stated distance (mug -> table 3: 3.7 m, -> chair 5: 3.19 m, -> sofa: 2.7 m)
    assert solve("What lies about 3.7 m from the mug (surface to surface)?", "abs", None, s, rng) == 3
    assert solve("What lies about 3.2 m from the mug (surface to surface)?", "abs", None, s, rng) == 5
    # first_view: at the sofa (centre 1, 3.5) facing chair 5 (3.25, 2.25): table 1 lies to the right
    assert (
        solve("Standing at the sofa and facing the chair, which object is the closest one on your right?", "first_view", None, s, rng) == 1
    )
    # camera_view: at (0.25, -2, 0.75) looking along +y, level: of the scene's points (box corners) only
    # the mug's lie within 3 degrees of the ray (its nearest corner 1.8 degrees off, 2.2 m away)
    text = "A camera stands at x = 0.25 m, y = -2 m, 0.75 m above the floor, heading 90 degrees counter-clockwise from the +x axis and tilted 0 degrees down."
    assert solve(text, "camera_view", None, s, rng) == 2
    assert solve("Which object is closest to the piano?", "rel_pos", None, s, rng) is None


def test_aliases_and_use_groups():
    """Generator 14 words cs / hi questions by a use several categories serve and names objects by
    their aliases: "the couch" is the sofa, and "sit down" makes every chair and the sofa a
    candidate (the guessed category, here a wrong one, is not needed)."""
    s, rng = _scene(), np.random.default_rng(0)
    assert named_labels("Which object is closest to the couch?", set(s.labels)) == ["sofa"]
    # sofa -> chair 5: 1.12 m, -> chair 4: 2.5 m; the sofa itself (gap 0) is the anchor, never the answer
    assert solve("Which object next to the couch can be used to sit down?", "cs", "mug", s, rng) == 5
    # chair 4 is 0.4 m from side table 1; the mug on it is not a seat
    assert solve("I want to sit down. Which object beside the end table should I go to?", "hi", None, s, rng) == 4
