"""The PTB tokenizer and ROUGE-L on the cases issue 41 found to differ from pycocoevalcap.

Each case's tokens are written out by hand (what the Java PTBTokenizer 3.4.1 of pycocoevalcap gives,
checked against it below when Java is installed). Before (``ptb-py-1``): ``no.`` kept at a sentence
end, zero-width spaces kept inside words, ``'n'`` read as ``n'``, smileys broken up, backslashes kept
inside words, ``$5.50.`` and a URL's final period kept, ``2 1/2`` two tokens; ROUGE-L 0 for an empty
candidate against an empty reference (pycocoevalcap: 1.0).
"""

from __future__ import annotations

import shutil

import pytest

from scenebench.metrics import text as T

CASES = [
    ("The room has no. It is empty.", ["the", "room", "has", "no", "it", "is", "empty"]),
    ("Item no. 5 is here.", ["item", "no.", "5", "is", "here"]),
    ("see fig. 2 and fig. The end", ["see", "fig.", "2", "and", "fig", "the", "end"]),
    ("vol. 3 and tel. end", ["vol", "3", "and", "tel.", "end"]),
    ("a\u200bchair near\u200b the table", ["a", "chair", "near", "the", "table"]),
    ("a\u00adb c", ["ab", "c"]),
    ("rock 'n' roll music", ["rock", "'n'", "roll", "music"]),
    ("I am happy :) really", ["i", "am", "happy", ":-rrb-", "really"]),
    ("sad :'( face, ok :-D", ["sad", ":'-lrb-", "face", "ok", ":-d"]),
    ("path C:\\dir\\file", ["path", "c", "\\", "dir", "\\", "file"]),
    ("a :)a b", ["a", "-rrb-", "a", "b"]),
    ("It costs $5.50.", ["it", "costs", "$", "5.50"]),
    ("v 2.0.1. done", ["v", "2.0.1", "done"]),
    ("a 1.5m. long", ["a", "1.5", "m.", "long"]),
    ("see http://example.com/a.", ["see", "http://example.com/a"]),
    ("mail a@b.com.", ["mail", "a@b.com"]),
    ("It is 2 1/2 m long", ["it", "is", "2\u00a01/2", "m", "long"]),
    ("12345 1/2 x", ["12345", "1/2", "x"]),
    ("a<b and a << b", ["a", "<", "b", "and", "a", "<<", "b"]),
]


@pytest.mark.parametrize(("text", "tokens"), CASES, ids=[c[0][:24] for c in CASES])
def test_tokens_by_hand(text, tokens):
    assert T.tokenize(text) == tokens


def test_rouge_l_of_empty_texts_as_pycocoevalcap():
    assert T.rouge_l([], [[]]) == 1.0  # one empty token each: LCS 1 of 1
    assert T.rouge_l([], [["a", "chair"]]) == 0.0
    assert T.rouge_l(["a", "chair"], [[]]) == 0.0
    assert T.rouge_l([], [[], ["a"]]) == 1.0  # precision and recall are maxima over the references


needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="Java is not installed (pycocoevalcap's PTB tokenizer needs it)")


@needs_java
def test_the_cases_equal_the_java_tokenizer():
    pytest.importorskip("pycocoevalcap", reason="pycocoevalcap (test extra) is not installed")
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    java = PTBTokenizer().tokenize({i: [{"caption": text}] for i, (text, _) in enumerate(CASES)})
    for i, (text, tokens) in enumerate(CASES):
        assert (java[i][0].split(" ") if java[i][0] else []) == tokens, text


@needs_java
def test_rouge_l_per_corpus_equals_pycocoevalcap_on_these_texts():
    pytest.importorskip("pycocoevalcap", reason="pycocoevalcap (test extra) is not installed")
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    hyps = [text for text, _ in CASES] + ["", "", "a chair :) here"]
    refs = [[text.replace(".", " ").upper(), "the room"] for text, _ in CASES] + [[""], ["a chair"], ["a chair :) there"]]
    tok = PTBTokenizer()
    gts = tok.tokenize({i: [{"caption": r} for r in rs] for i, rs in enumerate(refs)})
    res = tok.tokenize({i: [{"caption": h}] for i, h in enumerate(hyps)})
    ref_score, ref_per = Rouge().compute_score(gts, res)
    ours = [T.rouge_l(T.tokenize(h), [T.tokenize(r) for r in rs]) for h, rs in zip(hyps, refs)]
    assert ours == pytest.approx(list(ref_per), abs=1e-12)
    assert sum(ours) / len(ours) == pytest.approx(ref_score, abs=1e-12)
    assert ours[len(CASES)] == 1.0  # the empty candidate against the empty reference
