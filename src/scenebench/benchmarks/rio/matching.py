"""RIO feature-matching protocol: top-1 accuracy of a descriptor among 1 positive + 50 negatives.

Input: a folder with one sub-folder per scan pair (any name; ``<reference>__<rescan>`` is
customary), each holding ``reference.npy`` and ``rescan.npy`` of the same shape (K, D): row k of
both describes the same physical keypoint. A folder that itself holds the two files is one pair.

For keypoint k the candidates are rescan row k (the positive) and ``n_negatives`` (default 50) other
rows of the same rescan array, drawn without replacement. Keypoint k is correct when its reference
descriptor is strictly nearer (L2) to the positive than to every negative -- a tie is a failure, so
constant descriptors score 0, not 100. Top-1 accuracy is pooled over all keypoints of all pairs;
intervals resample pairs.

Negatives come from ``numpy.random.default_rng([seed, h])`` with ``h`` the first 8 bytes of the
SHA-256 of the pair's folder name, so a pair draws the same negatives whatever other pairs are
scored and in whatever order; the seed is recorded in the results.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.arrays import load_npy
from scenebench.io.files import sha256_file
from scenebench.metrics.aggregate import Ratio
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.results import Results

N_NEGATIVES = 50
SPECS = (
    Ratio(
        "top1_accuracy",
        "correct",
        "n_keypoints",
        scale=100.0,
        unit="%",
        description="share of keypoints whose positive is nearest among 1 + 50 candidates",
    ),
)
_CHUNK = 2048


def find_pairs(root: str | Path) -> list[tuple[str, Path]]:
    """``(pair name, folder)`` for every folder under ``root`` (or ``root`` itself) holding both arrays."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, "descriptor folder does not exist")
    if (root / "reference.npy").exists() or (root / "rescan.npy").exists():
        return [(root.name, root)]
    pairs = [(p.name, p) for p in sorted(root.iterdir()) if p.is_dir() and ((p / "reference.npy").exists() or (p / "rescan.npy").exists())]
    if not pairs:
        raise InputError(root, "holds no scan-pair folders", expected="sub-folders with reference.npy and rescan.npy")
    return pairs


def load_pair(folder: Path, n_negatives: int = N_NEGATIVES) -> tuple[np.ndarray, np.ndarray]:
    """Both arrays of a pair, validated: same (K, D) shape, K >= n_negatives + 1, finite numbers."""
    arrays = []
    for name in ("reference.npy", "rescan.npy"):
        p = folder / name
        if not p.exists():
            raise InputError(p, "is missing", expected="reference.npy and rescan.npy in every pair folder")
        a = load_npy(p)
        if a.ndim != 2:
            raise InputError(p, f"has shape {a.shape}", expected="a 2-D array (K keypoints, D dimensions)")
        if not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
            raise InputError(p, f"has dtype {a.dtype}", expected="numbers")
        a = a.astype(np.float64, copy=False)
        bad = ~np.isfinite(a)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise InputError(
                p, f"holds NaN or infinity ({int(bad.sum())} values, first at row {r}, column {c})", expected="finite descriptors"
            )
        arrays.append(a)
    ref, res = arrays
    if ref.shape != res.shape:
        raise InputError(
            folder,
            f"reference.npy is {ref.shape} but rescan.npy is {res.shape}",
            expected="the same (K, D): row k of both is the same keypoint",
        )
    if len(ref) < n_negatives + 1:
        raise InputError(folder, f"has {len(ref)} keypoints", expected=f"at least {n_negatives + 1} (1 positive + {n_negatives} negatives)")
    return ref, res


def pair_rng(seed: int, name: str) -> np.random.Generator:
    h = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")
    return np.random.default_rng([seed, h])


