"""CJK-friendly emphasis for markdown-it-py: `**前馈网络（FFN）**负责` is bold, as a writer means it.

CommonMark decides whether `**` may open or close emphasis by the characters on either side of it,
and treats every punctuation mark alike; so a closing `**` after `）` or `。` followed by a letter is
left as text, and Chinese and Japanese (which put no spaces around bold) lose their emphasis. The
CommonMark CJK-friendly amendments (https://github.com/tats-u/markdown-cjk-friendly, specification.md)
fix this by looking at whether the punctuation is CJK; markdown-it-cjk-friendly implements them for
JavaScript, and this module for markdown-it-py. Text without CJK characters renders exactly as before.

The amended rules (specification §6.2), with "punctuation" meaning Unicode P or S categories:
- left-flanking: not followed by whitespace, and either not followed by *non-CJK* punctuation, or
  preceded by whitespace, non-CJK punctuation, a CJK character or an ideographic variation selector;
- right-flanking: not preceded by whitespace, and either not preceded by *non-CJK* punctuation, or
  followed by whitespace, non-CJK punctuation or a CJK character;
- a character followed by a variation selector (U+FE00–U+FE0E) counts as that character, and
  punctuation of ambiguous width followed by U+FE01 (its fullwidth form) counts as CJK.
"""

from __future__ import annotations

import unicodedata

from markdown_it import MarkdownIt
from markdown_it.rules_inline.state_inline import Scanned, StateInline

# Characters whose default presentation is emoji (UTS #51 Emoji_Presentation=Yes) among the wide ones:
# they are not CJK characters for these rules. Ranges from Unicode 16's emoji-data.txt.
EMOJI_PRESENTATION = (
    (0x231A, 0x231B), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3), (0x25FD, 0x25FE), (0x2614, 0x2615),
    (0x2648, 0x2653), (0x267F, 0x267F), (0x2693, 0x2693), (0x26A1, 0x26A1), (0x26AA, 0x26AB), (0x26BD, 0x26BE),
    (0x26C4, 0x26C5), (0x26CE, 0x26CE), (0x26D4, 0x26D4), (0x26EA, 0x26EA), (0x26F2, 0x26F3), (0x26F5, 0x26F5),
    (0x26FA, 0x26FA), (0x26FD, 0x26FD), (0x2705, 0x2705), (0x270A, 0x270B), (0x2728, 0x2728), (0x274C, 0x274C),
    (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2795, 0x2797), (0x27B0, 0x27B0), (0x27BF, 0x27BF),
    (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x1F004, 0x1F004), (0x1F0CF, 0x1F0CF),
    (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A), (0x1F201, 0x1F201), (0x1F21A, 0x1F21A), (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F236), (0x1F238, 0x1F23A), (0x1F250, 0x1F251), (0x1F300, 0x1F320), (0x1F32D, 0x1F335),
    (0x1F337, 0x1F37C), (0x1F37E, 0x1F393), (0x1F3A0, 0x1F3CA), (0x1F3CF, 0x1F3D3), (0x1F3E0, 0x1F3F0),
    (0x1F3F4, 0x1F3F4), (0x1F3F8, 0x1F43E), (0x1F440, 0x1F440), (0x1F442, 0x1F4FC), (0x1F4FF, 0x1F53D),
    (0x1F54B, 0x1F54E), (0x1F550, 0x1F567), (0x1F57A, 0x1F57A), (0x1F595, 0x1F596), (0x1F5A4, 0x1F5A4),
    (0x1F5FB, 0x1F64F), (0x1F680, 0x1F6C5), (0x1F6CC, 0x1F6CC), (0x1F6D0, 0x1F6D2), (0x1F6D5, 0x1F6D7),
    (0x1F6DC, 0x1F6DF), (0x1F6EB, 0x1F6EC), (0x1F6F4, 0x1F6FC), (0x1F7E0, 0x1F7EB), (0x1F7F0, 0x1F7F0),
    (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945), (0x1F947, 0x1F9FF), (0x1FA70, 0x1FA7C), (0x1FA80, 0x1FA89),
    (0x1FA8F, 0x1FAC6), (0x1FACE, 0x1FADC), (0x1FADF, 0x1FAE9), (0x1FAF0, 0x1FAF8),
)


def is_variation_selector(ch: str) -> bool:
    """A non-emoji general-use variation selector (U+FE00–U+FE0E)."""
    return "\ufe00" <= ch <= "\ufe0e"


def is_ideographic_variation_selector(ch: str) -> bool:
    return "\U000e0100" <= ch <= "\U000e01ef"


def is_cjk(ch: str) -> bool:
    """A CJK character: East Asian Width W, F or H and not an emoji by default, or Hangul."""
    code = ord(ch)
    if unicodedata.east_asian_width(ch) in ("W", "F", "H"):
        return not any(lo <= code <= hi for lo, hi in EMOJI_PRESENTATION)
    return "HANGUL" in unicodedata.name(ch, "")


def is_fullwidth_form(ch: str, selector: str | None) -> bool:
    """A CJK ambiguous punctuation sequence: punctuation of ambiguous width (“ ” ‘ ’ …) followed by
    U+FE01, which asks for its fullwidth (CJK) form."""
    return selector == "\ufe01" and unicodedata.east_asian_width(ch) == "A" and is_punctuation(ch)


def is_punctuation(ch: str) -> bool:
    """A Unicode punctuation character, as CommonMark 0.31 defines it (categories P and S)."""
    return unicodedata.category(ch).startswith(("P", "S"))


def is_whitespace(ch: str) -> bool:
    return ch in "\t\n\x0b\x0c\r" or unicodedata.category(ch) == "Zs"


class CJKFriendlyState(StateInline):
    """markdown-it-py's inline state with the amended flanking rules in scanDelims."""

    def scanDelims(self, start: int, canSplitWord: bool) -> Scanned:
        src, maximum = self.src, self.posMax
        marker = src[start]
        pos = start
        while pos < maximum and src[pos] == marker:
            pos += 1
        count = pos - start
        # What precedes: the line start counts as whitespace; a variation selector defers to its base.
        before = src[start - 1] if start > 0 else " "
        ivs_before, selector = is_ideographic_variation_selector(before), None
        if is_variation_selector(before) and start > 1:
            before, selector = src[start - 2], before
        after = src[pos] if pos < maximum else " "
        after_selector = src[pos + 1] if pos + 1 < maximum else None

        before_space, after_space = is_whitespace(before), is_whitespace(after)
        before_punct, after_punct = is_punctuation(before), is_punctuation(after)
        before_cjk = is_cjk(before) or is_fullwidth_form(before, selector)
        after_cjk = is_cjk(after) or is_fullwidth_form(after, after_selector)
        before_other_punct = before_punct and not before_cjk  # non-CJK punctuation
        after_other_punct = after_punct and not after_cjk

        left = not after_space and (not after_other_punct or before_space or before_other_punct or before_cjk or ivs_before)
        right = not before_space and (not before_other_punct or after_space or after_other_punct or after_cjk)
        can_open = left and (canSplitWord or not right or before_punct)
        can_close = right and (canSplitWord or not left or after_punct)
        return Scanned(can_open, can_close, count)


def cjk_friendly_plugin(md: MarkdownIt) -> None:
    """Use the CJK-friendly flanking rules for `*` and `_` emphasis in this markdown-it instance."""
    inline = md.inline

    def parse(src, md, env, tokens):
        state = CJKFriendlyState(src, md, env, tokens)
        inline.tokenize(state)
        for rule in inline.ruler2.getRules(""):
            rule(state)
        return state.tokens

    inline.parse = parse
