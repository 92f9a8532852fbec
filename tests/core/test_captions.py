"""Shared caption metrics (``scenebench.metrics.captions``): the golden vectors of the 3D-LLM spec
§10 (pycocoevalcap 1.2 on the strings as given), summed through the aggregation specs, and the
helper flag that keeps BLEU's ingredients out of console summaries."""

from __future__ import annotations

import pytest

from scenebench.metrics.captions import caption_specs, prepare_corpus, sample_values
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.metrics.text import meteor_unavailable_reason
from scenebench.report.console import results_table

REFS = {
    "a": ["sos this is a brown wooden chair . it is next to the table eos", "sos the chair is brown and sits by the table eos"],
    "b": ["sos a white pillow on the bed . it is near the wall eos"],
    "c": ["sos the tall lamp stands in the corner of the room eos"],
}
HYPS = {"a": "sos the chair is brown and next to the table eos", "b": "sos this is a white pillow on the bed eos", "c": "sos eos"}


def _records(mode="raw", meteor=False):
    keys = list(REFS)
    corpus = prepare_corpus(keys, (HYPS[k] for k in keys), [REFS[k] for k in keys], mode=mode, meteor=meteor)
    recs = []
    for k in keys:
        values = {**sample_values(HYPS[k], REFS[k], mode), "cider_d": corpus.cider[k], **corpus.meteor.get(k, {})}
        recs.append(SampleScore(k, "s", "scored", values))
    return recs, corpus


def test_spec_golden_caption_corpus_bleu_rouge_cider():
    recs, corpus = _records()
    # per-sample CIDEr-D 4.47046, 3.98244, 0.0; ROUGE-L 0.81818, 0.64721, 0.25311 (spec §10.1)
    assert [corpus.cider[k] for k in "abc"] == pytest.approx([4.47046, 3.98244, 0.0], abs=5e-5)
    assert [r.values["rouge_l"] for r in recs] == pytest.approx([0.81818, 0.64721, 0.25311], abs=5e-6)
    s = summarize_scores(recs, caption_specs(), n_resamples=0)
    o = s.metrics["overall"]
    # corpus BLEU-1..4 = 0.52041, 0.44519, 0.41168, 0.37721 (not the mean of per-sample BLEU-4: 0.40)
    assert [o[f"bleu{n}_py"] for n in (1, 2, 3, 4)] == pytest.approx([52.041, 44.519, 41.168, 37.721], abs=5e-3)
    assert o["rouge_l_py"] == pytest.approx(57.284, abs=5e-3) and o["cider_d_py"] == pytest.approx(281.763, abs=5e-3)
    assert o["meteor_java"] is None  # no METEOR statistics asked for
    # the helpers are in the results (metric_info says so) but not in the console table's columns
    assert s.metric_info["bleu1_p_py"]["helper"] is True and "helper" not in s.metric_info["bleu4_py"]
    res = s.to_results("x", "strict")
    shown = [c.header for c in results_table(res).columns]
    assert any(h.startswith("bleu4_py") for h in shown) and not any(
        h.startswith(("bleu1_p_py", "len_ratio_py", "meteor_p_java")) for h in shown
    )
    assert "bleu1_p_py" in res.metrics["overall"]


@pytest.mark.slow  # the METEOR jar loads its paraphrase table: tens of seconds
@pytest.mark.skipif(meteor_unavailable_reason() is not None, reason="needs java and the METEOR 1.5 jar")
def test_spec_golden_meteor_corpus_from_summed_statistics():
    recs, corpus = _records(meteor=True)
    assert [corpus.meteor[k]["meteor"] for k in "abc"] == pytest.approx([0.45920, 0.35854, 0.10435], abs=5e-5)
    o = summarize_scores(recs, caption_specs(), n_resamples=0).metrics["overall"]
    assert o["meteor_java"] == pytest.approx(30.680, abs=5e-3)


def test_spec_golden_cider_depends_on_the_corpus():
    refs = [["the brown chair next to the table"], ["a white pillow on the bed"]]
    hyps = ["the brown chair by the table", "a white pillow on the bed"]
    two = prepare_corpus(["a", "b"], hyps, refs, mode="raw", meteor=False).cider
    assert two["a"] == pytest.approx(3.55565, abs=5e-5) and two["b"] == pytest.approx(10.0)
    more = [f"x{i}" for i in range(8)]
    ten = prepare_corpus(
        ["a", "b", *more], hyps + ["the chair"] * 8, refs + [["the chair near the table"]] * 8, mode="raw", meteor=False
    ).cider
    assert ten["a"] == pytest.approx(2.66355, abs=5e-5) and ten["b"] == pytest.approx(10.0)


def test_text_modes_differ_only_in_tokens():
    # PTB lower-cases and drops punctuation; raw keeps "Chair." as one token that matches nothing
    assert sample_values("The Chair.", ["the chair"], "coco")["rouge_l"] == pytest.approx(1.0)
    assert sample_values("The Chair.", ["the chair"], "raw")["rouge_l"] == 0.0
    # raw ROUGE-L splits on single spaces as pycocoevalcap does: a double space is an empty token
    assert sample_values("the  chair", ["the chair"], "raw")["rouge_l"] < 1.0
    assert sample_values(None, ["the chair"], "raw")["m1"] == 0.0  # a missing answer is the empty string
