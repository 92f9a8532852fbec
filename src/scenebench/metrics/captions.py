"""Caption metrics as benchmarks report them: the aggregation specs (corpus BLEU from summed n-gram
counts, METEOR from summed statistics, per-sample means of ROUGE-L and CIDEr-D) and the corpus
preparation that feeds :mod:`scenebench.metrics.text` the strings each evaluator feeds pycocoevalcap.

Two text modes (how an answer and its references become tokens):

- ``coco``: pycocoevalcap's COCOEvalCap pipeline, PTB tokens (:func:`scenebench.metrics.text.tokenize`)
  for every metric, the METEOR jar given the tokens joined by spaces (3DBench's text tasks; ScanQA's
  own ``score.py``; the Chat-Scene family);
- ``raw``: the strings as given, no tokenizer, as evaluators that call the scorers directly do (LEO,
  Video-3D-LLM, LL3DA): BLEU and CIDEr-D split on whitespace (``str.split()``), ROUGE-L on single
  spaces (``split(" ")``: a double space makes an empty token, as in pycocoevalcap's ``rouge.py``).

The per-sample values (:func:`sample_values`) are summable (BLEU's clipped matches and counts, the
METEOR statistics), so :func:`caption_specs` recomputes the corpus figures on any subset and on every
bootstrap resample; CIDEr-D's IDF comes from the references of the corpus :func:`prepare_corpus` is
given, so its per-sample values depend on that corpus (spec §7.1).

Metric cards: ``docs/metrics/bench3d_{bleu4,rouge_l,cider_d,meteor}.md`` (the formulas) and each
benchmark's own cards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from scenebench.metrics import text as T
from scenebench.metrics.aggregate import Derived, Mean, MetricSpec, Ratio

TextMode = Literal["coco", "raw"]
TEXT_MODES: tuple[TextMode, ...] = ("coco", "raw")


# The two Derived functions keep the names results.json records for them (``metric_info.*.fn``).
def _bleu(*args: float | None) -> float | None:
    """Corpus BLEU (%) from its n-gram precisions (%) then the candidate / reference length ratio."""
    *ps, lr = args
    if lr is None:
        return None
    return None if (v := T.bleu_from_sums([None if p is None else p / 100 for p in ps], lr, 1.0)) is None else v * 100


def _meteor(p: float | None, r: float | None, frag: float | None) -> float | None:
    """METEOR 1.5 (%) from summed weighted precision, recall and fragmentation."""
    return None if (v := T.meteor_from_sums(p, r, frag)) is None else v * 100


bleu_percent = _bleu
meteor_percent = _meteor
_NGRAM = {1: "unigram", 2: "bigram", 3: "trigram", 4: "4-gram"}


def bleu_specs(orders: Sequence[int] = (1, 2, 3, 4), *, tokens: str = "PTB tokens", helper: bool = False) -> list[MetricSpec]:
    """Corpus BLEU-n for each of ``orders`` (names ``bleu<n>_py``), built from the corpus n-gram
    precisions ``bleu<k>_p_py`` (k = 1..4) and the length ratio ``len_ratio_py``; ``helper`` marks
    those ingredients as helper figures (kept out of console summaries). ``tokens`` says what the
    scorer was fed, in the BLEU-4 description."""
    specs: list[MetricSpec] = [
        Ratio(f"bleu{k}_p_py", f"m{k}", f"g{k}", 100, f"BLEU {_NGRAM[k]} precision (corpus)", "%", helper=helper) for k in range(1, 5)
    ]
    specs.append(Ratio("len_ratio_py", "hyp_len", "ref_len", 1.0, "candidate / closest reference length (corpus)", helper=helper))
    for n in orders:
        what = f"pycocoevalcap Bleu_{n}" + (f", {tokens}" if n == 4 else "")
        deps = tuple(f"bleu{k}_p_py" for k in range(1, n + 1)) + ("len_ratio_py",)
        specs.append(Derived(f"bleu{n}_py", deps, _bleu, f"corpus BLEU-{n} with brevity penalty ({what})", "%"))
    return specs


ROUGE_L = Mean("rouge_l_py", "rouge_l", 100, "ROUGE-L F (beta 1.2), mean over samples", "%")
CIDER_D = Mean(
    "cider_d_py",
    "cider_d",
    100,
    "CIDEr-D x100 as papers report it (sigma 6, IDF from the evaluated references); not a percentage: can exceed 100",
    "x100",
)


def meteor_specs(*, helper: bool = False) -> list[MetricSpec]:
    """METEOR 1.5's corpus score ``meteor_java`` from the summed statistics (helper ratios beside it)."""
    return [
        Ratio("meteor_p_java", "met_tw", "met_tl", 1.0, "METEOR weighted precision (corpus sums)", helper=helper),
        Ratio("meteor_r_java", "met_rw", "met_rl", 1.0, "METEOR weighted recall (corpus sums)", helper=helper),
        Ratio("meteor_frag_java", "met_ch", "met_wm", 1.0, "METEOR chunks per matched word (corpus sums)", helper=helper),
        Derived(
            "meteor_java",
            ("meteor_p_java", "meteor_r_java", "meteor_frag_java"),
            _meteor,
            "METEOR 1.5 corpus score from summed statistics (pycocoevalcap METEOR); n/a without java and the jar",
            "%",
        ),
    ]


