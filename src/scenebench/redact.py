"""Secrets never reach files or the terminal: passwords in URLs, credentials in URL query strings and
secret-looking option values are replaced by ``***`` in everything scenebench records (run.json,
results.json and its ``command``, traceback logs), and :func:`redact_text` masks every secret the
process knows of (:func:`known_secrets`: secret-looking environment variables and command-line
values), and any fragment of 6+ characters of one, in error messages and logs: a server that echoes
the API key back in its 401 reply must not get it printed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# Whole words of an option name that mark its value as a credential: ``--model-arg api_key=``,
# ``key=``, ``auth=``, ``authorization=``, ``credentials=``, ``bearer=``, ``headers=`` (an HTTP
# headers option carries the Authorization header). ``max_tokens``, ``keyframes``, ``author`` are not.
SECRET_OPTION_WORDS = (
    "password",
    "passwd",
    "secret",
    "secrets",
    "token",
    "apikey",
    "key",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "bearer",
    "headers",
    "header",
    "cookie",
)
# Query-string parameters that carry a credential (Azure ``api-key``, signed URLs' ``sig``, OAuth tokens...).
SECRET_QUERY_KEYS = frozenset(
    {
        "api-key",
        "api_key",
        "apikey",
        "key",
        "token",
        "access_token",
        "id_token",
        "refresh_token",
        "auth",
        "sig",
        "signature",
        "password",
        "passwd",
        "secret",
        "client_secret",
        "x-api-key",
        "code",
        "session",
        "jwt",
    }
)
ENV_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")  # parts of an environment variable's name
NOT_SECRET_SUFFIXES = ("_PATH", "_FILE", "_DIR", "_URL_PATH")  # where a secret lives, not the secret
MIN_SECRET = 8  # shorter values (``false``, ``1``) are settings, not credentials
FRAGMENT = 6  # an echoed piece of a secret this long is masked too
MASK = "***"


def is_secret_name(name: str) -> bool:
    """``api_key``, ``--auth-token``, ``password``: yes; ``max_tokens``, ``temperature``: no."""
    n = name.lower().replace("-", "_").strip("_")
    return "api_key" in n or any(part in SECRET_OPTION_WORDS for part in n.split("_"))


def is_secret_query_key(key: str) -> bool:
    from urllib.parse import unquote_plus

    k = unquote_plus(key).strip().lower()
    return k in SECRET_QUERY_KEYS or is_secret_name(k)


def _redact_query(query: str) -> str:
    """``a=1&api-key=XYZ`` -> ``a=1&api-key=***``: the pairs are edited in place (order and encoding kept)."""
    out = []
    for pair in query.split("&"):
        key, eq, value = pair.partition("=")
        out.append(f"{key}={MASK}" if eq and value and is_secret_query_key(key) else pair)
    return "&".join(out)


def redact_url(url: str) -> str:
    """``https://user:pw@host/v1`` -> ``https://user:***@host/v1``, ``https://TOKEN@host`` ->
    ``https://***@host``, ``...?api-key=XYZ`` -> ``...?api-key=***``; other URLs unchanged."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    changed = parts
    if "@" in parts.netloc:
        host = parts.hostname or ""
        if ":" in host:  # IPv6
            host = f"[{host}]"
        user = f"{parts.username or ''}:{MASK}" if parts.password is not None else MASK  # a lone user part is a token
        changed = changed._replace(netloc=f"{user}@{host}" + (f":{port}" if port else ""))
    if parts.query:
        changed = changed._replace(query=_redact_query(parts.query))
    if parts.fragment and "=" in parts.fragment:  # OAuth implicit flow: #access_token=...
        changed = changed._replace(fragment=_redact_query(parts.fragment))
    return url if changed == parts else urlunsplit(changed)


