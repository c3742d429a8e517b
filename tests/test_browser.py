"""The interactive lesson pages in a real Chromium, offline over file://, in both languages.

Every expected number is computed here from the engine's trace (the fixture project's scenarios),
every expected label from the catalogs: the page must show what the trace and the catalogs say."""

from __future__ import annotations

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
OFFSET = 0.19  # where a block's attention and FFN bars sit (builder/figures/depth_map)


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


def num(value, lang="zh", decimals=2):
    from builder.i18n import format_number

    return format_number(value, LOCALES[lang], decimals)


PLOTTED = """(sel) => { const p = document.querySelector(sel + ' .plot'); return p && p.data ? p.data.map(t => ({
  meta: t.customdata ? Array.from(t.customdata) : t.meta, x: Array.from(t.x), y: Array.from(t.y || []), base: t.base ? Array.from(t.base) : null,
  width: t.width ? Array.from([].concat(t.width)) : null, text: t.text ? Array.from([].concat(t.text)) : null,
  pattern: t.marker && t.marker.pattern ? t.marker.pattern.shape : null })) : null; }"""


def plotted(page, chart="main", figure="depth-map"):
    """The drawn traces by mark class; a trace holding several marks (the bars) is split back into them.
    Plotly redraws a new state when the browser is idle: wait until it has drawn the current one."""
    box = f'#{figure} [data-chart="{chart}"] [data-part="chart"]'
    page.wait_for_function("(sel) => { const b = document.querySelector(sel); return b && b.getAttribute('data-plotted') "
                           "&& b.getAttribute('data-plotted') === b.getAttribute('data-state'); }", arg=box)
    out = {}
    for t in page.evaluate(PLOTTED, f'#{figure} [data-chart="{chart}"]'):
        if isinstance(t["meta"], list):
            for i, meta in enumerate(t["meta"]):
                mark = out.setdefault(meta, {"meta": meta, "x": [], "y": [], "base": [], "width": [], "pattern": []})
                mark["x"].append(t["x"][i])
                mark["y"].append(t["y"][i])
                mark["base"].append(t["base"][i] if t["base"] else 0)
                mark["width"].append(t["width"][i] if t["width"] else None)
                mark["pattern"].append(t["pattern"][i] if isinstance(t["pattern"], list) else t["pattern"])
            continue
        out[t["meta"]] = t
    return out


def layout(page, chart="main", figure="depth-map"):
    plotted(page, chart, figure)
    return page.evaluate("(sel) => document.querySelector(sel + ' .plot').layout", f'#{figure} [data-chart="{chart}"]')


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
    states = [run.x0] + [s.after for s in run.steps[: 2 * depth] if s.sublayer == "ffn"]
    return [np.linalg.norm(x[:, None] - x[None], axis=-1).max() for x in states]


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
    assert attention["y"] == pytest.approx([e[1] for e in expected[0::2]], abs=1e-4)
    assert ffn["y"] == pytest.approx([e[1] for e in expected[1::2]], abs=1e-4)
    assert ffn["base"] == pytest.approx([e[2] for e in expected[1::2]], abs=1e-4)
    assert drawn["length"]["y"] == pytest.approx([e[3] for e in expected], abs=1e-4)  # ‖x‖, a marker per sublayer
    assert drawn["ribbon"]["x"] == ([-0.5, 4.5] if residual else [-0.5, 0.5])  # residual off: cut at the entrance
    assert all((shape == "/") is not residual for shape in ffn["pattern"])


