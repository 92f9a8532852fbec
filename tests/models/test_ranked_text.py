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


def test_the_text_adapter_asks_for_ranked_answers_and_reads_them_back():
    from scenebench.models.base import ModelSample
    from scenebench.models.builtin.openai_chat import build_prompt, ranked_answers

    s = ModelSample("q1", "scene0000_00", "scanqa", "ranked_text", "What color is the chair?")
    assert "up to 10 short answers" in build_prompt(s, "Scene objects:")
    reply = "1. brown\n2) dark brown\n- brown\n\n* tan\n" + "".join(f"{k}. c{k}\n" for k in range(20))
    assert ranked_answers(reply) == ["brown", "dark brown", "tan", "c0", "c1", "c2", "c3", "c4", "c5", "c6"]  # repeats out, ten kept
    assert ranked_answers("") == []
