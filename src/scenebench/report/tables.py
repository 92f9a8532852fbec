"""Paper tables: Markdown and LaTeX (booktabs) from finished runs, one row per run.

A benchmark with a :mod:`~scenebench.report.layouts` entry gets the column layout of its paper
(column blocks per question type or task, each with its metrics). Every benchmark also gets long
tables (one row per run and group value) for each breakdown in its results. Values are printed
as stored (percent where the benchmark reports percent); the best value of a column is bold when
several runs are shown, using each metric's ``higher_is_better``. Notes under each table state the
protocol, the CI method and the sample counts, so a copied table still says how it was made.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scenebench.declarations import BaselineWarning
from scenebench.declarations.catalog import find_spec
from scenebench.report.console import MIN_CI_SAMPLES, judge_notes
from scenebench.report.layouts import Layout, layout_for
from scenebench.report.runs import LoadedRun
from scenebench.results import FEW_SCENES_MARK


@dataclass
class Cell:
    value: float | None
    ci: list[float] | None = None
    best: bool = False
    few: bool = False  # its interval is left out: fewer than MIN_CI_SCENES scenes (marked, the notes say why)


@dataclass
class Table:
    title: str
    row_header: list[str]
    leaf: list[str]  # one label per value column
    spans: list[list[tuple[str, int]]] = field(default_factory=list)  # header rows above the leaf row
    rows: list[tuple[list[str], list[Cell]]] = field(default_factory=list)
    higher: list[bool | None] = field(default_factory=list)  # per column
    units: list[str] = field(default_factory=list)  # per column; "%" columns use the requested digits
    counts: list[bool] = field(default_factory=list)  # per column: a count (3DBench's n_tasks), printed as an integer
    notes: list[str] = field(default_factory=list)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", name.lower())


def _find(name: str, available: Sequence[str]) -> str | None:
    want = _norm(name)
    for a in available:
        if _norm(a) == want:
            return a
    return None


def _block_values(run: LoadedRun, group: str | None, value: str | None) -> tuple[dict, dict]:
    ci = run.results.confidence_intervals.model_dump()
    if group is None or value is None:
        # an interval over fewer than 10 scenes is no evidence: the value only (the notes say why)
        return run.results.metrics.get("overall", {}), (ci.get("overall", {}) or {}) if run.results.ci_is_evidence() else {}
    key = f"by_{group}"
    if not run.results.ci_is_evidence(key, value):
        return run.results.metrics.get(key, {}).get(value, {}), {}
    counts = run.results.counts_by_group.get(key, {}).get(value)
    if counts is not None and counts.n_samples < MIN_CI_SAMPLES:  # a group of 1-4 samples: its count, no interval
        return run.results.metrics.get(key, {}).get(value, {}), {}
    return run.results.metrics.get(key, {}).get(value, {}), (ci.get(key, {}) or {}).get(value, {}) or {}


def _few(run: LoadedRun, group: str | None, value: str | None) -> bool:
    """The block's interval comes from fewer than ``MIN_CI_SCENES`` scenes (left out, cell marked)."""
    if group is None or value is None:
        return not run.results.ci_is_evidence()
    return not run.results.ci_is_evidence(f"by_{group}", value)


def _higher(runs: Sequence[LoadedRun], metric: str) -> bool | None:
    for r in runs:
        info = r.results.metric_info.get(metric)
        if info is not None:
            return bool(info.get("higher_is_better", True))
    return None


def _unit(runs: Sequence[LoadedRun], metric: str) -> str:
    for r in runs:
        if metric in r.results.metric_info:
            return str(r.results.metric_info[metric].get("unit", ""))
    return ""


def _is_count(runs: Sequence[LoadedRun], metric: str) -> bool:
    return any((r.results.metric_info.get(metric) or {}).get("kind") == "count" for r in runs)


def _cell_text(table: Table, j: int, value: float | None, digits: int) -> str:
    if value is not None and j < len(table.counts) and table.counts[j] and float(value).is_integer():
        return str(int(value))
    return fmt_value(value, _digits(table, j, digits))


