"""Languages, gettext catalogs (compiled in memory), CLDR names and number formatting.

Numbers shown to readers are formatted through Babel for the page's locale, then the
ASCII hyphen CLDR uses for negatives is replaced by U+2212 MINUS SIGN, as the lessons
write it (−0.3, not -0.3).
"""

from __future__ import annotations

import gettext
import io
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po
from babel.numbers import format_decimal

from builder.errors import Problem, UserError
from builder.sources import MAX_TITLE_CHARS, key_line, read_bytes, read_toml, table_line

MINUS = "\u2212"
CATALOG_NAME = "messages.po"
TEMPLATE_NAME = "messages.pot"


@dataclass(frozen=True)
class Language:
    """One site language, declared once in content/site.toml."""

    code: str  # folder name: zh, ja
    locale: str  # Babel locale: zh_Hans, ja
    html_lang: str  # BCP 47 for <html lang>: zh-Hans, ja

    @property
    def name(self) -> str:
        """Return the language's CLDR name in its own script."""
        return _display_name(self.locale, self.locale)

    def display_name(self, other: "Language") -> str:
        """Return the CLDR name of `other` in this language ("日语" for ja, read in Chinese)."""
        return _display_name(other.locale, self.locale)


@dataclass(frozen=True)
class SiteConfig:
    languages: list[Language]
    source_language: str


# A well-formed BCP 47 language tag (RFC 5646, without the grandfathered and private-use forms):
# language, extlang, script, region, variants, extensions.
BCP47 = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z]{3}){0,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?"
                   r"(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*(-[0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+)*")
LANGUAGE_CODE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{2,8})*")  # also a folder and URL segment: lowercase only


