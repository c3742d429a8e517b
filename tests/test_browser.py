"""The interactive lesson page in a real Chromium, offline over file://, in both languages."""

from __future__ import annotations

import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser import ARTIFACTS

pytestmark = pytest.mark.browser
LANGS = ["zh", "ja"]

PLOTTED = """() => document.getElementById('figure-chart').data.map(t => ({
  meta: t.meta, x: Array.from(t.x), y: Array.from(t.y), base: t.base ? Array.from(t.base) : null,
  color: t.marker && t.marker.color, pattern: t.marker && t.marker.pattern && t.marker.pattern.shape }))"""


def lesson_url(site, lang, slug="transformer-block", fragment=""):
    return (site / lang / f"{slug}.html").as_uri() + fragment


def ready(page):
    page.wait_for_selector("[data-figure][data-ready]")
    return page


def trace_data(page):
    return json.loads(page.locator("#figure-data").text_content())["trace"]


def plotted(page, meta_prefix):
    return [t for t in page.evaluate(PLOTTED) if str(t["meta"]).startswith(meta_prefix)][0]


HIGHLIGHT = """() => {
  const outline = document.getElementById('figure-chart').data.find(t => t.meta === 'highlight');
  const xs = Array.from(outline.x);
  return { bars: xs.filter(x => x > 0), ribbon: xs.includes(0) };
}"""


def highlighted(page):
    """Which part of the depth map the walkthrough highlights: bars (block numbers) and the input ribbon."""
    return page.evaluate(HIGHLIGHT)


def css_var(page, name):
    return page.evaluate(f"() => getComputedStyle(document.documentElement).getPropertyValue('{name}').trim()")


