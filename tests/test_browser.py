"""The interactive lesson pages in a real Chromium, offline over file://, in both languages.

Every expected number is computed here from the engine's trace (the fixture project's scenarios),
every expected label from the catalogs: the page must show what the trace and the catalogs say."""

from __future__ import annotations

import re
import threading
from functools import lru_cache, partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from browser import ARTIFACTS
from conftest import CONTENT, FIXTURE

pytestmark = pytest.mark.browser
LANGS = ["zh", "ja"]
LOCALES = {"zh": "zh_Hans", "ja": "ja"}
OFFSET = 0.23  # where a block's attention and FFN bars sit (builder/figures/depth_map)


def lesson_url(site, lang, slug="transformer-block", fragment=""):
    return (site / lang / f"{slug}.html").as_uri() + fragment


def ready(page):
    """Wait until Plotly has drawn (it loads when a figure comes near): scroll the figure into view."""
    page.locator("[data-figure]").first.scroll_into_view_if_needed()
    page.wait_for_selector("[data-figure][data-ready]")
    return page


@lru_cache(maxsize=None)
def scenario(name="river-bank"):
    from builder.scenarios import load_scenario

    return load_scenario(FIXTURE / "scenarios" / f"{name}.toml")


@lru_cache(maxsize=None)
def catalog(lang):
    from builder.i18n import compile_catalog, read_catalog

    return compile_catalog(read_catalog(CONTENT / lang / "messages.po", LOCALES[lang]))


def label(lang, kind, key, **values):
    from builder.figures import COMMON_LABELS, KINDS

    labels = KINDS[kind].labels
    text = catalog(lang).gettext(labels[key] if key in labels else COMMON_LABELS[key])
    return text % values if values else text


def shown(text):
    """A label as a reader sees it: the builder marks its phrases with zero-width and no-break spaces."""
    return text.replace("\u200b", "").replace("\u00a0", " ").strip()


def num(value, lang="zh", decimals=2):
    from builder.i18n import format_number

    return format_number(value, LOCALES[lang], decimals)


PLOTTED = """(sel) => { const p = document.querySelector(sel + ' .plot'); if (!p || !p.data) return null;
  const out = p.data.map(t => ({ meta: t.meta, x: Array.from(t.x), y: Array.from(t.y || []), base: t.base ? Array.from(t.base) : null,
    width: t.width ? Array.from([].concat(t.width)) : null, pattern: t.marker && t.marker.pattern ? t.marker.pattern.shape : null }));
  const labels = {};
  (p.layout.annotations || []).forEach(a => { const l = labels[a.name] = labels[a.name] || { meta: a.name, x: [], y: [], text: [] };
    l.x.push(a.x); l.y.push(a.y); l.text.push(a.text); });
  return out.concat(Object.values(labels)); }"""


def showing(page, figure, *wanted):
    """Wait until a figure says it shows a state (lesson.js sets its data-state once its text, tables and
    SVG charts show it, in the task that handles the change; Plotly's drawing is `plotted`'s business)."""
    page.wait_for_function("([sel, wanted]) => { const s = (document.querySelector(sel).getAttribute('data-state') || '').split('&');"
                           " return wanted.every(w => s.includes(w)); }", arg=[f"#{figure}", list(wanted)])
    return page


def plotted(page, chart="main", figure="depth-map"):
    """The drawn traces (and value labels, Plotly annotations) by mark class. Plotly redraws a new state
    when the browser is idle: wait until it has drawn the current one."""
    box = f'#{figure} [data-chart="{chart}"] [data-part="chart"]'
    page.wait_for_function("(sel) => { const b = document.querySelector(sel); return b && b.getAttribute('data-plotted') "
                           "&& b.getAttribute('data-plotted') === b.getAttribute('data-state'); }", arg=box)
    return {t["meta"]: t for t in page.evaluate(PLOTTED, f'#{figure} [data-chart="{chart}"]')}


def layout(page, chart="main", figure="depth-map"):
    plotted(page, chart, figure)
    return page.evaluate("(sel) => document.querySelector(sel + ' .plot').layout", f'#{figure} [data-chart="{chart}"]')


def y_title(page, chart="main", figure="depth-map"):
    """The y axis's title in Plotly's drawing: an annotation above the axis (Plotly's own would be turned 90°)."""
    return next(a["text"] for a in layout(page, chart, figure)["annotations"] if a.get("name") == "y-title")


SVG_MARKS = """(sel) => [...document.querySelectorAll(sel + ' .chart-svg-wide [data-mark]')].map(g => ({
  mark: g.getAttribute('data-mark'),
  points: [...g.querySelectorAll('[data-x]')].map(e => [+e.getAttribute('data-x'), +e.getAttribute('data-y'),
                                                          e.hasAttribute('data-base') ? +e.getAttribute('data-base') : null]),
  band: [...g.querySelectorAll('rect.fill')].map(e => +e.getAttribute('data-y')) }))"""


def bars(run, t, depth, residual):
    """What the depth map's bars must be, from the trace: (x, height, base, true length) per sublayer."""
    x0 = run.x0[t]
    out = []
    for step in run.steps[: 2 * depth]:
        x = step.block + (-OFFSET if step.sublayer == "attention" else OFFSET)
        height = np.linalg.norm(step.after[t] - x0) if residual else np.linalg.norm(step.delta[t])
        out.append((round(x, 2), height, np.linalg.norm(x0) if residual else 0.0, np.linalg.norm(step.after[t])))
    return out


def spread(run, depth):
    """The largest distance between two words: at the input, then after every sublayer up to `depth`."""
    states = [run.x0] + [s.after for s in run.steps[: 2 * depth]]
    return [np.linalg.norm(x[:, None] - x[None], axis=-1).max() for x in states]


def sublayer_xs(depth):
    """Where the panel draws its points: the input, then under each bar of the depth map."""
    return [0] + [round(b + d, 2) for b in range(1, depth + 1) for d in (-OFFSET, OFFSET)]


# ---- The depth map says what the trace shows ------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("residual", [True, False])
def test_bars_and_true_length_markers_are_the_trace(site, open_page, lang, residual):
    page = ready(open_page(lesson_url(site, lang, fragment=f"#residual={'on' if residual else 'off'}&depth=4")))
    s = scenario()
    run = s.traces["pre-on" if residual else "pre-off"]
    expected = bars(run, s.tracked, 4, residual)
    drawn = plotted(page)
    state = "on" if residual else "off"
    attention, ffn = drawn[f"bar-attention-{state}"], drawn[f"bar-ffn-{state}"]
    assert attention["x"] == [e[0] for e in expected[0::2]] and ffn["x"] == [e[0] for e in expected[1::2]]
    assert attention["y"] == pytest.approx([e[1] for e in expected[0::2]], abs=5e-3)
    assert ffn["y"] == pytest.approx([e[1] for e in expected[1::2]], abs=5e-3)
    assert ffn["base"] == pytest.approx([e[2] for e in expected[1::2]], abs=5e-3)
    assert drawn["length"]["y"] == pytest.approx([e[3] for e in expected], abs=5e-3)  # ‖x‖, a marker per sublayer
    assert drawn["ribbon"]["x"] == ([-0.5, 4.5] if residual else [-0.5, 0.5])  # residual off: cut at the entrance
    assert (ffn["pattern"] == "/") is not residual and (attention["pattern"] == "/") is not residual


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("residual", [True, False])
def test_the_number_above_each_block_is_the_true_length_the_text_quotes(site, open_page, lang, residual):
    page = ready(open_page(lesson_url(site, lang, fragment=f"#residual={'on' if residual else 'off'}&depth=5")))
    s = scenario()
    lengths = np.linalg.norm(s.traces["pre-on" if residual else "pre-off"].block_outputs()[:5, s.tracked], axis=-1)
    labels = plotted(page)["value"]
    assert labels["x"] == [round(b + OFFSET, 2) for b in range(1, 6)]  # over the FFN's column, the block's last diamond
    assert labels["text"] == [num(v, lang, 1) for v in lengths]
    svg = page.locator('#depth-map [data-chart="main"] .chart-svg-wide text.value').all_text_contents()
    assert svg == labels["text"]  # the SVG (print, no Plotly) says the same


def test_zh_depth_map_legend_entries_each_keep_to_one_line_on_a_phone(real_site, open_page):
    """r49 C10: the length entry's note (which number sits over a block) wrapped under the diamond at 390 px; every
    entry of the main legend now takes one line there, so the diamond's label reads as one."""
    page = ready(open_page(lesson_url(real_site, "zh"), viewport={"width": 390, "height": 844}))
    lines = page.evaluate("""() => [...document.querySelectorAll('#depth-map [data-chart="main"] .chart-legend li')]
        .map(li => li.getBoundingClientRect().height / parseFloat(getComputedStyle(li).lineHeight))""")
    assert len(lines) == 4 and all(n < 1.5 for n in lines), lines


