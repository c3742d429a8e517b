"""Checks across languages: the translations of a lesson must match its source in structure."""

from __future__ import annotations

from builder.content import Lesson, meta_line
from builder.errors import Problem
from builder.markdown import Outline


def check_parity(lessons: dict[str, dict[str, Lesson]], outlines: dict[tuple[str, str], Outline],
                 source_language: str) -> list[Problem]:
    """Report every structural difference between a translation and its source lesson.

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
            problems += compare(source[slug], lesson, theirs, mine)
    return problems


def compare(source: Lesson, other: Lesson, a: Outline, b: Outline) -> list[Problem]:
    """Compare one translation (outline `b`) with its source (outline `a`)."""
    problems = []
    for key in ("scenario", "scenarios", "figures", "walkthrough"):
        if source.meta.get(key) != other.meta.get(key):
            problems.append(Problem(other.path, meta_line(other.text, key) or 1,
                                    f"front matter {key!r} is {other.meta.get(key)!r} but {source.path} has "
                                    f"{source.meta.get(key)!r}"))
    for i, (mine, theirs) in enumerate(zip(b.sections, a.sections)):
        if mine[:2] != theirs[:2]:
            problems.append(Problem(other.path, mine[2], f"section {i + 1} is {mine[0]} #{mine[1]} but "
                                                         f"{source.path}:{theirs[2]} has {theirs[0]} #{theirs[1]}"))
            break
    else:
        if len(a.sections) != len(b.sections):
            extra = b.sections[len(a.sections):] or a.sections[len(b.sections):]
            where = b.sections[-1][2] if b.sections else other.body_line
            problems.append(Problem(other.path, where, f"{len(b.sections)} sections but {source.path} has "
                                                       f"{len(a.sections)} (first unmatched: #{extra[0][1]})"))
    if a.steps != b.steps:
        problems.append(Problem(other.path, other.body_line, f"{b.steps} walkthrough steps but {source.path} has {a.steps}"))
    if a.interactive != b.interactive:
        problems.append(Problem(other.path, other.body_line, f"figures placed by `::: interactive` are {list(b.interactive)} "
                                                             f"but {source.path} places {list(a.interactive)}"))
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
