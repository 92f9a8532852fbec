"""Traditional caption metrics for 3DBench's text tasks, in pure Python, plus METEOR through Java.

Implementations follow pycocoevalcap (BLEU with the "closest" reference length, ROUGE-L with
β = 1.2, CIDEr-D with σ = 6, n = 1..4, clipping and the ×10 factor) but tokenise with scenebench's
own rule (lower case, punctuation to spaces; no Java PTB tokenizer), so names carry the tag
``_py``. CIDEr-D's IDF comes from the references of the evaluated corpus: the same answer scores
differently in another subset. METEOR needs ``java`` and a METEOR 1.5 jar (env
``SCENEBENCH_METEOR_JAR``); without them it is reported unavailable with the reason.
Metric cards: ``docs/metrics/bench3d_{bleu4,rouge_l,cider_d,meteor}.md``.

References:

- BLEU: Papineni et al., "BLEU: a Method for Automatic Evaluation of Machine Translation", ACL 2002.
- ROUGE-L: Lin, "ROUGE: A Package for Automatic Evaluation of Summaries", ACL Workshop Text
  Summarization Branches Out, 2004.
- CIDEr-D: Vedantam, Zitnick, Parikh, "CIDEr: Consensus-based Image Description Evaluation",
  CVPR 2015, arXiv 1411.5726.
- METEOR 1.5: Denkowski, Lavie, "Meteor Universal: Language Specific Translation Evaluation for Any
  Target Language", WMT 2014.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

TOKENIZER_VERSION = "sb-tok-1"
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens; punctuation separates and is dropped."""
    return _TOKEN.findall(text.lower())


def ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


# ---------------------------------------------------------------------------------------------
# BLEU: per-sample sufficient statistics, corpus score from their sums


def bleu_stats(hyp: Sequence[str], refs: Sequence[Sequence[str]], max_n: int = 4) -> dict[str, float]:
    """Clipped matches ``m1..m4``, candidate n-gram counts ``g1..g4``, ``hyp_len`` and closest ``ref_len``."""
    out: dict[str, float] = {}
    for n in range(1, max_n + 1):
        h = ngrams(hyp, n)
        maxref: Counter[tuple[str, ...]] = Counter()
        for r in refs:
            for g, c in ngrams(r, n).items():
                if c > maxref[g]:
                    maxref[g] = c
        out[f"m{n}"] = float(sum(min(c, maxref[g]) for g, c in h.items()))
        out[f"g{n}"] = float(max(0, len(hyp) - n + 1))
    out["hyp_len"] = float(len(hyp))
    out["ref_len"] = float(min((abs(len(r) - len(hyp)), len(r)) for r in refs)[1]) if refs else 0.0
    return out


def bleu_from_sums(p: Sequence[float | None], hyp_len: float, ref_len: float) -> float | None:
    """Corpus BLEU-N from precisions ``p`` (Σm/Σg) and summed lengths; 0 when any precision is 0 or None.

    Reference: Papineni et al., ACL 2002 (BLEU).
    """
    if hyp_len <= 0:
        return 0.0 if ref_len > 0 else None
    known = [x for x in p if x is not None]
    if len(known) < len(p) or any(x <= 0 for x in known):
        return 0.0
    logp = sum(math.log(x) for x in known) / len(known)
    bp = 1.0 if hyp_len >= ref_len else math.exp(1.0 - ref_len / hyp_len)
    return math.exp(logp) * bp


# ---------------------------------------------------------------------------------------------
# ROUGE-L


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (row-by-row dynamic programme)."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else (prev[j + 1] if prev[j + 1] > cur[j] else cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(hyp: Sequence[str], refs: Sequence[Sequence[str]], beta: float = 1.2) -> float:
    """pycocoevalcap ROUGE-L: best precision and best recall over references, F_β of the two; in [0, 1].

    Reference: Lin, 2004 (ROUGE-L).
    """
    if not hyp or not refs:
        return 0.0
    lcs = [lcs_length(r, hyp) for r in refs]
    prec = max(l / len(hyp) for l in lcs)  # noqa: E741
    rec = max(l / len(r) if r else 0.0 for l, r in zip(lcs, refs))  # noqa: E741
    if prec == 0 or rec == 0:
        return 0.0
    return ((1 + beta**2) * prec * rec) / (rec + beta**2 * prec)


# ---------------------------------------------------------------------------------------------
# CIDEr-D (corpus IDF)


