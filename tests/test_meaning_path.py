"""The path in meaning space (builder/figures/meaning_path/): its data is the trace, its plane is the
lesson's, and the real lessons' sentences about it hold. Browser behaviour is in test_browser.py."""

from __future__ import annotations

import gettext
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest

from conftest import CONTENT, FIXTURE, ROOT

NAMES = ["river-bank", "money-bank", "bank-by-the-river"]


@lru_cache(maxsize=None)
def scenarios(root=FIXTURE):
    from builder.scenarios import load_scenario

    return tuple(load_scenario(root / "scenarios" / f"{name}.toml") for name in NAMES)


def views(args=("geography", "finance"), walkthrough=("input", "b1.attention", "b2", "sum")):
    from builder.figures.page import figure_views
    from builder.i18n import Language

    lang = Language(code="zh", locale="zh_Hans", html_lang="zh-Hans")
    return figure_views("meaning-path", lang, gettext.NullTranslations(), list(scenarios()), list(walkthrough), args)


def plane(name, residual, depth=6, dims=(0, 1)):
    s = dict(zip(NAMES, scenarios()))[name]
    trace = s.traces["pre-on" if residual else "pre-off"]
    points = np.vstack([trace.x0[s.tracked][None], trace.block_outputs()[:depth, s.tracked]])
    return points[:, list(dims)]


def marks(view, css):
    return [m for m in view["charts"]["main"]["marks"] if m["class"] == css]


@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("depth", [1, 3, 6])
def test_the_picked_path_is_the_tracked_word_after_each_block(residual, depth):
    view = views()[f"money-bank|{'on' if residual else 'off'}|{depth}"]
    picked, = marks(view, "path-picked")
    expected = plane("money-bank", residual, depth)
    assert picked["x"] == pytest.approx(expected[:, 0], abs=5e-3) and picked["y"] == pytest.approx(expected[:, 1], abs=5e-3)
    other, = marks(view, "path-other")  # the river sentence, the same in either word order
    assert other["y"] == pytest.approx(plane("river-bank", residual, depth)[:, 1], abs=5e-3)


def test_sentences_with_the_same_path_share_one_and_say_so():
    view = views()["bank-by-the-river|on|3"]
    assert len(marks(view, "path-picked")) == 1 and len(marks(view, "path-other")) == 1
    legend = view["charts"]["main"]["legend"]
    assert "by the river bank" in legend[0]["text"] and "bank by the river" in legend[0]["text"]
    assert np.allclose(plane("river-bank", True), plane("bank-by-the-river", True))  # why: the same words, reordered


def test_the_summary_names_both_axes_for_every_sentences_end():
    """The other sentences' ends are read out with their axis names too, not as two bare numbers."""
    view = views()["money-bank|on|3"]
    chart = view["charts"]["main"]
    x, y = chart["x"]["title"], chart["y"]["title"]
    others = chart["label"].split(";", 1)[1]
    river = plane("river-bank", True, 3)[-1]
    assert f"{x} {river[0]:.2f}, {y} {river[1]:.2f}" in others.replace("\u2212", "-")


def test_the_summary_reads_the_end_as_the_table_under_the_chart_prints_it():
    """review-ja-30 5.2: with the residual off a screen reader heard 金融 0.4 where the lesson and the table say 0.35."""
    view = views()["river-bank|off|3"]
    chart, last = view["charts"]["main"], view["twins"][0]["rows"][-1]
    assert f'{chart["x"]["title"]} {last[1]}, {chart["y"]["title"]} {last[2]}' in chart["label"]


def test_one_scale_for_every_state_with_a_unit_as_long_across_as_up():
    from builder.figures.chart import frame

    charts = [v["charts"]["main"] for v in views().values()]
    axes = {(tuple(c["x"]["range"]), tuple(c["y"]["range"])) for c in charts}
    assert len(axes) == 1
    (x_lo, x_hi), (y_lo, y_hi) = axes.pop()
    every = np.vstack([plane(n, r) for n in NAMES for r in (True, False)])
    assert x_lo < every[:, 0].min() and every[:, 0].max() < x_hi and y_lo < every[:, 1].min() and every[:, 1].max() < y_hi
    for size in ("wide", "narrow"):
        width, height, m = frame(charts[0], size)
        across = (width - m["l"] - m["r"]) / (x_hi - x_lo)
        up = (height - m["t"] - m["b"]) / (y_hi - y_lo)
        assert across == pytest.approx(up, rel=0.01), size


