"""Line breaks between phrases in Chinese and Japanese headings and labels.

A browser may break CJK text between any two characters, so a heading at phone width can end a
line in the middle of a word (ブロッ|ク). BudouX (Google's phrase segmenter, a small model per
language) finds the phrase boundaries; we put a <wbr> at each and style those elements with
`word-break: keep-all`, so lines break only there or at spaces.

BudouX's models are trained on general text and do not know our terms: left alone they split
"残|差流", "归|一化", "逐|位|置", and even Latin words ("LayerNor|m"). So a boundary is dropped when
it falls inside a Latin word or inside one of the units the caller names (the glossary's terms,
content/glossary.toml). A unit may mark with `|` the one place where it may wrap when it is wider than
a line on its own ("フィードフォワード|ネットワーク" in a phone-wide title): that place becomes a
break opportunity, and no other place inside it does.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape

PARSERS = {"ja": "load_default_japanese_parser", "zh": "load_default_simplified_chinese_parser"}
LATIN_WORD = re.compile(r"[0-9A-Za-z\u00C0-\u024F]+(?:[-'’.][0-9A-Za-z\u00C0-\u024F]+)*")  # Pre-Norm, ln_f's parts, GPT-2


@cache
def _parser(lang: str):
    import budoux

    name = PARSERS.get(lang.split("-")[0].lower())
    return getattr(budoux, name)() if name else None


@cache
def phrase_breaks(text: str, lang: str, units: tuple[str, ...] = ()) -> str:
    """Return `text` as HTML, escaped, with <wbr> between its phrases (unchanged for other languages).
    No <wbr> falls inside a Latin word or inside an occurrence of one of `units`."""
    parser = _parser(lang)
    if parser is None or not text:
        return escape(text, quote=False)
    inside, wraps = unbreakable(text, units)
    chunks, start = [], 0
    for end in sorted((set(boundaries(parser.parse(text))) - inside) | wraps):
        if 0 < end < len(text):
            chunks.append(text[start:end])
            start = end
    chunks.append(text[start:])
    return "<wbr>".join(escape(chunk, quote=False) for chunk in chunks if chunk)


def boundaries(phrases: list[str]) -> list[int]:
    """Return the offsets between consecutive phrases."""
    offsets, at = [], 0
    for phrase in phrases[:-1]:
        at += len(phrase)
        offsets.append(at)
    return offsets


def unbreakable(text: str, units: tuple[str, ...]) -> tuple[set[int], set[int]]:
    """Return (the offsets of `text` a line may not break at: inside a Latin word or a unit, the offsets
    where a unit marks that it may wrap)."""
    spans = [match.span() for match in LATIN_WORD.finditer(text)]
    wraps = set()
    for marked in units:
        unit = marked.replace("|", "")
        if len(unit) < 2:
            continue
        marks = [i - n for n, i in enumerate(i for i, ch in enumerate(marked) if ch == "|")]
        at = text.find(unit)
        while at >= 0:
            spans.append((at, at + len(unit)))
            wraps.update(at + mark for mark in marks)
            at = text.find(unit, at + 1)
    return {offset for start, end in spans for offset in range(start + 1, end)} - wraps, wraps
