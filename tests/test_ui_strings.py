"""The interface's own words in Chinese and Japanese: control labels, the language switcher, the step table."""

from __future__ import annotations

import json
import re

import pytest

from conftest import build_site, lesson_data, parse

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

    walk(lesson_data(page))
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


@pytest.mark.parametrize("lang,looks,at", [("zh", "关注方", "被关注方"), ("ja", "注目する語", "注目される語")])
def test_the_attention_corner_names_the_rows_then_the_columns_in_translated_lines(site, lang, looks, at):
    tree = parse(site / lang / "transformer-block.html")
    lines = [span.text().replace("\u200b", "") for span in tree.css(".attention-grid .corner span")]
    assert len(lines) == 2 and looks in lines[0] and at in lines[1] and lines[0].startswith("行") and lines[1].startswith("列"), lines
    assert not any("\\" in line or "%" in line for line in lines), lines


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


# The depth map's own words, with the real catalogs (third native review, zh-3 §5 and ja-3 §5).

LOCALES = {"zh": "zh_Hans", "ja": "ja"}
HTML_LANGS = {"zh": "zh-Hans", "ja": "ja"}


def depth_map_views(lang):
    from builder.figures.page import figure_views
    from builder.i18n import Language, compile_catalog, read_catalog
    from builder.scenarios import load_scenario
    from conftest import CONTENT

    translations = compile_catalog(read_catalog(CONTENT / lang / "messages.po", LOCALES[lang]))
    scenarios = [load_scenario(CONTENT / "scenarios" / f"{name}.toml") for name in ("river-bank", "money-bank")]
    language = Language(code=lang, locale=LOCALES[lang], html_lang=HTML_LANGS[lang])
    return figure_views("depth-map", language, translations, scenarios, ["input", "b1.attention", "b2", "sum"])


def words(text):
    return text.replace("\u200b", "")  # without label_breaks' phrase marks


@pytest.mark.parametrize("lang", LANGS)
def test_with_the_residual_off_the_input_row_of_the_lengths_has_no_output_length(lang):
    """Off, the bars are the sublayers' outputs ‖Δ‖: the input is no output, so its cell is a dash, not 0.00.
    On, the bar is ‖x − x₀‖, which is 0 at the input."""
    views = depth_map_views(lang)
    off, on = views["river-bank|off|3"]["twins"][1], views["river-bank|on|3"]["twins"][1]
    assert off["rows"][0][1] == "—" and all(row[1] != "—" for row in off["rows"][1:])
    assert on["rows"][0][1] == "0.00"
    assert off["rows"][0][2] == on["rows"][0][2] != "—"  # ‖x₀‖ is there in both


@pytest.mark.parametrize("lang,when,vector", [("zh", "测量点", "向量"), ("ja", "測った時点", "ベクトル")])
def test_rows_that_are_points_in_the_run_and_rows_that_are_vectors_have_their_own_heading(lang, when, vector):
    view = depth_map_views(lang)["river-bank|on|3"]
    assert [words(twin["columns"][0]) for twin in view["twins"]] == [when, when]
    assert {words(step["corner"]) for step in view["steps"]} == {vector}


@pytest.mark.parametrize("lang", LANGS)
def test_the_walkthrough_notice_and_its_button_name_the_sentence_alike(lang):
    """"by the river bank（河岸边）" in the notice and on its button alike: the sentence's own words and its
    title together, as every sentence is named."""
    notice = depth_map_views(lang)["money-bank|on|3"]["notice"]
    sentence = "by the river bank（河岸边）" if lang == "zh" else "by the river bank（川岸のそば）"
    assert sentence in notice["text"] and sentence in notice["button"]


def test_the_zh_spread_legend_names_the_residual_as_its_toggle_does():
    views = depth_map_views("zh")
    legend = [words(entry["text"]) for entry in views["river-bank|off|3"]["charts"]["spread"]["legend"]]
    assert legend == ["残差连接：关", "打开残差连接时（对照）"]
    assert [words(e["text"]) for e in views["river-bank|on|3"]["charts"]["spread"]["legend"]] == ["残差连接：开"]


