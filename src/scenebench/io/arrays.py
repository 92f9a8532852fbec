"""Safe loading of array files from users: never runs code from a file.

``.npy``/``.npz`` go through ``numpy.load(allow_pickle=False)``. ``.pth`` (``torch.save``, zip or
legacy format) goes through a restricted unpickler that builds only numpy arrays, torch tensors (as
numpy arrays, read without importing torch) and plain containers, and refuses every other global by
name (see :func:`read_pth`). Errors name the file and the key and keep their cause.
"""

from __future__ import annotations

import collections
import functools
import io
import pickle
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

import numpy as np

from scenebench.errors import InputError
from scenebench.io.archives import ARRAY_LIMITS, check_members, read_info

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


@dataclass(frozen=True)
class ArrayHeader:
    """What the ``.npy`` header of an archive member declares (:func:`load_npz` with ``only``): the
    shape and dtype, its data neither decompressed nor checked."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]

    @property
    def ndim(self) -> int:
        return len(self.shape)


class _ShortMember(Exception):
    """An ``.npy`` member whose header declares more data than the member holds."""


def _npz_header(z: Any, key: str, info: zipfile.ZipInfo | None) -> np.ndarray | ArrayHeader:
    """The header of member ``key`` of an open ``NpzFile``; the whole member when its header is not
    a version 1/2 ``.npy`` one (numpy's own reading, and its errors, decide then; the member's
    declared size is within :data:`~scenebench.io.archives.ARRAY_LIMITS`). A header declaring more
    bytes than the member's declared size is refused before any data is inflated."""
    from numpy.lib import format as npy

    name = key if key in z.zip.namelist() else f"{key}.npy"
    with z.zip.open(name) as f:
        head = f.read(len(npy.MAGIC_PREFIX) + 2)
        if len(head) < len(npy.MAGIC_PREFIX) + 2 or not head.startswith(npy.MAGIC_PREFIX) or head[-2:] not in (b"\x01\x00", b"\x02\x00"):
            return z[key]  # type: ignore[no-any-return]
        read = npy.read_array_header_1_0 if head[-2] == 1 else npy.read_array_header_2_0
        shape, _fortran, dtype = read(f)
        header_bytes = f.tell()
    if dtype.hasobject:  # the same refusal as numpy's reading with allow_pickle=False
        raise ValueError("Object arrays cannot be loaded when allow_pickle=False")
    shape = tuple(int(n) for n in shape)
    need = dtype.itemsize
    for n in shape:
        need *= n
    if info is not None and need > info.file_size - header_bytes:
        raise _ShortMember(
            f"its header declares shape {shape} of {dtype} ({need:,} bytes), the member holds {max(info.file_size - header_bytes, 0):,}"
        )
    return ArrayHeader(shape, dtype)


