"""Browser figures for the benchmark, on a build of the real site (bench/run.py calls these).

Targets (issue 15, "Reader speed"):
- the default chart is visible at first paint, before any charting library has loaded or run;
- after the reader's first interaction with a figure, the chart reacts within 300 ms (desktop
  Chromium), including the charting library it had to load; later redraws ≤ 33 ms median;
- a first visit to a lesson page transfers ≤ 450 KB gzip in all, charting library included; the
  page's own bytes stay ≤ 50 KB gzip;
- Lighthouse mobile, served as GitHub Pages serves (bench/pages_server.py): performance ≥ 98,
  accessibility, best practices and SEO 100 on every lesson page (bench/lighthouse.py).
"""

from __future__ import annotations

import gzip
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from browser import CHROMIUM_ARGS, chromium_executable  # noqa: E402  (tests/browser.py)

TOGGLES = 40  # per page
SESSIONS = 3  # fresh pages per language
# What a lesson page fetches of ours as it loads. Not assets/search.js: site.js loads it, as search.js
# then loads the index, only when the reader first goes to search (the box gets focus, or `/`). On
# http(s) the service worker keeps both, with the rest of the site's shell, in the background once the
# page has loaded: that keeping is not part of the page's first visit, here or for the indexes.
# A language's home lists its lessons; offline.html is the page the service worker shows when a page
# was never visited (noindex on purpose): neither is a lesson page.
NOT_LESSONS = ("index.html", "offline.html")
OWN_ASSETS = ["assets/site.css", "assets/pygments.css", "assets/figures.css", "assets/site.js", "assets/lesson.js"]
LIBRARY = "assets/vendor/plotly-basic.min.js"
MAIN = '#depth-map [data-chart="main"] [data-part="chart"]'

# Time from a control's event to the chart drawn anew and painted: the drawn state is written on
# the chart box (data-state) when Plotly has drawn it; one requestAnimationFrame plus a task after
# that, the frame is painted.
REDRAW = """async ([kind, rounds]) => {
  const chart = document.querySelector('#depth-map [data-chart="main"] [data-part="chart"]');
  const toggle = document.querySelector('#depth-map [data-control="residual"]');
  const depth = document.querySelector('#depth-map [data-control="depth"]');
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    if (kind === 'toggle') toggle.click();
    else { depth.value = String(1 + (i % 6)); depth.dispatchEvent(new Event('input', { bubbles: true })); }
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
    times.push(performance.now() - t0);
  }
  return times;
}"""

# The first interaction on a fresh page, the figure not yet near the viewport (so Plotly has not
# loaded): from the click to the new state drawn by Plotly and painted.
FIRST_INTERACTION = """async () => {
  const chart = document.querySelector('#depth-map [data-chart="main"] [data-part="chart"]');
  const toggle = document.querySelector('#depth-map [data-control="residual"]');
  const loaded = !!window.Plotly;
  const until = (test) => new Promise(resolve => { const check = () => test() ? resolve() : requestAnimationFrame(check); check(); });
  const painted = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const t0 = performance.now();
  toggle.click();
  await until(() => (chart.getAttribute('data-state') || '').includes('residual=off'));
  await painted();
  const reacted = performance.now() - t0;
  await until(() => chart.classList.contains('plotted'));
  await painted();
  return [reacted, performance.now() - t0, loaded];
}"""

