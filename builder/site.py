"""Render every file of the site in memory: lesson pages, lesson lists, the entry page, 404,
sitemap, and the assets. Every internal link is relative and names a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from builder import publish, search
from builder.content import all_slugs
from builder.errors import Problem, UserError
from builder.lesson_page import Plan, language, lesson_shown, switch
from builder.lesson_page import context as context_
from builder.markdown import Outline
from builder.pages import render_page
from builder.workers import render_units


@dataclass
class Rendering:
    """Every file of the site (or of a partial rebuild), the problems found, each lesson's outline, and
    the warnings about the lessons' wording (the terminology check)."""

    files: dict[str, bytes]
    problems: list[Problem]
    outlines: dict[tuple[str, str], Outline]  # (lang, slug) → what the parity check compares
    warnings: list[Problem] = field(default_factory=list)
    # Pages given to `on_pages` before the search index was named: where each holds the placeholder, and
    # the name to write there (the same length), relative path → [(offset, bytes)].
    patches: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)


def render_site(inputs, base_url: str | None, only: set[str] | None = None,
                offline_link: bool = False, jobs: int = 1, on_pages=None, searched: dict | None = None,
                preview: bool = False) -> Rendering:
    """Render the whole site in memory, or with `only`, the lesson pages of those slugs plus the small
    pages every lesson appears on (lists, entry, 404). With jobs > 1, lesson pages render in that many
    worker processes. `on_pages(files)` receives each lesson page as soon as it is rendered, to be
    written while the rest renders.

    Every page names its language's search index, which is known only when every page is rendered: a
    page holds a placeholder as long as the name until then. The returned files have the name put in;
    the pages given to `on_pages` early are finished by the rendering's `patches`. Then the service
    worker is written, named by the hash of everything else. `searched` keeps each page's sections
    (and each language's last index) between the partial renders of the preview (`preview=True`), which names the index without a hash, so that an edit rewrites the index
    and the pages edited, not every page that names it, and has no service worker (its pages are
    served fresh on every reload)."""
    config, lessons = inputs.config, inputs.lessons
    source_lang = config.source_language
    slugs = all_slugs(lessons, source_lang)
    languages = config.languages
    base = (base_url.rstrip("/") + "/") if base_url else None
    plan = Plan(base, offline_link, {lang.code: _lesson_list(lessons, lang.code, source_lang, slugs) for lang in languages},
                preview)
    units = [slug for slug in slugs if only is None or slug in only]
    written: set[str] = set()  # the pages given to on_pages, still holding the search index's placeholder

    def write(files: dict[str, bytes]) -> None:
        written.update(files)
        on_pages(files)

    results = dict(zip(units, render_units(inputs, plan, units, jobs, write if on_pages else lambda files: None)))
    searched = {} if searched is None else searched

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
                out.files.update(page.assets)
                searched[(lang.code, slug)] = (lesson_shown(lessons, lang.code, source_lang, slug)[1].title, page.sections)
            if page.sitemap is not None:
                sitemap.append(page.sitemap)

        context = context_(lang, languages, "../", base, f"{lang.code}/index.html", offline_link)
        context.update(
            switcher=[switch(other, lang, f"../{other.code}/index.html") for other in languages],
            alternates=[{"hreflang": o.html_lang, "href": f"{base}{o.code}/index.html"} for o in languages]
            + [{"hreflang": "x-default", "href": f"{base}index.html"}] if base else [],  # absolute or none
            lessons=[_list_entry(lessons, lang.code, source_lang, slug, languages) for slug in listed],
        )
        try:
            out.files[f"{lang.code}/index.html"] = render_page(inputs.env, "list.html", translations, inputs.templates,
                                                               **context).encode("utf-8")
        except UserError as err:
            out.problems += err.problems
        sitemap.append((f"{lang.code}/index.html", [(o.html_lang, f"{o.code}/index.html") for o in languages]))
        # What the service worker shows for a page not kept on this device while there is no network.
        context = context_(lang, languages, "../", None, f"{lang.code}/offline.html", offline_link)
        context.update(switcher=[], alternates=[])
        try:
            out.files[f"{lang.code}/offline.html"] = render_page(inputs.env, "offline.html", translations,
                                                                 inputs.templates, **context).encode("utf-8")
        except UserError as err:
            out.problems += err.problems
    for result in results.values():
        out.outlines.update(result.outlines)
        out.warnings += result.warnings

    first = language(languages, source_lang)  # the entry and 404 pages speak the source language
    choices = []
    for lang in languages:
        t = inputs.translations[lang.code]
        choices.append({"code": lang.code, "name": lang.name, "html_lang": lang.html_lang,
                        "href": f"{lang.code}/index.html", "title": t.gettext("Transformer lessons"),
                        "prompt": t.gettext("Read the lessons in this language"), "not_found": t.gettext("Page not found"),
                        "skip": t.gettext("Skip to content"),
                        "offline": t.gettext("Pages you open while online are kept on this device for reading offline.")})
    for name in ("index.html", "404.html"):
        context = context_(first, languages, "" if name == "index.html" or base is None else base, base, name, offline_link)
        context.update(choices=choices, switcher=[], alternates=[])
        try:
            out.files[name] = render_page(inputs.env, name, inputs.translations[first.code], inputs.templates,
                                          **context).encode("utf-8")
        except UserError as err:
            out.problems += err.problems
    if base:
        out.files["sitemap.xml"] = publish.sitemap(base, sitemap)
    for scenario in inputs.scenarios.values():  # the traces behind every figure, for readers who want the numbers
        out.files[f"data/{scenario.name}.json"] = scenario.data_json.encode("utf-8")
    out.files[".nojekyll"] = b""
    if only is None:  # every page is here, so the code's colours can be cut to the token classes they use
        out.files.update(publish.assets(inputs.templates, publish.code_tokens(out.files)))
    names = {}
    for lang in languages:
        pages = [(f"{lang.code}/{slug}.html", *searched[(lang.code, slug)]) for slug in plan.listed[lang.code]
                 if (lang.code, slug) in searched]
        if preview:  # an edit changes one language's pages: the others keep the index they had
            kept = searched.get(("index", lang.code, None))
            index = kept[1] if kept is not None and kept[0] == pages else search.build_index(lang.html_lang, pages)
            searched[("index", lang.code, None)] = (pages, index)
        else:
            index = search.build_index(lang.html_lang, pages)
        names[lang.code] = search.index_name(lang.code, None if preview else index)
        out.files[names[lang.code]] = index
    out.patches = search.fill_placeholders(out.files, names, written)
    if only is None and not preview:
        out.files["sw.js"] = publish.service_worker(out.files, inputs.templates, [lang.code for lang in languages],
                                                    source_lang)
    return out


def code_colours(files: dict[str, bytes]) -> dict[str, bytes]:
    """The code colours for these pages (every page of the site): the preview's partial rebuilds renew them."""
    return {"assets/pygments.css": publish.code_colours(publish.code_tokens(files))}


def _lesson_list(lessons, lang, source_lang, slugs) -> list[str]:
    """Return the slugs listed in `lang`: its own lessons and untranslated ones, in lesson order."""
    def key(slug):
        lesson = lessons[lang].get(slug) or lessons[source_lang].get(slug) or next(
            by[slug] for by in lessons.values() if slug in by)
        return (lesson.order, slug)
    return sorted(slugs, key=key)


def _list_entry(lessons, lang, source_lang, slug, languages) -> dict:
    own, shown = lesson_shown(lessons, lang, source_lang, slug)
    return {"href": f"{slug}.html", "title": shown.title, "summary": shown.summary,
            "translated": own is not None, "content_lang": language(languages, shown.lang),
            "original_href": f"../{shown.lang}/{slug}.html"}
