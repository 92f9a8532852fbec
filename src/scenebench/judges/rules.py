"""Rule-first settlement: verdicts that need no judge call.

Only cases whose verdict no sensible judge could dispute are settled here, so a rule never changes a
number a judge would have given:

* ``score``: the answer equals (after normalisation) the reference, or one of the references → 10;
  an empty answer → 0.
* ``same``: the answer equals the reference sentence after normalisation → 1 (same).
* ``option``: the answer equals exactly one option after normalisation → that option. (The benchmark's
  own letter/option-text extraction runs before the judge; this is only the identity case.)

The normaliser is versioned (``NORMALIZER_VERSION``) and applied to both sides.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from scenebench.judges.api import JudgeRequest, JudgeVerdict

NORMALIZER_VERSION = "judge-norm-v1"
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def normalize(text: Any) -> str:
    """Lower-case, NFKC, punctuation to spaces, articles dropped, whitespace collapsed."""
    s = unicodedata.normalize("NFKC", str(text)).lower()
    s = _PUNCT.sub(" ", s)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def _refs(ref: Any) -> list[str]:
    if ref is None:
        return []
    if isinstance(ref, (list, tuple)):
        return [normalize(r) for r in ref if r is not None and normalize(r)]
    n = normalize(ref)
    return [n] if n else []


def settle_by_rule(req: JudgeRequest) -> JudgeVerdict | None:
    """A verdict when a rule decides the request, else None (the judge must be asked)."""
    p = req.payload
    answer = normalize(p.get("answer") or "")
    if req.kind == "score":
        if not answer:
            return JudgeVerdict(0.0, True, None, False, True)
        if answer in _refs(p.get("reference")):
            return JudgeVerdict(10.0, True, None, False, True)
    elif req.kind == "same":
        refs = _refs(p.get("reference"))
        if answer and answer in refs:
            return JudgeVerdict(1, True, None, False, True)
    elif req.kind == "option":
        hits = [i for i, o in enumerate(p.get("options") or []) if normalize(o) == answer]
        if answer and len(hits) == 1:
            return JudgeVerdict(hits[0], True, None, False, True)
    return None
