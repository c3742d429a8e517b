"""Headings break between phrases, never inside a Latin word or a glossary term (BudouX alone splits
"Pre-Nor|m", "LayerNor|m", "残|差流", "归|一化", "逐|位|置")."""

from __future__ import annotations

import html
import re

import pytest

from conftest import CONTENT, parse

LANGS = ["zh", "ja"]
WORDS = ["Pre-Norm", "LayerNorm", "残差流", "归一化", "逐位置"]
LATIN = re.compile(r"[0-9A-Za-z]+(?:[-'’.][0-9A-Za-z]+)*")


def units(lang):
    from builder.terminology import load_glossary

    glossary, problems = load_glossary(CONTENT, LANGS)
    assert not problems
    return glossary.units(lang)


def pieces(markup: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", part)) for part in markup.split("<wbr>")]


@pytest.mark.parametrize("text", ["Pre-Norm 与 Post-Norm", "LayerNorm 与 BatchNorm", "残差流的两次更新", "归一化与跳连",
                                  "逐位置前馈网络", "“逐位置”是什么意思", "把残差流归一化以后逐位置计算"])
def test_chinese_terms_and_latin_words_are_never_split(text):
    from builder.typesetting import phrase_breaks

    parts = pieces(phrase_breaks(text, "zh", units("zh")))
    assert "".join(parts) == text and len(parts) > 1  # still broken between phrases
    for word in WORDS:
        if word in text:
            assert any(word in part for part in parts), (word, parts)


@pytest.mark.parametrize("text", ["Pre-Norm と Post-Norm", "LayerNorm と BatchNorm", "残差ストリームの二回の更新",
                                  "位置ごとのフィードフォワードネットワーク"])
def test_japanese_terms_and_latin_words_are_never_split(text):
    from builder.typesetting import phrase_breaks

    parts = pieces(phrase_breaks(text, "ja", units("ja")))
    assert "".join(parts) == text
    for word in [*WORDS, *units("ja"), *LATIN.findall(text)]:
        if word in text:
            assert any(word in part for part in parts), (word, parts)


@pytest.mark.parametrize("lang", LANGS)
def test_no_heading_or_row_name_of_the_lessons_breaks_inside_a_term_or_a_word(real_site, lang):
    checked = 0
    for slug in ("transformer-block", "ffn-residual"):
        tree = parse(real_site / lang / f"{slug}.html")
        for node in tree.css("article h1, article h2, article h3, .toc a, .pager a, article > table td:first-child"):
            parts = pieces(node.html)
            text = "".join(parts)
            for word in [*units(lang), *LATIN.findall(text)]:
                if word in text:
                    checked += 1
                    assert any(word in part for part in parts), (slug, word, parts)
    assert checked > 10


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_lessons_tables_fit_a_phone_without_scrolling_sideways(real_site, open_page, lang):
    for slug in ("transformer-block", "ffn-residual"):
        page = open_page((real_site / lang / f"{slug}.html").as_uri(), viewport={"width": 390, "height": 800})
        widths = page.locator("article > table").evaluate_all("ts => ts.map(t => [t.scrollWidth, t.clientWidth])")
        assert all(scroll <= client for scroll, client in widths), (slug, widths)
