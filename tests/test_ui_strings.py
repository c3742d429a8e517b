"""The interface's own words in Chinese and Japanese: control labels, the language switcher, the step table."""

from __future__ import annotations

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
