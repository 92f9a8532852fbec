"""Model names on the command line, resolved lazily.

``--model`` accepts:

- a built-in name: ``oracle``, ``random``, ``baseline:prior``, ``baseline:labels``, ``baseline:nearest``, ``baseline:cluster``,
  ``baseline:fpfh`` (RIO, needs open3d);
- ``openai:MODEL``: any OpenAI-compatible chat server (``--base-url``), see
  :mod:`scenebench.models.builtin.openai_chat`;
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

MODELS = Registry("model", entry_point_group="scenebench.models")
MODELS.register("oracle", "scenebench.models.builtin.oracle:OracleModel")
MODELS.register("random", "scenebench.models.builtin.chance:RandomModel")
MODELS.register("baseline:prior", "scenebench.models.builtin.prior:PriorModel")
MODELS.register("baseline:labels", "scenebench.models.builtin.labels:LabelsModel")
MODELS.register("baseline:nearest", "scenebench.models.builtin.heuristics:NearestObjectModel")
MODELS.register("baseline:cluster", "scenebench.models.builtin.heuristics:ClusterModel")
MODELS.register("baseline:fpfh", "scenebench.models.builtin.fpfh:FPFHModel")


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
    return MODELS.path(spec)


def _accepted(factory: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Keep the options the factory takes (all of them if it takes ``**kwargs``)."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return dict(options)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(options)
    return {k: v for k, v in options.items() if k in params}


def make_model(spec: str, **options: Any) -> Any:
    """Build the model named by ``spec``; ``options`` (seed, base_url, ...) go to the constructor if it takes them."""
    factory = load_object(model_factory_path(spec))
    if spec.startswith("openai:"):
        options = {**options, "model": spec[len("openai:") :]}
    model = factory(**_accepted(factory, options))
    if not callable(getattr(model, "predict", None)):
        raise ScenebenchError(f"model '{spec}' ({type(model).__name__}) has no predict(batch) method; see docs/model-template.md")
    if not getattr(model, "name", None):
        try:
            model.name = spec
        except AttributeError:
            pass
    return model


def builtin_names() -> list[str]:
    return MODELS.names() + ["openai:MODEL", "plugin:module:Class"]
