"""LLM judges behind one interface (see ``docs/judges.md``).

``api`` (requests, verdicts, the ``Judge`` protocol) is light and imports nothing of this package;
``factory.build_judge`` turns a ``--judge`` value into a judge; ``client`` (openai), ``local_server``
(xllamacpp), ``cache``, ``prompts``, ``rules`` and ``agreement`` are imported when used.
"""

from scenebench.judges.api import Judge, JudgeRequest, JudgeUnavailable, JudgeVerdict

__all__ = ["Judge", "JudgeRequest", "JudgeUnavailable", "JudgeVerdict"]
