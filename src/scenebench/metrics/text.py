"""Traditional caption metrics for 3DBench's text tasks, in pure Python, plus METEOR through Java.

"coco" rules: what pycocoevalcap's COCOEvalCap computes (BLEU with the "closest" reference length,
ROUGE-L with β = 1.2, CIDEr-D with σ = 6, n = 1..4, clipping and the ×10 factor, METEOR 1.5 corpus
score from summed statistics) on its PTB tokens. The tokenizer is a Python reimplementation of the
PTB rules pycocoevalcap applies, so BLEU/ROUGE-L/CIDEr-D need no Java (names keep the ``_py`` tag:
computed in Python). CIDEr-D's IDF comes from the references of the evaluated corpus: the same
answer scores differently in another subset. METEOR needs ``java`` and the METEOR 1.5 jar (the one
in the pycocoevalcap wheel, or ``$SCENEBENCH_METEOR_JAR``); without them it is reported unavailable
with the reason (the Java-free mode).
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

import atexit
import importlib.util
import math
import os
import re
import shutil
import subprocess
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

# ptb-py-2: the jar's rules for no./fig. (a period kept only before a number), smileys, backslashes,
# zero-width spaces, fractions after numbers, numbers' and URLs' final periods, 'n' (ptb-py-1 differed)
TOKENIZER_VERSION = "ptb-py-2"
# the text-metric rules as a whole (tokenizer, BLEU-1 with brevity penalty, METEOR from summed statistics);
# bumped from "sb-1" (sb-tok-1, BLEU-1 without BP, METEOR as the per-sample mean), then from "coco-1"
# (ptb-py-1; ROUGE-L 0 for an empty candidate against an empty reference, pycocoevalcap's 1.0)
TEXT_METRICS_VERSION = "coco-2"

# What pycocoevalcap's PTBTokenizer does, in Python: Stanford PTBTokenizer 3.4.1 run with
# ``-preserveLines -lowerCase``, then its PUNCTUATIONS tokens dropped. The jar lower-cases *before*
# that list is compared, so the bracket tokens (-lrb- ...) survive; reproduced on purpose.

PUNCTUATIONS = frozenset(["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"])
_BRACKETS = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-"}
# words whose final period PTB keeps (besides single letters and dotted forms such as u.s.a.)
_ABBREV = frozenset(
    "mr mrs ms dr prof st jr sr co corp inc ltd bros vs etc ft jan feb mar apr jun jul aug sep "
    "sept oct nov dec mt gen gov sen rep rev col lt sgt capt cmdr adm maj messrs mme mlle esq hon pres supt det wm "
    "dept univ assn ave blvd rd al cf est ext sq tel".split()
)
# ... and these only before a number (``no. 5`` keeps it, ``I have no.`` does not); ``vol.`` never
_ABNUM = frozenset("no nos fig figs art op pp".split())
_SPECIAL = {
    "cannot": ["can", "not"],
    "gonna": ["gon", "na"],
    "gotta": ["got", "ta"],
    "wanna": ["wan", "na"],
    "lemme": ["lem", "me"],
    "gimme": ["gim", "me"],
    "'tis": ["'t", "is"],
    "'twas": ["'t", "was"],
    "y'all": ["y'", "all"],
}
_CLITICS = re.compile(r"(?i)^(.*?[^'])((?:n't|'s|'re|'ll|'m|'ve|'d)+)$")
_CLITIC = re.compile(r"(?i)n't|'s|'re|'ll|'m|'ve|'d")
_DECADE = re.compile(r"'\d0s")
# PTB3 normalisation: curly quotes to ASCII, dashes to --, the ellipsis character to ..., fractions
_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2013": " -- ",
        "\u2014": " -- ",
        "\u2015": " -- ",
        "\u2026": " ... ",
        "\u2010": None,  # the jar drops these hyphens as untokenizable
        "\u2011": None,
        "\u200b": " ",  # zero-width space and joiners, word joiner, BOM: the jar splits words there
        "\u200c": " ",
        "\u200d": " ",
        "\u2060": " ",
        "\ufeff": " ",
        "\u00ad": None,  # a soft hyphen joins its word
        "\u00bc": " 1/4 ",
        "\u00bd": " 1/2 ",
        "\u00be": " 3/4 ",
    }
)
# split anywhere: brackets, quotes and symbols the lexer never keeps inside a word; commas and colons
# except between digits (1,000  2:30); & except between capitals (AT&T); + except in ++ or before a digit
_SPLIT = re.compile(
    r"""(\.{3,}|[()\[\]{}"*=~;`$%\\\u00b0\u00b2\u00b3\u00b9\u2070-\u2079]|(?<=\d)'(?=\d)|[!?]+|--+|(?<!\d),|,(?!\d)"""
    r"""|(?<!\d):|:(?!\d)|(?<!\+)\+(?![+\d])|(?<![A-Z])&|&(?![A-Z])|#(?=\d)|<+|>+)"""
)
_URL = re.compile(r"(?i)^(?:https?://|www\.)\S+$|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_URL_TAIL = re.compile(r"[.,!?;:]+$")  # a URL's final punctuation is the sentence's (``see www.x.com.``)
# PTB3's SMILEY (brackets inside become -LRB-/-RRB-); not one when a letter or digit follows (``C:\dir``)
_SMILEY = re.compile(r"([<>]?[:;=][\-o*']?[()DPdpO\\{@|\[\]])(?!\w)")
# PTB3's FRAC: a whole number and a fraction are one token joined by a no-break space (``2 1/2``)
_FRACTION = re.compile(r"(?<![\d])(\d{1,4})[ \u00a0](\d{1,4}/\d{1,4})")
_NBSP = "\x00"  # the joining space while the text is split on whitespace
_NUMBER = re.compile(r"\d[\d.,]*")
_NUM_UNIT = re.compile(r"^(\d+(?:[.,]\d+)+)([^\W\d_].*)$")  # 1.5m -> 1.5 m (but 20cm stays)
_WORDISH = re.compile(r"[\w.'&/@#+-]")


def _word(piece: str) -> list[str]:
    """PTB tokens of one piece holding no split symbol: periods, clitics, quotes, special words."""
    if piece.endswith(".") and len(piece) > 1:
        stem = piece.rstrip(".")
        dots = len(piece) - len(stem)
        if not stem:
            return ["..."] if dots >= 3 else ["."] * dots
        if dots >= 3:  # "hmm..." -> hmm ...; "j...." -> j. ...
            return _word(stem + "." if dots > 3 else stem) + ["..."]
        if _NUMBER.fullmatch(stem):  # 5.50. -> 5.50 (a number's final period ends the sentence)
            return [stem] + ["."] * dots
        if m := _NUM_UNIT.match(stem):  # 1.5m. -> 1.5 m. (the unit is the word the period follows)
            return [m.group(1), *_word(m.group(2) + "." * dots)]
        if "." in stem or (len(stem) == 1 and stem.isalpha()) or stem.lower() in _ABBREV or stem.lower() in _ABNUM:
            return [stem + "."] + ["."] * (dots - 1)
        return _word(stem) + ["."] * dots
    if m := _NUM_UNIT.match(piece):
        return [m.group(1), m.group(2)]
    low = piece.lower()
    if low == "'n'":
        return [piece]
    if low in _SPECIAL:
        return list(_SPECIAL[low])
    if "'n'" in low and low != "'n'":  # rock'n'roll -> rock 'n' roll
        i = low.index("'n'")
        head, tail = piece[:i], piece[i + 3 :]
        return (_word(head) if head else []) + ["'n'"] + (_word(tail) if tail else [])
    if piece.startswith("'") and len(piece) > 1 and not _DECADE.fullmatch(low) and not _CLITIC.fullmatch(low):
        return ["`"] + _word(piece[1:])  # an opening single quote
    if piece.endswith("'") and len(piece) > 1 and not low.endswith("n'"):
        return _word(piece[:-1]) + ["'"]  # a closing quote or a plural possessive
    if m := _CLITICS.match(piece):
        return [m.group(1), *_CLITIC.findall(m.group(2))]
    return [piece]


def tokenize(text: str) -> list[str]:
    """pycocoevalcap's tokens of ``text`` (Stanford PTB rules, lower case, its punctuation list removed).

    A Python reimplementation of what ``PTBTokenizer().tokenize`` returns, without Java; letters of
    any script are kept (``café`` stays ``café``). Known differences from the jar are listed in
    ``docs/metrics/bench3d_bleu4.md``.
    """
    text = text.translate(_TRANSLATE)
    if not text.isascii():  # the jar drops characters outside the BMP (emoji) as untokenizable
        text = "".join(c for c in text if ord(c) <= 0xFFFF)
    text = re.sub(r"(?<=\w)\.(?=\.\.\.)", ". ", text)
    if "/" in text:
        text = _FRACTION.sub(lambda m: m.group(1) + _NBSP + m.group(2) + (" " if m.string[m.end() : m.end() + 1].isdigit() else ""), text)
    toks: list[str] = []
    for chunk in text.split():
        tail = _URL_TAIL.search(chunk)
        if _URL.match(chunk[: tail.start()] if tail else chunk):
            toks.append(chunk[: tail.start()] if tail else chunk)
            continue
        for p in _pieces(chunk):
            if isinstance(p, tuple):  # a smiley, as one token
                toks.append(p[0].replace("(", "-LRB-").replace(")", "-RRB-"))
                continue
            if not p:
                continue
            if p in _BRACKETS:
                toks.append(_BRACKETS[p])
            elif p.startswith("..."):
                toks.append("...")
            elif p == '"':
                toks.append("``")  # opening or closing, both dropped
            elif p.startswith("--") or not _WORDISH.search(p) or (len(p) == 1 and not p.isalnum()):
                toks.append(p)
            else:
                toks.extend(_word(p))
    for i, t in enumerate(toks):  # no. fig. pp. keep their period only before a number
        if t.endswith(".") and t[:-1].lower() in _ABNUM and not (i + 1 < len(toks) and toks[i + 1][:1].isdigit()):
            toks[i] = t[:-1]
    out = [t for t in (x.lower() for x in toks) if t not in PUNCTUATIONS]
    return [t.replace(_NBSP, "\u00a0") for t in out] if _NBSP in text else out


def _pieces(chunk: str) -> list[str | tuple[str]]:
    """The pieces of a whitespace-free chunk: smileys as 1-tuples, the text between split by ``_SPLIT``."""
    if not _SMILEY.search(chunk):
        return list(_SPLIT.split(chunk))
    out: list[str | tuple[str]] = []
    for k, part in enumerate(_SMILEY.split(chunk)):
        if k % 2:
            out.append((part,))
        elif part:
            out.extend(_SPLIT.split(part))
    return out


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
    if not refs:
        return 0.0
    # pycocoevalcap splits an empty text into one empty token: an empty candidate against an empty
    # reference has LCS 1 of 1 and scores 1.0 (and 0 against any non-empty one); reproduced.
    hyp = hyp or [""]
    refs = [r or [""] for r in refs]
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

# Meteor 1.5 "-l en" defaults (the jar's default task): α, β, γ, δ and the exact/stem/synonym/
# paraphrase module weights. Needed to turn the jar's per-segment statistics into summable parts.
METEOR_ALPHA, METEOR_BETA, METEOR_GAMMA, METEOR_DELTA = 0.85, 0.20, 0.60, 0.75
METEOR_WEIGHTS = (1.0, 0.6, 0.8, 0.6)
METEOR_FIELDS = ("met_tw", "met_tl", "met_rw", "met_rl", "met_ch", "met_wm")


def meteor_jar() -> str | None:
    """``$SCENEBENCH_METEOR_JAR``, else the meteor-1.5.jar inside an installed pycocoevalcap, else None."""
    env = os.environ.get("SCENEBENCH_METEOR_JAR")
    if env:
        return env
    try:
        spec = importlib.util.find_spec("pycocoevalcap")  # locates the wheel without importing it
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec else []:
        jar = Path(root) / "meteor" / "meteor-1.5.jar"
        if jar.is_file():
            return str(jar)
    return None


def meteor_unavailable_reason(jar: str | None = None) -> str | None:
    """Why METEOR cannot run here (None when it can)."""
    jar = jar or meteor_jar()
    if shutil.which("java") is None:
        return "METEOR needs Java ('java' not found on PATH)"
    if not jar:
        return "METEOR needs a METEOR 1.5 jar: install pycocoevalcap or set SCENEBENCH_METEOR_JAR to its path"
    if not Path(jar).is_file():
        return f"METEOR jar {jar} does not exist"
    return None


def meteor_parts(stats: Sequence[float]) -> dict[str, float]:
    """Summable parts of one segment's 23 jar statistics (``MeteorStats`` order).

    Weighted matches and lengths (test ``met_tw``/``met_tl``, reference ``met_rw``/``met_rl``), chunks
    ``met_ch`` (0 for a perfect one-chunk match: the jar's ``addStats`` skips those) and mean word matches
    ``met_wm``. The corpus METEOR is :func:`meteor_from_sums` of their sums, as the jar's EVAL line does.
    """
    if len(stats) != 23:
        raise ValueError(f"METEOR statistics line has {len(stats)} numbers, expected 23")
    tl, rl, tf, rf = stats[:4]
    d = METEOR_DELTA
    tw = sum(stats[4 + 4 * i] * w * d + stats[6 + 4 * i] * w * (1 - d) for i, w in enumerate(METEOR_WEIGHTS))
    rw = sum(stats[5 + 4 * i] * w * d + stats[7 + 4 * i] * w * (1 - d) for i, w in enumerate(METEOR_WEIGHTS))
    t_all = sum(stats[4 + 4 * i] + stats[6 + 4 * i] for i in range(4))
    r_all = sum(stats[5 + 4 * i] + stats[7 + 4 * i] for i in range(4))
    perfect = t_all == tl and r_all == rl and stats[20] == 1
    return {
        "met_tw": tw,
        "met_tl": d * (tl - tf) + (1 - d) * tf,
        "met_rw": rw,
        "met_rl": d * (rl - rf) + (1 - d) * rf,
        "met_ch": 0.0 if perfect else stats[20],
        "met_wm": (stats[21] + stats[22]) / 2,
    }


def meteor_from_sums(precision: float | None, recall: float | None, frag: float | None) -> float | None:
    """METEOR from weighted precision, recall and chunks per matched word (the jar's ``computeMetrics``).

    ``None`` precision or recall (nothing to score) gives None; a zero one, or no matches, gives 0.
    A perfect one-chunk match has ``frag`` 0 (its chunks are not counted). Reference: Denkowski, Lavie,
    WMT 2014 (METEOR 1.5).
    """
    if precision is None or recall is None:
        return None
    if precision <= 0 or recall <= 0 or frag is None:
        return 0.0
    fmean = 1.0 / ((1.0 - METEOR_ALPHA) / precision + METEOR_ALPHA / recall)
    return max(fmean * (1.0 - METEOR_GAMMA * math.pow(frag, METEOR_BETA)), 0.0)


def meteor_score(parts: dict[str, float]) -> float:
    """One segment's METEOR from :func:`meteor_parts` (what the jar prints for it)."""
    p = parts["met_tw"] / parts["met_tl"] if parts["met_tl"] > 0 else None
    r = parts["met_rw"] / parts["met_rl"] if parts["met_rl"] > 0 else None
    f = parts["met_ch"] / parts["met_wm"] if parts["met_wm"] > 0 else None
    return meteor_from_sums(p, r, f) or 0.0


class _MeteorProcess:
    """One running ``meteor-1.5.jar - - -stdio -l en -norm``, reused by every call in this process.

    Starting the JVM and loading the paraphrase table costs seconds (9 s a start on a loaded 2-core
    box) while scoring a few hundred segments takes well under one; a 3DBench scoring asks for five
    corpora and the demo for dozens. Reuse changes no number: each ``SCORE`` line is answered from its
    own segment only and ``EVAL`` from the statistics sent on its line, as pycocoevalcap's ``Meteor``
    reuses its one process across ``compute_score`` calls. The serial collector: the same CPU time
    to start as the default on 2 cores, half the resident memory (0.6 GB rather than 1.1 GB).
    """

    def __init__(self, jar: str) -> None:
        self.jar, self.pid = jar, os.getpid()
        self.proc = subprocess.Popen(
            ["java", "-XX:+UseSerialGC", "-jar", "-Xmx2G", str(Path(jar).resolve()), "-", "-", "-stdio", "-l", "en", "-norm"],
            cwd=str(Path(jar).resolve().parent),  # the jar finds its paraphrase table relative to itself
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )

    def alive(self) -> bool:
        return self.pid == os.getpid() and self.proc.poll() is None

    def ask(self, line: str, answers: int = 1) -> list[str]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = [self.proc.stdout.readline().strip() for _ in range(answers)]
        if not all(out):
            raise RuntimeError("the METEOR jar stopped answering (no statistics line)")
        return out

    def close(self, timeout: float = 600.0) -> None:
        if self.pid != os.getpid():  # a forked child's copy: the pipes belong to the parent
            return
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_METEOR: dict[str, _MeteorProcess] = {}
_METEOR_LOCK = threading.Lock()


def _close_meteor() -> None:
    for m in list(_METEOR.values()):
        m.close(timeout=10.0)
    _METEOR.clear()


atexit.register(_close_meteor)


def meteor_stats(
    hyps: Sequence[str], refs: Sequence[Sequence[str]], jar: str | None = None, timeout: float = 600.0
) -> tuple[list[dict[str, float]], list[float], float]:
    """Per-sample :func:`meteor_parts`, the jar's per-sample scores and its corpus score.

    Drives ``meteor-1.5.jar - - -stdio -l en -norm`` as pycocoevalcap does: one ``SCORE ||| refs ||| hyp``
    line per sample, then one ``EVAL`` line with all statistics, answered by the per-sample scores and the
    corpus score computed from the summed statistics. pycocoevalcap sends PTB-tokenised text
    (:func:`tokenize` joined by spaces); so does scenebench. The jar process is started once per
    process and jar (:class:`_MeteorProcess`); a jar that stops answering is dropped, and the next
    call starts a new one. Reference: Denkowski, Lavie, WMT 2014.
    """
    jar = jar or meteor_jar()
    reason = meteor_unavailable_reason(jar)
    if reason:
        raise RuntimeError(reason)
    assert jar is not None

    def clean(s: str) -> str:  # the protocol's field separator must not appear inside a field
        return " ".join(s.replace("|||", " ").split())

    key = str(Path(jar).resolve())
    with _METEOR_LOCK:
        proc = _METEOR.get(key)
        if proc is None or not proc.alive():
            proc = _METEOR[key] = _MeteorProcess(jar)
        try:
            lines = [proc.ask("SCORE ||| " + " ||| ".join(clean(r) for r in rs) + " ||| " + clean(h))[0] for h, rs in zip(hyps, refs)]
            answer = proc.ask("EVAL ||| " + " ||| ".join(lines), answers=len(lines) + 1)
        except BaseException:
            del _METEOR[key]  # half a conversation: the next call starts afresh
            proc.proc.kill()
            proc.close(timeout=timeout)
            raise
    scores, corpus = [float(x) for x in answer[:-1]], float(answer[-1])
    parts = [meteor_parts([float(x) for x in line.split()]) for line in lines]
    return parts, scores, corpus
