"""The 93 categories, their priors and the primitive meshes."""

from __future__ import annotations

import numpy as np

from scenebench.synth import meshes
from scenebench.synth.categories import CATEGORIES, DETECTION_CLASSES, DETECTION_NAME, PALETTE, SYMMETRY_CLASSES
from scenebench.synth.placement import ROOM_CONTENTS

# docs/protocols.md (3DBench), typed out here: the project never reads the docs at run time
BENCH3D_93 = """alarmclock apple armchair baseballbat basketball bed book boots bottle bowl box bread butterknife
candle cart cellphone chair cloth clothesdryer coffeemachine coffeetable countertop creditcard cup desk
desklamp desktop diningtable dishsponge dogbed doorway dresser dumbbell egg faucet floorlamp fork fridge
garbagebag garbagecan houseplant kettle keychain knife ladle laptop laundryhamper lettuce microwave mug
newspaper ottoman painting pan papertowelroll pen pencil peppershaker pillow plate plunger pot potato
remotecontrol safe saltshaker shelvingunit sidetable sink soapbar soapbottle sofa spatula spoon
spraybottle statue stool tabletopdecor teddybear television tennisracket tissuebox toaster toilet
toiletpaper tomato tvstand vacuumcleaner vase washingmachine watch window winebottle""".split()


def test_exactly_the_93_categories():
    assert len(BENCH3D_93) == 93
    assert sorted(CATEGORIES) == sorted(BENCH3D_93)


def test_every_category_has_priors_looks_uses_and_symmetry():
    for name, c in CATEGORIES.items():
        assert all(0.001 < x < 3.0 for x in c.size), name
        assert c.colors and all(col in PALETTE for col in c.colors), name
        assert len(c.uses) >= 2 and all(u and u[0].islower() for u in c.uses), name
        assert c.symmetry in SYMMETRY_CLASSES, name
        assert c.archetype in meshes.archetypes(), name
        if c.placement == "surface":
            assert c.supports and all(s in CATEGORIES and CATEGORIES[s].surface for s in c.supports), name


def test_every_category_can_appear_in_some_house():
    placed = {cat for spec in ROOM_CONTENTS.values() for cat, *_ in spec}
    structural = {n for n, c in CATEGORIES.items() if c.placement == "structure"}
    assert structural == {"doorway", "window"}
    assert placed | structural == set(CATEGORIES)


def test_detection_names_cover_the_15_classes():
    assert len(DETECTION_CLASSES) == 15
    assert set(DETECTION_NAME.values()) == set(DETECTION_CLASSES)


def test_meshes_fit_their_size_and_are_valid():
    rng = np.random.default_rng(0)
    for c in CATEGORIES.values():
        m = meshes.build(c.archetype, c.size, PALETTE[c.colors[0]], rng)
        assert np.allclose(m.vertices.max(0) - m.vertices.min(0), c.size, atol=1e-9), c.name
        assert np.allclose(m.vertices.min(0)[1], 0.0) and np.allclose((m.vertices.min(0) + m.vertices.max(0))[[0, 2]], 0.0)
        assert m.faces.min() >= 0 and m.faces.max() < len(m.vertices)
        assert len(m.colors) == len(m.faces) and (m.colors >= 0).all() and (m.colors <= 1).all()
        tri = m.vertices[m.faces]
        area = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
        assert (area > 0).mean() > 0.95, c.name


def _parts(mesh):
    """Connected components of a mesh (vertex sharing), as vertex-index sets."""
    parent = list(range(len(mesh.vertices)))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for f in mesh.faces:
        for b in f[1:]:
            parent[find(int(b))] = find(int(f[0]))
    groups = {}
    for v in range(len(mesh.vertices)):
        groups.setdefault(find(v), []).append(v)
    return list(groups.values())


def test_a_table_has_a_top_and_four_legs():
    m = meshes.build("table", (1.2, 0.75, 0.8), (0.5, 0.3, 0.2), np.random.default_rng(0))
    parts = _parts(m)
    assert len(parts) == 5
    tops = [p for p in parts if m.vertices[p][:, 1].min() > 0.6]
    legs = [p for p in parts if m.vertices[p][:, 1].min() == 0.0]
    assert len(tops) == 1 and len(legs) == 4
    assert np.ptp(m.vertices[tops[0]][:, 0]) == np.ptp(m.vertices[:, 0])


def test_a_mug_has_a_handle_beyond_its_body():
    w, h, d = 0.12, 0.1, 0.09
    m = meshes.build("mug", (w, h, d), (1, 1, 1), np.random.default_rng(0))
    body_r = d / 2
    handle = m.vertices[m.vertices[:, 0] > body_r + 1e-6]
    assert len(handle) >= 8  # a separate part sticking out sideways
    assert len(_parts(m)) >= 2
