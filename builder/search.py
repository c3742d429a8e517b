"""Search: each language's index, written at build time as a classic script the pages load on demand.

Why a script and not JSON: a page read from disk (file://) or from the unpacked archive may not fetch
anything, but it may load a script of its own site, and the page's Content-Security-Policy allows
exactly that (no eval, no WebAssembly). The file's name carries a hash of its content, so a browser or
the service worker may keep it for as long as it likes.

What is indexed: every section of every lesson page of the language (the text before the first
heading, then each `##` and `###` section), as the reader sees it: trace values printed, formulas as
one line of plain-text math (d_model, (xᵢ−μ)/√(σ²+ϵ): mathml.linear_text; their tags stripped would run
together as "dmodel"), the interactive figures and the drawings of diagrams left out, source line breaks
between two CJK characters removed (the browser shows them as nothing, or as a space that no reader types). A section is found when its text holds every term of the
query, after the same normalisation on both sides (NFC, then per character NFKC and lower case). To
find candidates fast the index keeps, per section, its CJK character bigrams and its other words; the
browser intersects those and confirms each candidate by a substring check, so a compound (层归一化,
正規化) is found wherever it is written, and a word that is not in the text (学力) is not, whatever
its characters.

The index (version 1), in `assets/search-<lang>.<hash>.js`:

    self.lessonSearchIndex = {
      "version": 1, "lang": "zh-Hans",
      "pages": [[href, title], ...],                      # href from the site's root: zh/slug.html
      "sections": [[page, anchor, heading, text], ...],   # anchor "" = the top of the page
      "bigrams": [KEYS, POSTINGS],   # KEYS: the bigrams grouped by first character, a group being that
                                     # character and every second one ("层归叠 …"), groups between spaces
      "words": [KEYS, POSTINGS]      # KEYS: the words, sorted by UTF-16 code units, between spaces
    };
    POSTINGS: per key in KEYS' order, the sections whose heading or text holds it (ascending, each
    written as the gap from the one before, in base 36, between commas), lists between semicolons

Titles are not in the postings: the browser checks the few titles itself. This layout is about 30 %
smaller, compressed, than JSON objects of arrays (the keys are most of an index of a small site).

The browser side is templates/assets/search.js; it holds no strings of its own.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from builder.mathml import linear_text

INDEX_VERSION = 1
HASH_LENGTH = 12
# In a rendered page until the index is named: as long as the name, so that a page already written can
# be finished in place; content can never put a raw `<` into a page.
PLACEHOLDER = "assets/search-{lang}." + "<" * HASH_LENGTH + ".js"

# Characters indexed as CJK bigrams (after normalisation): kana (not the middle dot), ideographs, hangul.
CJK_RANGES = ((0x3005, 0x3007), (0x3041, 0x3096), (0x309D, 0x309E), (0x30A1, 0x30FA), (0x30FC, 0x30FE),
              (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3))

_MATH = re.compile(r"<math\b.*?</math>", re.S)  # our own MathML (builder/mathml.py), never nested
_DIAGRAM = re.compile(r'(<figure class="diagram"[^>]*>).*?(<figcaption>)', re.S)  # keep the caption, not the drawing
_HEADING = re.compile(r'<h([23]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
_BLOCK_END = re.compile(r"</(?:p|li|pre|td|th|figcaption|blockquote|h[1-6])>|<br\s*/?>")
_TAG = re.compile(r"<[^>]*>")
BLOCK = "\x00"  # marks where one block ends and the next begins, until spaces are settled


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in CJK_RANGES)


def is_word(ch: str) -> bool:
    """A letter or digit of a word indexed whole (Latin, Greek, …); CJK characters are indexed as bigrams."""
    return ch.isalnum() and not is_cjk(ch)


@dataclass(frozen=True)
class Section:
    anchor: str  # the heading's id, "" for the text before the first heading
    heading: str
    text: str


def page_sections(body: str, figures=()) -> list[Section]:
    """Split a rendered lesson body into its sections' plain text, as the reader sees it; `figures` are
    the interactive figures' markup placed in it (left out: their words are labels, not the lesson's).
    The whole body is made text at once, each heading marked off by characters no text keeps."""
    for figure in figures:
        body = body.replace(figure, "\n")
    body = _DIAGRAM.sub(r"\1\2", _MARKS.sub("", body))
    body = _MATH.sub(lambda m: html.escape(linear_text(m.group()), quote=False), body)
    body = _HEADING.sub(lambda m: f"{BLOCK}{HEADING}{m.group(2)}{ANCHOR_END}{m.group(3)}{HEADING_END}{BLOCK}", body)
    parts = plain_text(body).split(HEADING)
    sections = [Section("", "", parts[0].strip())]
    for part in parts[1:]:
        anchor, _, rest = part.partition(ANCHOR_END)
        heading, _, text = rest.partition(HEADING_END)
        sections.append(Section(anchor, heading.strip(), text.strip()))
    return [s for s in sections if s.text or s.anchor]


HEADING, ANCHOR_END, HEADING_END = "\x01", "\x02", "\x03"  # around a heading's id and text, while the body is text
_MARKS = re.compile(f"[{HEADING}{ANCHOR_END}{HEADING_END}]")  # dropped from the body first, should it hold any


def plain_text(markup: str) -> str:
    """Our own rendered HTML → text: tags dropped, entities decoded, spaces as the browser shows them."""
    text = html.unescape(_TAG.sub("", _BLOCK_END.sub(BLOCK, markup)))
    return settle_spaces(unicodedata.normalize("NFC", text))


def settle_spaces(text: str) -> str:
    """Collapse runs of white space to one space, drop a source line break between two CJK characters
    (a sentence wrapped in the source is one run of text on the page), and separate blocks by a space."""
    def between(match) -> str:
        if BLOCK in match.group():
            return " "
        at, end = match.start(), match.end()
        if at and end < len(text) and _wide(text[at - 1]) and _wide(text[end]):
            return ""  # a wrapped line inside a CJK sentence (the CSS Text rule for segment breaks)
        return " "

    text = _BREAKS.sub(between, text)
    return _SPACES.sub(" ", text).strip()


_BREAKS = re.compile(r"[\s\x00]*[\n\x00][\s\x00]*")  # runs of white space holding a line break or a block's end
_SPACES = re.compile(r"\s+")


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F", "H") and not 0xAC00 <= ord(ch) <= 0xD7A3



@lru_cache(maxsize=None)
def fold(ch: str) -> str:
    """One character as search compares it: NFKC, then lower case (the browser does the same, character
    by character, so a position in the folded text maps back to the text shown)."""
    return unicodedata.normalize("NFKC", ch).lower()


class _FoldTable(dict):
    """str.translate's table: each character's fold, worked out the first time it is met."""

    def __missing__(self, code: int) -> str:
        self[code] = folded_char = fold(chr(code))
        return folded_char


_FOLDS = _FoldTable()


def folded(text: str) -> str:
    return text.translate(_FOLDS)


_CJK_CLASS = "".join(f"\\u{low:04x}-\\u{high:04x}" for low, high in CJK_RANGES)
_BIGRAM = re.compile(f"(?=([{_CJK_CLASS}]{{2}}))")  # every pair of neighbouring CJK characters, overlapping
_WORD = re.compile(f"[^\\W_{_CJK_CLASS}]+")  # letters and digits (str.isalnum), CJK aside


def terms(text: str) -> tuple[set[str], set[str]]:
    """Return the (CJK bigrams, words) of an already folded text."""
    return set(_BIGRAM.findall(text)), set(_WORD.findall(text))


@functools.lru_cache(maxsize=8192)  # the preview indexes every unchanged section again on each edit
def section_terms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    bigrams, words = terms(folded(text))
    return frozenset(bigrams), frozenset(words)


def build_index(html_lang: str, pages: list[tuple[str, str, list[Section]]]) -> bytes:
    """Return the index script for one language: `pages` are (href from the site's root, title, sections)."""
    page_rows, section_rows = [], []
    bigram_postings: dict[str, list[int]] = defaultdict(list)
    word_postings: dict[str, list[int]] = defaultdict(list)
    for number, (href, title, sections) in enumerate(pages):
        page_rows.append([href, unicodedata.normalize("NFC", title)])
        for section in sections:
            index = len(section_rows)
            section_rows.append([number, section.anchor, section.heading, section.text])
            bigrams, words = section_terms(section.heading + " " + section.text)
            for gram in bigrams:
                bigram_postings[gram].append(index)
            for word in words:
                word_postings[word].append(index)
    grams = sorted(bigram_postings)
    groups: dict[str, str] = {}
    for gram in grams:
        groups[gram[0]] = groups.get(gram[0], gram[0]) + gram[1]
    words = sorted(word_postings, key=_utf16)
    data = {
        "version": INDEX_VERSION, "lang": html_lang, "pages": page_rows, "sections": section_rows,
        "bigrams": [" ".join(groups.values()), ";".join(_postings(bigram_postings[gram]) for gram in grams)],
        "words": [" ".join(words), ";".join(_postings(word_postings[word]) for word in words)],
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"self.lessonSearchIndex={text};\n".encode("utf-8")


def _postings(ids: list[int]) -> str:
    gaps = [b - a for a, b in zip([0, *ids], ids)]
    return ",".join(map(_BASE36.__getitem__, gaps) if max(gaps) < len(_BASE36) else map(_base36, gaps))


def _base36(n: int) -> str:
    if n < len(_BASE36):
        return _BASE36[n]
    digits = ""
    while True:
        n, digit = divmod(n, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if not n:
            return digits


_BASE36: list[str] = []  # the small gaps, which are nearly all of them, written once
_BASE36 += [_base36(n) for n in range(36 * 36)]


def _utf16(word: str) -> bytes:
    return word.encode("utf-16-be")  # the order of JavaScript's string comparison


def index_name(lang: str, data: bytes | None) -> str:
    """The index file's path from the site's root, named by its content (without `data`, by its language only)."""
    if data is None:
        return f"assets/search-{lang}.js"
    return f"assets/search-{lang}.{hashlib.sha256(data).hexdigest()[:HASH_LENGTH]}.js"


def placeholder(lang: str) -> str:
    return PLACEHOLDER.format(lang=lang)


def fill_placeholders(files: dict[str, bytes], names: dict[str, str], written=()) -> dict[str, list[tuple[int, bytes]]]:
    """Put each language's index name (`names`: language → name) where the pages in `files` hold its
    placeholder. For the pages in `written`, already written with the placeholder, also return where to
    write the name over it: relative path → [(offset, name)] (the same length, so nothing else moves)."""
    tokens = [(placeholder(lang).encode(), name.encode()) for lang, name in names.items()]
    patches: dict[str, list[tuple[int, bytes]]] = {}
    for rel, data in files.items():
        if not rel.endswith(".html"):
            continue
        for token, name in tokens:
            if rel in written:
                assert len(name) == len(token), "a page written early is finished in place"
                at = data.find(token)
                while at >= 0:
                    patches.setdefault(rel, []).append((at, name))
                    at = data.find(token, at + len(token))
            data = data.replace(token, name)
        files[rel] = data
    return patches


@lru_cache(maxsize=None)
def plural_samples(locale: str) -> tuple[tuple[str, int], ...]:
    """One whole number for each CLDR plural category of `locale` ("one" → 1, "other" → 0 …): the page
    gives the browser a result-count label per category, which it picks with Intl.PluralRules."""
    from babel import Locale

    rule = Locale.parse(locale).plural_form
    samples: dict[str, int] = {}
    for n in range(0, 1000):
        samples.setdefault(rule(n), n)
    return tuple(sorted(samples.items()))


def search_context(lang) -> dict:
    """What a page's search box needs: its language's index (named once the index is built) and the
    count labels to fill in."""
    from markupsafe import Markup

    return {"index": Markup(placeholder(lang.code)), "counts": plural_samples(lang.locale)}
