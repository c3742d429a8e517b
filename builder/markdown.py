"""Lesson Markdown → HTML with markdown-it-py, checked as it renders.

What lesson Markdown may contain, beyond CommonMark:
- tables; fenced code, highlighted at build time by Pygments;
- math between `$...$` (inline) or `$$...$$` (display), turned into MathML at build time;
- section headings with a stable id that is the same in every language: `## 残差流 {#residual-stream}`
  (required on every `##` and `###`, so switching language keeps `#section`);
- words in another language: `*by the river bank*{lang=en}` (builder/foreign.py);
- links that set a figure's state: `[关掉残差](#figure=depth-map&residual=off&depth=6)` brings that figure
  into view with that state (lesson.js; without `figure=`, the figure whose state the link sets most of);
- trace values: `{{on:b1.attention.delta}}` prints a figure from the engine's trace (builder/references.py;
  the grammar in builder/steps.py, with examples in AUTHORING.md);
  numbers with a decimal point must not be typed into prose, so every figure comes from the trace;
- alias notes: `[FFN]{alias}` prints `FFN` and marks it as the one place a lesson introduces a variant the
  glossary asks to avoid, so the terminology check (builder/terminology.py) passes over it;
- output blocks: a fence of language `output` right after a code block is what that code prints, its
  figures written as trace references (`{{on:b1 length}}`), filled in as Python prints them (`1.3`,
  `[0.3, -0.1, 1.0, 0.9]`); a test runs the code and compares (tests/test_reproduce.py);
- containers: `::: diagram Caption` … `:::` (a captioned, scrollable figure around a preformatted
  diagram), `::: walkthrough` … `:::` (the ordered list of walkthrough steps), and
  `::: interactive NAME [ARGUMENT...]` `:::` (where the lesson's figure NAME goes, with the words its kind
  takes, such as the plane `meaning-path geography finance` draws; a bare `::: interactive` places its
  only figure);
- figure numbers: diagrams and interactive figures are numbered in page order ("Figure 2" in the page's
  language, from the catalogs); a figure may end its `:::` line with a label, `{#fig-ffn-sizes}` (the
  same in every language, like a heading id), and the prose refers to it as `@fig-ffn-sizes`, which
  prints its number as a link to it. A reference to a label no figure of the page has is an error.

Raw HTML is not allowed: it is escaped and shown as text (markdown-it `html=False`), and
markdown-it refuses `javascript:`/`vbscript:`/`data:` link targets, so lesson text cannot inject markup.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from collections import Counter
from functools import cache, lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from builder.cjk import cjk_friendly_plugin
from builder.foreign import foreign_plugin
from builder.math_glue import math_glue_plugin
from builder.word_glue import words_html
from builder.errors import Problem
from builder.mathml import UnsafeMath, latex_to_mathml
from builder.typesetting import phrase_breaks

# Pygments and latex2mathml are imported on first use: a build without code or math skips them.

HEADING_ID = re.compile(r"\{#([a-z][a-z0-9-]*)\}")
ALIAS_NOTE = re.compile(r"\[([^\[\]\n]+)\]\{alias\}")
ESCAPED_DELIMITER = re.compile(r"\\[*_]")  # `\*\*` is meant to be seen
LITERAL_DECIMAL = re.compile(r"(?<![\w.])[−-]?\d+\.\d+")
CONTAINERS = ("diagram", "walkthrough", "interactive", "aside", "details")
FENCE_LANG = re.compile(r"^ {0,3}(?:```|~~~)[ \t]*([\w+-]+)", re.M)
OUTPUT = "output"  # the language of a fence that shows what the code block before it prints
OUTPUT_REF = re.compile(r"\{\{(.*?)\}\}")
FIGURE_LABEL = re.compile(r"fig-[a-z0-9]+(?:-[a-z0-9]+)*")  # `{#fig-ffn-sizes}` names a figure, `@fig-ffn-sizes` refers to it
LABEL_AT_END = re.compile(r"\s*\{#([^{}]*)\}\s*$")  # what follows a container's words: `::: diagram Caption {#fig-x}`


@dataclass(frozen=True)
class PlacedFigure:
    """A numbered figure of a lesson: a `::: diagram` or a `::: interactive`, in page order."""

    container: str  # "diagram" or "interactive"
    name: str  # the interactive figure's kind ("" for a bare `::: interactive`, and for a diagram)
    label: str  # "fig-…", or "" when it has none
    line: int


def container_words(info: str, container: str) -> tuple[str, str | None]:
    """Split a container line's text after its name into (words, label): `diagram Caption {#fig-x}` →
    ("Caption", "fig-x"); the label is None when there is none."""
    words = info.strip()[len(container):]
    match = LABEL_AT_END.search(words)
    if match is None:
        return words.strip(), None
    return words[:match.start()].strip(), match.group(1)


@dataclass
class Parsed:
    """A lesson body parsed and checked once; rendering it again (in another page) reuses it."""

    tokens: list
    sections: list[tuple[int, str, str, int]] = field(default_factory=list)  # (level, id, text, line)
    headings: list[tuple[str, str, int]] = field(default_factory=list)  # (tag, id or "?", line), for parity
    refs: list[tuple[str, int]] = field(default_factory=list)  # (trace reference, line)
    steps: int = 0  # top-level items of the walkthrough list
    walkthrough_line: int | None = None
    placed: list[tuple[str, int]] = field(default_factory=list)  # (figure name or "", line) of each `::: interactive`
    figure_args: dict[str, tuple[str, ...]] = field(default_factory=dict)  # figure name → the words after it
    figures: list[PlacedFigure] = field(default_factory=list)  # every numbered figure, in page order
    figure_refs: list[tuple[str, int]] = field(default_factory=list)  # (label, line) of each `@fig-…`
    problems: list[Problem] = field(default_factory=list)

    def outline(self) -> "Outline":
        refs, lines = Counter(), {}
        for ref, line in self.refs:
            ref = " ".join(ref.split())
            refs[ref] += 1
            lines.setdefault(ref, line)
        return Outline(tuple(self.headings), refs, lines, self.steps,
                       tuple(" ".join((name, *self.figure_args.get(name, ()))) for name, _ in self.placed),
                       tuple((figure.label, figure.line) for figure in self.figures))


@dataclass
class Outline:
    """What must match between a lesson and its translations: sections, walkthrough steps, figures."""

    sections: tuple[tuple[str, str, int], ...]
    refs: Counter
    ref_lines: dict[str, int]
    steps: int
    interactive: tuple[str, ...]  # the figures placed, in order, each with its arguments
    figure_labels: tuple[tuple[str, int], ...] = ()  # (label or "", line) of every numbered figure, in order


@dataclass
class Rendered:
    """A lesson body rendered to HTML: the parse it came from, and what rendering added."""

    html: str
    parsed: Parsed
    walkthrough: list[str] = field(default_factory=list)  # each step's HTML
    problems: list[Problem] = field(default_factory=list)  # the parse's, then the render's


@cache
def _lexer(lang: str):
    """One lexer per language for the whole build: Pygments compiles a lexer's rules on creation."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound
    try:
        return get_lexer_by_name(lang or "text")
    except ClassNotFound:
        return get_lexer_by_name("text")


