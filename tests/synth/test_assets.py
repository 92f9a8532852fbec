"""Furniture model libraries: SweetHome3D .sh3f and JSON-lines catalogs, built in the tests themselves
(no package needed), their safe reading, normalisation and uniform fit, colours, surfaces, licences,
attribution, and the fall back to primitives."""

from __future__ import annotations

import io
import json
import sys
import zipfile

import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.synth.assets.archive import clean_member
from scenebench.synth.assets.furnish import Furnisher, colour_name, fit_scale, model_surfaces
from scenebench.synth.assets.library import (
    DEBIAN_FOLDER,
    licence_ok,
    load_assets,
    parse_properties,
    read_jsonl,
    read_sh3f,
    reviewed_mapping,
)
from scenebench.synth.meshes import Mesh, box

# a 2 x 1 x 4 box (x, y, z) whose top (y = 1) is red and the rest white; the catalog says 50 x 100 x 40 cm
BOX_OBJ = """mtllib box.mtl
v 0 0 0
v 2 0 0
v 2 0 4
v 0 0 4
v 0 1 0
v 2 1 0
v 2 1 4
v 0 1 4
usemtl white
f 1 2 3 4
f 1 5 6 2
f 2 6 7 3
f 3 7 8 4
f 4 8 5 1
usemtl red
f 5 8 7 6
"""
BOX_MTL = "newmtl white\nKd 1 1 1\nnewmtl red\nKd 0.8 0.16 0.14\n"
MAPPED = "Blend Swap CC-0#chair"  # an id of the reviewed mapping (a chair)

PROPS = """# a tiny library
id=test#lib
name=Tiny library
version=0.1
license=Creative Commons Attribution 3.0
id#1={mapped}
name#1=Box chair
model#1=/tiny/box/box.obj
width#1=50
depth#1=40
height#1=100
creator#1=A. Maker
id#2=unmapped#thing
name#2=Thing
model#2=/tiny/box/box.obj
width#2=10
depth#2=10
height#2=10
creator#2=B. Other
"""


def make_sh3f(path, props=PROPS, members=None):
    members = members or {"tiny/box/box.obj": BOX_OBJ, "tiny/box/box.mtl": BOX_MTL}
    stamp = (2020, 1, 1, 0, 0, 0)  # fixed member times: equal libraries are equal bytes
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("PluginFurnitureCatalog.properties", stamp), props.format(mapped=MAPPED))
        for k, v in members.items():
            zf.writestr(zipfile.ZipInfo(k, stamp), v)
    return path


@pytest.fixture
def tiny_sh3f(tmp_path):
    return make_sh3f(tmp_path / "tiny.sh3f")


def test_properties_continuations_escapes_and_comments():
    p = parse_properties("# c\n! c\na=1\nb : two \\\n   lines\nc=\\u20ac5\nd\\=x=y\n")
    assert p == {"a": "1", "b": "two lines", "c": "€5", "d=x": "y"}


def test_sh3f_reads_only_mapped_models_in_metres(tiny_sh3f):
    s = load_assets([tiny_sh3f])
    assert [m.key for m in s.models] == [MAPPED]
    m = s.models[0]
    assert m.category == reviewed_mapping()[MAPPED][0] == "chair"
    assert m.size == pytest.approx((0.5, 1.0, 0.4))
    assert (m.creator, m.licence, m.name) == ("A. Maker", "Creative Commons Attribution 3.0", "Box chair")
    assert s.manifest()[0]["name"] == "Tiny library" and s.manifest()[0]["version"] == "0.1"
    # a folder of libraries reads the same
    assert [m.key for m in load_assets([tiny_sh3f.parent]).models] == [MAPPED]


def test_normalised_to_catalog_size_bottom_centre_and_material_colours(tiny_sh3f):
    f = Furnisher(load_assets([tiny_sh3f]))
    mesh = f.normalised(f.assets.models[0])
    assert mesh.vertices.min(0) == pytest.approx([-0.25, 0.0, -0.2])
    assert mesh.vertices.max(0) == pytest.approx([0.25, 1.0, 0.2])
    # 6 quads -> 12 triangles; the last quad (2 triangles) is the red top
    assert len(mesh.faces) == 12
    assert mesh.colors[-2:] == pytest.approx(np.tile([0.8, 0.16, 0.14], (2, 1)))
    assert mesh.colors[:10] == pytest.approx(np.ones((10, 3)))


