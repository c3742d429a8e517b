"""Inline math keeps the CJK punctuation next to it on its line: `长度 $\\lVert \\Delta \\rVert$。`

A browser treats an inline <math> as one object and may break a line right after it, so a phone
could start a line with 。 or ） (a typesetter never does: 行頭禁則) or end one with （. The text
rules that forbid those breaks do not reach across the object. So a run of closing punctuation
right after inline math, and of opening punctuation right before it, moves into a span with the
math that does not wrap inside (`.math-glue` in site.css).
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from builder.inline_tokens import inline_children

CLOSING = "、。，．：；！？）」』】〉》〕］｝”’"
OPENING = "（「『【〈《〔［｛“‘"


def _apply(state) -> None:
    for children, i, token in inline_children(state):
        if token.type != "math_inline":
            continue
        after = children[i + 1] if i + 1 < len(children) else None
        if after is not None and after.type == "text":
            rest = after.content.lstrip(CLOSING)
            token.meta["after"], after.content = after.content[:len(after.content) - len(rest)], rest
        before = children[i - 1] if i else None
        if before is not None and before.type == "text":
            rest = before.content.rstrip(OPENING)
            token.meta["before"], before.content = before.content[len(rest):], rest


def math_glue_plugin(md: MarkdownIt) -> None:
    """Wrap inline math with its neighbouring CJK punctuation; use after the dollarmath plugin."""
    md.core.ruler.push("math_glue", _apply)
    render_math = md.renderer.rules["math_inline"]  # bound to the renderer already

    def render(self, tokens, idx, options, env):
        math = render_math(tokens, idx, options, env)
        before, after = tokens[idx].meta.get("before", ""), tokens[idx].meta.get("after", "")
        if not (before or after):
            return math
        return f'<span class="math-glue">{escapeHtml(before)}{math}{escapeHtml(after)}</span>'

    md.add_render_rule("math_inline", render)
