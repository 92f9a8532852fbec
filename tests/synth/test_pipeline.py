"""generate: the output contract, determinism across runs/workers/backends, resume, manifest."""

from __future__ import annotations

import json
import os
import shutil
import socket

import numpy as np
import pytest

from scenebench.benchmarks.bench3d.loader import check_point_clouds, load_bench
from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.scenes import load_scene
from scenebench.errors import RunMismatchError
from scenebench.extras import available
from scenebench.synth.pipeline import HOUSES_DIR, GenerateSettings, run

from .conftest import TINY, tree_bytes

TASK_FILES = [
    "Classification.json",
    "Counting.json",
    "Detection.json",
    "VisualGrounding.json",
    "VisualGrounding_plus.json",
    "RoomDetection.json",
    "PositionRelation.json",
    "Navigation.json",
    "DescriptionObj.json",
    "ConversationObj.json",
    "SCaption.json",
    "SVQA.json",
    "Relation.json",
]


def _public(tree):
    return {k: v for k, v in tree.items() if not k.startswith(HOUSES_DIR + "/")}


def test_layout_and_loaders(tiny_run):
    out, manifest = tiny_run
    bench = out / "3dbench"
    for name in TASK_FILES:
        assert (bench / name).is_file() and (bench / "train" / name).is_file()
    for split in ("train", "test"):
        inst = json.loads((bench / "instruction" / f"{split}.json").read_text())
        assert inst and all(r["pcl"].split("/")[0] in ("scene", "Objects") for r in inst)
    b = load_bench(bench, require_all=True)
    assert check_point_clouds(b) == []
    for rec in json.loads((bench / "train" / "Counting.json").read_text()):
        arr = np.load(bench / rec["pcl"])
        assert arr.dtype == np.float32 and arr.shape[1] == 6 and 0 <= arr[:, 3:].min() and arr[:, 3:].max() <= 1
    # test split = houses with index % 2 == 1 here; train = the rest
    assert manifest["splits"] == {"test": ["house_000001"], "train": ["house_000000", "house_000002"]}
    # the released writers' shape: id = the house number, question_id from 1 in every task file
    counting = json.loads((bench / "Counting.json").read_text())
    assert {r["id"] for r in counting} <= {"1"} and [r["question_id"] for r in counting] == list(range(1, len(counting) + 1))
    # SURPRISE3D
    s3 = out / "surprise3d"
    for name in ("surprise-3d-train.json", "surprise-3d-val.json"):
        ann = load_annotations(s3 / name)
        for rec in json.loads((s3 / name).read_text()):
            assert len(rec["scene_id"]) == 10 and int(rec["scene_id"], 16) >= 0
            scene = load_scene(s3 / "scenes", rec["scene_id"])
            assert (scene.instance_ids == rec["object_id"]).sum() > 0
        assert ann is not None
    # 3RScan
    rio = ThreeRScan(out / "3rscan")
    assert len(rio.scenes) == 3
    assert [s.split for s in rio.scenes] == ["train", "validation", "train"]  # house 1 is the test house
    for split in ("train", "validation"):
        for rescan in rio.split_rescans(split):
            gts = rio.ground_truth(rescan)
            assert [g for g in gts if not g.excluded]
            present = rio.instance_ids(rescan.scan_id)
            for g in gts:  # only what the partial capture missed is left out, and it is really absent
                if g.excluded:
                    assert g.excluded.startswith("not annotated in the rescan") and g.instance not in present
    assert (
        json.loads((out / "3rscan" / "3RScan.json").read_text())[0]["scans"][0]["transform"][3] == 0.0
    )  # column-major: 4th number is m[3][0]


def test_manifest_records_seed_settings_versions_and_checksums(tiny_run):
    out, manifest = tiny_run
    m = json.loads((out / "manifest.json").read_text())
    assert m == manifest
    assert m["seed"] == TINY.seed and m["settings"]["width"] == 64 and "numpy" in m["versions"]
    assert [h["house_id"] for h in m["per_house"]] == ["house_000000", "house_000001", "house_000002"]
    for h in m["per_house"]:
        summary = json.loads((out / HOUSES_DIR / h["house_id"] / "house.json").read_text())
        assert summary["sha256"] == h["sha256"]
        from scenebench.io.files import sha256_file

        for rel, digest in summary["files"].items():
            assert sha256_file(out / rel) == digest
    for rel, digest in m["aggregated"].items():
        from scenebench.io.files import sha256_file

        assert sha256_file(out / rel) == digest


