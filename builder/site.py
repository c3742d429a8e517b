"""Render every file of the site in memory: lesson pages, lesson lists, the entry page, 404,
sitemap, and the assets. Every internal link is relative and names a file.
"""

from __future__ import annotations

import importlib.util
import os
import io
import multiprocessing
import re
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from builder.content import FIGURES, Lesson, all_slugs, meta_line
from builder.errors import Problem, UserError
from builder.figures import TraceValues
from builder.i18n import Language, format_number
from builder.markdown import Outline, pygments_css, warm_up
from builder.pages import render_page
from builder.scenarios import to_json
from builder.sources import read_bytes
from builder.translation import state_of

# Found without importing plotly, which would cost more than the rest of the build's imports.
PLOTLY_JS = Path(importlib.util.find_spec("plotly").submodule_search_locations[0]) / "package_data" / "plotly.min.js"
ID_ATTRIBUTE = re.compile(r'id="([^"]+)"')
MIN_SLUGS_PER_JOB = 16  # below this a worker process costs more than it saves
ZIP_DATE = (2020, 1, 1, 0, 0, 0)  # fixed, so the archive is reproducible


@dataclass
class Rendering:
    """Every file of the site (or of a partial rebuild), the problems found, and each lesson's outline."""

    files: dict[str, bytes]
    problems: list[Problem]
    outlines: dict[tuple[str, str], Outline]  # (lang, slug) → what the parity check compares


@dataclass
class _Plan:
    """What every lesson page needs to know about the site around it."""

    base: str | None
    offline_link: bool
    listed: dict[str, list[str]]  # lang → slugs in list order
    position: dict[str, dict[str, int]] = field(init=False)  # lang → slug → index in `listed`

    def __post_init__(self):
        self.position = {lang: {slug: i for i, slug in enumerate(slugs)} for lang, slugs in self.listed.items()}


def render_site(inputs, base_url: str | None, only: set[str] | None = None,
                offline_link: bool = False, jobs: int = 1, on_pages=None) -> Rendering:
    """Render the whole site in memory, or with `only`, the lesson pages of those slugs plus the small
    pages every lesson appears on (lists, entry, 404). With jobs > 1, lesson pages render in that many
    worker processes. `on_pages(files)` receives each batch of finished lesson pages early."""
    config, lessons = inputs.config, inputs.lessons
    source_lang = config.source_language
    slugs = all_slugs(lessons, source_lang)
    languages = config.languages
    base = (base_url.rstrip("/") + "/") if base_url else None
    plan = _Plan(base, offline_link, {lang.code: _lesson_list(lessons, lang.code, source_lang, slugs) for lang in languages})
    units = [slug for slug in slugs if only is None or slug in only]
    results = dict(zip(units, _render_units(inputs, plan, units, jobs, on_pages or (lambda files: None))))

    out = Rendering({}, [], {})
    sitemap: list[tuple[str, list[tuple[str, str]]]] = []
    for lang in languages:  # gather the workers' results in page order, so the output does not depend on them
        translations = inputs.translations[lang.code]
        listed = plan.listed[lang.code]
        for slug in listed:
            if slug not in results:
                continue
            page = results[slug].pages[lang.code]
            out.problems += page.problems
            if page.html is not None:
                out.files[f"{lang.code}/{slug}.html"] = page.html
            if page.sitemap is not None:
                sitemap.append(page.sitemap)

        context = _context(lang, languages, "../", base, f"{lang.code}/index.html", offline_link)
        context.update(
            switcher=[_switch(other, lang, f"../{other.code}/index.html") for other in languages],
            alternates=[{"hreflang": o.html_lang, "href": f"../{o.code}/index.html"} for o in languages]
            + [{"hreflang": "x-default", "href": "../index.html"}],
            lessons=[_list_entry(lessons, lang.code, source_lang, slug, languages) for slug in listed],
        )
        try:
            out.files[f"{lang.code}/index.html"] = render_page(inputs.env, "list.html", translations, inputs.templates,
                                                               **context).encode("utf-8")
        except UserError as err:
            out.problems += err.problems
        sitemap.append((f"{lang.code}/index.html", [(o.html_lang, f"{o.code}/index.html") for o in languages]))
    for result in results.values():
        out.outlines.update(result.outlines)

    first = _language(languages, source_lang)  # the entry and 404 pages speak the source language
    choices = []
    for lang in languages:
        t = inputs.translations[lang.code]
        choices.append({"code": lang.code, "name": lang.name, "html_lang": lang.html_lang,
                        "href": f"{lang.code}/index.html", "title": t.gettext("Transformer lessons"),
                        "prompt": t.gettext("Read the lessons in this language")})
    for name in ("index.html", "404.html"):
        context = _context(first, languages, "" if name == "index.html" or base is None else base, base, name, offline_link)
        context.update(choices=choices, switcher=[], alternates=[])
        try:
            out.files[name] = render_page(inputs.env, name, inputs.translations[first.code], inputs.templates,
                                          **context).encode("utf-8")
        except UserError as err:
            out.problems += err.problems
    if base:
        out.files["sitemap.xml"] = _sitemap(base, sitemap).encode("utf-8")
    out.files[".nojekyll"] = b""
    if only is None:
        out.files.update(_assets(inputs.templates))
    return out


