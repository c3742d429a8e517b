"""The pages every language shares (the entry page and 404) speak every language, each in its own."""

from __future__ import annotations

import pytest

from conftest import parse

LANGS = {"zh-Hans": ("Transformer 课程", "跳到正文"), "ja": ("Transformer レッスン", "本文へ移動")}


@pytest.mark.parametrize("page", ["index.html", "404.html"])
def test_the_header_title_and_skip_link_are_in_every_language(site, page):
    tree = parse(site / page)
    for part in (".site-title", ".skip-link"):
        spans = {s.attributes["lang"]: s.text() for s in tree.css(f"{part} span[lang]")}
        assert set(spans) == set(LANGS), part
    titles = {s.attributes["lang"]: s.text() for s in tree.css(".site-title span[lang]")}
    assert titles == {lang: words[0] for lang, words in LANGS.items()}
    skips = {s.attributes["lang"]: s.text() for s in tree.css(".skip-link span[lang]")}
    assert skips == {lang: words[1] for lang, words in LANGS.items()}


def test_the_entry_page_says_it_works_offline_in_every_language(site):
    notes = {p.attributes["lang"]: p.text() for p in parse(site / "index.html").css(".site-footer p[lang]")}
    assert set(notes) == set(LANGS) and all(notes.values())


def test_the_404_page_says_nothing_about_reading_offline(site):
    footer = parse(site / "404.html").css_first(".site-footer")
    assert footer is None or footer.text().strip() == ""


def test_the_entry_page_heading_is_in_every_language(site):
    heading = parse(site / "index.html").css_first("main h1")
    titles = {s.attributes["lang"]: s.text() for s in heading.css("span[lang]")}
    assert titles == {lang: words[0] for lang, words in LANGS.items()}
    assert heading.text().count("Transformer") == len(LANGS)  # no title outside a lang span
