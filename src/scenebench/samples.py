"""Per-sample scores of a run folder as one table (``Results.samples()``, ``scenebench export``).

One row per scored sample, in the order the samples were scored: ``sample_id``, ``scene_id``,
``status``, then one column per breakdown key (``question_type``, ``task``...), one per per-sample
value (``iou``, ``hit_10``...; a value that shares a breakdown key's name is ``value_<name>``;
null where a sample has none, e.g. an excluded one), and ``detail``: the sample's detail record as
JSON text. The values are those the metrics are computed from; the numbers themselves (and which
protocol produced them) are in the run's ``results.json``.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Literal

from scenebench.errors import InputError
from scenebench.io.store import FINISHED_KEY, SCORE_KIND, STATE_KIND, SampleStore, lock_holder, score_ids_digest

Format = Literal["parquet", "csv", "jsonl"]
FORMATS: tuple[Format, ...] = ("parquet", "csv", "jsonl")


def sample_rows(run_dir: str | Path) -> list[dict[str, Any]]:
    """The rows of :func:`sample_table` as plain dicts."""
    folder = Path(run_dir)
    store_path = folder / "samples.sqlite"
    if not store_path.is_file():
        raise InputError(folder, "holds no samples.sqlite", expected="a run folder written by scenebench score or run")
    with SampleStore(store_path, readonly=True) as store:
        records = [body for _, body in store.iter(SCORE_KIND)]
        state = store.get(STATE_KIND, FINISHED_KEY)
    check_finished(folder, records, state)
    groups = list(dict.fromkeys(g for r in records for g in r.get("groups", {})))
    values = list(dict.fromkeys(v for r in records for v in r.get("values", {})))
    value_col = {v: f"value_{v}" if v in groups or v in ("sample_id", "scene_id", "status", "detail") else v for v in values}
    rows = []
    for r in records:
        row: dict[str, Any] = {"sample_id": r["sample_id"], "scene_id": r["scene_id"], "status": r["status"]}
        row.update({g: _text(r.get("groups", {}).get(g)) for g in groups})
        vals = r.get("values", {})
        row.update({value_col[v]: _number(vals.get(v)) for v in values})
        row["detail"] = json.dumps(_finite_json(r.get("detail", {})), ensure_ascii=False, sort_keys=True, allow_nan=False, default=str)
        rows.append(row)
    return rows


def check_finished(folder: Path, records: list[dict[str, Any]], state: dict[str, Any] | None) -> None:
    """Refuse the scores of a run that was stopped or is still running: a table of part of the samples
    would read as the run's (issue 41). Finished means: ``results.json`` was saved over exactly the
    stored scores (the driver's ``FINISHED_KEY`` record; a folder of an older scenebench, without it,
    when ``results.json`` counts as many samples as are stored) and no other process holds the folder."""
    holder = lock_holder(folder)
    busy = f"; another scenebench process (pid {holder}) is writing it now" if holder else ""
    again = "rerun the command that made it (it resumes) and export once it has finished"
    ids = [r.get("sample_id") for r in records]
    if state is None:
        from scenebench.io.files import read_json

        doc = read_json(folder / "results.json", what="results") if (folder / "results.json").is_file() else None
        n = ((doc or {}).get("counts") or {}).get("n_samples") if isinstance(doc, dict) else None
        if n == len(records) and not holder:
            return
        raise InputError(
            folder,
            f"is not a finished run: {len(records)} samples scored, results.json {'counts ' + str(n) if n is not None else 'absent'}{busy}",
            expected=again,
        )
    if not state.get("finished") or state.get("n") != len(records) or state.get("ids") != score_ids_digest(str(i) for i in ids) or holder:
        raise InputError(
            folder,
            f"is not a finished run: scoring stopped or is still running ({len(records)} samples scored so far){busy}",
            expected=again,
        )


def _finite_json(obj: Any) -> Any:
    """``obj`` with non-finite floats as the strings ``"inf"``, ``"-inf"``, ``"nan"``: JSON has no
    such numbers, and a model's answer (a waypoint at ``inf``) puts them in a sample's detail."""
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite_json(x) for x in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    return obj


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row for JSON Lines: an infinite value (Parquet and CSV keep it) is null there."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


def _number(v: Any) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def sample_table(run_dir: str | Path) -> Any:
    """The per-sample scores of ``run_dir`` as a ``pyarrow.Table`` (``.to_pandas()`` with pandas installed)."""
    return _table(sample_rows(run_dir))


def _table(rows: list[dict[str, Any]]) -> Any:
    import pyarrow as pa

    if not rows:
        return pa.table({"sample_id": pa.array([], pa.string())})
    return pa.Table.from_pylist(rows)


# A spreadsheet reads a cell starting with one of these as a formula (``=HYPERLINK(...)``, ``+cmd|...``,
# ``@SUM(...)``); a leading tab or carriage return hides the sign from a naive check (OWASP CSV injection).
FORMULA_START = r"^[=+\-@\t\r]"


def spreadsheet_safe(table: Any) -> Any:
    """``table`` with every text cell that a spreadsheet would run as a formula prefixed by ``'`` (the
    cell then shows the text as written). Only text columns change: numbers such as ``-1.5`` are
    numbers in the file and are never formulas. Vectorised over each column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for i, field in enumerate(table.schema):
        if not pa.types.is_string(field.type) and not pa.types.is_large_string(field.type):
            continue
        col = table.column(i)
        risky = pc.fill_null(pc.match_substring_regex(col, FORMULA_START), False)
        if pc.any(risky).as_py():
            quoted = pc.binary_join_element_wise(pa.scalar("'", field.type), col, "")
            table = table.set_column(i, field, pc.if_else(risky, quoted, col))
    return table


def export_samples(run_dir: str | Path, out: str | Path, fmt: Format) -> Path:
    """Write the per-sample scores of ``run_dir`` to ``out`` as Parquet, CSV or JSON Lines (atomically).
    CSV is for spreadsheets: text cells that would run as a formula start with ``'`` there
    (:func:`spreadsheet_safe`); Parquet and JSON Lines keep every text as it is."""
    if fmt not in FORMATS:
        raise InputError(None, f"got {fmt!r}", field="--format", expected=" or ".join(FORMATS))
    out = Path(out)
    rows_first = sample_rows(run_dir)  # a run that cannot be read is named before anything is written
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.touch()
    except OSError as exc:  # a run on a read-only mount: its default export path cannot be written
        raise InputError(
            out, f"cannot be written ({exc.strerror or exc})", expected="a writable place for the export: pass --out PATH"
        ) from None
    try:
        if fmt == "jsonl":
            with open(tmp, "w", encoding="utf-8") as f:
                for row in rows_first:
                    f.write(json.dumps(_json_row(row), ensure_ascii=False, allow_nan=False) + "\n")
        elif fmt == "csv":
            import pyarrow.csv as pcsv

            pcsv.write_csv(spreadsheet_safe(_table(rows_first)), tmp)
        else:
            import pyarrow.parquet as pq

            pq.write_table(_table(rows_first), tmp)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out
