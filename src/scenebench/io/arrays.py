"""Safe loading of array files from users: never unpickles.

``.npy``/``.npz`` go through ``numpy.load(allow_pickle=False)``; ``.pth`` through
``torch.load(weights_only=True)`` (torch extra). Errors name the file and the key.
"""

from __future__ import annotations

import tokenize
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.extras import require


# numpy parses an .npy header with ast.literal_eval (SyntaxError, TokenError on damage) and allocates
# the declared shape before reading (MemoryError when a tiny file claims a huge array).
_DAMAGED_HEADER = (SyntaxError, tokenize.TokenError, MemoryError, OverflowError)


def _damage(exc: BaseException) -> str:
    if isinstance(exc, MemoryError):
        return "its header declares an array far larger than the file (or than memory)"
    return f"damaged header ({type(exc).__name__})"


def load_npy(path: str | Path) -> np.ndarray:
    p = Path(path)
    if not p.exists():
        raise InputError(p, "array file does not exist")
    try:
        arr = np.load(p, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise InputError(p, "holds Python objects (pickled); refused for safety", expected="a plain numeric .npy") from None
        raise InputError(p, f"not a readable .npy array: {exc}") from None
    except (OSError, EOFError) as exc:
        raise InputError(p, f"not a readable .npy array: {exc}") from None
    except _DAMAGED_HEADER as exc:
        raise InputError(p, f"not a readable .npy array: {_damage(exc)}") from None
    if not isinstance(arr, np.ndarray):
        raise InputError(p, "is not a single array", expected="a .npy file")
    return arr


def load_npz(path: str | Path) -> dict[str, np.ndarray]:
    p = Path(path)
    if not p.exists():
        raise InputError(p, "array file does not exist")
    try:
        with np.load(p, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise InputError(p, "is a single array, not an archive", expected="a .npz archive")
            out = {}
            for k in z.files:
                try:
                    out[k] = z[k]
                except ValueError as exc:
                    if "pickle" in str(exc).lower():
                        raise InputError(p, "holds Python objects (pickled); refused for safety", field=k) from None
                    raise InputError(p, f"unreadable array: {exc}", field=k) from None
                except (*_DAMAGED_HEADER, OSError, EOFError, zipfile.BadZipFile) as exc:
                    raise InputError(p, f"unreadable array: {_damage(exc)}", field=k) from None
            return out
    except InputError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError(p, f"not a readable .npz archive: {exc}") from None


def load_pth(path: str | Path) -> dict[str, Any]:
    """Load a PyTorch ``.pth`` dict of arrays with ``weights_only=True``; tensors become numpy arrays."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "file does not exist")
    torch = require("torch", "torch", purpose=f"reading {p.name} (.pth); or convert it to .npz")
    try:
        obj = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for bad/unsafe files
        raise InputError(p, f"not a loadable .pth file with weights_only=True: {type(exc).__name__}: {str(exc)[:300]}") from None
    if not isinstance(obj, dict):
        raise InputError(p, f"holds a {type(obj).__name__}", expected="a dict of arrays")
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if hasattr(v, "detach"):
            v = v.detach().cpu().numpy()
        out[str(k)] = v
    return out


def load_arrays(path: str | Path) -> dict[str, Any]:
    """Load a dict of arrays from ``.npz`` or ``.pth`` by suffix."""
    p = Path(path)
    suf = p.suffix.lower()
    if suf == ".npz":
        return load_npz(p)
    if suf in (".pth", ".pt"):
        return load_pth(p)
    raise InputError(p, f"unsupported suffix '{suf}'", expected=".npz or .pth")
