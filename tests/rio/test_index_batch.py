"""3RScan.json transforms checked in one batch against one at a time: same scenes, same errors."""

import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import scenebench.benchmarks.rio.index as L
from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.benchmarks.rio.writer import write_index
from scenebench.errors import InputError
from scenebench.geometry.poses import compose


def _index(root, units="m"):
    rng = np.random.default_rng(3)
    scenes, objects = [], {}
    for s in range(3):
        ref = f"ref{s}"
        rigid = [
            {
                "instance_reference": i,
                "symmetry": i % 3,
                "transform": compose(Rotation.random(random_state=rng).as_matrix(), rng.normal(size=3)),
            }
            for i in range(1, 5)
        ]
        amb = [[{"instance_source": 1, "instance_target": 2, "transform": compose(np.eye(3), [1.0, 0, 0])}]] if s == 1 else []
        scenes.append(
            {
                "reference": ref,
                "type": "validation",
                "ambiguity": amb,
                "scans": [{"reference": f"re{s}", "transform": compose(np.eye(3), [0, 0, 0.5]), "rigid": rigid, "removed": [5]}],
            }
        )
        objects[ref] = [{"id": i, "label": "chair"} for i in range(1, 6)]
    write_index(root, scenes, objects, units=units)
    return root / "3RScan.json"


def _outcome(root, **kw):
    try:
        d = ThreeRScan(root, **kw)
    except InputError as exc:
        return ("error", str(exc))
    return (
        "ok",
        d.scale,
        d.unit_decision,
        [
            (
                s.reference,
                [(a.source, a.target, a.transform.tolist()) for a in s.ambiguity],
                [
                    (
                        r.scan_id,
                        r.transform.tolist(),
                        {k: (e.instance_rescan, e.symmetry, e.transform.tolist()) for k, e in r.rigid.items()},
                    )
                    for r in s.rescans
                ],
            )
            for s in d.scenes
        ],
    )


def _edit(path, fn):
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc))


EDITS = {
    "as written": lambda d: None,
    "string in a transform": lambda d: d[1]["scans"][0]["rigid"][2]["transform"].__setitem__(3, "0"),
    "bool in a transform": lambda d: d[1]["scans"][0]["rigid"][2]["transform"].__setitem__(3, True),
    "15 numbers": lambda d: d[2]["scans"][0]["rigid"][0]["transform"].pop(),
    "not a rotation": lambda d: d[0]["scans"][0]["rigid"][1]["transform"].__setitem__(0, 1.5),
    "last row": lambda d: d[0]["scans"][0]["rigid"][1]["transform"].__setitem__(3, 0.5),
    "bad rescan transform": lambda d: d[2]["scans"][0].__setitem__("transform", [1, 2]),
    "bad symmetry after a bad pose": lambda d: (
        d[0]["scans"][0]["rigid"][0]["transform"].__setitem__(0, 2.0),
        d[2]["scans"][0]["rigid"][0].__setitem__("symmetry", 9),
    ),
    "bad symmetry before a bad pose": lambda d: (
        d[0]["scans"][0]["rigid"][0].__setitem__("symmetry", 9),
        d[2]["scans"][0]["rigid"][0]["transform"].__setitem__(0, 2.0),
    ),
    "null transform": lambda d: d[1]["ambiguity"][0][0].__setitem__("transform", None),
    "rigid not a list": lambda d: d[1]["scans"][0].__setitem__("rigid", {"a": 1}),
    "scene not an object": lambda d: d.append(7),
}


@pytest.mark.parametrize("units", ["m", "mm"])
@pytest.mark.parametrize("edit", list(EDITS))
def test_batch_gives_what_one_at_a_time_gives(tmp_path, monkeypatch, edit, units):
    _edit(_index(tmp_path, units), EDITS[edit])
    batch = _outcome(tmp_path)
    assert (batch[0] == "ok") == (edit == "as written")

    def one_at_a_time(raw):
        raise L._Slow

    monkeypatch.setattr(L, "_index_transforms", one_at_a_time)
    assert batch == _outcome(tmp_path)


def test_ordinary_index_takes_the_batch(tmp_path, monkeypatch):
    _index(tmp_path)
    calls = []
    monkeypatch.setattr(L.RioIndex, "_decide_units", lambda self, raw, units: calls.append(1) or (1.0, "m"))
    ThreeRScan(tmp_path)
    assert calls == []  # the one-at-a-time path (which decides units its own way) never ran
