"""What a benchmark declares about itself, as data: the one shape every benchmark has.

A benchmark package holds its readers, its per-scene scorer, its run source and its view; what it
*is* is one :class:`BenchmarkSpec` (``benchmarks/<name>/spec.py``, named in
:mod:`scenebench.benchmarks.catalog`): its inputs, options, metrics, groups, primary metric, the
samples a report must show, its warnings and its paper layout. From that declaration the shared
layers build everything else: the ``score``/``validate``/``run`` commands
(:mod:`scenebench.commands.benchmark`), the run meta and fingerprint (:class:`RunMeta`,
:func:`scenebench.runtime.scoring.score_benchmark`), the report's histograms and views.

Nothing here imports more than the standard library: the CLI reads declarations at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from scenebench.metrics.records import SampleScore
    from scenebench.results import Results

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

    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)

    def required(self, command: Command) -> bool:
        return command not in self.optional_for and (self.role != "predictions" or command != "validate")


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
    - ``loader``: the ground-truth loader; ``predictions``: the prediction-file reader;
    - ``scorer``: ``prepare(*, protocol, **inputs, **options) -> ScoringJob`` for the shared driver;
    - ``validate``: ``check(**inputs, **options) -> None`` behind ``scenebench validate NAME``;
    - ``summary``: ``show(results, run) -> None``, what ``score`` and ``run`` print (default: the
      overall metrics table);
    - ``cli_values``: ``adapt(command, values) -> contextmanager of dict``: turns parsed CLI values
      into keywords (builds and closes a judge, parses ``CODE=ORDER`` pairs); default: as parsed;
    - ``source``: the run source class for ``scenebench run`` (``None``: no ``run``);
    - ``view``: the report's 3D view builder (``None``: no 3D views);
    - ``layout``: the paper's results-table layout (``None``: the generic long table);
    - ``audit``: ``rows(folder, **options) -> list of audit rows`` for ``scenebench audit``;
    - ``audit_trained``: ``trained(folder, out, **options) -> list of trained-probe rows`` (fitted on
      the train split, scored on the test split; :mod:`scenebench.metrics.probes`, the audit extra);
    - ``synthetic``: ``write(folder, root, summaries, rng) -> list of paths``: this benchmark's
      synthetic data, written by ``scenebench generate`` into ``folder`` (``root/<data_folder>``)
      after the generator's own formats, from what it finds under ``root`` and the per-house
      ``summaries`` (``split``, ``scene_id``...); it returns the files it wrote (nothing when the
      data it derives from was not generated).

    Data: ``inputs`` and ``options`` (the CLI is built from them), ``primary_metric`` (the report's
    default histogram; a benchmark with one per group sets ``results.extra["primary_metric"]``),
    ``show_samples``, ``warnings``, ``headline`` (the demo table), ``data_folder`` (its folder in a
    generated dataset), ``extra_models`` (``(model, extra)``: built-in models that answer only this
    benchmark, run by the demo when the extra is installed), ``extra_commands`` (``(group, command, "module:function")`` beside the
    generic ones). ``commands``: a legacy module whose ``register(groups)`` adds hand-written
    commands (plugins declared before the generic commands existed).

    ``lineages``: the evaluators whose ``official`` numbers differ (the dataset authors' scorer first,
    then the copies papers ship): ``--protocol official:<lineage>`` selects one, plain ``official``
    is the first (:func:`scenebench.protocol.parse_protocol`); the scorer then receives, and
    ``results.json`` records, ``official:<lineage>``. Empty: only ``strict`` and ``official``.
    """

    name: str
    info: str
    loader: str
    predictions: str
    scorer: str
    inputs: tuple[Input, ...] = ()
    options: tuple[Option, ...] = ()
    primary_metric: str | None = None
    show_samples: tuple[ShowSamples, ...] = ()
    warnings: tuple[BaselineWarning, ...] = ()
    headline: tuple[Headline, ...] = ()
    data_folder: str | None = None
    extra_models: tuple[tuple[str, str], ...] = ()
    validate: str | None = None
    summary: str | None = None
    cli_values: str | None = None
    source: str | None = None
    view: str | None = None
    layout: str | None = None
    audit: str | None = None
    audit_trained: str | None = None
    synthetic: str | None = None
    extra_commands: tuple[tuple[str, str, str], ...] = ()
    commands: str | None = None
    lineages: tuple[str, ...] = ()

    def paths(self) -> dict[str, str]:
        """Every declared ``module:attr`` path by field."""
        fields = ("info", "loader", "predictions", "scorer", "validate", "summary", "cli_values", "source", "view", "layout", "audit")
        fields += ("audit_trained", "synthetic")
        out = {k: getattr(self, k) for k in fields}
        out.update({f"{group} {cmd}": path for group, cmd, path in self.extra_commands})
        return {k: v for k, v in out.items() if v is not None}

    def generic(self) -> bool:
        """True when the shared command builder makes this benchmark's commands (it declares inputs)."""
        return bool(self.inputs)

    def options_for(self, command: Command) -> tuple[Option, ...]:
        return tuple(o for o in self.options if command in o.commands)


