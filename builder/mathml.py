"""LaTeX → MathML for lesson math, with only MathML's presentation elements and harmless attributes.

latex2mathml builds an element tree, then serialises it and un-escapes the whole string, so the text
of `\\text{…}`, `\\mbox{…}` or `\\fbox{…}` reaches the page as raw markup, and `\\href`, `\\style`,
`\\class` and `\\cssId` become attributes. Lesson math is content (semi-trusted), so we take the tree,
keep it only if every element and attribute is on the allowlist below, decode the character
references latex2mathml leaves in text, and serialise it ourselves with everything escaped.
"""

from __future__ import annotations

import html
import re
from copy import copy
from functools import cache

# MathML Core presentation elements (and the few MathML 3 ones latex2mathml emits: menclose, mfenced, mstyle…).
ELEMENTS = {
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "munder", "mover",
    "munderover", "mmultiscripts", "mprescripts", "none", "mfrac", "msqrt", "mroot", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "mfenced", "merror", "semantics", "annotation",
}
# Presentation attributes only: nothing that links (href), styles (style, class, id) or runs (on*).
ATTRIBUTES = {
    "xmlns", "display", "displaystyle", "scriptlevel", "mathvariant", "mathsize", "mathcolor", "mathbackground",
    "stretchy", "symmetric", "fence", "separator", "largeop", "movablelimits", "accent", "accentunder", "form",
    "lspace", "rspace", "minsize", "maxsize", "width", "height", "depth", "linethickness", "notation", "open",
    "close", "separators", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines",
    "frame", "framespacing", "equalrows", "equalcolumns", "align", "columnspan", "rowspan", "voffset", "encoding",
}
# A colour or length as latex2mathml writes them; anything else in an attribute is refused.
SAFE_VALUE = re.compile(r"[\w#.%+\- ]*")


MATHML_NS = "http://www.w3.org/1998/Math/MathML"


class UnsafeMath(ValueError):
    """Math whose MathML would carry an element or attribute that is not presentation markup."""


@cache
def latex_to_mathml(latex: str, display: str = "inline") -> str:
    """Return sanitised MathML for `latex`; raise UnsafeMath or latex2mathml's own errors."""
    from latex2mathml.converter import convert_to_element

    tree = convert_to_element(latex, display=display)
    return _serialise(tree)


TOKENS = ("mi", "mn", "mtext")  # not <mo>: its form (prefix, infix, postfix) depends on its place in its row


def _bare_row(element) -> bool:
    """An <mrow> that only groups: no attributes and no text of its own. MathML lays one out as its children."""
    return element.tag == "mrow" and not element.attrib and not (element.text or "").strip() and \
        all(not (child.tail or "").strip() for child in element)


def _serialise(element) -> str:
    tag = element.tag
    # latex2mathml wraps every group in a row: a row around one token, or the row that is a formula's only
    # child (<math> is itself a row), is written as what it holds, which draws the same and is shorter
    if _bare_row(element):
        kids = list(_words(element))  # \mathrm{softmax}'s letters as one <mi>
        if len(kids) == 1 and kids[0].tag in TOKENS:
            return _serialise(kids[0])
    if tag == "math" and len(element) == 1 and _bare_row(element[0]) and not (element.text or "").strip():
        row = element[0]
        element = copy(element)
        element[:] = list(row)
    if tag not in ELEMENTS:
        raise UnsafeMath(f"<{tag}> is not allowed in lesson math")
    attributes = []
    for name, value in element.attrib.items():
        if name not in ATTRIBUTES:
            raise UnsafeMath(f"the attribute {name!r} (from \\href, \\style, \\class, \\cssId or the like) is not allowed "
                             "in lesson math")
        value = html.unescape(value)
        if not (SAFE_VALUE.fullmatch(value) or (name == "xmlns" and value == MATHML_NS)):
            raise UnsafeMath(f"the value {value!r} of {name!r} is not allowed in lesson math")
        if tag == "math" and (name, value) in (("xmlns", MATHML_NS), ("display", "inline")):
            continue  # in an HTML page <math> is MathML without saying so, and inline unless it says block
        attributes.append(f' {name}="{html.escape(value)}"')
    inner = _text(element.text) + "".join(_serialise(child) + _text(child.tail) for child in _words(element))
    if not inner and tag in ("mspace", "none", "mprescripts"):
        return f"<{tag}{''.join(attributes)}/>"
    return f"<{tag}{''.join(attributes)}>{inner}</{tag}>"


def _words(element):
    """The children, with each run of upright single letters (\\mathrm{norm}, which latex2mathml writes as
    n, o, r, m apart) made one identifier: a name of several letters is upright by default, a screen
    reader says it as a word, and the page is shorter."""
    from xml.etree.ElementTree import Element

    run = []
    for child in [*element, None]:
        if (child is not None and child.tag == "mi" and child.attrib == {"mathvariant": "normal"} and not len(child)
                and not child.tail and len(child.text or "") == 1 and child.text.isalpha()):
            run.append(child)
            continue
        if len(run) > 1:
            word = Element("mi")
            word.text = "".join(letter.text for letter in run)
            yield word
        else:
            yield from run
        run = []
        if child is not None:
            yield child


def _text(text: str | None) -> str:
    # latex2mathml stores character references (&#x0003C;, &#x000A0;) as literal text and un-escapes
    # the serialised string; decode them here, then escape everything for real.
    return html.escape(html.unescape(text), quote=False) if text else ""


