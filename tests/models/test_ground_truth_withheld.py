"""Ground truth reaches only the models that declare it, and every run that got it is marked.

A model that does not set ``ground_truth_perception`` sees no ``objects``, ``rooms`` (3DBench's room
types and boxes: the answers of room detection) or ``instance_ids`` (SURPRISE3D, ScanRefer), and no
field of its scene closes over the run source (whose ``truth()`` returns the answers). The oracle
(``needs_ground_truth``) is marked in ``results.json`` and in report labels.
"""

from __future__ import annotations

import functools
import inspect
import json
import shutil
import types

import numpy as np
import pytest

from scenebench.models.base import GROUND_TRUTH_FIELDS, SceneBatch
from scenebench.models.execution import predict_units
from scenebench.models.predictions import TextPrediction
from scenebench.models.sources.base import make_source
from scenebench.runtime.runner import plan_units, run_benchmark


class Peeker:
    """A plugin that answers nothing and records which fields each scene offered it."""

    name = "peeker"

    def __init__(self, perception: bool = False) -> None:
        self.ground_truth_perception = perception
        self.seen: list[list[str]] = []

    def predict(self, batch: SceneBatch) -> list[TextPrediction]:
        self.seen.append(batch.scene.fields())
        return [TextPrediction(s.sample_id, text="") for s in batch.samples]


def _fields_seen(source, perception: bool) -> set[str]:
    model = Peeker(perception)
    for _ in predict_units(model, source, plan_units(source.samples(), set())):
        pass
    return {f for fields in model.seen for f in fields}


@pytest.fixture(scope="module")
def b3d_with_rooms(b3d_dir, tmp_path_factory):
    """The 3DBench fixture with a scene graph (objects and rooms) for every house, as `generate` writes it."""
    data = tmp_path_factory.mktemp("gt") / "3dbench"
    shutil.copytree(b3d_dir, data)
    for s in make_source("3dbench", data=str(data)).samples():
        graph = data / "scene_graph" / f"{s.inputs['house']}.json"
        graph.parent.mkdir(exist_ok=True)
        rooms = [{"index": 0, "type": "bedroom", "bbox": [2.5, 2.5, 1.4, 5, 5, 2.8]}]
        graph.write_text(json.dumps({"rooms": rooms, "objects": [{"id": 1, "category": "sofa", "bbox": [4, 0.4, 3, 2, 0.8, 0.9]}]}))
    return data


def test_3dbench_rooms_and_objects_reach_only_models_that_declare_ground_truth_perception(b3d_with_rooms):
    src = make_source("3dbench", data=str(b3d_with_rooms))
    assert {"rooms", "objects"} <= _fields_seen(src, perception=True)  # the fixture does offer them
    blind = _fields_seen(src, perception=False)
    assert not blind & GROUND_TRUTH_FIELDS and {"points", "colors", "up_axis"} <= blind


def test_surprise3d_instance_ids_reach_only_models_that_declare_ground_truth_perception(s3d_dir):
    src = make_source("surprise3d", data=str(s3d_dir))
    assert {"instance_ids", "objects"} <= _fields_seen(src, perception=True)
    assert _fields_seen(src, perception=False) == {"points", "colors", "up_axis"}


def _reachable(fn):
    """Every object a loader can reach through closures, bound methods, partials, caches and plain containers."""
    seen, stack, out = set(), [fn], []
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, np.ndarray | str | bytes | int | float | types.ModuleType | type):
            continue
        seen.add(id(o))
        out.append(o)
        if inspect.ismethod(o):
            stack += [o.__self__, o.__func__]
        elif isinstance(o, functools.partial):
            stack += [o.func, *o.args, *o.keywords.values()]
        elif isinstance(o, types.FunctionType):
            stack += [c.cell_contents for c in o.__closure__ or () if c.cell_contents is not None]
            stack += list(o.__defaults__ or ())
        elif hasattr(o, "__wrapped__"):  # functools.cache
            stack.append(o.__wrapped__)
        elif isinstance(o, dict):
            stack += [*o.keys(), *o.values()]
        elif isinstance(o, list | tuple | set | frozenset):
            stack += list(o)
        elif hasattr(o, "__dict__"):
            stack += list(vars(o).values())
    return out


@pytest.mark.parametrize("benchmark", ["surprise3d", "rio", "3dbench"])
def test_no_scene_field_closes_over_the_source_or_its_answers(benchmark, s3d_dir, rio_dir, b3d_with_rooms):
    from scenebench.benchmarks.rio.index import RioIndex

    data = {"surprise3d": s3d_dir, "rio": rio_dir, "3dbench": b3d_with_rooms}[benchmark]
    src = make_source(benchmark, data=str(data))
    for scene_id in dict.fromkeys(s.scene_id for s in src.samples()):
        view = src.scene(scene_id)  # every field, as a model with ground-truth perception gets it
        for name, loader in view._loaders.items():
            bad = [o for o in _reachable(loader) if o is src or isinstance(o, RioIndex) or callable(getattr(o, "truth", None))]
            assert not bad, f"{benchmark} field {name} reaches {type(bad[0]).__name__}"
        view.get("points")  # and the fields still load


def test_the_oracle_run_is_marked_as_handed_the_answers(s3d_dir, tmp_path, capsys):
    from scenebench import cli
    from scenebench.report.runs import GT_ANSWERS_MARK, GT_MARK, load_run

    cli.main(["run", "surprise3d", "--data", str(s3d_dir), "--model", "oracle", "--out", str(tmp_path / "o"), "--no-progress"])
    assert "handed the ground-truth answers" in capsys.readouterr().out
    run = json.loads((tmp_path / "o" / "results.json").read_text())["extra"]["run"]
    assert run["ground_truth_answers"] is True and run["ground_truth_perception"] is False
    assert load_run(tmp_path / "o").label.endswith(GT_ANSWERS_MARK)
    blind = run_benchmark(make_source("surprise3d", data=str(s3d_dir)), "baseline:prior", tmp_path / "p", progress=False).results
    assert blind.extra["run"]["ground_truth_answers"] is False
    assert GT_ANSWERS_MARK not in load_run(tmp_path / "p").label and GT_MARK not in load_run(tmp_path / "p").label
