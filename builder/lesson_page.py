"""One lesson's pages, in every language: the page context (switcher, alternates, notices, neighbours),
the lesson body with its trace values and figures, and the checks that need the rendered page.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from builder.content import Lesson, meta_line
from builder.errors import Problem, UserError
from builder.figures.page import check_args, figure_number, figure_views, more_script, page_data, render_figure
from builder.i18n import Language, format_number
from builder.markdown import Outline
from builder.pages import json_for_script, render_page
from builder.references import TraceValues
from builder.scenarios import to_json
from builder.checks import missing_anchors
from builder.search import HASH_LENGTH, Section, page_sections, search_context
from builder.terminology import check_lesson
from builder.translation import status_of

ID_ATTRIBUTE = re.compile(r'id="([^"]+)"')


@dataclass
class Plan:
    """What every lesson page needs to know about the site around it."""

    base: str | None
    offline_link: bool
    listed: dict[str, list[str]]  # lang → slugs in list order
    preview: bool = False  # the preview names a page's own assets without a hash: an edit rewrites them in place
    position: dict[str, dict[str, int]] = field(init=False)  # lang → slug → index in `listed`

    def __post_init__(self):
        self.position = {lang: {slug: i for i, slug in enumerate(slugs)} for lang, slugs in self.listed.items()}


@dataclass
class Page:
    html: bytes | None
    problems: list[Problem]
    sitemap: tuple[str, list[tuple[str, str]]] | None
    sections: list[Section] = field(default_factory=list)  # what search finds on it
    assets: dict[str, bytes] = field(default_factory=dict)  # its other scenarios' views (figures/page.py more_script)


@dataclass
class Unit:
    """One slug's pages in every language, its lessons' outlines, and the warnings about their wording."""

    pages: dict[str, Page]
    outlines: dict[tuple[str, str], Outline]
    warnings: list[Problem] = field(default_factory=list)

    def files(self, slug: str) -> dict[str, bytes]:
        files = {f"{lang}/{slug}.html": page.html for lang, page in self.pages.items() if page.html is not None}
        for page in self.pages.values():
            files.update(page.assets)
        return files


def context(lang: Language, languages, root: str, base: str | None, path: str, offline_link: bool) -> dict:
    """Return what every page's template needs."""
    return {
        "lang": lang, "languages": languages, "root": root, "offline_link": offline_link,
        "canonical": f"{base}{path}" if base else None,
        "fmt": lambda value, decimals=1: format_number(value, lang.locale, decimals),
        "search": search_context(lang),
    }


def language(languages, code) -> Language:
    return next(lang for lang in languages if lang.code == code)


def switch(other: Language, current: Language, href: str) -> dict:
    """A language switcher entry, naming the language in the reader's language and in its own."""
    return {"code": other.code, "name": other.name, "html_lang": other.html_lang, "href": href,
            "current": other.code == current.code, "label": current.display_name(other)}


def lesson_shown(lessons, lang, source_lang, slug) -> tuple[Lesson | None, Lesson]:
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
    lesson = lesson_shown(lessons, lang, source_lang, slug)[1]
    return {"href": f"{slug}.html", "title": lesson.title, "html_lang": None}


def render_unit(inputs, plan: Plan, slug: str) -> Unit:
    """Render one slug's page in every language."""
    config, lessons = inputs.config, inputs.lessons
    source_lang, languages = config.source_language, config.languages
    unit = Unit({}, {})
    for lang in languages:
        own = lessons[lang.code].get(slug)
        if own is not None:
            parsed = inputs.renderer.parse(own.body, own.path, own.body_line)
            unit.outlines[(lang.code, slug)] = parsed.outline()
            unit.warnings += check_lesson(inputs.glossary, lang.code, own.path,
                                          {key: meta_line(own.text, key) for key in ("title", "summary")},
                                          own.meta, parsed.tokens)
    for lang in languages:
        listed = plan.listed[lang.code]
        index = plan.position[lang.code][slug]
        lesson, shown = lesson_shown(lessons, lang.code, source_lang, slug)
        available = [other for other in languages if slug in lessons[other.code]]
        status = status_of(lesson, lessons[source_lang].get(slug)) if lang.code != source_lang else None
        anchors, missing = _missing_sections(inputs, unit, lessons, source_lang, lang.code, slug) \
            if status in ("outdated", "unmarked") else ([], [])
        translations = inputs.translations[lang.code]
        page = context(lang, languages, "../", plan.base, f"{lang.code}/{slug}.html", plan.offline_link)
        page.update(
            switcher=[switch(other, lang, f"../{other.code}/{slug}.html") for other in languages],
            # Search engines accept only absolute alternates: without --base-url there are none to give.
            alternates=[{"hreflang": other.html_lang, "href": f"{plan.base}{other.code}/{slug}.html"} for other in available]
            + ([{"hreflang": "x-default", "href": f"{plan.base}{source_lang}/{slug}.html"}] if slug in lessons[source_lang] else [])
            if plan.base else [],
            notice="untranslated" if lesson is None else status if status in ("outdated", "unmarked") else None,
            missing_sections=missing,
            notice_href=f"../{shown.lang if lesson is None else source_lang}/{slug}.html",
            notice_lang=language(languages, shown.lang if lesson is None else source_lang),
            content_lang=language(languages, shown.lang),
            prev=_neighbour(lessons, listed, index - 1, lang.code, source_lang),
            next=_neighbour(lessons, listed, index + 1, lang.code, source_lang),
        )
        try:
            html, sections, assets = render_lesson(inputs, shown, lang, translations, page, anchors, slug, plan.preview)
        except UserError as err:
            unit.pages[lang.code] = Page(None, err.problems, None)
            continue
        entry = (f"{lang.code}/{slug}.html", [(o.html_lang, f"{o.code}/{slug}.html") for o in available])
        unit.pages[lang.code] = Page(html.encode("utf-8"), [], entry if lesson is not None else None, sections, assets)
    return unit


