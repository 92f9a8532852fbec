"""Rewrite the demo figures the docs quote, so they are what the current code gives on the demo data.

    python scripts/doc_figures.py                       # generate the demo data in a temporary folder
    python scripts/doc_figures.py --data scenebench-demo  # an existing demo folder (or its data/)
    python scripts/doc_figures.py --check               # exit 1 when a doc is out of date, write nothing

The docs hold the tables between markers::

    <!-- figures:begin NAME -->
    ...generated, do not edit by hand...
    <!-- figures:end -->

Only the text between a begin marker and the next end marker is replaced; a block whose NAME this
script does not know is an error (so a typo never leaves a stale table behind). Blocks:

- ``demo``: ``scenebench demo``'s comparison table (every demo benchmark's headline numbers per
  built-in baseline);
- ``baselines``: the baselines whose numbers are quoted against their reference: SURPRISE3D
  ``baseline:labels`` vs ``baseline:cluster`` (mIoU, A25, A50) and RIO "nothing moved"
  (``baseline:prior``) vs ``baseline:nearest`` and ``baseline:cluster`` on the changed objects
  (R@0.1 m/10°, R@0.2 m/20°).

Runs use the demo's seed and protocol (strict); their folders are kept under ``--runs`` when given
(reused by a second call), else in a temporary folder.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "docs/model-template.md")  # files that may hold figure blocks
BEGIN = re.compile(r"<!-- figures:begin ([A-Za-z0-9_-]+) -->\n")
END = "<!-- figures:end -->"

# (benchmark, data folder under the demo's data/, models, [(column, path into results.metrics)])
BASELINE_ROWS: tuple[tuple[str, str, tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]], ...] = (
    (
        "surprise3d",
        "surprise3d",
        ("baseline:labels", "baseline:cluster"),
        (("mIoU", ("overall", "mIoU")), ("A25", ("overall", "A25")), ("A50", ("overall", "A50"))),
    ),
    (
        "rio",
        "3rscan",
        ("baseline:prior", "baseline:nearest", "baseline:cluster"),
        (("R@0.1 m, 10°", ("overall", "recall_10cm_10deg")), ("R@0.2 m, 20°", ("overall", "recall_20cm_20deg"))),
    ),
)


def rewrite_blocks(text: str, tables: Mapping[str, str], where: str = "<text>") -> str:
    """``text`` with the body of every ``figures:begin NAME`` block replaced by ``tables[NAME]``.

    Everything outside the markers is kept byte for byte, the markers included. Raises ValueError
    naming ``where`` for a block without an end marker or a NAME not in ``tables``.
    """
    out: list[str] = []
    pos = 0
    for m in BEGIN.finditer(text):
        if m.start() < pos:  # a begin marker inside a block already replaced
            raise ValueError(f"{where}: figures block {m.group(1)!r} starts inside another block")
        name = m.group(1)
        end = text.find(END, m.end())
        if end < 0:
            raise ValueError(f"{where}: figures block {name!r} has no {END}")
        if name not in tables:
            raise ValueError(f"{where}: unknown figures block {name!r} (known: {', '.join(sorted(tables))})")
        body = tables[name].rstrip("\n") + "\n"
        out += [text[pos : m.end()], body]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def block_names(text: str) -> list[str]:
    return [m.group(1) for m in BEGIN.finditer(text)]


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def _pick(metrics: Mapping[str, Any], path: tuple[str, ...]) -> float | None:
    cur: Any = metrics
    for k in path:
        if not isinstance(cur, Mapping) or k not in cur:
            return None
        cur = cur[k]
    return None if cur is None else float(cur)


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f}"


def find_data(path: Path) -> Path:
    """The demo data folder: ``path`` itself or its ``data/`` (a demo folder)."""
    for cand in (path, path / "data"):
        if (cand / "manifest.json").is_file():
            return cand
    raise SystemExit(f"{path}: no manifest.json here or in {path / 'data'}: not demo data (scenebench demo --folder DIR makes it)")


def build_tables(data: Path, runs: Path, say: Callable[[str], None] = print) -> dict[str, str]:
    from scenebench.commands.demo import DEMO_SEED, demo_benchmarks, models_for
    from scenebench.errors import RunMismatchError
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    cache: dict[tuple[str, str], Any] = {}

    def metrics(bench: str, folder: str, model: str) -> Mapping[str, Any]:
        if (bench, model) not in cache:
            say(f"  {bench} {model}")
            src = make_source(bench, data=str(data / folder))
            run_dir = runs / f"{bench}-{model.replace(':', '-')}"
            # As the demo does: a run of the same data and model settings resumes, any other starts again.
            try:
                res = run_benchmark(src, model, run_dir, seed=DEMO_SEED, progress=False).results
            except RunMismatchError:
                res = run_benchmark(src, model, run_dir, seed=DEMO_SEED, progress=False, overwrite=True).results
            cache[(bench, model)] = res.metrics
        return cache[(bench, model)]

    specs = demo_benchmarks()
    columns = [(s, h) for s in specs for h in s.headline]
    models = list(dict.fromkeys(m for s in specs for m in models_for(s.name)))
    demo_rows = []
    for model in models:
        row = [f"`{model}`"]
        for s, h in columns:
            row.append(_fmt(_pick(metrics(s.name, s.data_folder, model), h.path)) if model in models_for(s.name) else "-")
        demo_rows.append(row)
    tables = {"demo": markdown_table(["model", *[h.title for _, h in columns]], demo_rows)}
    lines = []
    for bench, folder, bench_models, cols in BASELINE_ROWS:
        rows = [[f"`{m}`", *[_fmt(_pick(metrics(bench, folder, m), p)) for _, p in cols]] for m in bench_models]
        lines.append(f"{bench}:\n\n" + markdown_table(["model", *[c for c, _ in cols]], rows))
    tables["baselines"] = "\n\n".join(lines)
    return tables


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, help="an existing demo folder (or its data/); default: generate it")
    ap.add_argument("--runs", type=Path, help="keep the run folders here (default: a temporary folder)")
    ap.add_argument("--check", action="store_true", help="only report docs that are out of date (exit 1)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="doc-figures-") as tmp:
        if args.data is None:
            from scenebench.commands.demo import generate_data

            data = generate_data(Path(tmp), progress=False)
        else:
            data = find_data(args.data)
        tables = build_tables(data, args.runs or Path(tmp) / "runs")
    from scenebench.io.files import atomic_write_text

    stale = []
    for rel in DOCS:
        path = ROOT / rel
        old = path.read_text(encoding="utf-8")
        new = rewrite_blocks(old, tables, where=rel)
        if new != old:
            stale.append(rel)
            if not args.check:
                atomic_write_text(path, new)
    verb = "out of date" if args.check else "rewritten"
    print(f"{verb}: {', '.join(stale)}" if stale else "docs up to date")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