def _looks_like_url(value: str) -> bool:
    return "://" in value and ("@" in value or "?" in value or "#" in value)


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries (userinfo password or token, secret query values), to mask elsewhere."""
    from urllib.parse import unquote_plus, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        user, colon, pw = userinfo.partition(":")
        found += [pw, unquote_plus(pw)] if colon else [user, unquote_plus(user)]
    for chunk in (parts.query, parts.fragment):
        for pair in chunk.split("&"):
            key, eq, value = pair.partition("=")
            if eq and value and is_secret_query_key(key):
                found += [value, unquote_plus(value)]
    return [f for f in dict.fromkeys(found) if f]


def _is_path_like(value: str) -> bool:
    return value.startswith(("/", "./", "../", "~")) or (len(value) > 2 and value[1:3] in (":\\", ":/")) or os.sep + os.sep in value


def is_secret_env(name: str, value: str) -> bool:
    """``OPENAI_API_KEY=sk-...``, ``HF_TOKEN``, ``DB_PASSWORD``: yes; ``HF_TOKEN_PATH``, ``SSH_KEY_FILE``,
    a path, a short setting (``TOKENIZERS_PARALLELISM=false``): no."""
    n = name.upper()
    if n.endswith(NOT_SECRET_SUFFIXES) or not any(w in n for w in ENV_SECRET_WORDS):
        return False
    v = value.strip()
    return len(v) >= MIN_SECRET and not _is_path_like(v) and v.lower() not in ("true", "false", "none", "null")


def known_secrets(environ: Mapping[str, str] | None = None, argv: Sequence[str] = ()) -> list[str]:
    """Every secret this process can know of: secret-looking environment variables (:func:`is_secret_env`),
    the values of secret-looking options on ``argv`` (``--api-key X``, ``--token=X``, ``api_key=X`` of
    ``--model-arg``) and the credentials of any URL on it. Longest first (masking order)."""
    env = os.environ if environ is None else environ
    found = [v.strip() for k, v in env.items() if is_secret_env(k, v)]
    hide_next = False
    for a in argv:
        if hide_next:
            found.append(a)
            hide_next = False
            continue
        name, eq, value = a.partition("=")
        if is_secret_name(name.lstrip("-")) and (a.startswith("--") or eq):
            if eq:
                found.append(value)
            else:
                hide_next = a.startswith("--")
        for part in (a, value):
            if "://" in part:
                found += url_secrets(part)
    return sorted({f for f in found if len(f) >= FRAGMENT}, key=len, reverse=True)


def redact_text(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every URL credential, every known secret and every fragment of 6+ characters of
    one replaced by ``***`` (``secrets`` default: :func:`known_secrets` of this process)."""
    if not text:
        return text
    if "://" in text:
        text = re.sub(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+", lambda m: redact_url(m.group(0)), text)
    for secret in known_secrets(argv=_process_argv()) if secrets is None else secrets:
        text = _mask_fragments(text, secret)
    return text


def _process_argv() -> list[str]:
    import sys

    return list(sys.argv[1:])


def _mask_fragments(text: str, secret: str) -> str:
    """Mask every run of ``text`` covered by ``FRAGMENT``-character pieces of ``secret`` (so a whole
    secret, a truncated one, and ``sk-abc...wxyz`` style echoes are all hidden)."""
    if len(secret) < FRAGMENT:
        return text
    if secret in text:
        text = text.replace(secret, MASK)
    grams = {secret[i : i + FRAGMENT] for i in range(len(secret) - FRAGMENT + 1)}
    if not any(g in text for g in grams):
        return text
    covered = bytearray(len(text))
    for g in grams:
        start = text.find(g)
        while start != -1:
            covered[start : start + FRAGMENT] = b"\x01" * FRAGMENT
            start = text.find(g, start + 1)
    pieces, last = [], 0
    for run in re.finditer(rb"\x01+", bytes(covered)):
        pieces += [text[last : run.start()], MASK]
        last = run.end()
    return "".join(pieces) + text[last:]


def redact_options(opts: Mapping[str, Any]) -> dict[str, Any]:
    """Model options as recorded: passwords in URLs and values of secret-looking keys replaced by ``***``."""
    out: dict[str, Any] = {}
    for k, v in opts.items():
        if is_secret_name(k) and v not in (None, ""):
            out[k] = "***"
        elif isinstance(v, str) and _looks_like_url(v):
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
        elif eq and "://" not in name and is_secret_name(name) and value:  # --model-arg api_key=...
            out.append(f"{name}=***")
        elif _looks_like_url(a):
            out.append(redact_url(a) if not eq or "://" in name else f"{name}={redact_url(value)}")
        else:
            out.append(a)
    return out


def option_secrets(opts: Mapping[str, Any]) -> list[str]:
    """The secret values among model options given in code (``api_key="sk-..."``, a URL with a
    password, a headers mapping): what :func:`known_secrets` cannot see on the command line."""
    found: list[str] = []
    for k, v in opts.items():
        if isinstance(v, str) and is_secret_name(k):
            found.append(v)
        elif isinstance(v, Mapping) and is_secret_name(k):
            found += [str(x) for x in v.values()]
        elif isinstance(v, str) and "://" in v:
            found += url_secrets(v)
    return [f for f in found if len(f) >= FRAGMENT]


def redact_tree(obj: Any, secrets: Sequence[str]) -> Any:
    """``obj`` (JSON-like: dicts, lists, strings) with every string passed through :func:`redact_text`
    over ``secrets``: a model or judge reply that echoes the API key is stored masked."""
    if not secrets:
        return obj
    if isinstance(obj, dict | list | tuple):
        # One pass in C over the whole record first (a mask prediction holds 10^5 indices): the walk
        # below runs only when some 6-character piece of a secret occurs in it.
        text = json.dumps(obj, ensure_ascii=False, default=str)
        if not any(s[i : i + FRAGMENT] in text for s in secrets for i in range(max(1, len(s) - FRAGMENT + 1))):
            return obj
    return _redact_walk(obj, secrets)


def _redact_walk(obj: Any, secrets: Sequence[str]) -> Any:
    if isinstance(obj, str):
        return redact_text(obj, secrets)
    if isinstance(obj, dict):
        return {k: _redact_walk(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_redact_walk(v, secrets) for v in obj]
    return obj
