"""Translation state: which translations are current, outdated or missing, and marking them current.

A translation records the fingerprint of the source lesson it was translated from, and a
fingerprint per section, in its front matter:

    [translation]
    source_hash = "3f2a…"                       # the whole source file
    sections = { intro = "91c0…", ... }          # each source section, to say what changed

`python -m builder mark-current ja transformer-block` writes it. When the source changes, the
translation is outdated until marked current again.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from builder.content import FENCE, Lesson, all_slugs, load_lessons
from builder.errors import Problem, UserError
from builder.i18n import CATALOG_NAME, TEMPLATE_NAME, catalog_counts, load_site_config, read_catalog
from builder.scenarios import load_scenarios

SECTION = re.compile(r"^#{2,3} .*\{#([a-z][a-z0-9-]*)\}\s*$", re.M)


@dataclass(frozen=True)
class State:
    status: str  # "source", "current", "outdated", "missing"
    changed: tuple[str, ...] = ()  # section ids whose source text changed (outdated only)

    def describe(self) -> str:
        if self.status != "outdated":
            return self.status
        return "outdated (" + (", ".join(self.changed) if self.changed else "front matter or unsectioned text") + " changed)"


def section_hashes(lesson: Lesson) -> dict[str, str]:
    """Fingerprint each section of a lesson's body (the text under `## … {#id}` up to the next heading)."""
    hashes, current, buffer = {}, "intro", []
    for line in lesson.body.split("\n"):
        match = SECTION.match(line)
        if match:
            hashes[current] = _hash("\n".join(buffer))
            current, buffer = match.group(1), []
        else:
            buffer.append(line)
    hashes[current] = _hash("\n".join(buffer))
    return hashes


def _hash(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:12]


def state_of(translation: Lesson | None, source: Lesson | None) -> State:
    """Return the state of `translation` against `source`."""
    if translation is None:
        return State("missing")
    if source is None or translation is source:
        return State("source")
    record = translation.meta.get("translation") or {}
    if record.get("source_hash") == source.source_hash():
        return State("current")
    recorded = record.get("sections") or {}
    now = section_hashes(source)
    changed = tuple(sorted({key for key in now if recorded.get(key) != now[key]} | set(recorded) - set(now)))
    return State("outdated", changed if recorded else ())


def mark_current(content: Path, lang: str, slugs: list[str]) -> list[str]:
    """Record in each translation's front matter the fingerprint of its current source."""
    config = load_site_config(content)
    if lang not in [language.code for language in config.languages]:
        raise UserError(Problem(content / "site.toml", None, f"unknown language {lang!r}"))
    if lang == config.source_language:
        raise UserError(Problem(content / lang, None, f"{lang!r} is the source language; only translations are marked"))
    scenarios, _ = load_scenarios(content / "scenarios")
    lessons, problems = load_lessons(content, config, set(scenarios))
    if problems:
        raise UserError(problems)
    source = lessons[config.source_language]
    targets = slugs or sorted(lessons[lang])
    lines = []
    for slug in targets:
        lesson = lessons[lang].get(slug)
        if lesson is None:
            raise UserError(Problem(content / lang / f"{slug}.md", None, "no such translation"))
        if slug not in source:
            raise UserError(Problem(content / config.source_language / f"{slug}.md", None, "no source lesson to mark against"))
        write_record(lesson, source[slug])
        lines.append(f"{lesson.path}: marked current with {source[slug].path}")
    return lines


def write_record(lesson: Lesson, source: Lesson) -> None:
    """Replace (or add) the [translation] table of the lesson's front matter, keeping everything else of
    it as written (comments, order, a `[translation.sections]` sub-table becomes the new record)."""
    import tomlkit

    lines = lesson.text.split("\n")
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    front = tomlkit.parse("\n".join(lines[1:end]))
    if "translation" in front:
        del front["translation"]
    record = tomlkit.table()
    record.comment("written by `python -m builder mark-current`; do not edit")
    record.add("source_hash", source.source_hash())
    sections = tomlkit.inline_table()
    sections.update(section_hashes(source))
    record.add("sections", sections)
    text = tomlkit.dumps(front).rstrip("\n")
    front_lines = ([text, ""] if text else []) + tomlkit.dumps(tomlkit.document() | {"translation": record}).rstrip("\n").split("\n")
    new_text = "\n".join([lines[0], *front_lines, *lines[end:]])
    newline = "\r\n" if b"\r\n" in lesson.path.read_bytes() else "\n"  # keep a Windows editor's line endings
    lesson.path.write_bytes(new_text.replace("\n", newline).encode("utf-8"))


def collect_status(content: Path) -> dict:
    """Return the status of every lesson in every language and of every catalog."""
    config = load_site_config(content)
    scenarios, _ = load_scenarios(content / "scenarios")
    lessons, problems = load_lessons(content, config, set(scenarios))
    if problems:
        raise UserError(problems)
    source = lessons[config.source_language]
    result = {"source_language": config.source_language, "lessons": [], "catalogs": []}
    for slug in all_slugs(lessons, config.source_language):
        row = {"slug": slug, "languages": {}}
        for lang in config.languages:
            state = state_of(lessons[lang.code].get(slug), source.get(slug))
            row["languages"][lang.code] = {"status": state.status, "changed_sections": list(state.changed)}
        result["lessons"].append(row)
    template_path = content / TEMPLATE_NAME
    template = read_catalog(template_path)
    for lang in config.languages:
        path = content / lang.code / CATALOG_NAME
        counts = catalog_counts(read_catalog(path, lang.locale), template) if path.exists() else None
        result["catalogs"].append({"lang": lang.code, "path": str(path), **(counts or {"missing": True})})
    return result


def print_status(content: Path, as_json: bool = False, strict: bool = False) -> int:
    """Print the status table (or JSON); with `strict`, return 1 when anything is outdated or missing."""
    result = collect_status(content)
    incomplete = any(info["status"] in ("outdated", "missing")
                     for row in result["lessons"] for info in row["languages"].values())
    incomplete |= any(c.get("missing") or c["untranslated"] or c["fuzzy"] for c in result["catalogs"])
    if as_json:
        print(json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        langs = [lang for lang in result["lessons"][0]["languages"]] if result["lessons"] else []
        width = max([len("lesson")] + [len(row["slug"]) for row in result["lessons"]])
        print(f"{'lesson':<{width}}  " + "  ".join(f"{lang:<12}" for lang in langs))
        for row in result["lessons"]:
            cells = []
            for lang in langs:
                info = row["languages"][lang]
                text = info["status"] + (f" ({', '.join(info['changed_sections'])})" if info["changed_sections"] else "")
                cells.append(f"{text:<12}")
            print(f"{row['slug']:<{width}}  " + "  ".join(cells))
        print()
        for c in result["catalogs"]:
            if c.get("missing"):
                print(f"{c['path']}: missing")
            else:
                print(f"{c['path']}: {c['translated']} translated, {c['fuzzy']} fuzzy, {c['untranslated']} untranslated")
    if strict and incomplete:
        print("status --strict: translations are outdated or missing", file=sys.stderr)
        return 1
    return 0