@dataclass
class _Page:
    html: bytes | None
    problems: list[Problem]
    sitemap: tuple[str, list[tuple[str, str]]] | None


@dataclass
class _Unit:
    """One slug's pages in every language, and its lessons' outlines."""

    pages: dict[str, _Page]
    outlines: dict[tuple[str, str], Outline]

    def files(self, slug: str) -> dict[str, bytes]:
        return {f"{lang}/{slug}.html": page.html for lang, page in self.pages.items() if page.html is not None}


_WORK = None  # (inputs, plan), set just before forking so workers inherit it instead of receiving a copy


def _render_units(inputs, plan: _Plan, units: list[str], jobs: int, on_pages) -> list[_Unit]:
    """Render each slug's pages, in worker processes when there are enough pages to be worth it."""
    global _WORK
    jobs = min(jobs, len(units) // MIN_SLUGS_PER_JOB)
    if jobs < 2 or not sys.platform.startswith("linux"):  # fork is safe (and cheap) only there
        done = []
        for slug in units:
            done.append(_render_unit(inputs, plan, slug))
            on_pages(done[-1].files(slug))
        return done
    _warm_up(inputs)
    chunks = [units[i::jobs * 4] for i in range(jobs * 4)]  # interleaved, so long and short lessons mix
    by_slug = {}
    _WORK = (inputs, plan)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for chunk, results in pool.imap_unordered(_render_chunk, chunks):
                for slug, unit in zip(chunk, results):
                    by_slug[slug] = unit
                    on_pages(unit.files(slug))
    finally:
        _WORK = None
    return [by_slug[slug] for slug in units]


def _render_chunk(slugs: list[str]) -> tuple[list[str], list[_Unit]]:
    inputs, plan = _WORK
    return slugs, [_render_unit(inputs, plan, slug) for slug in slugs]


def _warm_up(inputs) -> None:
    """Do once, before forking, what every worker would otherwise do for itself."""
    for name in ["lesson.html", *(f"figures/{kind}.html" for kind in FIGURES)]:
        try:
            inputs.env.get_template(name)
        except Exception:  # a broken template is reported by the page that uses it
            pass
    warm_up([lesson.body for by_slug in inputs.lessons.values() for lesson in by_slug.values()])
    for scenario in inputs.scenarios.values():
        scenario.data_json


def _render_unit(inputs, plan: _Plan, slug: str) -> _Unit:
    config, lessons = inputs.config, inputs.lessons
    source_lang, languages = config.source_language, config.languages
    unit = _Unit({}, {})
    for lang in languages:
        own = lessons[lang.code].get(slug)
        if own is not None:
            unit.outlines[(lang.code, slug)] = inputs.renderer.parse(own.body, own.path, own.body_line).outline()
    for lang in languages:
        listed = plan.listed[lang.code]
        index = plan.position[lang.code][slug]
        lesson, shown = _lesson_shown(lessons, lang.code, source_lang, slug)
        available = [other for other in languages if slug in lessons[other.code]]
        state = state_of(lesson, lessons[source_lang].get(slug)) if lang.code != source_lang else None
        context = _context(lang, languages, "../", plan.base, f"{lang.code}/{slug}.html", plan.offline_link)
        context.update(
            switcher=[_switch(other, lang, f"../{other.code}/{slug}.html") for other in languages],
            alternates=[{"hreflang": other.html_lang, "href": f"../{other.code}/{slug}.html"} for other in available]
            + ([{"hreflang": "x-default", "href": f"../{source_lang}/{slug}.html"}] if slug in lessons[source_lang] else []),
            notice=None if lesson is not None and (state is None or state.status == "current")
            else ("outdated" if lesson is not None else "untranslated"),
            notice_href=f"../{shown.lang if lesson is None else source_lang}/{slug}.html",
            notice_lang=_language(languages, shown.lang if lesson is None else source_lang),
            content_lang=_language(languages, shown.lang),
            prev=_neighbour(lessons, listed, index - 1, lang.code, source_lang),
            next=_neighbour(lessons, listed, index + 1, lang.code, source_lang),
        )
        try:
            html = _render_lesson(inputs, shown, lang, inputs.translations[lang.code], context).encode("utf-8")
        except UserError as err:
            unit.pages[lang.code] = _Page(None, err.problems, None)
            continue
        entry = (f"{lang.code}/{slug}.html", [(o.html_lang, f"{o.code}/{slug}.html") for o in available])
        unit.pages[lang.code] = _Page(html, [], entry if lesson is not None else None)
    return unit


def _context(lang: Language, languages, root: str, base: str | None, path: str, offline_link: bool) -> dict:
    """Return what every page's template needs."""
    return {
        "lang": lang, "languages": languages, "root": root, "offline_link": offline_link,
        "canonical": f"{base}{path}" if base else None,
        "fmt": lambda value, decimals=1: format_number(value, lang.locale, decimals),
    }


def _language(languages, code) -> Language:
    return next(lang for lang in languages if lang.code == code)


def _switch(other: Language, current: Language, href: str) -> dict:
    return {"code": other.code, "name": other.name, "html_lang": other.html_lang, "href": href,
            "current": other.code == current.code}


def _lesson_list(lessons, lang, source_lang, slugs) -> list[str]:
    """Return the slugs listed in `lang`: its own lessons and untranslated ones, in lesson order."""
    def key(slug):
        lesson = lessons[lang].get(slug) or lessons[source_lang].get(slug) or next(
            by[slug] for by in lessons.values() if slug in by)
        return (lesson.order, slug)
    return sorted(slugs, key=key)


def _lesson_shown(lessons, lang, source_lang, slug) -> tuple[Lesson | None, Lesson]:
    """Return (the lesson in `lang` or None, the lesson to show: own, else source, else any)."""
    own = lessons[lang].get(slug)
    if own is not None:
        return own, own
    shown = lessons[source_lang].get(slug) or next(by[slug] for by in lessons.values() if slug in by)
    return None, shown


def _neighbour(lessons, listed, index, lang, source_lang):
    if not 0 <= index < len(listed):
        return None
    slug = listed[index]
    lesson = _lesson_shown(lessons, lang, source_lang, slug)[1]
    return {"href": f"{slug}.html", "title": lesson.title, "html_lang": None}


def _list_entry(lessons, lang, source_lang, slug, languages) -> dict:
    own, shown = _lesson_shown(lessons, lang, source_lang, slug)
    return {"href": f"{slug}.html", "title": shown.title, "summary": shown.summary,
            "translated": own is not None, "content_lang": _language(languages, shown.lang),
            "original_href": f"../{shown.lang}/{slug}.html"}


def _render_lesson(inputs, lesson: Lesson, lang: Language, translations, context) -> str:
    """Render one lesson page: its figure first, then its body around it, then the page."""
    shown_lang = context["content_lang"]
    scenario = inputs.scenarios.get(lesson.scenario) if lesson.scenario else None
    if lesson.scenario and scenario is None:
        raise UserError([])  # the scenario file's own problem is already reported
    def resolve(ref):
        if scenario is None:
            return "", "trace values need a scenario in the front matter"
        return _remembered(inputs, ("ref", shown_lang.locale, ref), scenario,
                           lambda scenario, locale: TraceValues(scenario, locale).resolve(ref))

    figure_html, figure_json = "", None
    if lesson.figure and scenario:
        dims = [translations.pgettext("dimension", key) for key in scenario.dimensions]
        # The trace is serialised once per scenario; each page adds its own few members around it.
        figure_json = _json_object({"kind": to_json(lesson.figure), "trace": scenario.data_json,
                                    "walkthrough": to_json(lesson.walkthrough), "dimensions": to_json(dims),
                                    "locale": to_json(lang.locale)})

        def figure(scenario, _):  # sees only what its memo key names, so a remembered figure cannot be stale
            return render_page(inputs.env, f"figures/{lesson.figure}.html", translations, inputs.templates,
                               kind=lesson.figure, walkthrough=lesson.walkthrough, data=scenario.data, dims=dims,
                               twin=_remembered(inputs, ("twin", lang.locale), scenario, _twin_rows),
                               compare=_remembered(inputs, ("compare", lang.locale), scenario, _compare_rows),
                               figure_json=figure_json)
        figure_html = _remembered(inputs, ("figure", lang.code, lesson.figure, figure_json), scenario, figure)
    rendered = inputs.renderer.render(lesson.body, lesson.path, lesson.body_line, resolve, figure_html)
    if lesson.figure and not rendered.parsed.has_interactive:
        rendered.problems.append(Problem(lesson.path, lesson.body_line, "the lesson has a figure but no `::: interactive` to place it"))
    if len(lesson.walkthrough) != len(rendered.walkthrough):
        rendered.problems.append(Problem(lesson.path, rendered.parsed.walkthrough_line or meta_line(lesson.text, "walkthrough") or 1,
                                         f"the walkthrough list has {len(rendered.walkthrough)} steps but the front "
                                         f"matter names {len(lesson.walkthrough)}"))
    if rendered.problems:
        raise UserError(rendered.problems)
    toc = [{"level": level, "id": anchor, "text": text} for level, anchor, text, _ in rendered.parsed.sections if level == 2]
    page = render_page(inputs.env, "lesson.html", translations, inputs.templates, **context,
                       lesson=lesson, body=rendered.html, toc=toc, figure=figure_json is not None)
    seen, duplicates = set(), []
    for match in ID_ATTRIBUTE.finditer(page):  # literal first, then the space check: ten times faster
        if not page[match.start() - 1].isspace():
            continue  # data-id="…" and the like
        anchor = match.group(1)
        if anchor in seen:
            duplicates.append(anchor)
        seen.add(anchor)
    if duplicates:
        lines = {anchor: line for _, anchor, _, line in rendered.parsed.sections}
        raise UserError([Problem(lesson.path, lines.get(a), f"id {a!r} is used twice on the page (a heading id may "
                                                           "not repeat or reuse an id of the page template)") for a in duplicates])
    return page


def _json_object(members: dict[str, str]) -> str:
    """A JSON object from members already serialised, with keys sorted as `to_json` sorts them."""
    return "{" + ",".join(f"{to_json(key)}:{members[key]}" for key in sorted(members)) + "}"


def _remembered(inputs, key: tuple, scenario, make):
    """Return make(scenario, locale), computed once per scenario object and locale."""
    key = (*key, scenario.name)
    hit = inputs.memo.get(key)
    if hit is None or hit[0] is not scenario:  # a reloaded scenario (in the preview) starts afresh
        hit = inputs.memo[key] = (scenario, make(scenario, key[1]))
    return hit[1]


def _twin_rows(scenario, locale) -> dict:
    """The text twin of the depth map for the default state, for readers without JavaScript."""
    data = scenario.data
    run = data["runs"]["pre-on" if scenario.residual else "pre-off"]
    t = scenario.tracked
    rows = [{"block": 0, "vector": [format_number(v, locale, 2) for v in run["x0"][t]], "measure": format_number(0, locale, 2)}]
    key = "cumulative" if scenario.residual else "output"
    ffn_steps = [s for s in run["steps"] if s["sublayer"] == "ffn"]
    for b in range(scenario.depth):
        rows.append({"block": b + 1, "vector": [format_number(v, locale, 2) for v in ffn_steps[b]["after"][t]],
                     "measure": format_number(run["blocks"][key][b][t], locale, 2)})
    return {"residual": scenario.residual, "rows": rows}


def _compare_rows(scenario, locale) -> list[dict]:
    """Stream length per block under pre-norm and post-norm, for the norm-compare figure's table."""
    data, tracked = scenario.data, scenario.tracked
    pre, post = data["runs"]["pre-on"]["blocks"]["length"], data["runs"]["post-on"]["blocks"]["length"]
    return [{"block": b + 1, "pre": format_number(pre[b][tracked], locale, 2), "post": format_number(post[b][tracked], locale, 2)}
            for b in range(len(pre))]


SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def _sitemap(base: str, entries) -> str:
    """sitemap.xml with hreflang alternates, written by an XML library so every value is escaped."""
    from xml.etree import ElementTree as ET

    ET.register_namespace("", SITEMAP_NS)
    ET.register_namespace("xhtml", XHTML_NS)
    urlset = ET.Element(f"{{{SITEMAP_NS}}}urlset")
    for path, alternates in entries:
        url = ET.SubElement(urlset, f"{{{SITEMAP_NS}}}url")
        ET.SubElement(url, f"{{{SITEMAP_NS}}}loc").text = base + path
        for hreflang, alt in alternates:
            ET.SubElement(url, f"{{{XHTML_NS}}}link", rel="alternate", hreflang=hreflang, href=base + alt)
    ET.indent(urlset)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(urlset, encoding="unicode") + "\n"


def _assets(templates: Path) -> dict[str, bytes]:
    files = {}
    folder = templates / "assets"
    if folder.is_dir():
        inside = folder.resolve()
        for where, dirs, names in os.walk(folder):  # does not follow links to folders: they are checked below
            for name in sorted(dirs + names):
                path = Path(where) / name
                if path.is_symlink():
                    target = path.resolve()
                    if not target.is_relative_to(inside) or target.is_dir():
                        raise UserError(Problem(path, None, "a symbolic link that leaves the assets folder (or names a "
                                                            "folder) is not published; copy the file in instead"))
                if name in names:
                    files[f"assets/{path.relative_to(folder).as_posix()}"] = read_bytes(path)
    css = ("/* Generated by Pygments at build time. */\n" + pygments_css("default", ".highlight")
           + "\n@media (prefers-color-scheme: dark) {\n" + pygments_css("monokai", ".highlight") + "\n}\n")
    files["assets/pygments.css"] = css.encode("utf-8")
    if not PLOTLY_JS.exists():
        raise UserError(Problem(PLOTLY_JS, None, "plotly.min.js is missing from the installed plotly package"))
    files["assets/plotly.min.js"] = PLOTLY_JS.read_bytes()
    return files


def zip_site(files: dict[str, bytes]) -> bytes:
    """Return the site as a reproducible zip (sorted entries, fixed dates) for reading offline."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel in sorted(files):
            info = zipfile.ZipInfo(f"site/{rel}", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[rel])
    return buffer.getvalue()

