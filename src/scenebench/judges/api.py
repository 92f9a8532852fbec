"""The one interface every benchmark uses to ask an LLM judge.

Three kinds of question exist (3DBench's protocol, see ``docs/judges.md``):

``score``
    grade a free-text answer 0–10. ``payload``: ``task``, ``question``, ``answer``, ``reference``
    (str, list of str or None), ``rooms`` and ``objects`` (lists or None; shown to the judge at scene
    level only), ``level`` (``"object"`` or ``"scene"``). ``value`` is the score (float).
``same``
    do the answer and the reference sentence state the same spatial relation? ``payload``:
    ``question``, ``answer``, ``reference``. ``value`` is 1 (same) or 0 (different).
``option``
    which of the listed options does a free-text answer choose? ``payload``: ``question``,
    ``answer``, ``options`` (list of str). ``value`` is the 0-based index or None.

An unparseable reply gives ``valid=False`` and ``value=None``: it is never guessed; the caller
decides what an invalid verdict is worth under its protocol.

This module imports only the standard library so benchmark code can type against it cheaply; the
HTTP client (``openai``) and the local server (``xllamacpp``) are imported when a judge is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from scenebench.errors import ScenebenchError

JudgeKind = Literal["score", "same", "option"]
KINDS: tuple[str, ...] = ("score", "same", "option")


class JudgeUnavailable(ScenebenchError):
    """The judge server stayed down (or kept failing) after every retry.

    Everything judged before the failure is already in the cache, so rerunning the same command
    resumes without asking those items again. ``done`` is how many verdicts were settled in this
    call before the stop.
    """

    def __init__(self, message: str, *, done: int = 0, pending: int = 0) -> None:
        super().__init__(message)
        self.done = done
        self.pending = pending


@dataclass(frozen=True)
class JudgeRequest:
    """One question for the judge. ``payload`` must be JSON-serialisable (it is hashed for the cache)."""

    kind: JudgeKind
    payload: dict[str, Any] = field(hash=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"judge request kind must be one of {KINDS}, got {self.kind!r}")


@dataclass
class JudgeVerdict:
    """The judge's answer to one request.

    ``value``: score (0–10) for ``score``, 1/0 for ``same``, option index (or None) for ``option``;
    None whenever ``valid`` is False. ``raw``: the judge's reply text (None when a rule settled it).
    ``cached``: read from the cache, no call made. ``settled_by_rule``: decided without a call
    (e.g. the answer equals the reference). ``error``: why the verdict is invalid.
    """

    value: float | int | None
    valid: bool
    raw: str | None
    cached: bool
    settled_by_rule: bool
    error: str | None = None


@runtime_checkable
class Judge(Protocol):
    model_id: str
    prompt_versions: dict[str, str]

    def judge_many(self, requests: list[JudgeRequest], *, progress: bool = False) -> list[JudgeVerdict]:
        """Verdicts in the order of ``requests``; raises :class:`JudgeUnavailable` when the server stays down."""

    def usage(self) -> dict[str, int]:
        """Counters since creation: calls, cache_hits, rule_settled, invalid, prompt_tokens, completion_tokens."""

    def close(self) -> None:
        """Release the HTTP client, the cache and (for ``local``) stop the server."""
