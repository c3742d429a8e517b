"""Lessons: find them under content/<lang>/, split and validate front matter, pair languages by slug.

A lesson is `content/<lang>/<slug>.md`: TOML front matter between `+++` lines, then Markdown.

    +++
    title = "Transformer 块"
    order = 1                      # position in the lesson list
    summary = "..."                # one line for the lesson list
    scenario = "river-bank"        # content/scenarios/<name>.toml: the default, for figures and trace values
    scenarios = ["river-bank", "money-bank"]   # optional: the scenarios a reader can pick (the default first)
    figures = ["depth-map", "attention"]       # interactive figures, each placed by `::: interactive <name>`
    walkthrough = ["input", "b1.attention", "b1.ffn", "b2", "b3", "sum"]   # steps (builder/steps.py)

    [translation]                  # only in translations; written by `python -m builder mark-current`
    source_hash = "..."
    sections = { intro = "...", ... }
    +++
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from builder.errors import Problem, UserError
from builder.i18n import SiteConfig
from builder.sources import MAX_SUMMARY_CHARS, MAX_TITLE_CHARS, list_folder, parse_toml, read_text, table_line
from builder.steps import STEP_HELP, parse_step

FENCE = "+++"
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")
NON_LESSON_FOLDERS = {"scenarios", "models"}
RESERVED_SLUGS = {"index", "404"}  # these names are the lesson list and the not-found page
KNOWN_KEYS = {"title", "order", "summary", "scenario", "scenarios", "figures", "figure", "walkthrough", "translation"}


@dataclass
class Lesson:
    """One lesson in one language."""

    lang: str
    slug: str
    path: Path
    text: str  # the whole file, as read
    meta: dict
    body: str
    body_line: int  # file line number of the body's first line
    title: str = ""
    order: int = 0
    summary: str = ""
    scenario: str | None = None
    scenarios: list[str] = field(default_factory=list)  # the default first
    figures: list[str] = field(default_factory=list)
    walkthrough: list[str] = field(default_factory=list)

    def source_hash(self) -> str:
        """Return the fingerprint a translation records of this (source) lesson."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]


