"""Print a results summary as a Rich table: metric with its 95% CI, per group, with counts."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from scenebench.consoles import make_console
from scenebench.results import FEW_SCENES_MARK, Results


def fmt(value: float | None, ci: list[float] | None = None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    s = f"{value:.{digits}f}"
    if ci:
        s += f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"
    return s


MIN_CI_SAMPLES = 5  # a group of fewer samples shows its count, not an interval (issue 27 item 1)


def judge_notes(res: Results) -> list[str]:
    """What a judged run must say wherever its numbers are shown: which judge (model id, endpoint,
    prompt versions), and the bundled judge's warning (also for results written before it was kept)."""
    from scenebench.judges.naming import judge_summary, judge_warning

    info = res.extra.get("judge")
    line = judge_summary(info)
    if line is None:
        return []
    warn = info.get("warning") or judge_warning(info.get("model_id"))
    return [line] + ([warn] if warn else [])


MAX_GROUP_ROWS = 30  # a breakdown with more values (RIO's per-scene one: thousands) prints one line


def results_table(res: Results, metrics: list[str] | None = None, title: str | None = None, max_group_rows: int | None = None) -> Table:
    """The results as a table: overall, then one section per breakdown. A breakdown with more than
    ``max_group_rows`` values (None: no limit) is one row naming how many there are; every value
    is in results.json and in ``scenebench report``."""
    overall = res.metrics.get("overall", {})
    # helper figures (metric_info "helper": n-gram precisions a BLEU is built from) stay in results.json
    names = metrics or [k for k in overall if not res.metric_info.get(k, {}).get("helper")]
    ci_all: dict[str, Any] = res.confidence_intervals.model_dump()
    table = Table(title=title or f"{res.benchmark} — protocol: {res.protocol} (95% CI, scene-clustered bootstrap)")
    table.add_column("group", no_wrap=True, min_width=12)
    table.add_column("n", justify="right")
    for n in names:
        unit = res.metric_info.get(n, {}).get("unit", "")
        table.add_column(f"{n}{f' ({unit})' if unit else ''}", justify="right")

    def row(label: str, vals: dict, cis: dict, counts: Any, key: str = "overall", value: str | None = None) -> None:
        n = counts.n_samples if counts is not None else ""
        show_ci = counts is None or counts.n_samples >= MIN_CI_SAMPLES
        few = show_ci and not res.ci_is_evidence(key, value)  # an interval over < 10 scenes: value only, marked
        cells = [fmt(vals.get(m), (cis or {}).get(m) if show_ci and not few else None) for m in names]
        table.add_row(label, str(n), *[f"{c} {FEW_SCENES_MARK}" if few and c != "n/a" else c for c in cells])

    row("overall", overall, ci_all.get("overall", {}), res.counts)
    for key, block in res.metrics.items():
        if not key.startswith("by_"):
            continue
        table.add_section()
        cis = ci_all.get(key, {}) or {}
        cbg = res.counts_by_group.get(key, {})
        if max_group_rows is not None and len(block) > max_group_rows:
            table.add_row(f"{key[3:]}: {len(block):,} values (in results.json)", "", *["" for _ in names])
            continue
        for gv, vals in block.items():
            row(f"{key[3:]}={gv}", vals, cis.get(gv, {}), cbg.get(gv), key, gv)
    return table


def print_results(res: Results, metrics: list[str] | None = None, console: Console | None = None) -> None:
    console = console or make_console()
    console.print(results_table(res, metrics, max_group_rows=MAX_GROUP_ROWS))
    c = res.counts
    console.print(f"samples {c.n_samples}: scored {c.n_scored}, missing {c.n_missing}, invalid {c.n_invalid}, excluded {c.n_excluded}")
    note = res.few_scenes_note()
    if note:
        console.print(note)
    print_judge_and_warnings(res, console)


def print_judge_and_warnings(res: Results, console: Console) -> None:
    notes = judge_notes(res)
    if notes:
        console.print(Text.assemble(("judge:", "bold"), " ", notes[0]))
    for w in list(dict.fromkeys(res.warnings + notes[1:])):
        console.print(Text.assemble(("warning:", "yellow"), " ", w))
