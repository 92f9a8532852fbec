"""3RScan.json and objects.json decoded into typed Structs against the checking path (generic
decoding, record by record): same scenes, objects, units and errors, on the file as written and on
edits of every field the index reads."""

import json

import pytest

import scenebench.benchmarks.rio.index as L
from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.errors import InputError

from .test_index_batch import EDITS, _index


def _outcome(root, **kw):
    try:
        d = ThreeRScan(root, **kw)
    except InputError as exc:
        return ("error", str(exc))
    return (
        "ok",
        d.scale,
        d.unit_decision,
        [
            (
                s.reference,
                s.split,
                [(a.source, a.target, a.transform.tolist(), a.transform.strides) for a in s.ambiguity],
                [
                    (
                        r.scan_id,
                        r.split,
                        r.transform.tolist(),
                        r.transform.strides,
                        sorted(r.nonrigid),
                        sorted(r.removed),
                        [
                            (k, e.instance_reference, e.instance_rescan, e.symmetry, e.transform.tolist(), e.transform.strides)
                            for k, e in r.rigid.items()
                        ],
                    )
                    for r in s.rescans
                ],
            )
            for s in d.scenes
        ],
        {scan: [(k, o.id, o.global_id, o.label, o.symmetry, o.attributes) for k, o in objs.items()] for scan, objs in d.objects.items()},
    )


def _edit_json(path, fn):
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc))


def _rigid(d, s=1, i=0):
    return d[s]["scans"][0]["rigid"][i]


INDEX_EDITS = {
    **EDITS,
    "extra keys": lambda d: (d[0].__setitem__("note", {"x": [1, 2]}), _rigid(d).__setitem__("score", 0.5)),
    "string instance id": lambda d: _rigid(d).__setitem__("instance_reference", "2"),
    "float instance id": lambda d: _rigid(d).__setitem__("instance_reference", 2.0),
    "bool instance id": lambda d: _rigid(d).__setitem__("instance_reference", True),
    "null instance_rescan": lambda d: _rigid(d).__setitem__("instance_rescan", None),
    "explicit instance_rescan": lambda d: _rigid(d).__setitem__("instance_rescan", 17),
    "null symmetry": lambda d: _rigid(d).__setitem__("symmetry", None),
    "symmetry 9": lambda d: _rigid(d).__setitem__("symmetry", 9),
    "empty reference": lambda d: d[1].__setitem__("reference", ""),
    "path reference": lambda d: d[1]["scans"][0].__setitem__("reference", "../up"),
    "two rigid entries": lambda d: d[1]["scans"][0]["rigid"].append(dict(_rigid(d))),
    "nonrigid list": lambda d: d[1]["scans"][0].__setitem__("nonrigid", [3, 4]),
    "nonrigid strings": lambda d: d[1]["scans"][0].__setitem__("nonrigid", ["3"]),
    "nonrigid null": lambda d: d[1]["scans"][0].__setitem__("nonrigid", None),
    "removed not a list": lambda d: d[1]["scans"][0].__setitem__("removed", 5),
    "bad type": lambda d: d[1].__setitem__("type", "val"),
    "missing type": lambda d: d[1].pop("type"),
    "ambiguity {}": lambda d: d[1].__setitem__("ambiguity", {}),
    "ambiguity link not in a group": lambda d: d[1].__setitem__("ambiguity", [d[1]["ambiguity"][0][0]]),
    "ambiguity string source": lambda d: d[1]["ambiguity"][0][0].__setitem__("instance_source", "1"),
    "no scans": lambda d: d[2].pop("scans"),
    "null rescan transform": lambda d: d[2]["scans"][0].__setitem__("transform", None),
    "top level object": lambda d: d.clear() or d.append({"scenes": []}),
    "empty list": lambda d: d.clear(),
    "integers in a transform": lambda d: _rigid(d, 0).__setitem__("transform", [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 3, 4, 1]),
    "huge translation": lambda d: _rigid(d, 0)["transform"].__setitem__(12, 9007199254740993),
}

