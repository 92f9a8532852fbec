"""``scenebench demo``: the whole toolkit in one offline command, on a small synthetic benchmark set.

1. generate (or reuse) 4 small procedural houses in the three benchmark formats
   (``ROOT/data/{3dbench,surprise3d,3rscan}``, 2 test houses, 2 train houses for the blind prior);
2. run every built-in baseline on every benchmark through ``scenebench run``'s engine (resumable run
   folders in ``ROOT/runs/<benchmark>-<model>``): oracle, random, baseline:prior, baseline:nearest,
   baseline:cluster, and on RIO also baseline:fpfh when open3d is installed;
3. print one comparison table (each benchmark's headline metrics per model), write the HTML report
   (``ROOT/report.html``) and say what to run next.

A second ``scenebench demo`` reuses everything already computed. The oracle row must read 100
everywhere: it checks the evaluators end to end on fresh data.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from scenebench.extras import available

DEFAULT_ROOT = Path("scenebench-demo")
DEMO_HOUSES = 4
DEMO_SEED = 0
MODELS = ["oracle", "random", "baseline:prior", "baseline:nearest", "baseline:cluster"]
# benchmark -> (data subfolder, headline metrics shown in the table: (results key path, column title))
BENCHMARKS: dict[str, tuple[str, list[tuple[tuple[str, ...], str]]]] = {
    "3dbench": ("3dbench", [(("overall", "mean_primary"), "3DBench")]),
    "surprise3d": ("surprise3d", [(("overall", "mIoU"), "S3D mIoU"), (("overall", "A50"), "S3D A50")]),
    "rio": ("3rscan", [(("overall", "recall_10cm_10deg"), "RIO R@10"), (("overall", "MTE"), "RIO MTE")]),
}
COLUMN_NOTE = (
    "3DBench: mean of the tasks' primary metrics (%); S3D: SURPRISE3D mask mIoU and A50 (%); "
    "RIO R@10: Recall(0.1 m, 10°) (%); RIO MTE: median translation error (m). Protocol: strict."
)


@dataclass
class DemoResult:
    root: Path
    runs: dict[tuple[str, str], Path] = field(default_factory=dict)  # (benchmark, model) -> run folder
    scores: dict[tuple[str, str], dict[str, float | None]] = field(default_factory=dict)
    predicted: dict[tuple[str, str], int] = field(default_factory=dict)  # samples predicted now (0 when reused)
    results: dict[tuple[str, str], Any] = field(default_factory=dict)
    report: Path | None = None
    seconds: float = 0.0


def models_for(benchmark: str) -> list[str]:
    extra = ["baseline:fpfh"] if benchmark == "rio" and available("open3d") else []
    return MODELS + extra


def generate_data(root: Path, progress: bool) -> Path:
    """The demo's synthetic data (reused when already there with the same settings)."""
    from scenebench.synth.pipeline import GenerateSettings, run

    data = root / "data"
    settings = GenerateSettings(seed=DEMO_SEED, houses=DEMO_HOUSES, test_every=2, min_rooms=2, max_rooms=3)
    # The folder is the demo's own: data made by another scenebench version is regenerated, not refused.
    run(data, settings, progress=progress, overwrite=True)
    return data


def _pick(metrics: dict[str, Any], path: tuple[str, ...]) -> float | None:
    cur: Any = metrics
    for k in path:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return None if cur is None else float(cur)