def split_front_matter(text: str, path: Path) -> tuple[dict, str, int]:
    """Return (front matter, body, body's first line number)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise UserError(Problem(path, 1, f"missing front matter: the file must start with a {FENCE!r} line"))
    for end in range(1, len(lines)):
        if lines[end].strip() == FENCE:
            break
    else:
        raise UserError(Problem(path, 1, f"front matter is not closed by a {FENCE!r} line"))
    meta = parse_toml("\n".join(lines[1:end]), path, first_line=2, what="invalid front matter")
    return meta, "\n".join(lines[end + 1:]), end + 2


def meta_line(text: str, key: str) -> int | None:
    """Return the line of `key = ...` inside the front matter."""
    for number, line in enumerate(text.split("\n")[:200], 1):
        if re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number
        if number > 1 and line.strip() == FENCE:
            return None
    return None


def load_lesson(path: Path, lang: str, scenarios: set[str], figures: set[str] | None = None) -> Lesson:
    """Read and validate one lesson file; `scenarios` and `figures` are the names that exist (figure
    names go unchecked when `figures` is None: the translation status does not need them)."""
    text = read_text(path)
    meta, body, body_line = split_front_matter(text, path)
    slug = path.stem
    if not SLUG.fullmatch(slug):
        raise UserError(Problem(path, None, f"file name {slug!r} is not a valid slug (lowercase letters, digits, hyphens)"))
    if slug in RESERVED_SLUGS:
        raise UserError(Problem(path, None, f"file name {slug!r} is reserved for the site's own pages; rename the lesson"))
    lesson = Lesson(lang=lang, slug=slug, path=path, text=text, meta=meta, body=body, body_line=body_line)

    def bad(key, message):
        return UserError(Problem(path, meta_line(text, key) or 1, f"front matter {key!r}: {message}"))

    unknown = sorted(set(meta) - KNOWN_KEYS)
    if unknown:
        raise bad(unknown[0], f"unknown key (known: {', '.join(sorted(KNOWN_KEYS))})")
    for key, kind, required in (("title", str, True), ("order", int, True), ("summary", str, False),
                                ("scenario", str, False), ("scenarios", list, False), ("figures", list, False),
                                ("figure", str, False),
                                ("walkthrough", list, False)):
        if key not in meta:
            if required:
                raise UserError(Problem(path, 1, f"front matter is missing {key!r}"))
            continue
        value = meta[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise bad(key, f"expected {'a string' if kind is str else 'an integer' if kind is int else 'an array'}, got {value!r}")
        if kind is list and not all(isinstance(item, str) for item in value):
            raise bad(key, f"expected an array of names, got {value!r}")
    lesson.title = meta["title"].strip()
    if not lesson.title:
        raise bad("title", "must not be empty")
    if len(lesson.title) > MAX_TITLE_CHARS:
        raise bad("title", f"{len(lesson.title):,} characters; a title has at most {MAX_TITLE_CHARS}")
    lesson.order = meta["order"]
    lesson.summary = meta.get("summary", "")
    if len(lesson.summary) > MAX_SUMMARY_CHARS:
        raise bad("summary", f"{len(lesson.summary):,} characters; a summary has at most {MAX_SUMMARY_CHARS}")
    lesson.scenario = meta.get("scenario")
    if lesson.scenario is not None and lesson.scenario not in scenarios:
        raise bad("scenario", f"unknown scenario {lesson.scenario!r} (have: {', '.join(sorted(scenarios)) or 'none'})")
    lesson.scenarios = meta.get("scenarios", [lesson.scenario] if lesson.scenario else [])
    for name in lesson.scenarios:
        if name not in scenarios:
            raise bad("scenarios", f"unknown scenario {name!r} (have: {', '.join(sorted(scenarios)) or 'none'})")
    if lesson.scenarios and (lesson.scenario is None or lesson.scenarios[0] != lesson.scenario
                             or len(set(lesson.scenarios)) != len(lesson.scenarios)):
        raise bad("scenarios", "list each scenario once, the default (`scenario`) first")
    if "figure" in meta and "figures" in meta:
        raise bad("figure", "give either `figure` (one figure, the older spelling) or `figures`, not both")
    lesson.figures = meta.get("figures", [meta["figure"]] if "figure" in meta else [])
    for name in lesson.figures:
        if figures is not None and name not in figures:
            raise bad("figures", f"unknown figure {name!r} (known: {', '.join(sorted(figures))})")
    if len(set(lesson.figures)) != len(lesson.figures):
        raise bad("figures", "each figure kind may appear once on a page")
    if lesson.figures and lesson.scenario is None:
        raise bad("figures", "a figure needs a scenario")
    lesson.walkthrough = meta.get("walkthrough", [])
    for step in lesson.walkthrough:
        if parse_step(step) is None:
            raise bad("walkthrough", f"unknown step {step!r} ({STEP_HELP})")
    if lesson.walkthrough and "depth-map" not in lesson.figures:
        raise bad("walkthrough", "a walkthrough needs the depth-map figure")
    translation = meta.get("translation")
    if translation is not None:
        sections = translation.get("sections", {}) if isinstance(translation, dict) else None
        wrong = ("translation" if not isinstance(translation, dict) else
                 "source_hash" if not isinstance(translation.get("source_hash"), str) else
                 "sections" if not isinstance(sections, dict) or not all(isinstance(v, str) for v in sections.values())
                 else None)
        if wrong:
            raise UserError(Problem(path, meta_line(text, wrong) or table_line(text, "translation") or 1,
                                    "front matter 'translation': expected a table with source_hash and a table of "
                                    "section fingerprints (written by `python -m builder mark-current`; run it again)"))
    return lesson


def load_lessons(content: Path, config: SiteConfig, scenarios: set[str], remember=None,
                 figures: set[str] | None = None) -> tuple[dict[str, dict[str, Lesson]], list[Problem]]:
    """Load every lesson of every language: {lang: {slug: Lesson}}, collecting all problems.

    `remember(path, load, depends)` may return what an earlier `load()` of an unchanged file gave."""
    remember = remember or (lambda path, load, depends: load())
    known = frozenset(scenarios)
    problems: list[Problem] = []
    codes = [lang.code for lang in config.languages]
    try:
        children = list_folder(content)
    except UserError as err:
        return {code: {} for code in codes}, err.problems
    for child in children:
        if child.name not in codes and child.name not in NON_LESSON_FOLDERS and child.is_dir():
            try:
                stray = list_folder(child, ".md")
            except UserError:
                stray = []  # not a language folder; an unreadable stray folder is none of the build's business
            if stray:
                problems.append(Problem(child, None, f"lessons in a folder that is not a declared language "
                                                     f"(declared: {', '.join(codes)}; see content/site.toml)"))
    lessons: dict[str, dict[str, Lesson]] = {}
    for code in codes:
        lessons[code] = {}
        folder = content / code
        if not folder.is_dir():
            problems.append(Problem(folder, None, "missing language folder"))
            continue
        try:
            paths = lesson_files(folder)
        except UserError as err:
            problems.extend(err.problems)
            continue
        for path in paths:
            try:
                lesson = remember(path, lambda: load_lesson(path, code, scenarios, figures), (code, known, frozenset(figures or ())))
            except UserError as err:
                problems.extend(err.problems)
                continue
            lessons[code][lesson.slug] = lesson
        orders: dict[int, Path] = {}
        for lesson in lessons[code].values():
            if lesson.order in orders:
                problems.append(Problem(lesson.path, meta_line(lesson.text, "order"),
                                        f"order {lesson.order} is also used by {orders[lesson.order].name}"))
            orders[lesson.order] = lesson.path
    return lessons, problems


def lesson_files(folder: Path) -> list[Path]:
    """Return the lesson files of a language folder. Hidden names are skipped: editors keep lock files
    and backups there (Emacs's `.#lesson.md` is a symbolic link to nowhere while the lesson is open)."""
    return list_folder(folder, ".md")


def all_slugs(lessons: dict[str, dict[str, Lesson]], source_language: str) -> list[str]:
    """Return every slug of any language, in the source language's order first."""
    seen: dict[str, tuple] = {}
    for lang, by_slug in lessons.items():
        for lesson in by_slug.values():
            key = (0 if lang == source_language else 1, lesson.order, lesson.slug)
            seen[lesson.slug] = min(seen.get(lesson.slug, key), key)
    return sorted(seen, key=lambda slug: seen[slug])
