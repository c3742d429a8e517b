"""The translators' commands: `status` (which translations are current, what changed in their source,
how far each language has got) and `mark-current` (record that a translation matches its source,
after checking that it does)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from builder.content import Lesson, all_slugs, load_lessons
from builder.errors import Problem, UserError
from builder.i18n import CATALOG_NAME, catalog_counts, load_site_config, read_catalog
from builder.scenarios import load_scenarios
from builder.sourcediff import Line, Style, change_as_dict
from builder.translation import Progress, State, record_targets, snapshot_path, state_of, write_record

INCOMPLETE = ("outdated", "unmarked", "missing")


class NotMarked(UserError):
    """A translation that fails the checks mark-current runs: nothing was marked."""

    hint = "nothing marked: fix them, or mark anyway with --force"


def _languages(config, lang: str | None) -> list:
    if lang is None:
        return list(config.languages)
    chosen = [language for language in config.languages if language.code == lang]
    if not chosen:
        raise UserError(Problem("--lang", None, f"unknown language {lang!r} (declared in site.toml: "
                                                f"{', '.join(language.code for language in config.languages)})"))
    return chosen


def _load(content: Path):
    config = load_site_config(content)
    scenarios, _ = load_scenarios(content / "scenarios")  # their own problems are `check`'s to report
    on_disk = set(scenarios) | {path.stem for path in (content / "scenarios").glob("*.toml")}
    lessons, problems = load_lessons(content, config, on_disk)
    if problems:
        raise UserError(problems)
    return config, lessons


def collect_status(content: Path, templates: Path | None = None, lang: str | None = None) -> dict:
    """The status of every lesson in every language (or in `lang`), every catalog, and each language's progress."""
    from builder.catalogs import current_template

    config, lessons = _load(content)
    languages = _languages(config, lang)
    source = lessons[config.source_language]
    result = {"source_language": config.source_language, "lessons": [], "catalogs": [], "progress": {}}
    progress = {language.code: Progress() for language in languages if language.code != config.source_language}
    for slug in all_slugs(lessons, config.source_language):
        row = {"slug": slug, "languages": {}}
        for language in languages:
            lesson = lessons[language.code].get(slug)
            state = state_of(lesson, source.get(slug))
            row["languages"][language.code] = _state_dict(state, lesson, source.get(slug))
            if language.code in progress and slug in source:
                progress[language.code].add(source[slug], lesson, state)
        result["lessons"].append(row)
    result["progress"] = {code: p.as_dict() for code, p in progress.items()}
    template = current_template(content, templates or Path("templates"))
    for language in languages:
        path = content / language.code / CATALOG_NAME
        counts = catalog_counts(read_catalog(path, language.locale), template) if path.exists() else None
        result["catalogs"].append({"lang": language.code, "path": str(path), **(counts or {"missing": True})})
    return result


def _state_dict(state: State, lesson: Lesson | None, source: Lesson | None) -> dict:
    info = {"status": state.status, "changed_sections": list(state.changed)}
    if lesson is not None and source is not None and lesson is not source:
        info["path"], info["source"] = str(lesson.path), str(source.path)
    if state.changes:
        info["changes"] = [{"section": change.section, "change": change.kind,
                            "lines": [change.new.first, change.new.end] if change.new else None,
                            "old_lines": [change.old.first, change.old.end] if change.old else None}
                           for change in state.changes]
    return info


def print_status(content: Path, templates: Path | None = None, as_json: bool = False, strict: bool = False,
                 lang: str | None = None, diff: str | None = None, slugs: list[str] | None = None) -> int:
    """Print the status table (or JSON, or with `diff`, what changed in the sources of that language's
    translations); with `strict`, return 1 when anything is outdated, unmarked or missing."""
    if slugs and diff is None:
        raise UserError(Problem("status", None, "lesson names go with --diff LANG, e.g. "
                                                "`python -m builder status --diff ja transformer-block`"))
    result = collect_status(content, templates, diff or lang)
    if diff is not None:
        result["diffs"] = collect_diffs(content, diff, slugs or [])
    incomplete = any(info["status"] in INCOMPLETE for row in result["lessons"] for info in row["languages"].values())
    incomplete |= any(c.get("missing") or c["untranslated"] or c["fuzzy"] for c in result["catalogs"])
    if as_json:
        print(json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True))
    elif diff is not None:
        print_diffs(result["diffs"])
    else:
        print_table(result)
    if strict and incomplete:
        print("status --strict: translations are outdated, unmarked or missing", file=sys.stderr)
        return 1
    return 0