def _digits(table: Table, j: int, digits: int) -> int:
    """Percentages read well with ``digits`` decimals; metres, degrees and raw scores need at least 2."""
    unit = table.units[j] if j < len(table.units) else "%"
    return digits if unit == "%" else max(digits, 2)


def _mark_best(table: Table) -> None:
    if len(table.rows) < 2:
        return
    for j, hib in enumerate(table.higher):
        vals = [(i, cells[j].value) for i, (_, cells) in enumerate(table.rows) if cells[j].value is not None]
        if hib is None or len(vals) < 2:
            continue
        best = (max if hib else min)(v for _, v in vals)
        for i, v in vals:
            table.rows[i][1][j].best = abs(v - best) <= 1e-9 * max(1.0, abs(best))  # ties by value, not float noise


def _notes(runs: Sequence[LoadedRun]) -> list[str]:
    notes = []
    for r in runs:
        c = r.results.counts
        cim = r.results.confidence_intervals
        notes.append(
            f"{r.label}: benchmark {r.benchmark}, protocol {r.protocol}; {c.n_samples} samples "
            f"(scored {c.n_scored}, missing {c.n_missing}, invalid {c.n_invalid}, excluded {c.n_excluded}); "
            f"{int(cim.level * 100)}% CI: {cim.method} over {cim.cluster_key} ({cim.n_resamples} resamples, seed {cim.seed})"
        )
        notes += [f"{r.label}: {n}" for n in judge_notes(r.results)]
        few = r.results.few_scenes_note()
        if few:
            notes.append(f"{r.label}: {few.removeprefix(FEW_SCENES_MARK + ' ')}")
    return notes


# 3DBench text tasks are ranked by an LLM judge; scored without one, their primary metric is n/a
# and the tables and charts show the first of these text metrics a run has instead, saying so.
TEXT_METRIC_FALLBACK = ("bleu4_py", "rouge_l_py", "cider_d_py", "meteor_java")


def paper_table(runs: Sequence[LoadedRun], layout: Layout) -> Table | None:
    """The benchmark's paper layout, rows = runs; ``None`` when no block of the layout has data."""
    first = runs[0].results
    overall_names = list(first.metrics.get("overall", {}))
    group_values = list(first.metrics.get(f"by_{layout.group}", {})) if layout.group else []
    blocks: list[tuple[str, str, str | None]] = []
    for b in layout.blocks:
        if b.value is not None:
            actual = _find(b.value, group_values)
            if actual is None:
                continue
            blocks.append((b.super_label, b.label, actual))
        else:
            blocks.append((b.super_label, b.label, None))
    named = {_norm(b.value) for b in layout.blocks if b.value}
    for v in group_values:  # values the paper did not name still appear, after the named ones
        if _norm(v) not in named:
            blocks.insert(len(blocks) - (1 if blocks and blocks[-1][2] is None else 0), (layout.rest_label, v, v))
    leaf, spans_mid, spans_top, higher, units = [], [], [], [], []
    block_cols: list[tuple[str | None, list[str]]] = []
    block_metrics = {b.value: b.metrics for b in layout.blocks if b.metrics}
    stand_ins: list[str] = []
    for sup, label, value in blocks:
        vals = [_block_values(r, layout.group, value)[0] for r in runs]
        primary = (first.extra.get(layout.primary_from) or {}).get(value) if layout.primary_from and value else None
        if value in block_metrics or (value is None and None in block_metrics):
            metrics = [m for m in block_metrics[value] if any(m in v for v in vals)]
        elif primary:
            metrics = [primary]
            alt = next((m for m in TEXT_METRIC_FALLBACK if any(v.get(m) is not None for v in vals)), None)
            if alt is not None and not any(v.get(primary) is not None for v in vals):
                metrics = [alt]
                stand_ins.append(f"{label}: {primary} is n/a (no judge), {alt} shown instead (not in the mean)")
        elif layout.metrics:
            metrics = [m for want in layout.metrics if (m := _find(want, overall_names)) is not None]
        else:  # every metric with a number for this block in some run
            metrics = [m for m in overall_names if any(v.get(m) is not None for v in vals)]
        metrics = [m for m in metrics if any(v.get(m) is not None for v in vals)]
        if not metrics:
            continue
        block_cols.append((value, metrics))
        leaf += [layout.metric_labels.get(m, m) for m in metrics]
        higher += [_higher(runs, m) for m in metrics]
        units += [_unit(runs, m) for m in metrics]
        spans_mid.append((label, len(metrics)))
        if spans_top and spans_top[-1][0] == sup:
            spans_top[-1] = (sup, spans_top[-1][1] + len(metrics))
        else:
            spans_top.append((sup, len(metrics)))
    if not block_cols:
        return None
    spans = ([spans_top] if any(s for s, _ in spans_top) else []) + [spans_mid]
    t = Table(
        title=f"{first.benchmark} ({first.protocol})",
        row_header=["Method"],
        leaf=leaf,
        spans=spans,
        higher=higher,
        units=units,
        notes=stand_ins + _notes(runs),
    )
    for r in runs:
        cells = []
        for value, metrics in block_cols:
            vals, cis = _block_values(r, layout.group, value)
            cells += [Cell(vals.get(m), cis.get(m), few=_few(r, layout.group, value)) for m in metrics]
        t.rows.append(([r.label], cells))
    _mark_best(t)
    return t


