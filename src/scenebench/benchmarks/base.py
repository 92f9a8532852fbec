"""What every benchmark declares about itself (for ``scenebench list`` and the docs)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
class BenchmarkSpec:
    """One benchmark, declared once (:mod:`scenebench.benchmarks.catalog`); every table derives from it.

    Each field but ``name`` is a lazy ``"module:attr"`` path, imported only when used, so
    ``scenebench --help`` and ``scenebench list`` import no benchmark code. Like
    lm-evaluation-harness's task registry, but one small dataclass per benchmark:

    - ``info``: its :class:`BenchmarkInfo` (``scenebench list``, docs);
    - ``loader``: the ground-truth loader; ``predictions``: the prediction-file reader;
    - ``scorer``: ``prepare(*, protocol, **options) -> ScoringJob`` for the shared driver
      (:func:`scenebench.runtime.scoring.score_benchmark`);
    - ``commands``: module whose ``register(groups)`` adds ``score``/``validate``/``run`` commands;
      ``extra_commands``: ``(group, command)`` pairs it registers besides ``score``/``validate`` ``name``;
    - ``source``: the run source class for ``scenebench run`` (``None``: no ``run``);
    - ``view``: the report's 3D view builder (``None``: no 3D views);
    - ``layout``: the paper's results-table layout (``None``: the generic long table).
    """

    name: str
    info: str
    loader: str
    predictions: str
    scorer: str
    commands: str
    source: str | None = None
    view: str | None = None
    layout: str | None = None
    extra_commands: tuple[tuple[str, str], ...] = ()

    def paths(self) -> dict[str, str]:
        """Every declared ``module:attr`` path by field (``commands`` is a module path)."""
        out = {k: getattr(self, k) for k in ("info", "loader", "predictions", "scorer", "source", "view", "layout")}
        return {k: v for k, v in out.items() if v is not None}
