"""Errors that reach users. Every input problem names the file, the record and the field."""

from __future__ import annotations

from pathlib import Path


class ScenebenchError(Exception):
    """Base class: the CLI prints these as one clear message, without a traceback."""


class InputError(ScenebenchError, ValueError):
    """Bad input data: names the file, where in it (line / index / key), the field, and what was expected."""

    def __init__(
        self,
        path: str | Path | None,
        message: str,
        *,
        where: str | None = None,
        field: str | None = None,
        expected: str | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.where = where
        self.field = field
        self.expected = expected
        self.reason = message
        parts = []
        if self.path:
            parts.append(self.path)
        if where:
            parts.append(where)
        if field:
            parts.append(f"field '{field}'")
        head = ": ".join(parts)
        text = f"{head}: {message}" if head else message
        if expected:
            text += f" (expected {expected})"
        super().__init__(text)


class MissingExtraError(ScenebenchError, ImportError):
    """An optional heavy dependency is not installed."""

    def __init__(self, module: str, extra: str, purpose: str = "") -> None:
        why = f" for {purpose}" if purpose else ""
        if extra in ("", "core"):  # a core dependency: there is no extra to name
            how = f"it is a core dependency of scenebench: pip install --force-reinstall scenebench (or pip install {module.split('.')[0]})"
        else:
            how = f"Install it with: pip install 'scenebench[{extra}]' (the '{extra}' extra)"
        super().__init__(f"'{module}' is needed{why} but is not installed; {how}")
        self.module = module
        self.extra = extra


class RunMismatchError(ScenebenchError):
    """A run folder holds results of different inputs or settings than the ones asked for."""
