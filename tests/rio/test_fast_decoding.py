"""RIO poses: the fast path (msgspec, poses built in batches) against the plain per-line path.

Same poses, lines and metadata for accepted files; the same error (message, line, field) for refused ones."""

import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import scenebench.benchmarks.rio.predictions as P
from scenebench.errors import InputError
from scenebench.geometry.poses import compose

KNOWN = {"scanA": {1, 2, 3, 4}, "scanB": {1, 2}}
R = Rotation.from_euler("zyx", [30, 10, -5], degrees=True).as_matrix()
T = compose(R, [0.5, -0.25, 1.0])
Q = Rotation.from_matrix(R).as_quat()
WXYZ = [Q[3], *Q[:3]]


def _outcome(path, **kw):
    try:
        got = P.read_pose_predictions(path, KNOWN, **kw)
    except InputError as exc:
        return ("error", str(exc))
    return ("ok", {k: v.tolist() for k, v in got.poses.items()}, list(got.poses), got.lines, got.meta, got.ignored_other_split)


GOOD = [
    {"rescan": "scanA", "instance": 1, "pose": T.tolist()},
    {"rescan": "scanA", "instance": 2, "R": R.tolist(), "t": [1, 2, 3]},
    {"rescan": "scanA", "instance": 3, "quaternion": WXYZ, "t": [0.1, 0.2, 0.3]},
    {"rescan": "scanB", "instance": 1, "pose": np.round(T, 6).tolist()},
]
VARIANTS = [
    [],
    [{"rescan": "scanA", "instance": 4, "pose": T.tolist(), "score": 0.5}],  # metadata: plain line amid fast ones
    [{"rescan": "scanA", "instance": 4, "pose": T.tolist(), "t": [9, 9, 9]}],  # t beside a pose is ignored
    [{"rescan": "scanA", "instance": 4, "quaternion": [1, 0, 0, 0.1], "t": [0, 0, 0]}],
    [{"rescan": "scanA", "instance": 4, "pose": [[1, 0, 0, 0]] * 3}],
    [{"rescan": "scanA", "instance": 4, "pose": [[1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}],
    [{"rescan": "scanA", "instance": 4, "pose": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1]]}],
    [{"rescan": "scanA", "instance": 4, "pose": compose(R * 1.01, [0, 0, 0]).tolist()}],
    [{"rescan": "scanA", "instance": 4, "pose": [[1, 0, 0, True], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}],
    [{"rescan": "scanA", "instance": 4, "R": R.tolist()}],
    [{"rescan": "scanA", "instance": 4, "R": R.tolist(), "t": [0, 0]}],
    [{"rescan": "scanA", "instance": 4, "R": R.tolist(), "t": [0, 0, 0], "quaternion": WXYZ}],
    [{"rescan": "scanA", "instance": 4, "pose": None}],
    [{"rescan": "scanA", "instance": 4.0, "pose": T.tolist()}],
    [{"rescan": "scanA", "instance": True, "pose": T.tolist()}],
    [{"rescan": "scanZ", "instance": 1, "pose": T.tolist()}],
    [{"rescan": "scanA", "instance": 1, "pose": T.tolist()}],  # second prediction
    # an error late in the file and a bad pose earlier: the earlier line is named, as before
    [{"rescan": "scanA", "instance": 4, "pose": [[1, 0, 0, 0]] * 3}, {"rescan": "scanZ", "instance": 1, "pose": T.tolist()}],
    [{"rescan": "scanA", "instance": 4, "pose": compose(R * 1.01, [0, 0, 0]).tolist()}, {"rescan": "scanB", "instance": 2, "pose": [[1]]}],
    ['{"rescan": "scanA", "instance": 4, "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [NaN, 0, 0]}'],
    ['{"rescan": "scanA", "instance": 4, "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [1e999, 0, 0]}'],
]


@pytest.mark.parametrize("extra", VARIANTS)
@pytest.mark.parametrize("evaluated", [None, ["scanA"]])
def test_fast_path_gives_what_the_plain_path_gives(tmp_path, monkeypatch, extra, evaluated):
    p = tmp_path / "p.jsonl"
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in GOOD[:2] + extra + GOOD[2:]))
    fast = _outcome(p, evaluated=evaluated)

    def plain_only(raw):
        raise ValueError("plain path")

    monkeypatch.setattr(P, "_fast_decoder", lambda: plain_only)
    assert fast == _outcome(p, evaluated=evaluated)


def test_ordinary_lines_take_the_fast_path(tmp_path, monkeypatch):
    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in GOOD))
    calls = []
    real = P._read_pose_predictions

    def spy(*a, **kw):
        calls.append(kw["fast"])
        return real(*a, **kw)

    monkeypatch.setattr(P, "_read_pose_predictions", spy)
    got = P.read_pose_predictions(p, KNOWN)
    assert calls == [True] and len(got.poses) == 4
    assert np.array_equal(got.poses[("scanA", 1)], T)