MAX_WIDE_COLUMNS = 8


def long_table(runs: Sequence[LoadedRun], group: str | None) -> Table:
    """Rows = runs (x group values), columns = the metrics reported in those blocks.

    When the blocks report different metrics (3DBench: accuracy for choice tasks, path loss for
    navigation, ...) and a wide table would exceed ``MAX_WIDE_COLUMNS`` columns, the table is
    "tidy" instead: one row per run, group value and metric.
    """
    blocks: list[tuple[LoadedRun, str | None]] = []
    for r in runs:
        if group is None:
            blocks.append((r, None))
        else:
            blocks += [(r, v) for v in r.results.metrics.get(f"by_{group}", {})]
    names: list[str] = []
    for r, v in blocks:
        for m in _block_values(r, group, v)[0]:  # a null metric stays as a dash: never silently dropped
            if m not in names:
                names.append(m)
    title = f"{runs[0].benchmark} ({runs[0].protocol})" + (f" by {group}" if group else "")
    head = ["Method"] + ([group, "n"] if group else ["n"])

    def n_of(r: LoadedRun, v: str | None) -> str:
        if v is None:
            return str(r.results.counts.n_samples)
        c = r.results.counts_by_group.get(f"by_{group}", {}).get(v)
        return str(c.n_samples) if c is not None else ""

    if group is not None and len(names) > MAX_WIDE_COLUMNS:
        t = Table(title=title, row_header=head + ["metric"], leaf=["value"], notes=_notes(runs))
        for r, v in blocks:
            vals, cis = _block_values(r, group, v)
            for m in names:
                if vals.get(m) is not None:
                    unit = _unit(runs, m)
                    t.rows.append(
                        ([r.label, str(v), n_of(r, v), f"{m} ({unit})" if unit else m], [Cell(vals[m], cis.get(m), few=_few(r, group, v))])
                    )
        t.units = ["%"]  # per-row units vary; values print with the requested digits
        return t
    units = {m: _unit(runs, m) for m in names}
    t = Table(
        title=title,
        row_header=head,
        leaf=[f"{m} ({units[m]})" if units[m] else m for m in names],
        higher=[_higher(runs, m) for m in names],
        units=[units[m] for m in names],
        counts=[_is_count(runs, m) for m in names],
        notes=_notes(runs),
    )
    for r, v in blocks:
        vals, cis = _block_values(r, group, v)
        t.rows.append(
            ([r.label] + ([str(v)] if group else []) + [n_of(r, v)], [Cell(vals.get(m), cis.get(m), few=_few(r, group, v)) for m in names])
        )
    if group is None:
        _mark_best(t)
    return t