def test_uniform_fit_within_tolerance_never_squashes():
    # every axis 10 % larger: one scale 1.1 fits exactly
    assert fit_scale((0.5, 1.0, 0.4), (0.55, 1.1, 0.44)) == pytest.approx(1.1)
    # height 1.5x while width/depth 1x: geometric-mean scale 1.5^(1/3) = 1.1447 leaves the height 1.31x
    # short and the width 1.1447x over: beyond the 1.3 tolerance -> not this model
    assert fit_scale((0.5, 1.0, 0.4), (0.5, 1.5, 0.4)) is None
    # a bed is fitted on its footprint only (axes 0 and 2): the headboard height is the model's
    assert fit_scale((1.4, 1.0, 2.0), (1.54, 0.55, 2.2), axes=(0, 2)) == pytest.approx(1.1)


def test_choice_and_fitted_mesh_match_the_reported_size(tiny_sh3f):
    f = Furnisher(load_assets([tiny_sh3f]))
    c = f.choose("chair", (0.55, 1.1, 0.44), np.random.default_rng(0))
    assert c is not None and c.scale == pytest.approx(1.1)
    mesh = f.mesh(c)
    assert mesh.vertices.max(0) - mesh.vertices.min(0) == pytest.approx(c.size)
    assert f.choose("chair", (0.5, 3.0, 0.4), np.random.default_rng(0)) is None  # no model fits: primitive
    assert f.choose("bed", (1.5, 0.55, 2.0), np.random.default_rng(0)) is None  # no model of the category


def test_colour_name_is_the_largest_area():
    red, white = (0.8, 0.16, 0.14), (0.92, 0.92, 0.9)
    # a 1 x 1 red top over a 1 x 0.1 white strip: red covers more
    m = Mesh.concat([box((0, 1, 0), (1, 1.001, 1), red), box((0, 0, 0), (1, 0.1, 0.001), white)])
    m = Mesh(m.vertices, m.faces[:2], m.colors[:2])  # the red box's bottom face only (area 1)
    assert colour_name(m) == "red"
    strip = box((0, 0, 0), (3, 1, 0.001), white)  # faces of area 3 (front and back)
    assert colour_name(Mesh.concat([m, strip])) == "white"


def test_surfaces_of_a_table_and_of_shelves():
    # a table: top 1.0 x 0.6 at 0.75 on four legs
    legs = [box((x, 0, z), (x + 0.05, 0.72, z + 0.05), (0.5, 0.3, 0.2)) for x in (-0.5, 0.45) for z in (-0.3, 0.25)]
    table = Mesh.concat([box((-0.5, 0.72, -0.3), (0.5, 0.75, 0.3), (0.5, 0.3, 0.2)), *legs])
    (top,) = model_surfaces(table, "top")
    assert top[:5] == pytest.approx((0.75, -0.47, -0.27, 0.47, 0.27))
    assert top[5] == np.inf
    # shelves: boards at 0.4, 0.8 and 1.2 (top), 0.8 x 0.3, on two sides
    boards = [box((-0.4, y - 0.02, -0.15), (0.4, y, 0.15), (0.6, 0.6, 0.6)) for y in (0.4, 0.8, 1.2)]
    sides = [box((x, 0, -0.15), (x + 0.02, 1.2, 0.15), (0.6, 0.6, 0.6)) for x in (-0.42, 0.4)]
    levels = model_surfaces(Mesh.concat(boards + sides), "shelves")
    assert [round(s[0], 3) for s in levels] == [0.4, 0.8, 1.2]
    assert [round(s[5], 3) for s in levels[:2]] == [0.34, 0.34]  # gap to the next board less 6 cm
    assert levels[2][5] == np.inf


def test_unsafe_member_names_are_refused(tmp_path):
    assert clean_member("a/../b.obj") == "b.obj"
    assert clean_member("../evil.obj") is None
    assert clean_member("/abs/x.obj") == "abs/x.obj"  # SweetHome3D writes members with a leading slash
    assert clean_member("C:/x.obj") is None
    bad = make_sh3f(tmp_path / "bad.sh3f", PROPS.replace("/tiny/box/box.obj", "/../../etc/box.obj", 1))
    f = Furnisher(load_assets([bad]))
    with pytest.raises(InputError, match=r"bad\.sh3f.*outside the archive"):
        f.normalised(f.assets.models[0])