class Scorer(Protocol):
    """What the shared driver iterates: every ground-truth id (the denominator), then score batches."""

    benchmark: str
    protocol: str

    def sample_ids(self) -> list[str]:
        """Every ground-truth sample id, in order: the denominator."""

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        """Yield batches (one per scene) of scores for samples not in ``skip``."""


class Summarize(Protocol):
    """Turns the complete records (a list of ``SampleScore``) into the run's results."""

    def __call__(self, records: Any, run: Any) -> Results: ...


@dataclass(frozen=True)
class RunMeta:
    """What ``run.json`` of a ``scenebench score`` folder records, and the fingerprint that decides
    whether a folder may be resumed: the protocol, the settings and the content digests of the
    inputs (paths are left out: moving the same files does not invalidate a run)."""

    benchmark: str
    protocol: str
    settings: Mapping[str, Any]
    inputs: Mapping[str, Any]
    fingerprint: str

    @classmethod
    def build(
        cls, benchmark: str, protocol: str, settings: Mapping[str, Any], inputs: Mapping[str, Any], digests: Mapping[str, Any] | None = None
    ) -> RunMeta:
        """``digests``: what of the inputs the fingerprint covers (default :func:`input_digests`)."""
        from scenebench.io.fingerprints import fingerprint

        key = {"protocol": protocol, "settings": dict(settings), "inputs": input_digests(inputs) if digests is None else dict(digests)}
        return cls(benchmark, protocol, settings, inputs, fingerprint(key))

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "protocol": self.protocol,
            "settings": dict(self.settings),
            "inputs": dict(self.inputs),
            "fingerprint": self.fingerprint,
        }


def input_digests(inputs: Any) -> Any:
    """The content digests of a (nested) inputs record: a file record (``{"path", "sha256", ...}``)
    becomes its sha256; plain strings (folder paths) drop out."""
    if isinstance(inputs, Mapping):
        if "sha256" in inputs:
            return inputs["sha256"]
        return {k: input_digests(v) for k, v in inputs.items() if not isinstance(v, str | Path)}
    return inputs


@dataclass(frozen=True)
class JobHooks:
    """Optional steps around scoring: ``check_inputs()`` reads (and so validates) the predictions
    before a run folder is made, unless the folder already holds every score; ``on_open(scorer)``
    runs once the folder is open; ``on_stop(run)`` after scoring, also when it fails (a judge saves
    its usage)."""

    check_inputs: Callable[[], object] | None = None
    on_open: Callable[[Any], None] | None = None
    on_stop: Callable[[Any], object] | None = None


@dataclass(frozen=True)
class ScoringJob:
    """What a benchmark's ``prepare`` hands the one shared driver
    (:func:`scenebench.runtime.scoring.score_job`).

    ``settings`` and ``inputs`` (file records from :func:`scenebench.io.files.file_fingerprint`,
    the predictions under ``"predictions"``) go into ``run.json`` and the run's fingerprint, which
    the driver builds (:class:`RunMeta`); ``score_key`` is what else the stored scores of a
    ``scenebench run`` depend on (3DBench: its judge): other values re-score the stored predictions.
    """

    benchmark: str
    protocol: str
    scorer: Scorer
    summarize: Summarize
    settings: Mapping[str, Any] = field(default_factory=dict)
    inputs: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""
    hooks: JobHooks = field(default_factory=JobHooks)
    score_key: Mapping[str, Any] = field(default_factory=dict)
    digests: Mapping[str, Any] | None = None  # what the fingerprint covers, when not input_digests(inputs)

    def meta(self) -> RunMeta:
        return RunMeta.build(self.benchmark, self.protocol, self.settings, self.inputs, self.digests)
