"""LLM judges behind one interface (see ``docs/judges.md``).

``api`` (requests, verdicts, ``make_judge``) is light; ``client`` (openai), ``local_server``
(xllamacpp), ``cache``, ``prompts``, ``rules`` and ``agreement`` are imported when used.
"""

from scenebench.judges.api import Judge, JudgeRequest, JudgeUnavailable, JudgeVerdict, make_judge

__all__ = ["Judge", "JudgeRequest", "JudgeUnavailable", "JudgeVerdict", "make_judge"]