def _missing_sections(inputs, unit: Unit, lessons, source_lang: str, lang: str, slug: str):
    """For a translation built although it is not current: the source's sections it lacks, as anchors
    to place (so a reader switching language at `#section` lands where that section would be) and as
    links for the notice (id, title in the source)."""
    source = lessons[source_lang].get(slug)
    a, b = unit.outlines.get((source_lang, slug)), unit.outlines.get((lang, slug))
    if source is None or a is None or b is None:
        return [], []
    anchors = missing_anchors(a, b)
    titles = {anchor: text for _, anchor, text, _ in inputs.renderer.parse(source.body, source.path, source.body_line).sections}
    return anchors, [{"id": anchor, "title": titles.get(anchor, anchor)} for anchor, _ in anchors]


def place_anchors(html: str, anchors: list[tuple[str, str | None]]) -> str:
    """Put an empty element with each missing section's id before the section it would precede."""
    for anchor, before in anchors:
        mark = f'<span id="{anchor}" class="section-anchor"></span>\n'
        if f' id="{anchor}"' in html:
            continue  # the id is taken on this page: never make it twice
        at = -1 if before is None else next((i for i in (html.find(f'<h2 id="{before}"'), html.find(f'<h3 id="{before}"'))
                                             if i >= 0), -1)
        html = html + mark if at < 0 else html[:at] + mark + html[at:]
    return html


