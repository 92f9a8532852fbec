"""Stable hashes of JSON-able descriptions (a run's inputs and settings)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def fingerprint(obj: Any) -> str:
    """Stable hash of a JSON-able description of a run's inputs and settings (16 hex digits)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]
