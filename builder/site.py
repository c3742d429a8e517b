"""Render every file of the site in memory: lesson pages, lesson lists, the entry page, 404,
sitemap, and the assets. Every internal link is relative and names a file.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

import plotly

from builder.content import Lesson, all_slugs, meta_line
from builder.errors import Problem, UserError
from builder.figures import TraceValues
from builder.i18n import Language, format_number
from builder.markdown import pygments_css
from builder.pages import render_page
from builder.scenarios import scenario_to_data, to_json
from builder.translation import state_of

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
ZIP_DATE = (2020, 1, 1, 0, 0, 0)  # fixed, so the archive is reproducible


def render_site(inputs, base_url: str | None, only: set[str] | None = None,
                offline_link: bool = False) -> tuple[dict[str, bytes], list[Problem]]:
    """Return ({relative path: bytes}, problems) for the whole site, or with `only`, for the lesson
    pages of those slugs plus the small pages every lesson appears on (lists, entry, 404)."""
    files: dict[str, bytes] = {}
    problems: list[Problem] = []
    config, lessons = inputs.config, inputs.lessons
    source_lang = config.source_language
    slugs = all_slugs(lessons, source_lang)
    languages = config.languages
    base = (base_url.rstrip("/") + "/") if base_url else None
    sitemap: list[tuple[str, list[tuple[str, str]]]] = []

    for lang in languages:
        translations = inputs.translations[lang.code]
        own = lessons[lang.code]
        listed = _lesson_list(lessons, lang.code, source_lang, slugs)
        for index, slug in enumerate(listed):
            if only is not None and slug not in only:
                continue
            lesson, shown = _lesson_shown(lessons, lang.code, source_lang, slug)
            available = [other for other in languages if slug in lessons[other.code]]
            state = state_of(own.get(slug), lessons[source_lang].get(slug)) if lang.code != source_lang else None
            context = _context(lang, languages, "../", base, f"{lang.code}/{slug}.html", offline_link)
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
                page = _render_lesson(inputs, shown, lang, translations, context)
            except UserError as err:
                problems += err.problems
                continue
            files[f"{lang.code}/{slug}.html"] = page.encode("utf-8")
            if lesson is not None:
                sitemap.append((f"{lang.code}/{slug}.html", [(o.html_lang, f"{o.code}/{slug}.html") for o in available]))

        context = _context(lang, languages, "../", base, f"{lang.code}/index.html", offline_link)
        context.update(
            switcher=[_switch(other, lang, f"../{other.code}/index.html") for other in languages],
            alternates=[{"hreflang": o.html_lang, "href": f"../{o.code}/index.html"} for o in languages]
            + [{"hreflang": "x-default", "href": "../index.html"}],
            lessons=[_list_entry(lessons, lang.code, source_lang, slug, languages) for slug in listed],
        )
        try:
            files[f"{lang.code}/index.html"] = render_page(inputs.env, "list.html", translations, inputs.templates,
                                                           **context).encode("utf-8")
        except UserError as err:
            problems += err.problems
        sitemap.append((f"{lang.code}/index.html", [(o.html_lang, f"{o.code}/index.html") for o in languages]))

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
            files[name] = render_page(inputs.env, name, inputs.translations[first.code], inputs.templates,
                                      **context).encode("utf-8")
        except UserError as err:
            problems += err.problems
    if base:
        files["sitemap.xml"] = _sitemap(base, sitemap).encode("utf-8")
    files[".nojekyll"] = b""
    if only is None:
        files.update(_assets(inputs.templates))
    return files, problems


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
    values = TraceValues(scenario, shown_lang.locale) if scenario else None

    def resolve(ref):
        if values is None:
            return "", "trace values need a scenario in the front matter"
        return values.resolve(ref)

    figure_html, figure_data = "", None
    if lesson.figure and scenario:
        data = scenario_to_data(scenario)
        dims = [translations.pgettext("dimension", key) for key in scenario.dimensions]
        figure_data = {"kind": lesson.figure, "trace": data, "walkthrough": lesson.walkthrough,
                       "dimensions": dims, "locale": lang.locale}
        figure_html = render_page(inputs.env, f"figures/{lesson.figure}.html", translations, inputs.templates,
                                  **context, lesson=lesson, data=data, dims=dims,
                                  twin=_twin_rows(scenario, data, lang.locale),
                                  compare=_compare_rows(data, scenario.tracked, lang.locale),
                                  figure_json=to_json(figure_data))
    rendered = inputs.renderer.render(lesson.body, lesson.path, lesson.body_line, resolve, figure_html)
    if lesson.figure and not rendered.has_interactive:
        rendered.problems.append(Problem(lesson.path, lesson.body_line, "the lesson has a figure but no `::: interactive` to place it"))
    if len(lesson.walkthrough) != len(rendered.walkthrough):
        rendered.problems.append(Problem(lesson.path, rendered.walkthrough_line or meta_line(lesson.text, "walkthrough") or 1,
                                         f"the walkthrough list has {len(rendered.walkthrough)} steps but the front "
                                         f"matter names {len(lesson.walkthrough)}"))
    if rendered.problems:
        raise UserError(rendered.problems)
    toc = [{"level": level, "id": anchor, "text": text} for level, anchor, text, _ in rendered.sections if level == 2]
    page = render_page(inputs.env, "lesson.html", translations, inputs.templates, **context,
                       lesson=lesson, body=rendered.html, toc=toc, figure=figure_data)
    seen, duplicates = set(), []
    for anchor in re.findall(r'\sid="([^"]+)"', page):
        if anchor in seen:
            duplicates.append(anchor)
        seen.add(anchor)
    if duplicates:
        lines = {anchor: line for _, anchor, _, line in rendered.sections}
        raise UserError([Problem(lesson.path, lines.get(a), f"id {a!r} is used twice on the page (a heading id may "
                                                           "not repeat or reuse an id of the page template)") for a in duplicates])
    return page


def _twin_rows(scenario, data, locale) -> dict:
    """The text twin of the depth map for the default state, for readers without JavaScript."""
    run = data["runs"]["pre-on" if scenario.residual else "pre-off"]
    t = scenario.tracked
    rows = [{"block": 0, "vector": [format_number(v, locale, 2) for v in run["x0"][t]], "measure": format_number(0, locale, 2)}]
    key = "cumulative" if scenario.residual else "output"
    ffn_steps = [s for s in run["steps"] if s["sublayer"] == "ffn"]
    for b in range(scenario.depth):
        rows.append({"block": b + 1, "vector": [format_number(v, locale, 2) for v in ffn_steps[b]["after"][t]],
                     "measure": format_number(run["blocks"][key][b][t], locale, 2)})
    return {"residual": scenario.residual, "rows": rows}


def _compare_rows(data, tracked, locale) -> list[dict]:
    """Stream length per block under pre-norm and post-norm, for the norm-compare figure's table."""
    pre, post = data["runs"]["pre-on"]["blocks"]["length"], data["runs"]["post-on"]["blocks"]["length"]
    return [{"block": b + 1, "pre": format_number(pre[b][tracked], locale, 2), "post": format_number(post[b][tracked], locale, 2)}
            for b in range(len(pre))]


def _sitemap(base: str, entries) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">']
    for path, alternates in entries:
        out.append(f"  <url><loc>{xml_escape(base + path)}</loc>")
        for hreflang, alt in alternates:
            out.append(f'    <xhtml:link rel="alternate" hreflang="{hreflang}" href="{xml_escape(base + alt)}"/>')
        out.append("  </url>")
    out.append("</urlset>")
    return "\n".join(out) + "\n"


def _assets(templates: Path) -> dict[str, bytes]:
    files = {}
    folder = templates / "assets"
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                files[f"assets/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
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