def tables_for(runs: Sequence[LoadedRun]) -> list[Table]:
    """The paper-layout table (when the benchmark has one), the overall table and one per breakdown."""
    if not runs:
        return []
    out: list[Table] = []
    layout = layout_for(runs[0].benchmark)
    if layout is not None and (t := paper_table(runs, layout)) is not None:
        out.append(t)
    out.append(long_table(runs, None))
    groups: list[str] = []
    for r in runs:
        groups += [g for g in r.results.groups() if g not in groups]
    out += [long_table(runs, g) for g in groups]
    return out


def by_benchmark(runs: Sequence[LoadedRun]) -> dict[str, list[LoadedRun]]:
    """Runs grouped by benchmark, in first-seen order."""
    out: dict[str, list[LoadedRun]] = {}
    for r in runs:
        out.setdefault(r.benchmark, []).append(r)
    return out


def tables_by_benchmark(runs: Sequence[LoadedRun]) -> list[Table]:
    """:func:`tables_for` of each benchmark's runs, one benchmark after the other (a mixed report);
    each table's title names its benchmark, and RIO tables carry the identity-baseline warning."""
    out: list[Table] = []
    for rs in by_benchmark(runs).values():
        ts = tables_for(rs)
        notes = baseline_warnings(rs)
        if ts and notes:
            ts[0].notes = notes + ts[0].notes
        out += ts
    return out


def _declared_warnings(benchmark: str) -> tuple[BaselineWarning, ...]:
    spec = find_spec(benchmark)
    return spec.warnings if spec is not None else ()


def _model(run: LoadedRun) -> str | None:
    model = run.meta.get("model") or (run.results.settings or {}).get("model")
    return model if isinstance(model, str) else None


def is_baseline_run(run: LoadedRun) -> bool:
    """A run of a model the benchmark's declared warnings compare others with (RIO: the identity pose)."""
    return any(_model(run) in w.models for w in _declared_warnings(run.benchmark))


def baseline_warnings(runs: Sequence[LoadedRun]) -> list[str]:
    """The comparisons the runs' benchmark declares a report must flag
    (:class:`~scenebench.declarations.BaselineWarning`): a run of a baseline model that beats
    another run overall on a metric while losing on the declared subset ranks them wrongly."""
    out = []
    for rule in dict.fromkeys(w for r in runs for w in _declared_warnings(r.benchmark)):  # declared order
        base_runs = [r for r in runs if _model(r) in rule.models and rule in _declared_warnings(r.benchmark)]
        for base in base_runs:
            for r in runs:
                if r is base or r.benchmark != base.benchmark or _model(r) in rule.models:
                    continue
                for m in rule.metrics:
                    a_all = (base.results.metrics.get("overall") or {}).get(m)
                    b_all = (r.results.metrics.get("overall") or {}).get(m)
                    a_sub = ((base.results.metrics.get(f"by_{rule.group}") or {}).get(rule.value) or {}).get(m)
                    b_sub = ((r.results.metrics.get(f"by_{rule.group}") or {}).get(rule.value) or {}).get(m)
                    if None in (a_all, b_all, a_sub, b_sub):
                        continue
                    if a_all > b_all and b_sub > a_sub:
                        out.append(
                            rule.text.format(base=base.label, other=r.label, metric=m, a_all=a_all, b_all=b_all, a_sub=a_sub, b_sub=b_sub)
                        )
                        break
    return out