OBJECT_EDITS = {
    "int ids": lambda d: d["scans"][0]["objects"][0].__setitem__("id", 1),
    "padded id": lambda d: d["scans"][0]["objects"][0].__setitem__("id", " 1"),
    "negative id": lambda d: d["scans"][0]["objects"][0].__setitem__("id", "-1"),
    "float id": lambda d: d["scans"][0]["objects"][0].__setitem__("id", 1.0),
    "missing id": lambda d: d["scans"][0]["objects"][0].pop("id"),
    "number label": lambda d: d["scans"][0]["objects"][0].__setitem__("label", 5),
    "attributes list": lambda d: d["scans"][0]["objects"][0].__setitem__("attributes", ["a"]),
    "object symmetry": lambda d: d["scans"][0]["objects"][0].__setitem__("symmetry", 2),
    "object symmetry 9": lambda d: d["scans"][0]["objects"][0].__setitem__("symmetry", 9),
    "null objects": lambda d: d["scans"][0].__setitem__("objects", None),
    "no scan id": lambda d: d["scans"][0].pop("scan"),
    "scans not a list": lambda d: d.__setitem__("scans", {}),
}


def _checked_only(monkeypatch):
    def refuse(raw):
        raise ValueError("refused")

    monkeypatch.setattr(L, "_typed_decoders", lambda: (refuse, refuse))


@pytest.mark.parametrize("units", ["m", "mm"])
@pytest.mark.parametrize("edit", list(INDEX_EDITS))
def test_typed_index_gives_what_the_checking_path_gives(tmp_path, monkeypatch, edit, units):
    _edit_json(_index(tmp_path, units), INDEX_EDITS[edit])
    typed = _outcome(tmp_path)
    kw = {"symmetry_codes": {9: 8}} if "symmetry 9" in edit else {}
    typed_kw = _outcome(tmp_path, **kw)
    _checked_only(monkeypatch)
    assert typed == _outcome(tmp_path)
    assert typed_kw == _outcome(tmp_path, **kw)


@pytest.mark.parametrize("edit", list(OBJECT_EDITS))
def test_typed_objects_give_what_the_checking_path_gives(tmp_path, monkeypatch, edit):
    _index(tmp_path)
    _edit_json(tmp_path / "objects.json", OBJECT_EDITS[edit])
    typed = _outcome(tmp_path)
    _checked_only(monkeypatch)
    assert typed == _outcome(tmp_path)


def test_bom_and_ordinary_files_take_the_typed_path(tmp_path, monkeypatch):
    p = _index(tmp_path)
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    want = _outcome(tmp_path)
    monkeypatch.setattr(L, "read_json", lambda *a, **k: pytest.fail("the checking path ran"))
    assert _outcome(tmp_path) == want and want[0] == "ok"


@pytest.mark.parametrize("room", ["room_m", "room_mm"])
def test_typed_index_on_the_test_rooms(request, monkeypatch, room):
    """The writer's rooms (partners, non-rigid, removed, metres and millimetres) read alike both ways."""
    root = request.getfixturevalue(room).root
    typed = _outcome(root)
    _checked_only(monkeypatch)
    assert typed == _outcome(root) and typed[0] == "ok"


SEMSEG_EDITS = {
    "as written": lambda g: None,
    "id instead of objectId": lambda g: g[0].__setitem__("id", g[0].pop("objectId")),
    "string objectId": lambda g: g[0].__setitem__("objectId", str(g[0]["objectId"])),
    "float objectId": lambda g: g[0].__setitem__("objectId", float(g[0]["objectId"])),
    "bool objectId": lambda g: g[0].__setitem__("objectId", True),
    "null obb": lambda g: g[0].__setitem__("obb", None),
    "no obb": lambda g: g[0].pop("obb", None),
    "obb list": lambda g: g[0].__setitem__("obb", [1, 2, 3]),
    "obb without centroid": lambda g: g[0].__setitem__("obb", {"axesLengths": [1, 1, 1]}),
    "integer centroid": lambda g: g[0].__setitem__("obb", {"centroid": [1, 2, 3]}),
    "two numbers": lambda g: g[0].__setitem__("obb", {"centroid": [1.0, 2.0]}),
    "string in centroid": lambda g: g[0].__setitem__("obb", {"centroid": [1.0, "2", 3.0]}),
    "huge integer": lambda g: g[0].__setitem__("obb", {"centroid": [10**400, 0.0, 0.0]}),
    "overflowing sum": lambda g: g[0].__setitem__("obb", {"centroid": [1e308, 1e308, 0.0]}),
    "group not an object": lambda g: g.append(5),
    "repeated objectId": lambda g: g.append(dict(g[0], label="other")),
}


