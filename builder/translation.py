"""Translation state: which translations are current, outdated, unmarked or missing, what changed in
their source since, and marking them current.

`python -m builder mark-current ja transformer-block` records two things, both inside content/ (which
need not be under version control):

- in the translation's front matter, the fingerprint of the source it now matches:

      [translation]
      source_hash = "3f2a…"

- beside it, a verbatim copy of that source, `content/ja/translated-from/transformer-block.md`, so
  `status --diff` can show what changed since, section by section (builder/sourcediff.py). On the
  next mark-current the copy is replaced: under version control its diff is exactly the source
  change the translator took in.

The fingerprint ignores what cannot change a page: trailing spaces and runs of blank lines.
Records written before the copies existed (`sections = {…}` of per-section hashes) still say which
sections changed, without their text.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from builder.content import FENCE, Lesson
from builder.errors import Problem
from builder.sources import PLACEHOLDER, content_target, read_bytes, read_text, write_content_file

SNAPSHOTS = "translated-from"  # content/<lang>/translated-from/<slug>.md: the source as it was
HEADING = re.compile(r"^(#{2,3}) .*\{#([a-z][a-z0-9-]*)\}\s*$")
CODE_FENCE = re.compile(r"^ {0,3}(```|~~~)")
FRONT_MATTER, OPENING = "+++", ""  # the keys of the two parts that are not sections


@dataclass(frozen=True)
class Part:
    """One part of a lesson file: its front matter, the text before the first heading, or a section
    (its heading line and everything up to the next `##` or `###`)."""

    key: str  # FRONT_MATTER, OPENING, or the section id
    start: int  # file line of its first line
    lines: tuple[str, ...]

    @property
    def label(self) -> str:
        return "front matter" if self.key == FRONT_MATTER else "opening" if self.key == OPENING else f"#{self.key}"

    @property
    def end(self) -> int:
        """File line of its last line that is not blank."""
        last = max((i for i, line in enumerate(self.lines) if line.strip()), default=0)
        return self.start + last

    @property
    def first(self) -> int:
        """File line of its first line that is not blank."""
        return self.start + next((i for i, line in enumerate(self.lines) if line.strip()), 0)

    @property
    def normalized(self) -> str:
        """Its text as far as a page can tell: no trailing spaces, one blank line between blocks, and,
        in the front matter, no [translation] record (a translation's own bookkeeping)."""
        lines = [line.rstrip() for line in self.lines]
        if self.key == FRONT_MATTER:
            lines = _without_record(lines)
        out: list[str] = []
        for line in lines:
            if line or (out and out[-1]):
                out.append(line)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out)

    @property
    def characters(self) -> int:
        """Characters a translator translates: everything but white space."""
        return sum(1 for ch in self.normalized if not ch.isspace())


def _without_record(lines: list[str]) -> list[str]:
    out, skipping = [], False
    for line in lines:
        header = re.match(r"\s*\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$", line)
        if header:
            skipping = header.group(1).split(".")[0].strip("\"' ") == "translation"
        if not skipping:
            out.append(line)
    return out


def parts_of(text: str) -> list[Part]:
    """Split a lesson file into its parts, in file order. Headings inside fenced code do not count."""
    lines = text.split("\n")
    parts: list[Part] = []
    body_start = 0
    if lines and lines[0].strip() == FENCE:
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == FENCE), None)
        if end is not None:
            parts.append(Part(FRONT_MATTER, 1, tuple(lines[: end + 1])))
            body_start = end + 1
    key, start, buffer, fence = OPENING, body_start + 1, [], None
    for number, line in enumerate(lines[body_start:], body_start + 1):
        marker = CODE_FENCE.match(line)
        if marker and (fence is None or marker.group(1) == fence):
            fence = None if fence else marker.group(1)
        match = HEADING.match(line) if fence is None else None
        if match:
            parts.append(Part(key, start, tuple(buffer)))
            key, start, buffer = match.group(2), number, []
        buffer.append(line)
    parts.append(Part(key, start, tuple(buffer)))
    return [part for part in parts if part.key != OPENING or part.normalized]


@functools.lru_cache(maxsize=4096)  # the preview asks again for every unchanged lesson on each edit
def fingerprint(text: str) -> str:
    """The source's fingerprint a translation records: its parts as a page can tell them apart."""
    joined = "\n\0\n".join(f"{part.key}\n{part.normalized}" for part in parts_of(text))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