@pytest.mark.parametrize("lang", LANGS)
def test_axis_legend_and_caption_say_what_the_heights_are(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    legend = lambda: [shown(li.text_content()) for li in page.locator('#depth-map [data-chart="main"] .chart-legend li').all()]
    assert y_title(page) == label(lang, "depth-map", "axis_y_on")
    assert legend() == [label(lang, "depth-map", k) for k in ("ribbon", "attention_on", "ffn_on", "length_label")]
    assert page.locator('#depth-map [data-part="caption"]').text_content() == label(lang, "depth-map", "caption_on")
    page.locator('#depth-map [data-control="residual"]').click()
    assert y_title(page) == label(lang, "depth-map", "axis_y_off")
    assert legend() == [label(lang, "depth-map", k) for k in ("ribbon", "attention_off", "ffn_off", "length_label")]
    assert page.locator('#depth-map [data-part="caption"]').text_content() == label(lang, "depth-map", "caption_off")


def round_ticks(values):
    """Whether ticks are evenly spaced by 1, 2 or 5 times a power of ten, starting at a multiple of it."""
    step = values[1] - values[0]
    power = 10 ** np.floor(np.log10(step))
    return (any(abs(step - m * power) < 1e-9 for m in (1, 2, 5)) and np.allclose(np.diff(values), step)
            and abs(values[0] / step - round(values[0] / step)) < 1e-9)


@pytest.mark.parametrize("lang", LANGS)
def test_one_y_scale_with_round_ticks_across_the_toggle_the_depth_and_every_scenario(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    axes = set()
    for name in ("river-bank", "money-bank", "bank-by-the-river"):
        page.locator(f'#depth-map input[value="{name}"]').check()
        for _ in range(2):
            page.locator('#depth-map [data-control="residual"]').click()
            y = layout(page)["yaxis"]
            axes.add((tuple(y["range"]), tuple(y["tickvals"])))
    page.locator('#depth-map [data-control="depth"]').focus()
    page.keyboard.press("End")
    y = layout(page)["yaxis"]
    axes.add((tuple(y["range"]), tuple(y["tickvals"])))
    assert len(axes) == 1
    (y_range, ticks), = axes
    assert round_ticks(ticks) and ticks[-1] == y_range[1]
    for name in ("river-bank", "money-bank"):
        s = scenario(name)
        highest = max(e[2] + e[1] for e in bars(s.traces["pre-on"], s.tracked, 6, True))
        assert highest < y_range[1]  # the scale holds the tallest stacked bar of any state


@pytest.mark.parametrize("lang", LANGS)
def test_the_token_panel_shows_every_word_collapse_without_the_residual(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#residual=off&depth=6")))
    drawn = plotted(page, "spread")
    s = scenario()
    assert drawn["spread-off"]["x"] == sublayer_xs(6)  # a point under each bar of the depth map
    assert drawn["spread-off"]["y"] == pytest.approx(spread(s.traces["pre-off"], 6), abs=5e-3)  # the current state
    assert drawn["spread-compare"]["y"] == pytest.approx(spread(s.traces["pre-on"], 6), abs=5e-3)  # residual on, to compare
    assert drawn["spread-off"]["y"][4] < 1e-3 < drawn["spread-compare"]["y"][4]  # collapsed after block 2, only without it
    assert drawn["spread-off"]["y"][1] < 0.2 < drawn["spread-off"]["y"][0]  # block 1's attention alone does most of it


@pytest.mark.parametrize("lang", LANGS)
def test_the_token_panel_shows_the_current_state_and_never_spoils_the_prediction(site, open_page, lang):
    """The lesson asks the reader to predict what turning the residual off does: with it on, the panel shows the
    residual-on line alone, up to the depth. Turned off, it shows the collapse with the residual-on line grey
    underneath, up to the same depth as the rest of the figure, and the legend says which is which."""
    page = ready(open_page(lesson_url(site, lang, fragment="#residual=on&depth=3")))
    s = scenario()
    legend = lambda: [shown(t) for t in page.locator('#depth-map [data-chart="spread"] .chart-legend li').all_text_contents()]
    on = plotted(page, "spread")
    assert "spread-compare" not in on and "spread-off" not in on
    assert on["spread-on"]["x"] == sublayer_xs(3)
    assert on["value"]["text"][:1] + on["value"]["text"][-3:] == [num(v, lang, 1) for v in spread(s.traces["pre-on"], 3)[0::2]]
    assert legend() == [label(lang, "depth-map", "spread_on")]
    svg = {m["mark"] for m in page.evaluate(SVG_MARKS, '#depth-map [data-chart="spread"]')}
    assert "spread-compare" not in svg  # nor at first paint, nor on paper
    page.locator('#depth-map [data-control="residual"]').click()
    off = plotted(page, "spread")
    assert "spread-off" in off and "spread-on" not in off
    assert off["spread-compare"]["x"] == off["spread-off"]["x"] == sublayer_xs(3)  # it follows the depth
    assert off["spread-compare"]["y"] == pytest.approx(spread(s.traces["pre-on"], 3), abs=5e-3)
    assert legend() == [label(lang, "depth-map", "spread_off"), label(lang, "depth-map", "spread_compare_on")]
    page.locator('#depth-map [data-control="depth"]').focus()
    page.keyboard.press("End")
    assert plotted(page, "spread")["spread-compare"]["x"] == sublayer_xs(6)


def outline(page, figure="depth-map", chart="main"):
    """The walkthrough's outline as Plotly draws it (a closed line, or a square marker on one point): its
    centre, width, bottom and top."""
    trace = plotted(page, chart, figure)["highlight"]
    (left, right), (bottom, top) = (min(trace["x"]), max(trace["x"])), (min(trace["y"]), max(trace["y"]))
    return {"x": [round((left + right) / 2, 4)], "width": [right - left], "base": [bottom], "top": [top]}


@pytest.mark.parametrize("lang", LANGS)
def test_walkthrough_steps_2_and_3_outline_the_two_sublayers_of_block_1(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#step=2")))
    assert outline(page)["x"] == [round(1 - OFFSET, 2)]
    page.locator('[data-control="step-next"]').click()
    assert outline(page)["x"] == [round(1 + OFFSET, 2)]
    page.locator('[data-control="step-next"]').click()  # step 4: the whole of block 2
    assert outline(page)["x"] == [2] and outline(page)["width"][0] > 0.7


@pytest.mark.parametrize("lang", LANGS)
def test_the_sum_step_follows_the_depth_and_lists_x0_and_every_correction(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#depth=6&step=6")))
    readout = page.locator('#depth-map [data-part="walk-readout"]')
    assert label(lang, "depth-map", "sum_note", depth=6, count=12) in readout.text_content()
    heads = [shown(t) for t in readout.locator("tbody th").all_text_contents()]
    assert len(heads) == 1 + 12 + 2 and heads[0].startswith(label(lang, "depth-map", "input"))
    s = scenario()
    run, t = s.traces["pre-on"], s.tracked
    total = [float(c.replace("\u2212", "-")) for c in readout.locator("tbody tr").nth(13).locator("td").all_text_contents()]
    assert total == pytest.approx(run.x0[t] + sum(step.delta[t] for step in run.steps), abs=0.006)


@pytest.mark.parametrize("lang", LANGS)
def test_controls_change_the_current_history_entry_so_back_leaves_the_page(site, open_page, lang):
    page = open_page((site / lang / "index.html").as_uri())
    page.locator('a[href="transformer-block.html"]').first.click()
    page.wait_for_url("**/transformer-block.html")
    ready(page)
    before = page.evaluate("history.length")
    slider = page.locator('#depth-map [data-control="depth"]')
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(box["x"] + 4 + i * (box["width"] - 8) / 10, y)
    page.mouse.up()
    page.locator('#depth-map [data-control="residual"]').click()
    page.locator('#depth-map [data-control="step-next"]').click()
    page.locator('#depth-map input[value="money-bank"]').check()
    assert slider.input_value() == "6"
    assert page.evaluate("history.length") == before  # every change replaced the entry
    assert "scenario=money-bank&residual=off&depth=6" in page.url  # and the address says where the reader is
    page.go_back()
    page.wait_for_url("**/index.html")


@pytest.mark.parametrize("lang", LANGS)
def test_a_link_that_sets_a_state_brings_its_figure_into_view_and_back_returns(site, open_page, lang):
    """The prediction's answer link sits after the attention view but is about the depth map: it shows the
    depth map, with the focus on it, in one new history entry; Back restores the state and the place."""
    page = ready(open_page(lesson_url(site, lang)))
    before = page.evaluate("history.length")
    link = page.locator('#residual-off ~ p a[href^="#residual=off"]').first
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_function("() => document.querySelector('#depth-map [data-control=residual]').getAttribute('aria-pressed') === 'false'")
    assert page.locator('#depth-map [data-control="depth"]').input_value() == "6"
    top = page.evaluate("document.querySelector('#depth-map [data-control=residual]').getBoundingClientRect().top")
    assert 0 <= top < 50  # the figure is taller than the window: it shows from the first control the link changed
    chart = page.evaluate("""() => { const r = document.querySelector('#depth-map [data-chart=main] [data-part=chart]')
      .getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }""")
    assert -2 <= chart[0] and chart[1] <= chart[2]  # the chart itself is on screen
    assert page.evaluate("document.activeElement.id") == "depth-map"
    assert page.evaluate("history.length") == before + 1
    page.go_back()
    page.wait_for_function("() => document.querySelector('#depth-map [data-control=residual]').getAttribute('aria-pressed') === 'true'")
    assert page.locator('#depth-map [data-control="depth"]').input_value() == "3"
    page.wait_for_function("""(link) => { const r = link.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }""",
                           arg=link.element_handle())  # back where the link was


CHANGED_CONTROLS = """() => { const box = s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.top, r.bottom]; };
  return { residual: box('#depth-map [data-control=residual]'), depth: box('#depth-map [data-control=depth]'),
           chart: box('#depth-map [data-chart=main] [data-part=chart]'), height: innerHeight }; }"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)])
def test_the_prediction_link_shows_the_controls_it_changed_and_the_whole_chart_under_them(real_site, open_page, lang, width, height):
    """The lesson's prediction link (#figure=depth-map&…&residual=off&depth=6) showed the depth map from its title:
    the answer's second chart was far below the window, and on a phone the bars' own chart was cut off at the
    bottom. It shows the figure from the residual toggle it switched off (the title, the caption and the
    sentence picker it left alone above): the toggle, the depth and the whole chart on screen."""
    page = ready(open_page(lesson_url(real_site, lang), viewport={"width": width, "height": height}))
    link = page.locator('a[href^="#figure=depth-map"][href*="residual=off"]').first
    link.scroll_into_view_if_needed()
    link.click()
    showing(page, "depth-map", "residual=off", "depth=6")
    found = page.evaluate(CHANGED_CONTROLS)
    assert 0 <= found["residual"][0] < 50, found  # the first control the link changed, at the top
    for part in ("residual", "depth", "chart"):
        assert 0 <= found[part][0] and found[part][1] <= found["height"], (part, found)
    assert page.evaluate("document.activeElement.id") == "depth-map"


def test_focus_stays_on_a_button_at_both_ends_of_the_walkthrough(site, open_page):
    page = ready(open_page(lesson_url(site, "ja", fragment="#step=5")))
    page.locator('[data-control="step-next"]').focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.getAttribute('data-control')") == "step-prev"
    for _ in range(5):
        page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.getAttribute('data-control')") == "step-next"
    assert page.locator('[data-control="step-prev"]').is_disabled()


def test_a_section_link_keeps_the_state_and_the_switcher_carries_both(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#scenario=money-bank&residual=off&depth=5&step=3&block=2")))
    page.locator('.toc a[href="#mistakes"]').click()
    page.wait_for_url("**#mistakes")
    assert page.locator('#depth-map [data-control="depth"]').input_value() == "5"
    href = page.locator(".language-switcher a").get_attribute("href")
    assert href == "../ja/transformer-block.html?scenario=money-bank&residual=off&depth=5&block=1&step=3#mistakes" or \
        href.startswith("../ja/transformer-block.html?scenario=money-bank&residual=off&depth=5") and href.endswith("#mistakes")
    page.locator(".language-switcher a").click()
    page.wait_for_url("**/ja/transformer-block.html?*#mistakes")
    ready(page)
    assert page.locator('#depth-map [data-control="depth"]').input_value() == "5"
    assert page.locator('#depth-map [data-control="residual"]').get_attribute("aria-pressed") == "false"
    assert page.locator('#depth-map input[value="money-bank"]').is_checked()
    assert page.evaluate("window.scrollY") > 500  # at the section, not the top


# ---- First paint, hand-over, print ----------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_the_chart_is_there_before_plotly_loads(site, open_page, lang):
    page = open_page(lesson_url(site, lang), withhold=("plotly-basic.min.js",))
    page.locator("#depth-map").scroll_into_view_if_needed()
    svg = page.locator('#depth-map [data-chart="main"] .chart-svg-wide')
    assert svg.is_visible() and svg.bounding_box()["height"] > 200
    marks = {m["mark"]: m for m in page.evaluate(SVG_MARKS, '#depth-map [data-chart="main"]')}
    s = scenario()
    expected = bars(s.traces["pre-on"], s.tracked, 3, True)
    assert [p[1] for p in marks["bar-ffn-on"]["points"]] == pytest.approx([e[1] for e in expected[1::2]], abs=5e-3)
    assert page.locator("[data-figure][data-ready]").count() == 0  # Plotly never ran


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("figure,chart", [("depth-map", "main"), ("depth-map", "spread"), ("meaning-path", "main")])
def test_plotly_takes_over_with_the_same_values(site, open_page, lang, figure, chart):
    page = open_page(lesson_url(site, lang))
    svg = {m["mark"]: m for m in page.evaluate(SVG_MARKS, f'#{figure} [data-chart="{chart}"]')}
    ready(page)
    page.locator(f"#{figure}").scroll_into_view_if_needed()
    drawn = plotted(page, chart, figure)
    for mark, values in svg.items():
        if values["band"]:
            assert drawn[mark]["y"][0] == pytest.approx(values["band"][0])
            continue
        points = [p for p in values["points"]]
        if mark == "value":
            assert drawn[mark]["x"] == [p[0] for p in points] and drawn[mark]["y"] == pytest.approx([p[1] for p in points])
            continue
        assert drawn[mark]["x"] == pytest.approx([p[0] for p in points])
        assert drawn[mark]["y"] == pytest.approx([p[1] for p in points])
        if points and points[0][2] is not None:
            assert drawn[mark]["base"] == pytest.approx([p[2] for p in points])
    assert page.locator(f'#{figure} [data-chart="{chart}"] .chart-svg-wide').is_hidden()


def test_print_shows_the_chart_and_the_current_numbers_without_errors(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#depth=4&residual=off&step=1")))
    page.emulate_media(media="print")  # print styles apply at once; the tables show the state since it was drawn
    assert not page.locator('#depth-map [data-control="residual"]').is_visible()
    chart = page.locator('#depth-map [data-chart="main"] [data-part="chart"]')
    assert chart.is_visible() and chart.bounding_box()["height"] > 150
    table = page.locator("#depth-map-twin table").first
    assert table.is_visible() and table.bounding_box()["height"] > 100
    assert table.locator("tbody tr").count() == 1 + 2 * 4  # the current state, not the default
    fills = page.evaluate("""() => [...document.querySelectorAll('#depth-map [data-chart=main] .chart-svg-wide .bar-attention-off rect')]
      .map(r => getComputedStyle(r).fill)""")
    swatch = page.evaluate("""() => getComputedStyle(document.querySelector('#depth-map [data-chart=main] .swatch-hatch')).backgroundImage""")
    assert fills and all(f != "rgb(0, 0, 0)" and f in swatch for f in fills)  # residual off: the bars are filled on paper
    page.emulate_media(media="screen")


PRINT_COLOURS = """() => {
  const css = e => getComputedStyle(e), root = css(document.documentElement);
  const svgText = [...document.querySelectorAll('[data-figure] .chart-svg-wide text')].filter(t => t.getClientRects().length);
  return { bg: root.getPropertyValue('--bg').trim(), fg: root.getPropertyValue('--fg').trim(), body: css(document.body).backgroundColor,
    text: [...new Set(svgText.map(t => css(t).fill))], grid: [...new Set([...document.querySelectorAll('.chart-svg-wide .grid')].map(l => css(l).stroke))],
    // what prints even with the browser's "background graphics" off: backgrounds marked exact, or SVG
    backgrounds: [...document.querySelectorAll('.swatch, .attention-grid td, .attention-scale .scale-bar')].filter(e => e.getClientRects().length)
      .map(e => [e.className || e.tagName, css(e).printColorAdjust, css(e).backgroundColor, css(e).backgroundImage, css(e).borderTopStyle]),
    swatches: Object.fromEntries([...document.querySelectorAll('.chart-legend .swatch')].map(s =>
      [s.style.getPropertyValue('--c').match(/--mark-([\\w-]+)/)[1], css(s).backgroundColor + ' ' + css(s).backgroundImage])) }; }"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_paper_gets_the_light_palette_and_keeps_the_colours_that_carry_meaning(site, open_page, lang, scheme):
    """Printed from dark mode, the chart text is dark on white (not the dark theme's near-white) and the grid
    light; the legend swatches, the attention shading and its scale print without "background graphics"."""
    page = ready(open_page(lesson_url(site, lang, fragment="#residual=off&depth=4"), color_scheme=scheme))
    page.locator("#attention").scroll_into_view_if_needed()
    page.emulate_media(media="print", color_scheme=scheme)
    page.wait_for_timeout(300)
    seen = page.evaluate(PRINT_COLOURS)
    assert (seen["bg"], seen["fg"], seen["body"]) == ("#ffffff", "#1f2328", "rgb(255, 255, 255)")
    assert seen["text"] == ["rgb(31, 35, 40)"]  # every tick, title and value label
    assert seen["grid"] == ["rgb(208, 215, 222)"]
    kinds = {b[0].split()[0] for b in seen["backgrounds"]}
    assert {"swatch", "TD", "scale-bar"} <= kinds
    assert all(b[1] == "exact" for b in seen["backgrounds"]), [b for b in seen["backgrounds"] if b[1] != "exact"]
    assert all(b[2] != "rgba(0, 0, 0, 0)" or b[3] != "none" or b[4] != "none" for b in seen["backgrounds"])  # each shows a colour
    assert "rgb(196, 43, 28)" in seen["swatches"]["bar-ffn-off"]  # the light palette's colours, as the marks
    page.emulate_media(media="screen")


@pytest.mark.parametrize("lang", LANGS)
def test_on_paper_only_small_units_are_kept_whole(site, open_page, lang):
    """A figure with its walkthrough and tables is taller than a page: kept whole, it left the page before it
    half empty. Only a chart, a diagram, a table row, … may ask not to be broken, and each fits well in a page."""
    page = ready(open_page(lesson_url(site, lang, fragment="#depth=6&step=6"), viewport={"width": 794, "height": 1123}))
    page.emulate_media(media="print")
    page.wait_for_timeout(300)
    whole = page.evaluate("""() => [...document.querySelectorAll('body *')].filter(e => e.getClientRects().length)
      .map(e => [e.tagName + '.' + (e.getAttribute('class') || e.id), getComputedStyle(e).breakInside, e.getBoundingClientRect().height])
      .filter(e => e[1] !== 'auto')""")
    assert any(w[0].startswith("DIV.chart-box") for w in whole) and any(w[0] == "TR." for w in whole)
    too_tall = [w for w in whole if w[2] > 0.6 * 1123]
    assert too_tall == []
    assert page.locator("#depth-map").evaluate("e => e.getBoundingClientRect().height") > 1123  # it does need to break
    page.emulate_media(media="screen")


@pytest.mark.parametrize("lang", LANGS)
def test_a_self_checks_folded_answers_print_open_and_fold_again_after(real_site, open_page, lang):
    """On screen the answers wait behind their summary; paper has no disclosure widget, so printing opens
    every closed fold (the browser's beforeprint, which a real print and page.pdf both fire) and closes
    it again afterwards; a fold the reader opened stays open."""
    page = open_page(lesson_url(real_site, lang, "ffn-residual"))
    folds = page.locator("article details.fold")
    assert folds.count() == 1 and not folds.first.evaluate("d => d.open")
    assert not folds.first.locator("li").first.is_visible()
    # a listener added after site.js's runs after it: it sees what the page prints
    page.evaluate("""() => { window.printed = null; addEventListener('beforeprint', () => {
      window.printed = [...document.querySelectorAll('details.fold')].map(d => d.open); }); }""")
    page.pdf()
    assert page.evaluate("window.printed") == [True]
    assert not folds.first.evaluate("d => d.open")  # folded again once printed
    # by keyboard: a click right after page.pdf() could land while the page was still laid out for paper,
    # and miss the summary now and then
    folds.first.locator("summary").press("Enter")
    assert folds.first.evaluate("d => d.open")
    page.pdf()
    assert folds.first.evaluate("d => d.open")  # the reader's own choice is kept


def test_the_printed_page_has_the_chart_even_without_javascript(site, open_page):
    page = open_page(lesson_url(site, "ja"), java_script_enabled=False)
    page.emulate_media(media="print")
    assert page.locator('#depth-map [data-chart="main"] .chart-svg-wide').is_visible()
    assert page.locator("#depth-map-twin table").first.locator("tbody tr").count() == 1 + 2 * 3


def test_without_javascript_the_text_table_and_chart_remain(site, open_page):
    page = open_page(lesson_url(site, "ja"), java_script_enabled=False)
    assert page.locator("#depth-map-twin table").first.is_visible()
    assert page.locator('#depth-map .chart-svg-wide').first.is_visible()
    assert not page.locator('[data-control="residual"]').first.is_visible()
    assert page.locator("#walkthrough-steps li").count() == 6


# ---- Scenarios and the attention view ----------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_the_scenario_picker_switches_every_figure_and_the_url(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    page.locator('#depth-map input[value="money-bank"]').check()
    assert "scenario=money-bank" in page.url
    s = scenario("money-bank")
    expected = bars(s.traces["pre-on"], s.tracked, 3, True)
    assert plotted(page)["bar-ffn-on"]["y"] == pytest.approx([e[1] for e in expected[1::2]], abs=5e-3)
    assert page.locator('#attention input[value="money-bank"]').is_checked()  # both pickers show one state
    title = catalog(lang).pgettext("scenario", "money in the bank")
    showing(page, "depth-map", "scenario=money-bank")  # its text and tables show the state (at once, with the chart)
    assert title in page.locator("#depth-map-twin caption").first.text_content()
    assert title in page.locator('#depth-map [data-part="status"]').text_content() or \
        page.locator('#depth-map [data-part="status"]').text_content().strip()
    assert "scenario=money-bank" in page.locator(".language-switcher a").get_attribute("href")


def test_the_scenario_picker_works_from_the_keyboard(site, open_page):
    page = ready(open_page(lesson_url(site, "zh")))
    page.locator('#depth-map input[value="river-bank"]').focus()
    page.keyboard.press("ArrowRight")
    assert page.locator('#depth-map input[value="money-bank"]').is_checked()
    assert "scenario=money-bank" in page.url


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fragment", ["#scenario=money-bank&step=2", "#residual=off&depth=4&step=3"])
def test_the_walkthrough_says_plainly_when_its_text_is_about_another_state_and_goes_back(site, open_page, lang, fragment):
    """The steps' text is about the lesson's own sentence with the residual on. In another state a notice
    right above the text says so, with a button that goes back there (and the focus to the text)."""
    page = ready(open_page(lesson_url(site, lang, fragment=fragment)))
    river = catalog(lang).pgettext("scenario", "by the river bank")
    notice = page.locator('#depth-map [data-part="walk-notice"] .notice')
    notice.wait_for()
    assert river in notice.text_content()
    text = page.locator('#depth-map [data-part="walk-text"]')
    assert notice.bounding_box()["y"] + notice.bounding_box()["height"] <= text.bounding_box()["y"]  # above the step text
    assert notice.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 248, 197)"  # the site's notice colours
    sentence = label(lang, "depth-map", "sentence", text="by the river bank", title=river)  # as the notice names it
    assert sentence in notice.text_content()
    button = notice.get_by_role("button", name=label(lang, "depth-map", "back_to_text", scenario=sentence))
    button.click()
    assert "scenario=river-bank" in page.url and "residual=on" in page.url and "step=" + fragment[-1] in page.url
    assert "depth=4" not in fragment or "depth=4" in page.url  # only the sentence and the residual go back (zh-40 5.1)
    assert page.locator('#depth-map [data-control="residual"]').get_attribute("aria-pressed") == "true"
    page.wait_for_function("() => !document.querySelector('#depth-map [data-part=walk-notice]').children.length")
    assert page.evaluate("document.activeElement.getAttribute('data-part')") == "walk-text"


def test_the_walkthrough_has_no_notice_in_the_state_its_text_describes(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#step=2&depth=5")))
    page.locator('#depth-map [data-part="walk-text"] *').first.wait_for()
    assert page.locator('#depth-map [data-part="walk-notice"] *').count() == 0


WALK_NOTICE = '#depth-map [data-part="walk-notice"] .notice'
NO_WALK_NOTICE = "() => !document.querySelector('#depth-map [data-part=walk-notice]').children.length"


@pytest.mark.parametrize("lang", LANGS)
def test_the_walkthrough_notice_is_not_shown_on_the_input_step_which_reads_the_same_in_every_state(site, open_page, lang):
    """Step 1 (the input) is the same vector in every sentence and with the residual on or off, so its text is
    true in every state and no notice interrupts it (review-zh-32 13, 14); the next step's numbers differ, and
    there the notice says whose they are."""
    page = ready(open_page(lesson_url(site, lang)))
    page.locator('#depth-map [data-control="residual"]').click()
    showing(page, "depth-map", "residual=off", "step=1")
    page.locator('#depth-map [data-part="walk-readout"] *').first.wait_for()
    assert page.locator(WALK_NOTICE).count() == 0
    page.locator('#depth-map [data-control="step-next"]').click()
    showing(page, "depth-map", "residual=off", "step=2")
    assert catalog(lang).pgettext("scenario", "by the river bank") in page.locator(WALK_NOTICE).text_content()


@pytest.mark.parametrize("lang", LANGS)
def test_the_walkthrough_notice_goes_when_the_residual_is_switched_back_on(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#residual=off&depth=6&step=2")))
    page.locator(WALK_NOTICE).wait_for()
    page.locator('#depth-map [data-control="residual"]').click()
    showing(page, "depth-map", "residual=on", "step=2")
    assert page.locator(WALK_NOTICE).count() == 0


@pytest.mark.parametrize("lang", LANGS)
def test_the_walkthrough_notice_is_compact_on_a_phone_and_says_all_it_says_on_a_desktop(site, open_page, lang):
    """At 390 px the notice took 231 px (ja) above the step's text: small type, a thin frame and its button as
    wide as the notice keep it under a fifth of the screen, every word of it shown and the button a finger's
    height."""
    river = catalog(lang).pgettext("scenario", "by the river bank")
    sentence = label(lang, "depth-map", "sentence", text="by the river bank", title=river)
    said, back = (shown(label(lang, "depth-map", key, scenario=sentence)) for key in ("text_note", "back_to_text"))
    for width, height in ((390, 844), (1280, 900)):
        page = ready(open_page(lesson_url(site, lang, fragment="#residual=off&depth=6&step=2"),
                               viewport={"width": width, "height": height}))
        notice = page.locator(WALK_NOTICE)
        notice.wait_for()
        button = notice.get_by_role("button")
        assert shown(notice.text_content()) == said + " " + back  # nothing left out
        assert shown(button.text_content()) == back
        for part in (notice, button):  # nothing cut off
            assert part.evaluate("e => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1")
        box, button_box = notice.bounding_box(), button.bounding_box()
        assert button_box["height"] >= 44
        if width == 390:
            assert box["height"] <= 0.2 * height, box
            assert button_box["width"] >= box["width"] - 30  # the notice's width: its label takes fewer lines


@pytest.mark.parametrize("lang", LANGS)
def test_the_prediction_link_lands_without_a_notice_and_the_next_step_brings_it(open_page, real_site, lang):
    """The lesson's 'predict, then check' link sets residual=off&depth=6 (no step: the first, the input, true in
    every state: no notice the text has not mentioned); the next step is about the residual-on state and says
    so; Back returns to the state the text describes."""
    page = ready(open_page(lesson_url(real_site, lang)))
    link = page.locator('#residual-off ~ p a[href*="residual=off&depth=6"]').first
    link.scroll_into_view_if_needed()
    link.click()
    showing(page, "depth-map", "residual=off", "depth=6", "step=1")
    assert page.locator(WALK_NOTICE).count() == 0
    page.locator('#depth-map [data-control="step-next"]').click()
    showing(page, "depth-map", "residual=off", "depth=6", "step=2")
    assert catalog(lang).pgettext("scenario", "by the river bank") in page.locator(WALK_NOTICE).text_content()
    page.go_back()  # a control replaces the entry the link added: Back leaves it
    showing(page, "depth-map", "residual=on", "step=1")
    page.wait_for_function(NO_WALK_NOTICE)


def grid(page):
    cells = page.locator("#attention tbody tr").all()
    return [[float(c.replace("\u2212", "-")) for c in row.locator("td").all_text_contents()] for row in cells]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name,residual,block", [("river-bank", True, 1), ("money-bank", True, 1),
                                                 ("river-bank", False, 3), ("money-bank", True, 2)])
def test_the_attention_view_is_the_trace(site, open_page, lang, name, residual, block):
    fragment = f"#scenario={name}&residual={'on' if residual else 'off'}&block={block}"
    page = ready(open_page(lesson_url(site, lang, fragment=fragment)))
    s = scenario(name)
    weights = s.traces["pre-on" if residual else "pre-off"].steps[2 * (block - 1)].attention
    assert np.ravel(grid(page)).tolist() == pytest.approx(weights.ravel().tolist(), abs=0.006)
    row = np.sort(weights[s.tracked])[::-1]
    summary = page.locator('#attention [data-part="summary"]').text_content()
    if row[0] - row[1] >= 0.05:  # a clear favourite is named
        top = s.tokens[int(np.argmax(weights[s.tracked]))]
        # named as a word (quoted or bare, as the catalog writes token names), with its weight
        assert re.search(rf"(?<![A-Za-z]){top}(?![A-Za-z])", summary) and num(row[0], lang) in summary, summary
    elif num(row[-1], lang) == num(row[0], lang):  # every weight the same at the precision shown
        assert summary == label(lang, "attention", "summary_equal", n=block, token="bank", weight=num(row[0], lang))
    else:
        assert summary == label(lang, "attention", "summary_even", n=block, token="bank", low=num(row[-1], lang),
                                high=num(row[0], lang))


def test_bank_looks_at_river_then_money_in_block_1(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#block=1")))
    bank = grid(page)[3]
    assert int(np.argmax(bank)) == 2  # river
    page.locator('#attention input[value="money-bank"]').check()
    showing(page, "attention", "scenario=money-bank")
    assert int(np.argmax(grid(page)[3])) == 0  # money


# In the task that handles the change, before any frame is painted: what each part of the page shows.
SHOWN_AFTER_CHANGE = """(radio) => {
  radio.click();
  const chart = document.querySelector('#depth-map [data-chart="main"] [data-part="chart"]');
  const visible = e => !!e && getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden';
  const svg = chart.querySelector('.chart-svg-wide');
  return { summary: document.querySelector('#attention [data-part="summary"]').textContent,
           bank: [...document.querySelectorAll('#attention tbody tr.tracked td')].map(td => td.textContent),
           twin: document.querySelector('#depth-map-twin caption').textContent,
           svg: visible(svg) ? [...svg.querySelectorAll('.bar-ffn-on [data-y]')].map(e => +e.getAttribute('data-y')) : null,
           plotly: visible(chart.querySelector('.plot')) ? chart.getAttribute('data-plotted') : null,
           state: chart.getAttribute('data-state') }; }"""


def test_a_new_scenario_shows_everywhere_at_once_never_beside_the_old_one(site, open_page):
    """The attention grid, its summary, the text twin and the chart change in the task of the change event:
    no frame shows the new summary beside the old grid, or Plotly's drawing of the old state over the new SVG."""
    page = ready(open_page(lesson_url(site, "zh", fragment="#block=1")))
    plotted(page)  # Plotly has drawn river-bank: its drawing is what could be left in front
    shown = page.evaluate(SHOWN_AFTER_CHANGE, page.locator('#attention input[value="money-bank"]').element_handle())
    s = scenario("money-bank")
    assert re.search(r"(?<![A-Za-z])money(?![A-Za-z])", shown["summary"])  # the new favourite, named (bare or quoted)
    assert [float(c) for c in shown["bank"]] == pytest.approx(s.traces["pre-on"].steps[0].attention[s.tracked], abs=0.006)
    assert catalog("zh").pgettext("scenario", "money in the bank") in shown["twin"]
    assert shown["plotly"] in (None, shown["state"])  # Plotly's old drawing is not in front of the new state
    assert shown["svg"] == pytest.approx([e[1] for e in bars(s.traces["pre-on"], s.tracked, 3, True)[1::2]], abs=5e-3)


FIGURES_SHOWN = """() => [...document.querySelectorAll('[data-figure]')].map(f => ({
  id: f.id, state: f.getAttribute('data-state'), summary: [...f.querySelectorAll('[data-part="summary"]')].map(p => p.textContent).join('|'),
  caption: (f.querySelector('[data-part="caption"]') || {}).textContent || null,
  twins: [...f.querySelectorAll('[data-part="twins"] table, [data-part="grid"] table')].map(t => t.textContent),
  svg: [...f.querySelectorAll('[data-part="chart"] .chart-svg')].map(s => s.outerHTML) }))"""


@pytest.mark.parametrize("lang", LANGS)
def test_a_scenario_picked_before_its_views_arrive_shows_whole_when_they_do(site, open_page, lang):
    """The other scenarios' views come in a script of their own (assets/data/…), here held back, from
    file:// with every other request blocked: a pick, and a toggle after it, wait; meanwhile every figure
    shows the state it showed, whole; when the script arrives, every figure shows the last state asked
    for, exactly as a page opened at that state does."""
    page = open_page("about:blank")
    held = []
    page.route("**/assets/data/*.js", lambda route: held.append(route))
    page.goto(lesson_url(site, lang))
    page.wait_for_load_state("load")
    before = page.evaluate(FIGURES_SHOWN)
    for _ in range(500):  # the script is asked for when the browser is idle after the load
        if held:
            break
        page.wait_for_timeout(10)
    assert len(held) == 1 and page.evaluate("() => !self.lessonMoreData")
    page.locator('#depth-map input[value="money-bank"]').check()
    page.locator('#depth-map [data-control="residual"]').click()
    page.wait_for_timeout(100)
    assert "scenario=money-bank" in page.url and "residual=off" in page.url  # the address says what was asked for
    assert page.evaluate(FIGURES_SHOWN) == before  # no figure shows half of the new state, or a state before it
    held[0].fallback()
    wanted = ("scenario=money-bank", "residual=off")
    for figure in ("depth-map", "attention", "meaning-path"):
        if page.locator(f"#{figure}").count():
            showing(page, figure, *wanted)
    raced = page.evaluate(FIGURES_SHOWN)
    direct = open_page(lesson_url(site, lang, fragment="#" + page.url.split("#")[1]))
    for figure in ("depth-map", "attention"):
        showing(direct, figure, *wanted)
    assert raced == direct.evaluate(FIGURES_SHOWN)
    assert raced != before and catalog(lang).pgettext("scenario", "money in the bank") in raced[0]["twins"][0]
    assert page.locator('#attention input[value="money-bank"]').is_checked()
    assert page.evaluate("document.querySelectorAll('script[src*=\"assets/data/\"]').length") == 1


@pytest.mark.parametrize("lang", LANGS)
def test_no_favourite_is_framed_when_the_weights_are_about_even(site, open_page, lang):
    """Block 3: bank's weights are 0.25, 0.26, 0.25, 0.24: noise, not a preference; block 1: river, 0.34."""
    page = ready(open_page(lesson_url(site, lang, fragment="#block=3")))
    assert page.locator("#attention tbody tr.tracked td.top").count() == 0
    weights = scenario().traces["pre-on"].steps[4].attention[3]
    assert page.locator('#attention [data-part="summary"]').text_content() == label(
        lang, "attention", "summary_even", n=3, token="bank", low=num(weights.min(), lang), high=num(weights.max(), lang))
    page.locator('#attention [data-control="block"]').focus()
    page.keyboard.press("Home")
    page.wait_for_function("() => document.querySelectorAll('#attention tbody tr.tracked td.top').length === 1")
    assert page.locator("#attention tbody tr.tracked td.top").text_content() == num(0.335, lang)


@pytest.mark.parametrize("lang", LANGS)
def test_rows_that_read_alike_are_framed_alike(site, open_page, lang):
    """money in the bank, block 2: "in" and "the" both read 0.21 0.25 0.23 0.30, and both frame 0.30."""
    page = ready(open_page(lesson_url(site, lang, fragment="#scenario=money-bank&block=2")))
    page.wait_for_function("() => document.querySelector('#attention tbody tr:nth-child(2) th').textContent === 'in'")
    rows = page.evaluate("""() => [...document.querySelectorAll('#attention tbody tr')].map(tr =>
      [tr.querySelector('th').textContent, [...tr.querySelectorAll('td')].map(td => [td.textContent, td.classList.contains('top')])])""")
    rows = dict(rows)
    assert rows["in"] == rows["the"] and [text for text, top in rows["in"] if top] == [num(0.30, lang)]


@pytest.mark.parametrize("lang", LANGS)
def test_the_attention_shading_tells_small_weights_apart_and_has_a_scale(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#block=1")))
    colours = page.evaluate("""() => [...document.querySelectorAll('#attention tbody td')].map(td =>
      [td.textContent, getComputedStyle(td).backgroundColor])""")

    def luminance(css):
        c = [v / 255 for v in rgb(css)]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    by_text = {text: luminance(css) for text, css in colours}
    low, high = by_text[num(0.18, lang)], by_text[num(0.34, lang)]
    assert (low + 0.05) / (high + 0.05) > 1.3  # clearly different shades, not 18 % and 34 % of one colour
    ends = page.locator("#attention .attention-scale .scale-ends span").all_text_contents()
    assert ends[0] == num(0, lang, 1) and num(0.5, lang, 1) in ends[-1]


def test_walkthrough_steps_about_a_block_select_it_in_the_attention_view(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#step=3&block=5")))
    page.locator('[data-control="step-next"]').click()  # step 4 is block 2
    assert page.locator('#attention [data-control="block"]').input_value() == "2"
    assert "block=2" in page.url


@pytest.mark.parametrize("lang", LANGS)
def test_a_block_past_the_depth_shows_its_own_weights_and_leaves_the_depth_alone(site, open_page, lang):
    """What the lesson says of block 5 at depth 3: the table shows block 5, the depth stays 3."""
    page = ready(open_page(lesson_url(site, lang, fragment="#depth=3&block=1")))
    page.locator('#attention [data-control="block"]').fill("5")
    weights = scenario().traces["pre-on"].steps[2 * (5 - 1)].attention
    assert np.ravel(grid(page)).tolist() == pytest.approx(weights.ravel().tolist(), abs=0.006)
    caption = page.locator("#attention-grid-caption").text_content()
    assert [c for c in caption if c.isdigit()] == ["5"], caption  # block 5's table (the sentence has no digits)
    assert {control.input_value() for control in page.locator('[data-control="depth"]').all()} == {"3"}
    assert "depth=3" in page.locator("#depth-map").get_attribute("data-state") and "block=5" in page.url


# ---- Other pages and modes --------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_norm_compare_plots_the_trace(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, "ffn-residual")))
    s = scenario()
    drawn = plotted(page, figure="norm-compare")
    for key, meta in (("pre-on", "pre"), ("post-on", "post")):
        lengths = np.linalg.norm(s.traces[key].block_outputs()[:, s.tracked], axis=-1)
        assert drawn[meta]["y"] == pytest.approx(lengths, abs=5e-3)


@pytest.mark.parametrize("lang", LANGS)
def test_the_norm_compare_legend_draws_each_line_with_its_points(site, open_page, lang):
    """The lesson tells the two lines apart by their points (pre-norm circles, post-norm squares): the legend
    shows each line with the point Plotly and the SVG draw on it, not the line alone."""
    page = ready(open_page(lesson_url(site, lang, "ffn-residual")))
    drawn = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#norm-compare .chart-legend .swatch')].map(s => {
      const dot = getComputedStyle(s, '::after'), rect = s.getBoundingClientRect();
      return [s.style.getPropertyValue('--c').match(/--mark-([\\w-]+)/)[1],
              [dot.content, dot.borderRadius, parseFloat(dot.width) > 4, parseFloat(dot.width) < rect.width]]; }))""")
    assert drawn == {"pre": ['""', "50%", True, True], "post": ['""', "0px", True, True]}


def test_no_mode_bar_and_no_cloud_buttons(site, open_page):
    page = ready(open_page(lesson_url(site, "zh")))
    assert page.locator(".modebar").count() == 0
    assert page.locator("text=Edit in Chart Studio").count() == 0


def test_entry_page_goes_to_the_readers_language(site, open_page):
    page = open_page((site / "index.html").as_uri(), locale="ja-JP")
    page.wait_for_url("**/ja/index.html")
    assert page.locator("html").get_attribute("lang") == "ja"


def test_site_works_under_a_sub_path(site, open_page):
    handler = partial(SimpleHTTPRequestHandler, directory=str(site.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.log_message = lambda *a: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/{site.name}/"
    try:
        for path, figure in (("zh/transformer-block.html", "depth-map"), ("ja/ffn-residual.html", "norm-compare")):
            page = ready(open_page(base + path, allowed_prefix=base))
            assert plotted(page, figure=figure)
            page.locator('a[rel="next"], a[rel="prev"]').first.click()
            page.wait_for_load_state()
            assert page.url.startswith(base)
    finally:
        server.shutdown()


AXE_STATES = [("zh", "transformer-block", ""), ("ja", "transformer-block", ""),
              ("zh", "transformer-block", "#scenario=money-bank&depth=6&residual=off&step=2&block=2"),
              ("ja", "transformer-block", "#scenario=money-bank&depth=6&residual=off&step=6&block=3"),
              ("zh", "ffn-residual", ""), ("ja", "ffn-residual", "")]


@pytest.mark.parametrize("lang,slug,fragment", AXE_STATES)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations(site, open_page, lang, slug, fragment, scheme):
    from axe_playwright_python.sync_playwright import Axe

    page = ready(open_page(lesson_url(site, lang, slug, fragment), color_scheme=scheme))
    page.locator('[data-control="twin"]').first.click()  # the numbers table, open
    results = Axe().run(page, options={"preload": False, "resultTypes": ["violations"]})
    assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", ["transformer-block", "ffn-residual"])
def test_axe_finds_no_violations_on_the_real_lessons(real_site, open_page, lang, slug):
    """The real lessons hold more than the fixture: several code blocks, the reproduce section, every figure."""
    from axe_playwright_python.sync_playwright import Axe

    page = ready(open_page(lesson_url(real_site, lang, slug)))
    results = Axe().run(page, options={"preload": False, "resultTypes": ["violations"]})
    assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize("page_path", ["index.html", "zh/index.html", "ja/index.html", "404.html"])
def test_axe_finds_no_violations_on_other_pages(site, open_page, page_path):
    from axe_playwright_python.sync_playwright import Axe

    page = open_page((site / page_path).as_uri() + "?choose")
    results = Axe().run(page, options={"preload": False, "resultTypes": ["violations"]})
    assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize("lang", LANGS)
def test_no_table_header_breaks_one_character_per_line_on_a_phone(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#depth=6&step=6"), viewport={"width": 390, "height": 900}))
    page.locator('#depth-map [data-control="twin"]').click()
    heights = page.evaluate("""() => [...document.querySelectorAll('#depth-map thead th, #depth-map tbody th')]
      .filter(th => th.getClientRects().length).map(th => {
        const style = getComputedStyle(th), line = parseFloat(style.lineHeight) || 1.75 * parseFloat(style.fontSize);
        return [th.textContent.trim(), th.getBoundingClientRect().height - parseFloat(style.paddingTop)
                - parseFloat(style.paddingBottom), line]; })""")
    assert heights
    for text, height, line in heights:
        lines = round(height / line)
        assert lines <= max(2, len(text) // 4), (text, lines)
    title = page.locator("h1")
    assert title.bounding_box()["height"] < 2.5 * float(page.evaluate("parseFloat(getComputedStyle(document.querySelector('h1')).lineHeight)"))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("residual", ["on", "off"])
def test_screenshots_are_saved_as_artefacts(site, open_page, lang, residual):
    ARTIFACTS.mkdir(exist_ok=True)
    for width, name in ((1000, "desktop"), (390, "phone")):
        page = ready(open_page(lesson_url(site, lang, fragment=f"#depth=6&residual={residual}&step=6"),
                               viewport={"width": width, "height": 900}))
        path = ARTIFACTS / f"{lang}-transformer-block-residual-{residual}-{name}.png"
        page.locator("#depth-map").screenshot(path=str(path))
        assert path.stat().st_size > 10_000


def test_chart_follows_the_window_width(site, open_page):
    page = ready(open_page(lesson_url(site, "ja")))
    wide = page.locator("#depth-map .plot .main-svg").first.bounding_box()["width"]
    page.set_viewport_size({"width": 400, "height": 900})
    page.wait_for_function(f"() => document.querySelector('#depth-map .plot .main-svg').getBoundingClientRect().width < {wide} - 200")
    assert layout(page)["xaxis"]["ticktext"][1:] == ["1", "2", "3"]


def test_dark_mode_colours_the_page_and_the_chart(site, open_page):
    page = ready(open_page(lesson_url(site, "ja"), color_scheme="dark"))
    background = page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()")
    assert background == "#0d1117"
    assert layout(page)["paper_bgcolor"] == background
    page.emulate_media(color_scheme="light")
    page.wait_for_function("() => document.querySelector('#depth-map .plot').layout.paper_bgcolor === '#ffffff'")


def test_chart_does_not_trap_touch_scrolling(site, open_page):
    page = ready(open_page(lesson_url(site, "zh"), has_touch=True, is_mobile=True, viewport={"width": 390, "height": 800}))
    assert layout(page)["dragmode"] is False
    assert layout(page)["xaxis"]["fixedrange"] and layout(page)["yaxis"]["fixedrange"]
    chart = page.locator('#depth-map [data-chart="main"] [data-part="chart"]')
    assert chart.evaluate("e => getComputedStyle(e).touchAction") == "pan-y"
    chart.scroll_into_view_if_needed()
    before = page.evaluate("window.scrollY")
    page.mouse.wheel(0, 400)  # a scroll gesture over the chart scrolls the page
    page.wait_for_function(f"() => window.scrollY > {before}")


def test_focus_is_visible_on_every_control(site, open_page):
    page = ready(open_page(lesson_url(site, "ja")))
    for selector in ('#depth-map [data-control="residual"]', '#depth-map [data-control="depth"]',
                     '#depth-map [data-control="step-next"]', '#depth-map [data-control="twin"]',
                     '#depth-map input[value="money-bank"]', ".language-switcher a"):
        page.locator(selector).focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid", selector


FOCUSED = """() => { const e = document.activeElement, r = e.getBoundingClientRect();
  // seen: a box of its own, drawn, and not cut down to nothing by an ancestor that clips (a visually hidden box)
  let seen = r.width >= 4 && r.height >= 4 && e.checkVisibility({ checkVisibilityCSS: true, opacityProperty: true });
  for (let a = e.parentElement; seen && a; a = a.parentElement) {
    const st = getComputedStyle(a), b = a.getBoundingClientRect();
    if (st.overflowX !== 'visible' || st.overflowY !== 'visible' || st.clip !== 'auto') {
      seen = Math.min(r.right, b.right) - Math.max(r.left, b.left) >= 4 && Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top) >= 4;
    }
  }
  return [e.tagName, e.className || '', e.getAttribute('data-control') || '', seen, !!e.closest('.twin:not(.open) .twin-tables')]; }"""


def tab_through(page, limit=250):
    """Press Tab from the top of the page until the focus leaves it; every element that had the focus."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    stops = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED)
        if stop[0] == "BODY" or (stops and stop == stops[0] and len(stops) > 3):
            break
        stops.append(stop)
    return stops


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
def test_every_tab_stop_is_visible_and_a_collapsed_table_is_none(site, open_page, lang, width):
    """Keyboard only: the focus never lands on something the reader cannot see (a collapsed numbers table's
    scroll box was one); the open table is still reachable, to scroll it."""
    page = ready(open_page(lesson_url(site, lang), viewport={"width": width, "height": 900}))
    stops = tab_through(page)
    assert len(stops) > 10
    hidden = [s for s in stops if not s[3] or s[4]]
    assert hidden == [], hidden
    assert not any("twin-table" in s[1] for s in stops)  # every numbers table is collapsed
    page.locator('#depth-map [data-control="twin"]').click()
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED)[1].startswith("table-scroll twin-table") and page.evaluate(FOCUSED)[3]


def test_the_prediction_link_sets_the_state_it_asks_about(site, open_page, real_site):
    page = ready(open_page(lesson_url(real_site, "zh")))
    link = page.locator('#residual-off ~ p a[href*="residual=off&depth=6"]').first
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_function("() => document.querySelector('#depth-map [data-control=residual]').getAttribute('aria-pressed') === 'false'")
    assert page.locator('#depth-map [data-control="depth"]').input_value() == "6"


SVG_SHAPES = """([sel, size]) => [...document.querySelectorAll(sel + ' .chart-svg-' + size + ' *')].map(e => [e.tagName,
  e.getAttribute('class') || '', ...['x', 'y', 'x1', 'y1', 'width', 'height', 'd', 'points', 'transform']
  .map(a => e.getAttribute(a) || ''), e.children.length ? '' : e.textContent])"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("chart", ["main", "spread"])
@pytest.mark.parametrize("size", ["wide", "narrow"])
def test_the_script_draws_the_same_svg_as_the_build(site, open_page, lang, chart, size):
    """Before Plotly has loaded, lesson.js draws a state as SVG from the same description the builder drew
    the first paint from: the same shapes at the same coordinates, the same text (hover titles only in the
    wide drawing, in both)."""
    page = open_page(lesson_url(site, lang), withhold=("plotly-basic.min.js",))
    selector = f'#depth-map [data-chart="{chart}"]'
    built = page.evaluate(SVG_SHAPES, [selector, size])
    assert any(shape[0] == "title" for shape in built) == (size == "wide"), built
    toggle = page.locator('#depth-map [data-control="residual"]')
    shows = "(r) => (document.querySelector('#depth-map').getAttribute('data-state') || '').split('&').includes('residual=' + r)"
    toggle.click()
    page.wait_for_function(shows, arg="off")  # the residual-off views may come in the page's second script
    assert page.evaluate(SVG_SHAPES, [selector, size]) != built or chart == "spread"  # the other state, drawn by the script
    toggle.click()
    page.wait_for_function(shows, arg="on")
    drawn = page.evaluate(SVG_SHAPES, [selector, size])
    assert drawn == built


# ---- Phones: every column on screen, the chart in view while stepping ------------------------------

TABLE_WIDTHS = """() => [...document.querySelectorAll('[data-figure] table')].filter(t => t.getClientRects().length).map(t => {
  const box = t.closest('.table-scroll') || t;
  return [t.querySelector('caption') ? t.querySelector('caption').textContent.slice(0, 40) : t.className,
          box.scrollWidth, box.clientWidth, t.scrollWidth, t.clientWidth]; })"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fragment", ["#depth=6&step=6", "#depth=6&step=2&residual=off&block=3",
                                      "#scenario=money-bank&depth=6&step=4&block=1"])
def test_every_figure_table_shows_all_its_columns_on_a_phone(site, open_page, lang, fragment):
    """The attention grid, the walkthrough's step tables and the text twins fit 390 px: nothing to scroll."""
    for slug in ("transformer-block", "ffn-residual"):
        page = ready(open_page(lesson_url(site, lang, slug, fragment), viewport={"width": 390, "height": 844}))
        for button in page.locator('[data-control="twin"]').all():
            button.click()  # the tables are drawn with the state (as the page opened), the toggle shows them at once
        tables = page.evaluate(TABLE_WIDTHS)
        assert len(tables) >= (4 if slug == "transformer-block" else 1)
        for caption, scroll, client, table_scroll, table_client in tables:
            assert scroll <= client and table_scroll <= table_client, (caption, scroll, client)


@pytest.mark.parametrize("lang", LANGS)
def test_stepping_on_a_phone_keeps_the_outlined_mark_on_screen(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#depth=6"), viewport={"width": 390, "height": 844}))
    nxt = page.locator('#depth-map [data-control="step-next"]')
    for step in range(2, 7):
        # the reader has scrolled so that the buttons sit at the bottom of the screen
        page.evaluate("() => { const r = document.querySelector('#depth-map [data-control=step-next]').getBoundingClientRect();"
                      " window.scrollBy(0, r.bottom - innerHeight + 8); }")
        nxt.click()
        page.wait_for_function(f"() => document.querySelector('#depth-map [data-part=step-counter]').textContent.includes('{step}')")
        plotted(page)
        box = page.evaluate("""() => { const h = [...document.querySelectorAll('#depth-map [data-chart=main] .plot .scatterlayer .trace')]
          .find(t => t.__data__[0].trace.meta === 'highlight'); const r = h.getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }""")
        assert 0 <= box[0] and box[1] <= box[2], (step, box)
        assert nxt.is_disabled() or nxt.bounding_box()["y"] + nxt.bounding_box()["height"] <= 844  # and the button too


# ---- Marks and their legend: one colour, one pattern, in both drawings --------------------------------

MARK_COLOURS = """(sel) => {
  const root = document.querySelector(sel), out = { legend: {}, svg: {}, plotly: {} };
  const style = e => getComputedStyle(e);
  root.querySelectorAll('.chart-legend .swatch').forEach(s => {
    const c = s.style.getPropertyValue('--c').match(/--mark-([\\w-]+)/)[1], st = style(s);
    out.legend[c] = { background: st.backgroundColor, image: st.backgroundImage, border: st.borderTopColor, kind: s.className };
  });
  const svg = [...root.querySelectorAll('.chart-svg')].find(s => style(s).display !== 'none') || root.querySelector('.chart-svg-wide');
  svg.querySelectorAll('[data-mark]').forEach(g => {
    const c = g.getAttribute('data-mark').split(' ')[0], rect = g.querySelector('rect:not(.fill)'), point = g.querySelector('.point'),
          line = g.querySelector('polyline, .edge'), hatch = g.querySelector('.hatch');
    out.svg[c] = { fill: rect ? style(rect).fill : point ? style(point).fill : null, stroke: line ? style(line).stroke : null,
                   hatch: hatch ? style(hatch).stroke : null, dash: line ? style(line).strokeDasharray : null };
  });
  const plot = root.querySelector('.plot');
  if (plot) plot.querySelectorAll('.trace').forEach(t => {
    const trace = t.__data__ && t.__data__[0] && t.__data__[0].trace;
    if (!trace || !trace.meta || trace.meta === 'highlight' || trace.mode === 'text') return;
    const c = trace.meta.split(' ')[0], bar = t.querySelector('.point path, path.point'), line = t.querySelector('.js-line');
    const entry = out.plotly[c] = { fill: null, stroke: line ? style(line).stroke : null, hatch: null,
                                    dash: line ? style(line).strokeDasharray : null };
    if (trace.type === 'bar' && bar) {
      const fill = style(bar).fill, id = (fill.match(/url\\("?#([^")]+)/) || [])[1];
      if (id) { const p = plot.querySelector('pattern[id="' + id + '"]');
                entry.fill = style(p.querySelector('rect')).fill; entry.hatch = style(p.querySelector('path')).stroke; }
      else entry.fill = fill;
    } else if (t.querySelector('.points path')) {  // an open marker (a ring) is its stroke
      const point = style(t.querySelector('.points path'));
      entry.fill = point.fill === 'none' ? point.stroke : point.fill;
    }
  });
  out.bg = style(document.documentElement).getPropertyValue('--bg').trim();
  return out; }"""


def rgb(css):
    """A computed colour (rgb(…) or color(srgb …)) as a 0–255 triple."""
    inside = css[css.index("(") + 1:css.index(")")].replace("srgb", "").replace(",", " ").split()
    values = [float(v.rstrip("/")) for v in inside if v != "/"][:3]
    return tuple(round(v * 255) if css.startswith("color(") else round(v) for v in values)


def check_marks_against_legend(drawn: dict, legend: dict, bg: str):
    """Each legend entry's swatch shows the colour, hatching and dashes its mark is drawn with."""
    hexbg = tuple(int(bg[i:i + 2], 16) for i in (1, 3, 5))
    for css, swatch in legend.items():
        mark = drawn[css]
        colour = mark["fill"] or mark["stroke"]
        if "swatch-band" in swatch["kind"]:
            assert rgb(mark["stroke"]) == rgb(swatch["border"]), css
        elif "swatch-outline" in swatch["kind"]:  # a dashed edge, as the rectangle it names
            assert rgb(mark["stroke"]) == rgb(swatch["border"]) and mark["dash"] not in (None, "none"), css
        elif "swatch-hatch" in swatch["kind"]:
            assert rgb(colour) != (0, 0, 0) and f"rgb{rgb(colour)}".replace(" ", "") in swatch["image"].replace(" ", ""), css
            assert mark["hatch"] and rgb(mark["hatch"]) == hexbg, css  # stripes of the background, as the swatch
        elif "swatch-dash" in swatch["kind"]:
            assert f"rgb{rgb(colour)}".replace(" ", "") in swatch["image"].replace(" ", ""), css
            assert mark["dash"] not in (None, "none"), css
        else:
            assert rgb(colour) == rgb(swatch["background"]), css
            assert not mark["hatch"], css


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("plotly", [True, False])
def test_every_mark_has_the_colour_and_pattern_of_its_legend_swatch(site, open_page, lang, scheme, plotly):
    """In the build-time SVG (first paint, print, no Plotly), in the SVG the script draws, and in Plotly's."""
    for slug, figures in (("transformer-block", (("depth-map", ("main", "spread")), ("meaning-path", ("main",)))),
                          ("ffn-residual", (("norm-compare", ("main",)),))):
        page = open_page(lesson_url(site, lang, slug), color_scheme=scheme, withhold=() if plotly else ("plotly-basic.min.js",))
        if plotly:
            ready(page)
        else:  # first the drawing the build made, as on paper and at first paint
            for figure, charts in figures:
                for chart in charts:
                    found = page.evaluate(MARK_COLOURS, f'#{figure} [data-chart="{chart}"]')
                    check_marks_against_legend(found["svg"], found["legend"], found["bg"])
        for fragment in ("#residual=on&depth=4", "#residual=off&depth=6"):
            for figure, charts in figures:
                for chart in charts:
                    if slug == "ffn-residual":
                        fragment = fragment.split("&")[1]  # its only state is the depth
                    show_state(page, figure, chart, fragment if fragment.startswith("#") else "#" + fragment, plotly)
                    found = page.evaluate(MARK_COLOURS, f'#{figure} [data-chart="{chart}"]')
                    assert found["legend"]
                    check_marks_against_legend(found["plotly" if plotly else "svg"], found["legend"], found["bg"])


# ---- Labels clear of marks and of each other ---------------------------------------------------------

LABEL_GEOMETRY = """(sel) => {
  const root = document.querySelector(sel);
  const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const sample = path => { const n = path.getTotalLength(), m = path.getScreenCTM(), out = [];
    for (let s = 0; s <= n; s += 2) { const p = path.getPointAtLength(s); out.push([m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f]); }
    return out; };
  const plot = root.querySelector('.chart.plotted .plot');
  if (plot) {
    const traces = [...plot.querySelectorAll('.trace')].filter(t => t.__data__ && t.__data__[0].trace.meta !== 'highlight');
    return { labels: [...plot.querySelectorAll('.annotation-text')].map(rect),
             boxes: traces.flatMap(t => [...t.querySelectorAll('.point, .points path, .js-fill')].map(rect)),
             lines: traces.flatMap(t => [...t.querySelectorAll('.js-line')].map(sample)) };
  }
  const svg = [...root.querySelectorAll('.chart-svg')].find(s => getComputedStyle(s).display !== 'none');
  return { labels: [...svg.querySelectorAll('text.value')].map(rect),
           boxes: [...svg.querySelectorAll('.mark rect, .mark .point')].map(rect),
           lines: [...svg.querySelectorAll('.mark polyline, .mark .edge')].map(sample) };
}"""


def check_labels_clear(geometry, where):
    labels, boxes, lines = geometry["labels"], geometry["boxes"], geometry["lines"]
    assert labels, where

    def overlap(a, b, room=0.5):
        return min(a[2], b[2]) - max(a[0], b[0]) > room and min(a[3], b[3]) - max(a[1], b[1]) > room

    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            assert not overlap(a, b), (where, "labels", a, b)
        for b in boxes:
            assert not overlap(a, b), (where, "mark", a, b)
        for line in lines:
            assert not any(a[0] + 1 < x < a[2] - 1 and a[1] + 1 < y < a[3] - 1 for x, y in line), (where, "line", a)


def show_state(page, figure, chart, fragment, plotly):
    """Move an open page to another state (as a typed address would) and wait until the chart shows it."""
    page.evaluate("(f) => { location.hash = f; }", fragment)
    box = f'#{figure} [data-chart="{chart}"] [data-part="chart"]'
    wanted = [part for part in fragment.lstrip("#").split("&")]
    page.wait_for_function("([sel, wanted]) => { const s = document.querySelector(sel).getAttribute('data-state') || '';"
                           " return wanted.every(w => s.split('&').includes(w)); }", arg=[box, wanted])
    page.locator(f'#{figure} [data-chart="{chart}"]').scroll_into_view_if_needed()
    if plotly:
        plotted(page, chart, figure)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("plotly", [True, False])
def test_value_labels_overlap_no_mark_and_no_other_label(site, open_page, lang, width, plotly):
    cases = {"transformer-block": [("depth-map", "main", f"#residual={r}&depth={d}") for r in ("on", "off") for d in (1, 3, 6)]
             + [("depth-map", "spread", f"#residual={r}&depth=6") for r in ("on", "off")]
             + [("meaning-path", "main", f"#scenario={n}&residual=on&depth=6") for n in ("river-bank", "money-bank")]
             + [("meaning-path", "zoom", f"#scenario={n}&residual=off&depth={d}")
                for n in ("river-bank", "money-bank") for d in (2, 6)],
             "ffn-residual": [("norm-compare", "main", f"#depth={d}") for d in (1, 6)]}
    for slug, states in cases.items():
        page = open_page(lesson_url(site, lang, slug), viewport={"width": width, "height": 900},
                         withhold=() if plotly else ("plotly-basic.min.js",))
        if plotly:
            ready(page)
        for figure, chart, fragment in states:
            show_state(page, figure, chart, fragment, plotly)
            check_labels_clear(page.evaluate(LABEL_GEOMETRY, f'#{figure} [data-chart="{chart}"]'), (slug, chart, fragment))


# ---- The path in meaning space -------------------------------------------------------------------------

TICK_LABELS = """([sel, plotly]) => { const root = document.querySelector(sel);
  const box = (plotly ? root.querySelector('.plot') : [...root.querySelectorAll('.chart-svg')].find(s => s.getBoundingClientRect().width > 0)).getBoundingClientRect();
  return [...root.querySelectorAll(plotly ? '.plot .xtick text, .plot .ytick text' : '.chart-svg text.tick')]
    .filter(t => plotly || t.closest('.chart-svg').getBoundingClientRect().width > 0)
    .map(t => { const r = t.getBoundingClientRect();
      return { text: t.textContent, drawn: getComputedStyle(t).display !== 'none' && r.width > 0,
               inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 }; }); }"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("plotly", [True, False])
def test_every_tick_of_the_meaning_path_and_its_close_up_is_drawn_inside_the_chart(real_site, open_page, lang, width, plotly):
    """A tick on the axis's right end (the close-up's 0.6) keeps its label: Plotly drops one that passes its box."""
    page = open_page(lesson_url(real_site, lang), viewport={"width": width, "height": 844},
                     withhold=() if plotly else ("plotly-basic.min.js",))
    if plotly:
        ready(page)
    for chart, fragment in (("main", "#scenario=river-bank&residual=on&depth=3"), ("main", "#scenario=money-bank&residual=off&depth=6"),
                            ("zoom", "#scenario=river-bank&residual=off&depth=3")):
        show_state(page, "meaning-path", chart, fragment, plotly)
        ticks = page.evaluate(TICK_LABELS, [f'#meaning-path [data-chart="{chart}"]', plotly])
        assert len(ticks) >= 6 and all(t["drawn"] and t["inside"] for t in ticks), (chart, fragment, ticks)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("residual", ["on", "off"])
def test_a_link_to_the_meaning_path_opens_on_its_drawn_path(real_site, open_page, lang, residual):
    """A reader who follows a link into the figure finds the path drawn, first as SVG, then by Plotly."""
    page = open_page(lesson_url(real_site, lang, fragment=f"#figure=meaning-path&scenario=river-bank&residual={residual}&depth=3"),
                     viewport={"width": 390, "height": 844})
    expected = path_of("river-bank", residual == "on", 3)
    chart = "zoom" if residual == "off" else "main"
    drawn = plotted(page, chart, "meaning-path")
    plot = page.locator(f'#meaning-path [data-chart="{chart}"] .plot')
    assert plot.is_visible() and plot.bounding_box()["height"] > 150
    assert page.locator('#meaning-path [data-control="residual"]').bounding_box()["y"] < 844  # the link brought the figure into view
    assert drawn["path-picked"]["x"] == pytest.approx(expected[:, 0], abs=5e-3)
    assert drawn["path-picked"]["y"] == pytest.approx(expected[:, 1], abs=5e-3)


def path_of(name, residual, depth):
    """The tracked word's (geography, finance) at the input and after each block, from the trace."""
    s = scenario(name)
    trace = s.traces["pre-on" if residual else "pre-off"]
    return np.vstack([trace.x0[s.tracked][None], trace.block_outputs()[:depth, s.tracked]])[:, :2]


@pytest.mark.parametrize("lang", LANGS)
def test_the_meaning_path_draws_one_path_per_sentence_and_highlights_the_picked_one(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    page.locator("#meaning-path").scroll_into_view_if_needed()
    drawn = plotted(page, figure="meaning-path")
    assert drawn["path-picked"]["x"] == pytest.approx(path_of("river-bank", True, 3)[:, 0], abs=5e-3)
    assert drawn["path-other"]["y"] == pytest.approx(path_of("money-bank", True, 3)[:, 1], abs=5e-3)
    assert drawn["value"]["text"] == ["x₀", "1", "2", "3"]  # which block each point of the picked path is after
    legend = [shown(t) for t in page.locator('#meaning-path .chart-legend li').all_text_contents()]
    river, reordered, money = (catalog(lang).pgettext("scenario", t) for t in ("by the river bank", "bank by the river", "money in the bank"))
    assert river in legend[0] and reordered in legend[0] and money in legend[1]  # the reordered sentence shares its path
    page.locator('#meaning-path input[value="money-bank"]').focus()
    page.keyboard.press("ArrowRight")  # from the keyboard, in the figure's own picker
    page.keyboard.press("ArrowLeft")
    page.locator('#meaning-path input[value="money-bank"]').check()
    drawn = plotted(page, figure="meaning-path")
    assert drawn["path-picked"]["y"] == pytest.approx(path_of("money-bank", True, 3)[:, 1], abs=5e-3)
    assert drawn["path-other"]["x"] == pytest.approx(path_of("river-bank", True, 3)[:, 0], abs=5e-3)
    assert page.locator('#depth-map input[value="money-bank"]').is_checked()  # one state for every figure


@pytest.mark.parametrize("lang", LANGS)
def test_the_meaning_path_follows_the_residual_and_the_depth(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    page.locator("#meaning-path").scroll_into_view_if_needed()
    axes = {tuple(layout(page, figure="meaning-path")["xaxis"]["range"])}
    page.locator('#meaning-path [data-control="residual"]').click()
    page.locator('#meaning-path [data-control="depth"]').focus()
    page.keyboard.press("End")
    drawn = plotted(page, figure="meaning-path")
    off = path_of("river-bank", False, 6)
    assert drawn["path-picked"]["x"] == pytest.approx(off[:, 0], abs=5e-3) and len(drawn["path-picked"]["y"]) == 7
    assert drawn["path-other"]["y"][-1] == pytest.approx(off[-1, 1], abs=5e-3)  # both sentences end at one point
    axes.add(tuple(layout(page, figure="meaning-path")["xaxis"]["range"]))
    assert len(axes) == 1  # the same axes in every state
    assert page.locator('#depth-map [data-control="residual"]').get_attribute("aria-pressed") == "false"
    summary = page.locator('#meaning-path [data-part="status"]').text_content()
    assert num(off[-1, 0], lang, 2) in summary and num(off[-1, 1], lang, 2) in summary  # as the table prints them


@pytest.mark.parametrize("lang", LANGS)
def test_the_walkthrough_outlines_the_point_of_the_meaning_path_it_is_about(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#step=1")))
    page.locator("#meaning-path").scroll_into_view_if_needed()
    points = path_of("river-bank", True, 3)
    assert outline(page, "meaning-path")["x"] == pytest.approx([points[0, 0]], abs=5e-3)  # x₀
    page.locator('#depth-map [data-control="step-next"]').click()  # step 2: the stream after block 1's attention
    page.locator("#meaning-path").scroll_into_view_if_needed()
    s = scenario()
    halfway = s.traces["pre-on"].steps[0].after[s.tracked]
    box = outline(page, "meaning-path")
    assert box["x"] == pytest.approx([halfway[0]], abs=5e-3)
    assert (box["base"][0] + box["top"][0]) / 2 == pytest.approx(halfway[1], abs=5e-3)
    page.locator('#depth-map [data-control="step-next"]').click()  # step 3: block 1's FFN ends the block → its point
    page.locator("#meaning-path").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('#meaning-path [data-chart=main] [data-part=chart]').getAttribute('data-plotted') === "
                           "document.querySelector('#meaning-path [data-chart=main] [data-part=chart]').getAttribute('data-state')")
    box = outline(page, "meaning-path")
    assert box["x"] == pytest.approx([points[1, 0]], abs=5e-3)
    assert (box["base"][0] + box["top"][0]) / 2 == pytest.approx(points[1, 1], abs=5e-3)


@pytest.mark.parametrize("lang", LANGS)
def test_the_meaning_path_prints_and_reads_without_plotly(site, open_page, lang):
    page = open_page(lesson_url(site, lang, fragment="#scenario=money-bank&depth=5"), withhold=("plotly-basic.min.js",))
    page.locator("#meaning-path").scroll_into_view_if_needed()
    marks = {m["mark"]: m for m in page.evaluate(SVG_MARKS, '#meaning-path [data-chart="main"]')}
    assert [p[1] for p in marks["path-picked"]["points"]] == pytest.approx(path_of("money-bank", True, 5)[:, 1], abs=5e-3)
    page.emulate_media(media="print")
    assert page.locator('#meaning-path .chart-svg-wide').is_visible()
    tables = page.locator("#meaning-path-twin table")
    assert tables.count() == 2 and tables.first.is_visible()
    assert tables.first.locator("tbody tr").count() == 1 + 5


def closeup_geometry(page, plotly):
    """The close-up's drawn points by mark, and each point's box on screen (ring or dot), Plotly's or the SVG's."""
    return page.evaluate("""(plotly) => {
      const root = document.querySelector('#meaning-path [data-chart="zoom"]'), out = {};
      const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
      if (plotly) root.querySelectorAll('.plot .scatterlayer .trace').forEach(t => {
        const trace = t.__data__[0].trace; out[trace.meta] = [...t.querySelectorAll('.points path')].map(rect); });
      else { const svg = [...root.querySelectorAll('.chart-svg')].find(s => getComputedStyle(s).display !== 'none');
        svg.querySelectorAll('[data-mark]').forEach(g => { out[g.getAttribute('data-mark')] = [...g.querySelectorAll('.point')].map(rect); }); }
      return out; }""", plotly)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("plotly", [True, False])
def test_with_the_residual_off_a_close_up_shows_both_paths_where_they_stay(site, open_page, lang, plotly):
    """The collapse the lesson describes: at the main chart's scale (one scale for every state) the two
    residual-off paths are one blot at x₀, so a close-up, a round number of times larger and saying so,
    draws them apart: both paths from the trace, the picked one's labels, the rings of the other where
    the two sit on one point (from block 3 on), which its legend says."""
    page = open_page(lesson_url(site, lang, fragment="#scenario=money-bank&residual=off&depth=6&step=1"),
                     withhold=() if plotly else ("plotly-basic.min.js",))
    page.locator("#meaning-path").scroll_into_view_if_needed()
    zoom = page.locator('#meaning-path [data-chart="zoom"]')
    assert zoom.is_visible()
    money, river = path_of("money-bank", False, 6), path_of("river-bank", False, 6)
    if plotly:
        ready(page)
        page.locator("#meaning-path").scroll_into_view_if_needed()
        drawn, main = plotted(page, "zoom", "meaning-path"), plotted(page, "main", "meaning-path")
        ranges = {c: [layout(page, c, "meaning-path")[a]["range"] for a in ("xaxis", "yaxis")] for c in ("main", "zoom")}
        area = main["zoom-area"]
        assert [min(area["x"]), max(area["x"])] == pytest.approx(ranges["zoom"][0]) and \
            [min(area["y"]), max(area["y"])] == pytest.approx(ranges["zoom"][1])  # the dashed rectangle is the close-up's area
        assert "value" not in main and "highlight" not in main  # no pile of labels, no outline over the blot
        box = outline(page, "meaning-path", "zoom")
    else:
        drawn = {m["mark"]: {"x": [p[0] for p in m["points"]], "y": [p[1] for p in m["points"]]}
                 for m in page.evaluate(SVG_MARKS, '#meaning-path [data-chart="zoom"]')}
        ranges = None
        assert page.locator('#meaning-path [data-chart="main"] .chart-svg-wide .zoom-area polyline').count() == 1
        assert page.locator('#meaning-path [data-chart="main"] .chart-svg-wide text.value').count() == 0
        box = None
    assert drawn["path-picked"]["x"] == pytest.approx(money[:, 0], abs=5e-3) and drawn["path-picked"]["y"] == pytest.approx(money[:, 1], abs=5e-3)
    assert drawn["path-other"]["x"] == pytest.approx(river[:, 0], abs=5e-3) and drawn["path-other"]["y"] == pytest.approx(river[:, 1], abs=5e-3)
    if ranges:
        (x_lo, x_hi), (y_lo, y_hi) = ranges["zoom"]
        assert all(x_lo < x < x_hi and y_lo < y < y_hi for x, y in np.vstack([money, river]))
        times = (ranges["main"][0][1] - ranges["main"][0][0]) / (x_hi - x_lo)
        assert times == pytest.approx(round(times)) and round(times) >= 4
        assert shown(zoom.locator(".chart-title").text_content()) == label(lang, "meaning-path", "zoom_title", times=round(times))
        assert [box["x"][0], box["base"][0]] == pytest.approx(money[0], abs=5e-3)  # step 1 outlines x₀ in the close-up
    # where the paths sit on one point the other path's ring shows around the picked dot
    shapes = closeup_geometry(page, plotly)
    for m in range(3, 7):
        ring, dot = shapes["path-other"][m], shapes["path-picked"][m]
        assert ring[0] < dot[0] - 1 and ring[1] < dot[1] - 1 and ring[2] > dot[2] + 1 and ring[3] > dot[3] + 1, m
    legend = zoom.locator(".chart-legend li").all_text_contents()
    assert shown(legend[1]).endswith(label(lang, "meaning-path", "meets", titles="", n=3))
    texts = zoom.locator("text.value" if not plotly else ".annotation-text").all_text_contents()
    assert "x₀" in texts and label(lang, "meaning-path", "block_range", first=2, last=6) in texts  # the collapse's end, once
    found = page.evaluate(MARK_COLOURS, '#meaning-path [data-chart="zoom"]')
    check_marks_against_legend(found["plotly" if plotly else "svg"], found["legend"], found["bg"])
    found = page.evaluate(MARK_COLOURS, '#meaning-path [data-chart="main"]')
    check_marks_against_legend(found["plotly" if plotly else "svg"], found["legend"], found["bg"])
    page.locator('#meaning-path [data-control="residual"]').click()  # on: the paths are far apart, no close-up
    page.wait_for_function("() => document.querySelector('#meaning-path [data-chart=zoom]').hidden")


HIGHLIGHT_PIXELS = """async ([b64, target, tolerance]) => { const img = new Image(); img.src = 'data:image/png;base64,' + b64;
  await img.decode(); const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
  const g = c.getContext('2d'); g.drawImage(img, 0, 0); const d = g.getImageData(0, 0, img.width, img.height).data;
  let n = 0; for (let i = 0; i < d.length; i += 4)
    if (Math.abs(d[i] - target[0]) + Math.abs(d[i + 1] - target[1]) + Math.abs(d[i + 2] - target[2]) < tolerance) n++;
  return n; }"""


def highlight_pixels(page, selector):
    """How many pixels of the chart show the walkthrough outline's colour (--highlight)."""
    import base64

    colour = page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--highlight').trim()")
    target = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    shot = page.locator(selector).screenshot()
    return page.evaluate(HIGHLIGHT_PIXELS, [base64.b64encode(shot).decode(), target, 40])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
def test_the_step_outline_shows_on_top_of_the_point_in_plotly_as_in_the_svg(site, open_page, lang, width):
    """On a phone, Plotly drew the outline under the point it outlines (a bar under the markers): it is a
    line on top now, as in the SVG, and large enough to be seen around the marker."""
    counts = {}
    for plotly in (False, True):
        page = open_page(lesson_url(site, lang, fragment="#figure=meaning-path&depth=3&step=1"),
                         viewport={"width": width, "height": 900}, withhold=() if plotly else ("plotly-basic.min.js",))
        page.locator("#meaning-path").scroll_into_view_if_needed()
        if plotly:
            ready(page)
            page.locator("#meaning-path").scroll_into_view_if_needed()
            traces = plotted(page, figure="meaning-path")
            drawn = [name for name in traces if name not in ("value", "y-title")]  # the traces, not the annotations
            assert drawn[-1] == "highlight"  # the last trace: drawn over every mark
        counts[plotly] = highlight_pixels(page, '#meaning-path [data-chart="main"] [data-part="chart"]')
    assert counts[False] > 150 and counts[True] > 0.6 * counts[False], counts


HALFWAY_MARK = """([plotly, box]) => {
  const root = document.querySelector('#meaning-path [data-chart="main"]');
  const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  let marks;
  if (plotly) marks = [...root.querySelectorAll('.plot .scatterlayer .trace')].filter(t => t.__data__[0].trace.meta === 'highlight')
    .flatMap(t => [...t.querySelectorAll('.points path')]);
  else marks = [...[...root.querySelectorAll('.chart-svg')].find(s => getComputedStyle(s).display !== 'none')
    .querySelectorAll('.highlight-point, .highlight-ring, .highlight')].filter(e => getComputedStyle(e).display !== 'none');
  return { marks: marks.map(rect), chart: rect(root.querySelector(box)), window: [innerWidth, innerHeight] }; }"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("plotly", [True, False])
def test_with_the_residual_off_the_step_about_block_1s_attention_marks_its_point_in_the_main_chart(site, open_page, lang, plotly):
    """Without the residual the stream after block 1's attention is the attention's output alone, far outside the
    close-up: the main chart marks it (the close-up marks nothing at that step), drawn, on screen, and large
    enough to find at 390 px, in Plotly and in the SVG the build draws."""
    page = open_page(lesson_url(site, lang, fragment="#residual=off&step=1"), viewport={"width": 390, "height": 844},
                     withhold=() if plotly else ("plotly-basic.min.js",))
    if plotly:
        ready(page)
    page.locator('#depth-map [data-control="step-next"]').click()  # step 2: block 1's attention
    showing(page, "meaning-path", "step=2", "residual=off")
    chart = page.locator('#meaning-path [data-chart="main"] [data-part="chart"]')
    chart.scroll_into_view_if_needed()
    s = scenario()
    halfway = s.traces["pre-off"].steps[0].after[s.tracked][:2]
    if plotly:
        mark = plotted(page, "main", "meaning-path")["highlight"]
        assert [mark["x"][0], mark["y"][0]] == pytest.approx(halfway, abs=5e-3)
        assert "highlight" not in plotted(page, "zoom", "meaning-path")
    else:
        assert page.locator('#meaning-path [data-chart="zoom"] .chart-svg-wide .highlight-point, '
                            '#meaning-path [data-chart="zoom"] .chart-svg-wide .highlight').count() == 0
    found = page.evaluate(HALFWAY_MARK, [plotly, '[data-part="chart"]'])
    assert found["marks"], found
    left, top, right, bottom = found["chart"]
    for x0, y0, x1, y1 in found["marks"]:
        assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom, found  # inside the chart
        assert 0 <= x0 and x1 <= found["window"][0] and 0 <= y0 and y1 <= found["window"][1], found  # on screen
    assert highlight_pixels(page, '#meaning-path [data-chart="main"] [data-part="chart"]') > 100  # not a speck: a ring around the dot


@pytest.mark.parametrize("lang", LANGS)
def test_formulas_are_mathml_inline_in_a_sentence_and_block_on_their_own(real_site, open_page, lang):
    """The page says neither xmlns nor display="inline" on <math>: the HTML parser and MathML's defaults do."""
    page = open_page(lesson_url(real_site, lang))
    found = page.evaluate("""() => [...document.querySelectorAll('article math')].map(m => [m.namespaceURI,
      m.getAttribute('display') || '', getComputedStyle(m).display, m.getBoundingClientRect().height > 0])""")
    assert len(found) >= 10 and all(ns == "http://www.w3.org/1998/Math/MathML" and shown for ns, _, _, shown in found)
    assert {(said, display) for _, said, display, _ in found} == {("", "math"), ("block", "block math")}


@pytest.mark.parametrize("lang", LANGS)
def test_double_bars_in_inline_math_sit_close_to_what_they_enclose(real_site, open_page, lang):
    """‖x₀‖ in a sentence: the bars come from the math font, not a CJK font that draws ‖ a full em wide."""
    page = open_page(lesson_url(real_site, lang))
    widths = page.evaluate("""() => [...document.querySelectorAll('article math:not([display=block]) mo')]
      .filter(mo => mo.textContent === '‖').map(mo => mo.getBoundingClientRect().width / parseFloat(getComputedStyle(mo).fontSize))""")
    assert len(widths) >= 4 and max(widths) < 0.6, widths


# ---- Axis titles read across, in Chinese and Japanese alike -----------------------------------------------

Y_TITLE = """(sel) => {
  const root = document.querySelector(sel), box = root.querySelector('[data-part=chart]').getBoundingClientRect();
  const plot = root.querySelector('.chart.plotted .plot');
  const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  let title, top;
  if (plot) {
    const note = [...plot.querySelectorAll('.annotation')].find(a => a.getAttribute('data-index') !== null &&
      plot.layout.annotations[+a.getAttribute('data-index')].name === 'y-title');
    title = note && note.querySelector('.annotation-text');
    top = plot.querySelector('.bglayer rect, .nsewdrag').getBoundingClientRect().top;
    if (plot.layout.yaxis.title && plot.layout.yaxis.title.text) return { rotated: plot.layout.yaxis.title.text };
  } else {
    const svg = [...root.querySelectorAll('.chart-svg')].find(s => getComputedStyle(s).display !== 'none');
    title = svg.querySelector('.axis-title-y');
    top = Math.min(...[...svg.querySelectorAll('.grid')].map(g => g.getBoundingClientRect().top));
  }
  if (!title) return null;
  const legend = root.querySelector('.chart-legend');
  return { text: title.textContent, box: rect(title), top: top, chart: [box.left, box.top, box.right, box.bottom],
           size: parseFloat(getComputedStyle(title).fontSize), legend: legend ? legend.getBoundingClientRect().bottom : null }; }"""


def check_y_title(found, expected, where):
    assert found and "rotated" not in found, (where, found)
    assert found["text"] == expected, where
    left, top, right, bottom = found["box"]
    assert right - left > 1.4 * (bottom - top), (where, found)  # one line across: the characters stand upright
    assert bottom - top < 2 * found["size"], (where, found)
    assert bottom <= found["top"] + 1, (where, found)  # above the plot, clear of its top tick and the marks
    assert left >= found["chart"][0] - 1 and right <= found["chart"][2] + 1, (where, found)  # inside the chart
    if found["legend"] is not None:  # set apart from the legend above, so it does not read as one more entry
        assert top - found["legend"] >= 1.2 * found["size"], (where, found)


Y_TITLES = [("transformer-block", "depth-map", "main", "#residual=on&depth=3", "axis_y_on"),
            ("transformer-block", "depth-map", "main", "#residual=off&depth=6", "axis_y_off"),
            ("transformer-block", "depth-map", "spread", "#residual=off&depth=6", "spread_axis"),
            ("transformer-block", "meaning-path", "main", "#residual=on&depth=6", None),
            ("ffn-residual", "norm-compare", "main", "#depth=6", "axis_y")]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("mode", ["plotly", "svg", "print"])
def test_vertical_axis_titles_read_across_above_the_axis(site, open_page, lang, width, mode):
    """金融, 长度, 長さ: a y axis's title is set horizontally above the axis, not turned 90° with its characters
    on their side; in Plotly, in the SVG (first paint, no Plotly) and on paper."""
    for slug in ("transformer-block", "ffn-residual"):
        page = open_page(lesson_url(site, lang, slug), viewport={"width": width, "height": 900},
                         withhold=() if mode == "plotly" else ("plotly-basic.min.js",))
        if mode == "plotly":
            ready(page)
        for page_slug, figure, chart, fragment, key in Y_TITLES:
            if page_slug != slug:
                continue
            show_state(page, figure, chart, fragment if slug == "transformer-block" else fragment, mode == "plotly")
            if mode == "print":
                page.emulate_media(media="print")
            expected = label(lang, figure, key) if key else catalog(lang).pgettext("dimension", "finance")
            check_y_title(page.evaluate(Y_TITLE, f'#{figure} [data-chart="{chart}"]'), expected, (slug, chart, fragment, mode))
            page.emulate_media(media="screen")


# ---- Each number says which mark it belongs to --------------------------------------------------------------

BLOCK_NUMBERS = """([sel, state]) => {
  const root = document.querySelector(sel);
  const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const byX = list => list.sort((a, b) => a[0] - b[0]);
  const plot = root.querySelector('.chart.plotted .plot');
  if (plot) {
    const trace = meta => [...plot.querySelectorAll('.trace')].find(t => t.__data__ && t.__data__[0].trace.meta === meta);
    const notes = [...plot.querySelectorAll('.annotation')].filter(a => plot.layout.annotations[+a.getAttribute('data-index')].name === 'value');
    return { labels: byX(notes.map(a => rect(a.querySelector('.annotation-text')))),
             ffn: byX([...trace('bar-ffn-' + state).querySelectorAll('.point path')].map(rect)),
             attention: byX([...trace('bar-attention-' + state).querySelectorAll('.point path')].map(rect)),
             diamonds: byX([...trace('length').querySelectorAll('.points path')].map(rect)) };
  }
  const svg = [...root.querySelectorAll('.chart-svg')].find(s => getComputedStyle(s).display !== 'none');
  return { labels: byX([...svg.querySelectorAll('text.value')].map(rect)),
           ffn: byX([...svg.querySelectorAll('.bar-ffn-' + state + ' rect')].map(rect)),
           attention: byX([...svg.querySelectorAll('.bar-attention-' + state + ' rect')].map(rect)),
           diamonds: byX([...svg.querySelectorAll('.length .point')].map(rect)) }; }"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("plotly", [True, False])
def test_each_block_number_sits_on_the_diamond_it_reports_not_on_the_other_bar(site, open_page, lang, width, plotly):
    """The number over a block is its last diamond's (‖x‖ after the FFN). With the residual off the attention bar
    beside it is six times taller: the number sits right over the FFN's column, clear of the attention bar. On a
    phone at depth 6 the next block's attention bar is taller than the column: the number sits on its column,
    not floating up level with that bar, where it would read as its label."""
    page = open_page(lesson_url(site, lang), viewport={"width": width, "height": 900},
                     withhold=() if plotly else ("plotly-basic.min.js",))
    if plotly:
        ready(page)
    for state, depth in (("off", 6), ("off", 3), ("on", 6)):
        show_state(page, "depth-map", "main", f"#residual={state}&depth={depth}", plotly)
        found = page.evaluate(BLOCK_NUMBERS, ['#depth-map [data-chart="main"]', state])
        labels, ffn, attention, diamonds = found["labels"], found["ffn"], found["attention"], found["diamonds"][1::2]
        assert len(labels) == len(ffn) == len(attention) == len(diamonds) == depth, (state, depth, found)
        for label_box, bar, other, diamond in zip(labels, ffn, attention, diamonds):
            middle = (label_box[0] + label_box[2]) / 2
            assert bar[0] - 1 <= middle <= bar[2] + 1, (state, depth, label_box, bar)  # over the FFN's column
            assert label_box[0] >= other[2], (state, depth, label_box, other)  # not over the attention bar
            column_top = min(bar[1], diamond[1])
            assert 0 <= column_top - label_box[3] <= 12, (state, depth, label_box, column_top)  # right above it


@pytest.mark.parametrize("lang", LANGS)
def test_the_meaning_path_legend_reads_as_one_phrase(site, open_page, lang):
    """“河岸边”和“河岸边（词序调换）”, the picked sentences sharing one path: said in one phrase, not with two
    bracketed remarks in a row."""
    import re

    page = open_page(lesson_url(site, lang))
    legend = [shown(t) for t in page.locator('#meaning-path .chart-legend li').all_text_contents()]
    river, reordered, money = (catalog(lang).pgettext("scenario", t) for t in ("by the river bank", "bank by the river", "money in the bank"))
    def quoted(words, title):  # a sentence as the captions name it, its English words and its title, in quotes
        return label(lang, "meaning-path", "quoted", text=label(lang, "meaning-path", "sentence", text=words, title=title))

    assert legend[0] == label(lang, "meaning-path", "picked_shared",
                              titles=label(lang, "meaning-path", "and", first=quoted("by the river bank", river),
                                           second=quoted("bank by the river", reordered)))
    page.locator('#meaning-path input[value="money-bank"]').check()
    legend = [shown(t) for t in page.locator('#meaning-path .chart-legend li').all_text_contents()]
    assert legend[0] == label(lang, "meaning-path", "picked", titles=quoted("money in the bank", money))
    assert money in legend[0] and river in legend[1] and reordered in legend[1]
    for text in legend:
        assert not re.search(r"[)）]\s*[(（]", text), text  # no two bracketed groups in a row


# ---- Labels on a phone break between phrases, never inside a word or before a lone symbol --------------------

LABEL_LINES = """(selectors) => {
  const out = [];
  for (const el of document.querySelectorAll(selectors)) {
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), range = document.createRange();
    const lines = []; let top = null, text = '';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        const ch = node.data[i];
        range.setStart(node, i); range.setEnd(node, i + 1);
        const r = range.getClientRects()[0];
        if (!r || r.width === 0 || /\\s|\\u200b/.test(ch)) { text += ch; continue; }
        const y = Math.round(r.top + r.height / 2);
        if (top !== null && Math.abs(y - top) > r.height / 2) { lines.push(text); text = ''; }
        top = y; text += ch;
      }
    }
    lines.push(text);
    out.push(lines.map(l => l.replace(/\\u200b/g, '').replace(/\\u00a0/g, ' ')).filter(l => l.trim()));
  }
  return out; }"""
LABELS_SELECTOR = ("[data-figure] th, [data-figure] .chart-legend li, [data-figure] .controls legend, [data-figure] .controls label, "
                   "[data-figure] .toggle, [data-figure] .step-counter, [data-figure] .walk-controls button, "
                   "[data-figure] .twin-toggle, [data-figure] .chart-title")
LETTER = r"[^\W\d_]"  # a letter of any script


def check_label_lines(raw, where):
    """`raw`: a label's lines as laid out, each with the spaces around it (a line may break at a space)."""
    import re

    lines = [line.strip() for line in raw]
    text = "".join(lines)
    for line in lines:
        assert re.search(LETTER, line) or re.fullmatch(r"[\d.,−\- ]+", line), (where, lines)  # no symbol alone (Δ, / 6)
    for (before, after), (raw_before, raw_after) in zip(zip(lines, lines[1:]), zip(raw, raw[1:])):
        a, b = before[-1], after[0]
        spaced = raw_before.endswith(" ") or raw_after.startswith(" ")
        cjk = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
        # never inside a word: between two CJK characters only where a phrase ends (after a particle or a
        # stop), never between two Latin letters or digits
        assert not (re.match(r"[A-Za-z0-9]", a) and re.match(r"[A-Za-z0-9]", b) and not spaced), (where, lines)
        assert not (a == "（" or b in "）)：、，。/"), (where, lines)
        if cjk.match(a) and cjk.match(b):
            for word in ("身份", "ステップ", "ブロック", "前馈网络", "注意力", "残差连接", "残差接続", "深度", "深さ"):
                joint = len(before)
                for at in range(max(0, joint - len(word) + 1), joint):
                    assert text[at:at + len(word)] != word, (where, word, lines)
    return len(lines)


