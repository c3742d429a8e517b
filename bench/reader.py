"""Browser figures for the benchmark: chart redraw time, each lesson page's own bytes, first paint.

Used by bench/run.py on a build of the real site. Targets (issue "Interactive lesson page"):
- median time from a residual toggle or depth change to the redrawn chart, headless Chromium: ≤ 50 ms;
- the lesson page's own bytes, gzip (HTML with its embedded JSON, CSS, JS; not plotly.min.js): ≤ 50 KB;
- time to first paint with and without Plotly (Plotly loads after the first paint, so it must not matter).
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
OWN_ASSETS = ["assets/site.css", "assets/pygments.css", "assets/site.js", "assets/lesson.js"]

REDRAW = """async ([selector, rounds, kind]) => {
  const times = [];
  const chart = document.getElementById('figure-chart');
  const depth = document.getElementById('depth-input');
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    if (kind === 'toggle') {
      document.querySelector(selector).click();
    } else {
      depth.value = String(1 + (i % 6));
      depth.dispatchEvent(new Event('input', { bubbles: true }));
    }
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));  // through layout and paint
    times.push(performance.now() - t0);
  }
  return times;
}"""


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
    """Redraw medians per language and kind, first paint with and without Plotly, chart drawn (ms)."""
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        for lang in ("zh", "ja"):
            url = (site / lang / "transformer-block.html").as_uri()
            toggles, depths = [], []
            for _ in range(SESSIONS):  # one page's timings drift together (JIT, GC); several pages average that out
                page = browser.new_page(viewport={"width": 1000, "height": 900})
                page.goto(url)
                page.wait_for_selector("[data-figure][data-ready]")
                page.evaluate(REDRAW, ["#residual-toggle", 5, "toggle"])  # warm up
                toggles += page.evaluate(REDRAW, ["#residual-toggle", TOGGLES, "toggle"])
                depths += page.evaluate(REDRAW, ["#depth-input", TOGGLES, "depth"])
                page.close()
            results[f"{lang} toggle"] = statistics.median(toggles)
            results[f"{lang} depth"] = statistics.median(depths)
        for label, block in (("with Plotly", False), ("without Plotly", True)):
            paints, ready = [], []
            for _ in range(5):
                context = browser.new_context(viewport={"width": 1000, "height": 900})
                page = context.new_page()
                if block:
                    page.route("**/plotly.min.js", lambda route: route.abort())
                page.goto((site / "zh" / "transformer-block.html").as_uri())
                page.wait_for_load_state("load")
                page.wait_for_timeout(200)
                paints.append(page.evaluate(FIRST_PAINT))
                if not block:
                    page.wait_for_selector("[data-figure][data-ready]")
                    ready.append(page.evaluate("() => performance.now()"))
                context.close()
            results[f"first paint {label}"] = statistics.median(paints)
            if ready:
                results["chart drawn (upper bound)"] = statistics.median(ready)
        browser.close()
    return results


def page_bytes(site: Path) -> dict[str, int]:
    """Each lesson page's own bytes, gzip: its HTML (with the embedded trace JSON) plus our CSS and JS."""
    sizes = {}
    assets = sum(gz((site / a).read_bytes()) for a in OWN_ASSETS)
    for page in sorted(site.glob("*/*.html")):
        if page.name != "index.html" and page.parent.name != "assets":
            sizes[page.relative_to(site).as_posix()] = gz(page.read_bytes()) + assets
    return sizes


def available() -> str | None:
    """Why the browser figures cannot be taken here, or None when they can."""
    import importlib.util
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[test]')"
    if chromium_executable() is None:
        return "no Chromium that runs (apt-get install chromium, or playwright install chromium)"
    return None