def caption_specs(orders: Sequence[int] = (1, 2, 3, 4), *, tokens: str = "PTB tokens", helper: bool = True) -> list[MetricSpec]:
    """BLEU-n, ROUGE-L, CIDEr-D and METEOR, in that order, helpers marked by default."""
    return [*bleu_specs(orders, tokens=tokens, helper=helper), ROUGE_L, CIDER_D, *meteor_specs(helper=helper)]


def _bleu_tokens(mode: TextMode) -> Callable[[str], list[str]]:
    return T.tokenize if mode == "coco" else str.split


def _rouge_tokens(mode: TextMode) -> Callable[[str], list[str]]:
    return T.tokenize if mode == "coco" else (lambda s: s.split(" "))


def sample_values(hyp: str | None, refs: Sequence[str], mode: TextMode = "coco") -> dict[str, float]:
    """One sample's summable BLEU statistics and its ROUGE-L (a missing answer is the empty string)."""
    tok, rtok = _bleu_tokens(mode), _rouge_tokens(mode)
    text = hyp or ""
    values = T.bleu_stats(tok(text), [tok(r) for r in refs])
    values["rouge_l"] = T.rouge_l(rtok(text), [rtok(r) for r in refs])
    return values


@dataclass
class CaptionCorpus:
    """The corpus-level parts of the caption metrics, per sample key: CIDEr-D (IDF from this corpus)
    and METEOR's summable statistics (none, with ``meteor_reason``, without java and the jar)."""

    cider: dict[str, float] = field(default_factory=dict)
    meteor: dict[str, dict[str, float]] = field(default_factory=dict)
    meteor_reason: str | None = None


def prepare_corpus(
    keys: Sequence[str],
    hyps: Iterable[str | None],
    refs: Sequence[Sequence[str]],
    *,
    mode: TextMode = "coco",
    meteor: bool = True,
    into: CaptionCorpus | None = None,
) -> CaptionCorpus:
    """CIDEr-D and METEOR of the corpus ``keys`` (answers ``hyps``, a missing one as the empty
    string; references ``refs``), added to ``into`` (several corpora, e.g. one per task, share one).

    ``hyps`` may be a generator (one answer in memory at a time for CIDEr-D); METEOR, when asked and
    available, needs them again and reads them from a list."""
    out = into if into is not None else CaptionCorpus()
    if meteor and out.meteor_reason is None:
        out.meteor_reason = T.meteor_unavailable_reason()
    tok = _bleu_tokens(mode)
    want_meteor = meteor and out.meteor_reason is None
    texts = list(hyps) if want_meteor else hyps
    scores = T.cider_d((tok(h or "") for h in texts), [[tok(x) for x in r] for r in refs])
    out.cider.update(zip(keys, scores))
    if want_meteor and keys:
        if mode == "coco":  # pycocoevalcap gives the jar PTB-tokenised text, not the raw strings
            jh = [" ".join(tok(h or "")) for h in texts]
            jr = [[" ".join(tok(x)) for x in r] for r in refs]
        else:
            jh, jr = [h or "" for h in texts], [list(r) for r in refs]
        try:
            parts, ms, _ = T.meteor_stats(jh, jr)
            out.meteor.update({k: {**p, "meteor": s} for k, p, s in zip(keys, parts, ms)})
        except (OSError, RuntimeError, ValueError) as exc:
            out.meteor_reason = f"METEOR failed: {exc}"
    return out
