"""Checks across languages: the translations of a lesson must match its source in structure."""

from __future__ import annotations

from collections import Counter

from builder.content import Lesson, meta_line
from builder.errors import Problem
from builder.markdown import HEADING_ID, make_markdown

_md = make_markdown()


def outline(lesson: Lesson) -> dict:
    """Return what must match across languages: sections, walkthrough steps, figures used."""
    tokens = _md.parse(lesson.body, {})
    sections, refs, steps, interactive = [], Counter(), 0, False
    ref_lines: dict[str, int] = {}
    depth, in_walk = 0, False
    for i, token in enumerate(tokens):
        line = lesson.body_line + token.map[0] if token.map else lesson.body_line
        if token.type == "heading_open":
            match = HEADING_ID.search(tokens[i + 1].content)
            anchor = match.group(1) if match else "?"  # the renderer reports the missing id
            sections.append((token.tag, anchor, line))
        elif token.type == "container_walkthrough_open":
            in_walk = True
        elif token.type == "container_walkthrough_close":
            in_walk = False
        elif token.type == "container_interactive_open":
            interactive = True
        elif in_walk and token.type == "list_item_open":
            depth += 1
            steps += depth == 1
        elif in_walk and token.type == "list_item_close":
            depth -= 1
        elif token.type == "inline":
            for child in token.children or []:
                if child.type == "trace_ref":
                    ref = " ".join(child.content.split())
                    refs[ref] += 1
                    ref_lines.setdefault(ref, line + (child.meta or {}).get("offset", 0))
    return {"sections": sections, "refs": refs, "ref_lines": ref_lines, "steps": steps, "interactive": interactive}


def check_parity(lessons: dict[str, dict[str, Lesson]], source_language: str) -> list[Problem]:
    """Report every structural difference between a translation and its source lesson."""
    problems = []
    source = lessons.get(source_language, {})
    for lang, by_slug in lessons.items():
        if lang == source_language:
            continue
        for slug, lesson in by_slug.items():
            if slug not in source:
                continue
            problems += compare(source[slug], lesson)
    return problems


def compare(source: Lesson, other: Lesson) -> list[Problem]:
    """Compare one translation with its source."""
    problems = []
    for key in ("scenario", "figure", "walkthrough"):
        if source.meta.get(key) != other.meta.get(key):
            problems.append(Problem(other.path, meta_line(other.text, key) or 1,
                                    f"front matter {key!r} is {other.meta.get(key)!r} but {source.path} has "
                                    f"{source.meta.get(key)!r}"))
    a, b = outline(source), outline(other)
    for i, (mine, theirs) in enumerate(zip(b["sections"], a["sections"])):
        if mine[:2] != theirs[:2]:
            problems.append(Problem(other.path, mine[2], f"section {i + 1} is {mine[0]} #{mine[1]} but "
                                                         f"{source.path}:{theirs[2]} has {theirs[0]} #{theirs[1]}"))
            break
    else:
        if len(a["sections"]) != len(b["sections"]):
            extra = b["sections"][len(a["sections"]):] or a["sections"][len(b["sections"]):]
            where = b["sections"][-1][2] if b["sections"] else other.body_line
            problems.append(Problem(other.path, where, f"{len(b['sections'])} sections but {source.path} has "
                                                       f"{len(a['sections'])} (first unmatched: #{extra[0][1]})"))
    if a["steps"] != b["steps"]:
        problems.append(Problem(other.path, other.body_line, f"{b['steps']} walkthrough steps but {source.path} has {a['steps']}"))
    if a["interactive"] != b["interactive"]:
        problems.append(Problem(other.path, other.body_line, f"`::: interactive` is {'missing' if a['interactive'] else 'extra'} "
                                                             f"compared with {source.path}"))
    if a["refs"] != b["refs"]:
        missing = sorted((a["refs"] - b["refs"]).elements())
        extra = sorted((b["refs"] - a["refs"]).elements())
        detail = "; ".join(filter(None, [
            "missing " + ", ".join("{{" + r + "}}" for r in missing) if missing else "",
            "extra " + ", ".join("{{" + r + "}}" for r in extra) if extra else "",
        ]))
        line = b["ref_lines"].get(extra[0], other.body_line) if extra else other.body_line
        problems.append(Problem(other.path, line, f"figures differ from {source.path}: {detail}"))
    return problems
