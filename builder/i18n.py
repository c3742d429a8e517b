"""Languages, gettext catalogs (compiled in memory), CLDR names and number formatting.

Numbers shown to readers are formatted through Babel for the page's locale, then the
ASCII hyphen CLDR uses for negatives is replaced by U+2212 MINUS SIGN, as the lessons
write it (−0.3, not -0.3).
"""

from __future__ import annotations

import gettext
import io
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po
from babel.numbers import format_decimal

from builder.errors import Problem, UserError

MINUS = "\u2212"
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
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
        return _display_name(self.locale)


@dataclass(frozen=True)
class SiteConfig:
    languages: list[Language]
    source_language: str


def load_site_config(content: Path) -> SiteConfig:
    """Read content/site.toml: the languages and the source language."""
    path = content / "site.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(Problem(path, None, "missing site configuration")) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        match = re.search(r"at line (\d+)", str(err))
        raise UserError(Problem(path, int(match.group(1)) if match else None, f"invalid TOML: {err}")) from None
    languages = []
    for i, entry in enumerate(data.get("languages", [])):
        try:
            lang = Language(code=entry["code"], locale=entry["locale"], html_lang=entry["html_lang"])
            Locale.parse(lang.locale)
        except KeyError as err:
            raise UserError(Problem(path, None, f"languages[{i}]: missing key {err.args[0]!r}")) from None
        except (UnknownLocaleError, ValueError, TypeError):
            raise UserError(Problem(path, None, f"languages[{i}]: unknown locale {entry.get('locale')!r}")) from None
        if not re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]+)?", lang.code):
            raise UserError(Problem(path, None, f"languages[{i}]: code {lang.code!r} must be a short lowercase tag"))
        languages.append(lang)
    if not languages:
        raise UserError(Problem(path, None, "no [[languages]] declared"))
    codes = [lang.code for lang in languages]
    if len(set(codes)) != len(codes):
        raise UserError(Problem(path, None, f"duplicate language code in {codes!r}"))
    source = data.get("source_language", codes[0])
    if source not in codes:
        raise UserError(Problem(path, None, f"source_language {source!r} is not a declared language"))
    return SiteConfig(languages, source)


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    """Parse a .po/.pot file, raising a UserError with the line of any syntax error."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise UserError(Problem(path, None, "missing catalog (run `python -m builder catalog`)")) from None
    except UnicodeDecodeError as err:
        raise UserError(Problem(path, raw[: err.start].count(b"\n") + 1, "catalog is not valid UTF-8")) from None
    for number, line in enumerate(text.splitlines(), 1):
        # Babel quietly accepts an unclosed quote; a translator deserves to hear about it.
        stripped = line.strip()
        if (stripped.startswith(("msgid", "msgstr", "msgctxt", '"'))
                and not re.fullmatch(r'(msgid|msgid_plural|msgstr(\[\d+\])?|msgctxt)?\s*"(?:[^"\\]|\\.)*"', stripped)):
            raise UserError(Problem(path, number, f"invalid catalog: expected a quoted string, got {stripped!r}"))
    try:
        return read_po(io.BytesIO(raw), locale=locale, abort_invalid=True)
    except PoFileError as err:
        match = re.search(r" on (\d+)$", str(err))  # Babel counts lines from 0
        message = re.sub(r" on \d+$", "", str(err))
        raise UserError(Problem(path, int(match.group(1)) + 1 if match else None, f"invalid catalog: {message}")) from None


def check_catalog(catalog: Catalog, template: Catalog, path: Path) -> list[Problem]:
    """Report every message the template has that this catalog lacks, leaves untranslated or fuzzy,
    and every translation whose placeholders differ from its source."""
    problems = []
    for message in template:
        if not message.id:
            continue
        own = catalog.get(message.id, context=message.context)
        label = f"{message.context}|{message.id}" if message.context else message.id
        if own is None:
            problems.append(Problem(path, None, f"missing message {label!r} (run `python -m builder catalog`)"))
        elif not own.string:
            problems.append(Problem(path, own.lineno, f"untranslated message {label!r}"))
        elif own.fuzzy:
            problems.append(Problem(path, own.lineno, f"fuzzy translation of {label!r}: review it and remove the fuzzy flag"))
        else:
            want, got = set(PLACEHOLDER.findall(message.id)), set(PLACEHOLDER.findall(own.string))
            if want != got:
                problems.append(Problem(path, own.lineno, f"placeholders {sorted(got)} in the translation of {label!r} "
                                                          f"differ from the source's {sorted(want)}"))
    return problems


def compile_catalog(catalog: Catalog) -> gettext.GNUTranslations:
    """Compile a catalog to gettext translations in memory (no .mo files on disk). The standard
    library's class has everything Jinja uses (gettext, ngettext, pgettext, npgettext)."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(fp=buffer)


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
def _display_name(locale: str) -> str:
    return Locale.parse(locale).get_display_name(locale)  # every page's switcher names every language


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
