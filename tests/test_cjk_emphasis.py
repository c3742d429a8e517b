"""Bold and italics next to Chinese and Japanese punctuation (the CommonMark CJK-friendly amendments).

The cases come from the specification's test documents (github.com/tats-u/markdown-cjk-friendly,
testcases/), and from our own lessons' sentences."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from builder.cjk import cjk_friendly_plugin
from builder.markdown import LessonRenderer

md = MarkdownIt("commonmark")
md.use(cjk_friendly_plugin)
plain = MarkdownIt("commonmark")

# testcases/strong.md: every `**…**` becomes <strong> (a selection covering each rule).
BOLD = [
    "これは**私のやりたかったこと。**だからするの。",
    "**[製品ほげ](./product-foo)**と**[製品ふが](./product-bar)**をお試しください",
    "**これは太字になりません。**ご注意ください。",
    "カッコに注意**（太字にならない）**文が続く場合に要警戒。",
    "**[リンク](https://example.com)**も注意。（画像も同様）",
    "税込**¥10,000**で入手できます。",
    "正解は**④**です。",
    "太郎は**「こんにちわ」**といった",
    '太郎は**"こんにちわ"**といった',
    "太郎は**「Oh my god」**といった",
    "**C#**や**F#**は**「.NET」**というプラットフォーム上で動作します。",
    "IDが**００１号**になります。",
    "Go**「初心者」**を対象とした記事です。",
    "**真，**她", "**真。**她", "**真、**她", "**真；**她", "**真：**她", "**真？**她", "**真！**她",
    "**真“**她", "**真”**她", "**真（**她", "真**（她**", "**真）**她", "**真【**她", "真**【她**",
    "**真》**她", "**真—**她", "**真～**她", "**真…**她", "**真·**她", "**真-**她", "**真**她", "**真**，她",
    "**さようなら︙**と太郎はいった。",
    ".NET**（.NET Frameworkは不可）**では、",
    "Git**（注：不是GitHub）**",
    "𰻞𰻞**（ビャンビャン）**麺",
    "𰻞𰻞**(ビャンビャン)**麺",
    "ハイパーテキストコーヒーポット制御プロトコル**(HTCPCP)**",
    "国際規格**[ECMA-262](https://tc39.es/ecma262/)**",
    "**推荐几个框架：**React、Vue等前端框架。",
    "禰󠄀**(こちらが正式表記)**豆子",
    "大塚︀**(U+585A U+FE00)** 大塚**(U+FA10)**",
    "**“︁Git”︁**Hub",
    # testcases/korean.md
    "**스크립트(script)**라고",
    "패키지를 발행하려면 **`npm publish`**를 실행하십시오.",
    "**안녕(hello)**하세요.",
    # testcases/pseudo-emoji.md
    "a**〰**a", "a**〽**a", "a**🈂**a", "a**㊗**a",
]
# testcases/non-bmp.md: non-CJK punctuation keeps CommonMark's rule, so these stay literal.
NOT_BOLD = ["a**a«**a", "a**»a**a", "a**a∇**a", "a**∇a**a", "a**a𝜵**a", "a**𝜵a**a"]
# testcases/underscore-cjk-punct.md: `_` and `__` around CJK punctuation.
UNDERSCORE = ["__注意__：注意事項", "注意：__注意事項__", "正體字。︁_Traditional._", "正體字。︁__Hong Kong and Taiwan.__"]
# Our lessons' sentences that CommonMark got wrong.
LESSONS = [
    ("**前馈网络（FFN）**负责在每个位置内部做非线性加工", "<strong>前馈网络（FFN）</strong>负责"),
    ("**フィードフォワードネットワーク（FFN）**が各位置の中で", "<strong>フィードフォワードネットワーク（FFN）</strong>が"),
    ("本课讲的是 **pre-norm（前置归一化）**写法", "<strong>pre-norm（前置归一化）</strong>写法"),
    ("扱うのは **pre-norm（前置正規化）**の形です", "<strong>pre-norm（前置正規化）</strong>の形"),
]


@pytest.mark.parametrize("text", BOLD)
def test_bold_next_to_cjk_punctuation_opens_and_closes(text):
    html = md.renderInline(text)
    assert "**" not in html and "<strong>" in html, html


@pytest.mark.parametrize("text", NOT_BOLD)
def test_non_cjk_punctuation_keeps_commonmarks_rule(text):
    assert md.renderInline(text) == plain.renderInline(text) and "<strong>" not in md.renderInline(text)


@pytest.mark.parametrize("text", UNDERSCORE)
def test_underscores_next_to_cjk_punctuation(text):
    html = md.renderInline(text)
    assert "_" not in html and ("<strong>" in html or "<em>" in html), html


@pytest.mark.parametrize("text,expected", LESSONS)
def test_the_lessons_bold_sentences(text, expected):
    html = md.renderInline(text)
    assert expected in html and html.count("<strong>") == 1, html


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("*_ ab.,!?()[]\"'-#`\\\n1«»∇é")), max_size=40))
def test_text_without_cjk_renders_exactly_as_commonmark(text):
    assert md.render(text) == plain.render(text)


def test_a_literal_double_asterisk_is_reported_with_its_line():
    body = "第一段。\n\n这里 ** 不是粗体 ** 而是两个星号。\n\n转义的 \\*\\* 可以保留。\n"
    problems = LessonRenderer().parse(body, Path("x.md"), 10).problems
    assert [(p.line, "left as literal text" in p.message) for p in problems] == [(12, True)]


def test_an_empty_table_corner_is_a_plain_cell_and_named_headers_stay_headers():
    html = LessonRenderer().md.render("|  | pre-norm |\n|---|---|\n| 位置 | 子层之前 |\n")
    assert "<td></td>" in html and "<th></th>" not in html  # a header with nothing to name is not a header
    assert '<th><span class="word">pre-norm</span></th>' in html  # a hyphenated word is kept on one line


def test_a_tables_first_column_names_its_rows_as_row_headers():
    """Every data cell has a header a screen reader can announce with it (axe's td-has-header): the column's,
    and the row's name in the first column."""
    html = LessonRenderer().md.render("|  | 没有残差连接 | 有残差连接 |\n|---|---|---|\n| 反向传播 | 越传越小 | 恒等路径 |\n"
                                      "| 子层的任务 | 代替 | 修正 |\n")
    assert html.count('<th scope="row">') == 2 and html.count("<td>") == 1 + 4  # the corner, and the data cells
    assert '<th scope="row">反向' in html and "</th>\n<td>越传越小</td>" in html
