"""The two scoring protocols, one type and one check (see ``docs/protocols.md``).

- ``strict`` (default): the metric as defined, corrected where the published code deviates from it;
- ``official``: reproduces the published evaluation scripts' numbers, quirks included (each quirk is
  listed in the benchmark's metric cards under ``docs/metrics/``).

A benchmark whose published numbers come from several evaluators that disagree (the dataset authors'
scorer and the copies model papers ship) declares them as **lineages**
(``BenchmarkSpec.lineages``, the first one being what plain ``official`` means): ``official:<lineage>``
selects one. The protocol a scorer receives and that ``results.json`` records is then the canonical
name ``official:<lineage>``, so every table, fingerprint and comparison tells lineages apart without
a field of its own; benchmarks without lineages see ``strict`` or ``official`` exactly as before.

Every command calls :func:`resolve_protocol` (or :func:`check_protocol`) on ``--protocol`` before it
reads any data, so a typo fails at once with one line instead of after a whole run.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Literal, cast

from scenebench.errors import InputError

Protocol = Literal["strict", "official"]
PROTOCOLS: tuple[Protocol, ...] = ("strict", "official")
DEFAULT_PROTOCOL: Protocol = "strict"
LINEAGE_SEP = ":"


def check_protocol(value: object, *, field: str = "--protocol") -> Protocol:
    """``value`` as a :data:`Protocol`, or an :class:`InputError` naming the accepted ones."""
    if isinstance(value, str) and value in PROTOCOLS:
        return cast(Protocol, value)
    close = difflib.get_close_matches(str(value), PROTOCOLS, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise InputError(None, f"unknown protocol {value!r}{hint}", field=field, expected=" or ".join(PROTOCOLS))


def accepted(lineages: Sequence[str] = ()) -> tuple[str, ...]:
    """Every ``--protocol`` value a benchmark with these lineages accepts."""
    return (*PROTOCOLS, *(f"official{LINEAGE_SEP}{name}" for name in lineages))


def parse_protocol(value: object, lineages: Sequence[str] = (), *, field: str = "--protocol") -> tuple[Protocol, str | None]:
    """``(protocol, lineage)`` of a ``--protocol`` value. Without declared ``lineages`` the lineage is
    ``None`` and ``official:x`` is an error; with them, plain ``official`` is ``lineages[0]`` and
    ``strict`` has none. An unknown value is an :class:`InputError` listing the accepted ones."""
    if not lineages:
        return check_protocol(value, field=field), None
    if isinstance(value, str):
        if value == "strict":
            return "strict", None
        if value == "official":
            return "official", lineages[0]
        head, sep, name = value.partition(LINEAGE_SEP)
        if head == "official" and sep and name in lineages:
            return "official", name
    options = accepted(lineages)
    close = difflib.get_close_matches(str(value), options, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise InputError(None, f"unknown protocol {value!r}{hint}", field=field, expected=", ".join(options))


def protocol_name(protocol: Protocol, lineage: str | None) -> str:
    """The canonical protocol string: ``strict``, ``official`` or ``official:<lineage>``."""
    return protocol if lineage is None else f"{protocol}{LINEAGE_SEP}{lineage}"


def resolve_protocol(value: object, lineages: Sequence[str] = (), *, field: str = "--protocol") -> str:
    """The canonical name of a checked ``--protocol`` value (:func:`parse_protocol`): what shared
    commands hand a benchmark's scorer and what ``results.json`` records."""
    return protocol_name(*parse_protocol(value, lineages, field=field))