def test_same_seed_same_bytes_and_resume_regenerates_only_what_is_missing(tiny_run, tmp_path):
    out, _ = tiny_run
    again = tmp_path / "again"
    run(again, TINY, workers=1, progress=False)
    want = _public(tree_bytes(out))
    assert _public(tree_bytes(again)) == want
    # a killed run: one house never committed (its staging folder left behind), one published file lost
    shutil.rmtree(again / HOUSES_DIR / "house_000002")
    (again / HOUSES_DIR / ".tmp-house_000002-deadbeef").mkdir()
    (again / HOUSES_DIR / ".tmp-house_000002-deadbeef" / "half.npy").write_bytes(b"\x93NUMPY")
    os.remove(again / "3dbench" / "scene" / "house_000000.npy")
    before = (again / HOUSES_DIR / "house_000001" / "house.json").stat().st_mtime_ns
    run(again, TINY, workers=1, progress=False)
    assert (again / HOUSES_DIR / "house_000001" / "house.json").stat().st_mtime_ns == before  # skipped, not rebuilt
    assert not list((again / HOUSES_DIR).glob(".tmp-*"))
    assert _public(tree_bytes(again)) == want


def test_other_seed_other_data_and_mismatch_refused(tiny_run, tmp_path):
    out, _ = tiny_run
    with pytest.raises(RunMismatchError):
        run(out, GenerateSettings(**{**TINY.__dict__, "seed": 8}), progress=False)
    other = tmp_path / "other"
    run(other, GenerateSettings(**{**TINY.__dict__, "seed": 8, "houses": 1, "formats": ("3dbench",)}), progress=False)
    assert (other / "3dbench" / "scene" / "house_000000.npy").read_bytes() != (out / "3dbench" / "scene" / "house_000000.npy").read_bytes()
    assert not (other / "surprise3d").exists() and not (other / "3rscan").exists()
    # more houses extend a run without touching the first ones
    run(other, GenerateSettings(**{**TINY.__dict__, "seed": 8, "houses": 2, "formats": ("3dbench",)}), progress=False)
    assert json.loads((other / "manifest.json").read_text())["houses"] == 2


@pytest.mark.slow
def test_two_workers_give_the_same_bytes(tiny_run, tmp_path):
    out, _ = tiny_run
    two = tmp_path / "two"
    run(two, TINY, workers=2, progress=False)
    assert _public(tree_bytes(two)) == _public(tree_bytes(out))


def _external_listeners(pids: set[int]) -> list[str]:
    import ipaddress

    import psutil

    bad = []
    for c in psutil.net_connections(kind="inet"):
        if c.pid not in pids or not c.laddr:
            continue
        ip = ipaddress.ip_address(c.laddr.ip.split("%")[0])
        ip = getattr(ip, "ipv4_mapped", None) or ip
        if c.status == psutil.CONN_LISTEN and not ip.is_loopback:
            bad.append(f"pid {c.pid} listens on {c.laddr.ip}:{c.laddr.port}")
        if (
            c.raddr
            and not (
                getattr(ipaddress.ip_address(c.raddr.ip.split("%")[0]), "ipv4_mapped", None)
                or ipaddress.ip_address(c.raddr.ip.split("%")[0])
            ).is_loopback
        ):
            bad.append(f"pid {c.pid} connects to {c.raddr.ip}:{c.raddr.port}")
    return bad


@pytest.mark.ray
@pytest.mark.slow
def test_ray_backend_gives_the_same_bytes_and_stays_on_loopback(tiny_run, tmp_path):
    if not available("ray") or not available("psutil"):
        pytest.skip("needs the ray extra")
    import psutil
    import ray

    from scenebench.runtime.ray_backend import keep_on_loopback

    keep_on_loopback()  # ray may have been imported by an earlier test, before any variable was set

    out, _ = tiny_run
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}  # e.g. a judge server of another test
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    try:
        # Ray's own processes (GCS, raylet, workers): this test's process may hold other tests' sockets
        assert _external_listeners({p.pid for p in me.children(recursive=True)} - before) == []
        via_ray = tmp_path / "ray"
        run(via_ray, TINY, workers=2, backend="ray", progress=False)
        assert _external_listeners({p.pid for p in me.children(recursive=True)} - before) == []
    finally:
        ray.shutdown()
    assert _public(tree_bytes(via_ray)) == _public(tree_bytes(out))
    assert socket.gethostname()  # the check above ran against this host's sockets