def _member(p: Path, k: str, read: Callable[[], Any]) -> Any:
    """``read()`` of member ``k``, its failures as an InputError naming the file and the key."""
    try:
        return read()
    except _ShortMember as exc:
        raise InputError(p, f"unreadable array: {exc}", field=k) from None
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise InputError(p, "holds Python objects (pickled); refused for safety", field=k) from None
        raise InputError(p, f"unreadable array: {exc}", field=k) from None
    except (*_DAMAGED_HEADER, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError(p, f"unreadable array: {_damage(exc)}", field=k) from None
    except (zlib.error, NotImplementedError) as exc:  # damaged deflate data, unknown compression
        raise InputError(p, f"unreadable array: {exc}", field=k) from None


def load_npz(
    path: str | Path, only: Collection[str] | None = None, check_headers: Callable[[dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Every array of a ``.npz`` archive; with ``only``, the members not in it give only their
    :class:`ArrayHeader` (shape and dtype from the header, data not read: their values are not
    checked, nor is their CRC).

    Bounded memory: the archive passes :func:`~scenebench.io.archives.check_members` with
    :data:`~scenebench.io.archives.ARRAY_LIMITS` (declared sizes and compression ratios) and every
    member's ``.npy`` header is read, and compared with the member's declared size, before any
    array data is inflated; ``check_headers`` then sees every member's header (the caller's shape
    checks across arrays) before any data is read."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "array file does not exist")
    infos = {i.filename: i for i in check_members(p, ARRAY_LIMITS)} if zipfile.is_zipfile(p) else {}
    try:
        with np.load(p, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise InputError(p, "is a single array, not an archive", expected="a .npz archive")
            out = {k: _member(p, k, functools.partial(_npz_header, z, k, infos.get(k, infos.get(f"{k}.npy")))) for k in z.files}
            if check_headers is not None:
                check_headers(out)
            for k in z.files:
                if isinstance(out[k], ArrayHeader) and (only is None or k in only):
                    out[k] = _member(p, k, functools.partial(z.__getitem__, k))
            return out
    except InputError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError) as exc:
        raise InputError(p, f"not a readable .npz archive: {exc}") from None


# ---------------------------------------------------------------------------------------------
# .pth files: a restricted unpickler, no torch needed
# ---------------------------------------------------------------------------------------------

# torch storage classes -> the numpy dtype of their elements (BFloat16 has no numpy dtype: read
# as uint16 and widened to float32 below).
_STORAGE_DTYPES: dict[str, str] = {
    "DoubleStorage": "f8",
    "FloatStorage": "f4",
    "HalfStorage": "f2",
    "BFloat16Storage": "bf16",
    "LongStorage": "i8",
    "IntStorage": "i4",
    "ShortStorage": "i2",
    "CharStorage": "i1",
    "ByteStorage": "u1",
    "BoolStorage": "?",
    "ComplexDoubleStorage": "c16",
    "ComplexFloatStorage": "c8",
}
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_MAX_DIMS = 64


class _StorageType:
    """Stands in for ``torch.<X>Storage`` in the pickle: only its element dtype matters."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.code = _STORAGE_DTYPES[name]

    @property
    def itemsize(self) -> int:
        return 2 if self.code == "bf16" else np.dtype(self.code).itemsize


def _safe_dtype(*args: Any) -> np.dtype[Any]:
    dt: np.dtype[Any] = np.dtype(*args)
    if dt.hasobject:
        raise pickle.UnpicklingError("an array of Python objects (dtype object) is not allowed")
    return dt


def _safe_reconstruct(cls: Any, shape: Any, dtype_code: Any) -> np.ndarray:
    if cls is not np.ndarray:
        raise pickle.UnpicklingError(f"_reconstruct of {cls!r} is not allowed (only numpy.ndarray)")
    return np.ndarray.__new__(np.ndarray, shape, _safe_dtype(dtype_code))


def _safe_scalar(dtype: Any, data: Any = None) -> Any:
    dt = _safe_dtype(dtype)
    if not isinstance(data, bytes) or len(data) != dt.itemsize:
        raise pickle.UnpicklingError(f"numpy scalar of {dt} with {type(data).__name__} data")
    return np.frombuffer(data, dtype=dt)[0]


def _latin1_encode(text: Any, encoding: str = "utf-8") -> bytes:
    # pickle protocol 2 writes bytes as _codecs.encode(str, "latin1"); nothing else is needed
    if not isinstance(text, str) or encoding != "latin1":
        raise pickle.UnpicklingError(f"_codecs.encode only with a str and 'latin1', got {type(text).__name__}, {encoding!r}")
    return text.encode("latin1")


def _empty_bytes(*args: Any) -> bytes:
    # protocol 2 writes b"" as bytes(); bytes(n) would allocate n bytes, so only the empty call is allowed
    if args:
        raise pickle.UnpicklingError("bytes() with arguments is not allowed")
    return b""


def _ordered_dict(*args: Any) -> dict[Any, Any]:
    if args and not isinstance(args[0], (list, tuple, dict)):
        raise pickle.UnpicklingError("OrderedDict from something other than pairs")
    return collections.OrderedDict(*args)


class _Tensor:
    """What ``torch._utils._rebuild_tensor_v2`` rebuilds, held until the storages are read."""

    def __init__(self, storage: Any, offset: Any, size: Any, stride: Any, *_rest: Any) -> None:
        if not isinstance(storage, _StorageRef):
            raise pickle.UnpicklingError("tensor rebuilt from something other than a saved storage")

        def ints(v: Any) -> bool:
            return isinstance(v, (tuple, list)) and len(v) <= _MAX_DIMS and all(isinstance(x, int) and x >= 0 for x in v)

        if not isinstance(offset, int) or offset < 0 or not ints(size) or not ints(stride) or len(size) != len(stride):
            raise pickle.UnpicklingError(f"tensor with offset {offset!r}, size {size!r}, stride {stride!r}")
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)


class _StorageRef:
    def __init__(self, stype: _StorageType, key: str, numel: int) -> None:
        self.stype, self.key, self.numel = stype, key, numel


_NUMPY_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"): _safe_reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _safe_reconstruct,
    ("numpy.core.multiarray", "scalar"): _safe_scalar,
    ("numpy._core.multiarray", "scalar"): _safe_scalar,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): _safe_dtype,
    ("_codecs", "encode"): _latin1_encode,
    ("collections", "OrderedDict"): _ordered_dict,
    # plain values (protocol 2 names the builtins module __builtin__)
    **{
        (m, n): f
        for m in ("builtins", "__builtin__")
        for n, f in (("complex", complex), ("set", set), ("frozenset", frozenset), ("bytes", _empty_bytes))
    },
    ("torch._utils", "_rebuild_tensor_v2"): _Tensor,
    ("torch._utils", "_rebuild_tensor"): _Tensor,
}


class _RestrictedUnpickler(pickle.Unpickler):
    """Builds only numpy arrays and scalars, torch tensors (as numpy), and plain containers."""

    def __init__(self, fh: BinaryIO, path: Path) -> None:
        super().__init__(fh, encoding="latin1")
        self.path = path
        self.storages: dict[str, _StorageRef] = {}

    def find_class(self, module: str, name: str) -> Any:
        fn = _NUMPY_GLOBALS.get((module, name))
        if fn is not None:
            return fn
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        # numpy dtype classes (numpy >= 1.25 pickles dtypes as numpy.dtypes.Float64DType, ...)
        if module == "numpy.dtypes" and name.endswith("DType") and name != "ObjectDType":
            return _safe_dtype
        raise _Refused(f"{module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage" and isinstance(pid[1], _StorageType)):
            raise pickle.UnpicklingError(f"unsupported persistent id {str(pid)[:120]}")
        _, stype, key, _location, numel = pid[:5]
        if not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"storage with key {key!r} and size {numel!r}")
        ref = self.storages.get(key)
        if ref is None:
            ref = self.storages[key] = _StorageRef(stype, key, numel)
        return ref


class _Refused(pickle.UnpicklingError):
    """A global outside the allow-list: never imported, never called."""

    def __init__(self, qualname: str) -> None:
        super().__init__(qualname)
        self.qualname = qualname


def _storage_array(ref: _StorageRef, raw: bytes, byteorder: str, path: Path) -> np.ndarray:
    code = ref.stype.code
    need = ref.numel * ref.stype.itemsize
    if len(raw) < need:
        raise InputError(path, f"storage '{ref.key}' holds {len(raw)} bytes, the pickle says {ref.numel} elements ({need} bytes)")
    end: Literal["<", ">"] = "<" if byteorder == "little" else ">"
    if code == "bf16":  # bfloat16 = the high 16 bits of a float32
        half = np.frombuffer(raw, dtype=f"{end}u2", count=ref.numel)
        return (half.astype(np.uint32) << 16).view(np.float32)
    dt = np.dtype(code).newbyteorder(end) if np.dtype(code).itemsize > 1 else np.dtype(code)
    return np.frombuffer(raw, dtype=dt, count=ref.numel)


def _tensor_array(obj: _Tensor, arrays: dict[str, np.ndarray], path: Path) -> np.ndarray:
    """The tensor copied out of its storage, after checking its view stays inside the storage."""
    base = arrays[obj.storage.key]
    item = base.itemsize
    numel = 1
    for s in obj.size:
        numel *= s
    if numel > base.size:  # a stride-0 view: copying it out would allocate more than the file holds
        raise InputError(path, f"a tensor of {numel:,} elements over storage '{obj.storage.key}' of {base.size:,}")
    if obj.size and all(obj.size):
        last = obj.offset + sum((s - 1) * st for s, st in zip(obj.size, obj.stride))
        if last >= base.size:
            raise InputError(path, f"a tensor reaches element {last} of storage '{obj.storage.key}' of {base.size}")
    view = np.lib.stride_tricks.as_strided(base[obj.offset :], shape=obj.size, strides=[s * item for s in obj.stride], writeable=False)
    return np.array(view, dtype=view.dtype.newbyteorder("="))


# Values a .pth may expand to, counted along every path: a pickle can reference one list from two
# places of another, 60 times over (2**60 paths from a 922-byte file).
MAX_PTH_VALUES = 1_000_000


def _materialise(obj: Any, arrays: dict[str, np.ndarray], path: Path, depth: int = 0, seen: dict[int, Any] | None = None) -> Any:
    """Replace every :class:`_Tensor` by a numpy array (copied out of its storage, once per tensor
    object however many places reference it). ``seen``: the values visited so far (key -1) and the
    arrays already made, by tensor id."""
    if depth > 100:
        raise InputError(path, "nesting deeper than 100 levels")
    if seen is None:
        seen = {-1: 0}
    seen[-1] += 1
    if seen[-1] > MAX_PTH_VALUES:
        raise InputError(
            path,
            f"expands to more than {MAX_PTH_VALUES:,} values (lists or dicts referenced from several places, nested)",
            expected="a .pth of arrays or tensors in plain dicts/lists",
        )
    if isinstance(obj, _Tensor) and id(obj) in seen:
        return seen[id(obj)]
    if isinstance(obj, _Tensor):
        seen[id(obj)] = out = _tensor_array(obj, arrays, path)
        return out
    if isinstance(obj, dict):
        return {k: _materialise(v, arrays, path, depth + 1, seen) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_materialise(v, arrays, path, depth + 1, seen) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_materialise(v, arrays, path, depth + 1, seen) for v in obj)
    return obj


def _unpickle(fh: BinaryIO, path: Path, what: str) -> tuple[Any, _RestrictedUnpickler]:
    up = _RestrictedUnpickler(fh, path)
    try:
        return up.load(), up
    except _Refused as exc:
        raise InputError(
            path,
            f"{what} calls the global {exc.qualname}, which scenebench refuses to load (it could run code)",
            expected="a .pth of numpy arrays or tensors in plain dicts/lists (numpy array reconstruction, torch tensor rebuilds, OrderedDict)",
        ) from exc
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
        KeyError,
        MemoryError,
        OverflowError,
        RecursionError,
    ) as exc:
        raise InputError(path, f"{what} is not a readable pickle: {type(exc).__name__}: {exc}") from exc


def _load_pth_zip(p: Path) -> Any:
    """The zip format. Bounded memory: members pass the archive checks (declared sizes, ratios)
    before any is inflated, and a storage is checked against its member's declared size before
    it is read (only the bytes the pickle declares are inflated)."""
    infos = {i.filename: i for i in check_members(p, ARRAY_LIMITS)}
    try:
        with zipfile.ZipFile(p) as zf:
            names = list(infos)
            pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") <= 1]
            if len(pkl) != 1:
                raise InputError(p, f"zip holds {len(pkl)} data.pkl records", expected="one <name>/data.pkl as torch.save writes")
            prefix = pkl[0][: -len("data.pkl")]
            byteorder = "little"
            if f"{prefix}byteorder" in infos:
                byteorder = read_info(p, zf, infos[f"{prefix}byteorder"], ARRAY_LIMITS, first=16).decode("ascii", "replace").strip()
                if byteorder not in ("little", "big"):
                    raise InputError(p, f"byteorder record says {byteorder!r}", expected="little or big")
            obj, up = _unpickle(io.BytesIO(read_info(p, zf, infos[pkl[0]], ARRAY_LIMITS)), p, pkl[0])
            arrays = {}
            for key, ref in up.storages.items():
                rec = f"{prefix}data/{key}"
                if rec not in infos:
                    raise InputError(p, f"storage record {rec} is missing", field=key)
                need = ref.numel * ref.stype.itemsize
                if infos[rec].file_size < need:
                    raise InputError(
                        p, f"storage '{ref.key}' holds {infos[rec].file_size} bytes, the pickle says {ref.numel} elements ({need} bytes)"
                    )
                arrays[key] = _storage_array(ref, read_info(p, zf, infos[rec], ARRAY_LIMITS, first=need), byteorder, p)
    except InputError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        zlib.error,
        EOFError,
        NotImplementedError,
        RuntimeError,
        ValueError,
        MemoryError,
    ) as exc:
        raise InputError(p, f"damaged .pth archive: {type(exc).__name__}: {exc}") from exc
    return _materialise(obj, arrays, p)


def _load_pth_legacy(p: Path) -> Any:
    """The pre-1.6 format: pickles of (magic, version, sys_info, obj, storage keys), then raw storages."""
    with open(p, "rb") as fh:
        head = []
        for what in ("magic number", "protocol version", "system info"):
            v, _ = _unpickle(fh, p, what)
            head.append(v)
        if head[0] != _LEGACY_MAGIC:
            raise InputError(p, "neither a zip nor a legacy torch.save file", expected="a file written by torch.save")
        sysinfo = head[2] if isinstance(head[2], dict) else {}
        byteorder = "little" if sysinfo.get("little_endian", True) else "big"
        obj, up = _unpickle(fh, p, "the saved object")
        keys, _ = _unpickle(fh, p, "the storage key list")
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise InputError(p, "storage key list is not a list of strings")
        arrays = {}
        for key in keys:
            ref = up.storages.get(key)
            if ref is None:
                raise InputError(p, f"storage '{key}' is listed but never used")
            size = fh.read(8)
            if len(size) != 8:
                raise InputError(p, f"storage '{key}' is cut short")
            numel = int.from_bytes(size, byteorder)  # type: ignore[arg-type]
            if numel != ref.numel:
                raise InputError(p, f"storage '{key}' has {numel} elements, the pickle says {ref.numel}")
            need = numel * ref.stype.itemsize
            if need > p.stat().st_size - fh.tell():
                raise InputError(p, f"storage '{key}' claims {numel} elements, more than the file holds")
            arrays[key] = _storage_array(ref, fh.read(need), byteorder, p).copy()
        missing = set(up.storages) - set(arrays)
        if missing:
            raise InputError(p, f"storages {sorted(missing)[:5]} are used but not stored")
    return _materialise(obj, arrays, p)


def read_pth(path: str | Path) -> Any:
    """Unpickle a ``torch.save`` file safely, without torch: returns the saved object with every
    tensor as a numpy array.

    Only these globals may appear: numpy array and scalar reconstruction (``numpy.core`` and
    ``numpy._core``), ``numpy.ndarray``, ``numpy.dtype`` (object dtypes refused), ``_codecs.encode``
    (how protocol 2 writes bytes; latin-1 only), ``collections.OrderedDict``, the builtins
    ``complex``, ``set``, ``frozenset`` and ``bytes()`` (empty only), torch tensor rebuilds
    (``torch._utils._rebuild_tensor_v2``) and the ``torch.*Storage`` types, whose data are read
    from the archive into numpy. Any other global is refused before it is imported, with an error
    naming it and the file.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(p, "file does not exist")
    if zipfile.is_zipfile(p):
        return _load_pth_zip(p)
    return _load_pth_legacy(p)


def load_pth(path: str | Path) -> dict[str, Any]:
    """Load a ``.pth`` dict of arrays (numpy arrays or tensors) with :func:`read_pth`; no torch needed."""
    p = Path(path)
    obj = read_pth(p)
    if not isinstance(obj, dict):
        raise InputError(p, f"holds a {type(obj).__name__}", expected="a dict of arrays")
    return {str(k): v for k, v in obj.items()}


def load_arrays(path: str | Path) -> dict[str, Any]:
    """Load a dict of arrays from ``.npz`` or ``.pth`` by suffix."""
    p = Path(path)
    suf = p.suffix.lower()
    if suf == ".npz":
        return load_npz(p)
    if suf in (".pth", ".pt"):
        return load_pth(p)
    raise InputError(p, f"unsupported suffix '{suf}'", expected=".npz or .pth")
