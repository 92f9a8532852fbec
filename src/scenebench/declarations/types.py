"""What a benchmark declares about itself, as data: the one shape every benchmark has.

A benchmark package holds its readers, its per-scene scorer, its run source and its view; what it
*is* is one :class:`BenchmarkSpec` (``benchmarks/<name>/spec.py``, named in
:mod:`scenebench.declarations.catalog`): its inputs, options, metrics, groups, primary metric, the
samples a report must show, its warnings and its paper layout. From that declaration the shared
layers build everything else: the ``score``/``validate``/``run`` commands
(:mod:`scenebench.commands.benchmark`), the run meta and fingerprint
(:func:`scenebench.runtime.scoring.score_benchmark`), the report's histograms and views.

Nothing here imports more than the standard library: the bottom layer, which every layer may import
and the CLI reads at start-up. (What a scorer hands the driver, ``ScoringJob``, is a scoring type:
:mod:`scenebench.metrics.jobs`.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Role = Literal["truth", "predictions", "data"]
# ``scenebench audit``'s shortcut probes: the column of each, and the built-in model it runs
AUDIT_PROBES = {"blind": "baseline:prior", "labels": "baseline:labels", "random": "random", "oracle": "oracle"}
Kind = Literal["file", "folder"]
Command = Literal["score", "validate", "run"]
OptionType = Literal["str", "int", "float", "bool", "path", "strs"]


@dataclass(frozen=True)
class MetricDoc:
    name: str
    summary: str
    card: str  # path of the metric card under docs/metrics/


@dataclass(frozen=True)
class BenchmarkInfo:
    name: str
    title: str
    paper: str
    task: str
    metrics: tuple[MetricDoc, ...]
    protocols: dict[str, str] = field(default_factory=dict)  # protocol -> what it means here
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Input:
    """One input file or folder of ``score`` (and ``validate``).

    ``name`` is the keyword the scorer's ``prepare`` (and the validator) receives and, with dashes,
    the CLI option (``--name``); ``flags`` replaces that spelling (e.g. ``("--annotations", "-a")``).
    ``role`` says what it is: ground ``truth``, ``predictions``, or benchmark ``data`` (a folder
    holding truth and more). Inputs are required, but predictions on ``validate`` and the commands
    in ``optional_for``.
    """

    name: str
    role: Role
    kind: Kind
    help: str
    flags: tuple[str, ...] = ()
    optional_for: tuple[Command, ...] = ()
    in_data: str | None = None  # where it lies in the benchmark's data folder: ``score --data DIR`` finds it there

    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)

    def required(self, command: Command) -> bool:
        return command not in self.optional_for and (self.role != "predictions" or command != "validate")


def inputs_from_data(spec: BenchmarkSpec, command: Command, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with every input the user left out taken from ``values["data"]`` (the folder ``run``
    reads with ``--data``) where the benchmark says it lies there (``Input.in_data``); an input still
    missing is an error naming both ways to give it. ``data`` itself is dropped unless an input is
    called so."""
    from scenebench.errors import InputError

    out = dict(values)
    own_data = any(i.name == "data" for i in spec.inputs)
    data = None if own_data else out.pop("data", None)
    for i in spec.inputs:
        if out.get(i.name) is None and data is not None and i.in_data is not None:
            out[i.name] = Path(data) / i.in_data
        if out.get(i.name) is None and i.required(command):
            alt = f" (or --data FOLDER holding {i.in_data})" if i.in_data and not own_data else ""
            raise InputError(None, f"{command} {spec.name} needs {i.cli_flags()[0]}{alt}", field=i.cli_flags()[0])
    return out


@dataclass(frozen=True)
class Option:
    """One benchmark-specific CLI option, and the commands it belongs to.

    ``type``: ``str``, ``int``, ``float``, ``bool`` (``flags`` may hold ``--x/--no-x``), ``path``
    (a file or folder; ``None`` by default) or ``strs`` (repeatable). ``keyword`` is what the
    scorer (``score``), the validator (``validate``) or the run source (``run``) receives, when it
    differs from ``name``; on ``run``, ``to="score"`` sends the value to the run's scoring job
    instead of the run source.
    """

    name: str
    help: str
    default: Any = None
    type: OptionType = "str"
    flags: tuple[str, ...] = ()
    commands: tuple[Command, ...] = ("score",)
    keyword: str | None = None
    to: Literal["source", "score"] = "source"
    min: int | float | None = None
    required: bool = False

    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)


@dataclass(frozen=True)
class ShowSamples:
    """Samples a report always gives a 3D view (within its size cap): those whose breakdown key
    ``group`` has value ``value`` (RIO: ``motion == "moved"``, the instances re-localization is about)."""

    group: str
    value: str


@dataclass(frozen=True)
class BaselineWarning:
    """A comparison a report must flag: a run of one of ``models`` that beats another run ``overall``
    on one of ``metrics`` while losing on the subset ``group == value``. ``text`` is formatted with
    ``base``, ``other``, ``metric``, ``a_all``, ``b_all``, ``a_sub``, ``b_sub``."""

    models: tuple[str, ...]
    metrics: tuple[str, ...]
    group: str
    value: str
    text: str