def render_lesson(inputs, lesson: Lesson, lang: Language, translations, page: dict,
                  anchors: list[tuple[str, str | None]] = (), slug: str = "",
                  preview: bool = False) -> tuple[str, list[Section], dict[str, bytes]]:
    """Render one lesson page: its figures first, then its body around them, then the page. Return the
    page, its sections' text for search, and its own assets (the script with its figures' other
    scenarios, named for `slug` and, unless `preview`, its content)."""
    shown_lang = page["content_lang"]
    scenarios = [inputs.scenarios[name] for name in lesson.scenarios if name in inputs.scenarios]
    if len(scenarios) != len(lesson.scenarios):
        # A scenario file's own problem is reported for it; the lesson's own mistakes that do not need
        # the trace (headings, math, emphasis, typed figures) are reported now, not after that fix.
        raise UserError(inputs.renderer.parse(lesson.body, lesson.path, lesson.body_line).problems)
    by_name = {s.name: s for s in scenarios}

    def resolve(ref, locale=shown_lang.locale):
        if not scenarios:
            return "", "trace values need a scenario in the front matter"
        return remembered(inputs, ("ref", locale, ref), scenarios,
                          lambda: TraceValues(by_name, lesson.scenario, locale).resolve(ref))

    figures, data, more, assets = {}, None, None, {}
    parsed = inputs.renderer.parse(lesson.body, lesson.path, lesson.body_line)
    args = {name: parsed.figure_args.get(name, ()) for name in lesson.figures}
    wrong = [Problem(lesson.path, line, f"`::: interactive {name}`: {problem}") for name, line in parsed.placed
             if name in args and (problem := check_args(name, args[name], scenarios))]
    if wrong:
        raise UserError(wrong)
    # Each interactive figure's number, from where the lesson places it among its figures (diagrams too).
    numbers = {figure.name or (lesson.figures[0] if len(lesson.figures) == 1 else ""): n
               for n, figure in enumerate(parsed.figures, 1) if figure.container == "interactive"}
    if lesson.figures:
        labels = inputs.glossary.break_units(lang.code)  # figure labels never break inside a term either
        views = {name: remembered(inputs, ("views", lang.code, name, tuple(lesson.walkthrough), args[name], labels), scenarios,
                                  lambda name=name: figure_views(name, lang, translations, scenarios, lesson.walkthrough,
                                                                 args[name], labels))
                 for name in lesson.figures}
        # A key holds everything its part is made from (the views: the walkthrough and the figure's words).
        figures = {name: remembered(inputs, ("figure", lang.code, name, tuple(lesson.figures), tuple(lesson.walkthrough),
                                             args[name], labels, numbers.get(name)), scenarios,
                                    lambda name=name: render_figure(inputs.env, inputs.templates, translations, lang, name,
                                                                    views[name], scenarios, bool(lesson.walkthrough),
                                                                    lesson.figures, labels,
                                                                    figure_number(translations, numbers[name])
                                                                    if name in numbers else ""))
                   for name in lesson.figures}
        # Serialised (and escaped for the script element) once: every page with these figures embeds the same data.
        def serialised():
            inline, rest = page_data(translations, lang, scenarios, lesson.walkthrough, views, labels)
            return json_for_script(to_json(inline)), rest and more_script(rest)
        data, script = remembered(inputs, ("data", lang.code, tuple(lesson.figures), tuple(lesson.walkthrough),
                                           tuple(args.items()), labels), scenarios, serialised)
        if script:
            more = more_name(lang.code, slug or lesson.slug, None if preview else script)
            assets[more] = script
    units = inputs.glossary.break_units(shown_lang.code)  # headings never break inside a term
    rendered = inputs.renderer.render(lesson.body, lesson.path, lesson.body_line, resolve, figures, shown_lang.code, units,
                                      resolve_plain=lambda ref: resolve(ref, None),  # output blocks: as Python prints
                                      figure_number=lambda n: figure_number(translations, n))
    placed = [name for name, _ in rendered.parsed.placed]
    for name, line in rendered.parsed.placed:
        if name and name not in lesson.figures or not name and len(lesson.figures) != 1:
            rendered.problems.append(Problem(lesson.path, line, f"`::: interactive {name}` names no figure of this lesson "
                                                                f"(its front matter lists {lesson.figures})"))
    for name in lesson.figures:
        count = placed.count(name) + (placed.count("") if len(lesson.figures) == 1 else 0)
        if count != 1:
            rendered.problems.append(Problem(lesson.path, meta_line(lesson.text, "figures") or lesson.body_line,
                                             f"the figure {name!r} is placed {count} times; place it once with "
                                             f"`::: interactive {name}`"))
    if len(lesson.walkthrough) != len(rendered.walkthrough):
        rendered.problems.append(Problem(lesson.path, rendered.parsed.walkthrough_line or meta_line(lesson.text, "walkthrough") or 1,
                                         f"the walkthrough list has {len(rendered.walkthrough)} steps but the front "
                                         f"matter names {len(lesson.walkthrough)}"))
    if rendered.problems:
        raise UserError(rendered.problems)
    toc = [{"level": level, "id": anchor, "text": text} for level, anchor, text, _ in rendered.parsed.sections if level == 2]
    body = place_anchors(rendered.html, list(anchors)) if anchors else rendered.html
    html = render_page(inputs.env, "lesson.html", translations, inputs.templates, **page,
                       lesson=lesson, body=body, toc=toc, figure=bool(lesson.figures), page_data=data, more_data=more,
                       phrase_units={code: inputs.glossary.break_units(code) for code in {lang.code, shown_lang.code}})
    check_ids(html, lesson, rendered)
    return html, page_sections(rendered.html, figures.values()), assets


def more_name(lang: str, slug: str, script: bytes | None) -> str:
    """The path from the site's root of a page's script with its figures' other scenarios, named by its
    content like the search index, so a browser or the service worker may keep it as long as it likes
    and never serve a stale one (without `script`, the preview's: by the page alone, so an edit
    replaces it rather than leaving the old one beside it)."""
    if script is None:
        return f"assets/data/{lang}-{slug}.js"
    return f"assets/data/{lang}-{slug}.{hashlib.sha256(script).hexdigest()[:HASH_LENGTH]}.js"


def check_ids(html: str, lesson: Lesson, rendered) -> None:
    """Raise when an id is used twice on the page (a heading id clashing with the template's own)."""
    seen, duplicates = set(), []
    for match in ID_ATTRIBUTE.finditer(html):  # literal first, then the space check: ten times faster
        if not html[match.start() - 1].isspace():
            continue  # data-id="…" and the like
        anchor = match.group(1)
        if anchor in seen:
            duplicates.append(anchor)
        seen.add(anchor)
    if duplicates:
        lines = {anchor: line for _, anchor, _, line in rendered.parsed.sections}
        raise UserError([Problem(lesson.path, lines.get(a), f"id {a!r} is used twice on the page (a heading id may "
                                                           "not repeat or reuse an id of the page template)") for a in duplicates])


def remembered(inputs, key: tuple, scenarios, make):
    """Return make(), computed once per key and these very scenario objects (a scenario reloaded by the
    preview starts afresh)."""
    key = (*key, tuple(s.name for s in scenarios))
    hit = inputs.memo.get(key)
    if hit is None or len(hit[0]) != len(scenarios) or any(a is not b for a, b in zip(hit[0], scenarios)):
        hit = inputs.memo[key] = (tuple(scenarios), make())
    return hit[1]
