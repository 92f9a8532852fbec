"""Secrets never reach files: passwords in URLs and secret-looking option values are replaced by ``***``
in everything scenebench records (run.json, results.json and its ``command``, traceback logs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SECRET_OPTION_WORDS = ("password", "passwd", "secret", "token", "apikey")  # whole words of an option name


def is_secret_name(name: str) -> bool:
    """``api_key``, ``--auth-token``, ``password``: yes; ``max_tokens``, ``temperature``: no."""
    n = name.lower().replace("-", "_").strip("_")
    return "api_key" in n or any(part in SECRET_OPTION_WORDS for part in n.split("_"))


def redact_url(url: str) -> str:
    """``https://user:pw@host/v1`` -> ``https://user:***@host/v1``; other URLs unchanged."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def redact_options(opts: Mapping[str, Any]) -> dict[str, Any]:
    """Model options as recorded: passwords in URLs and values of secret-looking keys replaced by ``***``."""
    out: dict[str, Any] = {}
    for k, v in opts.items():
        if is_secret_name(k) and v not in (None, ""):
            out[k] = "***"
        elif isinstance(v, str) and "@" in v and "://" in v:
            out[k] = redact_url(v)
        else:
            out[k] = v
    return out


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A command line as recorded: URL passwords redacted, the value after a secret-looking option too."""
    out: list[str] = []
    hide_next = False
    for a in argv:
        if hide_next:
            out.append("***")
            hide_next = False
            continue
        name, eq, value = a.partition("=")
        secret_opt = a.startswith("--") and is_secret_name(name)
        if secret_opt and eq:
            out.append(f"{name}=***")
        elif secret_opt:
            out.append(a)
            hide_next = True
        elif "@" in a and "://" in a:
            out.append(redact_url(a) if not eq or "://" in name else f"{name}={redact_url(value)}")
        else:
            out.append(a)
    return out
