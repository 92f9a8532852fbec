"""The Python API: ``scenebench.score`` and ``scenebench.run`` (documented in docs/api.md).

Both go through the same drivers as the ``scenebench score`` and ``scenebench run`` commands, so a
number computed here equals the command's (same run folder layout, same ``results.json``). The
inputs are the benchmark's declared ones (``scenebench score BENCHMARK --help`` lists them; the
option ``--score-threshold`` is the keyword ``score_threshold``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scenebench.errors import InputError, ScenebenchError
from scenebench.results import Results


def _whole_number(value: Any, name: str, minimum: int, meaning: str) -> int:
    """``value`` as an int, checked before any work: ``bootstrap=-1`` or ``bootstrap="10"`` used to be
    taken as given (the second failing with a raw TypeError after every sample was scored)."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(None, f"got {value!r} ({type(value).__name__})", field=name, expected=f"a whole number >= {minimum} ({meaning})")
    return int(value)


def _run_folder(out: str | Path | None, label: str) -> Path:
    """``out``, or a new temporary folder: the API never writes into the working directory unasked."""
    if out is not None:
        return Path(out)
    return Path(tempfile.mkdtemp(prefix=f"scenebench-{label.replace(':', '-').replace('/', '-')}-"))


def score(
    benchmark: str,
    *,
    protocol: str = "strict",
    out: str | Path | None = None,
    overwrite: bool = False,
    bootstrap: int = 1000,
    seed: int = 0,
    progress: bool = False,
    **inputs: Any,
) -> Results:
    """Score saved predictions of ``benchmark`` (``"surprise3d"``, ``"3dbench"``, ``"rio"``, ...).

    ``inputs``: the benchmark's declared inputs and options by keyword, e.g.
    ``score("rio", data="3RScan", predictions="poses.jsonl", split="validation")``; ``data``: the
    folder ``run`` reads, where inputs left out are found (``score("surprise3d", data=DIR,
    predictions=...)``). ``out``: the
    run folder (resumed when it holds the same run; default: a new temporary folder). The results
    say which ``protocol`` produced them; ``results.samples()`` gives the per-sample scores.
    """
    from scenebench.declarations.catalog import get_spec
    from scenebench.protocol import resolve_protocol
    from scenebench.runtime.rundir import run_folder_call
    from scenebench.runtime.scoring import score_benchmark

    bootstrap = _whole_number(bootstrap, "bootstrap", 0, "bootstrap resamples; 0: no intervals")
    seed = _whole_number(seed, "seed", 0, "the bootstrap seed")
    spec = get_spec(benchmark)
    checked = resolve_protocol(protocol, spec.lineages)
    if not any(i.name == "data" for i in spec.inputs) and inputs.get("data") is not None:
        # the folder run(data=...) reads: inputs the benchmark locates there need not be named
        data = Path(inputs.pop("data"))
        inputs.update({i.name: data / i.in_data for i in spec.inputs if i.in_data and inputs.get(i.name) is None})
    missing = [i.name for i in spec.inputs if i.required("score") and inputs.get(i.name) is None]
    if missing:
        raise ScenebenchError(f"scenebench.score({benchmark!r}) needs {', '.join(missing)} (the benchmark's declared inputs)")
    declared = {i.name for i in spec.inputs}
    kw = {k: Path(v) if k in declared and isinstance(v, str) else v for k, v in inputs.items()}
    folder = _run_folder(out, benchmark)
    with run_folder_call(folder):  # the folder's lock is this call's: another thread may use it once it returns
        res, _, _ = score_benchmark(
            benchmark,
            folder,
            protocol=checked,
            overwrite=overwrite,
            progress=progress,
            n_resamples=bootstrap,
            seed=seed,
            **kw,
        )
    return res


def run(
    benchmark: str,
    model: str,
    *,
    protocol: str = "strict",
    out: str | Path | None = None,
    tasks: Sequence[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    model_options: Mapping[str, Any] | None = None,
    score_options: Mapping[str, Any] | None = None,
    backend: str = "local",
    address: str | None = None,
    overwrite: bool = False,
    progress: bool = False,
    **data: Any,
) -> Results:
    """Run ``model`` (a built-in name, ``plugin:package.module:Class`` or an entry-point name) over
    ``benchmark`` in this process, saving predictions as they come (resumable), then score them.

    ``data``: the benchmark's run-source keywords (``data="..."`` and the options ``scenebench run
    BENCHMARK --help`` lists). ``model_options`` go to the model's constructor, ``score_options`` to
    the scoring (3DBench: ``judge``). ``backend="ray"`` shards scenes over a Ray cluster
    (``address``; default a private local one). ``out``: the run folder (default: a new temporary folder).
    """
    from scenebench.models.registry import check_model_options
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.execute import make_backend
    from scenebench.runtime.rundir import run_folder_call
    from scenebench.runtime.runner import run_benchmark

    seed = _whole_number(seed, "seed", 0, "the model's and the bootstrap's seed")
    if limit is not None:
        limit = _whole_number(limit, "limit", 1, "samples per task")
    options = dict(model_options or {})
    check_model_options(model, options)
    source = make_source(benchmark, **{k: str(v) if isinstance(v, Path) else v for k, v in data.items()})
    folder = _run_folder(out, f"{benchmark}-{model}")
    with run_folder_call(folder):
        outcome = run_benchmark(
            source,
            model,
            folder,
            model_options=options,
            tasks=list(tasks) if tasks else None,
            limit=limit,
            seed=seed,
            protocol=protocol,
            backend=make_backend(backend, address, scenes_per_task=1, max_retries=3),
            overwrite=overwrite,
            progress=progress,
            score_options=score_options,
        )
    res: Results = outcome.results
    return res
