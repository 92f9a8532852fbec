"""Import optional heavy dependencies on demand, with a message that says which extra to install."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from scenebench.errors import MissingExtraError


def require(module: str, extra: str, purpose: str = "") -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install 'scenebench[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised where the extra is absent
        raise MissingExtraError(module, extra, purpose) from exc


def available(module: str) -> bool:
    """True when ``module`` can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
