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


def _serialise(element) -> str:
    tag = element.tag
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
        attributes.append(f' {name}="{html.escape(value)}"')
    inner = _text(element.text) + "".join(_serialise(child) + _text(child.tail) for child in element)
    if not inner and tag in ("mspace", "none", "mprescripts"):
        return f"<{tag}{''.join(attributes)}/>"
    return f"<{tag}{''.join(attributes)}>{inner}</{tag}>"


def _text(text: str | None) -> str:
    # latex2mathml stores character references (&#x0003C;, &#x000A0;) as literal text and un-escapes
    # the serialised string; decode them here, then escape everything for real.
    return html.escape(html.unescape(text), quote=False) if text else ""