def test_surprise_scenes_as_npz_and_pth_hold_the_same_arrays(tiny_run):
    from scenebench.io.arrays import load_npz, load_pth

    out, manifest = tiny_run
    if not available("torch"):
        pytest.skip("needs the torch extra for .pth")
    assert manifest["settings"]["surprise_pth"] is True
    for sid in {h["scene_id"] for h in manifest["per_house"]}:
        a = load_npz(out / "surprise3d" / "scenes" / f"{sid}.npz")
        b = load_pth(out / "surprise3d" / "scenes" / f"{sid}.pth")
        # the official preprocessing's keys; the .pth also names its scene
        assert (
            set(a)
            == set(b) - {"scene_id"}
            == {"sampled_coords", "sampled_colors", "sampled_labels", "sampled_instance_anno_id", "superpoints"}
        )
        assert b["scene_id"] == sid and a["sampled_colors"].max() <= 1.0 and a["sampled_instance_anno_id"].dtype == np.int16
        for k in a:
            assert np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_bytes(tiny_run, tmp_path):
    """SIGKILL a real generate process after its first committed house, then resume."""
    import signal
    import subprocess
    import sys
    import time

    out, _ = tiny_run
    target = tmp_path / "killed"
    code = (
        "import sys; from scenebench.synth.pipeline import GenerateSettings, run; "
        f"run(sys.argv[1], GenerateSettings(**{TINY.__dict__!r}), progress=False)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(target)])
    try:
        deadline = time.time() + 120
        while not (target / HOUSES_DIR / "house_000000" / "house.json").exists():
            assert proc.poll() is None and time.time() < deadline, "generation ended or stalled before the first house"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not (target / "manifest.json").exists()  # the aggregated files come last
    run(target, TINY, workers=1, progress=False)
    assert _public(tree_bytes(target)) == _public(tree_bytes(out))


def test_one_room_scenes_hold_one_room_each_and_repeat_byte_for_byte(tmp_path):
    """``--surprise-scenes room``: a scene per room (ScanNet++-like), its points those of one room,
    every record's target in its scene, ScanRefer derived per room; the same seed gives the same bytes."""
    from scenebench.io.arrays import load_npz

    s = GenerateSettings(**{**TINY.__dict__, "houses": 2, "formats": ("surprise3d",), "surprise_scenes": "room"})
    a, b = tmp_path / "a", tmp_path / "b"
    run(a, s, progress=False)
    run(b, s, progress=False)
    assert _public(tree_bytes(a)) == _public(tree_bytes(b))
    houses = [json.loads((a / HOUSES_DIR / h / "house.json").read_text()) for h in ("house_000000", "house_000001")]
    for sm in houses:
        scenes = sm["surprise3d_scenes"]
        assert len(scenes) == len(sm["rooms"]) and sm["scene_id"] not in scenes
        for sid in scenes:
            assert (a / "surprise3d" / "scannetpp" / sid / "scans" / "segments_anno.json").exists()
            assert (a / "scanrefer" / "scannet_data" / f"{sid}_aligned_vert.npy").exists()
        for r in sm["surprise3d"]:
            inst = np.asarray(load_npz(a / "surprise3d" / "scenes" / f"{r['scene_id']}.npz")["sampled_instance_anno_id"])
            assert r["scene_id"] in scenes and (inst == r["object_id"]).sum() >= 40
    # every point of a house lands in exactly one of its room scenes
    sizes = [len(load_npz(a / "surprise3d" / "scenes" / f"{sid}.npz")["sampled_coords"]) for sid in houses[0]["surprise3d_scenes"]]
    assert sum(sizes) == houses[0]["n_points"]
    with pytest.raises(ValueError, match="unknown scene kind"):
        GenerateSettings(surprise_scenes="floor")


def test_object_files_are_written_in_a_seeded_random_order(tiny_run):
    """Ranking a house's Objects/*.npy by modification time or inode number must not give back the
    placement order (issue 42: generator 10 wrote them in that order, Spearman 1.0 on every house
    here, and a blind reader ranked files to 39% classification). Names map to placement indices
    through the same seeded draw the generator makes."""
    from scipy.stats import spearmanr

    from scenebench.synth.house import build_house
    from scenebench.synth.tasks3d import object_names

    out, _ = tiny_run
    rhos = []
    for i in range(TINY.houses):
        h = build_house(TINY.seed, i, min_rooms=TINY.min_rooms, max_rooms=TINY.max_rooms)
        names = object_names(h, np.random.default_rng([TINY.seed, i, 2]))  # the task stream's first draw
        rows = []
        for index, name in names.items():
            p = out / "3dbench" / "Objects" / f"{name}.npy"
            if p.exists():
                st = p.stat()
                rows.append((index, st.st_mtime_ns, st.st_ino))
        a = np.array(rows)
        assert len(a) >= 4
        rhos += [spearmanr(a[:, 0], a[:, 1])[0], spearmanr(a[:, 0], a[:, 2])[0]]
    assert abs(np.mean(rhos)) < 0.5, rhos
