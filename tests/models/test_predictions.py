import numpy as np
import pytest

from scenebench.benchmarks.bench3d import parsing as P
from scenebench.errors import ScenebenchError
from scenebench.models.predictions import (
    BoxesPrediction,
    BoxPrediction,
    LabelledBox,
    MaskPrediction,
    PosePrediction,
    TextPrediction,
    WaypointsPrediction,
    option_prediction,
    prediction_from_json,
)

ALL = [
    MaskPrediction("a", indices=[5, 1, 1, 3]),
    BoxPrediction("b", box=[1, -2.5, 0, 1, 2, 3], label="sofa"),
    BoxesPrediction("c", boxes=[LabelledBox("chair", [0, 0, 0, 1, 1, 1], 0.9), LabelledBox("sofa", [1, 2, 3, 4, 5, 6])]),
    PosePrediction("d", pose=np.eye(4).tolist()),
    WaypointsPrediction("e", points=[[0, 0], [1.5, -2]]),
    option_prediction("f", ("red", "green", "blue"), 2),
    TextPrediction("g", text="a room"),
]


@pytest.mark.parametrize("pred", ALL, ids=lambda p: p.kind)
def test_json_roundtrip(pred):
    assert prediction_from_json(pred.to_json()) == pred


def test_mask_is_a_sorted_set():
    assert MaskPrediction("a", indices=[5, 1, 1, 3]).indices == [1, 3, 5]


@pytest.mark.parametrize("protocol", ["strict", "official"])
def test_text_forms_are_read_back_by_the_3dbench_parser(protocol):
    box = [1.25, 0.5, 3.0, 0.5, 1.0, 2.0]
    assert P.parse_boxes(BoxPrediction("b", box=box).to_text(), protocol) == [pytest.approx(box)]
    two = BoxesPrediction("c", boxes=[LabelledBox("chair", [1, 2, 3, 4, 5, 6]), LabelledBox("sofa", [6, 5, 4, 3, 2, 1])]).to_text()
    assert P.parse_boxes(two, protocol) == [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]]
    path = WaypointsPrediction("e", points=[[0, 0], [1.5, 2]]).to_text()
    assert P.parse_waypoints(path, protocol) == [[0, 0], [1.5, 2]]
    opt = option_prediction("f", ("1", "2", "3", "4", "5", "6"), 4)
    assert P.parse_letter(opt.to_text(), 6) == 4
    assert P.official_counting_correct(opt.to_text(), ["1", "2", "3", "4", "5", "6"], 4)


def test_strict_parser_keeps_signs_of_written_boxes():
    box = [1.25, -0.5, 3.0, 0.5, 1.0, 2.0]
    assert P.parse_boxes(BoxPrediction("b", box=box).to_text(), "strict") == [pytest.approx(box)]


def test_negative_zero_is_written_without_a_sign():
    assert "-0.00" not in BoxPrediction("b", box=[-0.001, 0, 0, 1, 1, 1]).to_text()


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: BoxPrediction("b", box=[1, 2, 3]), "6 finite numbers"),
        (lambda: BoxPrediction("b", box=[1, 2, 3, 4, 5, float("nan")]), "6 finite numbers"),
        (lambda: PosePrediction("d", pose=[[1, 0, 0], [0, 1, 0]]), "4x4"),
        (lambda: WaypointsPrediction("e", points=[[0, 0, 0]]), r"\[x, z\] pairs"),
        (lambda: option_prediction("f", ("a", "b"), 2), "outside 0..1"),
        (lambda: prediction_from_json({"kind": "nope", "sample_id": "x"}), "unknown kind"),
    ],
)
def test_bad_predictions_are_refused_with_a_reason(make, match):
    with pytest.raises(ScenebenchError, match=match):
        make()
