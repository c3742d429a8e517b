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

BudouX's Chinese model also cuts ordinary words into single characters (小|结, 下|一|步, 常|见|误区).
So the phrases are then joined by rules a typesetter would follow (join_phrases): a phrase of symbols
alone (Δ, "/ 6", a number) goes with the phrase before it; a particle (的, 了…) goes with the one before;
runs of one-character phrases go together, up to a comma or stop; and a character still alone joins its
neighbour. No line then starts with a lone symbol or holds one character of a word.

Figure labels (table headers, legends, controls) are plain text that the page's script also sets:
label_breaks() marks the same phrases in the text itself, a zero-width space between phrases and a
no-break space for the spacing inside one (块 6, 前馈网络的 Δ), and site.css keeps everything else whole.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape

PARSERS = {"ja": "load_default_japanese_parser", "zh": "load_default_simplified_chinese_parser"}
PARTICLES = set("的了着过地得吗呢吧啊" "のはがをにでともへや")  # they close the phrase before them
STOPS = set("，、。；：！？）」』】,;:!?)")  # a run of one-character phrases ends after one of these
OPENERS = set("（「『【(“‘")  # and a new one starts with one of these
ZWSP, NBSP = "\u200b", "\u00a0"
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
AFTER_NUMBER = "起后时处之以"  # 块 3 起, 块 6 后, 块 3 之前 (not 前: 块 6 前馈网络): a label keeps them with their number
PLACEHOLDER = re.compile(r"%\(\w+\)s")  # a label the page's script fills in ("ステップ %(n)s / %(total)s")
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
    return "<wbr>".join(escape(chunk, quote=False) for chunk in phrases(text, lang, units))


@cache
def label_breaks(text: str, lang: str, units: tuple[str, ...] = ()) -> str:
    """Return the label `text` as plain text whose line breaks fall between phrases only (with CSS
    `word-break: keep-all`): a zero-width space between phrases that no space parts, a no-break space
    for a space inside a phrase next to a CJK character or a symbol (块 6, 的 Δ); a space between two
    Latin words stays a space. Other languages' text is returned as it is."""
    if _parser(lang) is None or not text:
        return text
    if lang.split("-")[0].lower() == "zh":
        # A Chinese label is a short noun phrase, and BudouX's model cuts words it does not know (注|意力):
        # it breaks only at its spaces and punctuation, never between two characters, by the same rules.
        chunks = _joined(text, _spaced(text, units))
    else:
        chunks = phrases(text, lang, units, spaces=True)
    out = []
    for chunk in chunks:
        chunk = re.sub(r"(?<=\S) (?=\S)", lambda m: " " if _latin_pair(chunk, m.start()) else NBSP, chunk)
        if out and not out[-1].endswith(" ") and not chunk.startswith(" "):
            out.append(ZWSP)
        out.append(chunk)
    return "".join(out)


def _spaced(text: str, units: tuple[str, ...]) -> list[str]:
    """`text` cut after each space and stop and before each opening bracket, never inside a unit, nor
    between a number and a word of place or time after it (块 3 起, 块 %(n)s 之后: not 块 3 / 起; but
    块 6 / 前馈网络, a term of its own)."""
    inside, _ = unbreakable(text, units)
    chunks, start = [], 0
    for i in range(1, len(text)):
        after_number = (i > 1 and (text[i - 2].isdigit() or text[:i - 1].endswith(")s")) and text[i] in AFTER_NUMBER
                        and not any(text.startswith(unit.replace("|", ""), i) for unit in units))
        if i not in inside and (text[i - 1] == " " and text[i] != " " and not after_number
                                or text[i - 1] in STOPS or text[i] in OPENERS):
            chunks.append(text[start:i])
            start = i
    return [c for c in chunks + [text[start:]] if c]


def _latin_pair(text: str, at: int) -> bool:
    """Whether the space at `at` parts two Latin words (by the river bank), where a line may break."""
    return bool(re.match(r"[A-Za-z\u00C0-\u024F]{2}", text[at - 2:at]) and re.match(r"[A-Za-z\u00C0-\u024F]{2}", text[at + 1:at + 3]))


