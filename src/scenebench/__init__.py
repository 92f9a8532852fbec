"""scenebench: trustworthy evaluation and scalable benchmark data for 3D scene understanding.

The Python API (docs/api.md): :func:`score` saved predictions, :func:`run` a model; both return
:class:`scenebench.results.Results`, whose ``samples()`` is the per-sample table. Models plug in
through :mod:`scenebench.models`. Importing ``scenebench`` stays light: the API's modules are
imported when it is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scenebench._version import __version__
from scenebench.protocol import DEFAULT_PROTOCOL, PROTOCOLS

if TYPE_CHECKING:
    from scenebench.results import Results

__all__ = ["DEFAULT_PROTOCOL", "PROTOCOLS", "__version__", "run", "score"]


def score(benchmark: str, **inputs: Any) -> Results:
    """Score saved predictions: :func:`scenebench.api.score` (``protocol=``, ``out=``, the benchmark's inputs)."""
    from scenebench.api import score as _score

    return _score(benchmark, **inputs)


def run(benchmark: str, model: str, **options: Any) -> Results:
    """Run a model, then score it: :func:`scenebench.api.run` (``protocol=``, ``out=``, ``data=``...)."""
    from scenebench.api import run as _run

    return _run(benchmark, model, **options)
