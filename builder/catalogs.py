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
from babel.messages.extract import extract, extract_from_dir
from babel.messages.pofile import write_po

from builder.errors import Problem, UserError
from builder.scenarios import load_scenarios
from builder.sources import content_target, list_folder, read_bytes, write_content_file
from builder.i18n import (CATALOG_NAME, TEMPLATE_NAME, SiteConfig, check_catalog, compile_catalog,
                          load_site_config, read_catalog)

PROJECT = "lesson-builder"
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


def extract_scenarios(fileobj, keywords, comment_tags, options):
    """Babel extractor: a scenario's title, as `pgettext("scenario", title)`."""
    text = fileobj.read().decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return
    title = data.get("title")
    if isinstance(title, str) and title:
        line = next((n for n, row in enumerate(text.splitlines(), 1) if row.startswith("title")), 1)
        yield line, "pgettext", ("scenario", title), ["The title of an example sentence (its words stay English)"]


def extract_models(fileobj, keywords, comment_tags, options):
    """Babel extractor: a model's dimension keys, as `pgettext("dimension", key)`."""
    text = fileobj.read().decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return
    dimensions = data.get("dimensions")
    # A malformed model is reported by the build; extraction takes what is usable.
    for key in dimensions if isinstance(dimensions, list) else []:
        if not isinstance(key, str):
            continue
        line = next((n for n, row in enumerate(text.splitlines(), 1) if f'"{key}"' in row), 1)
        yield line, "pgettext", ("dimension", key), ["A dimension of the example vectors (a label for this example only)"]


def _sources(content: Path, templates: Path) -> list[tuple[Path, list, dict]]:
    """Where translatable strings come from: (folder, Babel method map, options map)."""
    jinja = {"extensions": "jinja2.ext.i18n"}
    return [
        (templates, [("**.html", "jinja2"), ("**.xml", "jinja2")], {"**.html": jinja, "**.xml": jinja}),
        (content / "scenarios", [("*.toml", "builder.catalogs:extract_scenarios")], {}),
        (content / "models", [("*.toml", "builder.catalogs:extract_models")], {}),
        (Path(__file__).parent, [("site.py", "python")], {}),  # the entry page's per-language strings
        (Path(__file__).parent / "figures", [("**.py", "python"), ("**.html", "jinja2")],  # the figure kinds' labels
         {"**.html": jinja}),
    ]


def source_files(content: Path, templates: Path) -> list[Path]:
    """Every file strings are extracted from (to tell when an extraction is out of date)."""
    files = []
    for folder, method_map, _ in _sources(content, templates):
        for pattern, _ in method_map:
            files += folder.glob(pattern.replace("**.", "**/*.")) if "**" in pattern else folder.glob(pattern)
    return sorted(set(files))


def extract_template(content: Path, templates: Path) -> Catalog:
    """Extract every translatable string from the templates, the figure kinds, the scenarios and the models."""
    template = Catalog(project=PROJECT, charset="utf-8", fuzzy=False)
    for folder, method_map, options_map in _sources(content, templates):
        if not folder.is_dir():
            continue
        if folder.is_relative_to(content):  # contributors' files: read as the loaders read them (below)
            for location, lineno, message, comments, context in _extract_content(folder, method_map):
                template.add(message, None, [(location, lineno)], auto_comments=comments, context=context)
            continue
        for filename, lineno, message, comments, context in extract_from_dir(
            str(folder), method_map=method_map, options_map=options_map, keywords=KEYWORDS,
            comment_tags=("Translators:",), strip_comment_tags=True,
        ):
            location = (f"{folder.name}/{filename}", lineno)
            template.add(message, None, [location], auto_comments=comments, context=context)
    return template


def _extract_content(folder: Path, method_map):
    """Extract from the TOML files of a content folder, reading only regular files of bounded size (Babel
    would open a FIFO and wait, or read a link to /dev/zero until memory ran out); a file that cannot be
    read is skipped here and reported by the loader."""
    (pattern, method), = method_map
    try:
        paths = list_folder(folder, pattern.lstrip("*"))
    except UserError:
        return
    for path in paths:
        try:
            data = read_bytes(path)
        except UserError:
            continue
        for lineno, message, comments, context in extract(method, io.BytesIO(data), keywords=KEYWORDS,
                                                          comment_tags=("Translators:",), strip_comment_tags=True):
            yield f"{folder.name}/{path.name}", lineno, message, comments, context


_extracted: dict[tuple, tuple[int, Catalog]] = {}
_serial = iter(range(1, 1 << 62))


def current_template(content: Path, templates: Path) -> Catalog:
    """The strings the site needs now, extracted in memory (what `catalog` would write into
    messages.pot); extracted again only when a file it comes from changed."""
    return _current(content, templates)[1]


