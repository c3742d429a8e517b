"""Search figures for the benchmark (bench/run.py calls these; `run.py --only search` takes only them).

Targets (issue 22):
- each language's index, gzip, is at most half of what that language's pages weigh, gzip (the pages
  as a static host sends them);
- a query of two characters answers in at most 30 ms (median, Chromium), results painted;
- search adds at most 10 % to a cold build of the course.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

QUERIES = {"zh": ["残差", "注意", "归一", "向量", "层归一化", "FFN"], "ja": ["残差", "正規", "注意", "ベクトル", "正規化", "FFN"]}
TWO_CHARACTERS = {lang: [q for q in queries if len(q) == 2 and not q.isascii()] for lang, queries in QUERIES.items()}
ROUNDS = 20  # per query and page

# From setting the box's text to the results drawn and painted: the script answers the input event at
# once, then one requestAnimationFrame plus a task, so the layout and paint of the list are inside it.
QUERY = """async ([query, rounds]) => {
  const input = document.getElementById('search-input');
  const painted = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const times = [], answered = [];
  let shown = 0;
  for (let i = 0; i < rounds; i++) {
    input.value = ''; input.dispatchEvent(new Event('input'));
    await painted();
    const t0 = performance.now();
    input.value = query; input.dispatchEvent(new Event('input'));
    answered.push(performance.now() - t0);
    await painted();
    times.push(performance.now() - t0);
    shown = document.querySelectorAll('#search-results [role=option]').length;
  }
  return [times, shown, answered];
}"""


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def index_sizes(site: Path) -> dict[str, dict]:
    """Per language: the index (raw, gzip), the language's pages (gzip, each page on its own as a host
    sends it) and the searchable text itself (raw, gzip), in bytes."""
    sizes = {}
    for path in sorted((site / "assets").glob("search-*.*.js")):
        lang = path.name.split(".")[0].removeprefix("search-")
        data = path.read_bytes()
        index = json.loads(data.decode("utf-8").removeprefix("self.lessonSearchIndex=").removesuffix(";\n"))
        text = "\n".join(s[3] for s in index["sections"]).encode("utf-8")
        sizes[lang] = {"index": len(data), "index gz": gz(data), "sections": len(index["sections"]),
                       "pages gz": sum(gz(p.read_bytes()) for p in sorted((site / lang).glob("*.html"))),
                       "text": len(text), "text gz": gz(text)}
    return sizes


def query_times(site: Path, slug: str, sessions: int = 3) -> dict[str, dict]:
    """Per language and query: every timing (ms) over `sessions` fresh pages, and how many results it shows."""
    from playwright.sync_api import sync_playwright

    from browser import CHROMIUM_ARGS, chromium_executable

    out: dict[str, dict] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        for lang, queries in QUERIES.items():
            out[lang] = {q: {"times": [], "shown": 0, "first": [], "answered": []} for q in queries}
            for _ in range(sessions):
                context = browser.new_context(viewport={"width": 1000, "height": 900})
                page = context.new_page()
                page.goto((site / lang / f"{slug}.html").as_uri())
                page.focus("#search-input")
                page.wait_for_function("() => self.lessonSearchIndex")
                for query in queries:
                    first, _, _ = page.evaluate(QUERY, [query, 1])  # the first time this page asks it
                    times, shown, answered = page.evaluate(QUERY, [query, ROUNDS])
                    out[lang][query]["first"] += first
                    out[lang][query]["times"] += times
                    out[lang][query]["answered"] += answered
                    out[lang][query]["shown"] = shown
                context.close()
        browser.close()
    return out


def build_overhead(content: Path, work: Path, rounds: int) -> dict:
    """Cold builds of `content` with search and without it (bench/without_search.py: the same code with
    search's build-time work skipped, and templates whose search box is empty), as whole processes,
    alternating after an untimed round each. Returns {label: ([wall seconds], [CPU seconds])} and the
    load average (1 minute) before and after. The CPU time (user and system, the build's worker
    processes included) is what the other work on a shared machine disturbs least."""
    templates = work / "templates-without-search"
    shutil.rmtree(templates, ignore_errors=True)
    shutil.copytree(ROOT / "templates", templates)
    (templates / "_search.html").write_text("", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "builder")], check=True)
    builds = {"with search": ["-m", "builder", "build", "--templates", str(ROOT / "templates")],
              "without search": [str(ROOT / "bench" / "without_search.py"), "build", "--templates", str(templates)]}
    times: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in builds}
    load = [os.getloadavg()[0]]
    for round_ in range(rounds + 1):
        for label, command in (list(builds.items()) if round_ % 2 else list(builds.items())[::-1]):
            out = work / "out-overhead"
            shutil.rmtree(out, ignore_errors=True)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([sys.executable, *command, "--content", str(content), "--out", str(out), "-q"], cwd=ROOT,
                           check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if round_:
                times[label][0].append(wall)
                times[label][1].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    load.append(os.getloadavg()[0])
    return {"times": times, "load": load}


def median(values) -> float:
    return statistics.median(values)


def report(course_sizes: dict, real_sizes: dict, times: dict, overhead: dict | None, lessons: int, taken: str) -> list[str]:
    """The "Search" section of RESULTS.md."""
    lines = ["## Search (issue 22)", "", taken, "",
             f"Each language's index (`assets/search-<lang>.<hash>.js`), beside what that language's pages weigh "
             f"(each page gzip -9 on its own, as a host sends it) and the searchable text itself.", "",
             "| site | language | sections | index | index gzip | pages gzip | index / pages | text, gzip | target |",
             "|---|---|---|---|---|---|---|---|---|"]
    for site, sizes in ((f"course 2 × {lessons}", course_sizes), ("real site", real_sizes)):
        for lang, s in sizes.items():
            share = s["index gz"] / s["pages gz"]
            lines.append(f"| {site} | {lang} | {s['sections']} | {s['index'] / 1024:.1f} KB | {s['index gz'] / 1024:.1f} KB | "
                         f"{s['pages gz'] / 1024:.1f} KB | {share:.1%} | {s['text'] / 1024:.1f} KB, {s['text gz'] / 1024:.1f} KB | "
                         f"≤ 50 %: {'met' if share <= 0.5 else '**missed**'} |")
    lines += ["", f"Query time in Chromium on the course (2 × {lessons} lessons, file://), from the text set to the "
                  "results painted (the input event answered, then one animation frame and a task, so the frame that "
                  f"shows the list is inside it): median of 3 fresh pages × {ROUNDS}; beside it the script's own part "
                  "(query, ranking, the list built), and the first time each page asks it (the sections folded, the "
                  "glyphs first drawn).", "",
              "| language | query | results (shown) | painted, median | script, median | first ask, median | target |",
              "|---|---|---|---|---|---|---|"]
    for lang, queries in times.items():
        for query, t in queries.items():
            two = query in TWO_CHARACTERS[lang]
            lines.append(f"| {lang} | {query} | {t['shown']} | {median(t['times']):.1f} ms | {median(t['answered']):.1f} ms | "
                         f"{median(t['first']):.1f} ms | "
                         + (f"≤ 30 ms: {'met' if median(t['times']) <= 30 else '**missed**'}" if two else "") + " |")
    if overhead:
        (_, (now, now_cpu)), (_, (before, before_cpu)) = overhead["times"].items()
        added, added_cpu = median(now) / median(before) - 1, median(now_cpu) / median(before_cpu) - 1
        load = overhead["load"]
        lines += ["", f"Added build time: cold builds of the course (2 × {lessons} lessons), whole process, with search "
                      "and without it (the same code with search's build-time work skipped and an empty search box: "
                      f"bench/without_search.py), alternating, median of {len(now)}; wall time, and CPU time (user and "
                      "system, worker processes included), which the other work on a shared machine disturbs least. "
                      f"Load average (1 min) on this machine, {os.cpu_count()} CPUs: {load[0]:.1f} before, "
                      f"{load[1]:.1f} after.", "",
                  "| build | wall, median | fastest | slowest | CPU, median |", "|---|---|---|---|---|",
                  *[f"| {label} | {median(w):.2f} s | {min(w):.2f} s | {max(w):.2f} s | {median(c):.2f} s |"
                    for label, (w, c) in overhead["times"].items()],
                  "", f"- search (the section text, the index, its name put into the pages, the search box) adds "
                      f"**{added:+.1%}** wall time, "
                      f"**{added_cpu:+.1%}** CPU time (target ≤ 10 %: {'met' if added <= 0.10 else '**missed**'} by wall "
                      f"time, {'met' if added_cpu <= 0.10 else '**missed**'} by CPU time)"]
    return lines + [""]
