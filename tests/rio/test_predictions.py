import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from scenebench.benchmarks.rio.predictions import read_pose_predictions, write_pose_predictions
from scenebench.errors import InputError
from scenebench.geometry.poses import compose

KNOWN = {"scanA": {1, 2, 3}, "scanB": {1, 2}}
R = Rotation.from_euler("zyx", [30, 10, -5], degrees=True).as_matrix()
T = compose(R, [0.5, -0.25, 1.0])


def _write(tmp_path, recs, name="p.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in recs) + "\n")
    return p


def test_three_pose_forms_agree(tmp_path):
    xyzw = Rotation.from_matrix(R).as_quat()
    recs = [
        {"rescan": "scanA", "instance": 1, "pose": T.tolist()},
        {"rescan": "scanA", "instance": 2, "R": R.tolist(), "t": T[:3, 3].tolist()},
        {"rescan": "scanA", "instance": 3, "quaternion": [xyzw[3], *xyzw[:3]], "t": T[:3, 3].tolist(), "score": 0.9},
    ]
    preds = read_pose_predictions(_write(tmp_path, recs), KNOWN)
    for i in (1, 2, 3):
        assert np.allclose(preds.poses[("scanA", i)], T, atol=1e-12)
    assert preds.meta[("scanA", 3)] == {"score": 0.9}
    assert preds.lines[("scanA", 3)] == 3


def test_six_decimal_rotation_is_accepted(tmp_path):
    preds = read_pose_predictions(_write(tmp_path, [{"rescan": "scanA", "instance": 1, "pose": np.round(T, 6).tolist()}]), KNOWN)
    assert ("scanA", 1) in preds.poses


BAD = [
    ({"rescan": "scanA", "instance": 1, "pose": [[1, 0, 0, 0]] * 3}, "pose", "shape"),
    ({"rescan": "scanA", "instance": 1, "pose": [[1, 0, 0, "x"], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}, "pose", "'x'"),
    ({"rescan": "scanA", "instance": 1, "pose": [[1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}, "pose", "different lengths"),
    ({"rescan": "scanA", "instance": 1, "pose": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1]]}, "pose", "last row"),
    ({"rescan": "scanA", "instance": 1, "pose": compose(R * 1.01, [0, 0, 0]).tolist()}, "pose", "not orthonormal"),
    ({"rescan": "scanA", "instance": 1, "R": (R @ np.diag([1, 1, 1.001])).tolist(), "t": [0, 0, 0]}, "R", "not orthonormal"),
    ({"rescan": "scanA", "instance": 1, "pose": np.diag([1.0, 1.0, -1.0, 1.0]).tolist()}, "pose", "not orthonormal"),
    ({"rescan": "scanA", "instance": 1, "R": R.tolist()}, "t", "missing"),
    ({"rescan": "scanA", "instance": 1, "R": R.tolist(), "t": [0, 0, 0], "pose": T.tolist()}, "pose", "exactly one"),
    ({"rescan": "scanA", "instance": 1}, "pose", "no rotation"),
    ({"rescan": "scanA", "instance": 1, "quaternion": [1, 0, 0, 0.1], "t": [0, 0, 0]}, "quaternion", "norm"),
    ({"rescan": "scanA", "instance": 1, "R": R.tolist(), "t": [0, 0]}, "t", "shape"),
    ({"rescan": "scanZ", "instance": 1, "pose": T.tolist()}, "rescan", "not in the 3RScan index"),
    ({"rescan": "scanB", "instance": 3, "pose": T.tolist()}, "instance", "not an instance"),
    ({"rescan": "scanA", "instance": "1", "pose": T.tolist()}, "instance", "integer"),
    ({"rescan": 5, "instance": 1, "pose": T.tolist()}, "rescan", "string"),
]


@pytest.mark.parametrize("rec,field,text", BAD)
def test_bad_records_name_file_line_and_field(tmp_path, rec, field, text):
    p = _write(tmp_path, [{"rescan": "scanA", "instance": 2, "pose": T.tolist()}, rec])
    with pytest.raises(InputError) as exc:
        read_pose_predictions(p, KNOWN)
    msg = str(exc.value)
    assert str(p) in msg and "line 2" in msg and f"field '{field}'" in msg and text in msg


def test_nan_and_infinity_are_refused(tmp_path):
    line = '{"rescan": "scanA", "instance": 1, "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [NaN, 0, 0]}'
    with pytest.raises(InputError, match="line 1.*finite"):
        read_pose_predictions(_write(tmp_path, [line]), KNOWN)
    line = '{"rescan": "scanA", "instance": 1, "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [1e999, 0, 0]}'
    with pytest.raises(InputError, match="line 1.*field 't'.*finite"):
        read_pose_predictions(_write(tmp_path, [line]), KNOWN)


def test_duplicate_names_both_lines(tmp_path):
    rec = {"rescan": "scanA", "instance": 1, "pose": T.tolist()}
    with pytest.raises(InputError, match=r"line 3.*first on line 1"):
        read_pose_predictions(_write(tmp_path, [rec, {"rescan": "scanA", "instance": 2, "pose": T.tolist()}, rec]), KNOWN)


def test_other_split_is_counted_not_kept(tmp_path):
    recs = [{"rescan": "scanA", "instance": 1, "pose": T.tolist()}, {"rescan": "scanB", "instance": 1, "pose": T.tolist()}]
    preds = read_pose_predictions(_write(tmp_path, recs), KNOWN, evaluated=["scanA"])
    assert list(preds.poses) == [("scanA", 1)] and preds.ignored_other_split == 1


def test_write_round_trip(tmp_path):
    p = tmp_path / "out.jsonl"
    write_pose_predictions(p, [{"rescan": "scanA", "instance": 1, "pose": T, "fitness": 0.5}])
    preds = read_pose_predictions(p, KNOWN)
    assert np.allclose(preds.poses[("scanA", 1)], T) and preds.meta[("scanA", 1)] == {"fitness": 0.5}