@pytest.mark.parametrize("lang", LANGS)
def test_lists_and_the_step_after_a_summary_take_the_catalogs_punctuation(lang):
    """No '; ' or ' ' joined in code between Chinese or Japanese phrases: the separators are the catalogs'."""
    import json
    from conftest import CONTENT
    from builder.i18n import compile_catalog, read_catalog

    translations = compile_catalog(read_catalog(CONTENT / lang / "messages.po", LOCALES[lang]))
    sep = translations.gettext("%(first)s; %(second)s") % {"first": "", "second": ""}
    assert sep and ";" not in sep
    with_step = translations.gettext("%(summary)s %(step)s") % {"summary": "。", "step": "x"}
    assert with_step == "。x"


@pytest.mark.parametrize("lang", LANGS)
def test_the_norm_compare_caption_names_the_word_and_its_sentence(site, lang):
    """The page has no sentence picker: a reader who starts at the figure learns from its caption which word of
    which sentence the lines follow."""
    import tomllib

    from conftest import FIXTURE

    scenario = tomllib.loads((FIXTURE / "scenarios" / "river-bank.toml").read_text(encoding="utf-8"))
    caption = parse(site / lang / "ffn-residual.html").css_first('#norm-compare [data-part="caption"]').text()
    assert ("「%s" if lang == "ja" else "“%s") % " ".join(scenario["tokens"]) in caption  # quoted, as the legends quote it
    assert ("の %s の" if lang == "ja" else "中 %s 的") % scenario["tracked"] in caption  # token names bare (TRANSLATING.md)


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_shown_for_a_page_not_kept_has_no_footer_saying_pages_are_kept(site, lang):
    """offline.html says this page was not kept on the device: the footer every other page has ("pages you open
    while online are kept on this device") would read as a contradiction there."""
    from babel.messages.pofile import read_po

    from conftest import CONTENT

    with open(CONTENT / lang / "messages.po", "rb") as po:  # the fixture project takes the real catalogs
        footer = read_po(po).get("Pages you open while online are kept on this device for reading offline.").string
    assert footer and footer in parse(site / lang / "index.html").text()
    assert footer not in parse(site / lang / "offline.html").text()


@pytest.mark.parametrize("lang", LANGS)
def test_the_walkthrough_notice_is_on_the_steps_whose_numbers_differ_from_the_texts_state_never_the_input(lang):
    """The steps' text is about river-bank with the residual on. Another state's notice is listed for the steps
    whose readout differs from that state's; the input (the same x₀ in every sentence and run) is never one
    (review-zh-32 13, 14)."""
    views = depth_map_views(lang)
    assert "notice" not in views["river-bank|on|3"]
    for key in ("river-bank|off|3", "money-bank|on|3", "money-bank|off|6"):
        view = views[key]
        steps = view["notice"]["steps"]
        assert 1 not in steps and view["steps"][0] == views["river-bank|on|" + key[-1]]["steps"][0]
        assert steps == [n for n in range(2, len(view["steps"]) + 1)
                         if view["steps"][n - 1] != views["river-bank|on|" + key[-1]]["steps"][n - 1]]
        assert steps  # every later step has other numbers here


@pytest.mark.parametrize("lang", LANGS)
def test_the_line_charts_spoken_summary_says_what_it_draws_up_to_the_depth(lang):
    """With the residual on, the lower chart draws only that line, up to the depth: its summary says those
    numbers and not the residual-off ones the lesson asks the reader to predict first; off, it says both lines,
    as both are drawn (review-zh-32 15)."""
    views = depth_map_views(lang)
    on3, off2 = views["river-bank|on|3"]["charts"]["spread"]["label"], views["river-bank|off|2"]["charts"]["spread"]["label"]
    assert on3.count("→") == 3 and "0.0" not in on3
    assert off2.count("→") == 4 and "0.0" in off2
    assert views["river-bank|on|6"]["charts"]["spread"]["label"].count("→") == 6


