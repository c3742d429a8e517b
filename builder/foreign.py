"""Words in another language inside a lesson: `*by the river bank*{lang=en}`.

A Chinese or Japanese lesson quotes English example sentences; a screen reader should read them in
English and a browser should pick Latin fonts and hyphenation for them. Writing `{lang=TAG}` right
after an emphasis (`*…*` or `**…**`) gives that emphasis the language: `<em lang="en">`. Only a
language tag is accepted (letters, digits and hyphens: `en`, `en-GB`); the rest of the `{…}` syntax
other Markdown tools have (classes, ids, any attribute) is not, because lesson text is semi-trusted.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from builder.inline_tokens import inline_children

LANG_NOTE = re.compile(r"\{lang=([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\}")
CLOSERS = {"em_close": "em_open", "strong_close": "strong_open"}


def _apply(state) -> None:
    for children, i, token in inline_children(state):
        if token.type != "text" or i == 0 or children[i - 1].type not in CLOSERS:
            continue
        match = LANG_NOTE.match(token.content)
        if not match:
            continue
        opener = _opener(children, i - 1)
        if opener is None:
            continue
        opener.attrSet("lang", match.group(1))
        token.content = token.content[match.end():]


def _opener(children, close: int):
    """The emphasis opening token that `children[close]` closes."""
    want, depth = CLOSERS[children[close].type], 0
    for j in range(close - 1, -1, -1):
        if children[j].type == children[close].type:
            depth += 1
        elif children[j].type == want:
            if depth == 0:
                return children[j]
            depth -= 1
    return None


def foreign_plugin(md: MarkdownIt) -> None:
    """`*…*{lang=en}`: emphasis in another language."""
    md.core.ruler.push("foreign_language", _apply)
