"""coco-mode caption metrics against the reference, pycocoevalcap 1.2 run with its Java PTB tokenizer.

Skipped (with the reason) without Java or the pycocoevalcap wheel of the test extra; CI installs both.
"""

from __future__ import annotations

import math
import shutil

import pytest

from scenebench.metrics import text as T

pytest.importorskip("pycocoevalcap", reason="pycocoevalcap (test extra) is not installed")
# one worker runs the module: its reference (two JVMs: the PTB tokenizer and METEOR) is built once
pytestmark = pytest.mark.xdist_group("coco-reference")
if shutil.which("java") is None:
    pytest.skip(
        "Java is not installed: the pycocoevalcap reference needs it (scripts/setup.sh installs default-jre-headless)",
        allow_module_level=True,
    )

from pycocoevalcap.bleu.bleu import Bleu  # noqa: E402
from pycocoevalcap.cider.cider import Cider  # noqa: E402
from pycocoevalcap.meteor.meteor import Meteor  # noqa: E402
from pycocoevalcap.rouge.rouge import Rouge  # noqa: E402
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer  # noqa: E402

# punctuation, case, Unicode letters, numbers, contractions, brackets, quotes, dashes, abbreviations
CORPUS = [
    ("A brown wooden chair is next to the table.", ["There is a wooden chair next to the table.", "A brown chair beside a table."]),
    ("The lamp's shade is white; it's on the desk.", ["A lamp with a white shade stands on the desk.", "The desk has a lamp on it."]),
    ("Two beds, one sofa (grey) and 3 chairs.", ["The room has two beds, a grey sofa and three chairs.", "Two beds, a sofa, 3 chairs."]),
    ("It isn't a kitchen -- it's a bedroom!", ["This is a bedroom, not a kitchen.", "A bedroom with a bed."]),
    ('The "café" corner has a naïve painting.', ["A café corner with a painting.", "There's a painting in the café corner."]),
    ("Über-modern room: 2.5 m tall, 1,200 items.", ["A very modern room 2.5 m tall.", "A modern room with many items."]),
    ("You can't miss the TV... it's huge.", ["The TV is huge.", "A huge TV hangs on the wall."]),
    ("A state-of-the-art kitchen, e.g. an oven.", ["A modern kitchen with an oven.", "The kitchen has a new oven and a fridge."]),
    ("Résumé papers lie on the desk [left side].", ["Papers are on the left side of the desk.", "The desk holds some papers."]),
    ("What's that? A bin, I think.", ["A bin stands in the corner.", "There is a bin."]),
    ("the Bin is BLUE", ["The bin is blue.", "A blue bin."]),
    ("A round table with four chairs around it.", ["Four chairs surround a round table.", "A round table and four chairs."]),
    ("Mr. Smith's office: a desk, a chair, a lamp.", ["An office with a desk, a chair and a lamp.", "A desk and a chair in an office."]),
    ("The shelf holds 10 books—mostly novels.", ["A shelf with ten books.", "Books on a shelf, mostly novels."]),
    ("There're two windows; they're open.", ["Two open windows.", "The two windows are open."]),
    ("A sink, a mirror & a towel.", ["A bathroom with a sink, a mirror and a towel.", "A sink under a mirror."]),
    ("I'd say it's a living room.", ["This is a living room.", "A living room with a sofa."]),
    ("The fridge is 1.8m high.", ["A tall fridge.", "The fridge is 1.8 m high."]),
    ("Plants everywhere!!", ["There are many plants.", "Plants are everywhere in the room."]),
    ("A 'cozy' reading nook.", ["A cozy reading nook with a chair.", "A small reading corner."]),
    ("Straße sign on the wall", ["A street sign hangs on the wall.", "A sign on the wall."]),
    ("Cabinets (white), counters {grey}.", ["White cabinets and grey counters.", "The kitchen has white cabinets."]),
    ("The stairs go up - to the 2nd floor.", ["Stairs lead to the second floor.", "The stairs go up to the 2nd floor."]),
    ("A desk, a monitor, a keyboard, a mouse.", ["A desk with a monitor, a keyboard and a mouse.", "A computer desk."]),
    ("Don't know.", ["A hallway with a door.", "A door at the end of a hallway."]),
    ("", ["An empty room.", "The room is empty."]),
    ("A rug lies under the coffee table.", ["A rug under the coffee table.", "There is a rug beneath a coffee table."]),
    ("Two armchairs face the fireplace.", ["Two armchairs in front of the fireplace.", "A fireplace with two armchairs."]),
    ("A bathtub; no shower.", ["A bathroom with a bathtub.", "The bathroom has a tub but no shower."]),
    ("The Piano is black & shiny.", ["A shiny black piano.", "The piano is black."]),
]


