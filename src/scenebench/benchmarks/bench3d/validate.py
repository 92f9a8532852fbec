"""``scenebench validate 3dbench``: check a 3DBench folder (and optionally answers); scores nothing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from scenebench.errors import InputError

from .loader import Bench, check_point_clouds, load_bench
from .predictions import read_answers
from .tasks import parse_task_list


def validate_command(
    data: Path,
    predictions: Path | None = None,
    *,
    tasks: str | None = None,
    circular: bool = False,
    allow_missing: bool = False,
    check_clouds: bool = True,
    houses: Path | None = None,
    objects_gt: Path | None = None,
    list_ids: bool = False,
) -> None:
    try:
        task_list = parse_task_list(tasks) if tasks else None
    except ValueError as exc:
        raise InputError(None, str(exc), field="--tasks") from None
    bench = load_bench(data, task_list, houses=houses, objects_gt=objects_gt)
    if list_ids:
        print_ids(bench)
        return
    for t, recs in bench.records.items():
        print(f"{t}: {len(recs)} records ({bench.files[t].name})")
    if check_clouds:
        problems = check_point_clouds(bench)
        if problems:
            for p in problems[:20]:
                print(p, file=sys.stderr)
            raise InputError(data, f"{len(problems)} records name unusable point clouds (first shown above)", field="pcl")
        print("point clouds: ok")
    if predictions is not None:
        ans = read_answers(predictions, bench, circular=circular, allow_missing=allow_missing)
        print(f"answers: {len(ans.by_id)} paired, {len(ans.missing)} missing, {ans.skipped_other_tasks} of other tasks")
    print("ok")


def print_ids(bench: Bench | Any) -> None:
    """TSV for scripts: the ids answers must use (``question_id`` with ``task``) and where each record is."""
    from scenebench.io.files import tsv_row

    out = sys.stdout
    out.write(tsv_row("task", "question_id", "derived", "row", "house", "pcl"))
    for t, recs in bench.records.items():
        for r in recs:
            out.write(tsv_row(t, r.question_id, "yes" if r.derived_id else "no", r.row, r.house, r.pcl))