# Recorded from the very start of the page (an init script runs before any of the page's own): the
# first animation frame in which the build-time chart has a size, and the first contentful paint.
WATCH_CHART = """(() => {
  window.__chartVisible = null;
  const look = () => {
    const svg = document.querySelector('#depth-map .chart-svg-wide, #norm-compare .chart-svg-wide');
    if (svg && svg.getBoundingClientRect().height > 0) { window.__chartVisible = performance.now(); return; }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""

FIRST_PAINT = """() => new Promise(resolve => {
  new PerformanceObserver(list => {
    const fcp = list.getEntries().find(e => e.name === 'first-contentful-paint');
    if (fcp) resolve(fcp.startTime);
  }).observe({ type: 'paint', buffered: true });
  setTimeout(() => resolve(NaN), 3000);
})"""


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def measure_browser(site: Path) -> dict:
    """Redraw medians, first interaction, chart visible and first paint (ms)."""
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        for lang in ("zh", "ja"):
            url = (site / lang / "transformer-block.html").as_uri()
            toggles, depths, first, takeover = [], [], [], []
            for _ in range(SESSIONS):  # one page's timings drift together (JIT, GC); several pages average that out
                context = browser.new_context(viewport={"width": 1000, "height": 900})
                page = context.new_page()
                page.goto(url)
                page.wait_for_load_state("load")
                reacted, handed_over, loaded = page.evaluate(FIRST_INTERACTION)
                assert not loaded, "Plotly had loaded before the first interaction: the figure was in view"
                first.append(reacted)
                takeover.append(handed_over)
                page.locator("#depth-map").scroll_into_view_if_needed()
                page.wait_for_selector("[data-figure][data-ready]")
                page.evaluate(REDRAW, ["toggle", 5])  # warm up
                toggles += page.evaluate(REDRAW, ["toggle", TOGGLES])
                depths += page.evaluate(REDRAW, ["depth", TOGGLES])
                context.close()
            results[f"{lang} toggle"] = statistics.median(toggles)
            results[f"{lang} depth"] = statistics.median(depths)
            results[f"{lang} first interaction"] = statistics.median(first)
            results[f"{lang} first interaction max"] = max(first)
            results[f"{lang} plotly takeover"] = statistics.median(takeover)
        for slug in ("transformer-block", "ffn-residual"):
            for label, withhold in (("with Plotly", False), ("Plotly blocked", True)):
                paints, visible = [], []
                for _ in range(5):
                    context = browser.new_context(viewport={"width": 1000, "height": 900})
                    page = context.new_page()
                    page.add_init_script(WATCH_CHART)
                    if withhold:
                        page.route("**/plotly-basic.min.js", lambda route: route.abort())
                    page.goto((site / "zh" / f"{slug}.html").as_uri() + "#" + ("depth-map" if slug == "transformer-block" else "norm-compare"))
                    page.wait_for_load_state("load")
                    page.wait_for_timeout(200)
                    paints.append(page.evaluate(FIRST_PAINT))
                    visible.append(page.evaluate("window.__chartVisible"))
                    context.close()
                results[f"{slug} first paint {label}"] = statistics.median(paints)
                results[f"{slug} chart visible {label}"] = statistics.median(visible)
        browser.close()
    return results


def page_bytes(site: Path) -> dict[str, dict[str, int]]:
    """Each lesson page: its own bytes (HTML with its data, our CSS and JS that it loads, OWN_ASSETS:
    not search.js, fetched only once the reader goes to search) and a first visit in all (its own bytes,
    the charting library, and its figures' other scenarios, assets/data/…, which lesson.js fetches when
    the browser is idle after the load: not the page's own, as the library is not), gzip -9 as a static
    host would send them."""
    import re

    own_assets = sum(gz((site / a).read_bytes()) for a in OWN_ASSETS)
    library = gz((site / LIBRARY).read_bytes())
    sizes = {}
    for page in sorted(site.glob("*/*.html")):
        if page.name not in NOT_LESSONS:
            html = page.read_bytes()
            own = gz(html) + own_assets
            more = re.search(rb'id="lesson-data" data-more="([^"]+)"', html)
            scenarios = gz((page.parent / more.group(1).decode()).read_bytes()) if more else 0
            sizes[page.relative_to(site).as_posix()] = {"own": own, "first visit": own + library + scenarios,
                                                        "library": library, "scenarios": scenarios}
    return sizes


def available() -> str | None:
    """Why the browser figures cannot be taken here, or None when they can."""
    import importlib.util
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[test]')"
    if chromium_executable() is None:
        return "no Chromium that runs (apt-get install chromium, or playwright install chromium)"
    return None