def test_the_walkthrough_outlines_the_point_of_its_step():
    view = views()["river-bank|on|3"]
    input_, attention, block_2, total = view["charts"]["main"]["highlights"]
    points = plane("river-bank", True, 3)
    for outline, block in ((input_, 0), (block_2, 2), (total, 3)):  # input, b2, sum (the last point)
        assert outline == pytest.approx(points[block], abs=5e-3)  # a point: chart.py draws a square around it


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_a_step_about_a_blocks_attention_marks_the_stream_after_it_not_the_blocks_end(lang):
    """Step 2 is about block 1's attention: the stream after it, about (1.0, 0.0), which the path (one point per
    block) does not mark, not block 1's end point (1.31, −0.10), which the FFN's step 3 frames."""
    from builder.figures.page import figure_views
    from builder.i18n import Language

    lang_ = Language(code=lang, locale={"zh": "zh_Hans", "ja": "ja"}[lang], html_lang=lang)
    every = figure_views("meaning-path", lang_, gettext.NullTranslations(), list(scenarios()),
                         ["input", "b1.attention", "b1.ffn", "b2"], ("geography", "finance"))
    s = scenarios()[0]
    trace = s.traces["pre-on"]
    attention, ffn = every["river-bank|on|3"]["charts"]["main"]["highlights"][1:3]
    assert attention[:2] == pytest.approx(trace.steps[0].after[s.tracked][:2], abs=5e-3) and attention[2] == "halfway"
    assert ffn == pytest.approx(plane("river-bank", True, 3)[1], abs=5e-3) and attention[:2] != ffn
    # with the residual off, in the close-up, where the point is inside it
    money = dict(zip(NAMES, scenarios()))["money-bank"]
    off = every["money-bank|off|3"]["charts"]["zoom"]["highlights"][1]
    assert off[:2] == pytest.approx(money.traces["pre-off"].steps[0].after[money.tracked][:2], abs=5e-3)
    assert views()["river-bank|on|1"]["charts"]["main"]["highlights"][2] is None  # block 2 is beyond depth 1


def test_residual_off_adds_a_close_up_of_where_the_paths_stay_at_one_scale_for_every_off_state():
    """The main chart keeps one scale for every state (on and off compare there), so without the residual the
    paths are a blot in it: a close-up, the same for every residual-off state, draws them apart. The main
    chart marks its area and says how many times it is enlarged; the units stay as long across as up."""
    from builder.figures.chart import frame

    every = views()
    assert all("zoom" not in v["charts"] for k, v in every.items() if "|on|" in k)
    closeups = [v["charts"]["zoom"] for k, v in every.items() if "|off|" in k]
    assert len(closeups) == 3 * 6
    axes = {(tuple(c["x"]["range"]), tuple(c["y"]["range"])) for c in closeups}
    assert len(axes) == 1
    (x_lo, x_hi), (y_lo, y_hi) = axes.pop()
    off = np.vstack([plane(n, False) for n in NAMES])
    assert x_lo < off[:, 0].min() and off[:, 0].max() < x_hi and y_lo < off[:, 1].min() and off[:, 1].max() < y_hi
    main = every["river-bank|off|6"]["charts"]["main"]
    times = (main["x"]["range"][1] - main["x"]["range"][0]) / (x_hi - x_lo)
    assert times == pytest.approx(round(times)) and round(times) >= 4
    assert str(round(times)) in closeups[0]["title"] and str(round(times)) in every["river-bank|off|6"]["caption"]
    area, = [m for m in main["marks"] if m["class"] == "zoom-area"]
    assert (area["type"], area["x"], area["y"]) == ("outline", [x_lo, x_hi], [y_lo, y_hi])
    assert not [m for m in main["marks"] if m["type"] == "text"]  # its labels piled up: the close-up has them
    assert main["highlights"][0] is None and main["highlights"][2:] == [None, None]  # the close-up marks these
    for size in ("wide", "narrow"):
        width, height, m = frame(closeups[0], size)
        assert (width - m["l"] - m["r"]) / (x_hi - x_lo) == pytest.approx((height - m["t"] - m["b"]) / (y_hi - y_lo), rel=0.01)
        main_width = frame(main, size)[0] - frame(main, size)[2]["l"] - frame(main, size)[2]["r"]
        assert width - m["l"] - m["r"] == main_width  # as wide as the chart above: `times` larger on screen too