@dataclass(frozen=True)
class Headline:
    """A number ``scenebench demo`` shows per model: ``path`` into ``results.metrics``, a column
    ``title``, and what it is (``note``, printed under the table)."""

    path: tuple[str, ...]
    title: str
    note: str = ""


@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark, declared once; every table, command and report rule derives from it.

    Strings of the form ``"module:attr"`` are imported only when used, so ``scenebench --help``
    and ``scenebench list`` import no benchmark code:

    - ``info``: its :class:`BenchmarkInfo` (``scenebench list``, docs);
    - ``scorer``: ``prepare(*, protocol, **inputs, **options) -> ScoringJob`` for the shared driver;
    - ``validate``: ``check(**inputs, **options) -> None`` behind ``scenebench validate NAME``;
    - ``summary``: ``show(results) -> None``, what ``score`` and ``run`` print (default: the
      overall metrics table);
    - ``cli_values``: ``adapt(command, values) -> contextmanager of dict``: turns parsed CLI values
      into keywords (builds and closes a judge, parses ``CODE=ORDER`` pairs); default: as parsed;
    - ``source``: the run source class for ``scenebench run`` (``None``: no ``run``);
    - ``view``: the report's 3D view builder (``None``: no 3D views);
    - ``layout``: the paper's results-table layout (``None``: the generic long table);
    - ``audit``: ``rows(folder, **options) -> list of audit rows`` for ``scenebench audit``;
    - ``audit_trained``: ``trained(folder, out, **options) -> list of trained-probe rows`` (fitted on
      the train split, scored on the test split; :mod:`scenebench.metrics.probes`, the audit extra);
    - ``synthetic_house``: ``stage(ctx) -> dict``: this benchmark's part of one house of
      ``scenebench generate`` (:class:`scenebench.synth.pipeline.HouseContext`: the house, its
      capture, its staging folder, seeded streams); it writes the house's files and returns its
      part of the house summary. Its ``data_folder`` becomes a ``--formats`` value;
    - ``synthetic``: ``write(folder, root, summaries, rng) -> list of paths``: this benchmark's
      aggregated synthetic data, written by ``scenebench generate`` into ``folder``
      (``root/<data_folder>``) once every house is staged, in catalog order, from what it finds
      under ``root`` and the per-house ``summaries`` (``split``, ``scene_id``...); it returns the
      files it wrote (nothing when the data it derives from was not generated).

    Data: ``inputs`` and ``options`` (the CLI is built from them), ``primary_metric`` (the report's
    default histogram; a benchmark with one per group sets ``results.extra["primary_metric"]``),
    ``show_samples``, ``warnings``, ``headline`` (the demo table), ``data_folder`` (its folder in a
    generated dataset), ``extra_models`` (``(model, extra, "module:Class")``: models that answer only
    this benchmark, kept in its package; ``--model NAME`` finds them through the catalog and the demo
    runs them when the extra is installed), ``extra_commands`` (``(group, command,
    "module:function")`` beside the generic ones).

    ``lineages``: the evaluators whose ``official`` numbers differ (the dataset authors' scorer first,
    then the copies papers ship): ``--protocol official:<lineage>`` selects one, plain ``official``
    is the first (:func:`scenebench.protocol.parse_protocol`); the scorer then receives, and
    ``results.json`` records, ``official:<lineage>``. Empty: only ``strict`` and ``official``.
    """

    name: str
    info: str
    scorer: str
    inputs: tuple[Input, ...] = ()
    options: tuple[Option, ...] = ()
    primary_metric: str | None = None
    show_samples: tuple[ShowSamples, ...] = ()
    warnings: tuple[BaselineWarning, ...] = ()
    headline: tuple[Headline, ...] = ()
    data_folder: str | None = None
    extra_models: tuple[tuple[str, str, str], ...] = ()
    validate: str | None = None
    summary: str | None = None
    cli_values: str | None = None
    source: str | None = None
    view: str | None = None
    layout: str | None = None
    audit: str | None = None
    audit_trained: str | None = None
    synthetic_house: str | None = None
    synthetic: str | None = None
    extra_commands: tuple[tuple[str, str, str], ...] = ()
    lineages: tuple[str, ...] = ()

    def paths(self) -> dict[str, str]:
        """Every declared ``module:attr`` path by field."""
        fields: tuple[str, ...] = (
            "info",
            "scorer",
            "validate",
            "summary",
            "cli_values",
            "source",
            "view",
            "layout",
            "audit",
            "audit_trained",
        )
        fields += ("synthetic_house", "synthetic")
        out = {k: getattr(self, k) for k in fields}
        out.update({f"{group} {cmd}": path for group, cmd, path in self.extra_commands})
        return {k: v for k, v in out.items() if v is not None}

    def generic(self) -> bool:
        """True when the shared command builder makes this benchmark's commands (it declares inputs)."""
        return bool(self.inputs)

    def options_for(self, command: Command) -> tuple[Option, ...]:
        return tuple(o for o in self.options if command in o.commands)
