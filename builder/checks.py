"""Checks across languages: the translations of a lesson must match its source in structure.

A translation marked current that differs from its source is an error. One whose source changed
since it was marked (or that was never marked) is built as it is, with the outdated notice, and its
differences are warnings: an author's edit never stops the site from building.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from builder.content import Lesson, meta_line
from builder.errors import Problem
from builder.markdown import Outline
from builder.translation import status_of


def check_parity(lessons: dict[str, dict[str, Lesson]], outlines: dict[tuple[str, str], Outline],
                 source_language: str, strict: set[tuple[str, str]] | None = None) -> list[Problem]:
    """Report every structural difference between a translation and its source lesson: errors for a
    translation marked current, warnings for one that is not (or for every translation in `strict`,
    errors: mark-current checks a translation as if it were current).

    `outlines` holds each parsed lesson's outline by (language, slug); lessons without one (not
    rendered in a partial rebuild) are skipped."""
    problems = []
    source = lessons.get(source_language, {})
    for lang, by_slug in lessons.items():
        if lang == source_language:
            continue
        for slug, lesson in by_slug.items():
            mine, theirs = outlines.get((lang, slug)), outlines.get((source_language, slug))
            if slug not in source or mine is None or theirs is None:
                continue
            found = compare(source[slug], lesson, theirs, mine)
            lenient = (lang, slug) not in (strict or set()) and status_of(lesson, source[slug]) != "current"
            problems += [Problem(p.path, p.line, p.message, "warning") for p in found] if lenient else found
    return problems


def compare(source: Lesson, other: Lesson, a: Outline, b: Outline) -> list[Problem]:
    """Compare one translation (outline `b`) with its source (outline `a`)."""
    problems = []
    for key in ("scenario", "scenarios", "figures", "walkthrough"):
        if source.meta.get(key) != other.meta.get(key):
            problems.append(Problem(other.path, meta_line(other.text, key) or 1,
                                    f"front matter {key!r} is {_shown(other.meta.get(key))} but {source.path} has "
                                    f"{_shown(source.meta.get(key))}"))
    problems += compare_sections(source, other, a, b)
    if a.steps != b.steps:
        problems.append(Problem(other.path, other.body_line, f"{b.steps} walkthrough steps but {source.path} has {a.steps}"))
    if a.interactive != b.interactive:
        problems.append(Problem(other.path, other.body_line, f"figures placed by `::: interactive` are {list(b.interactive)} "
                                                             f"but {source.path} places {list(a.interactive)}"))
    problems += compare_figure_labels(source, other, a, b)
    if a.refs != b.refs:
        missing = sorted((a.refs - b.refs).elements())
        extra = sorted((b.refs - a.refs).elements())
        detail = "; ".join(filter(None, [
            "missing " + ", ".join("{{" + r + "}}" for r in missing) if missing else "",
            "extra " + ", ".join("{{" + r + "}}" for r in extra) if extra else "",
        ]))
        line = b.ref_lines.get(extra[0], other.body_line) if extra else other.body_line
        problems.append(Problem(other.path, line, f"figures differ from {source.path}: {detail}"))
    return problems


def compare_figure_labels(source: Lesson, other: Lesson, a: Outline, b: Outline) -> list[Problem]:
    """The figures (diagrams and interactive ones, numbered in page order) must carry the source's labels
    in the same order, so that `@fig-…` finds the same figure, with the same number, in every language."""
    theirs, mine = a.figure_labels, b.figure_labels
    if len(theirs) != len(mine):
        return [Problem(other.path, other.body_line, f"{len(mine)} figures (`::: diagram` and `::: interactive`) but "
                                                     f"{source.path} has {len(theirs)}: figures are numbered, so the "
                                                     "translation keeps each one")]
    return [Problem(other.path, my_line, f"figure {n} is {_label(my_label)} but {source.path}:{line} has it "
                                         f"{_label(label)}")
            for n, ((label, line), (my_label, my_line)) in enumerate(zip(theirs, mine), 1) if label != my_label]


def _label(label: str) -> str:
    return f"labelled {{#{label}}}" if label else "without a label"


def _shown(value) -> str:
    return "none" if value is None else repr(value)


def compare_sections(source: Lesson, other: Lesson, a: Outline, b: Outline) -> list[Problem]:
    """Name each section the translation lacks, has in excess, or has at another level, against the
    source's sections in order. A heading without an id is its own file's problem, reported there."""
    if any(s[1] == "?" for s in a.sections):
        return []  # the source's heading without an id is reported on the source
    theirs = a.sections
    mine = [s for s in b.sections if s[1] != "?"]
    problems = []
    matcher = SequenceMatcher(None, [s[1] for s in theirs], [s[1] for s in mine], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for (level, anchor, line), (my_level, _, my_line) in zip(theirs[i1:i2], mine[j1:j2]):
                if level != my_level:
                    problems.append(Problem(other.path, my_line, f"section #{anchor} is {my_level} but "
                                                                 f"{source.path}:{line} has it as {level}"))
            continue
        # Where a missing section would go: before the translation's next section, or at its end.
        where = mine[j1][2] if j1 < len(mine) else (mine[-1][2] if mine else other.body_line)
        for level, anchor, line in theirs[i1:i2]:
            if anchor in {s[1] for s in mine}:
                continue  # moved: reported where it stands in the translation
            problems.append(Problem(other.path, where, f"missing section {level} #{anchor} "
                                                       f"({source.path}:{line} has it)"))
        for level, anchor, line in mine[j1:j2]:
            if anchor in {s[1] for s in theirs}:
                problems.append(Problem(other.path, line, f"section #{anchor} is out of order: "
                                                          f"{source.path} has it elsewhere"))
            else:
                problems.append(Problem(other.path, line, f"section {level} #{anchor} is not in {source.path}"))
    return problems


def missing_anchors(a: Outline, b: Outline) -> list[tuple[str, str | None]]:
    """For a translation built while its source has sections it lacks: each such section id, with the
    id of the translation's section it would come before (None: at the end). The page gives them an
    anchor there, so a reader switching language at `#section` lands where that section would be."""
    mine = {s[1] for s in b.sections}
    out, pending = [], []
    for _, anchor, _ in a.sections:
        if anchor == "?":
            continue
        if anchor in mine:
            out += [(missing, anchor) for missing in pending]
            pending = []
        else:
            pending.append(anchor)
    return out + [(missing, None) for missing in pending]