def print_table(result: dict) -> None:
    langs = list(result["lessons"][0]["languages"]) if result["lessons"] else []
    cells = {(row["slug"], lang): _cell(row["languages"][lang]) for row in result["lessons"] for lang in langs}
    widths = {lang: max([len(lang)] + [len(cells[(row["slug"], lang)]) for row in result["lessons"]]) for lang in langs}
    width = max([len("lesson")] + [len(row["slug"]) for row in result["lessons"]])
    print(f"{'lesson':<{width}}  " + "  ".join(f"{lang:<{widths[lang]}}" for lang in langs).rstrip())
    for row in result["lessons"]:
        print(f"{row['slug']:<{width}}  " + "  ".join(f"{cells[(row['slug'], lang)]:<{widths[lang]}}" for lang in langs).rstrip())
    for row in result["lessons"]:  # where each outdated translation's source changed, with lines
        for lang in langs:
            info = row["languages"][lang]
            if info["status"] != "outdated":
                continue
            print(f"\n{info['path']}: outdated; {info['source']} changed since it was marked current:")
            for change in info.get("changes", []):
                lines = change["lines"] or change["old_lines"]
                where = f"{lines[0]}-{lines[1]}" if lines[0] != lines[1] else f"{lines[0]}"
                where = where if change["lines"] else f"was {where}"
                print(f"  {where:>9}  {change['section']}  {change['change']}")
            for section in [] if info.get("changes") else info["changed_sections"]:
                print(f"            #{section}  changed")
            print(f"  see the text: python -m builder status --diff {lang} {row['slug']}")
    print()
    for code, progress in result["progress"].items():
        s, c = progress["sections"], progress["characters"]
        print(f"{code}: {s['translated']} of {s['total']} sections translated ({s['translated_percent']:g}%), "
              f"{s['current']} current ({s['current_percent']:g}%); {c['translated']} of {c['total']} characters "
              f"translated ({c['translated_percent']:g}%), {c['current']} current ({c['current_percent']:g}%)")
    for c in result["catalogs"]:
        if c.get("missing"):
            print(f"{c['path']}: missing")
        else:
            print(f"{c['path']}: {c['translated']} translated, {c['fuzzy']} fuzzy, {c['untranslated']} untranslated")


def _cell(info: dict) -> str:
    if info["status"] == "outdated" and info["changed_sections"]:
        count = len(info["changed_sections"])
        return f"outdated ({count} section{'s' if count != 1 else ''})"
    return "never marked" if info["status"] == "unmarked" else info["status"]


def collect_diffs(content: Path, lang: str, slugs: list[str]) -> list[dict]:
    """For each translation of `lang` (or of `slugs`): what changed in its source since it was marked
    current, part by part, with the text as it was and as it is."""
    config, lessons = _load(content)
    _languages(config, lang)
    if lang == config.source_language:
        raise UserError(Problem(content / lang, None, f"{lang!r} is the source language; --diff shows a "
                                                      "translation's source changes"))
    source = lessons[config.source_language]
    for slug in slugs:
        if slug not in source and slug not in lessons[lang]:
            raise UserError(Problem(content / config.source_language / f"{slug}.md", None,
                                    f"no lesson {slug!r} (have: {', '.join(sorted(source)) or 'none'})"))
    out = []
    for slug in slugs or [s for s in all_slugs(lessons, config.source_language) if s in source]:
        lesson = lessons[lang].get(slug)
        state = state_of(lesson, source.get(slug))
        entry = {"lang": lang, "slug": slug, "status": state.status,
                 "path": str(lesson.path if lesson else content / lang / f"{slug}.md"),
                 "source": str(source[slug].path) if slug in source else None,
                 "recorded": state.recorded, "changes": []}
        if lesson is not None:
            entry["copy"] = str(snapshot_path(lesson.path))
        if state.recorded:
            entry["changes"] = [change_as_dict(change, source[slug].path, snapshot_path(lesson.path))
                                for change in state.changes]
        elif state.status == "outdated":
            entry["changed_sections"] = list(state.changed)
        out.append(entry)
    return out


