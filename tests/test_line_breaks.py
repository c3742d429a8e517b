"""Headings break between phrases, never inside a Latin word or a glossary term (BudouX alone splits
"Pre-Nor|m", "LayerNor|m", "残|差流", "归|一化", "逐|位|置"), except where a long term marks in the
glossary that it may wrap ("フィードフォワード|ネットワーク")."""

from __future__ import annotations

import html
import re

import pytest

from conftest import CONTENT, parse

LANGS = ["zh", "ja"]
WORDS = ["Pre-Norm", "LayerNorm", "残差流", "归一化", "逐位置"]
LATIN = re.compile(r"[0-9A-Za-z]+(?:[-'’.][0-9A-Za-z]+)*")


def glossary():
    from builder.terminology import load_glossary

    loaded, problems = load_glossary(CONTENT, LANGS)
    assert not problems
    return loaded


def pieces(markup: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", part)) for part in markup.split("<wbr>")]


def breaks_inside_words(parts: list[str], marked_units) -> list[str]:
    """Every word (Latin word or glossary term) that a break falls inside, other than at a term's marked wrap."""
    text = "".join(parts)
    offsets, at = set(), 0
    for part in parts[:-1]:
        at += len(part)
        offsets.add(at)
    found = []
    words = [(m.group(), m.start(), set()) for m in LATIN.finditer(text)]
    for marked in marked_units:
        unit = marked.replace("|", "")
        marks = {i - n for n, i in enumerate(i for i, ch in enumerate(marked) if ch == "|")}
        words += [(unit, m.start(), {m.start() + k for k in marks}) for m in re.finditer(re.escape(unit), text)]
    for word, start, allowed in words:
        if any(start < offset < start + len(word) and offset not in allowed for offset in offsets):
            found.append(word)
    return found


@pytest.mark.parametrize("text", ["Pre-Norm 与 Post-Norm", "LayerNorm 与 BatchNorm", "残差流的两次更新", "归一化与跳连",
                                  "逐位置前馈网络", "“逐位置”是什么意思", "把残差流归一化以后逐位置计算"])
def test_chinese_terms_and_latin_words_are_never_split(text):
    from builder.typesetting import phrase_breaks

    parts = pieces(phrase_breaks(text, "zh", glossary().break_units("zh")))
    assert "".join(parts) == text and len(parts) > 1  # still broken between phrases
    for word in WORDS:
        if word in text:
            assert any(word in part for part in parts), (word, parts)


@pytest.mark.parametrize("text", ["Pre-Norm と Post-Norm", "LayerNorm と BatchNorm", "残差ストリームの 2 回の更新",
                                  "正規化とスキップ接続"])
def test_japanese_terms_and_latin_words_are_never_split(text):
    from builder.typesetting import phrase_breaks

    units = glossary().break_units("ja")
    parts = pieces(phrase_breaks(text, "ja", units))
    assert "".join(parts) == text and breaks_inside_words(parts, units) == [], parts
    for word in WORDS:
        if word in text:
            assert any(word in part for part in parts), (word, parts)


def test_a_long_term_wraps_only_where_the_glossary_marks_it():
    from builder.typesetting import phrase_breaks

    parts = pieces(phrase_breaks("フィードフォワードネットワークと残差接続", "ja", glossary().break_units("ja")))
    assert parts[:2] == ["フィードフォワード", "ネットワークと"]  # not "フィードフォワードネッ|トワーク"


@pytest.mark.parametrize("lang", LANGS)
def test_no_heading_or_row_name_of_the_lessons_breaks_inside_a_term_or_a_word(real_site, lang):
    units = glossary().break_units(lang)
    checked = 0
    for slug in ("transformer-block", "ffn-residual"):
        tree = parse(real_site / lang / f"{slug}.html")
        for node in tree.css("article h1, article h2, article h3, .toc a, .pager a, article > table td:first-child"):
            parts = pieces(node.html)
            checked += 1
            assert breaks_inside_words(parts, units) == [], (slug, parts)
    assert checked > 10


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_lessons_tables_fit_a_phone_without_scrolling_sideways(real_site, open_page, lang):
    measured = 0
    for slug in ("transformer-block", "ffn-residual"):
        page = open_page((real_site / lang / f"{slug}.html").as_uri(), viewport={"width": 390, "height": 800})
        for table in page.locator("article > table").all():
            # A block far below the window is not laid out yet (content-visibility: auto in site.css) and reports
            # its placeholder size: a table is measured only once it has been scrolled to.
            table.scroll_into_view_if_needed()
            page.wait_for_function("t => t.scrollWidth > 0 && t.getBoundingClientRect().height > 0", arg=table.element_handle())
            head = table.locator("tr").first.text_content().strip()[:40]
            assert table.evaluate("t => t.scrollWidth <= t.clientWidth"), f"{lang}/{slug}: scrolls sideways: {head}"
            measured += 1
    assert measured >= 2  # the lessons' own tables (not the figures'), so the test cannot pass by finding none


@pytest.mark.browser
def test_the_japanese_title_wraps_between_the_parts_of_its_long_term_on_a_phone(real_site, open_page):
    page = open_page((real_site / "ja" / "ffn-residual.html").as_uri(), viewport={"width": 390, "height": 800})
    lines = page.locator("article h1").evaluate(LINES_OF)
    assert len(lines) > 1 and lines[0] == "フィードフォワード", lines


# Words BudouX's Chinese model cut in the lessons' headings (小|结, 下|一|步, 常|见|误区, 同|一|个|块), and a few
# more of the same kind: a heading breaks between them, never inside.
COMMON_WORDS = {"zh": ["小结", "下一步", "常见", "误区", "一个", "两次", "一种", "同一个", "另一种", "什么", "为什么", "这些",
                       "数字", "自己", "算出", "范围", "情况", "边界", "加法", "展开", "演示", "意思", "更新", "帮助", "总览"],
                "ja": ["ブロック", "ネットワーク", "間違い", "ステップ", "正規化", "数字"]}


@pytest.mark.parametrize("lang", LANGS)
def test_every_heading_keeps_common_words_whole_and_no_character_alone(real_site, lang):
    """Every heading, table of contents entry and pager link of both lessons: no break inside a common word, and
    no phrase of a single character (which a narrow line would leave alone: 小 / 结)."""
    checked = 0
    for slug in ("transformer-block", "ffn-residual"):
        tree = parse(real_site / lang / f"{slug}.html")
        for node in tree.css("article h1, article h2, article h3, .toc a, .pager a"):
            parts = [p for p in pieces(node.html) if p.strip()]
            checked += 1
            assert breaks_inside_words(parts, COMMON_WORDS[lang]) == [], (slug, parts)
            if len(parts) > 1:
                assert all(sum(ch.isalnum() for ch in part) > 1 for part in parts), (slug, parts)
    assert checked > 20


@pytest.mark.parametrize("text,expected", [("小结", ["小结"]), ("下一步", ["下一步"]), ("常见误区", ["常见", "误区"]),
                                           ("同一个块，另一种意思", ["同一个块，", "另一种", "意思"]),
                                           ("残差流的两次更新", ["残差流的", "两次", "更新"])])
def test_chinese_phrases_join_what_budoux_cuts_into_single_characters(text, expected):
    from builder.typesetting import phrase_breaks

    assert pieces(phrase_breaks(text, "zh", glossary().break_units("zh"))) == expected


LINES_OF = """node => {
  const range = document.createRange(), tops = [];
  let text = '';
  for (const n of [...node.childNodes].filter(n => n.nodeType === 3)) {
    for (let i = 0; i < n.data.length; i++) {
      range.setStart(n, i); range.setEnd(n, i + 1);
      const top = Math.round(range.getBoundingClientRect().top);
      if (tops.length && top !== tops[tops.length - 1]) text += '\\n';
      tops.push(top); text += n.data[i];
    }
  }
  return text.split('\\n');
}"""


@pytest.mark.browser
@pytest.mark.parametrize("lang,word", [("zh", "注意力"), ("ja", "アテンション")])
@pytest.mark.parametrize("width", [390, 320])
def test_a_steps_attention_caption_breaks_between_phrases_on_a_phone(real_site, open_page, lang, word, width):
    """Step 2's "Attention weights of “bank” in block 1" over its four narrow columns: the caption takes a
    phone's line, not the table's width, and where it must wrap it wraps between phrases (ja-4 5.4: アテ|ンション)."""
    page = open_page((real_site / lang / "transformer-block.html").as_uri() + "#step=2",
                     viewport={"width": width, "height": 800})
    caption = page.locator('#depth-map [data-part="walk-readout"] .attention-weights caption')
    caption.wait_for()
    box, table = caption.bounding_box(), page.locator("#depth-map .attention-weights").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width and table["x"] + table["width"] <= width
    lines = [line.replace("\u200b", "") for line in caption.evaluate(LINES_OF)]
    assert len(lines) <= 2 and all(len(line) > 1 for line in lines), lines
    assert any(word in line for line in lines), lines  # the term is whole on one line
    if width == 390:
        assert len(lines) == 1, lines  # wider than its table: one line at 390 px


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("scenario", ["river-bank", "money-bank", "bank-by-the-river"])
def test_the_attention_grids_corner_cell_takes_two_whole_lines_on_a_phone(real_site, open_page, lang, scenario):
    """The corner cell says which words are the rows and which the columns. Beside four word columns at 390 px
    it wraps once, between its two halves, never into three ragged pieces (ja-55 19: 行：注目する語 / ／列： / 注目される語)."""
    page = open_page((real_site / lang / "transformer-block.html").as_uri() + f"#scenario={scenario}",
                     viewport={"width": 390, "height": 800})
    corner = page.locator(".attention-grid th.corner").first
    corner.scroll_into_view_if_needed()
    halves = corner.locator("span")
    looks, at = {"zh": ("关注方", "被关注方"), "ja": ("注目する語", "注目される語")}[lang]
    for n, word in enumerate((looks, at)):
        lines = [line.replace("\u200b", "") for line in halves.nth(n).evaluate(LINES_OF)]
        assert len(lines) == 1 and word in lines[0], lines
    first, second = halves.nth(0).bounding_box(), halves.nth(1).bounding_box()
    assert second["y"] >= first["y"] + first["height"] - 1, (first, second)  # the columns' line under the rows' line
    grid = page.locator(".attention-grid").first
    assert grid.evaluate("g => g.scrollWidth <= g.clientWidth"), "the grid scrolls sideways at 390 px"


@pytest.mark.parametrize("text,kept", [("空心圆环；块 3 起与所选例句的点重合", "块\u00a03\u00a0起与所选例句的点重合"),
                                       ("块 %(n)s 之后", "块\u00a0%(n)s\u00a0之后")])
def test_a_chinese_label_never_breaks_between_a_number_and_the_word_after_it(text, kept):
    """review-zh-55 15: "块 3 起" split after the number at 390 px, leaving 起 to start the next line."""
    from builder.typesetting import label_breaks

    assert kept in label_breaks(text, "zh", glossary().break_units("zh")).replace("\u200b", "|")
