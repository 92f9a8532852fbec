"""The evaluator lineages' answer rules written again, plainly, from the spec's prose (§1.3, §2.3,
§7.2), to check the library's regex-table implementation on fuzzed answers. Character loops and
word lists, no shared code with ``scenebench.metrics.answers``."""

from __future__ import annotations

import string

ALLOWED = set(string.ascii_letters + string.digits + ",'-:")
ALNUM = set(string.ascii_letters + string.digits)
FIXES = {"letf": "left", "let": "left", "tehre": "there", "rigth": "right", "rght": "right", "behine": "behind"}
FIXES |= {"tv": "TV", "chai": "chair", "wasing": "washing", "waslked": "walked", "oclock": "o'clock"}
NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
DIGITS = {str(i): w for i, w in enumerate(NUMBERS)} | {"none": "zero", "23": "twenty-three"}


def _runs(s: str) -> list[str]:
    """``s`` cut into maximal runs of word characters and of everything else (the library's text
    holds only ASCII word characters at the point words are replaced, so a run is a whole word)."""
    out: list[str] = []
    for c in s:
        w = c in ALNUM or c == "_" or (c.isalnum() and not c.isascii())
        if out and (out[-1][0] in ALNUM or out[-1][0] == "_" or (out[-1][0].isalnum() and not out[-1][0].isascii())) == w:
            out[-1] += c
        else:
            out.append(c)
    return out


def _is_word(run: str) -> bool:
    return run[0] in ALNUM or run[0] == "_" or (run[0].isalnum() and not run[0].isascii())


def _map_words(s: str, table: dict[str, str]) -> str:
    return "".join(table.get(r, r) if _is_word(r) else r for r in _runs(s))


def clean_answer(text: str) -> str:
    """LEO's clean_answer from its description: lower; trim spaces at the ends; one space for runs of
    spaces; delete what is not an ASCII letter, digit, , ' - : or whitespace; whole-word fixes; the
    numbers; a digit glued to a word; articles before a word; backwards."""
    s = text.lower()
    # trailing spaces go; like a regex "$", "the end" is also just before a final newline
    if s.endswith(" "):
        s = s.rstrip(" ")
    elif s.endswith("\n"):
        s = s[:-1].rstrip(" ") + "\n"
    s = s.lstrip(" ")
    while "  " in s:
        s = s.replace("  ", " ")
    s = "".join(c for c in s if c in ALLOWED or c.isspace())
    s = _map_words(s, FIXES)
    # "o'" then one or more spaces then the word "clock" -> "o'clock" ("o" a whole word)
    runs = _runs(s)
    out: list[str] = []
    i = 0
    while i < len(runs):
        r = runs[i]
        prev_ok = not out or not _is_word(out[-1])
        if (
            r == "o"
            and prev_ok
            and i + 2 < len(runs)
            and runs[i + 1].startswith("'")
            and runs[i + 1][1:]
            and set(runs[i + 1][1:]) == {" "}
            and runs[i + 2] == "clock"
        ):
            out.append("o'clock")
            i += 3
            continue
        out.append(r)
        i += 1
    s = "".join(out)
    s = _map_words(s, DIGITS)
    s = "".join(
        (r.rstrip(string.digits) if _is_word(r) and len(r) >= 2 and r[-1] in string.digits and r[:-1].isalpha() and r[:-1].isascii() else r)
        for r in _runs(s)
    )
    for article in ("a", "an", "the"):
        runs = _runs(s)
        out, i = [], 0
        while i < len(runs):
            r = runs[i]
            # the article, one space, then a word that starts with an ASCII letter: the article and
            # the space go, and the letters it was followed by cannot start another match
            if r == article and i + 2 < len(runs) and runs[i + 1] == " " and runs[i + 2][0] in string.ascii_letters:
                nxt = runs[i + 2]
                k = 0
                while k < len(nxt) and nxt[k] in string.ascii_letters:
                    k += 1
                out.append(nxt[:k])
                rest = nxt[k:]
                if rest:
                    runs[i + 2] = rest
                    i += 2
                else:
                    i += 3
                continue
            out.append(r)
            i += 1
        s = "".join(out)
    return _map_words(s, {"backwards": "backward"})


def squeeze(s: str) -> str:
    return "".join(ch for ch in s if not ch.isspace())


def leo(pred: str, refs: list[str]) -> tuple[int, int]:
    """Walk the references in order: equal -> (1, 1); one inside the other (spaces removed) -> (0, 1)."""
    for r in refs:
        if pred == r:
            return (1, 1)
        if squeeze(pred) in squeeze(r) or squeeze(r) in squeeze(pred):
            return (0, 1)
    return (0, 0)


def chatscene(pred: str, refs: list[str]) -> tuple[int, int]:
    """Empty -> (0, 0); any equal reference -> (1, 1); any containment -> (0, 1)."""
    if pred == "":
        return (0, 0)
    if any(pred == r for r in refs):
        return (1, 1)
    if any(squeeze(pred) in squeeze(r) or squeeze(r) in squeeze(pred) for r in refs):
        return (0, 1)
    return (0, 0)


def chatscene_trim(s: str) -> str:
    if len(s) <= 1:
        return s
    if s.endswith("."):
        s = s[:-1]
    return s[:1].lower() + s[1:]


def normalize(s: str) -> str:
    """qa-norm-1 from the docs: lower; curly apostrophes to '; keep letters, digits, whitespace and
    '-'/''' between word characters; drop articles; 0-20 as words; one space between words."""
    s = s.lower()
    for q in "\u2019\u2018\u02bc`":
        s = s.replace(q, "'")
    chars = list(s)
    for i, c in enumerate(chars):
        if c.isalnum() or c.isspace():
            continue
        if c in "-'" and 0 < i < len(chars) - 1 and _wordch(s[i - 1]) and _wordch(s[i + 1]):
            continue
        chars[i] = " "
    words = [w for w in "".join(chars).split() if w not in ("a", "an", "the")]
    return " ".join(NUMBERS[int(w)] if w.isascii() and w.isdigit() and int(w) <= 20 else w for w in words)


def _wordch(c: str) -> bool:
    return (c.isalnum() or c == "_") and c != "_"


def strict(pred: str, refs: list[str]) -> tuple[int, int]:
    p, rs = normalize(pred), [normalize(r) for r in refs]
    if p in rs:
        return (1, 1)
    if squeeze(p) and any(squeeze(r) and (squeeze(p) in squeeze(r) or squeeze(r) in squeeze(p)) for r in rs):
        return (0, 1)
    return (0, 0)


def sqa3d_llm(pred: str, ref: str) -> int:
    """Exact, substring, substring without spaces, or one word in common."""
    if pred == ref or pred in ref or pred.replace(" ", "") in ref.replace(" ", ""):
        return 1
    return 1 if set(pred.split()) & set(ref.split()) else 0