def template_version(content: Path, templates: Path) -> int:
    """A number that changes whenever current_template() would give another extraction."""
    return _current(content, templates)[0]


def _current(content: Path, templates: Path) -> tuple[int, Catalog]:
    files = source_files(content, templates)
    key = (str(content.resolve()), str(templates.resolve()), tuple((str(f), _bytes(f)) for f in files))
    if key not in _extracted:
        _extracted.clear()  # one project at a time: the preview's, or a test's
        _extracted[key] = (next(_serial), extract_template(content, templates))
    return _extracted[key]


def _bytes(path: Path) -> bytes | None:
    try:
        return read_bytes(path)
    except UserError:  # read_bytes refuses a FIFO, which would block
        return None


def _keys(catalog: Catalog) -> set[tuple]:
    return {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in catalog if m.id}


def update_catalogs(content: Path, templates: Path) -> list[str]:
    """Write content/messages.pot, then update (or create) every language's messages.po."""
    config = load_site_config(content)
    _, problems = load_scenarios(content / "scenarios")  # their titles and models' dimensions become messages
    if problems:
        raise UserError(problems)
    targets = [content / TEMPLATE_NAME, *(content / lang.code / CATALOG_NAME for lang in config.languages)]
    problems = []
    for path in targets:  # every file this command writes, checked before it writes any
        try:
            content_target(path, content)
        except UserError as err:
            problems += err.problems
    if problems:
        raise UserError(problems)
    template = extract_template(content, templates)
    changed = _write(content / TEMPLATE_NAME, template, content)
    lines = [f"{content / TEMPLATE_NAME}: {len(template)} messages{'' if changed else ', unchanged'}"]
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
        if not _write(path, catalog, content, ignore_obsolete=False):
            action = "unchanged"
        counts = {"untranslated": sum(1 for m in catalog if m.id and not m.string),
                  "fuzzy": sum(1 for m in catalog if m.id and m.fuzzy)}
        lines.append(f"{path}: {action}; {counts['untranslated']} untranslated, {counts['fuzzy']} fuzzy")
    return lines


def _write(path: Path, catalog: Catalog, content: Path, ignore_obsolete: bool = True) -> bool:
    """Write a catalog (no dates, no line numbers: catalogs stay stable in version control across runs),
    with `#| msgid` giving a fuzzy entry's previous source; return whether the file changed."""
    for message in catalog:
        if not message.fuzzy:
            message.previous_id = []  # reviewed: the old source has served its purpose
    buffer = io.BytesIO()
    catalog.creation_date = catalog.revision_date = None
    write_po(buffer, catalog, width=100, omit_header=False, sort_output=True, include_lineno=False,
             ignore_obsolete=ignore_obsolete, include_previous=True)
    text = "\n".join(line for line in buffer.getvalue().decode("utf-8").splitlines()
                     if not line.startswith(('"POT-Creation-Date', '"PO-Revision-Date', '"Generated-By'))) + "\n"
    if path.is_file() and _bytes(path) == text.encode("utf-8"):
        return False
    write_content_file(path, text.encode("utf-8"), content)
    return True


def load_translations(content: Path, config: SiteConfig | None = None, templates: Path | None = None):
    """Read, check and compile every language's catalog against the strings the site needs now
    (extracted in memory, so a new template string, figure label or scenario title is reported
    without running `catalog` first): ({lang: Translations}, problems and warnings)."""
    config = config or load_site_config(content)
    problems: list[Problem] = []
    translations = {}
    template = current_template(content, templates or Path("templates"))
    stored_path = content / TEMPLATE_NAME
    try:
        stored = _keys(read_catalog(stored_path))
    except UserError:
        stored = None
    needed = _keys(template)
    # Only what is missing matters: a message no longer used harms no page (and a project that shares
    # its catalogs, like the tests' fixture, needs only some of them).
    if stored is None or needed - stored:
        detail = "missing" if stored is None else f"lacks {len(needed - stored)} message(s) the site needs"
        problems.append(Problem(stored_path, None, f"out of date with the templates, figures, scenarios and models "
                                                   f"({detail}): run `python -m builder catalog`", "warning"))
    for lang in config.languages:
        path = content / lang.code / CATALOG_NAME
        try:
            catalog = read_catalog(path, lang.locale)
        except UserError as err:
            problems += err.problems
            continue
        found = check_catalog(catalog, template, path)
        problems += found
        # A translation with a wrong placeholder is reported on its own line; the pages are rendered
        # with the English text instead, so the template does not fail on it a second time.
        broken = {p.line for p in found if p.severity == "error" and p.line}
        for message in catalog:
            if message.id and message.lineno in broken:
                message.string = ("", "") if isinstance(message.id, (list, tuple)) else ""
        try:
            translations[lang.code] = compile_catalog(catalog, path)
        except UserError as err:
            problems += err.problems
    return translations, problems