@pytest.mark.parametrize("edit", list(SEMSEG_EDITS))
def test_typed_semseg_gives_what_the_checking_path_gives(request, tmp_path, monkeypatch, edit):
    import shutil

    from scenebench.benchmarks.rio import scans as S

    room = request.getfixturevalue("room_m").root
    root = tmp_path / "room"
    shutil.copytree(room, root)
    files = sorted(root.glob("*/semseg.v2.json"))
    doc = json.loads(files[0].read_text())
    SEMSEG_EDITS[edit](doc["segGroups"])
    files[0].write_text(json.dumps(doc))
    scan = files[0].parent.name

    def outcome():
        try:
            return ("ok", ThreeRScan(root).semseg(scan))
        except InputError as exc:
            return ("error", str(exc))

    def centroids():
        try:
            got = ThreeRScan(root).obb_centroids(scan)
        except InputError as exc:
            return ("error", str(exc))
        return ("ok", {k: None if c is None else [float(x) for x in c] for k, c in got.items()})

    typed, typed_obb = outcome(), centroids()
    monkeypatch.setattr(S, "_semseg_typed", lambda p: None)

    def refuse(raw):
        raise ValueError("refused")

    monkeypatch.setattr(S, "_semseg_check", lambda: refuse)  # obb_centroids: through semseg()
    assert typed == outcome()
    assert typed_obb == centroids()
    if edit == "as written":
        monkeypatch.undo()
        monkeypatch.setattr(S.ScanFiles, "_semseg_checked", staticmethod(lambda p: pytest.fail("the checking path ran")))
        assert outcome() == typed


RAW_EDITS = {  # values the typed decoders would not check if they skipped the keys that hold them
    "index, unknown key 1e999": ("3RScan.json", b'"type": "validation"', b'"type": "validation", "note": 1e999'),
    "index, unknown key bad UTF-8": ("3RScan.json", b'"type": "validation"', b'"type": "validation", "note": "\xff"'),
    "objects, extra field 1e999": ("objects.json", b'"ply_color": ', b'"ply_color": 1e999, "x": '),
    "objects, ply_color 1e999": ("objects.json", b'"nyu40": "0"', b'"nyu40": 1e999'),
    "objects, bad UTF-8": ("objects.json", b'"nyu40": "0"', b'"nyu40": "\xff"'),
}


@pytest.mark.parametrize("edit", list(RAW_EDITS))
def test_values_in_unread_keys_are_checked_like_the_checking_path(tmp_path, monkeypatch, edit):
    name, old, new = RAW_EDITS[edit]
    _index(tmp_path)
    p = tmp_path / name
    raw = p.read_bytes()
    assert old in raw
    p.write_bytes(raw.replace(old, new, 1))
    typed = _outcome(tmp_path)
    _checked_only(monkeypatch)
    assert typed == _outcome(tmp_path) and typed[0] == "error"


@pytest.mark.parametrize("text", [b'"axesLengths": [1e999, 1, 1]', b'"note": 1e999', b'"label": "\xff"'])
def test_semseg_values_in_unread_keys(request, tmp_path, text):
    import shutil

    room = request.getfixturevalue("room_m").root
    root = tmp_path / "room"
    shutil.copytree(room, root)
    f = sorted(root.glob("*/semseg.v2.json"))[0]
    raw = f.read_bytes()
    f.write_bytes(raw.replace(b'"objectId"', text + b', "objectId"', 1))
    d = ThreeRScan(root)
    with pytest.raises(InputError):
        d.obb_centroids(f.parent.name)