def test_bad_catalog_size_names_file_model_and_field(tmp_path):
    bad = make_sh3f(tmp_path / "bad.sh3f", PROPS.replace("width#1=50", "width#1=-3"))
    with pytest.raises(InputError, match=r"bad\.sh3f: model #1 \(Blend Swap CC-0#chair\): field 'width#1'"):
        load_assets([bad])


def test_licences_forbidding_derivatives_or_redistribution_are_never_used(tmp_path):
    assert licence_ok("Creative Commons Attribution 3.0") and licence_ok("Public domain") and licence_ok("CC0-1.0")
    assert not licence_ok("CC-BY-NC-ND 4.0") and not licence_ok("CC BY-ND") and not licence_ok("Not for redistribution")
    assert not licence_ok("")
    nd = make_sh3f(tmp_path / "nd.sh3f", PROPS.replace("license=Creative Commons Attribution 3.0", "license=CC-BY-ND 4.0"))
    assert load_assets([nd]).models == []


def _write_catalog(tmp_path, recs):
    (tmp_path / "m").mkdir(exist_ok=True)
    (tmp_path / "m" / "box.obj").write_text(BOX_OBJ)
    (tmp_path / "m" / "box.mtl").write_text(BOX_MTL)
    cat = tmp_path / "mine.jsonl"
    cat.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return cat


def test_jsonl_catalog_up_and_front(tmp_path):
    # the box file is z-up (its 4-unit z is the height) and faces +x once upright
    rec = {
        "id": "c1",
        "mesh": "m/box.obj",
        "category": "dresser",
        "size": [1.0, 0.8, 0.5],
        "licence": "CC-BY-4.0",
        "up": "+z",
        "front": "+x",
        "creator": "Me",
    }
    cat = _write_catalog(tmp_path, [rec, {**rec, "id": "c2", "licence": "CC-BY-NC-ND-4.0"}])
    s = load_assets([cat])
    assert [m.key for m in s.models] == ["c1"] and s.libraries[0].kind == "jsonl"
    f = Furnisher(s)
    v = f.normalised(s.models[0]).vertices
    assert v.max(0) - v.min(0) == pytest.approx([1.0, 0.8, 0.5])
    assert v.min(0)[1] == pytest.approx(0.0)
    # the red face was the file's y = 1 side; z-up makes it the -z side, facing +x makes it the +x side: x = +0.5
    red = f.normalised(s.models[0]).faces[-2:]
    assert v[red].reshape(-1, 3)[:, 0] == pytest.approx(np.full(6, 0.5))


@pytest.mark.parametrize(
    ("change", "field"),
    [({"category": "spaceship"}, "category"), ({"size": [1, 0, 1]}, "size"), ({"up": "+x"}, "up"), ({"mesh": ""}, "mesh")],
)
def test_jsonl_errors_name_file_line_and_field(tmp_path, change, field):
    rec = {"id": "c1", "mesh": "m/box.obj", "category": "dresser", "size": [1.0, 0.8, 0.5], "licence": "CC0"}
    cat = _write_catalog(tmp_path, [rec, {**rec, "id": "c2", **change}])
    with pytest.raises(InputError, match=rf"mine\.jsonl: line 2: field '{field}'"):
        read_jsonl(cat, 0)


def test_jsonl_mesh_may_not_leave_its_folder(tmp_path):
    rec = {"id": "c1", "mesh": "../outside.obj", "category": "dresser", "size": [1.0, 0.8, 0.5], "licence": "CC0"}
    f = Furnisher(load_assets([_write_catalog(tmp_path, [rec])]))
    with pytest.raises(InputError, match="outside the catalog's folder"):
        f.normalised(f.assets.models[0])


def test_sh3f_without_catalog_and_not_a_zip(tmp_path):
    z = tmp_path / "empty.sh3f"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("x.txt", "x")
    with pytest.raises(InputError, match="no PluginFurnitureCatalog.properties"):
        read_sh3f(z, 0, {})
    (tmp_path / "junk.sh3f").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a readable zip"):
        read_sh3f(tmp_path / "junk.sh3f", 0, {})


