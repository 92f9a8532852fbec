"""Ranked text predictions (top-k answers): the first answer is the text every text reader sees."""

from scenebench.models import RankedTextPrediction, TextPrediction
from scenebench.models.predictions import prediction_from_json


def test_ranked_answers_round_trip_and_read_as_text():
    p = RankedTextPrediction("q1", answers=["brown", "dark brown", "tan"])
    assert isinstance(p, TextPrediction) and p.text == "brown" and p.to_text() == "brown" and p.top(2) == ["brown", "dark brown"]
    back = prediction_from_json(p.to_json())
    assert isinstance(back, RankedTextPrediction) and back.answers == ["brown", "dark brown", "tan"] and back.text == "brown"
    assert RankedTextPrediction("q2", text="two").answers == ["two"]  # one answer given as text
    assert RankedTextPrediction("q3").answers == [] and RankedTextPrediction("q3").text == ""
