"""Overlay colours stand out on dark and on light scenes (WCAG contrast ratios, worked out by hand
for one pair: white vs black is (1 + 0.05) / (0 + 0.05) = 21)."""

import pytest

from scenebench.report import viewer as vw

OVERLAYS = {"GT": vw.GT, "PRED": vw.PRED, "BOTH": vw.BOTH, "ANCHOR": vw.ANCHOR, "EXTRA": vw.EXTRA}


def test_contrast_formula_matches_wcag():
    assert vw.contrast((255, 255, 255), (0, 0, 0)) == pytest.approx(21.0)
    assert vw.contrast((0, 0, 0), (0, 0, 0)) == pytest.approx(1.0)
    # mid grey 128: channel 0.502 -> ((0.502 + 0.055) / 1.055) ** 2.4 = 0.2158; (0.2158 + 0.05) / 0.05 = 5.32
    assert vw.contrast((128, 128, 128), (0, 0, 0)) == pytest.approx(5.32, abs=0.01)


@pytest.mark.parametrize("name", sorted(OVERLAYS))
def test_overlay_colours_read_on_the_dark_background_and_against_their_outline(name):
    c = OVERLAYS[name]
    assert vw.contrast(c, vw.BACKGROUND) >= 4.5
    assert vw.contrast(c, vw.HALO) >= 4.5


def test_the_outline_separates_overlays_from_the_lightest_scene():
    brightest = [vw.dimmed(255)] * 3  # a white wall as the viewer draws it behind overlays
    assert vw.contrast(vw.HALO, brightest) >= 3.0
    # the old GT blue (0, 114, 178) was the complaint: under 4.5 on the dark background
    assert vw.contrast((0, 114, 178), vw.BACKGROUND) < 4.5


def test_overlay_colours_are_far_apart_in_hue():
    cols = list(OVERLAYS.values())
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            assert sum(abs(x - y) for x, y in zip(a, b)) >= 120, (a, b)
