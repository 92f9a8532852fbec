"""How 3DBench's parsed CLI values become keywords: ``--judge*`` build one judge (closed when the
command ends), ``run --tasks`` takes official task names too. Imports only the standard library at load time."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def values(command: str, kw: dict[str, Any]) -> Iterator[dict[str, Any]]:
    out = dict(kw)
    if command == "run" and out.get("tasks"):
        from scenebench.benchmarks.bench3d.tasks import parse_task_list
        from scenebench.errors import InputError

        try:
            out["tasks"] = parse_task_list(",".join(out["tasks"]))
        except ValueError as exc:
            raise InputError(None, str(exc), field="--tasks") from None
    if command not in ("score", "run"):
        yield out
        return
    from scenebench.benchmarks.bench3d.run import make_judge_or_none

    judge = make_judge_or_none(out.pop("judge"), out.pop("judge_base_url"), out.pop("judge_cache"), out.pop("judge_concurrency", 4))
    try:
        yield {**out, "judge": judge}
    finally:
        if judge is not None:
            judge.close()
