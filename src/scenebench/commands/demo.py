"""``scenebench demo``: the whole toolkit in one offline command, on a small synthetic benchmark set.

1. generate (or reuse) 4 small procedural houses in every benchmark's format
   (``ROOT/data/<its data_folder>``, 2 test houses, 2 train houses for the blind prior), furnished
   as ``scenebench generate`` furnishes them (the sweethome3d-furniture models when installed;
   ``SCENEBENCH_ASSETS=none`` for primitives);
2. run every built-in baseline on every declared benchmark with a run source through ``scenebench
   run``'s engine (resumable run folders in ``ROOT/runs/<benchmark>-<model>``): oracle, random,
   baseline:prior, baseline:nearest, baseline:cluster, and the models a benchmark declares for
   itself when their extra is installed;
3. print one comparison table (each benchmark's declared headline numbers per model), write the HTML report
   (``ROOT/report.html``) and say what to run next.

A second ``scenebench demo`` reuses everything already computed. The oracle row must read 100
everywhere: it checks the evaluators end to end on fresh data.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from scenebench.extras import available

DEFAULT_ROOT = Path("scenebench-demo")
DEMO_HOUSES = 4
DEMO_SEED = 0
MODELS = ["oracle", "random", "baseline:prior", "baseline:nearest", "baseline:cluster"]


def demo_benchmarks() -> list[Any]:
    """The declared benchmarks the demo runs: those with a run source, a folder in generated data
    and headline numbers (:class:`~scenebench.declarations.BenchmarkSpec`), in catalog order."""
    from scenebench.declarations.catalog import specs

    return [s for s in specs() if s.source and s.data_folder and s.headline]


def column_note() -> str:
    notes = [f"{h.title}: {h.note}" for s in demo_benchmarks() for h in s.headline if h.note]
    return "; ".join(notes) + ". Protocol: strict."


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
    """The shared baselines, then the built-in models the benchmark declares for itself whose extra is installed."""
    from scenebench.declarations.catalog import get_spec

    return MODELS + [m for m, extra, _ in get_spec(benchmark).extra_models if available(extra)]


def generate_data(root: Path, progress: bool, say: Callable[[str], object] = print) -> Path:
    """The demo's synthetic data (reused when already there with the same settings)."""
    import os

    from scenebench.synth.assets.library import asset_paths
    from scenebench.synth.pipeline import GenerateSettings, run

    data = root / "data"
    # furnished as `scenebench generate` furnishes by default: the sweethome3d-furniture package's
    # models when it is installed, SCENEBENCH_ASSETS (paths, or none for primitives) when set
    libraries = asset_paths(os.environ.get("SCENEBENCH_ASSETS", "auto").split(), say=say)
    # three rooms a house: SURPRISE3D asks only about categories none of whose instances holds half
    # their points (generator 11), and two-room houses rarely have one (seed 0 gave no train query)
    settings = GenerateSettings(seed=DEMO_SEED, houses=DEMO_HOUSES, test_every=2, min_rooms=3, max_rooms=3, assets=libraries)
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
    from rich.text import Text

    from scenebench.consoles import make_console
    from scenebench.errors import RunMismatchError
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    console = console or make_console()
    t0 = time.perf_counter()
    root = Path(root)
    out = DemoResult(root)
    console.print(
        Text.assemble(("scenebench demo", "bold"), f": synthetic houses -> every benchmark -> built-in baselines (folder {root})")
    )
    data = generate_data(root, progress, say=lambda line: console.print(Text(line)))
    for spec in demo_benchmarks():
        bench = spec.name
        source = make_source(bench, data=str(data / spec.data_folder))
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
            out.scores[(bench, model)] = {h.title: _pick(res.metrics, h.path) for h in spec.headline}
            console.print(f"  {bench:10s} {model:18s} {res.counts.n_samples:4d} samples  {time.perf_counter() - t:5.1f} s")
    console.print(comparison_table(out))
    for spec in demo_benchmarks():
        for model, extra, _ in spec.extra_models:
            if not available(extra):
                console.print(f"{spec.name}: {model} was left out: it needs the {extra} extra (pip install 'scenebench[{extra}]').")
    if report:
        out.report = write_report(out, console)
    out.seconds = time.perf_counter() - t0
    console.print(f"done in {out.seconds:.0f} s")
    print_next_steps(out, data, console)
    return out


def comparison_table(out: DemoResult) -> Any:
    from rich.table import Table

    from scenebench.report.console import fmt

    t = Table(title="Built-in baselines on the demo data", title_justify="left", caption=column_note(), caption_justify="left")
    t.add_column("model", no_wrap=True)
    columns = [(s.name, h.title) for s in demo_benchmarks() for h in s.headline]
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
    from rich.text import Text

    benches = demo_benchmarks()
    first = benches[0]
    folder = data / first.data_folder
    console.print(Text.assemble("\n", ("What next", "bold")))
    say = lambda text: console.print(text, soft_wrap=True, highlight=False)  # noqa: E731 - commands stay copyable
    run = f"scenebench run {first.name} --data {folder}"
    say(f"  open the report:          {out.report or 'scenebench report RUN_DIR --html report.html'}")
    say(f"  your own model:           {run} --model plugin:my_pkg.my_model:MyModel --out runs/mine")
    say("                            (a complete template: docs/model-template.md)")
    say(f"  any chat LLM as a model:  {run} --model openai:MODEL --base-url http://127.0.0.1:PORT/v1")
    say(f"  {'a vision LLM:':26s}{run} --model openai-vision:MODEL --base-url http://127.0.0.1:PORT/v1")
    say("                            (set-of-marks views of each scene; hosted or local servers: docs/vision-models.md)")
    inputs = " ".join(f"{i.cli_flags()[0]} {i.name.upper()}" for i in first.inputs)
    say(f"  score saved predictions:  scenebench score {first.name} {inputs}   (every benchmark: scenebench score --help)")
    say("  in Python:                import scenebench; scenebench.score(...)   (docs/api.md)")
    say("  more data:                scenebench generate --houses 100 --out data/synth")
    say(f"  on a Ray cluster:         {run} --model baseline:prior --backend ray --address auto")


def demo_command(
    folder: Path = typer.Option(Path("scenebench-demo"), "--folder", help="Where the demo keeps its data, runs and report (reused)."),
    report: bool = typer.Option(True, "--report/--no-report", help="Write the HTML report."),
) -> None:
    """Generate a small synthetic benchmark set, run the built-in baselines on every benchmark, compare them."""
    run_demo(folder, report=report)


def register(groups: dict[str, typer.Typer]) -> None:
    groups["app"].command("demo")(demo_command)
