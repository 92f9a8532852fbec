"""Lazy registries: names map to ``"module:attr"`` strings, imported only when used.

``scenebench --help`` and ``scenebench list`` must not import torch, open3d or ray, so nothing
heavy is imported until a benchmark, model or judge is actually asked for. Third-party packages
add models through the ``scenebench.models`` entry-point group (model: lm-evaluation-harness's
``api/registry.py``).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from scenebench.errors import ScenebenchError


def entry_points(**selection: Any) -> Any:
    """``importlib.metadata.entry_points``, imported on first use (~25 ms of every start-up otherwise)."""
    from importlib.metadata import entry_points as _entry_points

    return _entry_points(**selection)


class Registry:
    """``name -> "module:attr"``: registered names, entry points of ``entry_point_group``, and
    ``declared()`` (read on every lookup, so a table derived from declarations made elsewhere, like
    the benchmark catalog's, is never stale)."""

    def __init__(self, kind: str, entry_point_group: str | None = None, *, declared: Callable[[], Mapping[str, str]] | None = None) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        self.declared = declared
        self._paths: dict[str, str] = {}
        self._loaded: dict[str, Any] = {}

    def register(self, name: str, path: str) -> None:
        if name in self._paths and self._paths[name] != path:
            raise ScenebenchError(f"{self.kind} '{name}' is already registered as {self._paths[name]}")
        self._paths[name] = path

    def _entry_points(self) -> dict[str, str]:
        if not self.entry_point_group:
            return {}
        return {ep.name: ep.value for ep in entry_points(group=self.entry_point_group)}

    def _own(self) -> dict[str, str]:
        return {**(self.declared() if self.declared else {}), **self._paths}

    def names(self) -> list[str]:
        return sorted(set(self._own()) | set(self._entry_points()))

    def __contains__(self, name: str) -> bool:
        return name in self._own() or name in self._entry_points()

    def path(self, name: str) -> str:
        own = self._own()
        if name in own:
            return own[name]
        eps = self._entry_points()
        if name in eps:
            return eps[name]
        close = difflib.get_close_matches(name, self.names(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(self.names()) or 'none'}"
        raise ScenebenchError(f"unknown {self.kind} '{name}'{hint}")

    def get(self, name: str) -> Any:
        if name not in self._loaded:
            self._loaded[name] = load_object(self.path(name))
        return self._loaded[name]

    def items(self) -> Iterator[tuple[str, Any]]:
        for n in self.names():
            yield n, self.get(n)


def load_object(path: str) -> Any:
    """Import ``"package.module:attr"`` (or ``"package.module.attr"``)."""
    if ":" in path:
        mod, _, attr = path.partition(":")
    else:
        mod, _, attr = path.rpartition(".")
    if not mod or not attr:
        raise ScenebenchError(f"'{path}' is not of the form module:attribute")
    try:
        module = importlib.import_module(mod)
    except ImportError as exc:
        raise ScenebenchError(f"cannot import module '{mod}' (from '{path}'): {exc}") from None
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ScenebenchError(f"module '{mod}' has no attribute '{attr}'") from None
    return obj
