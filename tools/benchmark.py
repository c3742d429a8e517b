"""Measure the site against its speed and size targets; print a Markdown table for BENCHMARKS.md.

    .venv/bin/python tools/benchmark.py            # needs Chromium (see README) and the test extra

Targets (issue "Interactive lesson page"):
- median time from a residual toggle or depth change to the redrawn chart, headless Chromium: ≤ 50 ms;
- the lesson page's own bytes, gzip (HTML with its embedded JSON, CSS, JS; not plotly.min.js): ≤ 50 KB;
- time to first paint with and without Plotly (Plotly loads after the first paint, so it must not matter).
Also reported: the build's wall time.
"""

from __future__ import annotations

import gzip
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from browser import CHROMIUM_ARGS, chromium_executable  # noqa: E402

TOGGLES = 40
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


def measure_build(out: Path) -> float:
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "builder", "build", "--out", str(out), "-q"], cwd=ROOT, check=True)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def measure_browser(site: Path) -> dict:
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        for lang in ("zh", "ja"):
            url = (site / lang / "transformer-block.html").as_uri()
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(url)
            page.wait_for_selector("[data-figure][data-ready]")
            page.evaluate(REDRAW, ["#residual-toggle", 5, "toggle"])  # warm up
            results[f"{lang} toggle"] = statistics.median(page.evaluate(REDRAW, ["#residual-toggle", TOGGLES, "toggle"]))
            results[f"{lang} depth"] = statistics.median(page.evaluate(REDRAW, ["#depth-input", TOGGLES, "depth"]))
            page.close()
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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "dist"
        build_seconds = measure_build(site)
        sizes = {}
        for lang in ("zh", "ja"):
            for slug in ("transformer-block", "ffn-residual"):
                html = (site / lang / f"{slug}.html").read_bytes()
                sizes[f"{lang}/{slug}.html"] = gz(html) + sum(gz((site / a).read_bytes()) for a in OWN_ASSETS)
        plotly_gz = gz((site / "assets/plotly.min.js").read_bytes())
        timings = measure_browser(site)

    print("| measure | value | target |")
    print("|---|---|---|")
    for key in ("zh toggle", "ja toggle", "zh depth", "ja depth"):
        print(f"| median redraw after {key.split()[1]} ({key.split()[0]}) | {timings[key]:.1f} ms | ≤ 50 ms |")
    for page, size in sizes.items():
        print(f"| {page} own bytes (HTML+JSON+CSS+JS, gzip) | {size / 1024:.1f} KB | ≤ 50 KB |")
    print(f"| plotly.min.js (gzip, loaded after first paint) | {plotly_gz / 1024:.0f} KB | n/a |")
    print(f"| first contentful paint with Plotly | {timings['first paint with Plotly']:.0f} ms | same as without |")
    print(f"| first contentful paint without Plotly | {timings['first paint without Plotly']:.0f} ms | |")
    print(f"| page load to chart drawn | {timings['chart drawn (upper bound)']:.0f} ms | |")
    print(f"| full build (median of 5, incl. interpreter start) | {build_seconds:.2f} s | |")


if __name__ == "__main__":
    main()
