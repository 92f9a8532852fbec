"""Lazy registries: names map to ``"module:attr"`` strings, imported only when used.

``scenebench --help`` and ``scenebench list`` must not import torch, open3d or ray, so nothing
heavy is imported until a benchmark, model or judge is actually asked for. Third-party packages
add models through the ``scenebench.models`` entry-point group (model: lm-evaluation-harness's
``api/registry.py``).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator
from importlib.metadata import entry_points
from typing import Any

from scenebench.errors import ScenebenchError


class Registry:
    def __init__(self, kind: str, entry_point_group: str | None = None) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
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

    def names(self) -> list[str]:
        return sorted(set(self._paths) | set(self._entry_points()))

    def __contains__(self, name: str) -> bool:
        return name in self._paths or name in self._entry_points()

    def path(self, name: str) -> str:
        if name in self._paths:
            return self._paths[name]
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