def run_demo(root: Path = DEFAULT_ROOT, *, progress: bool = True, console: Any = None, report: bool = True) -> DemoResult:
    from rich.console import Console
    from rich.text import Text

    from scenebench.errors import RunMismatchError
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    console = console or Console(markup=False)
    t0 = time.perf_counter()
    root = Path(root)
    out = DemoResult(root)
    console.print(
        Text.assemble(("scenebench demo", "bold"), f": synthetic houses -> three benchmarks -> built-in baselines (folder {root})")
    )
    data = generate_data(root, progress)
    for bench, (sub, cols) in BENCHMARKS.items():
        source = make_source(bench, data=str(data / sub))
        for model in models_for(bench):
            run_dir = root / "runs" / f"{bench}-{model.replace(':', '-')}"
            t = time.perf_counter()
            # The same data resumes; a run made from other data (e.g. an older generator) starts again
            # (--overwrite always starts again, so it is asked for only when the folder does not match).
            try:
                outcome = run_benchmark(source, model, run_dir, seed=DEMO_SEED, progress=False)
            except RunMismatchError:
                outcome = run_benchmark(source, model, run_dir, seed=DEMO_SEED, progress=False, overwrite=True)
            res = outcome.results
            out.runs[(bench, model)] = run_dir
            out.predicted[(bench, model)] = outcome.predicted_now
            out.results[(bench, model)] = res
            out.scores[(bench, model)] = {title: _pick(res.metrics, path) for path, title in cols}
            console.print(f"  {bench:10s} {model:18s} {res.counts.n_samples:4d} samples  {time.perf_counter() - t:5.1f} s")
    console.print(comparison_table(out))
    if not available("open3d"):
        console.print(
            "RIO's FPFH + RANSAC + ICP baseline (baseline:fpfh) was left out: it needs open3d (pip install 'scenebench[open3d]')."
        )
    if report:
        out.report = write_report(out, console)
    out.seconds = time.perf_counter() - t0
    console.print(f"done in {out.seconds:.0f} s")
    print_next_steps(out, data, console)
    return out


def comparison_table(out: DemoResult) -> Any:
    from rich.table import Table

    from scenebench.report.console import fmt

    t = Table(title="Built-in baselines on the demo data", title_justify="left", caption=COLUMN_NOTE, caption_justify="left")
    t.add_column("model", no_wrap=True)
    columns = [(bench, title) for bench, (_, cols) in BENCHMARKS.items() for _, title in cols]
    for _, title in columns:
        t.add_column(title, justify="right", no_wrap=True)
    models = list(dict.fromkeys(m for _, m in out.runs))
    for m in models:
        t.add_row(m, *[fmt(out.scores.get((b, m), {}).get(title)) if (b, m) in out.scores else "-" for b, title in columns])
    return t


def write_report(out: DemoResult, console: Any) -> Path | None:
    """One HTML report with every demo run, through the reports module (skipped with a note if absent)."""
    try:
        from scenebench.report.html import write_html_report
    except ImportError as exc:  # pragma: no cover - the report module ships with scenebench
        from rich.text import Text

        console.print(Text.assemble(("HTML report skipped", "yellow"), f" ({exc})"))
        return None
    path = out.root / "report.html"
    write_html_report(list(out.runs.values()), path, title="scenebench demo: built-in baselines", max_views=20)
    console.print(f"HTML report: {path}")
    return path


def print_next_steps(out: DemoResult, data: Path, console: Any) -> None:
    b3d, s3d = data / "3dbench", data / "surprise3d"
    from rich.text import Text

    console.print(Text.assemble("\n", ("What next", "bold")))
    say = lambda text: console.print(text, soft_wrap=True, highlight=False)  # noqa: E731 - commands stay copyable
    say(f"  open the report:          {out.report or 'scenebench report RUN_DIR --html report.html'}")
    say(f"  your own model:           scenebench run 3dbench --data {b3d} --model plugin:my_pkg.my_model:MyModel --out runs/mine")
    say("                            (a complete template: docs/model-template.md)")
    say(f"  any chat LLM as a model:  scenebench run 3dbench --data {b3d} --model openai:MODEL --base-url http://127.0.0.1:PORT/v1")
    say(f"  {'a vision LLM:':26s}scenebench run surprise3d --data {s3d} --model openai-vision:MODEL --base-url http://127.0.0.1:PORT/v1")
    say("                            (set-of-marks views of each scene; hosted or local servers: docs/vision-models.md)")
    say(
        f"  score saved predictions:  scenebench score surprise3d --annotations {s3d / 'surprise-3d-val.json'} --scenes {s3d / 'scenes'} --predictions preds.jsonl"
    )
    say("  more data:                scenebench generate --houses 100 --out data/synth")
    say(f"  on a Ray cluster:         scenebench run surprise3d --data {s3d} --model baseline:prior --backend ray --address auto")


def demo_command(
    folder: Path = typer.Option(Path("scenebench-demo"), "--folder", help="Where the demo keeps its data, runs and report (reused)."),
    report: bool = typer.Option(True, "--report/--no-report", help="Write the HTML report."),
) -> None:
    """Generate a small synthetic benchmark set, run the built-in baselines on all three benchmarks, compare them."""
    run_demo(folder, report=report)


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("demo")(demo_command)
