"""Model names on the command line, resolved lazily.

``--model`` accepts:

- a built-in name: ``oracle``, ``random``, ``baseline:prior``, ``baseline:labels``, ``baseline:nearest``, ``baseline:cluster``,
  or one a benchmark declares for itself (``BenchmarkSpec.extra_models``: ``baseline:fpfh``, RIO's,
  needs open3d);
- ``openai:MODEL``: any OpenAI-compatible chat server (``--base-url``), see
  :mod:`scenebench.models.builtin.openai_chat`;
- ``openai-vision:MODEL``: any OpenAI-compatible vision server, shown marked views of the scene, see
  :mod:`scenebench.models.builtin.openai_vision`;
- ``plugin:package.module:Class``: a class (or factory function) importable in this environment;
- a name registered by another package in the ``scenebench.models`` entry-point group, e.g. in
  its ``pyproject.toml``: ``[project.entry-points."scenebench.models"] my-model = "my_pkg.model:MyModel"``.

Nothing is imported until a model is asked for, so ``scenebench --help`` stays light.
"""

from __future__ import annotations

import inspect
from typing import Any

from scenebench.errors import ScenebenchError
from scenebench.registry import Registry, load_object


def declared_models() -> dict[str, str]:
    """``name -> "module:attr"`` of the models benchmarks declare for themselves (``extra_models``):
    they live in the benchmark's package, found through the catalog."""
    from scenebench.declarations.catalog import specs

    return {name: path for s in specs() for name, _extra, path in s.extra_models}


MODELS = Registry("model", entry_point_group="scenebench.models", declared=declared_models)
MODELS.register("oracle", "scenebench.models.builtin.oracle:OracleModel")
MODELS.register("random", "scenebench.models.builtin.chance:RandomModel")
MODELS.register("baseline:prior", "scenebench.models.builtin.prior:PriorModel")
MODELS.register("baseline:labels", "scenebench.models.builtin.labels:LabelsModel")
MODELS.register("baseline:nearest", "scenebench.models.builtin.heuristics:NearestObjectModel")
MODELS.register("baseline:cluster", "scenebench.models.builtin.heuristics:ClusterModel")
VISION_PREFIX = "openai-vision:"


def model_factory_path(spec: str) -> str:
    """The ``module:attr`` that builds the model named by ``spec``."""
    if spec.startswith("plugin:"):
        path = spec[len("plugin:") :]
        if ":" not in path:
            raise ScenebenchError(f"--model {spec}: expected plugin:package.module:ClassName")
        return path
    if spec.startswith("openai:"):
        if not spec[len("openai:") :]:
            raise ScenebenchError("--model openai:MODEL needs the model id after 'openai:'")
        return "scenebench.models.builtin.openai_chat:OpenAIChatModel"
    if spec.startswith(VISION_PREFIX):
        if not spec[len(VISION_PREFIX) :]:
            raise ScenebenchError(f"--model {VISION_PREFIX}MODEL needs the model id after '{VISION_PREFIX}'")
        return "scenebench.models.builtin.openai_vision:OpenAIVisionModel"
    return MODELS.path(spec)


# Given to every model by the runner; a model that does not take it simply does not get it.
IMPLICIT_OPTIONS = ("seed",)


def accepted_options(factory: Any) -> list[str] | None:
    """The keyword options ``factory`` takes, or ``None`` when it takes any (``**kwargs``) or cannot be inspected."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [n for n, p in params.items() if p.kind in kinds and n != "self"]


def _accepted(spec: str, factory: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The options for ``factory``; an option it does not take is an error naming the ones it does.

    A misspelled ``--model-arg`` must not be dropped silently: it would change the run's
    fingerprint while changing nothing else.
    """
    names = accepted_options(factory)
    if names is None:
        return dict(options)
    unknown = sorted(k for k in options if k not in names and k not in IMPLICIT_OPTIONS)
    if unknown:
        shown = [n for n in names if n != "model" or not spec.startswith("openai:")]
        raise ScenebenchError(
            f"model '{spec}' takes no option {', '.join(repr(k) for k in unknown)} (--model-arg / --base-url); "
            f"accepted: {', '.join(shown) or 'none'}"
        )
    return {k: v for k, v in options.items() if k in names}


def check_model_options(spec: str, options: dict[str, Any]) -> None:
    """Fail before any data is read when ``options`` has a key the model named by ``spec`` does not take."""
    _accepted(spec, load_object(model_factory_path(spec)), options)


def make_model(spec: str, **options: Any) -> Any:
    """Build the model named by ``spec``; ``options`` go to the constructor (``seed`` only if it takes one)."""
    factory = load_object(model_factory_path(spec))
    if spec.startswith("openai:"):
        options = {**options, "model": spec[len("openai:") :]}
    elif spec.startswith(VISION_PREFIX):
        options = {**options, "model": spec[len(VISION_PREFIX) :]}
    model = factory(**_accepted(spec, factory, options))
    if not callable(getattr(model, "predict", None)):
        raise ScenebenchError(f"model '{spec}' ({type(model).__name__}) has no predict(batch) method; see docs/model-template.md")
    if not getattr(model, "name", None):
        try:
            model.name = spec
        except AttributeError:
            pass
    return model


def builtin_names() -> list[str]:
    return MODELS.names() + ["openai:MODEL", "openai-vision:MODEL", "plugin:module:Class"]