@cache
def _formatter():
    from pygments.formatters import HtmlFormatter
    return HtmlFormatter(nowrap=True)  # building one computes a whole style sheet, so build it once


@lru_cache(maxsize=4096)
def _highlighted(code: str, lang: str) -> str:
    # A lesson's translations usually share its code blocks verbatim, and lexing is the slow part.
    from pygments import highlight
    return _PLAIN_SPAN.sub(_unwrapped, highlight(code, _lexer(lang), _formatter()))


# The code's colours: Pygments' light style, and its dark one for readers who prefer dark (publish.py).
CODE_STYLES = ("default", "monokai")
_PLAIN_SPAN = re.compile(r'<span class="([\w-]+)">([^<]*)</span>')


def _unwrapped(match) -> str:
    """A token's span, or its bare text where the span would look like the text around it in both styles."""
    css, text = match.groups()
    plain, blank = _plain_tokens()
    return text if css in plain or (css in blank and not text.strip()) else match.group(0)


@lru_cache(maxsize=1)
def _plain_tokens() -> tuple[frozenset[str], frozenset[str]]:
    """The token classes that look like the code around them in every style of CODE_STYLES (no rule, or
    only the code's own colour: a name, punctuation), and those that only colour their text (whitespace
    in them looks the same)."""
    from pygments.formatters import HtmlFormatter
    from pygments.token import STANDARD_TYPES
    plain = blank = set(STANDARD_TYPES.values()) - {""}
    for style in CODE_STYLES:
        rules = dict(re.findall(r"^\.highlight(?: \.([\w-]+))? \{ (.*?);? \}", HtmlFormatter(style=style).get_style_defs(".highlight"), re.M))
        own = re.search(r"(?:^|; )color: (#\w+)", rules.get("", ""))
        plain = {css for css in plain if css not in rules or (own and rules[css] == f"color: {own.group(1)}")}
        blank = {css for css in blank if css not in rules or re.fullmatch(r"color: #\w+", rules[css])}
    return frozenset(plain), frozenset(blank)


