"""The two scoring protocols, one type and one check (see ``docs/protocols.md``).

- ``strict`` (default): the metric as defined, corrected where the published code deviates from it;
- ``official``: reproduces the published evaluation scripts' numbers, quirks included (each quirk is
  listed in the benchmark's metric cards under ``docs/metrics/``).

Every command calls :func:`check_protocol` on ``--protocol`` before it reads any data, so a typo
fails at once with one line instead of after a whole run.
"""

from __future__ import annotations

import difflib
from typing import Literal, cast

from scenebench.errors import InputError

Protocol = Literal["strict", "official"]
PROTOCOLS: tuple[Protocol, ...] = ("strict", "official")
DEFAULT_PROTOCOL: Protocol = "strict"


def check_protocol(value: object, *, field: str = "--protocol") -> Protocol:
    """``value`` as a :data:`Protocol`, or an :class:`InputError` naming the accepted ones."""
    if isinstance(value, str) and value in PROTOCOLS:
        return cast(Protocol, value)
    close = difflib.get_close_matches(str(value), PROTOCOLS, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise InputError(None, f"unknown protocol {value!r}{hint}", field=field, expected=" or ".join(PROTOCOLS))