Gram = tuple[str, ...]


def _vec(counts: Counter[Gram], df: Counter[Gram], log_n_docs: float, n: int) -> tuple[list[dict[Gram, float]], list[float], int]:
    vec: list[dict[Gram, float]] = [{} for _ in range(n)]
    norm = [0.0] * n
    length = 0
    for g, tf in counts.items():
        k = len(g) - 1
        v = float(tf) * (log_n_docs - math.log(max(1.0, float(df[g]))))
        vec[k][g] = v
        norm[k] += v * v
        if k == 1:  # pycocoevalcap measures length in bigrams (its `n == 1`); reproduced
            length += tf
    return vec, [math.sqrt(x) for x in norm], length


def cider_d(hyps: Iterable[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]], n: int = 4, sigma: float = 6.0) -> list[float]:
    """Per-sample CIDEr-D scores (the corpus score is their mean); IDF from ``refs`` of this corpus.

    Needs at least one sample; a single-sample corpus has IDF 0 everywhere and scores 0.
    Reference: Vedantam et al., CVPR 2015, arXiv 1411.5726 (CIDEr-D).
    """

    def grams(toks: Sequence[str]) -> Counter[tuple[str, ...]]:
        c: Counter[tuple[str, ...]] = Counter()
        for k in range(1, n + 1):
            c.update(ngrams(toks, k))
        return c

    ref_counts = [[grams(r) for r in rs] for rs in refs]
    df: Counter[tuple[str, ...]] = Counter()
    for rc in ref_counts:
        df.update({g for c in rc for g in c})
    log_docs = math.log(float(len(refs))) if refs else 0.0
    scores = []
    for h, rc in zip(hyps, ref_counts):
        vh, nh, lh = _vec(grams(h), df, log_docs, n)
        total = 0.0
        for r in rc:
            vr, nr, lr = _vec(r, df, log_docs, n)
            delta = float(lh - lr)
            val = 0.0
            for k in range(n):
                s = sum(min(v, vr[k].get(g, 0.0)) * vr[k].get(g, 0.0) for g, v in vh[k].items())
                if nh[k] != 0 and nr[k] != 0:
                    s /= nh[k] * nr[k]
                val += s * math.exp(-(delta**2) / (2 * sigma**2))
            total += val / n
        scores.append(total / len(rc) * 10.0 if rc else 0.0)
    return scores


# ---------------------------------------------------------------------------------------------
# METEOR through Java


def meteor_unavailable_reason(jar: str | None = None) -> str | None:
    """Why METEOR cannot run here (None when it can)."""
    jar = jar or os.environ.get("SCENEBENCH_METEOR_JAR")
    if shutil.which("java") is None:
        return "METEOR needs Java ('java' not found on PATH)"
    if not jar:
        return "METEOR needs a METEOR 1.5 jar: set SCENEBENCH_METEOR_JAR to its path"
    if not Path(jar).is_file():
        return f"METEOR jar {jar} does not exist"
    return None


def meteor_scores(hyps: Sequence[str], refs: Sequence[Sequence[str]], jar: str | None = None, timeout: float = 600.0) -> list[float]:
    """Per-sample METEOR 1.5 scores through the jar's ``-stdio`` protocol (as pycocoevalcap drives it).

    Reference: Denkowski, Lavie, WMT 2014 (METEOR 1.5).
    """
    jar = jar or os.environ.get("SCENEBENCH_METEOR_JAR")
    reason = meteor_unavailable_reason(jar)
    if reason:
        raise RuntimeError(reason)

    def clean(s: str) -> str:  # the protocol's field separator must not appear inside a field
        return " ".join(s.replace("|||", " ").split())

    lines = []
    for h, rs in zip(hyps, refs):
        lines.append("SCORE ||| " + " ||| ".join(clean(r) for r in rs) + " ||| " + clean(h))
    proc = subprocess.Popen(
        ["java", "-jar", "-Xmx2G", str(jar), "-", "-", "-stdio", "-l", "en", "-norm"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stats = []
    assert proc.stdin and proc.stdout
    try:
        for line in lines:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            stats.append(proc.stdout.readline().strip())
        proc.stdin.write("EVAL ||| " + " ||| ".join(stats) + "\n")
        proc.stdin.flush()
        scores = [float(proc.stdout.readline().strip()) for _ in stats]
        proc.stdout.readline()  # the corpus score, which scenebench recomputes as the mean
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
    return scores