def test_the_close_ups_corner_is_a_labelled_tick_on_both_axes():
    """Each axis of the close-up begins and ends on a tick it labels: a window that starts a hair short of
    −0.2 would leave the corner unlabelled and the 0.0 gridline floating above the axis line."""
    zoom = views()["river-bank|off|6"]["charts"]["zoom"]
    for axis in ("x", "y"):
        lo, hi = zoom[axis]["range"]
        ticks = [tick[0] for tick in zoom[axis]["ticks"]]
        assert ticks[0] == pytest.approx(lo, abs=1e-9) and ticks[-1] == pytest.approx(hi, abs=1e-9), (axis, lo, hi, ticks)


def test_the_close_up_labels_the_collapse_once_and_outlines_only_the_steps_point():
    zoom = views()["money-bank|off|6"]["charts"]["zoom"]
    labels, = [m for m in zoom["marks"] if m["type"] == "text"]
    assert labels["text"] == ["x₀", "2–6"]  # block 1's point is crowded out; 2 to 6 sit on one point
    points = plane("money-bank", False)
    input_, attention, block_2, total = zoom["highlights"]
    for outline, block in ((input_, 0), (block_2, 2), (total, 6)):
        assert outline == pytest.approx(points[block], abs=5e-3)  # the step's point, outlined in the close-up
    assert attention[2] == "halfway"  # block 1's attention: the stream after it, not a point of the path


def test_the_other_path_is_drawn_in_rings_and_its_legend_says_where_it_meets_the_picked_one():
    view = views()["money-bank|off|6"]
    other, = [m for m in view["charts"]["zoom"]["marks"] if m["class"] == "path-other"]
    assert other["symbol"] == "ring" and other["dash"]
    river, money = plane("river-bank", False), plane("money-bank", False)
    apart = np.linalg.norm(river - money, axis=1)
    assert apart[2] > 0.05 and apart[3:].max() < 0.005  # from block 3 on, one point
    assert "from block 3 on" in view["charts"]["zoom"]["legend"][1]["text"].replace("\xa0", " ")  # label_breaks keeps "block 3" whole
    assert "from block" not in views()["money-bank|on|6"]["charts"]["main"]["legend"][1]["text"]  # apart when on


@pytest.mark.parametrize("args,problem", [((), "name the plane's two dimensions"),
                                          (("geography",), "name the plane's two dimensions"),
                                          (("finance", "finance"), "name the plane's two dimensions"),
                                          (("geography", "weather"), "'weather' is not a dimension")])
def test_the_plane_must_be_two_dimensions_of_the_scenarios(args, problem):
    from builder.figures.page import check_args

    assert problem in check_args("meaning-path", args, list(scenarios()))
    assert check_args("meaning-path", ("finance", "geography"), list(scenarios())) is None
    assert "takes no arguments" in check_args("depth-map", ("geography",), list(scenarios()))