@pytest.mark.parametrize("lang", LANGS)
def test_with_the_residual_off_the_walkthrough_rows_name_each_sublayers_result_an_output_not_a_correction(lang):
    """On, a sublayer's Δ is a correction added to the stream; off, it replaces the stream, so the readout calls it
    that sublayer's output (review-ja-33 16). The row's numbers are the same Δ either way."""
    from babel.messages.pofile import read_po

    from conftest import CONTENT

    with open(CONTENT / lang / "messages.po", "rb") as po:
        catalog = read_po(po)
    def head(msgid, n):
        return words(catalog[msgid].string % {"n": n}).replace("\xa0", " ")

    views = depth_map_views(lang)
    off_heads = [words(r[0]).replace("\xa0", " ") for r in views["river-bank|off|3"]["steps"][1]["rows"]]
    on_heads = [words(r[0]).replace("\xa0", " ") for r in views["river-bank|on|3"]["steps"][3]["rows"]]
    assert head("Output of attention, block %(n)s", 1) in off_heads
    assert head("Δ of attention, block %(n)s", 1) not in off_heads
    assert head("Δ of attention, block %(n)s", 1) in on_heads and head("Δ of the FFN, block %(n)s", 3) in on_heads
    off_sum = [words(r[0]).replace("\xa0", " ") for r in views["river-bank|off|3"]["steps"][3]["rows"]]
    assert off_sum[0] == head("Output of the FFN, block %(n)s", 3)


@pytest.mark.parametrize("lang", LANGS)
def test_with_the_residual_off_the_walkthrough_rows_do_not_read_as_a_sum(lang):
    """Off, stream before + output ≠ stream after (0.70 + 0.25 ≠ 0.25 in ja-54 7): the first row says the stream
    is replaced and the last that it is the output, in every sublayer step and in the last step; on, they keep
    the names of a sum."""
    from babel.messages.pofile import read_po

    from conftest import CONTENT

    with open(CONTENT / lang / "messages.po", "rb") as po:
        catalog = read_po(po)
    name = {m: words(catalog[m].string).replace("\xa0", " ") for m in ("Stream before", "Stream before (replaced)",
                                                                       "Stream x", "Stream x = Δ")}
    views = depth_map_views(lang)
    for depth in (1, 3, 6):
        for n, step in enumerate(views[f"river-bank|off|{depth}"]["steps"][1:], 1):
            heads = [words(r[0]).replace("\xa0", " ") for r in step["rows"]]
            if n < len(views[f"river-bank|off|{depth}"]["steps"]) - 1:
                assert heads[0] == name["Stream before (replaced)"], (depth, n, heads)
            assert heads[-1] == name["Stream x = Δ"] and name["Stream x"] not in heads, (depth, n, heads)
        on = [words(r[0]).replace("\xa0", " ") for r in views[f"river-bank|on|{depth}"]["steps"][1]["rows"]]
        assert on[0] == name["Stream before"] and on[-1] == name["Stream x"]


def test_the_zh_off_axis_title_and_the_lesson_name_the_input_bar_as_x0_not_delta():
    """r35 B2 (review-zh-35b 3, 21): with the residual off the input bar is ‖x₀‖, no sublayer's ‖Δ‖: the y-axis
    title says so, and the lesson quotes the title as the chart shows it; the band stays in the input column (B3)."""
    from conftest import CONTENT

    views = depth_map_views("zh")
    off, on = views["river-bank|off|6"]["charts"]["main"], views["river-bank|on|6"]["charts"]["main"]
    title = words(off["y"]["title"])
    # review-zh-50 17: one pattern for on and off, no "=" as prose
    assert "子层输出 ‖Δ‖，即 ‖x‖" in title and "输入一栏为 ‖x₀‖" in title and "=" not in title
    assert title.startswith("柱高：") and words(on["y"]["title"]).startswith("柱高：") and "‖x₀‖" not in words(on["y"]["title"]).split("+")[1]
    lesson = (CONTENT / "zh" / "transformer-block.md").read_text(encoding="utf-8")
    assert f"纵轴的标题也换成了“{title}”" in lesson
    assert "色带不再横贯全图，只画在最左边的“输入”一栏（窄屏上刻度写作“x₀”）" in lesson and "那一格" not in lesson  # zh-36 12
    po = (CONTENT / "zh" / "messages.po").read_text(encoding="utf-8")
    assert "只画在最左边的“输入”一栏。" in po and "“输入”（x₀）" not in po  # review-zh-51 8: the caption shows at every width


