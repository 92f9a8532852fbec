"""The results schema shared by every benchmark (``results.json``), versioned.

Shape (see docs/results-schema.md)::

    {
      "schema_version": "1.0",
      "benchmark": "surprise3d", "protocol": "strict", "scenebench_version": "0.2.0",
      "metrics": {"overall": {"mIoU": 41.2, ...},
                  "by_question_type": {"cs": {"mIoU": ..., ...}, ...}},
      "confidence_intervals": {"method": "cluster_bootstrap_percentile", "level": 0.95,
                               "n_resamples": 1000, "seed": 0, "cluster_key": "scene_id",
                               "overall": {"mIoU": [lo, hi]}, "by_question_type": {...}},
      "counts": {"n_samples": .., "n_scored": .., "n_missing": .., "n_invalid": .., "n_excluded": ..},
      "counts_by_group": {"by_question_type": {"cs": {...counts...}}},
      "metric_info": {"mIoU": {"kind": "mean", "unit": "%", ...}},
      "settings": {...}, "inputs": {"annotations": {"path", "sha256", "bytes"}, ...},
      "command": ["scenebench", "score", ...], "created": "2026-11-30T10:00:00+00:00",
      "warnings": [...], "extra": {...}
    }

Metric values are percentages in [0, 100] where the benchmark reports them so; a metric that could
not be computed (no samples, judge disabled) is ``null``, never dropped.
"""

from __future__ import annotations

import datetime as _dt
import math
import sys
from pathlib import Path
from typing import Annotated, Any

import msgspec

from scenebench._version import __version__
from scenebench.errors import InputError, ScenebenchError
from scenebench.io.files import atomic_write_json, read_json
from scenebench.redact import redact_argv

SCHEMA_VERSION = "1.0"

MetricTable = dict[str, float | None]
# ``strict``, ``official`` or ``official:<lineage>`` (a benchmark's declared evaluator lineage,
# :mod:`scenebench.protocol`): one string, so every table and comparison that shows or compares the
# protocol tells lineages apart.
ProtocolName = Annotated[str, msgspec.Meta(pattern=r"^(strict|official(:[A-Za-z0-9_.-]+)?)$")]

# msgspec, not pydantic: the schema is imported by every ``scenebench score`` and building three
# pydantic models (with pydantic's import and its plugin scan of the installed packages) took
# ~0.09 s of a command that scores 3,000 SURPRISE3D samples in ~0.6 s. msgspec checks the same
# types when a results file is read (``load`` / ``model_validate``) and when one is saved.


