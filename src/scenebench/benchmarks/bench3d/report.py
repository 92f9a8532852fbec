"""Print 3DBench results: one row per task with its own metrics, then the aggregates."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from scenebench.consoles import make_console
from scenebench.report.console import MIN_CI_SAMPLES, fmt, print_judge_and_warnings
from scenebench.results import FEW_SCENES_MARK, Results


def print_3dbench(res: Results, console: Console | None = None) -> None:
    console = console or make_console()
    ci = res.confidence_intervals.model_dump()
    prim = res.extra.get("primary_metric", {})
    t = Table(title=f"3dbench — protocol: {res.protocol} (95% CI, house-clustered bootstrap)", title_justify="left")
    for col, just in (
        ("task", "left"),
        ("n", "right"),
        ("missing", "right"),
        ("invalid", "right"),
        ("primary", "right"),
        ("other metrics", "left"),
    ):
        t.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for task, vals in res.metrics.get("by_task", {}).items():
        c = res.counts_by_group.get("by_task", {}).get(task)
        p = prim.get(task, "")
        cis = (ci.get("by_task") or {}).get(task, {}) or {}
        unit = res.metric_info.get(p, {}).get("unit", "")
        # corpus BLEU's ingredients (n-gram precisions, length ratio) stay in results.json only
        shown = [k for k in vals if k != p and (k == "bleu4_py" or not (k.startswith("bleu") or k.startswith("len_ratio")))]
        others = "  ".join(f"{k}={fmt(vals[k])}" for k in shown)
        few = not res.ci_is_evidence("by_task", task)  # an interval over < 10 houses: the value only, marked
        value = fmt(vals.get(p), cis.get(p) if (c is None or c.n_samples >= MIN_CI_SAMPLES) and not few else None)
        value += f" {FEW_SCENES_MARK}" if few and vals.get(p) is not None else ""
        if unit and unit != "%" and vals.get(p) is not None:
            value += f" {unit}"
        t.add_row(task, str(c.n_samples if c else ""), str(c.n_missing if c else ""), str(c.n_invalid if c else ""), f"{p} {value}", others)
    t.add_section()
    agg = res.extra.get("aggregates", {})

    def means(label: str, vals: dict, cis: dict, key: str = "overall", value: str | None = None) -> tuple[str, str]:
        # the headline is the rule-scored mean (the same tasks with or without a judge); the judged
        # mean and the mean over every available task beside it, each with its tasks counted
        a = agg.get(label, {})
        n_rule, n_judged = len(a.get("rule_tasks", [])), len(a.get("judged_tasks", []))
        few = not res.ci_is_evidence(key, value)
        head = f"mean_rule {fmt(vals.get('mean_rule'), None if few else cis.get('mean_rule'))}" + (f" {FEW_SCENES_MARK}" if few else "")
        rest = (
            f"mean_judged={fmt(vals.get('mean_judged'))} ({n_judged} tasks)  rule tasks={n_rule}  "
            f"mean_primary={fmt(vals.get('mean_primary'))} (tasks={int(vals.get('n_tasks') or 0)})"
        )
        return head, rest

    for key in ("by_level", "by_ability"):
        for g, vals in res.metrics.get(key, {}).items():
            c = res.counts_by_group.get(key, {}).get(g)
            head, rest = means(f"{key}:{g}", vals, ((ci.get(key) or {}).get(g) or {}), key, g)
            t.add_row(
                f"{key[3:]}={g}",
                str(c.n_samples if c else ""),
                str(c.n_missing if c else ""),
                str(c.n_invalid if c else ""),
                head,
                rest,
            )
    o = res.metrics.get("overall", {})
    head, rest = means("overall", o, ci.get("overall") or {})
    t.add_row("overall", str(res.counts.n_samples), str(res.counts.n_missing), str(res.counts.n_invalid), head, rest)
    console.print(t)
    note = res.few_scenes_note()
    if note:
        console.print(note)
    print_judge_and_warnings(res, console)