def print_diffs(diffs: list[dict]) -> None:
    style = Style()
    for n, entry in enumerate(diffs):
        if n:
            print()
        status = entry["status"]
        if status == "current":
            print(f"{entry['path']}: current; nothing changed in {entry['source']} since it was marked")
            continue
        if status == "missing":
            print(f"{entry['path']}: not translated yet; translate {entry['source']} whole")
            continue
        if status == "unmarked":
            print(f"{entry['path']}: never marked current, so there is no earlier source to compare with; when it "
                  f"matches {entry['source']}, run `python -m builder mark-current {entry['lang']} {entry['slug']}`")
            continue
        if not entry["recorded"]:
            sections = ", ".join(f"#{s}" for s in entry.get("changed_sections", [])) or "front matter or opening"
            print(f"{entry['path']}: outdated ({sections} changed); no copy of the source as it was when marked "
                  f"({entry.get('copy')}), so no text to show: compare with {entry['source']} and mark it current "
                  "again, which keeps a copy for next time")
            continue
        count = len(entry["changes"])
        print(f"{entry['path']}: outdated; {entry['source']} changed in {count} part{'s' if count != 1 else ''} "
              f"since it was marked current")
        for change in entry["changes"]:
            if change["lines"]:
                a, b = change["lines"]
                where = f"{change['source']}:{a}" + (f"-{b}" if b != a else "")
            else:
                a, b = change["old_lines"]
                where = f"was {change['source']}:{a}" + (f"-{b}" if b != a else "")
            name = change["section"] if change["section"] in ("front matter", "opening") else f"#{change['section']}"
            print(f"\n{name}  {change['change']}  ({where})")
            for line in change["diff"]:
                print(style.line(Line(line["kind"], line["old_line"], line["new_line"],
                                      tuple(tuple(s) for s in line["segments"]))))


def mark_current(content: Path, templates: Path, lang: str, slugs: list[str], every: bool = False,
                 force: bool = False) -> list[str]:
    """Check each translation as if it were current (structure, trace references, its own problems),
    then record in its front matter the fingerprint of its source and keep a copy of that source."""
    from builder import checks, site
    from builder.build import Workspace, gather

    config = load_site_config(content)
    if lang not in [language.code for language in config.languages]:
        raise UserError(Problem(content / "site.toml", None, f"unknown language {lang!r}"))
    if lang == config.source_language:
        raise UserError(Problem(content / lang, None, f"{lang!r} is the source language; only translations are marked"))
    if slugs and every:
        raise UserError(Problem("mark-current", None, "give lesson names or --all, not both"))
    if not slugs and not every:
        raise UserError(Problem("mark-current", None, f"name the lessons to mark, e.g. `python -m builder mark-current "
                                                      f"{lang} transformer-block`, or give --all to mark every "
                                                      f"{lang} lesson"))
    inputs, problems = gather(content, templates, Workspace(remember=False))
    lessons = inputs.lessons
    source = lessons[config.source_language]
    targets = slugs or sorted(lessons[lang])
    for slug in targets:
        path = content / lang / f"{slug}.md"
        if slug not in lessons[lang]:
            own = [p for p in problems + inputs.warnings if Path(p.path) == path and (p.severity == "error" or "stub" in p.message)]
            raise UserError(own or Problem(path, None, "no such translation"))
        if slug not in source:
            raise UserError(Problem(content / config.source_language / f"{slug}.md", None, "no source lesson to mark against"))
    found = []
    if not force:
        rendering = site.render_site(inputs, None, only=set(targets))
        found = problems + rendering.problems + checks.check_parity(
            {config.source_language: source, lang: {slug: lessons[lang][slug] for slug in targets}},
            rendering.outlines, config.source_language, strict={(lang, slug) for slug in targets})
        paths = {lessons[lang][slug].path for slug in targets} | {source[slug].path for slug in targets}
        found = list(dict.fromkeys(p for p in found if Path(p.path) in paths and p.severity == "error"))
    if found:
        raise NotMarked(found)
    for slug in targets:  # every file to be written, checked before the first is
        record_targets(lessons[lang][slug], content)
    lines = []
    for slug in targets:
        copy = write_record(lessons[lang][slug], source[slug], content)
        lines.append(f"{lessons[lang][slug].path}: marked current with {source[slug].path} (copy kept in {copy})")
    return lines
