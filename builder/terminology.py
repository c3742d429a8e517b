"""The terminology check: the glossary's preferred terms, and the variants to avoid, in lesson prose
and in the catalogs (what a CAT tool's termbase QA does: Weblate's glossary check, memoQ's term QA).

content/glossary.toml holds one `[[terms]]` table per term:

    [[terms]]
    en = "block"                  # the English name, for the message
    zh = "块"                     # the preferred form in each language
    ja = "ブロック"
    avoid.zh = ["层"]             # variants a reader would take for a different word, or that drift
    avoid.ja = ["段", "層"]
    allow.zh = ["两层"]           # longer words that contain a variant and are right ("a two-layer FFN")
    wrap.ja = "…|…"               # where a term too long for one line may wrap (headings), nowhere else

An avoided variant is reported as `path:line: warning: terminology: ...`, naming the preferred term,
wherever it appears in lesson prose: body text, headings, table cells, link text, diagram captions, aside titles,
and the front matter's title and summary. It is not reported
- inside code, math, diagrams (code blocks) or trace values, which are not prose;
- inside an alias note, `[FFN]{alias}` in a lesson (builder/markdown.py), which introduces the variant;
- where the occurrence is part of any glossary term's preferred form in that language (层 in 层归一化)
  or of one of the term's `allow` words.
A variant in Latin letters matches whole words only, and case matters ("Pre-Norm" is a variant of
"pre-norm"; "token" does not match inside "tokens").

In catalogs (content/<lang>/messages.po) every translation is checked the same way, placeholders
(`%(name)s`) excepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from builder.errors import Problem, UserError
from builder.sources import read_text, parse_toml, key_line, table_line

GLOSSARY_NAME = "glossary.toml"
LATIN = re.compile(r"[0-9A-Za-z]")
PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[-#0 +]*(?:\d+)?(?:\.\d+)?[diouxXeEfFgGcrsa%]")
TERM_KEYS = {"en", "avoid", "allow", "wrap"}


@dataclass(frozen=True)
class Term:
    """One glossary entry: its English name, its preferred form per language, variants and exceptions."""

    en: str
    forms: dict[str, str]
    avoid: dict[str, tuple[str, ...]] = field(default_factory=dict)
    allow: dict[str, tuple[str, ...]] = field(default_factory=dict)
    wrap: dict[str, str] = field(default_factory=dict)  # the preferred form with `|` where it may wrap


@dataclass(frozen=True)
class Finding:
    variant: str
    term: Term
    start: int  # offset in the text checked

    def message(self, lang: str) -> str:
        return f"terminology: write “{self.term.forms[lang]}” ({self.term.en}), not “{self.variant}”"


@dataclass(frozen=True)
class Glossary:
    terms: tuple[Term, ...] = ()

    def units(self, lang: str) -> tuple[str, ...]:
        """The preferred forms in `lang`."""
        return tuple(sorted({term.forms[lang] for term in self.terms if term.forms.get(lang)}, key=lambda s: (-len(s), s)))

    def break_units(self, lang: str) -> tuple[str, ...]:
        """The preferred forms in `lang` as builder/typesetting.py takes them: words a heading never breaks
        inside, except where a long one marks with `|` that it may wrap."""
        return tuple(sorted({term.wrap.get(lang) or term.forms[lang] for term in self.terms if term.forms.get(lang)},
                            key=lambda s: (-len(s), s)))

    def findings(self, text: str, lang: str) -> list[Finding]:
        """Every avoided variant in `text`, in order, except where it is part of a preferred or allowed word."""
        found, preferred = [], self.units(lang)
        for term in self.terms:
            for variant in term.avoid.get(lang, ()):
                for start in _occurrences(text, variant):
                    end = start + len(variant)
                    if not any(_covers(text, word, start, end) for word in (*preferred, *term.allow.get(lang, ()))):
                        found.append(Finding(variant, term, start))
        return sorted(found, key=lambda f: (f.start, f.variant))


def _occurrences(text: str, variant: str):
    """Offsets where `variant` occurs; a variant starting or ending with a Latin letter or digit must not
    continue a Latin word there."""
    at = text.find(variant)
    while at >= 0:
        end = at + len(variant)
        before_ok = not (LATIN.match(variant[0]) and at > 0 and LATIN.match(text[at - 1]))
        after_ok = not (LATIN.match(variant[-1]) and end < len(text) and LATIN.match(text[end]))
        if before_ok and after_ok:
            yield at
        at = text.find(variant, at + 1)


def _covers(text: str, word: str, start: int, end: int) -> bool:
    """Whether an occurrence of `word` in `text` spans [start, end) and is longer than it."""
    if len(word) <= end - start:
        return False
    first = max(0, end - len(word))
    at = text.find(word, first)
    while 0 <= at <= start:
        if at + len(word) >= end:
            return True
        at = text.find(word, at + 1)
    return False


def load_glossary(content: Path, languages: list[str]) -> tuple[Glossary, list[Problem]]:
    """Read content/glossary.toml (a project without one has an empty glossary): the glossary and its problems."""
    path = content / GLOSSARY_NAME
    if not path.exists() and not path.is_symlink():
        return Glossary(), []
    try:
        text = read_text(path)
        data = parse_toml(text, path)
    except UserError as err:
        return Glossary(), err.problems
    entries = data.get("terms", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        return Glossary(), [Problem(path, key_line(text, "terms") or 1, "expected [[terms]] tables")]
    terms, problems = [], []
    known = TERM_KEYS | set(languages)
    for i, entry in enumerate(entries):
        where = table_line(text, "terms", i)

        def bad(key, message):
            problems.append(Problem(path, key_line(text, key, "terms", i) or where, f"terms[{i}]: {message}"))

        unknown = sorted(set(entry) - known)
        if unknown:
            bad(unknown[0], f"unknown key {unknown[0]!r} (use en, {', '.join(languages)}, avoid, allow and wrap)")
            continue
        if not isinstance(entry.get("en"), str) or not entry["en"].strip():
            bad("en", "needs `en`, the term's English name")
            continue
        forms = {lang: entry[lang] for lang in languages if lang in entry}
        if not all(isinstance(form, str) and form.strip() for form in forms.values()):
            bad(next(lang for lang, form in forms.items() if not isinstance(form, str) or not form.strip()),
                "a preferred form must be a non-empty string")
            continue
        wrap = entry.get("wrap", {})
        if not isinstance(wrap, dict) or any(lang not in forms or not isinstance(marked, str) or "|" not in marked
                                             or marked.replace("|", "") != forms[lang] for lang, marked in wrap.items()):
            bad("wrap", "`wrap.<lang>` is the preferred form with `|` where it may wrap, e.g. wrap.ja = \"フィードフォワード|ネットワーク\"")
            continue
        lists = {}
        for key in ("avoid", "allow"):
            table = entry.get(key, {})
            ok = isinstance(table, dict) and all(
                lang in languages and isinstance(words, list) and all(isinstance(w, str) and w.strip() for w in words)
                for lang, words in table.items())
            if not ok:
                bad(key, f"`{key}` maps a language ({', '.join(languages)}) to a list of words, e.g. {key}.ja = [\"…\"]")
                break
            lists[key] = {lang: tuple(words) for lang, words in table.items()}
        else:
            missing = sorted(lang for lang in lists["avoid"] if lang not in forms)
            if missing:
                bad("avoid", f"variants to avoid in {missing[0]!r} but no preferred form to name")
                continue
            same = [w for lang, words in lists["avoid"].items() for w in words if w == forms[lang]]
            if same:
                bad("avoid", f"{same[0]!r} is both the preferred form and a variant to avoid")
                continue
            terms.append(Term(entry["en"], forms, lists["avoid"], lists["allow"], dict(wrap)))
    return Glossary(tuple(terms)), problems


def check_lesson(glossary: Glossary, lang: str, path: Path, meta_lines: dict[str, int | None], meta: dict,
                 tokens: list) -> list[Problem]:
    """Warn about every avoided variant in one lesson: its title and summary (front matter), then its body
    as markdown-it parsed it (each token's `meta["line"]` is its line in the file)."""
    if not glossary.terms:
        return []
    problems = []
    for key in ("title", "summary"):
        if isinstance(meta.get(key), str):
            problems += _report(glossary, lang, path, meta[key], meta_lines.get(key) or 1)
    for prose, line in prose_of(tokens):
        problems += _report(glossary, lang, path, prose, line)
    return list(dict.fromkeys(problems))  # a variant twice on one line is one warning


def prose_of(tokens: list):
    """Yield (text, line) for every piece of prose in a parsed lesson body: text inside paragraphs,
    headings, lists, tables and links, diagram captions, aside and fold titles. Code, math, trace values and alias notes are
    tokens of other types, so they are never yielded."""
    for token in tokens:
        line = token.meta.get("line", 1) if token.meta else 1
        if token.type in ("container_diagram_open", "container_aside_open", "container_details_open"):
            yield token.info.strip().split(" ", 1)[-1].strip() if " " in token.info.strip() else "", line
        elif token.type == "inline":
            breaks = 0
            for child in token.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    breaks += 1
                elif child.type == "text" and child.content:
                    yield child.content, line + breaks


def _report(glossary: Glossary, lang: str, path: Path, text: str, line: int) -> list[Problem]:
    return [Problem(path, line, finding.message(lang), "warning") for finding in glossary.findings(text, lang)]


def check_catalog(glossary: Glossary, lang: str, path: Path, catalog) -> list[Problem]:
    """Warn about every avoided variant in a language's catalog translations (placeholders excepted)."""
    if not glossary.terms:
        return []
    try:
        lines = read_text(path).split("\n")
    except UserError:
        lines = []
    problems = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        for string in strings:
            for finding in glossary.findings(PLACEHOLDER.sub("\0", string), lang):
                problems.append(Problem(path, _msgstr_line(lines, message.lineno, finding.variant),
                                        finding.message(lang), "warning"))
    return list(dict.fromkeys(problems))


def _msgstr_line(lines: list[str], msgid_line: int | None, variant: str) -> int | None:
    """The line of the translation (after `msgstr`) that holds `variant`; else the message's first line."""
    if not msgid_line:
        return None
    in_msgstr = False
    for number in range(msgid_line, len(lines) + 1):
        text = lines[number - 1].strip()
        if not text:
            break
        if text.startswith("msgstr"):
            in_msgstr = True
        elif not text.startswith('"'):
            in_msgstr = False
        if in_msgstr and variant in text:
            return number
    return msgid_line
