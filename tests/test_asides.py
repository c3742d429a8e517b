"""Asides: `::: aside Title` … `:::` sets a digression apart as a titled note the reader may skip; it
renders as a note (not a landmark), its words are searched like the text around it, and a missing title
or a heading inside one is reported with its file and line; a fold (`::: details Title`) alike, closed until opened."""

from __future__ import annotations

import pytest

from conftest import build_site, copy_fixture, parse

ASIDE = {"zh": "::: aside 延伸：<b>秩</b>坍缩\n只有注意力时，各行会趋于**相同**，$d_k$ 也救不了它。\n\n- 第一条\n:::\n",
         "ja": "::: aside 補足：<b>ランク</b>の崩壊\nアテンションだけでは行が**そろって**いき、$d_k$ でも防げません。\n\n- 一つ目\n:::\n"}


def append(path, text) -> int:
    """Append `text` to a lesson; return the file line its first line lands on."""
    before = path.read_text(encoding="utf-8")
    path.write_text(before.rstrip("\n") + "\n\n" + text, encoding="utf-8")
    return before.rstrip("\n").count("\n") + 3


FOLD = {"zh": "::: details 参考<b>答案</b>\n1. 只在**注意力**里。\n:::\n", "ja": "::: details <b>答え</b>\n1. **アテンション**だけです。\n:::\n"}


@pytest.fixture(scope="module")
def aside_site(tmp_path_factory):
    """The fixture project with an aside and a fold at the end of each language's lesson."""
    root = tmp_path_factory.mktemp("asides")
    content = copy_fixture(root / "content")
    for lang in ASIDE:
        append(content / lang / "transformer-block.md", ASIDE[lang] + "\n" + FOLD[lang])
    return build_site(content, root / "dist")


def problems_of(content, out):
    from builder.errors import UserError

    with pytest.raises(UserError) as raised:
        build_site(content, out)
    return [str(p) for p in raised.value.problems if p.severity != "warning"]


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_an_aside_is_a_titled_note_holding_the_lessons_own_markdown(aside_site, lang):
    page = parse(aside_site / lang / "transformer-block.html")
    aside = page.css_first("article aside.aside-note")
    assert aside is not None and aside.attributes.get("role") == "note"  # a note on the text, not a landmark
    title = aside.css_first(".aside-title")
    assert title.text() == ASIDE[lang].split("\n")[0].removeprefix("::: aside ")  # escaped: the <b> is text
    assert aside.css_first("strong") is not None and aside.css_first("math") is not None and aside.css_first("li")
    assert "<b>" not in aside.html.replace("&lt;b&gt;", "")


def test_the_search_index_holds_an_asides_words(aside_site):
    from test_search import index_of

    index = index_of(aside_site, "zh")
    assert any("只有注意力时" in section[3] and "延伸" in section[3] for section in index["sections"])


@pytest.mark.parametrize("container,what", [("aside", "an aside"), ("details", "a fold")])
def test_an_aside_or_a_fold_without_a_title_names_its_file_and_line(tmp_path, container, what):
    content = copy_fixture(tmp_path / "content")
    path = content / "zh" / "transformer-block.md"
    line = append(path, f"::: {container}\n一段话。\n:::\n")
    assert problems_of(content, tmp_path / "dist") == [f"{path}:{line}: {what} needs a title: `::: {container} Title`"]


@pytest.mark.parametrize("container", ["aside", "details"])
def test_a_heading_inside_an_aside_or_a_fold_is_reported_with_its_line(tmp_path, container):
    content = copy_fixture(tmp_path / "content")
    path = content / "zh" / "transformer-block.md"
    line = append(path, f"::: {container} 说明\n一段话。\n\n### 小节 {{#inner}}\n:::\n")
    problems = problems_of(content, tmp_path / "dist")
    assert any(p.startswith(f"{path}:{line + 3}: a heading inside `::: {container}`") for p in problems), problems




@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_a_fold_is_closed_until_the_reader_opens_it_and_its_title_is_the_summary(aside_site, lang):
    page = parse(aside_site / lang / "transformer-block.html")
    fold = page.css_first("article details.fold")
    assert fold is not None and "open" not in fold.attributes  # the answers wait until asked for
    assert fold.css_first("summary").text() == FOLD[lang].split("\n")[0].removeprefix("::: details ")  # escaped
    assert fold.css_first("li strong") is not None
    assert "<b>" not in fold.html


def test_the_search_index_holds_a_folds_words(aside_site):
    from test_search import index_of

    index = index_of(aside_site, "zh")
    assert any("只在注意力里" in section[3] for section in index["sections"])
