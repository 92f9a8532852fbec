"""``scenebench generate``: houses -> sensing -> ground truth -> every declared benchmark's format.

The benchmarks write their own formats through their declarations: per house,
``BenchmarkSpec.synthetic_house`` (its files and its part of the house summary, given a
:class:`HouseContext`), and once the houses are done, ``BenchmarkSpec.synthetic`` (the aggregated
files: task lists, annotation lists, indexes); this module names none of them.

Work is per house and embarrassingly parallel. A worker builds house ``i`` from
``default_rng([seed, i, stage])`` streams only, writes every file of that house into a staging
folder ``OUT/.houses/.tmp-*``, and renames it to ``OUT/.houses/<house_id>/`` when complete: a
killed run leaves no half-written house, and a rerun skips houses already there. The parent
process links each house's files into a staging folder ``OUT/.staging-*`` laid out like the
output, writes the aggregated files (task JSONs, annotation lists, 3RScan index) and the manifest
there, and then renames each benchmark folder into place and ``manifest.json`` last (:func:`commit`):
a killed run never leaves a benchmark folder with tasks missing under a manifest, and readers refuse
a generated folder without one (``scenebench.io.generated``). Nothing
depends on the number of workers or the backend (local processes or Ray), so the output is the
same byte for byte.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sys
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError, RunMismatchError
from scenebench.geometry.poses import CONTINUOUS_CODE
from scenebench.io.files import atomic_write_json, sha256_file
from scenebench.io.generated import HOUSES_DIR, MANIFEST, SETTINGS
from scenebench.io.owned import Ownership, foreign_entries, remove_owned


def _generated_formats() -> tuple[str, ...]:
    """The data folders of the built-in benchmarks with a per-house generator
    (``BenchmarkSpec.synthetic_house``), in catalog order: what ``--formats`` accepts."""
    from scenebench.declarations.catalog import specs

    return tuple(spec.data_folder for spec in specs(plugins=False) if spec.synthetic_house and spec.data_folder)


FORMATS = _generated_formats()
SURPRISE_SCENES = ("house", "room")
GENERATOR_VERSION = "14"  # 14: more library models (keys, a wall tap, two table lamps, ankle boots, a ladle, a deer figurine) and footprint fits for them (with --assets), SURPRISE3D common-sense and intention targets drawn over every instance of the categories their use fits (issue 42: the words no longer give the category); 13: SURPRISE3D targets a uniform instance of their category per draw (skipped, not redrawn), two-room houses asked at a sixth of the quotas, wider 3DBench/SURPRISE3D wording (issue 42), Sr3D allocentric (view-dependent) relations, SweetHome3D door and window models fill the wall openings (with --assets), ScanQA and SQA3D data, the surprise3d stage records object colours and supports; 12: Scan2Cap token lists with punctuation tokens, Multi3DRefer mt a subset of its class and zt_w_d worded as a relation; 11: world placement, shuffled file order, SURPRISE3D/navigation targets (issue 42), ScanRefer tables without structure rows, no zero-size targets. Bump when the same seed and settings would produce different data


@dataclass(frozen=True)
class GenerateSettings:
    seed: int = 0
    houses: int = 10
    formats: tuple[str, ...] = FORMATS
    test_every: int = 5  # house i is in the test split when i % test_every == test_every - 1
    min_rooms: int = 2
    max_rooms: int = 8
    density: float = 1.0
    width: int = 128
    height: int = 96
    voxel: float = 0.055
    depth_noise: float = 0.0025  # Kinect-like by default; 0 (``--no-sensor-noise``) for perfect depth
    hole_rate: float = 0.02
    raycaster: str = "auto"
    min_points: int = 40
    surprise_pth: bool | None = None  # also write SURPRISE3D scenes as .pth; None = when torch is importable
    rio_max_edge: float = 0.75
    rio_continuous_symmetry_code: int = CONTINUOUS_CODE  # round objects: the extension code (exact scoring)
    preview: int = 0  # pictures for the first N houses
    surprise_scenes: str = "house"  # SURPRISE3D scenes: "house" (whole houses) or "room" (one room a scene, ScanNet++-like)
    assets: tuple[str, ...] = ()  # model libraries (.sh3f / .jsonl files or folders); () = primitives only

    def __post_init__(self):
        bad = [f for f in self.formats if f not in FORMATS]
        if bad:
            raise ValueError(f"unknown format(s) {', '.join(bad)}; choose from {', '.join(FORMATS)}")
        if not 2 <= self.min_rooms <= self.max_rooms <= 8:
            raise ValueError("rooms must satisfy 2 <= min_rooms <= max_rooms <= 8")
        if self.surprise_scenes not in SURPRISE_SCENES:
            raise ValueError(f"unknown scene kind {self.surprise_scenes!r} (surprise_scenes); choose from {', '.join(SURPRISE_SCENES)}")
        if self.houses < 0 or self.test_every < 1:
            raise ValueError("houses must be >= 0 and test_every >= 1")

    def sensor(self) -> Any:
        """The :class:`~scenebench.synth.sensing.SensorSettings` every house is captured with."""
        from scenebench.synth.sensing import SensorSettings

        return SensorSettings(
            width=self.width,
            height=self.height,
            voxel=self.voxel,
            depth_noise=self.depth_noise,
            hole_rate=self.hole_rate,
            raycaster=self.raycaster,
        )

    def resolved(self) -> GenerateSettings:
        """Settings with 'auto' choices made, as recorded in the manifest."""
        from scenebench.extras import available
        from scenebench.synth.raycast import default_backend

        return replace(
            self,
            raycaster=default_backend() if self.raycaster == "auto" else self.raycaster,
            surprise_pth=available("torch") if self.surprise_pth is None else self.surprise_pth,
        )

    def fingerprint_fields(self) -> dict[str, Any]:
        d = asdict(self)
        d["formats"] = list(self.formats)
        d.pop("houses")  # more houses extend a run; they do not change existing ones
        d.pop("preview")
        # libraries by content, not by path: the same libraries elsewhere give the same bytes
        d.pop("assets")
        if self.assets:
            from scenebench.synth.assets.furnish import furnisher_for

            d["asset_libraries"] = [lib["sha256"] for lib in furnisher_for(self.assets).assets.manifest()]  # type: ignore[union-attr]
            # textured faces take the texture's colour only with Pillow, else their Kd: a run resumed in
            # the other environment would mix the two looks, so the fingerprint tells them apart
            from scenebench.extras import available

            d["asset_textures"] = available("PIL")
        return d


def is_test(s: GenerateSettings, index: int) -> bool:
    return index % s.test_every == s.test_every - 1


def _rng(s: GenerateSettings, index: int, stage: int) -> np.random.Generator:
    return np.random.default_rng([int(s.seed), int(index), stage])


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An ``.npz`` (stored, like ``numpy.savez``) with fixed member timestamps, so equal arrays give
    equal bytes; ``numpy.savez`` stamps the current time into every member."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for k, v in arrays.items():
            info = zipfile.ZipInfo(f"{k}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(v), allow_pickle=False)
            zf.writestr(info, member.getvalue())
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# one house (runs in a worker)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HouseContext:
    """What a benchmark's per-house generator (``BenchmarkSpec.synthetic_house``) gets: the settings,
    the built house and its capture, and the house's staging folder ``stage``, under which it writes
    its files (``stage/<data_folder>/...``, or a ground-truth tree beside it). The house commits (or
    not) as a whole, so plain writes are fine. ``rng(k)`` is the house's stage-``k`` stream."""

    settings: GenerateSettings
    index: int
    house: Any
    capture: Any
    sensor: Any
    stage: Path
    test: bool
    scene_id: str

    def rng(self, stage: int) -> np.random.Generator:
        return _rng(self.settings, self.index, stage)