def _reference() -> dict[str, float]:
    gts = {i: [{"caption": r} for r in refs] for i, (_, refs) in enumerate(CORPUS)}
    res = {i: [{"caption": h}] for i, (h, _) in enumerate(CORPUS)}
    tok = PTBTokenizer()
    gts_t, res_t = tok.tokenize(gts), tok.tokenize(res)
    out: dict[str, float] = {}
    bleu, _ = Bleu(4).compute_score(gts_t, res_t)
    out.update({f"bleu{n + 1}": b for n, b in enumerate(bleu)})
    out["meteor"], per_sample = Meteor().compute_score(gts_t, res_t)
    out["meteor_mean"] = sum(per_sample) / len(per_sample)
    out["rouge_l"], _ = Rouge().compute_score(gts_t, res_t)
    out["cider_d"], _ = Cider().compute_score(gts_t, res_t)
    return out


def _ours() -> dict[str, float]:
    hyps = [T.tokenize(h) for h, _ in CORPUS]
    refs = [[T.tokenize(r) for r in rs] for _, rs in CORPUS]
    stats = [T.bleu_stats(h, rs) for h, rs in zip(hyps, refs)]
    tot = {k: sum(s[k] for s in stats) for k in stats[0]}
    out = {
        f"bleu{n}": T.bleu_from_sums([tot[f"m{k}"] / tot[f"g{k}"] for k in range(1, n + 1)], tot["hyp_len"], tot["ref_len"])
        for n in range(1, 5)
    }
    parts, per_sample, corpus = T.meteor_stats([" ".join(h) for h in hyps], [[" ".join(r) for r in rs] for rs in refs])
    sums = {k: sum(p[k] for p in parts) for k in T.METEOR_FIELDS}
    out["meteor"] = T.meteor_from_sums(sums["met_tw"] / sums["met_tl"], sums["met_rw"] / sums["met_rl"], sums["met_ch"] / sums["met_wm"])
    out["meteor_jar"] = corpus
    out["meteor_mean"] = sum(per_sample) / len(per_sample)
    out["rouge_l"] = sum(T.rouge_l(h, rs) for h, rs in zip(hyps, refs)) / len(hyps)
    out["cider_d"] = sum(T.cider_d(hyps, refs)) / len(hyps)
    return out


@pytest.fixture(scope="module")
def both() -> tuple[dict[str, float], dict[str, float]]:
    return _reference(), _ours()


def test_tokens_equal_the_java_ptb_tokenizer():
    tok = PTBTokenizer()
    texts = [h for h, _ in CORPUS] + [r for _, rs in CORPUS for r in rs]
    ref = tok.tokenize({i: [{"caption": t}] for i, t in enumerate(texts)})
    assert [" ".join(T.tokenize(t)) for t in texts] == [ref[i][0] for i in range(len(texts))]


@pytest.mark.parametrize("metric", ["bleu1", "bleu2", "bleu3", "bleu4", "rouge_l", "cider_d", "meteor", "meteor_mean"])
def test_coco_mode_equals_pycocoevalcap(both, metric):
    ref, ours = both
    assert math.isfinite(ref[metric]) and ref[metric] > 0
    assert ours[metric] == pytest.approx(ref[metric], abs=1e-6)


def test_corpus_meteor_is_not_the_mean_and_summed_parts_reproduce_the_jar(both):
    _, ours = both
    # the jar's EVAL line and scenebench's sums of meteor_parts agree; the per-sample mean is another number
    assert ours["meteor"] == pytest.approx(ours["meteor_jar"], abs=1e-12)
    assert abs(ours["meteor"] - ours["meteor_mean"]) > 1e-3