def _columns(markup: str) -> str:
    """Give every run of wide (CJK) characters of highlighted code one box in which each character takes
    exactly two columns (site.css: the letter spacing of two columns less the character's own advance,
    1ic), and every character of ambiguous width (box drawing, arrows, curly quotes) a box one column
    wide, so that a diagram lines up whatever fonts the reader has (CJK monospace fonts draw `─` two
    columns wide, and a Latin monospace font with a CJK fallback does not keep a CJK character at exactly
    two columns). One box per run, not per character: the same columns in fewer bytes."""
    out, in_tag, in_entity, run = [], False, False, []

    def close_run():
        if run:
            out.append(f'<span class="cw">{"".join(run)}</span>')
            run.clear()

    for ch in markup:
        if not in_tag and not in_entity and ord(ch) > 0x7F and unicodedata.east_asian_width(ch) in ("W", "F"):
            run.append(ch)
            continue
        close_run()
        if ch == "<":
            in_tag = True
        elif ch == ">" and in_tag:
            in_tag = False
        elif not in_tag and ch == "&":
            in_entity = True
        elif in_entity and ch == ";":
            in_entity = False
        elif not in_tag and not in_entity and ord(ch) > 0x7F and unicodedata.east_asian_width(ch) == "A":
            out.append(f'<span class="cn">{ch}</span>')
            continue
        out.append(ch)
    close_run()
    return "".join(out)


# Code may be wider than the page: its box scrolls sideways (site.css shades the edge with more beyond it),
# takes the focus so the keyboard can scroll it, and is named for screen readers by a label of the page
# template (templates/lesson.html), in the reader's language. A group, not a region: every code block has
# the same name, and landmarks (regions) must each have their own (axe: landmark-unique).
CODE_LABEL, OUTPUT_LABEL = "code-label", "output-label"


def _highlight(code: str, lang: str, attrs: str) -> str:
    """Highlight fenced code; the markup starts with <pre so markdown-it does not wrap it again."""
    body = _columns(_highlighted(code, lang))
    label = f' data-lang="{html.escape(lang)}"' if lang else ""
    return f'<pre class="highlight" tabindex="0" role="group" aria-labelledby="{CODE_LABEL}"{label}><code>{body}</code></pre>\n'


def columns(text: str) -> int:
    """How many columns the widest line of `text` takes in monospace (a wide CJK character takes two)."""
    return max((sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in line)
                for line in text.splitlines()), default=0)


def _diagram(code: str, lang: str) -> str:
    """A diagram's drawing: it never scrolls, so it shows its whole meaning on a phone; site.css sets its
    font size so that its widest line (--cols) fits the box."""
    return (f'<pre class="highlight" style="--cols: {max(columns(code), 1)}"><code>{_columns(_highlighted(code, lang))}'
            f'</code></pre>\n')


def warm_up(bodies) -> None:
    """Create the lexers these lesson bodies need now, so forked workers share them."""
    for lang in sorted({m.group(1) for body in bodies for m in FENCE_LANG.finditer(body)}):
        _lexer(lang)
    if any("```" in body or "~~~" in body for body in bodies):
        _formatter()


def heading_id(text: str) -> tuple[str, str] | None:
    """Split `Title {#id}` into (id, "Title"), or return None. Done with string methods, in linear
    time: a regular expression with `\\s*` on both sides took minutes on a line of many spaces."""
    stripped = text.rstrip()
    start = stripped.rfind("{#")
    if start < 0 or not HEADING_ID.fullmatch(stripped, start):
        return None
    return HEADING_ID.fullmatch(stripped, start).group(1), stripped[:start].rstrip()


def _math_problem(content: str) -> str | None:
    """Return why `content` is not valid (or not allowed) LaTeX for MathML, or None."""
    try:
        latex_to_mathml(content)
    except UnsafeMath as err:
        return f"math ${content}$ is not allowed: {err}"
    except Exception as err:  # latex2mathml raises many error types, some with empty messages
        detail = str(err) or re.sub(r"(?<!^)(?=[A-Z])", " ", type(err).__name__).lower()
        return f"invalid math ${content}$: {detail}"
    return None


def _math(content: str, options: dict) -> str:
    if _math_problem(content):
        return html.escape(content)  # already reported with its line; the build fails anyway
    if options.get("display_mode"):
        # Wide formulas scroll sideways on phones; a scrollable region must be reachable by keyboard.
        return f'<div class="math-scroll" tabindex="0">{latex_to_mathml(content, display="block")}</div>'
    return latex_to_mathml(content, display="inline")