def _legacy_fingerprint(text: str) -> str:
    """The fingerprint records held before (the raw bytes): such a record is still current."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _legacy_section_hashes(text: str) -> dict[str, str]:
    """Per-section hashes as records held before the copies of the source existed."""
    hashes, current, buffer = {}, "intro", []
    for line in text.split("\n")[_body_start(text):]:
        match = HEADING.match(line)
        if match:
            hashes[current] = hashlib.sha256("\n".join(buffer).strip().encode("utf-8")).hexdigest()[:12]
            current, buffer = match.group(2), []
        else:
            buffer.append(line)
    hashes[current] = hashlib.sha256("\n".join(buffer).strip().encode("utf-8")).hexdigest()[:12]
    return hashes


def _body_start(text: str) -> int:
    lines = text.split("\n")
    if lines and lines[0].strip() == FENCE:
        return next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == FENCE), 0)
    return 0


def snapshot_path(translation: Path) -> Path:
    """Where mark-current keeps the copy of the source a translation was last marked against."""
    return translation.parent / SNAPSHOTS / translation.name


@dataclass(frozen=True)
class Change:
    """One part of the source that differs from the copy recorded when the translation was marked."""

    key: str
    kind: str  # "added", "changed" or "removed"
    old: Part | None  # in the recorded copy (None when added)
    new: Part | None  # in the source now (None when removed)

    @property
    def label(self) -> str:
        return (self.new or self.old).label

    @property
    def section(self) -> str:
        """The name status prints and its JSON carries: the section id, `front matter` or `opening`."""
        return self.label.lstrip("#")


@dataclass(frozen=True)
class State:
    status: str  # "source", "current", "outdated", "unmarked" (never marked current), "missing"
    changes: tuple[Change, ...] = ()  # outdated only, in the source's page order
    recorded: bool = False  # outdated only: a copy of the source as it was is at hand
    legacy: tuple[str, ...] = ()  # outdated, no copy: section ids an old-style record says changed

    @property
    def changed(self) -> tuple[str, ...]:
        return tuple(change.section for change in self.changes) or self.legacy

    def describe(self) -> str:
        if self.status == "unmarked":
            return "never marked current"
        if self.status != "outdated":
            return self.status
        if self.changes:
            return "outdated (" + ", ".join(f"{c.label} {c.kind}" for c in self.changes) + ")"
        if self.legacy:
            return "outdated (" + ", ".join(f"#{key}" for key in self.legacy) + " changed)"
        return "outdated"


def record_of(translation: Lesson) -> dict | None:
    record = translation.meta.get("translation")
    return record if isinstance(record, dict) else None


def status_of(translation: Lesson | None, source: Lesson | None) -> str:
    """The status alone (cheap: the pages need only this)."""
    if translation is None:
        return "missing"
    if source is None or translation is source:
        return "source"
    record = record_of(translation)
    if record is None:
        return "unmarked"
    recorded = record.get("source_hash")
    if recorded in (fingerprint(source.text), _legacy_fingerprint(source.text)):
        return "current"
    old = recorded_source(translation)  # an old-style record: its copy can still tell a blank line from an edit
    if old is not None and recorded == _legacy_fingerprint(old) and fingerprint(old) == fingerprint(source.text):
        return "current"
    return "outdated"


def state_of(translation: Lesson | None, source: Lesson | None) -> State:
    """Return the state of `translation` against `source`, with what changed when it is outdated."""
    status = status_of(translation, source)
    if status != "outdated":
        return State(status)
    record = record_of(translation)
    old = recorded_source(translation)
    if old is not None and record.get("source_hash") in (fingerprint(old), _legacy_fingerprint(old)):
        return State("outdated", compare_parts(parts_of(old), parts_of(source.text)), recorded=True)
    recorded = record.get("sections") or {}
    now = _legacy_section_hashes(source.text)
    changed = [key for key in now if recorded.get(key) != now[key]] + [key for key in recorded if key not in now]
    return State("outdated", legacy=tuple(changed) if recorded else ())


def recorded_source(translation: Lesson) -> str | None:
    """The copy of the source the translation was last marked against, if it is at hand."""
    path = snapshot_path(translation.path)
    if not path.is_file():
        return None
    try:
        return read_text(path)
    except Exception:  # an unreadable copy is as good as none: status says so
        return None


def compare_parts(old: list[Part], new: list[Part]) -> tuple[Change, ...]:
    """The parts added, changed or removed between two versions of a lesson, in the new page order
    (a removed part where it stood)."""
    before = {part.key: part for part in old}
    after = {part.key: part for part in new}
    changes: list[Change] = []
    old_keys = [part.key for part in old]
    placed: set[str] = set()
    for part in new:
        if part.key in before:
            # Removed parts that stood before this one in the old order go here.
            for key in old_keys[: old_keys.index(part.key)]:
                if key not in after and key not in placed:
                    changes.append(Change(key, "removed", before[key], None))
                    placed.add(key)
            if before[part.key].normalized != part.normalized:
                changes.append(Change(part.key, "changed", before[part.key], part))
        else:
            changes.append(Change(part.key, "added", None, part))
    for key in old_keys:
        if key not in after and key not in placed:
            changes.append(Change(key, "removed", before[key], None))
    return tuple(changes)


@dataclass
class Progress:
    """How much of the source a language has translated, and how much of that is current."""

    sections: int = 0
    characters: int = 0
    translated_sections: int = 0
    translated_characters: int = 0
    current_sections: int = 0
    current_characters: int = 0

    def add(self, source: Lesson, translation: Lesson | None, state: State) -> None:
        # A part still holding a `[[TODO: …]]` of `builder new` is not translated yet.
        own = {part.key for part in parts_of(translation.text) if not PLACEHOLDER.search(part.normalized)} \
            if translation is not None else set()
        stale = {change.key for change in state.changes} if state.recorded else None
        for part in parts_of(source.text):
            if part.key == FRONT_MATTER:
                continue
            self.sections += 1
            self.characters += part.characters
            if part.key not in own:
                continue
            self.translated_sections += 1
            self.translated_characters += part.characters
            if state.status == "current" or (state.status == "outdated" and stale is not None and part.key not in stale):
                self.current_sections += 1
                self.current_characters += part.characters

    def as_dict(self) -> dict:
        def pct(n, total):
            return round(100 * n / total, 1) if total else 100.0
        return {
            "sections": {"total": self.sections, "translated": self.translated_sections, "current": self.current_sections,
                         "translated_percent": pct(self.translated_sections, self.sections),
                         "current_percent": pct(self.current_sections, self.sections)},
            "characters": {"total": self.characters, "translated": self.translated_characters,
                           "current": self.current_characters,
                           "translated_percent": pct(self.translated_characters, self.characters),
                           "current_percent": pct(self.current_characters, self.characters)},
        }


def record_targets(lesson: Lesson, content: Path) -> None:
    """Refuse (before anything is written) to write the record through a link that leaves content/."""
    content_target(lesson.path, content)
    content_target(snapshot_path(lesson.path), content)


def write_record(lesson: Lesson, source: Lesson, content: Path) -> Path:
    """Replace (or add) the [translation] table of the lesson's front matter, keeping everything else of
    it as written (comments, order; a `[translation.sections]` sub-table goes with the old record),
    and keep a copy of the source beside it. Return the copy's path. Both files are written by rename,
    never through a link out of `content`."""
    import tomlkit

    lines = lesson.text.split("\n")
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    front = tomlkit.parse("\n".join(lines[1:end]))
    if "translation" in front:
        del front["translation"]
    record = tomlkit.table()
    record.comment("written by `python -m builder mark-current`; do not edit")
    record.add("source_hash", fingerprint(source.text))
    text = tomlkit.dumps(front).rstrip("\n")
    front_lines = ([text, ""] if text else []) + tomlkit.dumps(tomlkit.document() | {"translation": record}).rstrip("\n").split("\n")
    new_text = "\n".join([lines[0], *front_lines, *lines[end:]])
    newline = "\r\n" if b"\r\n" in read_bytes(lesson.path) else "\n"  # keep a Windows editor's line endings
    copy = snapshot_path(lesson.path)
    write_content_file(copy, source.text.encode("utf-8"), content)
    write_content_file(lesson.path, new_text.replace("\n", newline).encode("utf-8"), content)
    return copy


def outdated_warning(lesson: Lesson, state: State) -> Problem:
    """The warning a build gives for a translation it builds although its source changed since."""
    line = _record_line(lesson)
    if state.status == "unmarked":
        return Problem(lesson.path, 1, f"translation never marked current: when it matches "
                                       f"the source, run `python -m builder mark-current {lesson.lang} {lesson.slug}`",
                       "warning")
    return Problem(lesson.path, line, f"translation is {state.describe()}: see `python -m builder status --diff "
                                      f"{lesson.lang} {lesson.slug}`, update it, then run "
                                      f"`python -m builder mark-current {lesson.lang} {lesson.slug}`", "warning")


def _record_line(lesson: Lesson) -> int:
    for number, line in enumerate(lesson.text.split("\n")[:200], 1):
        if re.match(r"\s*\[\s*translation\s*\]", line):
            return number
    return 1