def phrases(text: str, lang: str, units: tuple[str, ...] = (), spaces: bool = False) -> list[str]:
    """The phrases of `text` a line may break between: BudouX's, never inside a Latin word or a unit
    (where a unit marks it may wrap, there too), joined by join_phrases(). `spaces`: cut after every
    space first too (a label's "注目する語 \\ 注目される語", which BudouX reads as one phrase across the space)."""
    parser = _parser(lang)
    if parser is None or not text:
        return [text] if text else []
    inside, wraps = unbreakable(text, units)
    cuts = set(boundaries(parser.parse(_shadow(text))))
    if spaces:
        cuts |= {i for i in range(1, len(text)) if text[i - 1] == " " and text[i] != " "}
    pieces, start = [], 0
    for end in sorted(cuts - inside):
        if 0 < end < len(text):
            pieces.append(text[start:end])
            start = end
    chunks = _joined(text, pieces + [text[start:]])
    if not wraps:
        return chunks
    out, at = [], 0  # a unit's marked wrap is a break whatever the rules joined
    for chunk in chunks:
        cuts = [w - at for w in sorted(wraps) if at < w < at + len(chunk)]
        for piece in (chunk[a:b] for a, b in zip([0] + cuts, cuts + [len(chunk)])):
            out.append(piece)
        at += len(chunk)
    return out


def _shadow(text: str) -> str:
    """`text` with each placeholder the script fills with a number ("%(n)s") read as that number."""
    return PLACEHOLDER.sub(lambda m: "0" * len(m.group()), text)


def _joined(text: str, pieces: list[str]) -> list[str]:
    """join_phrases() over the pieces of `text`, judged with its placeholders read as numbers."""
    shadow, at, read = _shadow(text), 0, []
    for piece in (p for p in pieces if p):
        read.append(shadow[at:at + len(piece)])
        at += len(piece)
    out, at = [], 0
    for piece in join_phrases(read):
        out.append(text[at:at + len(piece)])
        at += len(piece)
    return out


def _letters(phrase: str) -> int:
    """How many letters (CJK characters, kana, Latin letters) a phrase has; digits and symbols are not."""
    return sum(1 for ch in phrase if ch.isalpha())


def join_phrases(chunks: list[str]) -> list[str]:
    """Join phrases no line should hold alone: symbols alone (Δ, "/ 6", 6) and particles (的) go with the
    phrase before; one-letter phrases in a row are one word, up to a stop (，、：…); a phrase of one
    letter still alone joins the next phrase (the one before, at the end or when it ends with a stop)."""
    out: list[str] = []
    for chunk in chunks:
        if out and (_letters(chunk) == 0 or chunk.strip() in PARTICLES):
            out[-1] += chunk
        else:
            out.append(chunk)
    if len(out) > 1 and _letters(out[0]) == 0:
        out[:2] = [out[0] + out[1]]
    runs: list[list] = []  # [text, made of one-letter phrases]
    for chunk in out:  # 小|结, 下|一|步, 同|一|个
        single = _weight(chunk) == 1
        if single and runs and runs[-1][1] and not _ends_stop(runs[-1][0]) and chunk.lstrip()[:1] not in OPENERS:
            runs[-1][0] += chunk
        else:
            runs.append([chunk, single])
    joined: list[str] = []
    carry = ""
    for i, (chunk, _) in enumerate(runs):  # 前馈网络|与残差连接
        chunk, carry = carry + chunk, ""
        if _weight(chunk) == 1 and len(runs) > 1:
            before_opener = i < len(runs) - 1 and runs[i + 1][0].lstrip()[:1] in OPENERS
            ends_symbol = not chunk.rstrip()[-1:].isalnum()  # "語 \\ ": the symbol parts it from what follows
            if joined and (i == len(runs) - 1 or _ends_stop(chunk) or before_opener or ends_symbol):
                joined[-1] += chunk
                continue
            if i < len(runs) - 1:
                carry = chunk
                continue
        joined.append(chunk)
    return joined + ([carry] if carry else [])


def _ends_stop(phrase: str) -> bool:
    return phrase.rstrip()[-1:] in STOPS


def _weight(phrase: str) -> int:
    """A phrase's letters and digits: "块 6" weighs two, as "小结" does."""
    return sum(1 for ch in phrase if ch.isalnum())


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
    spans = [match.span() for match in LATIN_WORD.finditer(text)] + [m.span() for m in PLACEHOLDER.finditer(text)]
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