def test_a_wrong_plane_in_a_lesson_fails_with_file_and_line(content_copy):
    path = content_copy / "zh" / "transformer-block.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("meaning-path geography finance", "meaning-path geography weather"), encoding="utf-8")
    line = next(i for i, l in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "geography weather" in l)
    result = subprocess.run([sys.executable, "-m", "builder", "check", "--content", str(content_copy)], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{path}:{line}: `::: interactive meaning-path`: 'weather' is not a dimension" in result.stderr
    assert "figures placed by `::: interactive` are" in result.stderr  # and the translation no longer matches


def test_the_lessons_second_sense_holds_for_the_trace():
    """What both lessons say beside the figure: from the same x₀, bank goes right and down (more geography,
    less finance) by the river, left and up in the money sentence, roughly opposite ways; the reordered
    sentence has the very same path; with the residual off, both paths end at one point near the start."""
    real = {s.name: s for s in scenarios(CONTENT)}

    def path(name, key):
        s = real[name]
        trace = s.traces[key]
        return np.vstack([trace.x0[s.tracked][None], trace.block_outputs()[:, s.tracked]])[:, :2]

    river, money = path("river-bank", "pre-on"), path("money-bank", "pre-on")
    assert np.allclose(river[0], money[0])
    assert np.all(np.diff(river[:4, 0]) > 0) and np.all(np.diff(river[:4, 1]) < 0)  # right and down, block by block
    assert money[3, 0] < money[0, 0] and np.all(np.diff(money[:4, 1]) > 0)  # left (overall) and up
    a, b = river[3] - river[0], money[3] - money[0]
    assert a @ b / np.linalg.norm(a) / np.linalg.norm(b) < -0.8  # roughly opposite directions
    assert np.array_equal(np.round(path("bank-by-the-river", "pre-on"), 9), np.round(river, 9))
    river_off, money_off = path("river-bank", "pre-off"), path("money-bank", "pre-off")
    assert np.allclose(river_off[-1], money_off[-1], atol=1e-6)  # one point
    assert np.linalg.norm(river_off - river_off[0], axis=1).max() < 0.5  # never far from the start
    assert np.linalg.norm(money_off - money_off[0], axis=1).max() < 0.5


def test_with_the_residual_off_every_step_is_marked_in_the_close_up_or_else_in_the_main_chart():
    """Without the residual the stream after block 1's attention is the attention's output alone, far from
    x₀ and outside the close-up (river bank): the main chart marks it then, so no step shows nothing."""
    every = views()
    for key, view in every.items():
        if "|off|" not in key:
            continue
        main, zoom = view["charts"]["main"]["highlights"], view["charts"]["zoom"]["highlights"]
        depth = int(key.rsplit("|", 1)[1])
        for block, big, close in zip((0, 1, 2, depth), main, zoom):  # the steps input, b1.attention, b2, sum
            assert big is None or close is None, key  # one mark at most, in one chart
            assert (big is not None or close is not None) == (block <= depth), (key, block)
    river = dict(zip(NAMES, scenarios()))["river-bank"]
    attention = every["river-bank|off|3"]["charts"]["main"]["highlights"][1]
    assert attention[2] == "ringed"  # a dot and a ring around it: at that scale the dot alone is a speck
    assert attention[:2] == pytest.approx(river.traces["pre-off"].steps[0].after[river.tracked][:2], abs=5e-3)


def test_the_collapse_label_writes_its_block_range_as_the_catalog_says():
    """"2–6" in the source; Japanese writes ranges with 〜 (the lesson text does), so the label is the catalog's."""
    from builder.figures.page import figure_views
    from builder.i18n import Language, compile_catalog, read_catalog

    translations = compile_catalog(read_catalog(CONTENT / "ja" / "messages.po", "ja"))
    view = figure_views("meaning-path", Language(code="ja", locale="ja", html_lang="ja"), translations, list(scenarios()),
                        ["input", "b1.attention", "b2", "sum"], ("geography", "finance"))["money-bank|off|6"]
    labels, = [m for m in view["charts"]["zoom"]["marks"] if m["type"] == "text"]
    assert labels["text"] == ["x₀", "2〜6"]


def test_the_rings_legend_names_sentences_that_share_a_path_once_without_a_second_note():
    """The rings' note is about the sentences it names; two that share a path are named together, not as "A and B:
    one and the same path" nested inside it, which read as two notes with two colons (zh: 画作一条：空心圆环)."""
    text = views()["money-bank|off|6"]["charts"]["zoom"]["legend"][1]["text"]
    assert "by the river bank" in text and "bank by the river" in text and "from block 3 on" in text.replace("\xa0", " ")
    assert "one and the same path" not in text and ":" not in text, text
