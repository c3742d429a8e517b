"""The page data lesson.js reads (builder/figures/page.py): everything the views share is stored once,
and what is stored reads back as the views the figure kinds made."""

from __future__ import annotations

import json

import pytest

from builder.figures.page import first_points, points
from conftest import parse

LANGS = ["zh", "ja"]
POINT_FIELDS = ["x", "y", "base", "hover", "text", "position"]


def bars(n, cls="bar-ffn-on"):
    return {"type": "bar", "class": cls, "width": 0.32, "x": [b + 0.23 for b in range(1, n + 1)],
            "y": [0.5 * b for b in range(1, n + 1)], "base": [1.0] * n, "hover": [f"block {b}" for b in range(1, n + 1)]}


def cut(pieces, i):
    """A piece as lesson.js reads it back."""
    p = pieces[i]
    if isinstance(p, dict) and "first" in p:
        return {k: (v[: p["first"]] if k in POINT_FIELDS else v) for k, v in pieces[p["of"]].items()}
    return p


def test_a_series_cut_at_a_lower_depth_names_the_longest_that_holds_it():
    pieces = [bars(1), bars(2), {"range": [0, 1]}, bars(6), bars(3)]
    stored = first_points(pieces)
    assert stored == [{"of": 3, "first": 1}, {"of": 3, "first": 2}, {"range": [0, 1]}, bars(6), {"of": 3, "first": 3}]
    assert [cut(stored, i) for i in range(len(stored))] == pieces


def test_marks_that_differ_beyond_their_first_points_are_stored_whole():
    other_class, other_width = bars(2, "bar-ffn-off"), dict(bars(2), width=0.4)
    changed = bars(2)
    changed["y"] = [0.5, 9.0]  # the second bar of the depth-3 series is not the second of this one
    band = {"type": "band", "class": "ribbon", "x": [-0.5, 1.5], "y": [1.0]}  # edges, not points
    wider_band = {"type": "band", "class": "ribbon", "x": [-0.5, 1.5, 2.5], "y": [1.0]}
    pieces = [other_class, other_width, changed, band, wider_band, bars(3)]
    assert first_points(pieces) == pieces
    assert points(band) is None and points(bars(3)) == 3


@pytest.mark.parametrize("lang", LANGS)
def test_the_stored_pieces_read_back_as_the_marks_and_each_series_is_whole_once(site, lang):
    data = json.loads(parse(site / lang / "transformer-block.html").css_first("#lesson-data").text())
    pieces = data["pieces"]
    assert data["point_fields"] == POINT_FIELDS
    named = [p for p in pieces if isinstance(p, dict) and "first" in p]
    assert named, "the depths of the depth map share their series"
    for p in named:
        whole = pieces[p["of"]]
        assert "first" not in whole and 0 < p["first"] < points(whole)
    marks = [cut(pieces, i) for i in range(len(pieces))]
    assert first_points(marks) == pieces  # read back and stored again: the same
    stored_whole = [m for m in pieces if points(m)]
    for short in stored_whole:  # no mark stored whole is the first points of another
        for long in stored_whole:
            n = points(short)
            if long is not short and points(long) > n and long.keys() == short.keys():
                assert not all(long[k][:n] == short[k] if k in POINT_FIELDS else long[k] == short[k] for k in short)


@pytest.mark.parametrize("lang", LANGS)
def test_each_table_row_and_each_caption_is_stored_once(site, lang):
    data = json.loads(parse(site / lang / "transformer-block.html").css_first("#lesson-data").text())
    rows = [json.dumps(r, sort_keys=True) for r in data["rows"]]
    assert len(set(rows)) == len(rows)
    tables = [p for p in data["parts"] if isinstance(p, dict) and "rows" in p]
    assert tables and all(isinstance(i, int) and 0 <= i < len(rows) for t in tables for i in t["rows"])
    shared = [t for t in tables if len(t["rows"]) > 1 and any(set(t["rows"]) & set(u["rows"]) for u in tables if u is not t)]
    assert shared, "tables of neighbouring depths share rows"
    views = [v for f in data["figures"].values() for v in f["views"].values()]
    captions = {v["caption"] for v in views}
    assert all(isinstance(data["parts"][i], str) for i in captions) and len(captions) < len(views) / 4