def _trace_ref_rule(state, silent):
    """Inline rule: `{{ reference }}` → a trace_ref token."""
    if not state.src.startswith("{{", state.pos):
        return False
    end = _closing_braces(state, state.pos + 2)
    if end < 0:
        return False
    if not silent:
        token = state.push("trace_ref", "", 0)
        token.content = state.src[state.pos + 2:end].strip()
        token.meta = {"offset": _newlines_before(state, state.pos)}
    state.pos = end + 2
    return True


def _alias_note_rule(state, silent):
    """Inline rule: `[word]{alias}` → a term_alias token (shown as the word, exempt from the terminology check)."""
    if state.src[state.pos] != "[":
        return False
    match = ALIAS_NOTE.match(state.src, state.pos)
    if not match:
        return False
    if not silent:
        token = state.push("term_alias", "", 0)
        token.content = match.group(1)
    state.pos = match.end()
    return True


def _figure_ref_rule(state, silent):
    """Inline rule: `@fig-label` → a figure_ref token (not inside a word: `x@fig-y.org` stays text)."""
    before = state.src[state.pos - 1] if state.pos else " "
    if state.src[state.pos] != "@" or before.isascii() and (before.isalnum() or before in "._-+"):
        return False
    match = FIGURE_LABEL.match(state.src, state.pos + 1)
    if not match:
        return False
    if not silent:
        token = state.push("figure_ref", "", 0)
        token.content = match.group()
        token.meta = {"offset": _newlines_before(state, state.pos), "in_link": state.linkLevel > 0}
    state.pos = match.end()
    return True


def _closing_braces(state, start: int) -> int:
    """The first `}}` at or after `start`, or -1. The answer of the last search is kept on the inline
    state: a paragraph of many unclosed `{{` searched to its end from each of them, in quadratic time."""
    found = getattr(state, "_closing_braces", None)
    if found is not None and found[0] <= start and (found[1] < 0 or found[1] >= start):
        return found[1]
    end = state.src.find("}}", start)
    state._closing_braces = (start, end)
    return end


def _newlines_before(state, pos: int) -> int:
    """How many lines of the inline text come before `pos`, counted on from the last reference's
    position rather than from the start each time (which was quadratic in a paragraph of references)."""
    counted, lines = getattr(state, "_newlines", (0, 0))
    if pos < counted:
        counted, lines = 0, 0
    lines += state.src.count("\n", counted, pos)
    state._newlines = (pos, lines)
    return lines


def make_markdown() -> MarkdownIt:
    """Return the one markdown-it instance every lesson renders with."""
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")
    md.use(cjk_friendly_plugin)  # bold next to CJK punctuation: **前馈网络（FFN）**负责
    md.use(foreign_plugin)  # an English example in a Chinese lesson: *by the river bank*{lang=en}
    md.use(dollarmath_plugin, allow_space=True, double_inline=False, renderer=_math)
    # inline math is its <math> alone: the plugin's <span class="math inline"> around it styled nothing and cost
    # a lesson page about a hundred bytes
    md.add_render_rule("math_inline", lambda self, tokens, idx, options, env: _math(tokens[idx].content.strip(), {}))
    md.use(math_glue_plugin)  # no line starts with 。 right after inline math
    for name in CONTAINERS:
        md.use(container_plugin, name=name, validate=lambda params, *a, n=name: params.strip().split(" ", 1)[0] == n)
    md.inline.ruler.before("escape", "trace_ref", _trace_ref_rule)
    md.inline.ruler.before("link", "term_alias", _alias_note_rule)
    md.inline.ruler.after("text", "figure_ref", _figure_ref_rule)
    return md