def test_generate_with_a_library_attributes_and_gives_the_same_bytes_elsewhere_and_with_two_workers(tmp_path):
    from scenebench.synth.pipeline import GenerateSettings, run

    libs = []
    for k in (1, 2):
        (tmp_path / f"lib{k}").mkdir()
        libs.append(make_sh3f(tmp_path / f"lib{k}" / "tiny.sh3f"))
    outs = []
    for k, lib in enumerate(libs):
        s = GenerateSettings(
            seed=6, houses=2, min_rooms=3, max_rooms=3, width=32, height=24, voxel=0.08, formats=("3dbench",), assets=(str(lib),)
        )
        out = tmp_path / f"run{k}"
        manifest = run(out, s, workers=k + 1, progress=False)  # 1 then 2 worker processes
        outs.append(out)
    a = manifest["assets"]
    assert a["objects_from_models"] > 0 and a["models_used"] == 1
    assert 0 < a["object_points_from_models"] < a["object_points"]
    assert str(tmp_path) not in (outs[1] / "manifest.json").read_text()  # libraries by hash, not by path
    doc = json.loads((outs[1] / "ATTRIBUTION.json").read_text())
    assert doc["models"] == [
        {
            "id": MAPPED,
            "name": "Box chair",
            "category": "chair",
            "creator": "A. Maker",
            "licence": "Creative Commons Attribution 3.0",
            "library": "Tiny library",
        }
    ]
    # the manifest holds every house file's checksum: same libraries (elsewhere) and seed, 1 or 2 workers -> same bytes
    for name in ("manifest.json", "ATTRIBUTION.json"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()


def test_houses_with_models_keep_exact_labels(tiny_sh3f):
    from scenebench.synth.house import build_house

    h = build_house(6, 1, min_rooms=3, max_rooms=3, assets=(str(tiny_sh3f),))  # a dining room with chairs
    chairs = [o for o in h.objects if o.asset]
    assert chairs and all(o.category == "chair" and o.color == "white" for o in chairs)
    sm = h.scene_mesh()
    for o in chairs:
        lo, hi = o.aabb
        # the box is the mesh's own; the fitted size is the model's at one scale (0.5 : 1.0 : 0.4 kept)
        assert np.sort(hi - lo)[::-1] == pytest.approx(np.sort(o.size)[::-1], abs=1e-3)
        assert o.size[0] / o.size[1] == pytest.approx(0.5, rel=1e-3) and o.size[2] / o.size[1] == pytest.approx(0.4, rel=2e-3)
        assert (sm.face_instance == o.index).sum() == 12  # every face of the model carries its instance id
        (seat,) = o.local_surfaces
        assert seat[0] == pytest.approx(hi[1] - lo[1])  # the box's top is where things stand


def test_no_library_means_primitives_and_one_line(monkeypatch, tmp_path, capsys):
    import scenebench.synth.assets.library as library
    from scenebench.synth.cli import _asset_paths
    from scenebench.synth.house import build_house

    assert _asset_paths(["none"]) == ()
    monkeypatch.setattr(library, "DEBIAN_FOLDER", tmp_path / "absent")
    assert _asset_paths(["auto"]) == ()
    assert "objects are primitives" in capsys.readouterr().out
    with pytest.raises(InputError, match="no such file"):
        _asset_paths([str(tmp_path / "missing.sh3f")])
    assert not any(o.asset for o in build_house(4, 1, min_rooms=3, max_rooms=3).objects)


@pytest.mark.parametrize("env", [None, "none"])
def test_the_demo_furnishes_its_houses_as_generate_does(monkeypatch, tmp_path, env):
    # The README's first command shows the default: models when the package is installed, and
    # SCENEBENCH_ASSETS=none (the test suite's setting) gives primitives.
    import scenebench.synth.assets.library as library
    import scenebench.synth.pipeline as pipeline
    from scenebench.commands.demo import generate_data

    lib = tmp_path / "furniture"
    lib.mkdir()
    make_sh3f(lib / "tiny.sh3f")
    monkeypatch.setattr(library, "DEBIAN_FOLDER", lib)
    if env is None:
        monkeypatch.delenv("SCENEBENCH_ASSETS", raising=False)
    else:
        monkeypatch.setenv("SCENEBENCH_ASSETS", env)
    seen = []
    monkeypatch.setattr(pipeline, "run", lambda data, settings, **kw: seen.append(settings))
    generate_data(tmp_path / "demo", progress=False)
    assert seen[0].assets == ((str(lib),) if env is None else ())


def test_decimate_merges_vertices_of_one_cell_and_drops_collapsed_faces():
    from scenebench.synth.assets.furnish import decimate

    v = np.array([[0.001, 0, 0], [0.004, 0, 0], [0.5, 0, 0], [0.5, 0.5, 0]])
    f = np.array([[0, 2, 3], [1, 2, 3], [0, 1, 2]])  # the last one has two corners in the first cell
    c = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    d = decimate(Mesh(v, f, c), cell=0.01)
    assert d.vertices == pytest.approx(np.array([[0.0025, 0, 0], [0.5, 0, 0], [0.5, 0.5, 0]]))
    assert d.faces.tolist() == [[0, 1, 2], [0, 1, 2]]
    assert d.colors.tolist() == [[1, 0, 0], [0, 1, 0]]  # each face keeps its own colour


def test_seat_is_the_largest_level_and_a_top_the_highest_large_one():
    c = (0.5, 0.5, 0.5)
    # a sofa: seat 2.0 x 0.7 at 0.45, backrest 2.0 x 0.2 topping at 0.85
    sofa = Mesh.concat([box((-1, 0, -0.25), (1, 0.45, 0.45), c), box((-1, 0, -0.45), (1, 0.85, -0.25), c)])
    (seat,) = model_surfaces(sofa, "seat")
    assert seat[:5] == pytest.approx((0.45, -0.97, -0.22, 0.97, 0.42))
    # a coffee table: top 1.0 x 0.6 at 0.45 over a larger-than-40 % shelf 0.9 x 0.5 at 0.15
    table = Mesh.concat([box((-0.5, 0.42, -0.3), (0.5, 0.45, 0.3), c), box((-0.45, 0.13, -0.25), (0.45, 0.15, 0.25), c)])
    (top,) = model_surfaces(table, "top")
    assert top[0] == pytest.approx(0.45)


def test_texture_sampled_at_the_face_mean_uv_times_kd():
    Image = pytest.importorskip("PIL.Image")  # textures need the render extra's Pillow; without it faces keep Kd
    from scenebench.synth.assets import obj

    # a real 2x2 PNG (rows top to bottom): red green / blue white, lossless so the golden values are exact
    im = Image.new("RGB", (2, 2))
    im.putdata([(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)])
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    text = "\n".join(
        [
            "mtllib m.mtl",
            "v 0 0 0",
            "v 1 0 0",
            "v 1 1 0",
            "vt 0.1 0.9",
            "vt 0.4 0.9",
            "vt 0.25 0.6",  # mean (0.25, 0.8): left column, top row -> red
            "vt 0.6 0.1",
            "vt 0.9 0.1",
            "vt 0.75 0.4",  # mean (0.75, 0.2): right column, bottom row -> white
            "usemtl tex",
            "f 1/1 2/2 3/3",
            "f 1/4 2/5 3/6",
            "usemtl plain",
            "f 1 2 3",
        ]
    )
    files = {"d/m.mtl": b"newmtl tex\nKd 0.5 0.5 0.5\nmap_Kd -s 1 1 1 t.png\nnewmtl plain\nKd 0.2 0.4 0.6\n", "d/t.png": buf.getvalue()}
    mesh = obj.parse_obj(text.encode(), "d/x.obj", files.get)
    assert mesh.colors == pytest.approx(np.array([[0.5, 0, 0], [0.5, 0.5, 0.5], [0.2, 0.4, 0.6]]))
    kd_only = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.2, 0.4, 0.6]])
    # without Pillow (the import fails, as where the render extra is not installed) faces keep their Kd
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "PIL", None)
        assert obj.parse_obj(text.encode(), "d/x.obj", files.get).colors == pytest.approx(kd_only)
    # a damaged texture falls back to the material's Kd, as a viewer shows it
    files["d/t.png"] = b"\x89PNG broken"
    mesh = obj.parse_obj(text.encode(), "d/x.obj", files.get)
    assert mesh.colors == pytest.approx(kd_only)


