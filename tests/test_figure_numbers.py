"""Figure numbers: diagrams and interactive figures numbered per page ("图 1" / "図 1", from the catalogs), a
label at the end of a figure's `:::` line (`{#fig-name}`), and `@fig-name` in the prose printing the
number as a link to the figure; what goes wrong is reported with its file and line, and the translations
keep the source's labels."""

from __future__ import annotations

from functools import lru_cache

import pytest

from conftest import CONTENT, build_site, copy_fixture, parse

LANGS = ["zh", "ja"]
LOCALES = {"zh": "zh_Hans", "ja": "ja"}
WORD = {"zh": "图", "ja": "図"}

# The fixture's transformer-block places the depth map, the meaning path, the attention view and one
# diagram, in that order. These edits label the first and the last, and refer to each from far away:
# to the diagram from above the depth map, to the depth map from the end of the page.
EDITS = {
    "zh": [("::: interactive depth-map\n", "::: interactive depth-map {#fig-depth}\n"),
           ("::: diagram 残差连接\n", "::: diagram 残差连接 {#fig-residual}\n"),
           ("里的 bank。\n", "里的 bank（加法的形状见@fig-residual）。\n"),
           ("## 常见误区 {#mistakes}", "数字见@fig-depth。\n\n## 常见误区 {#mistakes}")],
    "ja": [("::: interactive depth-map\n", "::: interactive depth-map {#fig-depth}\n"),
           ("::: diagram 残差接続\n", "::: diagram 残差接続 {#fig-residual}\n"),
           ("の bank を追います。\n", "の bank を追います（足し算の形は@fig-residual）。\n"),
           ("## よくある間違い {#mistakes}", "数字は@fig-depth にあります。\n\n## よくある間違い {#mistakes}")],
}


def edit(content, lang, slug, pairs):
    path = content / lang / f"{slug}.md"
    text = path.read_text(encoding="utf-8")
    for old, new in pairs:
        assert old in text, (path, old)
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def numbered_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("figures")
    content = copy_fixture(root / "content")
    for lang, pairs in EDITS.items():
        edit(content, lang, "transformer-block", pairs)
    return build_site(content, root / "dist")


@lru_cache(maxsize=None)
def figure_word(lang: str, n: int) -> str:
    from builder.i18n import compile_catalog, read_catalog

    return compile_catalog(read_catalog(CONTENT / lang / "messages.po", LOCALES[lang])).gettext("Figure %(n)s") % {"n": n}


def problems_of(content, out):
    from builder.errors import UserError

    with pytest.raises(UserError) as raised:
        build_site(content, out)
    return [str(p) for p in raised.value.problems if p.severity != "warning"]


# ---- The build -------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_figures_are_numbered_in_page_order_with_the_catalogs_word(numbered_site, lang):
    page = parse(numbered_site / lang / "transformer-block.html")
    numbers = [node.text() for node in page.css("figure .figure-number")]
    assert numbers == [figure_word(lang, n) for n in range(1, 5)]
    assert numbers[0] == f"{WORD[lang]} 1"  # translated, not the English msgid
    figures = page.css("article figure")
    assert [f.attributes.get("id") for f in figures] == ["depth-map", "meaning-path", "attention", "fig-residual"]
    # the interactive figure's number is part of its title, so of its accessible name
    assert page.css_first("#depth-map-title").text().startswith(f"{WORD[lang]} 1")
    assert page.css_first("#fig-residual figcaption").text().startswith(f"{WORD[lang]} 4")


