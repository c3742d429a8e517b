"""The interface's own words in Chinese and Japanese: control labels, the language switcher, the step table."""

from __future__ import annotations

import json
import re

import pytest

from conftest import build_site, parse

LANGS = ["zh", "ja"]
CONTROL_LABELS = ".controls legend, .controls label[for]"


@pytest.mark.parametrize("lang", LANGS)
def test_control_labels_end_in_a_full_width_colon(site, lang):
    tree = parse(site / lang / "transformer-block.html")
    labels = [" ".join(node.text().split()) for node in tree.css(CONTROL_LABELS)]
    assert labels and all(label.endswith("：") for label in labels), labels
    toggles = {" ".join(node.text().split()) for node in tree.css(".controls button.toggle")}
    assert toggles == {"残差连接：开"} if lang == "zh" else {"残差接続：オン"}  # no half-width colon, no space


def test_the_label_punctuation_comes_from_the_catalog(tmp_path, content_copy):
    po = content_copy / "zh" / "messages.po"
    po.write_text(po.read_text(encoding="utf-8").replace('msgstr "%(label)s："', 'msgstr "%(label)s＝"'), encoding="utf-8")
    tree = parse(build_site(content_copy, tmp_path / "dist") / "zh" / "transformer-block.html")
    labels = [" ".join(node.text().split()) for node in tree.css(CONTROL_LABELS + ", .controls button.toggle")]
    assert labels and all("＝" in label and "：" not in label for label in labels), labels


def chart_hovers(page) -> list[str]:
    """Every hover of a page's charts: the build-time drawings' <title>s and the page data's `hover` lists
    (lesson.js draws the other states from these)."""
    tree = parse(page)
    found = [node.text() for node in tree.css(".chart-svg title")]

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                found.extend(item) if key == "hover" else walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(tree.css_first("#lesson-data").text()))
    return found


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", ["transformer-block", "ffn-residual"])
def test_chart_hovers_join_a_name_and_its_value_with_a_full_width_colon(site, lang, slug):
    hovers = chart_hovers(site / lang / f"{slug}.html")
    assert len(hovers) > 10
    lines = [line for hover in hovers for line in hover.split("\n")]
    assert not [line for line in lines if ":" in line], "a half-width colon in a hover"
    assert sum("：" in line for line in lines) >= len(hovers)  # every hover has at least one value
    assert not [line for line in lines if "： " in line or " ：" in line]  # no space around it either


def test_the_hover_punctuation_comes_from_the_catalog(tmp_path, content_copy):
    po = content_copy / "ja" / "messages.po"
    text = po.read_text(encoding="utf-8")
    assert 'msgstr "%(name)s：%(value)s"' in text
    po.write_text(text.replace('msgstr "%(name)s：%(value)s"', 'msgstr "%(name)s＝%(value)s"'), encoding="utf-8")
    out = build_site(content_copy, tmp_path / "dist")
    for slug in ("transformer-block", "ffn-residual"):
        hovers = chart_hovers(out / "ja" / f"{slug}.html")
        assert hovers and all("＝" in hover and "：" not in hover for hover in hovers), hovers[:3]


@pytest.mark.parametrize("lang", LANGS)
def test_the_switcher_names_each_language_as_it_calls_itself(site, lang):
    tree = parse(site / lang / "transformer-block.html")
    names = [" ".join(node.text().split()) for node in tree.css(".language-switcher li")]
    assert names == ["简体中文", "日本語"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_step_tables_first_column_is_not_headed_position(site, lang):
    # 位置 is the token position (逐位置, 位置ごと); the rows are the steps of the run.
    tree = parse(site / lang / "transformer-block.html")
    heads = [table.css_first("thead th").text().strip() for table in tree.css("#depth-map .twin table")]
    assert heads and "位置" not in heads and all(heads), heads


@pytest.mark.parametrize("lang", LANGS)
def test_the_attention_corner_is_one_translated_phrase(site, lang):
    tree = parse(site / lang / "transformer-block.html")
    corner = tree.css_first(".attention-grid .corner").text()
    assert "\\" not in corner and "→" in corner


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_plotly_hover_a_reader_sees_has_the_full_width_colon(site, open_page, lang):
    page = open_page((site / lang / "transformer-block.html").as_uri())
    page.locator("#depth-map").scroll_into_view_if_needed()
    page.wait_for_selector('#depth-map [data-chart="main"] [data-part="chart"].plotted')
    bar = page.locator('#depth-map [data-chart="main"] .plot .bars .point path').first
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    text = page.locator("#depth-map .hoverlayer .hovertext").first.text_content()
    # the bar or the diamond of the stream's length drawn over it: a quantity, then its value
    assert re.search(r"‖：\d", text) and ":" not in text, text