class LessonRenderer:
    """Render lesson bodies, resolving trace references through a callback."""

    def __init__(self):
        self.md = make_markdown()
        # markdown-it binds each rule to its renderer; wrap ours so they keep `self`.
        self._fence = self.md.renderer.rules["fence"]
        rules = {"trace_ref": self._render_ref, "heading_open": self._open_heading, "heading_close": self._close_heading,
                 "td_open": self._open_cell, "td_close": self._close_cell,
                 "th_open": self._open_header_cell, "th_close": self._close_header_cell,
                 "text": self._render_text, "term_alias": self._render_text, "fence": self._render_fence,
                 "figure_ref": self._render_figure_ref}
        for name in CONTAINERS:
            rules[f"container_{name}_open"] = getattr(self, f"_open_{name}")
            rules[f"container_{name}_close"] = getattr(self, f"_close_{name}")
        for rule, method in rules.items():
            self.md.add_render_rule(rule, lambda _renderer, *args, m=method: m(*args))
        self._parsed: dict[tuple[Path, int], tuple[str, Parsed]] = {}

    def parse(self, body: str, path: Path, first_line: int) -> Parsed:
        """Parse and check `body` (whose first line is line `first_line` of `path`), once per text."""
        key = (path, first_line)
        cached = self._parsed.get(key)
        if cached is not None and cached[0] == body:
            return cached[1]
        try:
            parsed = Parsed(self.md.parse(body, {}))
        except Exception as err:  # plugins raise assorted errors on bad input
            parsed = Parsed([], problems=[Problem(path, first_line, f"cannot parse Markdown: {err}")])
        else:
            self._annotate(parsed, path, first_line, body)
        self._parsed[key] = (body, parsed)  # keyed by file, so an edited lesson replaces its old entry
        return parsed

    def render(self, body: str, path: Path, first_line: int, resolve, figures: dict[str, str] | None = None,
               lang: str = "", units: tuple[str, ...] = (), resolve_plain=None, figure_number=str) -> Rendered:
        """Render `body` (whose first line is line `first_line` of `path`); headings never break inside
        one of `units` (the glossary's terms). `resolve(ref)` gives a trace value as the text shows it,
        `resolve_plain(ref)` as Python prints it (for output blocks); `figure_number(n)` a figure's
        number as its caption and the references to it show it ("Figure 2", from the catalogs)."""
        parsed = self.parse(body, path, first_line)
        out = Rendered(html="", parsed=parsed, problems=list(parsed.problems))
        if not parsed.tokens:
            return out
        figures = figures or {}
        env = {"resolve": resolve, "resolve_plain": resolve_plain or resolve, "out": out, "path": path,
               "figures": figures, "lang": lang, "units": units, "figure_number": figure_number,
               "figure_targets": figure_targets(parsed.figures, figures)}
        try:
            out.html = self.md.renderer.render(parsed.tokens, self.md.options, env)
        except Exception as err:  # most often invalid LaTeX inside $...$
            line = env.get("line", first_line)
            out.problems.append(Problem(path, line, f"cannot render: {type(err).__name__}: {err}"))
        return out

    def _annotate(self, out: Parsed, path, first_line, body: str = "") -> None:
        """Give headings their ids, record lines, and check prose for what is not allowed."""
        tokens = out.tokens
        source_lines = body.split("\n") or [""]
        in_walkthrough = False
        in_note: list[str] = []  # the open `::: aside` / `::: details` around this token
        walk_depth = 0
        deep = False
        last_fence = None  # the language of the latest fenced block, for output blocks
        for i, token in enumerate(tokens):
            line = first_line + token.map[0] if token.map else first_line
            token.meta["line"] = line  # markdown-it gives every token a dict of its own
            if token.type not in ("fence", "inline") and not token.type.startswith("paragraph_"):
                last_fence = None  # an output block follows its code, with only paragraphs between them
            if token.type == "heading_open":
                inline = tokens[i + 1]
                level = int(token.tag[1])
                if in_note:  # a section inside a note would split the note, and its title is its heading
                    out.problems.append(Problem(path, line, f"a heading inside `::: {in_note[-1]}`: its title is "
                                                            f"its heading; close the {in_note[-1]} with `:::` first"))
                if level == 1:
                    out.problems.append(Problem(path, line, "use ## for sections: the title comes from the front matter"))
                last = inline.children[-1] if inline.children else None
                found = heading_id(last.content) if last is not None and last.type == "text" else None
                written = heading_id(inline.content)  # as typed: `{\#t}` or `{&#35;t}` only looks like an id once parsed
                if found is None or written is None or written[0] != found[0]:
                    out.headings.append((token.tag, "?", line))  # the problem below says what is wrong
                    out.problems.append(Problem(path, line, f"heading {inline.content!r} needs a stable id, "
                                                            "e.g. `## Title {#section-name}`"))
                    continue
                anchor, last.content = found
                inline.content = written[1]
                token.attrSet("id", anchor)
                out.sections.append((level, anchor, inline.content, line))
                out.headings.append((token.tag, anchor, line))
            elif token.type in ("container_aside_open", "container_details_open"):
                in_note.append(token.type.split("_")[1])
            elif token.type in ("container_aside_close", "container_details_close") and in_note:
                in_note.pop()
            elif token.type == "container_walkthrough_open":
                in_walkthrough, walk_depth = True, 0
                out.walkthrough_line = line
            elif token.type == "container_walkthrough_close":
                in_walkthrough = False
            elif token.type in ("container_interactive_open", "container_diagram_open"):
                container = token.type.removeprefix("container_").removesuffix("_open")
                words, label = container_words(token.info, container)
                token.info = f"{container} {words}"  # the label is kept apart, like a heading's id
                name = ""
                if container == "interactive":
                    name, *args = words.split() or [""]
                    out.placed.append((name, line))
                    if args:
                        out.figure_args[name] = tuple(args)
                if label is not None and not FIGURE_LABEL.fullmatch(label):
                    out.problems.append(Problem(path, line, f"{{#{label}}} is not a figure label: write `{{#fig-name}}` "
                                                            "(lower-case letters, digits and hyphens after fig-)"))
                    label = None
                first = next((figure.line for figure in out.figures if label and figure.label == label), None)
                if first is not None:
                    out.problems.append(Problem(path, line, f"the figure label {{#{label}}} is used twice on the page "
                                                            f"(also on line {first})"))
                token.meta["number"], token.meta["label"] = len(out.figures) + 1, label
                out.figures.append(PlacedFigure(container, name, label or "", line))
            elif in_walkthrough and token.type == "list_item_open":
                walk_depth += 1
                out.steps += walk_depth == 1
            elif in_walkthrough and token.type == "list_item_close":
                walk_depth -= 1
            elif token.type == "inline":
                for child in token.children or []:
                    child.meta["line"] = line + child.meta.get("offset", 0)
                    if child.type == "trace_ref":
                        out.refs.append((child.content, child.meta["line"]))
                    elif child.type == "figure_ref":
                        out.figure_refs.append((child.content, child.meta["line"]))
                        if tokens[i - 1].type == "heading_open":
                            out.problems.append(Problem(path, child.meta["line"], f"@{child.content} in a heading: the "
                                                        "table of contents shows headings as written; refer to the "
                                                        "figure in the text"))
                    elif child.type == "math_inline":
                        problem = _math_problem(child.content)
                        if problem:
                            out.problems.append(Problem(path, line, problem))
                    elif child.type == "text":
                        if "{lang=" in child.content:
                            out.problems.append(Problem(path, child.meta["line"], "`{lang=…}` goes right after an emphasis "
                                                        "and takes a language tag: *by the river bank*{lang=en}"))
                        if "$" in child.content:
                            out.problems.append(Problem(path, child.meta["line"], "unterminated math: a `$` without its "
                                                        "closing `$` (write \\$ for a dollar sign)"))
                        if ("**" in child.content or "__" in child.content) and not ESCAPED_DELIMITER.search(
                                source_lines[min(child.meta["line"] - first_line, len(source_lines) - 1)]):
                            out.problems.append(Problem(path, child.meta["line"], "`**` or `__` is left as literal text: the "
                                                        "emphasis did not open or close (a space inside the markers?)"))
                        literal = LITERAL_DECIMAL.search(child.content)
                        if literal:
                            out.problems.append(Problem(path, child.meta["line"], f"figure {literal.group()!r} typed into the "
                                                        "text: take it from the trace with {{...}} so it cannot disagree"))
            elif token.nesting == 1 and token.level + 1 >= self.md.options.maxNesting and not token.type.startswith(
                    ("paragraph", "heading", "th", "td", "tr", "thead", "tbody", "table")) and not deep:
                # markdown-it silently drops everything from here to the end of the lesson.
                deep = True
                out.problems.append(Problem(path, line, "lists or quotes nested too deeply (Markdown stops "
                                                        f"at {self.md.options.maxNesting} levels of blocks): what follows "
                                                        "would be lost; flatten them"))
            elif token.type == "fence":
                info = token.info.strip().split(" ", 1)[0] if token.info.strip() else ""
                if info == OUTPUT:
                    self._annotate_output(out, path, line, token.content, last_fence)
                last_fence = info
            elif token.type in ("math_block", "math_block_label"):
                problem = _math_problem(token.content)
                if problem:
                    out.problems.append(Problem(path, line, problem))
        if in_walkthrough:
            out.problems.append(Problem(path, out.walkthrough_line, "`::: walkthrough` is not closed by `:::`"))
        labels = sorted(figure.label for figure in out.figures if figure.label)
        for label, line in out.figure_refs:
            if label not in labels:
                out.problems.append(Problem(path, line, f"@{label} refers to no figure of this page: end the figure's "
                                                        f"`:::` line with {{#{label}}}" + (
                                                            f" (labels on this page: {', '.join(labels)})" if labels else "")))

    @staticmethod
    def _annotate_output(out: Parsed, path, line: int, content: str, before: str | None) -> None:
        """Record an output block's trace references; it must follow a code block, and print no figure of its own."""
        if before in (None, OUTPUT):
            out.problems.append(Problem(path, line, "an ```output block shows what the code block before it prints: "
                                                    "put it after that code block"))
        for number, row in enumerate(content.split("\n"), line + 1):
            for match in OUTPUT_REF.finditer(row):
                out.refs.append((match.group(1).strip(), number))
            literal = LITERAL_DECIMAL.search(OUTPUT_REF.sub(" ", row))
            if literal:
                out.problems.append(Problem(path, number, f"figure {literal.group()!r} typed into an output block: "
                                                          "take it from the trace with {{...}} so it cannot disagree"))

    # Render rules -------------------------------------------------------------------------

    def _render_ref(self, tokens, idx, options, env):
        token = tokens[idx]
        env["line"] = token.meta["line"]
        text, problem = env["resolve"](token.content)
        if problem:
            env["out"].problems.append(Problem(env["path"], token.meta["line"], problem))
            return html.escape("{{" + token.content + "}}")
        # No data-ref naming the reference: no reader needs it, and the tests read it from the source.
        return f'<span class="trace-value">{html.escape(text)}</span>'

    def _render_fence(self, tokens, idx, options, env):
        token = tokens[idx]
        lang = token.info.strip().split(" ", 1)[0]
        if "caption" in env and lang != OUTPUT:  # inside `::: diagram`
            return _diagram(token.content, lang)
        if lang != OUTPUT:
            return self._fence(tokens, idx, options, env)
        first = token.meta["line"] + 1

        def value(match):
            ref = match.group(1).strip()
            text, problem = env["resolve_plain"](ref)
            if problem:
                line = first + token.content.count("\n", 0, match.start())
                env["out"].problems.append(Problem(env["path"], line, problem))
                return match.group(0)
            return text

        text = OUTPUT_REF.sub(value, token.content)
        return (f'<pre class="highlight output" tabindex="0" role="group" aria-labelledby="{OUTPUT_LABEL}" data-lang="{OUTPUT}">'
                f'<code>{_columns(escapeHtml(text))}</code></pre>\n')

    def _open_heading(self, tokens, idx, options, env):
        env["in_heading"] = True
        return self.md.renderer.renderToken(tokens, idx, options, env)

    def _close_heading(self, tokens, idx, options, env):
        env["in_heading"] = False
        return self.md.renderer.renderToken(tokens, idx, options, env)

    def _open_cell(self, tokens, idx, options, env):
        # A table's first column names its rows: it breaks between phrases only, like a heading, and is marked
        # up as the row's header, so a screen reader announces it with every cell of the row (and every data
        # cell has a header: axe's td-has-header, which Lighthouse runs, fails a corner-less first column).
        first = idx > 0 and tokens[idx - 1].type == "tr_open"
        env["in_heading"] = env["row_header"] = first
        html_ = self.md.renderer.renderToken(tokens, idx, options, env)
        return html_.replace("<td", '<th scope="row"', 1) if first else html_

    @staticmethod
    def _empty_header(tokens, idx, step):
        # A header cell with nothing in it (a table's corner) is a plain cell: a header names something,
        # and an empty one is read out as nothing (axe: empty-table-header).
        inline = tokens[idx + step]
        return inline.type == "inline" and not inline.content.strip()

    def _open_header_cell(self, tokens, idx, options, env):
        html_ = self.md.renderer.renderToken(tokens, idx, options, env)
        return html_.replace("<th", "<td", 1) if self._empty_header(tokens, idx, 1) else html_

    def _close_header_cell(self, tokens, idx, options, env):
        html_ = self.md.renderer.renderToken(tokens, idx, options, env)
        return html_.replace("</th", "</td", 1) if self._empty_header(tokens, idx, -1) else html_

    def _close_cell(self, tokens, idx, options, env):
        html_ = self.md.renderer.renderToken(tokens, idx, options, env)
        if env.get("row_header"):
            html_ = html_.replace("</td", "</th", 1)
        env["in_heading"] = env["row_header"] = False
        return html_

    def _render_text(self, tokens, idx, options, env):
        # Headings and row names break between phrases only (builder/typesetting.py); other text as markdown-it would.
        if env.get("in_heading"):
            return phrase_breaks(tokens[idx].content, env.get("lang", ""), env.get("units", ()))
        return words_html(tokens[idx].content)  # no line breaks inside post-norm

    def _open_diagram(self, tokens, idx, options, env):
        caption, label = tokens[idx].info.strip()[len("diagram"):].strip(), tokens[idx].meta["label"]
        number = html.escape(env["figure_number"](tokens[idx].meta["number"]))
        env["caption"] = f'<span class="figure-number">{number}</span> {words_html(caption)}'
        if not caption:
            env["out"].problems.append(Problem(env["path"], tokens[idx].meta["line"], "a diagram needs a caption: `::: diagram Caption`"))
        if label:
            return f'<figure class="diagram" id="{html.escape(label)}">\n'
        return '<figure class="diagram">\n'

    def _close_diagram(self, tokens, idx, options, env):
        return f'<figcaption>{env.pop("caption", "")}</figcaption>\n</figure>\n'

    @staticmethod
    def _title(tokens, idx, env, container: str, what: str) -> str:
        """The escaped title after `::: aside` or `::: details`, reported with its line when there is none."""
        title = tokens[idx].info.strip()[len(container):].strip()
        if not title:
            env["out"].problems.append(Problem(env["path"], tokens[idx].meta["line"],
                                               f"{what} needs a title: `::: {container} Title`"))
        return html.escape(title)

    def _open_aside(self, tokens, idx, options, env):
        title = self._title(tokens, idx, env, "aside", "an aside")
        # role="note": an aside inside the article is a note on it, not a landmark of the page.
        return f'<aside class="aside-note" role="note">\n<p class="aside-title">{title}</p>\n'

    def _close_aside(self, tokens, idx, options, env):
        return '</aside>\n'

    def _open_details(self, tokens, idx, options, env):
        # Folded until the reader opens it (a self-check's answers): the summary is the title, the browser's own
        # disclosure widget, so it works by keyboard and screen reader and without scripts. Printing opens it (site.js).
        return f'<details class="fold">\n<summary>{self._title(tokens, idx, env, "details", "a fold")}</summary>\n'

    def _close_details(self, tokens, idx, options, env):
        return '</details>\n'

    def _render_figure_ref(self, tokens, idx, options, env):
        token = tokens[idx]
        target = env["figure_targets"].get(token.content)
        if target is None:  # reported by the parse
            return html.escape("@" + token.content)
        anchor, number = target
        text = html.escape(env["figure_number"](number))
        if token.meta.get("in_link"):  # a link may not hold another
            return f'<span class="figure-ref">{text}</span>'
        return f'<a class="figure-ref" href="#{html.escape(anchor)}">{text}</a>'

    def _open_walkthrough(self, tokens, idx, options, env):
        env["walk_start"] = idx
        return '<div class="walkthrough-text" id="walkthrough-steps">\n'

    def _close_walkthrough(self, tokens, idx, options, env):
        # Record each top-level step's HTML so the interactive walkthrough can show it.
        start, depth, item = env.pop("walk_start", idx), 0, None
        for j in range(start + 1, idx):
            t = tokens[j]
            if t.type == "list_item_open":
                depth += 1
                if depth == 1:
                    item = j
            elif t.type == "list_item_close":
                if depth == 1 and item is not None:
                    inner = tokens[item + 1: j]
                    env["out"].walkthrough.append(self.md.renderer.render(inner, options, env).strip())
                depth -= 1
        return "</div>\n"

    def _open_interactive(self, tokens, idx, options, env):
        name = (tokens[idx].info.strip()[len("interactive"):].split() or [""])[0]
        figures = env["figures"]
        if not name and len(figures) == 1:
            name = next(iter(figures))
        return figures.get(name, "")  # a name the lesson does not list is reported by the page

    def _close_interactive(self, tokens, idx, options, env):
        return ""