def test_a_member_that_inflates_beyond_the_ratio_bound_is_refused(tmp_path):
    from scenebench.synth.assets.archive import MAX_RATIO, Archive

    z = tmp_path / "bomb.sh3f"
    with zipfile.ZipFile(z, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big.obj", b"\0" * (MAX_RATIO * 1024 + 1))  # zeros deflate to a few hundred bytes
        zf.writestr("ok.obj", b"v 0 0 0\n")
    arc = Archive(z)
    assert arc.read("ok.obj") == b"v 0 0 0\n"
    with pytest.raises(InputError, match=r"bomb\.sh3f.*'big\.obj' is too large"):
        arc.read("big.obj")


def test_a_model_with_its_own_symmetry_carries_it_into_the_3rscan_codes(tmp_path):
    from scenebench.synth.house import build_house
    from scenebench.synth.rescans import class_code

    rec = {"id": "round", "mesh": "m/box.obj", "category": "chair", "size": [0.5, 1.0, 0.4], "licence": "CC0", "symmetry": "continuous"}
    cat = _write_catalog(tmp_path, [rec])
    h = build_house(6, 1, min_rooms=3, max_rooms=3, assets=(str(cat),))  # the dining room with chairs
    chairs = [o for o in h.objects if o.asset]
    assert chairs and all(h.symmetry_of(o.index) == "continuous" for o in chairs)
    from scenebench.synth.categories import CATEGORIES

    prims = [o for o in h.objects if not o.asset]
    assert prims and all(h.symmetry_of(o.index) == CATEGORIES[o.category].symmetry for o in prims)  # primitives: the category's
    assert h.symmetry_of(len(h.objects) + 1) == "none"  # structure
    # 3RScan codes: none 0, 2-fold 1, 4-fold 2; round objects the extension code passed in
    assert [class_code(c, 3) for c in ("none", "2-fold", "4-fold", "continuous")] == [0, 1, 2, 3]
    with pytest.raises(InputError, match="field 'symmetry'"):
        read_jsonl(_write_catalog(tmp_path, [{**rec, "symmetry": "6-fold"}]), 0)
    assert all(len(v) == 4 for v in reviewed_mapping().values())
    assert reviewed_mapping()["Kator Legaz#cafe-table"] == ("sidetable", "+z", 1.0, "continuous")


def test_a_forked_process_reads_through_its_own_zip_handle(tiny_sh3f):
    import os

    from scenebench.synth.assets.archive import Archive

    arc = Archive(tiny_sh3f)
    parent = arc._open()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a fresh handle, the same bytes
        ok = arc._open() is not parent and arc.read("tiny/box/box.mtl") == BOX_MTL.encode()
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(r, 1) == b"1"
    assert arc._open() is parent  # the parent keeps its own


def test_floor_lamp_fitted_on_width_and_height_its_arm_keeps_its_reach():
    from scenebench.synth.assets.furnish import FIT_AXES

    # Scopia's living-room lamp (catalog 39.6 x 142.9 x 58.3 cm: a column with a side tray) as a sampled
    # 0.35 x 1.6 x 0.35 m floor lamp: on all three axes the tray's depth is off by more than 1.3x, on width
    # and height the scale is sqrt(0.35/0.396 * 1.6/1.429) = 0.99479, both axes within 1.13x of the sample
    dims, target = (0.396, 1.429, 0.583), (0.35, 1.6, 0.35)
    assert fit_scale(dims, target) is None
    assert FIT_AXES["floorlamp"] == (0, 1)
    assert fit_scale(dims, target, FIT_AXES["floorlamp"]) == pytest.approx(0.99479, abs=1e-5)
    assert reviewed_mapping()["Scopia#living_lamp"] == ("floorlamp", "+z", 1.0, "none")


def test_the_fingerprint_tells_runs_with_and_without_textures_apart(tiny_sh3f, monkeypatch):
    from scenebench import extras
    from scenebench.synth.pipeline import GenerateSettings

    # textured faces take the texture's colour only where Pillow imports: a run must not be resumed in
    # the other environment, so with models the fingerprint says which it was; primitives never read one
    fields = {}
    for has_pil in (True, False):
        monkeypatch.setattr(extras, "available", lambda module, has=has_pil: has if module == "PIL" else True)
        fields[has_pil] = GenerateSettings(seed=6, assets=(str(tiny_sh3f),)).fingerprint_fields()
        assert "asset_textures" not in GenerateSettings(seed=6).fingerprint_fields()
    assert fields[True]["asset_textures"] is True and fields[False]["asset_textures"] is False
    assert {k: v for k, v in fields[True].items() if k != "asset_textures"} == {
        k: v for k, v in fields[False].items() if k != "asset_textures"
    }


def _box_lines(lo, hi, first):
    """The 8 corners and 6 quads of an axis-aligned box, vertex numbers from ``first``."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    vs = [(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1), (x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1)]
    quads = [(1, 2, 3, 4), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 8, 4), (4, 8, 5, 1), (5, 8, 7, 6)]
    return [f"v {x} {y} {z}" for x, y, z in vs], [f"f {' '.join(str(first + k - 1) for k in q)}" for q in quads]


# a door 1 x 2 x 0.3 (model units): a frame (one box here) and, named as SweetHome3D names what swings,
# a leaf reaching 0.2 further out in z; the catalog says 100 x 200 x 20 cm
DOOR_ID = "Scopia#door"  # mapped as a doorway
FRAME_V, FRAME_F = _box_lines((0, 0, 0), (1, 2, 0.1), 1)
LEAF_V, LEAF_F = _box_lines((0.1, 0, 0.1), (0.9, 1.9, 0.3), 9)
DOOR_OBJ = "\n".join(FRAME_V + LEAF_V + ["o frame"] + FRAME_F + ["o sweethome3d_opening_on_hinge_1_leaf"] + LEAF_F) + "\n"
DOOR_PROPS = """id#1={door}
name#1=Door
model#1=/tiny/door.obj
width#1=100
depth#1=20
height#1=200
creator#1=A. Maker
doorOrWindow#1=true
id#2={chair}
name#2=A chair flagged as a door
model#2=/tiny/door.obj
width#2=50
depth#2=40
height#2=100
creator#2=A. Maker
doorOrWindow#2=true
"""


def _door_library(tmp_path):
    props = "name=Doors\nversion=1\nlicense=CC-BY 3.0\n" + DOOR_PROPS.format(door=DOOR_ID, chair="{mapped}")
    return make_sh3f(tmp_path / "doors.sh3f", props, {"tiny/door.obj": DOOR_OBJ})


def test_a_door_keeps_its_frame_and_fills_the_opening_exactly(tmp_path):
    s = load_assets([_door_library(tmp_path)])
    # a door or window model is taken only as a doorway or window, and furniture never from one
    assert [(m.key, m.category) for m in s.models] == [(DOOR_ID, "doorway")]
    f = Furnisher(s)
    frame = f.normalised(s.models[0])
    assert len(frame.faces) == 12  # the frame's 6 quads; the leaf's are left out, and so are its corners
    assert frame.vertices.min(0) == pytest.approx([-0.5, 0.0, -0.1]) and frame.vertices.max(0) == pytest.approx([0.5, 2.0, 0.1])
    # a 1.0 x 2.1 opening in a 0.14 frame: proportions 0.476 vs the model's 0.5 fit; stretched to it exactly
    c = f.choose_opening("doorway", (1.0, 2.1, 0.14), np.random.default_rng(0))
    assert c is not None and c.fills and c.size == (1.0, 2.1, 0.14)
    m = f.mesh(c)
    assert m.vertices.min(0) == pytest.approx([-0.5, 0.0, -0.07]) and m.vertices.max(0) == pytest.approx([0.5, 2.1, 0.07])
    # an archway 3 m wide is 2.9x the model's proportions (1.43 vs 0.5): beyond 1.3 x 1.3, so a primitive frame
    assert f.choose_opening("doorway", (3.0, 2.1, 0.14), np.random.default_rng(0)) is None
    assert f.choose_opening("window", (1.0, 1.2, 0.14), np.random.default_rng(0)) is None  # no window model


def test_doorways_from_models_keep_the_openings_boxes_and_ids(tmp_path):
    from scenebench.synth.house import build_house

    lib = str(_door_library(tmp_path))
    prim = {o.index: o for o in build_house(6, 1, min_rooms=3, max_rooms=3).objects if o.category == "doorway"}
    h = build_house(6, 1, min_rooms=3, max_rooms=3, assets=(lib,))
    doors = [o for o in h.objects if o.category == "doorway"]
    assert len(doors) == len(prim) and any(o.asset == DOOR_ID for o in doors)
    sm = h.scene_mesh()
    for o in doors:
        p = prim[o.index]  # structure comes first: the same index, opening, position and yaw as primitives
        assert o.size == p.size and o.position == pytest.approx(p.position) and o.yaw == p.yaw
        lo, hi = o.aabb
        assert lo == pytest.approx(p.aabb[0], abs=1e-9) and hi == pytest.approx(p.aabb[1], abs=1e-9)
        if o.asset:
            assert (sm.face_instance == o.index).sum() == 12


@pytest.mark.skipif(not any(DEBIAN_FOLDER.glob("*.sh3f")), reason="the sweethome3d-furniture package is not installed")
def test_the_reviewed_door_models_of_the_debian_libraries_are_open_frames():
    f = Furnisher(load_assets([DEBIAN_FOLDER]))
    doors = f.by_category["doorway"]
    assert len(doors) == 7 and len(f.by_category["window"]) == 7
    for m in doors:
        mesh = f.normalised(m)
        w, h = f.dims(m)[:2]
        centre = mesh.vertices[mesh.faces].mean(1)
        # no face in the middle of the opening (half its width, its middle half in height): no leaf, no panel
        inside = (np.abs(centre[:, 0]) < w / 4) & (centre[:, 1] > h / 4) & (centre[:, 1] < 3 * h / 4)
        assert not inside.any(), m.key
        # the frame alone keeps the catalog's bounds, so stretching it to an opening fills the opening
        lo, hi = mesh.vertices.min(0), mesh.vertices.max(0)
        assert hi - lo == pytest.approx(f.dims(m), rel=1e-6), m.key


def test_generator_14_rows_fitted_on_the_axes_their_shapes_share_with_the_category():
    from scenebench.synth.assets.furnish import FIT_AXES

    # Scopia's keys (catalog 11.5 x 2.9 x 11.4 cm: a bunch on a leather tag) as a sampled 0.06 x 0.01 x 0.08 m
    # keychain: on all three axes the bunch's 2.9 cm is off by more than 1.3x; on the footprint the scale is
    # sqrt(0.06/0.115 * 0.08/0.114) = 0.60509 (width 6.96 cm, 1.16x the sample; depth 6.90 cm, 1/1.16x)
    keys, keychain = (0.115, 0.029, 0.114), (0.06, 0.01, 0.08)
    assert fit_scale(keys, keychain) is None
    assert fit_scale(keys, keychain, FIT_AXES["keychain"]) == pytest.approx(0.60509, abs=1e-5)
    # Blend Swap's deer figurine (4.6 x 20 x 10 cm) as a 0.18 x 0.4 x 0.18 m statue: its width is 3.9x off
    # the box's; on height and depth the scale is sqrt(0.4/0.2 * 0.18/0.1) = sqrt(3.6) = 1.89737
    deer, statue = (0.046, 0.2, 0.1), (0.18, 0.4, 0.18)
    assert fit_scale(deer, statue) is None
    assert FIT_AXES["statue"] == (1, 2)
    assert fit_scale(deer, statue, FIT_AXES["statue"]) == pytest.approx(1.89737, abs=1e-5)
    # a wall tap (4.96 x 15.5 x 20 cm) on a 0.06 x 0.3 x 0.2 m faucet: the tap's height is 1.94x off at
    # any scale that keeps its reach; on the footprint sqrt(0.06/0.0496 * 0.2/0.2) = 1.09985
    tap, faucet = (0.0496, 0.155, 0.2), (0.06, 0.3, 0.2)
    assert fit_scale(tap, faucet) is None
    assert fit_scale(tap, faucet, FIT_AXES["faucet"]) == pytest.approx(1.09985, abs=1e-5)
    assert FIT_AXES["boots"] == FIT_AXES["ladle"] == FIT_AXES["remotecontrol"] == (0, 2)
    rows = reviewed_mapping()
    assert rows["Scopia#keys"] == ("keychain", "+z", 1.0, "")
    assert rows["Scopia#garden-faucet"] == ("faucet", "+z", 1.0, "")
    assert rows["Scopia#table_lamp"] == rows["Scopia#livingroom_lamp1"] == ("desklamp", "+z", 1.0, "continuous")
    assert rows["Blend Swap CC-0#bootie"] == ("boots", "+z", 1.0, "")
    assert rows["Scopia#kitchen_tool2"] == ("ladle", "+z", 1.0, "")
    assert rows["Blend Swap CC-0#deer"] == ("statue", "+z", 1.0, "")


@pytest.mark.skipif(not any(DEBIAN_FOLDER.glob("*.sh3f")), reason="the sweethome3d-furniture package is not installed")
def test_the_wall_tap_of_the_debian_libraries_points_its_spout_to_the_front():
    f = Furnisher(load_assets([DEBIAN_FOLDER]))
    (tap,) = f.by_category["faucet"]
    v = f.normalised(tap).vertices
    # the primitive faucet's spout ends at +z over the basin: the model's lowest point (the spout's mouth)
    # lies in the front half, its wall flange (the full height behind) at the back
    mouth = v[v[:, 1] < v[:, 1].min() + 0.01]
    assert mouth[:, 2].mean() > 0.05
    assert v[:, 2].min() == pytest.approx(-0.1, abs=1e-3)