def draw_negatives(k: int, n_negatives: int, rng: np.random.Generator) -> np.ndarray:
    """(k, n_negatives) distinct row indices per row i, none equal to i, uniform without replacement."""
    if k - 1 < n_negatives:
        raise ValueError(f"need at least {n_negatives + 1} rows, got {k}")
    if k <= 1024:
        # Exact: a random permutation of the other k-1 rows per keypoint, first n kept.
        keys = rng.random((k, k - 1))
        idx = np.argpartition(keys, n_negatives - 1, axis=1)[:, :n_negatives] if n_negatives < k - 1 else np.argsort(keys, axis=1)
    else:
        # Large k: rejection sampling -- redraw whole rows that hold a repeat (uniform over distinct tuples).
        idx = rng.integers(0, k - 1, size=(k, n_negatives))
        while True:
            s = np.sort(idx, axis=1)
            dup = (s[:, 1:] == s[:, :-1]).any(axis=1)
            if not dup.any():
                break
            idx[dup] = rng.integers(0, k - 1, size=(int(dup.sum()), n_negatives))
    rows = np.arange(k)[:, None]
    return idx + (idx >= rows)  # skip the positive's own index


def top1_correct(reference: np.ndarray, rescan: np.ndarray, negatives: np.ndarray) -> np.ndarray:
    """(K,) bool: ``|ref_k - res_k| < |ref_k - res_j|`` for every negative j of row k (chunked over K)."""
    out = np.empty(len(reference), dtype=bool)
    for s in range(0, len(reference), _CHUNK):
        e = min(s + _CHUNK, len(reference))
        r = reference[s:e]
        pos = np.linalg.norm(r - rescan[s:e], axis=1)
        neg = np.linalg.norm(r[:, None, :] - rescan[negatives[s:e]], axis=2)
        out[s:e] = pos < neg.min(axis=1)
    return out


class MatchingScorer:
    benchmark = "rio-matching"

    def __init__(self, pairs: list[tuple[str, Path]], seed: int, n_negatives: int) -> None:
        self.pairs = pairs
        self.seed = seed
        self.n_negatives = n_negatives
        self.protocol = "strict"

    def sample_ids(self) -> list[str]:
        return [name for name, _ in self.pairs]

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        for name, folder in self.pairs:
            if name in skip:
                continue
            ref, res = load_pair(folder, self.n_negatives)
            neg = draw_negatives(len(ref), self.n_negatives, pair_rng(self.seed, name))
            ok = top1_correct(ref, res, neg)
            yield [
                SampleScore(
                    name,
                    name,
                    "scored",
                    {"correct": float(ok.sum()), "n_keypoints": float(len(ok))},
                    {"pair": name},
                    {"dim": int(ref.shape[1])},
                )
            ]


def prepare_matching(descriptors: str | Path, *, seed: int = 0, n_negatives: int = N_NEGATIVES, n_resamples: int = 1000) -> ScoringJob:
    """The matching scoring job for the shared driver; every pair is validated before anything is scored."""
    pairs = find_pairs(descriptors)
    for _, folder in pairs:
        load_pair(folder, n_negatives)
    settings = {
        "seed": seed,
        "n_negatives": n_negatives,
        "distance": "L2",
        "ties": "failure",
        "rng": "numpy default_rng([seed, sha256(pair name)[:8]])",
    }
    inputs = {
        "descriptors": str(Path(descriptors)),
        "pairs": {n: {f: sha256_file(folder / f) for f in ("reference.npy", "rescan.npy")} for n, folder in pairs},
    }

    def summarize(records: list[SampleScore], run: Any) -> Results:
        summary = summarize_scores(records, SPECS, n_resamples=n_resamples, seed=seed)
        return summary.to_results(
            "rio-matching",
            "strict",
            settings=settings,
            inputs=inputs,
            extra={
                "per_pair": {r.sample_id: 100.0 * r.values["correct"] / r.values["n_keypoints"] for r in records},
                "n_keypoints": int(sum(r.values["n_keypoints"] for r in records)),
            },
        )

    scorer = MatchingScorer(pairs, seed, n_negatives)
    # the pairs' digests are the inputs already (the descriptors folder is a path: left out)
    digests = {"pairs": inputs["pairs"]}
    return ScoringJob("rio-matching", "strict", scorer, summarize, settings, inputs, label="scoring rio-matching", digests=digests)