def fmt_value(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def to_markdown(tables: Sequence[Table], *, digits: int = 1, ci: bool = True) -> str:
    """GitHub-flavoured Markdown; column blocks are folded into the header text ("Common sense A25")."""
    parts = []
    for t in tables:
        heads = list(t.leaf)
        if t.spans:  # the innermost spanning row names each block
            i = 0
            for label, span in t.spans[-1]:
                for k in range(span):
                    heads[i + k] = f"{label} {heads[i + k]}".strip()
                i += span
        header = [_md(h) for h in t.row_header + heads]
        lines = [f"**{_md(t.title)}**", "", "| " + " | ".join(header) + " |"]
        lines.append("|" + "|".join([":---"] * len(t.row_header) + ["---:"] * len(heads)) + "|")
        for labels, cells in t.rows:
            vals = []
            for j, c in enumerate(cells):
                d = _digits(t, j, digits)
                s = _cell_text(t, j, c.value, digits)
                if ci and c.ci and c.value is not None:
                    s += f" [{c.ci[0]:.{d}f}, {c.ci[1]:.{d}f}]"
                if ci and c.few and c.value is not None:
                    s += f" {FEW_SCENES_MARK}"
                vals.append(f"**{s}**" if c.best else s)
            lines.append("| " + " | ".join([_md(x) for x in labels] + vals) + " |")
        lines.append("")
        lines += [f"- {_md(n)}" for n in t.notes]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


_MD_SPECIAL = {
    "\\": "\\\\",  # first: a backslash in the data must not undo the escapes below
    "&": "&amp;",  # HTML: a run label or a data value never becomes a tag or an entity
    "<": "&lt;",  # ... nor an autolink ``<javascript:...>``
    ">": "&gt;",
    "[": "\\[",  # links, images and link definitions need brackets: ``[x](javascript:...)`` stays text
    "]": "\\]",
    "|": "\\|",  # a cell boundary
    "`": "\\`",
    "\n": " ",
    "\r": " ",
}
_MD_TABLE = str.maketrans(_MD_SPECIAL)


def md_escape(text: Any) -> str:
    """``text`` as literal Markdown cell or line content: HTML and link syntax from the data are shown,
    never interpreted. The tables emit no links of their own; a renderer that linkifies bare URLs
    does so only for ``http(s)``/``www`` text, so no ``javascript:`` or ``data:`` link can appear."""
    return str(text).translate(_MD_TABLE)


_md = md_escape


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: Any) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def to_latex(tables: Sequence[Table], *, digits: int = 1, ci: bool = False) -> str:
    """booktabs tables (``\\usepackage{booktabs,graphicx}``); each in a ``table`` float with the notes
    as caption. A table wider than the text (3DBench: 14 columns) is scaled down to ``\\linewidth``
    (``\\resizebox`` with graphicx's natural ``\\width``); a narrower one keeps its size."""
    out = ["% generated by scenebench report; needs \\usepackage{booktabs,graphicx}"]
    for t in tables:
        nrow = len(t.row_header)
        out += [
            "\\begin{table}[t]",
            "\\centering",
            "\\small",
            "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%",
            f"\\begin{{tabular}}{{{'l' * nrow}{'c' * len(t.leaf)}}}",
            "\\toprule",
        ]
        for spans in t.spans:
            cells, rules, col = [""] * nrow, [], nrow + 1
            for label, span in spans:
                cells.append(f"\\multicolumn{{{span}}}{{c}}{{{latex_escape(label)}}}" if span > 1 else latex_escape(label))
                if label:
                    rules.append(f"\\cmidrule(lr){{{col}-{col + span - 1}}}")
                col += span
            out.append(" & ".join(cells) + " \\\\")
            if rules:
                out.append(" ".join(rules))
        out.append(" & ".join([latex_escape(h) for h in t.row_header] + [latex_escape(h) for h in t.leaf]) + " \\\\")
        out.append("\\midrule")
        for labels, cells in t.rows:
            vals = []
            for j, c in enumerate(cells):
                d = _digits(t, j, digits)
                s = _cell_text(t, j, c.value, digits) if c.value is not None else "--"
                if c.best:
                    s = f"\\textbf{{{s}}}"
                if ci and c.ci and c.value is not None:
                    s += f"\\,{{\\scriptsize[{c.ci[0]:.{d}f}, {c.ci[1]:.{d}f}]}}"
                if ci and c.few and c.value is not None:
                    s += "$^\\dagger$"
                vals.append(s)
            out.append(" & ".join([latex_escape(x) for x in labels] + vals) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}}"]
        out.append(f"\\caption{{{latex_escape(t.title)}. " + latex_escape(" ".join(t.notes)) + "}")
        out += ["\\end{table}", ""]
    return "\n".join(out) + "\n"