class Counts(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    n_samples: int = 0
    n_scored: int = 0
    n_missing: int = 0
    n_invalid: int = 0
    n_excluded: int = 0

    def model_dump(self, mode: str = "python") -> dict[str, int]:
        return _builtins(self)  # type: ignore[no-any-return]

    @classmethod
    def model_validate(cls, obj: Any) -> Counts:
        return _convert(obj, cls, None, "counts")


MIN_CI_SCENES = 10  # below this many scenes in a block, its interval is not shown as evidence (compare's MIN_SCENES)
FEW_SCENES_MARK = "†"  # marks a value shown without its interval for that reason


class ConfidenceIntervals(msgspec.Struct, kw_only=True, dict=True):
    """The intervals of ``results.metrics``: ``overall`` and one entry per breakdown (``by_<group>``,
    set as attributes: ``ci.by_task = {...}``), written as keys beside the fixed fields."""

    method: str = "cluster_bootstrap_percentile"
    level: float = 0.95
    n_resamples: int = 1000
    seed: int = 0
    cluster_key: str = "scene_id"
    overall: dict[str, list[float] | None] = msgspec.field(default_factory=dict)

    def groups(self) -> dict[str, Any]:
        """The breakdown entries (``by_<group>`` and any other key beside the fixed fields)."""
        return dict(getattr(self, "__dict__", {}))

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return _builtins({**msgspec.structs.asdict(self), **self.groups()})  # type: ignore[no-any-return]

    @classmethod
    def model_validate(cls, obj: Any, path: str | Path | None = None) -> ConfidenceIntervals:
        if not isinstance(obj, dict):
            raise InputError(path, f"is {type(obj).__name__}", field="confidence_intervals", expected="an object")
        fixed = {k: v for k, v in obj.items() if k in cls.__struct_fields__}
        ci = _convert(fixed, cls, path, "confidence_intervals")
        for k, v in obj.items():
            if k not in cls.__struct_fields__:
                setattr(ci, k, v)
        return ci


class Results(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, dict=True):
    """The results of one run. ``run_dir`` (an attribute, not part of the schema) is the run folder
    they were saved in or loaded from, where :meth:`samples` reads the per-sample scores."""

    schema_version: str = SCHEMA_VERSION
    benchmark: str
    protocol: ProtocolName
    scenebench_version: str = __version__
    metrics: dict[str, Any]
    confidence_intervals: ConfidenceIntervals = msgspec.field(default_factory=ConfidenceIntervals)
    counts: Counts = msgspec.field(default_factory=Counts)
    counts_by_group: dict[str, dict[str, Counts]] = msgspec.field(default_factory=dict)
    metric_info: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    settings: dict[str, Any] = msgspec.field(default_factory=dict)
    inputs: dict[str, Any] = msgspec.field(default_factory=dict)
    command: list[str] = msgspec.field(default_factory=lambda: redact_argv(sys.argv))  # no password of a --base-url
    created: str = msgspec.field(default_factory=lambda: _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))
    warnings: list[str] = msgspec.field(default_factory=list)
    extra: dict[str, Any] = msgspec.field(default_factory=dict)
    # the model was given ground-truth perception (instance labels, boxes or masks of the scene):
    # its numbers measure reasoning over perfect perception, not 3D understanding from points
    ground_truth_perception: bool = False

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        """The results as plain JSON types (``mode`` is accepted for the callers of the pydantic version)."""
        out: dict[str, Any] = _builtins(self)
        out["confidence_intervals"] = self.confidence_intervals.model_dump()
        return out

    @classmethod
    def model_validate(cls, obj: Any, path: str | Path | None = None) -> Results:
        """Results from a parsed ``results.json``; an InputError names the file and the field."""
        if not isinstance(obj, dict):
            raise InputError(path, f"is {type(obj).__name__}", expected="a results object")
        rest = {k: v for k, v in obj.items() if k != "confidence_intervals"}
        res = _convert(rest, cls, path, None)
        if "confidence_intervals" in obj:
            res.confidence_intervals = ConfidenceIntervals.model_validate(obj["confidence_intervals"], path)
        return res

    def save(self, path: str | Path) -> None:
        """Write ``results.json`` atomically, after checking it reads back as results (msgspec does
        not check types when a Struct is constructed: a wrong type is a benchmark's bug, caught here).

        A metric or interval that is not finite (a mean over a model's ``inf`` path loss) is not a
        JSON number: it is written as ``null`` with a warning naming it (:meth:`null_non_finite`),
        so one answer never costs the results of a whole run."""
        self.null_non_finite()
        try:
            out = self.model_dump(mode="json")
            msgspec.convert({k: v for k, v in out.items() if k != "confidence_intervals"}, Results, strict=True)
        except (msgspec.ValidationError, TypeError) as e:  # TypeError: a value of no JSON type
            raise ValueError(f"results of {self.benchmark!r} do not fit the results schema: {e}") from None
        atomic_write_json(path, out)

    def null_non_finite(self) -> list[str]:
        """Replace every non-finite number of ``metrics`` and ``confidence_intervals`` by ``None``
        and add one warning naming them; returns their paths (``metrics.by_task.navigation.x``)."""
        found: list[str] = []
        self.metrics = _nulled(self.metrics, "metrics", found)
        ci = self.confidence_intervals
        ci.overall = _nulled(ci.overall, "confidence_intervals.overall", found)
        for k, v in ci.groups().items():
            setattr(ci, k, _nulled(v, f"confidence_intervals.{k}", found))
        if found:
            shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
            self.warnings.append(
                f"{len(found)} aggregate value(s) are not finite (a per-sample value is inf or overflowed) and are written as null: {shown}"
            )
        return found

    @classmethod
    def load(cls, path: str | Path) -> Results:
        """Results from ``results.json`` (or the run folder holding it)."""
        p = Path(path)
        if p.is_dir():
            p = p / "results.json"
        return cls.model_validate(read_json(p, what="results file"), p).in_run(p.parent)

    def scene_count(self, key: str = "overall", value: str | None = None) -> int | None:
        """Scenes (bootstrap clusters) behind a block's interval: ``extra.n_scenes`` (the scoring driver
        writes it), None for results written without it."""
        n = self.extra.get("n_scenes") if isinstance(self.extra, dict) else None
        if not isinstance(n, dict):
            return None
        got = n.get(key) if value is None else (n.get(key) or {}).get(str(value)) if isinstance(n.get(key), dict) else None
        return got if isinstance(got, int) else None

    def ci_is_evidence(self, key: str = "overall", value: str | None = None) -> bool:
        """False when the block's interval comes from fewer than :data:`MIN_CI_SCENES` scenes: reports
        show its value without the interval, marked (as ``scenebench compare`` refuses it)."""
        n = self.scene_count(key, value)
        return n is None or n >= MIN_CI_SCENES

    def few_scenes_note(self) -> str | None:
        """The line every display prints under a table whose intervals were left out for few scenes."""
        n = self.scene_count()
        few = n is not None and n < MIN_CI_SCENES
        groups = self.extra.get("n_scenes", {}) if isinstance(self.extra, dict) else {}
        few_groups = any(isinstance(v, dict) and any(isinstance(c, int) and c < MIN_CI_SCENES for c in v.values()) for v in groups.values())
        if not few and not few_groups:
            return None
        where = f"overall: {n} scene{'s' if n != 1 else ''}" if few else "some groups"
        return (
            f"{FEW_SCENES_MARK} no interval: fewer than {MIN_CI_SCENES} scenes ({where}); a bootstrap over so few "
            "scenes is no evidence (results.json keeps it; scenebench compare refuses it too)"
        )

    def in_run(self, run_dir: str | Path) -> Results:
        """Remember the run folder these results belong to (for :meth:`samples`); returns ``self``."""
        self.__dict__["run_dir"] = Path(run_dir)
        return self

    def samples(self, run: str | Path | None = None) -> Any:
        """The per-sample scores as a ``pyarrow.Table`` (``.to_pandas()`` with pandas installed): one
        row per sample with its status, breakdown keys and values (:mod:`scenebench.samples`).
        ``run``: the run folder, when these results were not saved or loaded by scenebench."""
        where = run if run is not None else getattr(self, "run_dir", None)
        if where is None:
            raise ScenebenchError("these results do not know their run folder: pass samples(run=RUN_DIR)")
        from scenebench.samples import sample_table

        return sample_table(where)

    @property
    def lineage(self) -> str | None:
        """The evaluator lineage of an ``official:<lineage>`` run, else ``None``."""
        return self.protocol.partition(":")[2] or None

    def overall(self) -> MetricTable:
        return self.metrics.get("overall", {})  # type: ignore[no-any-return]

    def groups(self) -> list[str]:
        """Names of the breakdowns present, e.g. ``['question_type']`` for ``by_question_type``."""
        return [k[3:] for k in self.metrics if k.startswith("by_")]


