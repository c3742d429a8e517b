"""A hyphenated Latin word stays on one line: "pre-norm", "GPT-2" inside Chinese or Japanese text.

A browser may break a line after any hyphen, and in CJK text nothing else stops it: a phone showed
"post-" at the end of one line of a caption and "norm" at the start of the next. A typesetter never
splits these short terms, so each one goes into a span that does not wrap (`.word` in site.css).
The lesson prose gets it where LessonRenderer renders plain text, the figure captions from the `words` filter,
and the page's script sets a changed caption the same way (setWords in lesson.js).
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

HYPHENED = re.compile(r"[0-9A-Za-z\u00C0-\u024F]+(?:-[0-9A-Za-z\u00C0-\u024F]+)+")


def words_html(text: str) -> str:
    """`text` as escaped HTML, each hyphenated word in a span that does not wrap."""
    out, at = [], 0
    for match in HYPHENED.finditer(text):
        out.append(escape(text[at:match.start()]))
        out.append(f'<span class="word">{escape(match.group())}</span>')
        at = match.end()
    out.append(escape(text[at:]))
    return "".join(map(str, out))


def words(text) -> Markup:
    """The `words` filter: `{{ view.caption | words }}`; escaped as autoescape would, then marked up."""
    return Markup(words_html(str(text)))