@pytest.mark.parametrize("lang", LANGS)
def test_no_label_or_table_header_breaks_inside_a_word_or_leaves_a_symbol_alone_on_a_phone(real_site, open_page, lang):
    """bank 身|份, 块 6 前馈网络的 / Δ, ステップ 1 / / 6 and 深さ（ブロック / 数）： were all seen at 390 px: every label of
    every figure, its table headers and row names, legends and controls, in several states, breaks only between
    phrases; the step counter and the depth control's label keep to one line. The real lessons: their glossary
    keeps its terms whole (前馈网络)."""
    site, checked = real_site, 0
    for slug, fragment in (("transformer-block", "#depth=6&step=6"), ("transformer-block", "#residual=off&depth=6&step=2&block=3"),
                           ("transformer-block", "#scenario=money-bank&depth=4&step=4"), ("ffn-residual", "#depth=6")):
        page = ready(open_page(lesson_url(site, lang, slug, fragment), viewport={"width": 390, "height": 844}))
        for button in page.locator('[data-control="twin"]').all():
            button.click()
        page.wait_for_timeout(300)  # tables are drawn when the browser is idle
        for lines in page.evaluate(LABEL_LINES, LABELS_SELECTOR):
            check_label_lines(lines, (slug, fragment))
            checked += 1
        if slug == "transformer-block":
            counter, depth = (page.evaluate(LABEL_LINES, sel)[0] for sel in ("#depth-map .step-counter", '#depth-map label[for$="-depth"]'))
            assert len(counter) == 1 and len(depth) == 1, (counter, depth)
    assert checked > 60