@pytest.mark.parametrize("lang", LANGS)
def test_default_state_runs_the_ribbon_through_three_blocks(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    data, t = trace_data(page), trace_data(page)["tracked"]
    ribbon, bars = plotted(page, "ribbon"), plotted(page, "bars")
    assert ribbon["x"] == [-0.5, 3.5]
    assert bars["meta"] == "bars-on" and bars["x"] == [1, 2, 3]
    assert bars["y"] == [data["runs"]["pre-on"]["blocks"]["cumulative"][b][t] for b in range(3)]
    assert page.locator("#residual-toggle").get_attribute("aria-pressed") == "true"


def legend(page):
    return [(item.locator(".swatch").get_attribute("class").split()[-1], item.text_content().strip())
            for item in page.locator("#chart-legend li").all()]


@pytest.mark.parametrize("lang", LANGS)
def test_the_legend_names_what_the_chart_shows_and_follows_the_toggle(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    labels = json.loads(page.locator("#figure-labels").text_content())
    assert legend(page) == [("swatch-ribbon", labels["ribbon"]), ("swatch-bars-on", labels["cumulative"])]
    page.locator("#residual-toggle").click()
    assert legend(page) == [("swatch-ribbon", labels["ribbon"]), ("swatch-bars-off", labels["output"])]
    page = ready(open_page(lesson_url(site, lang, "ffn-residual")))
    assert legend(page) == [("swatch-pre", labels["pre"]), ("swatch-post", labels["post"])]


@pytest.mark.parametrize("lang", LANGS)
def test_residual_off_cuts_the_ribbon_and_turns_the_bars_red(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    page.locator("#residual-toggle").click()
    data, t = trace_data(page), trace_data(page)["tracked"]
    ribbon, bars = plotted(page, "ribbon"), plotted(page, "bars")
    assert ribbon["x"] == [-0.5, 0.5]
    assert bars["meta"] == "bars-off"
    assert bars["color"] == css_var(page, "--bar-off") and bars["pattern"] == "/"
    assert bars["y"] == [data["runs"]["pre-off"]["blocks"]["output"][b][t] for b in range(3)]
    assert page.locator("#residual-toggle").get_attribute("aria-pressed") == "false"
    assert "residual=off" in page.url


@pytest.mark.parametrize("lang", LANGS)
def test_depth_control_shows_six_blocks_or_one(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang)))
    slider = page.locator("#depth-input")
    slider.focus()
    page.keyboard.press("End")
    assert plotted(page, "bars")["x"] == [1, 2, 3, 4, 5, 6]
    assert page.locator("#twin-body tr").count() == 7
    page.keyboard.press("Home")
    assert plotted(page, "bars")["x"] == [1]
    assert page.locator("#depth-output").text_content() == "1"


def test_keyboard_alone_steps_forward_and_back(site, open_page):
    page = ready(open_page(lesson_url(site, "zh")))
    data, t = trace_data(page), trace_data(page)["tracked"]
    page.locator("#step-next").focus()
    page.keyboard.press("Enter")
    assert "2" in page.locator("#step-counter").text_content()
    items = page.locator("#walkthrough-steps > ol > li")
    assert "current" in items.nth(1).get_attribute("class")
    weights = page.locator("#walk-readout .attention-weights td").all_text_contents()
    assert [float(w.replace("\u2212", "-")) for w in weights] == pytest.approx(
        data["runs"]["pre-on"]["steps"][0]["attention"][t], abs=0.006)
    assert highlighted(page) == {"bars": [1], "ribbon": False}
    page.keyboard.press("Tab")  # on to "next" is skipped back: shift+tab reaches "previous"
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "step-prev"
    page.keyboard.press("Space")
    assert "1" in page.locator("#step-counter").text_content()
    assert "current" in items.nth(0).get_attribute("class")
    assert highlighted(page) == {"bars": [], "ribbon": True}


def test_residual_toggle_works_from_the_keyboard(site, open_page):
    page = ready(open_page(lesson_url(site, "ja")))
    page.locator("#residual-toggle").focus()
    page.keyboard.press("Space")
    assert page.locator("#residual-toggle").get_attribute("aria-pressed") == "false"
    assert page.locator("#figure-status").text_content().strip() != ""


@pytest.mark.parametrize("lang", LANGS)
def test_url_fragment_restores_the_state_and_the_switcher_carries_it(site, open_page, lang):
    fragment = "#depth=6&residual=off&step=4"
    page = ready(open_page(lesson_url(site, lang, fragment=fragment)))
    assert page.locator("#residual-toggle").get_attribute("aria-pressed") == "false"
    assert page.locator("#depth-input").input_value() == "6"
    assert "4" in page.locator("#step-counter").text_content()
    assert plotted(page, "bars")["x"] == [1, 2, 3, 4, 5, 6]
    other = page.locator(".language-switcher a").get_attribute("href")
    assert other.endswith("transformer-block.html" + fragment)
    page.locator(".language-switcher a").click()
    ready(page)
    assert page.locator("#residual-toggle").get_attribute("aria-pressed") == "false"
    assert page.locator("html").get_attribute("lang") != {"zh": "zh-Hans", "ja": "ja"}[lang]


def test_back_button_restores_the_previous_state(site, open_page):
    page = ready(open_page(lesson_url(site, "zh")))
    page.locator("#residual-toggle").click()
    assert plotted(page, "bars")["meta"] == "bars-off"
    page.go_back()
    page.wait_for_function("() => document.getElementById('residual-toggle').getAttribute('aria-pressed') === 'true'")
    assert plotted(page, "bars")["meta"] == "bars-on"


def test_text_twin_stays_in_sync_with_the_chart(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#depth=5&residual=off&step=1")))
    data, t = trace_data(page), trace_data(page)["tracked"]
    rows = page.locator("#twin-body tr")
    assert rows.count() == 6
    last = [float(c.replace("\u2212", "-")) for c in rows.nth(5).locator("td").all_text_contents()]
    assert last[-1] == pytest.approx(data["runs"]["pre-off"]["blocks"]["output"][4][t], abs=0.006)
    page.locator("#twin-toggle").click()
    assert page.locator("#twin-toggle").get_attribute("aria-expanded") == "true"
    assert page.locator("#twin-table").bounding_box()["height"] > 100


def test_without_javascript_the_text_and_default_table_remain(site, open_page):
    page = open_page(lesson_url(site, "ja"), java_script_enabled=False)
    assert page.locator("#twin-body tr").count() == 4
    assert page.locator("#twin-table").is_visible()
    assert not page.locator("#residual-toggle").is_visible()
    assert page.locator("#walkthrough-steps li").count() == 6


@pytest.mark.parametrize("lang", LANGS)
def test_norm_compare_figure_plots_the_trace(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, "ffn-residual")))
    data, t = trace_data(page), trace_data(page)["tracked"]
    pre, post = plotted(page, "pre-on"), plotted(page, "post-on")
    assert pre["y"] == [data["runs"]["pre-on"]["blocks"]["length"][b][t] for b in range(6)]
    assert post["y"] == [data["runs"]["post-on"]["blocks"]["length"][b][t] for b in range(6)]


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
        for path in ("zh/transformer-block.html", "ja/ffn-residual.html"):
            page = ready(open_page(base + path, allowed_prefix=base))
            assert plotted(page, "")["y"]
            page.locator('a[rel="next"], a[rel="prev"]').first.click()
            page.wait_for_load_state()
            assert page.url.startswith(base)
    finally:
        server.shutdown()


AXE_STATES = [("zh", "transformer-block", ""), ("ja", "transformer-block", ""),
              ("zh", "transformer-block", "#depth=6&residual=off&step=2"), ("ja", "transformer-block", "#depth=6&residual=off&step=2"),
              ("zh", "ffn-residual", ""), ("ja", "ffn-residual", "")]


