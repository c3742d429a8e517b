"""Links in the lessons that lead nowhere: a page the site does not have, or an anchor its page lacks.

Hugo (refLinksErrorLevel) and MkDocs (validation.links, validation.anchors) check these; so does this,
on the rendered pages, so an anchor counts whatever made it (a heading, a figure, a self-check).
A broken link is a warning, not a problem: an author's edit to one lesson must not stop the others'
languages from building; `--strict` and the tests fail on it.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote, urlsplit

from builder.errors import Problem

# [text](target) in Markdown, not an image; the target up to a space or the closing parenthesis
_LINK = re.compile(r"(?<!!)\]\(\s*<?([^)\s>]+)")
_ID = re.compile(rb'\sid="([^"]*)"')


def broken_links(lessons: dict, files: dict[str, bytes]) -> list[Problem]:
    """One warning per link in a lesson's Markdown whose page or anchor is not in the built site (`files`,
    relative path → bytes). Links to other sites, and fragments that set a figure's state, are not checked."""
    ids: dict[str, set[str]] = {}

    def anchors(page: str) -> set[str]:
        if page not in ids:
            ids[page] = {unquote(m.group(1).decode("utf-8", "replace")) for m in _ID.finditer(files[page])}
        return ids[page]

    # a preview's partial rebuild holds only the pages it renders again: a page missing from it may exist
    partial = any(f"{lang}/{slug}.html" not in files for lang, by_slug in lessons.items() for slug in by_slug)
    found = []
    for by_slug in lessons.values():
        for lesson in by_slug.values():
            page = f"{lesson.lang}/{lesson.slug}.html"
            if page not in files:  # a partial rebuild without it
                continue
            for number, line in enumerate(lesson.body.split("\n"), lesson.body_line):
                for match in _LINK.finditer(line):
                    target = match.group(1)
                    parts = urlsplit(target)
                    if parts.scheme or parts.netloc or target.startswith("//"):
                        continue
                    where = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path))) \
                        if parts.path else page
                    if where not in files:
                        if partial:
                            continue
                        found.append(Problem(lesson.path, number, f"the link {target!r} leads to {where!r}, which the "
                                                                  "site does not have", "warning"))
                    elif parts.fragment and "=" not in parts.fragment and where.endswith(".html") \
                            and unquote(parts.fragment) not in anchors(where):
                        found.append(Problem(lesson.path, number, f"the link {target!r}: {where!r} has no anchor "
                                                                  f"#{unquote(parts.fragment)}", "warning"))
    return found
