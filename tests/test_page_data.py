"""The page data lesson.js reads (builder/figures/page.py): everything the views share is stored once,
and what is stored reads back as the views the figure kinds made."""

from __future__ import annotations

import json

import pytest

from builder.figures.page import first_points, points
from conftest import lesson_data, parse

LANGS = ["zh", "ja"]
POINT_FIELDS = ["x", "y", "base", "hover", "text", "position"]


def bars(n, cls="bar-ffn-on"):
    return {"type": "bar", "class": cls, "width": 0.32, "x": [b + 0.23 for b in range(1, n + 1)],
            "y": [0.5 * b for b in range(1, n + 1)], "base": [1.0] * n, "hover": [f"block {b}" for b in range(1, n + 1)]}


def cut(whole, n):
    """A mark named [i, n], as lesson.js reads it back."""
    return {k: (v[:n] if k in POINT_FIELDS else v) for k, v in whole.items()}


def test_a_series_cut_at_a_lower_depth_names_the_longest_that_holds_it():
    pieces = [bars(1), bars(2), {"range": [0, 1]}, bars(6), bars(3)]
    cuts = first_points(pieces)
    assert cuts == {0: (3, 1), 1: (3, 2), 4: (3, 3)}
    assert all(cut(pieces[whole], n) == pieces[i] for i, (whole, n) in cuts.items())


def test_marks_that_differ_beyond_their_first_points_are_stored_whole():
    other_class, other_width = bars(2, "bar-ffn-off"), dict(bars(2), width=0.4)
    changed = bars(2)
    changed["y"] = [0.5, 9.0]  # the second bar of the depth-3 series is not the second of this one
    band = {"type": "band", "class": "ribbon", "x": [-0.5, 1.5], "y": [1.0]}  # edges, not points
    wider_band = {"type": "band", "class": "ribbon", "x": [-0.5, 1.5, 2.5], "y": [1.0]}
    assert first_points([other_class, other_width, changed, band, wider_band, bars(3)]) == {}
    assert points(band) is None and points(bars(3)) == 3


@pytest.mark.parametrize("lang", LANGS)
def test_the_charts_marks_read_back_and_each_series_is_stored_whole_once(site, lang):
    data = lesson_data(site / lang / "transformer-block.html")
    pieces = data["pieces"]
    assert data["point_fields"] == POINT_FIELDS
    charts = [p for p in data["parts"] if isinstance(p, dict) and "marks" in p]
    named = [m for c in charts for m in c["marks"] if isinstance(m, list)]
    assert named, "the depths of the depth map share their series"
    for i, n in named:
        assert 0 < n < points(pieces[i])
    assert first_points(pieces) == {}  # no mark stored is the first points of another
    marks = [cut(pieces[m[0]], m[1]) if isinstance(m, list) else pieces[m] for c in charts for m in c["marks"]]
    assert all(points(m) for m in marks if m["type"] not in ("band", "outline"))


@pytest.mark.parametrize("lang", LANGS)
def test_each_table_row_and_each_caption_is_stored_once(site, lang):
    data = lesson_data(site / lang / "transformer-block.html")
    rows = [json.dumps(r, sort_keys=True) for r in data["rows"]]
    assert len(set(rows)) == len(rows)
    tables = [p for p in data["parts"] if isinstance(p, dict) and "rows" in p]
    assert tables and all(isinstance(i, int) and 0 <= i < len(rows) for t in tables for i in t["rows"])
    shared = [t for t in tables if len(t["rows"]) > 1 and any(set(t["rows"]) & set(u["rows"]) for u in tables if u is not t)]
    assert shared, "tables of neighbouring depths share rows"
    named = [i for f in data["figures"].values() for i in f["views"]["caption"]]
    captions = set(named)
    assert all(isinstance(data["parts"][i], str) for i in captions) and len(captions) < len(named) / 4


@pytest.mark.parametrize("lang", LANGS)
def test_a_figures_views_come_as_one_list_per_field_in_the_order_of_their_keys(site, lang):
    data = lesson_data(site / lang / "transformer-block.html")
    for figure in data["figures"].values():
        views = figure["views"]
        keys = views["keys"]
        assert len(set(keys)) == len(keys) == 36  # 3 sentences × residual on/off × 6
        assert all(len(column) == len(keys) for column in views.values())
        assert all(isinstance(text, str) and text for text in views["summary"])
        assert "river-bank|on|3" in keys or "river-bank|on|1" in keys


@pytest.mark.parametrize("lang", LANGS)
def test_the_other_scenarios_come_in_a_script_named_by_its_content(site, lang):
    """The page holds the views of its starting state's scenario and residual; the others' (another scenario, the
    residual off) are in assets/data/<lang>-<slug>.<hash>.js,
    named by a hash of its bytes (as the search index), so no cache can serve a stale one."""
    import hashlib
    import re

    node = parse(site / lang / "transformer-block.html").css_first("#lesson-data")
    match = re.fullmatch(rf"\.\./assets/data/{lang}-transformer-block\.([0-9a-f]{{12}})\.js", node.attributes["data-more"])
    assert match
    script = (site / lang / node.attributes["data-more"]).read_bytes()
    assert hashlib.sha256(script).hexdigest()[:12] == match.group(1)
    inline = json.loads(node.text())
    for figure in inline["figures"].values():  # what the page shows before a click: the default scenario, residual on
        assert {key.split("|")[figure["state"].index("scenario")] for key in figure["views"]["keys"]} == {"river-bank"}
        if "residual" in figure["state"]:
            assert {key.split("|")[figure["state"].index("residual")] for key in figure["views"]["keys"]} == {"on"}
    assert len(inline["parts"]) < len(lesson_data(site / lang / "transformer-block.html")["parts"])
    # a lesson whose figures have no scenario to pick has nothing to load
    assert "data-more" not in parse(site / lang / "ffn-residual.html").css_first("#lesson-data").attributes
