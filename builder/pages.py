"""Jinja: one environment for every page, strict about undefined names, translated by gettext."""

from __future__ import annotations

import gettext
import json
import re
import traceback
from pathlib import Path

import jinja2
from markupsafe import escape

from builder.errors import Problem, UserError
from builder.typesetting import phrase_breaks
from builder.word_glue import words

FIGURES = Path(__file__).parent / "figures"  # the figure kinds' own templates


def make_environment(templates: Path) -> jinja2.Environment:
    """Return the Jinja environment: autoescaped HTML, StrictUndefined, gettext with named placeholders."""
    if not templates.is_dir():
        raise UserError(Problem(templates, None, "missing templates folder"))
    env = jinja2.Environment(
        # A figure kind's template lives in its own folder (builder/figures/<kind>/), reached as figures/…
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(templates),
                                    jinja2.PrefixLoader({"figures": jinja2.FileSystemLoader(FIGURES)})]),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html", "xml"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["json_script"] = json_for_script
    env.filters["phrases"] = _phrases
    env.filters["words"] = words
    return env


def _phrases(text, lang: str, units: dict | None = None):
    """`{{ title | phrases(lang, phrase_units) }}`: break only between phrases, never inside one of the
    terms `units` names for that language (the glossary's)."""
    return jinja2.utils.markupsafe.Markup(phrase_breaks(str(text), lang, tuple((units or {}).get(lang, ()))))


class _QuietBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates (like Python's .pyc files, checked against each template's
    source, in a private folder under the system's temporary folder). It only saves time: a cache that
    cannot be written is skipped, never an error."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:  # Jinja lets some through (a file where the folder should be); compile afresh
            pass

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache():
    try:
        return _QuietBytecodeCache()
    except (OSError, RuntimeError):  # no private temporary folder to be had: compile every time
        return None


def json_for_script(data) -> str:
    """Serialise for an inline <script type="application/json">: `<`, `>` and `&` escaped,
    so no string in content or scenarios can close the script element."""
    text = data if isinstance(data, str) else json.dumps(data, sort_keys=True, separators=(",", ":"),
                                                         ensure_ascii=False, allow_nan=False)
    return jinja2.utils.markupsafe.Markup(
        text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )


def escaped_translations(translations: gettext.NullTranslations) -> dict:
    """The gettext callables pages use, returning translations with `<`, `>`, `&` and quotes escaped.

    Jinja's newstyle gettext marks every translated string as safe markup under autoescape, so a
    catalog (edited by translators, semi-trusted) could put any tag on every page. Escaping the
    translation itself keeps it text; the placeholders Jinja fills in are escaped by Jinja. Markup a
    message needs belongs in the template around it, never in the catalog."""
    def gettext_(message):
        return str(escape(translations.gettext(message)))

    def ngettext_(singular, plural, n):
        return str(escape(translations.ngettext(singular, plural, n)))

    def pgettext_(context, message):
        return str(escape(translations.pgettext(context, message)))

    def npgettext_(context, singular, plural, n):
        return str(escape(translations.npgettext(context, singular, plural, n)))

    return {"gettext": gettext_, "ngettext": ngettext_, "pgettext": pgettext_, "npgettext": npgettext_}


# Where a line's leading blanks are content: code, a text box's value, a script's text.
_KEEP_BLANKS = re.compile(r"<(pre|textarea|script)\b.*?</\1>", re.S | re.I)
_INDENT = re.compile(r"\n[ \t]+")


def dedented(html: str) -> str:
    """The templates' indentation, dropped: a browser collapses a line break and the blanks after it into
    one space either way, so the page reads the same, and a lesson page is some 200 bytes lighter gzipped
    (it counts against the page-weight target). Code blocks, text areas and scripts keep theirs."""
    out, start = [], 0
    for kept in _KEEP_BLANKS.finditer(html):
        out.append(_INDENT.sub("\n", html[start:kept.start()]))
        out.append(kept.group(0))
        start = kept.end()
    out.append(_INDENT.sub("\n", html[start:]))
    return "".join(out)


def render_page(env: jinja2.Environment, name: str, translations: gettext.NullTranslations, templates: Path, **context) -> str:
    """Render template `name` in one language, turning template mistakes into file:line problems."""
    env.install_gettext_callables(**escaped_translations(translations), newstyle=True)
    try:
        return dedented(env.get_template(name).render(**context))
    except jinja2.TemplateSyntaxError as err:
        path = Path(err.filename) if err.filename else templates / name
        raise UserError(Problem(path, err.lineno, f"template syntax: {err.message}")) from None
    except jinja2.TemplateNotFound as err:
        raise UserError(Problem(templates / name, None, f"template not found: {err.name}")) from None
    except (jinja2.UndefinedError, TypeError, KeyError, ValueError) as err:
        path, line = templates / name, None
        for frame in traceback.extract_tb(err.__traceback__):
            if frame.filename.startswith((str(templates.resolve()), str(templates), str(FIGURES))):
                path, line = Path(frame.filename), frame.lineno
        raise UserError(Problem(path, line, f"template error: {err}")) from None