# ---- A formula as a line of text (for search and its snippets) ---------------------------------------
# The page shows MathML; a search snippet shows text. Stripping the tags runs a formula together
# ("xi−μσ2+ϵγi", "2dmodeldff"), so the search index takes each formula in a linear form a reader knows
# from plain-text math: d_model, W_Q, (xᵢ−μ)/√(σ²+ϵ), x ← x+Sublayer(LayerNorm(x)). A script of one
# character that Unicode has as a sub- or superscript is written so (x₀, σ², dₖ: as the lessons' own
# text and the charts' labels write them, and as a reader types them: search folds x₀ to x0).
SUBSCRIPTS = dict(zip("0123456789+−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
SUPERSCRIPTS = dict(zip("0123456789+−=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ"))
ACCENTS = {"^": "\u0302", "ˆ": "\u0302", "¯": "\u0304", "―": "\u0305", "‾": "\u0305", "~": "\u0303", "˜": "\u0303",
           "→": "\u20d7", "˙": "\u0307", ".": "\u0307", "¨": "\u0308"}  # over a letter, as combining marks
RELATIONS = set("=≠<>≤≥≈≡∼←→↦⇒⇔∈∉⊂⊆")  # written with a space on each side
_OPERATOR = re.compile(r"[\s+\-−±∓=≠<>≤≥≈≡∼←→↦⇒⇔∈∉⊂⊆,;/·×∗∘]")  # outside brackets, it takes a script or a fraction apart
_SCRIPT_END = "\x04"  # after a script written with _ or ^, until we know whether a letter follows it


@cache
def linear_text(mathml: str) -> str:
    """Return the formula of sanitised MathML (as latex_to_mathml writes it) as one line of plain text."""
    from xml.etree import ElementTree

    root = ElementTree.fromstring(mathml)
    text = _linear(root)
    text = re.sub(f"{_SCRIPT_END}(?=\\w)", " ", text).replace(_SCRIPT_END, "")  # d_model d_ff, not d_modeld_ff
    return re.sub(r"\s+", " ", text).strip()


def _linear(element) -> str:
    tag = element.tag.rpartition("}")[2]
    children = list(element)
    if tag in ("mi", "mn", "mtext", "ms"):
        return element.text or ""
    if tag == "mo":
        op = (element.text or "").strip()
        return f" {op} " if op in RELATIONS else f"{op} " if op == "," else op
    if tag == "mspace":
        return " "
    if tag in ("mphantom", "none", "mprescripts", "annotation"):
        return ""
    if tag == "semantics":
        return _linear(children[0]) if children else ""
    if tag in ("msub", "msup", "msubsup", "munder", "mover", "munderover") and children:
        base = _linear(children[0])
        scripts = [_linear(child).strip() for child in children[1:]]
        if tag == "mover" and scripts[0] in ACCENTS:  # x̂, x̄, v⃗: the accent on its letter
            return base + ACCENTS[scripts[0]]
        lower = _script(scripts[0], SUBSCRIPTS, "_") if tag in ("msub", "msubsup", "munder", "munderover") else ""
        upper = _script(scripts[-1], SUPERSCRIPTS, "^") if tag in ("msup", "msubsup", "mover", "munderover") else ""
        if re.fullmatch(f"_\\w{{2,}}{_SCRIPT_END}", lower) and upper:  # (d_model)², not d_model² (d to the model²)
            return f"({base}{lower[:-1]})" + upper
        return base + (lower.removesuffix(_SCRIPT_END) if upper else lower) + upper
    if tag == "mfrac" and len(children) == 2:
        return f"{_bracketed(_linear(children[0]))}/{_bracketed(_linear(children[1]))}"
    if tag == "msqrt":
        return "√" + _bracketed("".join(_linear(child) for child in children))
    if tag == "mroot" and len(children) == 2:
        return f"{_linear(children[1]).strip()}√{_bracketed(_linear(children[0]))}"
    if tag == "mfenced":
        separator = (element.get("separators") or ",").strip()[:1] or ","
        inner = f"{separator} ".join(_linear(child).strip() for child in children)
        return f"{element.get('open', '(')}{inner}{element.get('close', ')')}"
    if tag == "mtable":
        return "; ".join(_linear(row).strip() for row in children)
    if tag == "mtr":
        return ", ".join(_linear(cell).strip() for cell in children)
    return "".join(_linear(child) for child in children)  # math, mrow, mstyle, mpadded, menclose, mtd …


def _script(text: str, unicode_forms: dict[str, str], mark: str) -> str:
    """A sub- or superscript: in Unicode's own forms when it is one character or a number that has them
    (x₀, σ², x₁₂), else after `_` or `^`, in brackets unless it is one word (d_model, x_(i+1)); then
    _SCRIPT_END, which becomes a space if a letter follows (d_model d_ff, not d_modeld_ff)."""
    text = re.sub(r"\s+", "", text)  # i=1 under a sum, not i = 1
    if text and (len(text) == 1 or text.isdigit()) and all(ch in unicode_forms for ch in text):
        return "".join(unicode_forms[ch] for ch in text)
    return mark + (text if re.fullmatch(r"\w+", text) else _bracketed(text)) + _SCRIPT_END


def _bracketed(text: str) -> str:
    """`text` as a numerator, a denominator, a script or under a root: in brackets unless it is one piece."""
    text = text.strip()
    outside = text
    while True:  # what is outside every bracket: (σ²+ϵ) is one piece, and so is √(σ²+ϵ)
        inner = re.sub(r"\([^()]*\)", "", outside)
        if inner == outside:
            break
        outside = inner
    return text if text and not _OPERATOR.search(outside) else f"({text})"