def test_the_ja_other_sentences_legend_has_no_second_bracket_pair_and_the_bar_caption_excludes_the_band():
    """ja (r36, review-ja-36 13, 14): the legend entry follows the sentence's （title） with a colon, not a second
    pair of brackets; the measures caption says the bar's own height, without the band (on) and true off as well."""
    from babel.messages.pofile import read_po

    from conftest import CONTENT

    with open(CONTENT / "ja" / "messages.po", "rb") as po:
        catalog = read_po(po)
    meets = catalog["%(titles)s, on the same point as the picked sentence from block %(n)s on (the rings around its "
                    "dots)"].string
    # r40 (ja-40 21): two facts, two sentences; still a colon after the title, no second bracket pair
    # r41 (ja-41 19): what overlaps is the points, not the sentences
    # r42 (ja-42 15): a whole sentence after the colon; its form 「（…）」 would bring back the second pair (r36)
    # review-ja-50 5, 20: the rings from block n on sit on the picked path's point of the same number (block 2's ring
    # lies on point 3, so the number alone misled); one sentence, no 。 inside an entry that has none at its end
    # review-ja-51 17: four lines at 390 px; shorter, the rule in brackets after the colon (the colon still parts it
    # from the title's own bracket pair)
    # review-ja-54 23: a legend, two lines at 390 px: the rings lie on the picked path's points from point n on
    # review-ja-55 21, ja-56 18: what overlaps what (the rings, the picked path's points); three lines at 390 px
    assert meets == "%(titles)s：白抜きの輪（点 %(n)s 以降は選択中の点と重なる）"
    views = depth_map_views("ja")
    for key in ("river-bank|on|3", "river-bank|off|3"):
        caption = words(views[key]["twins"][1]["caption"])
        assert "は帯を除いた棒の高さ" in caption and "棒そのもの" not in caption, caption


def test_the_ja_review_50_catalog_wordings():
    """review-ja-50 18, 19, 21: weights shared out evenly, not 注目 doled out ずつ; the corner names rows and
    columns (the row labels are below it, not to the right of an arrow); the residual-off caption of the meaning
    path says the other paths are grey and dashed, as the residual-on caption does."""
    from babel.messages.pofile import read_po

    from conftest import CONTENT

    with open(CONTENT / "ja" / "messages.po", "rb") as po:
        catalog = read_po(po)
    even = catalog["In block %(n)s, “%(token)s” gives every word the same attention, %(weight)s each."].string
    assert even == "ブロック %(n)s では、%(token)s は重みをどの語にも均等に分けています（どれも約 %(weight)s）。"
    off = catalog["Residual off: each sublayer's output replaces the vector (x = Δ), so nothing of x₀ is carried "
                  "along. The paths of “%(token)s”, %(x)s across and %(y)s up; the picked sentence in colour."].string
    on = catalog["The vector of “%(token)s” after each block, in the plane of two of its dimensions: %(x)s across, "
                 "%(y)s up. One path for each example sentence, all from the same input x₀; the picked sentence in "
                 "colour, the others grey and dashed."].string
    assert off.endswith("選択中の例文は色付き、ほかは灰色の破線です。") and on.endswith("選択中の例文は色付き、ほかは灰色の破線です。")