def _house_writers(s: GenerateSettings) -> list[Callable[[HouseContext], dict[str, Any]]]:
    """The declared per-house generators of the formats ``s`` asks for, in catalog order."""
    from scenebench.declarations.catalog import specs
    from scenebench.registry import load_object

    return [load_object(spec.synthetic_house) for spec in specs() if spec.synthetic_house and spec.data_folder in s.formats]


def generate_house(out: str, index: int, s: GenerateSettings) -> dict[str, Any]:
    """Build, sense and annotate house ``index``; commit its folder under ``OUT/.houses``; return its summary."""
    from scenebench.synth.house import build_house, scene_hex
    from scenebench.synth.sensing import capture

    root = Path(out) / HOUSES_DIR
    house = build_house(s.seed, index, min_rooms=s.min_rooms, max_rooms=s.max_rooms, density=s.density, assets=s.assets)
    final = root / house.house_id
    if (final / "house.json").exists():
        return json.loads((final / "house.json").read_text())
    stage = root / f".tmp-{house.house_id}-{uuid.uuid4().hex[:8]}"
    stage.mkdir(parents=True)
    try:
        test = is_test(s, index)
        sensor = s.sensor()
        cap = capture(house, sensor, _rng(s, index, 1))
        sid = scene_hex(s.seed, index)
        summary: dict[str, Any] = {
            "house_id": house.house_id,
            "index": index,
            "split": "test" if test else "train",
            "scene_id": sid,
            "rooms": [r.type for r in house.plan.rooms],
            "n_objects": len(house.objects),
            "n_points": len(cap.cloud),
        }
        if s.assets:  # which models furnish it (the attribution file) and how much of it they are
            used = [o for o in house.objects if o.asset]
            summary["assets"] = {
                "models": sorted({o.asset for o in used}),
                "objects": len(used),
                "object_points": int(np.isin(cap.cloud.instance, [o.index for o in used]).sum()),
                "all_object_points": int(((cap.cloud.instance >= 1) & (cap.cloud.instance <= len(house.objects))).sum()),
            }
        # each benchmark the generator writes adds its files and its part of the summary, in catalog order
        ctx = HouseContext(s, index, house, cap, sensor, stage, test, sid)
        for write in _house_writers(s):
            summary.update(write(ctx))
        files = sorted(p for p in stage.rglob("*") if p.is_file())
        summary["files"] = {p.relative_to(stage).as_posix(): sha256_file(p) for p in files}
        summary["sha256"] = hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()
        (stage / "house.json").write_text(json.dumps(summary))  # key order kept: finalize writes records as built
        os.replace(stage, final)  # the commit: the house exists completely or not at all
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return summary