def figure_targets(placed: list[PlacedFigure], figures: dict[str, str]) -> dict[str, tuple[str, int]]:
    """Each figure label → (the id its references link to, its number). A diagram takes its label as its
    id; an interactive figure keeps its kind's name (the page's script finds it by that), so
    `@fig-depth` links to `#depth-map`."""
    targets = {}
    for number, figure in enumerate(placed, 1):
        if figure.label and figure.label not in targets:
            if figure.container == "diagram":
                targets[figure.label] = (figure.label, number)
            else:  # a bare `::: interactive` places the lesson's only figure
                targets[figure.label] = (figure.name or (next(iter(figures)) if len(figures) == 1 else ""), number)
    return targets


def pygments_css(style: str, selector: str, used: frozenset[str] | None = None) -> str:
    """Return Pygments' token colours for `style`, scoped under `selector`: the token classes that look
    the same share one rule (a token's span has one class, so the order of the rules does not matter),
    and line numbers, which our code blocks never have, get none. With `used`, only those token classes
    get a rule: the site's code is a few Python blocks, and the other classes' rules were most of the file."""
    from pygments.formatters import HtmlFormatter
    rules: dict[str, list[str]] = {}
    out = []
    for line in HtmlFormatter(style=style).get_style_defs(selector).splitlines():
        token = re.fullmatch(rf"({re.escape(selector)} \.([\w-]+)) \{{ (.*?);? \}}(?: /\*.*\*/)?", line)
        if token and token.group(1) != f"{selector} .hll":
            if used is None or token.group(2) in used:
                rules.setdefault(token.group(3), []).append(token.group(1))
        elif "linenos" not in line:
            out.append(line)
    return "\n".join(out + [", ".join(selectors) + f" {{ {declarations} }}" for declarations, selectors in rules.items()])