def _nulled(obj: Any, where: str, found: list[str]) -> Any:
    """``obj`` with non-finite floats replaced by None (their paths appended to ``found``); a list
    interval with a non-finite bound becomes None as a whole (half an interval is not one)."""
    if isinstance(obj, dict):
        return {k: _nulled(v, f"{where}.{k}", found) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        if any(isinstance(x, float) and not math.isfinite(x) for x in obj):
            found.append(where)
            return None
        return [_nulled(x, f"{where}[{i}]", found) for i, x in enumerate(obj)]
    if isinstance(obj, float) and not math.isfinite(obj):
        found.append(where)
        return None
    return obj


def _numpy_scalar(obj: Any) -> Any:
    """numpy numbers and arrays among the values, as the pydantic schema took them."""
    import numpy as np

    if isinstance(obj, np.generic | np.ndarray):
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} is not a JSON type")


def _builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj, enc_hook=_numpy_scalar)


def _convert(obj: Any, cls: type, path: str | Path | None, prefix: str | None) -> Any:
    """``msgspec.convert`` with its error as an InputError naming the file and the field."""
    try:
        return msgspec.convert(obj, cls, strict=True)
    except msgspec.ValidationError as e:
        msg, _, where = str(e).partition(" - at `$")
        fld = where.rstrip("`").lstrip(".") or None
        if prefix:
            fld = f"{prefix}.{fld}" if fld else prefix
        raise InputError(path, msg, field=fld, expected="the results schema (docs/results-schema.md)") from None