@pytest.mark.parametrize("lang,slug,fragment", AXE_STATES)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations(site, open_page, lang, slug, fragment, scheme):
    from axe_playwright_python.sync_playwright import Axe

    page = ready(open_page(lesson_url(site, lang, slug, fragment), color_scheme=scheme))
    results = Axe().run(page, options={"preload": False, "resultTypes": ["violations"]})
    assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize("page_path", ["index.html", "zh/index.html", "ja/index.html", "404.html"])
def test_axe_finds_no_violations_on_other_pages(site, open_page, page_path):
    from axe_playwright_python.sync_playwright import Axe

    page = open_page((site / page_path).as_uri() + "?choose")
    results = Axe().run(page, options={"preload": False, "resultTypes": ["violations"]})
    assert results.violations_count == 0, results.generate_report()


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
    wide = page.locator("#figure-chart .main-svg").first.bounding_box()["width"]
    page.set_viewport_size({"width": 400, "height": 900})
    page.wait_for_function(f"() => document.querySelector('#figure-chart .main-svg').getBoundingClientRect().width < {wide} - 200")
    ticks = page.evaluate("() => document.getElementById('figure-chart').layout.xaxis.ticktext")
    assert ticks[1:] == ["1", "2", "3"]


def test_print_shows_the_text_and_current_table_without_controls(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", fragment="#depth=4&residual=off&step=1")))
    page.emulate_media(media="print")
    assert not page.locator("#residual-toggle").is_visible()
    assert not page.locator("#step-next").is_visible()
    assert not page.locator("#figure-chart").is_visible()
    table = page.locator("#twin-table")
    assert table.is_visible() and table.bounding_box()["height"] > 100
    assert page.locator("#twin-body tr").count() == 5  # the current state, not the default
    assert page.locator("#residual-off").is_visible()


def test_dark_mode_colours_the_page_and_the_chart(site, open_page):
    page = ready(open_page(lesson_url(site, "ja"), color_scheme="dark"))
    background = css_var(page, "--bg")
    assert background == "#0d1117"
    layout = page.evaluate("() => document.getElementById('figure-chart').layout")
    assert layout["paper_bgcolor"] == background and layout["font"]["color"] == css_var(page, "--fg")
    page.emulate_media(color_scheme="light")
    page.wait_for_function("() => document.getElementById('figure-chart').layout.paper_bgcolor === '#ffffff'")


def test_chart_does_not_trap_touch_scrolling(site, open_page):
    page = ready(open_page(lesson_url(site, "zh"), has_touch=True, is_mobile=True, viewport={"width": 390, "height": 800}))
    layout = page.evaluate("() => document.getElementById('figure-chart').layout")
    assert layout["dragmode"] is False
    assert layout["xaxis"]["fixedrange"] and layout["yaxis"]["fixedrange"]
    assert page.evaluate("() => getComputedStyle(document.getElementById('figure-chart')).touchAction") == "pan-y"
    page.locator("#figure-chart").scroll_into_view_if_needed()
    before = page.evaluate("window.scrollY")
    page.mouse.wheel(0, 400)  # a scroll gesture over the chart scrolls the page
    page.wait_for_function(f"() => window.scrollY > {before}")


def test_reduced_motion_is_honoured(site, open_page):
    page = ready(open_page(lesson_url(site, "zh"), reduced_motion="reduce"))
    assert page.evaluate("() => getComputedStyle(document.documentElement).scrollBehavior") == "auto"
    assert "transition" not in page.evaluate("() => JSON.stringify(document.getElementById('figure-chart').layout)")


def test_focus_is_visible_on_every_control(site, open_page):
    page = ready(open_page(lesson_url(site, "ja")))
    for selector in ("#residual-toggle", "#depth-input", "#step-next", "#twin-toggle", ".language-switcher a"):
        page.locator(selector).focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid", selector


@pytest.mark.parametrize("lang", LANGS)
def test_residual_off_readout_says_the_text_describes_the_residual_on_run(site, open_page, lang):
    page = ready(open_page(lesson_url(site, lang, fragment="#depth=6&residual=off&step=6")))
    assert page.locator("#walk-readout .note").count() == 1
    rows = page.locator("#walk-readout tbody tr")
    assert rows.count() == 1  # the stream only: without the residual there is no sum of corrections


def test_switcher_keeps_a_section_anchor(site, open_page):
    page = ready(open_page(lesson_url(site, "zh", "ffn-residual", "#layernorm")))
    assert page.locator(".language-switcher a").get_attribute("href") == "../ja/ffn-residual.html#layernorm"
    page.locator('.toc a[href="#residual"]').click()
    assert page.locator(".language-switcher a").get_attribute("href") == "../ja/ffn-residual.html#residual"
    page.locator(".language-switcher a").click()
    page.wait_for_url("**/ja/ffn-residual.html#residual")