def test_label_breaks_mark_phrases_and_keep_symbols_with_their_word():
    """The builder's side of it: zero-width spaces between phrases, no-break spaces inside one."""
    from builder.typesetting import label_breaks

    assert label_breaks("块 6 前馈网络的 Δ", "zh", ("前馈网络",)) == "块\u00a06 前馈网络的\u00a0Δ"
    assert label_breaks("ステップ %(n)s / %(total)s", "ja") == "ステップ\u00a0%(n)s\u00a0/\u00a0%(total)s"
    assert label_breaks("深さ（ブロック数）：", "ja") == "深さ\u200b（ブロック数）："
    assert label_breaks("bank 身份", "zh") == "bank 身份"  # a break at the space, between the words
    assert label_breaks("by the river bank", "zh") == "by the river bank"


MARKERS = """([sel, classes]) => {
  const root = document.querySelector(sel), plot = root.querySelector('.chart.plotted .plot');
  const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  if (plot) return classes.map(c => [...[...plot.querySelectorAll('.trace')].find(t => t.__data__ && t.__data__[0].trace.meta === c)
    .querySelectorAll('.points path')].map(rect));
  const svg = [...root.querySelectorAll('.chart-svg')].find(s => getComputedStyle(s).display !== 'none');
  return classes.map(c => [...svg.querySelectorAll('.mark.' + c + ' .point')].map(rect)); }"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("plotly", [True, False])
def test_pre_and_post_norm_markers_never_hide_each_other(site, open_page, lang, width, plotly):
    """At depth 1 pre-norm's 1.8 sat under post-norm's 2.0: each series now sits a little to its side of the block."""
    page = open_page(lesson_url(site, lang, "ffn-residual"), viewport={"width": width, "height": 900},
                     withhold=() if plotly else ("plotly-basic.min.js",))
    if plotly:
        ready(page)
    for depth in (1, 3, 6):
        show_state(page, "norm-compare", "main", f"#depth={depth}", plotly)
        pre, post = page.evaluate(MARKERS, ['#norm-compare [data-chart="main"]', ["pre", "post"]])
        assert len(pre) == len(post) == depth
        for a, b in zip(pre, post):
            assert min(a[2], b[2]) - max(a[0], b[0]) <= 0.5 or min(a[3], b[3]) - max(a[1], b[1]) <= 0.5, (depth, a, b)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
def test_a_narrow_tables_caption_is_not_squeezed_into_its_columns(site, open_page, lang, width):
    """The meaning path's tables have three columns: their captions once took four lines in a column that narrow.
    A caption takes the width of the figure's line, not its table's (at 1280 px that is two lines at most)."""
    page = ready(open_page(lesson_url(site, lang, fragment="#scenario=money-bank&residual=off&depth=6"),
                           viewport={"width": width, "height": 900}))
    page.locator('#meaning-path [data-control="twin"]').click()  # the tables are drawn in the click's own task
    captions = page.evaluate(LABEL_LINES, "#meaning-path-twin caption")
    widths = page.evaluate("""() => [...document.querySelectorAll('#meaning-path-twin caption')].map(c => [
        c.getBoundingClientRect().width, c.closest('.twin-table').clientWidth,
        parseFloat(getComputedStyle(document.documentElement).fontSize)])""")
    assert len(captions) == 2 and len(widths) == 2
    for caption, line, rem in widths:  # as wide as the line allows (up to 36rem), not squeezed to three columns
        assert caption >= 0.95 * min(line, 36 * rem), widths
    if width == 1280:
        assert all(len(lines) <= 2 for lines in captions), captions


@pytest.mark.browser
def test_the_page_recorder_forgives_what_a_reload_cancels_and_nothing_else(tmp_path, chromium):
    """Browser tests fail on any failed request. A page that reloads (the preview does, after each edit)
    cancels what it was still loading; that is no fault, and the preview's test failed on it now and then
    under load (plotly and the idle data script, net::ERR_ABORTED). A request that fails otherwise still counts."""
    import time

    from browser import Recorder

    (tmp_path / "index.html").write_text(
        "<!DOCTYPE html><title>t</title><script>if (!sessionStorage.again) { sessionStorage.again = 1;"
        " var s = document.createElement('script'); s.src = 'slow.js'; document.head.appendChild(s);"
        " setTimeout(function () { location.reload(); }, 300); }</script>", encoding="utf-8")
    (tmp_path / "slow.js").write_text("window.slow = 1;", encoding="utf-8")

    class Slow(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.startswith("/slow.js"):
                time.sleep(2)  # still loading when the page reloads
            super().do_GET()

    class Server(ThreadingHTTPServer):
        def handle_error(self, request, client_address):  # the cancelled request's broken pipe
            pass

    server = Server(("127.0.0.1", 0), partial(Slow, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    context = chromium.new_context()
    try:
        recorder = Recorder(base)
        page = recorder.attach(context.new_page())
        page.goto(base + "index.html")
        page.wait_for_function("() => sessionStorage.again && performance.getEntriesByType('navigation')[0].type === 'reload'")
        page.wait_for_timeout(2500)  # the cancelled request has ended by now
        assert recorder.navigations == 2 and recorder.problems() == []
        server.shutdown()
        server.server_close()  # from here on, a request fails because nothing answers: that is a fault
        page.evaluate("() => { const s = document.createElement('script'); s.src = 'gone.js'; document.head.appendChild(s); }")
        page.wait_for_timeout(1000)
        assert [e for e in recorder.problems() if "gone.js" in e]
    finally:
        context.close()
        server.server_close()
