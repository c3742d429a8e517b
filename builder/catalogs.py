"""UI-string catalogs: extract from templates and scenarios, update each language, load for a build.

Files: content/messages.pot (the template, extracted; never edit) and
content/<lang>/messages.po (one per language, edited by translators).
`python -m builder catalog` runs Babel's extract → update (or init) in one step.
"""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from builder.errors import Problem, UserError
from builder.scenarios import load_scenarios
from builder.i18n import (CATALOG_NAME, TEMPLATE_NAME, SiteConfig, check_catalog, compile_catalog,
                          load_site_config, read_catalog)

PROJECT = "lesson-builder"
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


def extract_scenarios(fileobj, keywords, comment_tags, options):
    """Babel extractor: a scenario's title, as `pgettext("scenario", title)`, and its dimension keys, as
    `pgettext("dimension", key)`."""
    text = fileobj.read().decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return
    title = data.get("title")
    if isinstance(title, str) and title:
        line = next((n for n, row in enumerate(text.splitlines(), 1) if row.startswith("title")), 1)
        yield line, "pgettext", ("scenario", title), ["The title of an example sentence (its words stay English)"]
    dimensions = data.get("dimensions")
    # A malformed scenario is reported by the build; extraction takes what is usable.
    for key in dimensions if isinstance(dimensions, list) else []:
        if not isinstance(key, str):
            continue
        line = next((n for n, row in enumerate(text.splitlines(), 1) if f'"{key}"' in row), 1)
        yield line, "pgettext", ("dimension", key), ["A dimension of the example vectors (a label for this example only)"]


def extract_template(content: Path, templates: Path) -> Catalog:
    """Extract every translatable string from the templates and the scenarios."""
    template = Catalog(project=PROJECT, charset="utf-8", fuzzy=False)
    sources = [
        (templates, [("**.html", "jinja2"), ("**.xml", "jinja2")], {"**.html": {"extensions": "jinja2.ext.i18n"},
                                                                  "**.xml": {"extensions": "jinja2.ext.i18n"}}),
        (content / "scenarios", [("*.toml", "builder.catalogs:extract_scenarios")], {}),
        (Path(__file__).parent, [("site.py", "python")], {}),  # the entry page's per-language strings
        (Path(__file__).parent / "figures", [("**.py", "python"), ("**.html", "jinja2")],  # the figure kinds' labels
         {"**.html": {"extensions": "jinja2.ext.i18n"}}),
    ]
    for folder, method_map, options_map in sources:
        for filename, lineno, message, comments, context in extract_from_dir(
            str(folder), method_map=method_map, options_map=options_map, keywords=KEYWORDS,
            comment_tags=("Translators:",), strip_comment_tags=True,
        ):
            location = (f"{folder.name}/{filename}", lineno)
            template.add(message, None, [location], auto_comments=comments, context=context)
    return template


def update_catalogs(content: Path, templates: Path) -> list[str]:
    """Write content/messages.pot, then update (or create) every language's messages.po."""
    config = load_site_config(content)
    _, problems = load_scenarios(content / "scenarios")  # their dimension names become messages
    if problems:
        raise UserError(problems)
    template = extract_template(content, templates)
    _write(content / TEMPLATE_NAME, template)
    lines = [f"{content / TEMPLATE_NAME}: {len(template)} messages"]
    for lang in config.languages:
        path = content / lang.code / CATALOG_NAME
        if path.exists():
            catalog = read_catalog(path, lang.locale)
            catalog.update(template, update_header_comment=False)
            action = "updated"
        else:
            catalog = Catalog(locale=lang.locale, project=PROJECT, charset="utf-8")
            catalog.update(template)
            action = "created"
        _write(path, catalog, ignore_obsolete=False)
        counts = {"untranslated": sum(1 for m in catalog if m.id and not m.string),
                  "fuzzy": sum(1 for m in catalog if m.id and m.fuzzy)}
        lines.append(f"{path}: {action}; {counts['untranslated']} untranslated, {counts['fuzzy']} fuzzy")
    return lines


def _write(path: Path, catalog: Catalog, ignore_obsolete: bool = True) -> None:
    buffer = io.BytesIO()
    # No dates or line numbers: catalogs stay stable in version control across runs.
    catalog.creation_date = catalog.revision_date = None
    write_po(buffer, catalog, width=100, omit_header=False, sort_output=True, include_lineno=False,
             ignore_obsolete=ignore_obsolete)
    text = "\n".join(line for line in buffer.getvalue().decode("utf-8").splitlines()
                     if not line.startswith(('"POT-Creation-Date', '"PO-Revision-Date', '"Generated-By')))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")


def load_translations(content: Path, config: SiteConfig | None = None):
    """Read, check and compile every language's catalog: ({lang: Translations}, problems)."""
    config = config or load_site_config(content)
    problems: list[Problem] = []
    translations = {}
    try:
        template = read_catalog(content / TEMPLATE_NAME)
    except UserError as err:
        return {}, err.problems
    for lang in config.languages:
        path = content / lang.code / CATALOG_NAME
        try:
            catalog = read_catalog(path, lang.locale)
        except UserError as err:
            problems += err.problems
            continue
        problems += check_catalog(catalog, template, path)
        try:
            translations[lang.code] = compile_catalog(catalog, path)
        except UserError as err:
            problems += err.problems
    return translations, problems
