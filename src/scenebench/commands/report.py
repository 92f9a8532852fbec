"""``scenebench report`` and ``scenebench compare``: re-report finished runs without rescoring."""

from __future__ import annotations

from pathlib import Path

import typer


def report_command(
    run_dirs: list[Path] = typer.Argument(
        ..., help="Finished run folder(s), of any benchmarks: one report, a section per benchmark, runs of a benchmark side by side."
    ),
    html: Path | None = typer.Option(
        None, "--html", help="HTML report path [default: RUN_DIR/report.html for one run; ./report.html for several]."
    ),
    no_html: bool = typer.Option(False, "--no-html", help="Do not write the HTML report."),
    latex: Path | None = typer.Option(None, "--latex", help="Write booktabs LaTeX tables to this file ('-' for stdout)."),
    markdown: bool = typer.Option(False, "--markdown", help="Print Markdown tables to stdout."),
    label: list[str] = typer.Option(
        [], "--label", help="Row name of each run in tables (repeat, in run order) [default: model or folder name]."
    ),
    ci: bool = typer.Option(True, "--ci/--no-ci", help="Show confidence intervals in Markdown/LaTeX tables."),
    digits: int = typer.Option(1, "--digits", min=0, max=6, help="Decimals in Markdown/LaTeX tables."),
    max_views: int = typer.Option(
        300,
        "--max-views",
        min=0,
        help="At most this many samples per run get an embedded 3D view, besides the samples their benchmark declares a report must show (which all get one, within --max-view-mb).",
    ),
    max_view_mb: float = typer.Option(
        60.0,
        "--max-view-mb",
        min=0.0,
        help="Size cap of the embedded 3D views of one run, in MB (views beyond it are left out and the report says so).",
    ),
    max_points: int = typer.Option(
        30000, "--max-points", min=100, help="Scene points kept for the viewer (seeded downsampling; scoring is unaffected)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the viewer's downsampling."),
) -> None:
    """Tables (Markdown, LaTeX) and a self-contained HTML report of finished runs; reads results.json and samples.sqlite."""
    from scenebench.consoles import make_console
    from scenebench.io.files import atomic_write_text
    from scenebench.report.html import write_html_report
    from scenebench.report.runs import load_runs
    from scenebench.report.tables import tables_by_benchmark, to_latex, to_markdown
    from scenebench.report.views import ViewOptions
    from scenebench.runtime.rundir import record_written

    err = make_console(stderr=True)
    runs = load_runs(run_dirs, label or None)
    tables = tables_by_benchmark(runs)
    if markdown:
        typer.echo(to_markdown(tables, digits=digits, ci=ci), nl=False)
    if latex is not None:
        text = to_latex(tables, digits=digits, ci=ci)
        if str(latex) == "-":
            typer.echo(text, nl=False)
        else:
            atomic_write_text(latex, text)
            record_written(latex)
            err.print(f"LaTeX tables: {latex}")
    if not no_html:
        # a report of several runs belongs to none of them: not inside the first run's folder
        out = html or (runs[0].path / "report.html" if len(runs) == 1 else Path.cwd() / "report.html")
        opts = ViewOptions(max_scene_points=max_points, seed=seed)
        write_html_report(runs, out, view_options=opts, max_views=max_views, max_view_bytes=int(max_view_mb * 1e6))
        record_written(out)
        err.print(f"HTML report: {out}")


def compare_command(
    run_dirs: list[Path] = typer.Argument(..., help="Two or more finished runs of one benchmark; the first is the baseline."),
    label: list[str] = typer.Option([], "--label", help="Name of each run (repeat, in run order)."),
    resamples: int = typer.Option(
        2000,
        "--resamples",
        min=100,
        help="Bootstrap resamples (scenes drawn with replacement); also the sign-flip assignments drawn above 16 scenes.",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap and of the Monte Carlo sign-flip test."),
    level: float = typer.Option(0.95, "--level", min=0.5, max=0.999, help="Confidence level of the intervals."),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the full comparison (with the most changed samples) as JSON."),
    markdown: bool = typer.Option(False, "--markdown", help="Print Markdown instead of a console table."),
) -> None:
    """Paired comparison: per-metric differences, scene-clustered bootstrap CIs, sign-flip p-values over scenes (none below 10 scenes), per-sample wins/losses.

    Refuses runs that did not score the same samples under the same protocol, settings and data.
    """
    from rich.table import Table
    from rich.text import Text

    from scenebench.consoles import make_console
    from scenebench.io.files import atomic_write_json
    from scenebench.report.compare import ci_text, compare_runs, comparison_markdown, method_note, p_text
    from scenebench.report.runs import load_runs

    runs = load_runs(run_dirs, label or None)
    comps = compare_runs(runs, n_resamples=resamples, seed=seed, level=level)
    if json_out is not None:
        atomic_write_json(json_out, [c.to_json() for c in comps])
    if markdown:
        typer.echo(comparison_markdown(comps))
        return
    console = make_console()
    for c in comps:
        t = Table(
            title=f"{c.other} vs {c.baseline} — {c.benchmark}, protocol {c.protocol}, {c.n_samples} paired samples in {c.n_scenes} scenes",
            caption=method_note(c),
        )
        for col, just in (
            ("group", "left"),
            ("metric", "left"),
            ("n (scenes)", "right"),
            (c.baseline, "right"),
            (c.other, "right"),
            ("Δ", "right"),
            ("CI of Δ", "center"),
            ("p", "right"),
        ):
            t.add_column(col, justify=just, no_wrap=col in ("group", "CI of Δ"))  # type: ignore[arg-type]
        blocks = [("overall", c.overall)] + [(f"{g}={v}", ds) for g, d in c.groups.items() for v, ds in d.items()]
        for i, (name, ds) in enumerate(blocks):
            if i:
                t.add_section()
            for d in ds:
                better = d.diff is not None and d.ci is not None and (d.ci[0] > 0 or d.ci[1] < 0)
                good = better and ((d.diff > 0) == d.higher_is_better)  # type: ignore[operator]
                style = ("green" if good else "red") if better else ""
                fmt = lambda v: "n/a" if v is None else f"{v:.2f}"  # noqa: E731
                t.add_row(
                    name,
                    d.metric,
                    f"{d.n} ({d.n_scenes})",
                    fmt(d.a),
                    fmt(d.b),
                    Text(f"{d.diff:+.2f}", style=style)
                    if d.diff is not None and style
                    else ("n/a" if d.diff is None else f"{d.diff:+.2f}"),
                    ci_text(d),
                    p_text(d),
                )
        console.print(t)
        for w in c.wins:
            console.print(
                f"per-sample {w.field} ({'higher' if w.higher_is_better else 'lower'} is better): "
                f"{c.other} wins {w.wins}, loses {w.losses}, ties {w.ties} of {w.n}"
            )
        for s in c.skipped:
            console.print(Text.assemble(("not compared:", "yellow"), " ", s))
        for who, notes in c.judges.items():
            console.print(Text.assemble(("judge:", "bold"), f" {who}: {notes[0]}"))
            for w in notes[1:]:
                console.print(Text.assemble(("warning:", "yellow"), f" {who}: {w}"))


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("report")(report_command)
    groups["app"].command("compare")(compare_command)