def load_site_config(content: Path) -> SiteConfig:
    """Read content/site.toml: the languages and the source language, every value checked."""
    path = content / "site.toml"
    if not content.is_dir():
        raise UserError(Problem(content, None, "the content folder is missing or not a folder"))
    text, data = read_toml(path)

    def bad(key, message, table=None, index=0):
        return UserError(Problem(path, key_line(text, key, table, index) or (table_line(text, table, index) if table else None),
                                 message))

    entries = data.get("languages", [])
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise bad("languages", "languages: expected [[languages]] tables, each with code, locale and html_lang")
    languages = []
    for i, entry in enumerate(entries):
        for key in ("code", "locale", "html_lang"):
            if key not in entry:
                raise UserError(Problem(path, table_line(text, "languages", i), f"languages[{i}]: missing key {key!r}"))
            if not isinstance(entry[key], str):
                raise bad(key, f"languages[{i}].{key}: expected a string, got {entry[key]!r}", "languages", i)
        if not LANGUAGE_CODE.fullmatch(entry["code"]):
            raise bad("code", f"languages[{i}].code: {entry['code']!r} must be a short lowercase language tag "
                              "(it names a folder and a URL segment), e.g. 'zh' or 'pt-br'", "languages", i)
        if not BCP47.fullmatch(entry["html_lang"]):
            raise bad("html_lang", f"languages[{i}].html_lang: {entry['html_lang']!r} is not a BCP 47 language tag, "
                                   "e.g. 'zh-Hans' or 'ja'", "languages", i)
        try:
            Locale.parse(entry["locale"])
        except (UnknownLocaleError, ValueError, TypeError):
            raise bad("locale", f"languages[{i}].locale: unknown locale {entry['locale']!r}", "languages", i) from None
        languages.append(Language(code=entry["code"], locale=entry["locale"], html_lang=entry["html_lang"]))
    if not languages:
        raise UserError(Problem(path, None, "no [[languages]] declared"))
    codes = [lang.code for lang in languages]
    for i, code in enumerate(codes):
        if code in codes[:i]:
            raise bad("code", f"languages[{i}].code: {code!r} is declared twice", "languages", i)
    source = data.get("source_language", codes[0])
    if not isinstance(source, str) or source not in codes:
        raise bad("source_language", f"source_language {source!r} is not a declared language code ({', '.join(codes)})")
    return SiteConfig(languages, source)


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    """Parse a .po/.pot file, raising a UserError with the line of any syntax error."""
    raw = read_bytes(path, missing="missing catalog (run `python -m builder catalog`)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(Problem(path, raw[: err.start].count(b"\n") + 1, "catalog is not valid UTF-8")) from None
    for number, line in enumerate(text.splitlines(), 1):
        # Babel quietly accepts an unclosed quote; a translator deserves to hear about it.
        stripped = line.strip()
        if (stripped.startswith(("msgid", "msgstr", "msgctxt", '"'))
                and not re.fullmatch(r'(msgid|msgid_plural|msgstr(\[\d+\])?|msgctxt)?\s*"(?:[^"\\]|\\.)*"', stripped)):
            raise UserError(Problem(path, number, f"invalid catalog: expected a quoted string, got {stripped!r}"))
    _check_plural_count(text, path)  # before Babel: it makes a list of nplurals entries per plural message
    try:
        return read_po(io.BytesIO(raw), locale=locale, abort_invalid=True)
    except PoFileError as err:
        match = re.search(r" on (\d+)$", str(err))  # Babel counts lines from 0
        message = re.sub(r" on \d+$", "", str(err))
        raise UserError(Problem(path, int(match.group(1)) + 1 if match else None, f"invalid catalog: {message}")) from None


MAX_PLURALS = 6  # CLDR's largest number of plural forms (Arabic has six)
_NPLURALS = re.compile(r"nplurals\s*=\s*([^;\s]*)")


def _check_plural_count(text: str, path: Path) -> None:
    """Refuse a Plural-Forms header asking for more forms than any language has (nplurals=40000000
    made Babel and gettext build forty million strings per plural message). The header is the
    `msgstr` of the first entry, `msgid ""`; its quoted pieces are joined as a PO reader joins them."""
    pieces, line_of, in_header = [], None, False
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("msgid"):
            if pieces or stripped != 'msgid ""':
                break
        elif stripped.startswith('msgstr ""'):
            in_header = True
        elif in_header and stripped.startswith('"'):
            pieces.append(stripped[1:-1])
            if "Plural-Forms" in stripped or "nplurals" in stripped:
                line_of = line_of or number
        elif in_header and stripped and not stripped.startswith("#"):
            break
    match = _NPLURALS.search("".join(pieces))
    if match and not re.fullmatch(r"[0-9]{1,2}", match.group(1)) or match and not 1 <= int(match.group(1)) <= MAX_PLURALS:
        raise UserError(Problem(path, line_of, f"invalid Plural-Forms header: nplurals must be 1 to {MAX_PLURALS}, "
                                               f"got {match.group(1)[:20]!r}"))


# Translations are bounded, so a catalog cannot make pages of megabytes (a scenario title is shown in
# every state of every figure): titles at most MAX_TITLE_CHARS, anything else twice its English source.
TITLE_CONTEXTS = ("scenario", "dimension")


def max_translation_chars(source: str, context: str | None) -> int:
    return MAX_TITLE_CHARS if context in TITLE_CONTEXTS else max(MAX_TITLE_CHARS, 2 * len(source))


# A printf-style marker as Python's `%` operator reads it; `%%` is a literal percent sign.
FORMAT_MARKER = re.compile(r"%(?:\((\w+)\))?[-#0 +]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[diouxXeEfFgGcrsa%]|%")


def format_markers(text: str) -> tuple[list[str], list[str]]:
    """Return (named placeholders, anything else). Only `%(name)s` is a placeholder: a conversion such as
    `%(n)d` fails on a word, and a width such as `%(n)300000000s` makes a string of that many spaces."""
    named, other = [], []
    for match in FORMAT_MARKER.finditer(text):
        marker, name = match.group(0), match.group(1)
        if marker == "%%":
            continue
        if name and marker == f"%({name})s":
            named.append(name)
        else:
            other.append(marker)
    return named, other


# A placeholder typed with a Chinese or Japanese input method: ％(n)s, %（n）s, ％（n）s.
WIDE_PLACEHOLDER = re.compile(r"[%％][(（][A-Za-z_]\w*[)）][a-z]?")


def full_width_placeholder(text: str) -> str | None:
    """Name the full-width characters of a placeholder typed with them, e.g. "full-width ％ in ％(n)s"."""
    for match in WIDE_PLACEHOLDER.finditer(text):
        found = match.group(0)
        wide = [ch for ch in "％（）" if ch in found]
        if wide:
            return f"full-width {' and '.join(wide)} in {found}"
    return None  # a ％ elsewhere is a percent sign a translation may well write


def check_catalog(catalog: Catalog, template: Catalog, path: Path) -> list[Problem]:
    """Report every message the template has that this catalog lacks, leaves untranslated or fuzzy,
    and every translation whose format markers differ from its source: the pages fill named
    placeholders (`%(n)s`) with the `%` operator, so a `%s` or a lone `%` would print garbage or fail."""
    problems = []
    for message in template:
        if not message.id:
            continue
        own = catalog.get(message.id, context=message.context)
        label = f"{message.context}|{message.id}" if message.context else message.id
        # A message without a translation shows in English (its msgid) until it has one: a warning.
        if own is None:
            problems.append(Problem(path, None, f"missing message {label!r}, shown in English (run "
                                                "`python -m builder catalog` to add it)", "warning"))
        elif not own.string:
            problems.append(Problem(path, own.lineno, f"untranslated message {label!r}, shown in English", "warning"))
        elif own.fuzzy:
            problems.append(Problem(path, own.lineno, f"fuzzy translation of {label!r}, shown in English until "
                                                      "reviewed: check it, then remove the `#, fuzzy` line", "warning"))
        else:
            problem = translation_problem(own, message, label)
            if problem:
                problems.append(Problem(path, own.lineno, problem))
    return problems


def translation_problem(own, source, label: str) -> str | None:
    """Why the translation `own` of the template message `source` (named `label`) cannot be used, or None."""
    strings = own.string if isinstance(own.string, (list, tuple)) else [own.string]
    source_id = source.id if isinstance(source.id, str) else source.id[0]
    want = set(format_markers(source_id)[0])
    longest = max_translation_chars(source_id, source.context)
    for string in strings:
        named, other = format_markers(string)
        wide = full_width_placeholder(string)
        if wide:
            return f"{wide} in the translation of {label!r}: type placeholders with the ASCII % ( ), as %(name)s"
        if other:
            return (f"format marker {other[0][:40]!r} in the translation of {label!r}: use only the source's named "
                    "placeholders, written %(name)s, and %% for a percent sign")
        if set(named) != want:
            return f"placeholders {sorted(set(named))} in the translation of {label!r} differ from the source's {sorted(want)}"
        if len(string) > longest:
            return (f"the translation of {label!r} is {len(string):,} characters; at most {longest} are allowed "
                    + ("for a title" if source.context in TITLE_CONTEXTS else "(twice the source, or 120)"))
    return None


def compile_catalog(catalog: Catalog, path: Path | None = None) -> gettext.GNUTranslations:
    """Compile a catalog to gettext translations in memory (no .mo files on disk). The standard
    library's class has everything Jinja uses (gettext, ngettext, pgettext, npgettext)."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    try:
        return gettext.GNUTranslations(fp=buffer)
    except (ValueError, SyntaxError, RecursionError, OverflowError) as err:  # a Plural-Forms expression gettext cannot read
        line = None
        if path is not None:
            try:
                line = next((n for n, text in enumerate(read_bytes(path).decode("utf-8").splitlines(), 1)
                             if text.strip().startswith('"Plural-Forms:')), None)
            except (UserError, UnicodeDecodeError):
                pass
        raise UserError(Problem(path or "catalog", line, f"invalid Plural-Forms header "
                                                         f"{catalog.plural_forms!r}: {err}")) from None


def catalog_counts(catalog: Catalog, template: Catalog) -> dict[str, int]:
    """Count translated, fuzzy and untranslated messages against the template."""
    counts = {"translated": 0, "fuzzy": 0, "untranslated": 0}
    for message in template:
        if not message.id:
            continue
        own = catalog.get(message.id, context=message.context)
        if own is None or not own.string:
            counts["untranslated"] += 1
        elif own.fuzzy:
            counts["fuzzy"] += 1
        else:
            counts["translated"] += 1
    return counts


@lru_cache(maxsize=None)
def _display_name(locale: str, in_locale: str) -> str:
    """The name of `locale` read in `in_locale`. CLDR's own name for the whole tag comes first
    ("简体中文", "簡体中国語"): that is what a language calls itself in a menu. Babel's composed form
    ("中文 (简体)") is only the fallback for tags CLDR does not name."""
    parsed, reader = Locale.parse(locale), Locale.parse(in_locale)
    return reader.languages.get(str(parsed)) or parsed.get_display_name(reader)  # every switcher names every language


def format_number(value: float, locale: str, decimals: int = 1) -> str:
    """Format a number for readers of `locale`, with U+2212 for negatives and no "−0.0"."""
    rounded = round(float(value), decimals)
    if rounded == 0:
        rounded = 0.0  # a tiny negative rounds to 0.0, not −0.0
    return _format_rounded(rounded, locale, decimals)


@lru_cache(maxsize=4096)
def _format_rounded(rounded: float, locale: str, decimals: int) -> str:
    # Babel parses the locale and the pattern on every call; pages print the same figures many times.
    pattern = "0." + "0" * decimals if decimals else "0"
    return format_decimal(rounded, format=pattern, locale=locale).replace("-", MINUS)


def format_vector(values, locale: str, decimals: int = 1) -> str:
    """Format a vector as the lessons write it: [1.0, 0.0, −0.2, 1.0]."""
    return "[" + ", ".join(format_number(v, locale, decimals) for v in values) + "]"
