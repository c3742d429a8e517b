"""The inline tokens of a parsed lesson, for the core rules that rewrite them (foreign, math_glue)."""

from __future__ import annotations


def inline_children(state):
    """Yield (siblings, index, token) for every inline token of the document, in order."""
    for block in state.tokens:
        if block.type == "inline" and block.children:
            for i, token in enumerate(block.children):
                yield block.children, i, token