@pytest.mark.parametrize("lang", LANGS)
def test_the_numbers_start_again_on_every_page(numbered_site, lang):
    page = parse(numbered_site / lang / "ffn-residual.html")
    assert [node.text() for node in page.css("figure .figure-number")] == [f"{WORD[lang]} 1"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_reference_prints_the_number_as_a_link_to_the_figure(numbered_site, lang):
    page = parse(numbered_site / lang / "transformer-block.html")
    refs = [(a.text(), a.attributes["href"]) for a in page.css("a.figure-ref")]
    assert refs == [(f"{WORD[lang]} 4", "#fig-residual"), (f"{WORD[lang]} 1", "#depth-map")]
    for _, href in refs:  # each lands on a figure of the page
        assert page.css_first(href).tag == "figure"
    assert "@fig-" not in page.css_first("article").text()


def test_the_search_index_keeps_a_labelled_diagrams_caption_not_its_drawing(numbered_site):
    from test_search import index_of

    index = index_of(numbered_site, "zh")
    page = [href for href, _ in index["pages"]].index("zh/transformer-block.html")
    text = next(s[3] for s in index["sections"] if s[0] == page and s[1] == "residual-off")
    assert "图 4 残差连接" in text and "──►" not in text


def test_a_reference_to_a_missing_label_names_its_file_and_line(tmp_path):
    content = copy_fixture(tmp_path / "content")
    path = edit(content, "zh", "transformer-block", [("## 常见误区 {#mistakes}", "见@fig-nowhere。\n\n## 常见误区 {#mistakes}")])
    line = path.read_text(encoding="utf-8").splitlines().index("见@fig-nowhere。") + 1
    problems = problems_of(content, tmp_path / "dist")
    assert problems == [f"{path}:{line}: @fig-nowhere refers to no figure of this page: end the figure's `:::` line "
                        "with {#fig-nowhere}"]


def test_a_label_names_the_labels_the_page_has_when_a_reference_misses(tmp_path):
    content = copy_fixture(tmp_path / "content")
    edit(content, "zh", "transformer-block", [("::: interactive depth-map\n", "::: interactive depth-map {#fig-depth}\n"),
                                              ("## 常见误区 {#mistakes}", "见@fig-dept。\n\n## 常见误区 {#mistakes}")])
    problems = problems_of(content, tmp_path / "dist")
    assert len(problems) == 1 and problems[0].endswith("(labels on this page: fig-depth)")


@pytest.mark.parametrize("label", ["depth", "fig-", "fig-Depth", "fig_depth"])
def test_a_label_is_fig_then_lower_case_words(tmp_path, label):
    content = copy_fixture(tmp_path / "content")
    path = edit(content, "zh", "transformer-block", [("::: interactive depth-map\n", f"::: interactive depth-map {{#{label}}}\n")])
    line = path.read_text(encoding="utf-8").splitlines().index(f"::: interactive depth-map {{#{label}}}") + 1
    problems = problems_of(content, tmp_path / "dist")
    assert problems == [f"{path}:{line}: {{#{label}}} is not a figure label: write `{{#fig-name}}` (lower-case letters, "
                        "digits and hyphens after fig-)"]


def test_a_label_used_twice_is_an_error(tmp_path):
    content = copy_fixture(tmp_path / "content")
    path = edit(content, "zh", "transformer-block", [("::: interactive depth-map\n", "::: interactive depth-map {#fig-x}\n"),
                                                     ("::: diagram 残差连接\n", "::: diagram 残差连接 {#fig-x}\n")])
    lines = path.read_text(encoding="utf-8").splitlines()
    first, second = lines.index("::: interactive depth-map {#fig-x}") + 1, lines.index("::: diagram 残差连接 {#fig-x}") + 1
    assert problems_of(content, tmp_path / "dist") == [
        f"{path}:{second}: the figure label {{#fig-x}} is used twice on the page (also on line {first})"]


def test_a_reference_in_a_heading_is_an_error(tmp_path):
    content = copy_fixture(tmp_path / "content")
    path = edit(content, "zh", "transformer-block", [("::: interactive depth-map\n", "::: interactive depth-map {#fig-depth}\n"),
                                                     ("## 常见误区 {#mistakes}", "## @fig-depth 的误区 {#mistakes}")])
    line = path.read_text(encoding="utf-8").splitlines().index("## @fig-depth 的误区 {#mistakes}") + 1
    problems = problems_of(content, tmp_path / "dist")
    assert len(problems) == 1 and problems[0].startswith(f"{path}:{line}: @fig-depth in a heading")


def test_an_at_sign_inside_a_word_or_code_is_text(tmp_path):
    content = copy_fixture(tmp_path / "content")
    edit(content, "zh", "transformer-block", [("## 常见误区 {#mistakes}",
                                               "写信到 lessons@fig-depth.example 或看 `@fig-depth`。\n\n## 常见误区 {#mistakes}")])
    out = build_site(content, tmp_path / "dist")
    page = parse(out / "zh" / "transformer-block.html")
    assert not page.css("a.figure-ref")
    assert "lessons@fig-depth.example" in page.css_first("article").text()


def test_a_translation_keeps_the_sources_labels(tmp_path):
    """The fixture's Japanese lessons are current: a label the source does not have is an error there."""
    content = copy_fixture(tmp_path / "content")
    path = edit(content, "ja", "transformer-block", [("::: diagram 残差接続\n", "::: diagram 残差接続 {#fig-residual}\n")])
    line = path.read_text(encoding="utf-8").splitlines().index("::: diagram 残差接続 {#fig-residual}") + 1
    source = content / "zh" / "transformer-block.md"
    source_line = source.read_text(encoding="utf-8").splitlines().index("::: diagram 残差连接") + 1
    assert problems_of(content, tmp_path / "dist") == [
        f"{path}:{line}: figure 4 is labelled {{#fig-residual}} but {source}:{source_line} has it without a label"]


def test_a_translation_keeps_every_figure(tmp_path):
    content = copy_fixture(tmp_path / "content")
    path = edit(content, "ja", "transformer-block", [("::: diagram 残差接続\n```text\nx ──► [サブレイヤー] ──► ( + ) ──► x + f(x)\n```\n:::\n", "")])
    problems = problems_of(content, tmp_path / "dist")
    assert len(problems) == 1 and problems[0].startswith(f"{path}:") and "3 figures (`::: diagram` and `::: interactive`) " \
        f"but {content / 'zh' / 'transformer-block.md'} has 4" in problems[0]


# ---- In the browser --------------------------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_number_shows_in_each_caption(numbered_site, open_page, lang):
    page = open_page((numbered_site / lang / "transformer-block.html").as_uri())
    for selector, n in (("#depth-map", 1), ("#meaning-path", 2), ("#attention", 3), ("#fig-residual", 4)):
        number = page.locator(f"{selector} .figure-number").first
        number.scroll_into_view_if_needed()  # innerText is what is drawn: off-screen sections may not be yet
        assert number.is_visible()
        assert number.inner_text() == f"{WORD[lang]} {n}"
        box = number.bounding_box()  # one line: the word and the number are never broken apart
        assert box["height"] < 2 * float(number.evaluate("e => parseFloat(getComputedStyle(e).lineHeight) || 30"))


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("n,target", [(4, "fig-residual"), (1, "depth-map")])
def test_a_reference_link_lands_on_its_figure(numbered_site, open_page, lang, n, target):
    page = open_page((numbered_site / lang / "transformer-block.html").as_uri(), viewport={"width": 390, "height": 740})
    link = page.locator("a.figure-ref", has_text=f"{WORD[lang]} {n}")
    link.scroll_into_view_if_needed()
    figure = page.locator(f"#{target}")
    assert not in_view(page, figure), "the figure is already on the screen: the test would prove nothing"
    link.click()
    page.wait_for_function(f"() => location.hash === '#{target}'")
    page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => r(true)))")
    assert in_view(page, figure)
    assert page.evaluate(f"() => document.querySelector(':target') === document.getElementById('{target}')")


def in_view(page, locator) -> bool:
    """The top of the element is on the screen."""
    top = locator.evaluate("e => e.getBoundingClientRect().top")
    return -1 <= top < page.evaluate("() => innerHeight")  # -1: the browser may land a fraction of a pixel above