def save_npy(path: Path, arr: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        np.lib.format.write_array(fh, np.ascontiguousarray(arr), allow_pickle=False)


def save_json(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, separators=(",", ":")))  # in the staging folder: the house commit makes it atomic


# --------------------------------------------------------------------------------------------
# the run (parent process)
# --------------------------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    from scenebench import __version__

    out = {"scenebench": __version__, "generator": GENERATOR_VERSION, "python": sys.version.split()[0]}
    for pkg in ("numpy", "scipy", "shapely", "trimesh", "embreex", "open3d-cpu", "open3d", "plyfile", "pillow"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return out


def _check_settings(out: Path, s: GenerateSettings, overwrite: bool) -> None:
    marker = out / HOUSES_DIR / SETTINGS
    want = {"settings": s.fingerprint_fields(), "generator": GENERATOR_VERSION}
    if marker.exists():
        have = json.loads(marker.read_text())
        if have != want:
            if not overwrite:
                diff = sorted(
                    k for k in set(have["settings"]) | set(want["settings"]) if have["settings"].get(k) != want["settings"].get(k)
                )
                raise RunMismatchError(
                    f"{out} holds houses generated with different settings ({', '.join(diff) or 'generator version'}); "
                    "use another --out or pass --overwrite to start afresh"
                )
            remove_owned(out, ownership(out), what="scenebench generate", hint=OVERWRITE_HINT)
    elif out.exists() and any(out.iterdir()) and not overwrite:
        raise RunMismatchError(f"{out} is not empty and holds no scenebench generation run; choose an empty or new --out")
    elif out.exists() and overwrite:
        remove_owned(out, Ownership(), what="scenebench generate", hint=OVERWRITE_HINT)  # no run here: only an empty folder goes
    if not marker.exists():
        atomic_write_json(marker, want)
    else:  # a resume: the benchmark folders are swapped whole at the end, so nothing foreign may sit inside them
        # ".<name>.*.tmp": an atomic write of ours killed before its rename (swept on resume), not the user's
        foreign = [
            e
            for e in foreign_entries(out, ownership(out))
            if "/" in e.rstrip("/") and not e.startswith("preview/") and not (Path(e).name.startswith(".") and e.endswith(".tmp"))
        ]
        if foreign:
            raise InputError(
                out,
                f"holds {len(foreign)} entr{'y' if len(foreign) == 1 else 'ies'} scenebench generate did not write inside its "
                f"benchmark folders ({', '.join(foreign[:5])}{' and more' if len(foreign) > 5 else ''}); generate replaces "
                "those folders whole",
                expected="move them out of the output folder, then rerun",
            )


OVERWRITE_HINT = "move what is not generated data out of the folder, or choose another --out"
STAGING = ".staging-"  # OUT/.staging-<id>/: the next benchmark folders and manifest, built before they replace the old ones
SWAP = ".swap-"  # OUT/.swap-<id>/: old benchmark folders moved aside during the swap
LEDGER = "published.json"  # OUT/.houses/published.json: every path generate ever put in OUT (files and folders)


def ownership(out: Path) -> Ownership:
    """What ``generate`` can prove it wrote in ``out``: its working folders (``.houses``, staging and swap
    folders), every path of the ledger, the manifest and what it lists (aggregated files and the
    houses' published files), and preview pictures of its houses."""
    trees = [HOUSES_DIR] + [p.name for p in out.glob(f"{STAGING}*")] + [p.name for p in out.glob(f"{SWAP}*")]
    files: set[str] = set()
    dirs: set[str] = set()
    ledger = out / HOUSES_DIR / LEDGER
    if ledger.is_file():
        doc = json.loads(ledger.read_text())
        files.update(doc.get("files", []))
        dirs.update(doc.get("dirs", []))
    house_ids = (
        {p.name for p in (out / HOUSES_DIR).iterdir() if p.is_dir() and not p.name.startswith(".")}
        if (out / HOUSES_DIR).is_dir()
        else set()
    )
    mpath = out / MANIFEST
    if mpath.is_file():
        files.add(MANIFEST)
        m = json.loads(mpath.read_text())
        files.update(m.get("aggregated", {}))
        house_ids.update(h["house_id"] for h in m.get("per_house", []))
    for hid in house_ids:
        hj = out / HOUSES_DIR / hid / "house.json"
        if hj.is_file():
            files.update(json.loads(hj.read_text()).get("files", {}))
        files.update({f"preview/{hid}_top.png", f"preview/{hid}_cloud.png"})
    return Ownership(files, dirs, trees)


def _link(src: Path, dst: Path) -> None:
    """Hard-link ``src`` at ``dst`` in a staging folder (copies when links are not possible)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def publish(stage: Path, out: Path, summary: dict[str, Any]) -> None:
    """Link one house's files into the staging folder ``stage`` (the same inodes as in ``OUT/.houses``)."""
    house_dir = out / HOUSES_DIR / summary["house_id"]
    for rel in summary["files"]:
        _link(house_dir / rel, stage / rel)


def commit(out: Path, stage: Path) -> None:
    """Put the staged benchmark folders in place, each by one rename, then the manifest last.

    The ledger first records every path about to appear (``--overwrite`` may then delete them), the old
    manifest goes next (from here until the new one lands, readers refuse the folders as unfinished),
    then each old folder is moved aside and the new one renamed in. A kill at any point leaves either
    the old complete output, or folders without a manifest that the next run rebuilds.
    """
    ledger_path = out / HOUSES_DIR / LEDGER
    old = json.loads(ledger_path.read_text()) if ledger_path.is_file() else {}
    files, dirs = set(old.get("files", [])), set(old.get("dirs", []))
    for p in stage.rglob("*"):
        rel = p.relative_to(stage).as_posix()
        (dirs if p.is_dir() else files).add(rel)
    atomic_write_json(ledger_path, {"files": sorted(files), "dirs": sorted(dirs)}, indent=None)
    (out / MANIFEST).unlink(missing_ok=True)
    swap = out / f"{SWAP}{uuid.uuid4().hex[:8]}"
    for entry in sorted(stage.iterdir()):
        if entry.name == MANIFEST:
            continue
        dst = out / entry.name
        if dst.exists():
            swap.mkdir(exist_ok=True)
            os.replace(dst, swap / entry.name)
        os.replace(entry, dst)
    os.replace(stage / MANIFEST, out / MANIFEST)
    shutil.rmtree(swap, ignore_errors=True)
    stage.rmdir()


def _run_local(out: Path, todo: list[int], s: GenerateSettings, workers: int, done: Callable[[dict], None]) -> None:
    if workers <= 1:
        for i in todo:
            done(generate_house(str(out), i, s))
        return
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # fork is cheap (no re-import per worker) and safe while this process holds no threaded
    # native state; after embree/open3d/torch/ray were loaded here, start clean processes instead
    threaded = any(m in sys.modules for m in ("embreex", "open3d", "torch", "ray"))
    ctx = mp.get_context("spawn" if threaded or "fork" not in mp.get_all_start_methods() else "fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as ex:
        futs = [ex.submit(generate_house, str(out), i, s) for i in todo]
        for f in as_completed(futs):
            done(f.result())


def _run_ray(out: Path, todo: list[int], s: GenerateSettings, workers: int, address: str | None, done: Callable[[dict], None]) -> None:
    from scenebench.extras import require
    from scenebench.runtime.ray_backend import keep_on_loopback

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = require("ray", "ray", purpose="--backend ray")
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        else:
            keep_on_loopback()  # also when ray was imported earlier in this process (the variable alone is read too late)
            ray.init(num_cpus=max(1, workers), include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
        started = True
    try:
        task = ray.remote(num_cpus=1)(generate_house)
        pending = [task.remote(str(out), i, s) for i in todo]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                done(ray.get(r))
    finally:
        if started:
            ray.shutdown()


def run(
    out: str | Path,
    s: GenerateSettings,
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    overwrite: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Generate (or resume) ``s.houses`` houses into ``out``; returns the manifest."""
    from scenebench.progress import progress_bar
    from scenebench.synth.house import house_id_of

    out = Path(out)
    s = s.resolved()
    if backend not in ("local", "ray"):
        raise InputError(None, f"unknown backend {backend!r}", expected="local or ray")
    _check_settings(out, s, overwrite)
    root = out / HOUSES_DIR
    # left by a killed run: never committed, so never used (the benchmark folders are rebuilt from .houses)
    for stale in [*root.glob(".tmp-*"), *out.glob(f"{STAGING}*"), *out.glob(f"{SWAP}*")]:
        shutil.rmtree(stale, ignore_errors=True)
    for stale in root.glob(".*.tmp"):  # half-written ".<name>.*.tmp" of atomic writes killed before their rename
        stale.unlink(missing_ok=True)
    summaries: dict[int, dict] = {}
    todo = []
    for i in range(s.houses):
        hj = root / house_id_of(i) / "house.json"
        if hj.exists():
            summaries[i] = json.loads(hj.read_text())
        else:
            todo.append(i)
    stage = out / f"{STAGING}{uuid.uuid4().hex[:8]}"
    stage.mkdir()
    for sm in summaries.values():
        publish(stage, out, sm)
    with progress_bar(len(todo), "houses", enabled=progress, unit="houses") as advance:

        def done(sm: dict) -> None:
            publish(stage, out, sm)
            summaries[sm["index"]] = sm
            advance(1)

        if todo:
            if backend == "ray":
                _run_ray(out, todo, s, workers, address, done)
            else:
                _run_local(out, todo, s, workers, done)
    manifest = finalize(stage, s, [summaries[i] for i in range(s.houses)])
    commit(out, stage)
    for i in range(min(s.preview, s.houses)):
        write_preview(out, s, summaries[i])
    return manifest


def write_preview(out: Path, s: GenerateSettings, summary: dict[str, Any]) -> list[Path]:
    """``OUT/preview/<house>_top.png`` (plan, objects, cameras, a navigation path) and ``_cloud.png``.

    The house and its capture are rebuilt from the seed (deterministic), so previews can be asked
    for on a finished run and are not part of the house data or its checksums.
    """
    from scenebench.synth.house import build_house
    from scenebench.synth.navigation import NavGrid
    from scenebench.synth.preview import cloud_views, top_down, write_png
    from scenebench.synth.sensing import capture

    index = summary["index"]
    house = build_house(s.seed, index, min_rooms=s.min_rooms, max_rooms=s.max_rooms, density=s.density, assets=s.assets)
    sensor = s.sensor()
    cap = capture(house, sensor, _rng(s, index, 1))
    nav = summary.get("bench3d", {}).get("records", {}).get("Navigation") or []
    # routes are written in the house's world frame; the plan is drawn in the frame it was built in
    path = [[float(v) for v in house.world.to_local(x, z)] for x, z in nav[0]["positions"]] if nav else None
    if path is None:  # e.g. 3dbench not generated: walk from the first free cell to the last
        free = np.flatnonzero(house.walkable.ravel())
        path = NavGrid(house.walkable).path(int(free[0]), free[-1:]) if len(free) > 1 else None
    paths = [out / "preview" / f"{house.house_id}_top.png", out / "preview" / f"{house.house_id}_cloud.png"]
    write_png(paths[0], top_down(house, path=path, cameras=cap.frames_poses))
    write_png(paths[1], cloud_views(cap.cloud.xyz, cap.cloud.rgb))
    return paths


def finalize(out: Path, s: GenerateSettings, summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Write the aggregated files from the per-house summaries (in house order) and the manifest."""
    written = _finalize_declared(out, s, summaries)
    assets_doc = None
    if s.assets:
        from scenebench.synth.assets.attribution import write_attribution

        path, assets_doc = write_attribution(out, s.assets, summaries)
        written.append(path)
    manifest = {
        "generator": "scenebench.synth",
        "seed": s.seed,
        "houses": s.houses,
        "formats": list(s.formats),
        "settings": s.fingerprint_fields(),
        "versions": _versions(),
        "splits": {
            "test": [sm["house_id"] for sm in summaries if sm["split"] == "test"],
            "train": [sm["house_id"] for sm in summaries if sm["split"] == "train"],
        },
        "per_house": [
            {
                "house_id": sm["house_id"],
                "index": sm["index"],
                "split": sm["split"],
                "scene_id": sm["scene_id"],
                "n_objects": sm["n_objects"],
                "n_points": sm["n_points"],
                "files": len(sm["files"]),
                "sha256": sm["sha256"],
            }
            for sm in summaries
        ],
        "aggregated": {p.relative_to(out).as_posix(): sha256_file(p) for p in sorted(written)},
    }
    if assets_doc is not None:
        manifest["assets"] = assets_doc
    atomic_write_json(out / MANIFEST, manifest)
    return manifest


def _finalize_declared(out: Path, s: GenerateSettings, summaries: list[dict[str, Any]]) -> list[Path]:
    """The data of every declared benchmark with a ``synthetic`` writer (``BenchmarkSpec.synthetic``),
    in catalog order, derived from what the generator staged in ``out`` (the per-house summaries and
    files); each gets its own seeded stream. A benchmark whose folder is one of the generator's own
    formats is written only when that format was asked for."""
    from scenebench.declarations.catalog import specs
    from scenebench.registry import load_object

    written: list[Path] = []
    for spec in specs():
        if spec.data_folder in FORMATS and spec.data_folder not in s.formats:
            continue
        if spec.synthetic and spec.data_folder:
            digest = int.from_bytes(hashlib.sha256(spec.name.encode()).digest()[:4], "little")
            written += load_object(spec.synthetic)(out / spec.data_folder, out, summaries, np.random.default_rng([int(s.seed), digest]))
    return written


__all__ = [
    "GenerateSettings",
    "FORMATS",
    "HouseContext",
    "generate_house",
    "run",
    "finalize",
    "commit",
    "ownership",
    "npz_bytes",
    "save_json",
    "save_npy",
    "write_preview",
]