@pytest.mark.parametrize("lang", LANGS)
def test_axis_legend_and_caption_say_what_the_heights_are(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    legend = lambda: [li.text_content().strip() for li in page.locator('#depth-map [data-chart="main"] .chart-legend li').all()]
    assert layout(page)["yaxis"]["title"]["text"] == label(lang, "depth-map", "axis_y_on")
    assert legend() == [label(lang, "depth-map", k) for k in ("ribbon", "attention_on", "ffn_on", "length")]
    assert page.locator('#depth-map [data-part="caption"]').text_content() == label(lang, "depth-map", "caption_on")
    page.locator('#depth-map [data-control="residual"]').click()
    assert layout(page)["yaxis"]["title"]["text"] == label(lang, "depth-map", "axis_y_off")
    assert legend() == [label(lang, "depth-map", k) for k in ("ribbon", "attention_off", "ffn_off", "length")]
    assert page.locator('#depth-map [data-part="caption"]').text_content() == label(lang, "depth-map", "caption_off")


@pytest.mark.parametrize("lang", LANGS)
def test_one_y_scale_across_the_toggle_and_the_depth(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    ranges = {tuple(layout(page)["yaxis"]["range"])}
    page.locator('#depth-map [data-control="residual"]').click()
    ranges.add(tuple(layout(page)["yaxis"]["range"]))
    page.locator('#depth-map [data-control="depth"]').focus()
    page.keyboard.press("End")
    ranges.add(tuple(layout(page)["yaxis"]["range"]))
    assert len(ranges) == 1
    s = scenario()
    highest = max(e[2] + e[1] for e in bars(s.traces["pre-on"], s.tracked, 6, True))
    assert highest < ranges.pop()[1]  # the scale holds the tallest stacked bar of any state


@pytest.mark.parametrize("lang", LANGS)
def test_the_token_panel_shows_every_word_collapse_without_the_residual(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#residual=off&depth=6")))
    drawn = plotted(page, "spread")
    s = scenario()
    assert drawn["spread-on"]["y"] == pytest.approx(spread(s.traces["pre-on"], 6), abs=1e-4)
    assert drawn["spread-off"]["y"] == pytest.approx(spread(s.traces["pre-off"], 6), abs=1e-4)
    assert drawn["spread-off"]["y"][2] < 1e-3 < drawn["spread-on"]["y"][2]  # collapsed after block 2, only without it


def outline(page):
    return plotted(page)["highlight"]


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
    heads = readout.locator("tbody th").all_text_contents()
    assert len(heads) == 1 + 12 + 2 and heads[0].startswith(label(lang, "depth-map", "input"))
    s = scenario()
    run, t = s.traces["pre-on"], s.tracked
    total = [float(c.replace("\u2212", "-")) for c in readout.locator("tbody tr").nth(13).locator("td").all_text_contents()]
    assert total == pytest.approx(run.x0[t] + sum(step.delta[t] for step in run.steps), abs=0.006)


def test_a_drag_of_the_depth_slider_adds_one_history_entry(site, open_page):
    page = ready(open_page(lesson_url(site, "zh")))
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
    assert slider.input_value() == "6"
    assert page.evaluate("history.length") == before + 1
    page.locator('#depth-map [data-control="residual"]').click()
    assert page.evaluate("history.length") == before + 2
    page.go_back()
    page.wait_for_function("() => document.querySelector('[data-control=residual]').getAttribute('aria-pressed') === 'true'")
    assert slider.input_value() == "6"


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


def test_back_restores_the_previous_state(site, open_page):
    page = ready(open_page(lesson_url(site, "zh")))
    page.locator('#depth-map [data-control="residual"]').click()
    assert "bar-ffn-off" in plotted(page)
    page.go_back()
    page.wait_for_function("() => document.querySelector('[data-control=residual]').getAttribute('aria-pressed') === 'true'")
    assert "bar-ffn-on" in plotted(page)


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
    assert [p[1] for p in marks["bar-ffn-on"]["points"]] == pytest.approx([e[1] for e in expected[1::2]], abs=1e-4)
    assert page.locator("[data-figure][data-ready]").count() == 0  # Plotly never ran


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("chart", ["main", "spread"])
def test_plotly_takes_over_with_the_same_values(site, open_page, lang, chart):
    page = open_page(lesson_url(site, lang))
    svg = {m["mark"]: m for m in page.evaluate(SVG_MARKS, f'#depth-map [data-chart="{chart}"]')}
    ready(page)
    drawn = plotted(page, chart)
    for mark, values in svg.items():
        if values["band"]:
            assert drawn[mark]["y"][0] == pytest.approx(values["band"][0])
            continue
        points = [p for p in values["points"]]
        if mark == "value":
            assert drawn[mark]["x"] == [p[0] for p in points]
            continue
        assert drawn[mark]["x"] == pytest.approx([p[0] for p in points])
        assert drawn[mark]["y"] == pytest.approx([p[1] for p in points])
        if points and points[0][2] is not None:
            assert drawn[mark]["base"] == pytest.approx([p[2] for p in points])
    assert page.locator(f'#depth-map [data-chart="{chart}"] .chart-svg-wide').is_hidden()


def test_print_shows_the_chart_and_the_current_numbers_without_errors(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#depth=4&residual=off&step=1")))
    page.emulate_media(media="print")
    page.wait_for_timeout(300)
    assert not page.locator('#depth-map [data-control="residual"]').is_visible()
    chart = page.locator('#depth-map [data-chart="main"] [data-part="chart"]')
    assert chart.is_visible() and chart.bounding_box()["height"] > 150
    table = page.locator("#depth-map-twin table")
    assert table.is_visible() and table.bounding_box()["height"] > 100
    assert table.locator("tbody tr").count() == 1 + 2 * 4  # the current state, not the default
    page.emulate_media(media="screen")


def test_the_printed_page_has_the_chart_even_without_javascript(site, open_page):
    page = open_page(lesson_url(site, "ja"), java_script_enabled=False)
    page.emulate_media(media="print")
    assert page.locator('#depth-map [data-chart="main"] .chart-svg-wide').is_visible()
    assert page.locator("#depth-map-twin table tbody tr").count() == 1 + 2 * 3


def test_without_javascript_the_text_table_and_chart_remain(site, open_page):
    page = open_page(lesson_url(site, "ja"), java_script_enabled=False)
    assert page.locator("#depth-map-twin table").is_visible()
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
    assert plotted(page)["bar-ffn-on"]["y"] == pytest.approx([e[1] for e in expected[1::2]], abs=1e-4)
    assert page.locator('#attention input[value="money-bank"]').is_checked()  # both pickers show one state
    title = catalog(lang).pgettext("scenario", "money in the bank")
    assert title in page.locator("#depth-map-twin caption").text_content()
    assert title in page.locator('#depth-map [data-part="status"]').text_content() or \
        page.locator('#depth-map [data-part="status"]').text_content().strip()
    assert "scenario=money-bank" in page.locator(".language-switcher a").get_attribute("href")


def test_the_scenario_picker_works_from_the_keyboard(site, open_page):
    page = ready(open_page(lesson_url(site, "zh")))
    page.locator('#depth-map input[value="river-bank"]').focus()
    page.keyboard.press("ArrowRight")
    assert page.locator('#depth-map input[value="money-bank"]').is_checked()
    assert "scenario=money-bank" in page.url


def test_the_walkthrough_text_says_when_it_describes_another_scenario(site, open_page):
    page = ready(open_page(lesson_url(site, "ja", fragment="#scenario=money-bank&step=2")))
    note = page.locator('#depth-map [data-part="walk-readout"] .note').first.text_content()
    assert catalog("ja").pgettext("scenario", "by the river bank") in note


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
    top = s.tokens[int(np.argmax(weights[s.tracked]))]
    assert f"“{top}”" in page.locator('#attention [data-part="summary"]').text_content() or \
        f"「{top}」" in page.locator('#attention [data-part="summary"]').text_content()


def test_bank_looks_at_river_then_money_in_block_1(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#block=1")))
    bank = grid(page)[3]
    assert int(np.argmax(bank)) == 2  # river
    page.locator('#attention input[value="money-bank"]').check()
    assert int(np.argmax(grid(page)[3])) == 0  # money


def test_walkthrough_steps_about_a_block_select_it_in_the_attention_view(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#step=3&block=5")))
    page.locator('[data-control="step-next"]').click()  # step 4 is block 2
    assert page.locator('#attention [data-control="block"]').input_value() == "2"
    assert "block=2" in page.url


# ---- Other pages and modes --------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_norm_compare_plots_the_trace(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, "ffn-residual")))
    s = scenario()
    drawn = plotted(page, figure="norm-compare")
    for key, meta in (("pre-on", "pre"), ("post-on", "post")):
        lengths = np.linalg.norm(s.traces[key].block_outputs()[:, s.tracked], axis=-1)
        assert drawn[meta]["y"] == pytest.approx(lengths, abs=1e-4)


def test_norm_compare_labels_do_not_collide_at_block_1(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", "ffn-residual"), viewport={"width": 390, "height": 800}))
    boxes = page.evaluate("""() => [...document.querySelectorAll('#norm-compare .plot .textpoint text')]
      .map(t => t.getBoundingClientRect()).map(r => [r.left, r.top, r.right, r.bottom])""")
    assert len(boxes) >= 12
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            overlap = min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1
            assert not overlap, (a, b)


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


def test_the_prediction_link_sets_the_state_it_asks_about(site, open_page, real_site):
    page = ready(open_page(lesson_url(real_site, "zh")))
    link = page.locator('a[href^="#scenario=river-bank&residual=off&depth=6"]')
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_function("() => document.querySelector('#depth-map [data-control=residual]').getAttribute('aria-pressed') === 'false'")
    assert page.locator('#depth-map [data-control="depth"]').input_value() == "6"


SVG_SHAPES = """(sel) => [...document.querySelectorAll(sel + ' .chart-svg-wide *')].map(e => [e.tagName,
  e.getAttribute('class') || '', ...['x', 'y', 'x1', 'y1', 'width', 'height', 'd', 'points', 'transform']
  .map(a => e.getAttribute(a) || ''), e.children.length ? '' : e.textContent])"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("chart", ["main", "spread"])
def test_the_script_draws_the_same_svg_as_the_build(site, open_page, lang, chart):
    """Before Plotly has loaded, lesson.js draws a state as SVG from the same description the builder drew
    the first paint from: the same shapes at the same coordinates, the same text."""
    page = open_page(lesson_url(site, lang), withhold=("plotly-basic.min.js",))
    selector = f'#depth-map [data-chart="{chart}"]'
    built = page.evaluate(SVG_SHAPES, selector)
    toggle = page.locator('#depth-map [data-control="residual"]')
    toggle.click()
    assert page.evaluate(SVG_SHAPES, selector) != built or chart == "spread"  # the other state, drawn by the script
    toggle.click()
    drawn = page.evaluate(SVG_SHAPES, selector)
    assert drawn == built
