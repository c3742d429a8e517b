"""Line breaks between phrases in Chinese and Japanese headings and labels.

A browser may break CJK text between any two characters, so a heading at phone width can end a
line in the middle of a word (ブロッ|ク). BudouX (Google's phrase segmenter, a small model per
language) finds the phrase boundaries; we put a <wbr> at each and style those elements with
`word-break: keep-all`, so lines break only there or at spaces.
"""

from __future__ import annotations

from functools import cache
from html import escape

PARSERS = {"ja": "load_default_japanese_parser", "zh": "load_default_simplified_chinese_parser"}


@cache
def _parser(lang: str):
    import budoux

    name = PARSERS.get(lang.split("-")[0].lower())
    return getattr(budoux, name)() if name else None


@cache
def phrase_breaks(text: str, lang: str) -> str:
    """Return `text` as HTML, escaped, with <wbr> between its phrases (unchanged for other languages)."""
    parser = _parser(lang)
    if parser is None or not text:
        return escape(text, quote=False)
    return "<wbr>".join(escape(chunk, quote=False) for chunk in parser.parse(text))
