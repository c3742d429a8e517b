"""Search: the index the build writes, and the search box in a real Chromium, in both languages, over
file://, from the unpacked archive and under a sub-path, under the pages' Content-Security-Policy.

The site is the fixture project plus one lesson per language written for these tests: the words the
issue lists, a sentence wrapped in the middle of a word, the two characters of 学力 apart, and markup
written as text."""

from __future__ import annotations

import json
import re
import threading
import zipfile
from functools import lru_cache, partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser import ARTIFACTS
from conftest import CONTENT, build_site, copy_fixture, parse

LANGS = ["zh", "ja"]
LOCALES = {"zh": "zh_Hans", "ja": "ja"}
MARKUP = "<img src=x onerror=alert(1)>"

WORDS = {
    "zh": f"""+++
title = "检索用的词"
order = 3
summary = "为测试搜索写的一课。"
+++

这一课只为测试搜索而写。层归一化（LayerNorm）把每个位置的向量拉回同一尺度；前馈网络（FFN）在每个位置上单独加工。

## 换行的句子 {{#wrapped}}

源文件里这一句在残差
连接这个词的中间换了行，读者看到的仍是一个词。学习需要能力，但这两个字在这里并不相邻。

## 原样的标记 {{#markup}}

下面这一段是正文，不是标记：{MARKUP}。

## 公式 {{#formula}}

层归一化这样计算：

$$\\mathrm{{LayerNorm}}(x)_i = \\frac{{x_i - \\mu}}{{\\sqrt{{\\sigma^2 + \\epsilon}}}}\\, \\gamma_i + \\beta_i$$

前馈网络的宽度是 $d_{{\\text{{ff}}}} = 4\\, d_{{\\text{{model}}}}$，参数约 $2\\, d_{{\\text{{model}}}} d_{{\\text{{ff}}}}$ 个。
""",
    "ja": f"""+++
title = "検索のための語"
order = 3
summary = "検索を試すための課。"
+++

この課は検索を試すためだけにあります。層正規化（LayerNorm）は各位置のベクトルを同じ尺度に戻し、FFN は位置ごとに加工します。どのトークンも一つのベクトルを持ちます。

## 改行した文 {{#wrapped}}

ソースではこの文が残差
接続という語の途中で改行されていますが、読者には一語に見えます。学習には能力が要りますが、二つの字はここで隣り合いません。

## そのままの記号 {{#markup}}

次の段落は本文であり、タグではありません：{MARKUP}。

## 数式 {{#formula}}

層正規化はこう計算します：

$$\\mathrm{{LayerNorm}}(x)_i = \\frac{{x_i - \\mu}}{{\\sqrt{{\\sigma^2 + \\epsilon}}}}\\, \\gamma_i + \\beta_i$$

FFN の幅は $d_{{\\text{{ff}}}} = 4\\, d_{{\\text{{model}}}}$、パラメーターはおよそ $2\\, d_{{\\text{{model}}}} d_{{\\text{{ff}}}}$ 個です。
""",
}

# (language, query, page slug, section anchor, the text marked in the snippet)
FOUND = [
    ("zh", "层归一化", "search-words", "", "层归一化"),
    ("zh", "残差", "transformer-block", "", "残差"),  # a two-character word
    ("zh", "注意力", "transformer-block", "attention-view", "注意力"),
    ("zh", "LayerNorm", "search-words", "", "LayerNorm"),
    ("zh", "ffn", "search-words", "", "FFN"),
    ("zh", "残差连接", "search-words", "wrapped", "残差连接"),  # wrapped in the source between 残差 and 连接
    ("ja", "正規化", "search-words", "", "正規化"),
    ("ja", "トークン", "search-words", "", "トークン"),
    ("ja", "残差接続", "search-words", "wrapped", "残差接続"),  # wrapped in the source
    ("ja", "LayerNorm", "search-words", "", "LayerNorm"),
    ("ja", "FFN", "search-words", "", "FFN"),
]


@pytest.fixture(scope="module")
def search_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("search")
    content = copy_fixture(root / "content")
    for lang, text in WORDS.items():
        (content / lang / "search-words.md").write_text(text, encoding="utf-8")
    return build_site(content, root / "dist", "--zip")


@lru_cache(maxsize=None)
def catalog(lang):
    from builder.i18n import compile_catalog, read_catalog

    return compile_catalog(read_catalog(CONTENT / lang / "messages.po", LOCALES[lang]))


def index_of(site, lang) -> dict:
    src = parse(site / lang / "index.html").css_first("[data-search]").attributes["data-index"]
    text = (site / lang / src).read_text(encoding="utf-8")
    assert text.startswith("self.lessonSearchIndex=") and text.endswith(";\n")
    return json.loads(text[len("self.lessonSearchIndex="):-2])


# ---- The index the build writes -----------------------------------------------------------------

def test_each_language_has_an_index_named_by_its_content(search_site):
    names = {}
    for lang in LANGS:
        src = parse(search_site / lang / "transformer-block.html").css_first("[data-search]").attributes["data-index"]
        match = re.fullmatch(rf"\.\./assets/search-{lang}\.([0-9a-f]{{12}})\.js", src)
        assert match, src
        data = (search_site / "assets" / src[len("../assets/"):]).read_bytes()
        import hashlib
        assert hashlib.sha256(data).hexdigest()[:12] == match.group(1)
        names[lang] = src
    assert names["zh"] != names["ja"]
    for page in search_site.rglob("*.html"):  # every page names an index that exists, never the placeholder
        text = page.read_text(encoding="utf-8")
        assert "<<<<" not in text, page
        for src in re.findall(r'data-index="([^"]+)"', text):
            assert (page.parent / src).resolve().is_file(), (page, src)


def test_an_edit_to_a_lesson_renames_only_its_languages_index(tmp_path, search_site):
    content = copy_fixture(tmp_path / "content")
    for lang, text in WORDS.items():
        (content / lang / "search-words.md").write_text(text.replace("这一课只为", "这一课仅为"), encoding="utf-8")
    again = build_site(content, tmp_path / "dist")
    before = {p.name for p in (search_site / "assets").glob("search-*.*.js")}
    after = {p.name for p in (again / "assets").glob("search-*.*.js")}
    assert len(before - after) == 1 and [n for n in before - after if n.startswith("search-zh.")]


def test_the_index_holds_each_section_as_the_reader_sees_it(search_site):
    data = index_of(search_site, "zh")
    pages = [href for href, _ in data["pages"]]
    assert pages == ["zh/transformer-block.html", "zh/ffn-residual.html", "zh/search-words.html"]  # lesson order
    sections = {(pages[s[0]], s[1]): s for s in data["sections"]}
    wrapped = sections[("zh/search-words.html", "wrapped")]
    assert wrapped[2] == "换行的句子" and "在残差连接这个词" in wrapped[3]  # the source line break is gone
    assert MARKUP in sections[("zh/search-words.html", "markup")][3]  # as text
    walk = sections[("zh/transformer-block.html", "walkthrough")][3]
    assert "跟踪句子 by the river bank 里的 bank" in walk and "<" not in walk  # no figure markup, no tags
    assert "\u00a0" not in walk and "  " not in walk


@pytest.mark.parametrize("lang", LANGS)
def test_formulas_are_indexed_as_a_line_of_plain_text_math(search_site, lang):
    data = index_of(search_site, lang)
    formula = next(s[3] for s in data["sections"] if s[1] == "formula")
    assert "LayerNorm(x)ᵢ = (xᵢ−μ)/√(σ²+ϵ) γᵢ+βᵢ" in formula  # not "LayerNorm(x)i=xi−μσ2+ϵγi+βi"
    assert "d_ff = 4 d_model" in formula and "2 d_model d_ff" in formula  # not "dff=4dmodel", "2dmodeldff"


@pytest.mark.parametrize("tex,text", [
    (r"d_{\text{model}}", "d_model"),
    (r"x_0 + \sigma^2", "x₀+σ²"),  # Unicode's sub- and superscripts, as the lessons write x₀
    (r"W_Q, W_K", "W_Q, W_K"),
    (r"d_{\text{model}}^2", "(d_model)²"),  # not d_model², which reads d to the power model²
    (r"x_{i+1}", "x_(i+1)"),
    (r"\frac{\partial}{\partial x}", "∂/∂x"),
    (r"\frac{a + b}{\sqrt{d_k}}", "(a+b)/√dₖ"),
    (r"x \leftarrow x + \mathrm{Sublayer}(\mathrm{LayerNorm}(x))", "x ← x+Sublayer(LayerNorm(x))"),
    (r"\sum_{i=1}^{N} x_i", "∑_(i=1)^N xᵢ"),
    (r"\hat{x} \le \lVert x \rVert", "x̂ ≤ ‖x‖"),
])
def test_a_formula_as_plain_text_math(tex, text):
    from builder.mathml import latex_to_mathml, linear_text

    assert linear_text(latex_to_mathml(tex)) == text


def test_the_index_finds_candidates_by_bigram_and_word(search_site):
    data = index_of(search_site, "zh")
    keys = set()
    for group in data["bigrams"][0].split(" "):
        keys |= {group[0] + second for second in group[1:]}
    assert {"层归", "归一", "一化", "残差", "差连"} <= keys and "学力" not in keys
    words = data["words"][0].split(" ")
    assert "layernorm" in words and "ffn" in words and words == sorted(words, key=lambda w: w.encode("utf-16-be"))
    assert len(data["bigrams"][1].split(";")) == len(keys) and len(data["words"][1].split(";")) == len(words)


def test_placeholders_content_cannot_forge(tmp_path):
    """A page holds `assets/search-zh.<<<<<<<<<<<<.js` until the index is named: content can never write a raw `<`."""
    content = copy_fixture(tmp_path / "content")
    lesson = content / "zh" / "transformer-block.md"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("## 常见误区 {#mistakes}",
                      "assets/search-zh.<<<<<<<<<<<<.js `assets/search-zh.<<<<<<<<<<<<.js`\n\n## 常见误区 {#mistakes}"),
                      encoding="utf-8")
    out = build_site(content, tmp_path / "dist")
    html = (out / "zh" / "transformer-block.html").read_text(encoding="utf-8")
    text = re.sub(r'<span class="word">([^<]*)</span>', r"\1", html)  # search-zh is kept on one line in the prose
    assert text.count("assets/search-zh.&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;.js") == 2 and "<<<<" not in html


# ---- The search box in the browser ---------------------------------------------------------------

def url(site, lang, slug="transformer-block", fragment=""):
    return (site / lang / f"{slug}.html").as_uri() + fragment


def search(page, query):
    page.locator("#search-input").fill(query)
    page.wait_for_function("() => self.lessonSearchIndex")
    page.locator("#search-input").fill(query)  # again: the first may have come before the index loaded
    return results(page)


def results(page):
    return page.evaluate("""() => [...document.querySelectorAll('#search-results .search-result')].map(o => ({
      href: o.getAttribute('href'), title: o.querySelector('.search-title').textContent,
      heading: (o.querySelector('.search-heading') || {}).textContent || '',
      snippet: o.querySelector('.search-snippet').textContent,
      marks: [...o.querySelectorAll('mark')].map(m => m.textContent)}))""")


@pytest.mark.browser
@pytest.mark.parametrize("lang,query,slug,anchor,marked", FOUND)
def test_a_query_finds_its_section(search_site, open_page, lang, query, slug, anchor, marked):
    page = open_page(url(search_site, lang))
    found = search(page, query)
    hrefs = [r["href"] for r in found]
    want = f"../{lang}/{slug}.html" + (f"#{anchor}" if anchor else "")
    assert want in hrefs, hrefs
    result = found[hrefs.index(want)]
    assert marked in result["marks"]
    assert result["title"] == parse(search_site / lang / f"{slug}.html").css_first("h1").text()
    if anchor:
        assert result["heading"] == parse(search_site / lang / f"{slug}.html").css_first(f"#{anchor}").text()
    for r in found:  # every result holds the query (case aside) in its title, heading or snippet
        assert query.lower() in (r["title"] + r["heading"] + r["snippet"]).lower() or r["marks"] == [], r


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_no_result_for_a_word_whose_characters_are_only_apart(search_site, open_page, lang):
    page = open_page(url(search_site, lang, "search-words"))
    assert "学" in page.locator("article").inner_text() and "力" in page.locator("article").inner_text()
    assert search(page, "学力") == []
    assert page.locator("#search-input").get_attribute("aria-expanded") == "false"
    status = page.locator('[data-part="search-status"]')
    page.wait_for_function("(t) => document.querySelector('[data-part=search-status]').textContent === t",
                           arg=catalog(lang).gettext("No results"))
    assert status.is_visible()


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_count_of_results_is_announced(search_site, open_page, lang):
    page = open_page(url(search_site, lang))
    n = len(search(page, "FFN"))
    assert n >= 2
    expected = catalog(lang).ngettext("%(n)s result", "%(n)s results", n) % {"n": n}
    page.wait_for_function("(t) => document.querySelector('[data-part=search-status]').textContent === t", arg=expected)
    assert page.locator('[data-part="search-status"]').get_attribute("aria-live") == "polite"


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_slash_arrows_enter_and_escape_follow_the_combobox_pattern(search_site, open_page, lang):
    page = open_page(url(search_site, lang))
    box = page.locator("#search-input")
    assert page.evaluate("() => !document.querySelector('script[src*=\"search-\"]')")  # not loaded yet
    page.locator("h1").click()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.wait_for_function("() => self.lessonSearchIndex")  # loaded on the first focus
    page.keyboard.type("FFN")
    page.wait_for_selector("#search-results:not([hidden]) [role=option]")
    assert box.get_attribute("aria-expanded") == "true" and box.get_attribute("role") == "combobox"
    assert box.get_attribute("aria-controls") == "search-results"
    options = page.locator("#search-results [role=option]")
    page.keyboard.press("ArrowDown")
    assert box.get_attribute("aria-activedescendant") == options.nth(0).get_attribute("id")
    assert options.nth(0).get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowDown")
    assert box.get_attribute("aria-activedescendant") == options.nth(1).get_attribute("id")
    assert options.nth(0).get_attribute("aria-selected") == "false"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")  # from the first, up wraps to the last
    assert box.get_attribute("aria-activedescendant") == options.nth(options.count() - 1).get_attribute("id")
    page.keyboard.press("Escape")
    assert box.get_attribute("aria-expanded") == "false" and page.locator("#search-results").is_hidden()
    assert box.get_attribute("aria-activedescendant") is None and box.input_value() == "FFN"
    page.keyboard.press("Escape")
    assert box.input_value() == ""
    page.keyboard.type("残差连接这个词" if lang == "zh" else "残差接続という語")
    page.wait_for_selector("#search-results:not([hidden]) [role=option]")
    page.keyboard.press("ArrowDown")
    target = options.nth(0).get_attribute("href")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/{lang}/search-words.html#wrapped")
    assert target == f"../{lang}/search-words.html#wrapped"
    assert page.evaluate("document.querySelector(':target').id") == "wrapped"


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_search_script_loads_on_the_first_slash_and_keeps_what_was_typed_before(search_site, open_page, lang):
    page = open_page(url(search_site, lang))
    page.wait_for_load_state("load")
    assert page.evaluate("() => !document.querySelector('script[src*=\"assets/search\"]')")  # nothing of search on a first visit
    held = []  # search.js held back until the reader has typed: the query must survive its loading
    page.route("**/assets/search.js", lambda route: held.append(route))
    page.locator("h1").click()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.type("FFN")
    while not held:
        page.wait_for_timeout(10)
    assert page.evaluate("() => !self.lessonSearchIndex") and page.locator("#search-results").is_hidden()
    held[0].fallback()
    page.wait_for_selector("#search-results:not([hidden]) [role=option]")
    assert page.locator("#search-input").input_value() == "FFN"
    assert all("FFN" in r["marks"] for r in results(page)[:1])
    page.keyboard.press("ArrowDown")  # the script's own keys work from then on
    assert page.locator("#search-input").get_attribute("aria-activedescendant") == "search-result-0"
    assert page.evaluate("document.querySelectorAll('script[src$=\"assets/search.js\"]').length") == 1


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_a_click_in_the_box_loads_the_search_script(search_site, open_page, lang):
    page = open_page(url(search_site, lang, "search-words"))
    page.wait_for_load_state("load")
    page.locator("#search-input").click()
    page.wait_for_function("() => self.lessonSearchIndex")  # on focus alone, before anything is typed
    page.keyboard.type("层归一化" if lang == "zh" else "層正規化")
    page.wait_for_selector("#search-results:not([hidden]) [role=option]")


@pytest.mark.browser
def test_a_click_on_a_result_opens_its_section(search_site, open_page):
    page = open_page(url(search_site, "ja", "ffn-residual"))
    search(page, "層正規化")
    page.locator("#search-results [role=option]").first.click()
    page.wait_for_url("**/ja/search-words.html")


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_markup_in_a_lesson_is_shown_as_text_in_the_results(search_site, open_page, lang):
    page = open_page(url(search_site, lang))
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    found = search(page, "onerror")
    assert len(found) == 1 and MARKUP in found[0]["snippet"] and found[0]["marks"] == ["onerror"]
    assert page.locator("#search-results img").count() == 0 and page.locator("img").count() == 0
    assert dialogs == []


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_a_snippet_shows_a_formula_as_readable_text(search_site, open_page, lang):
    page = open_page(url(search_site, lang))
    found = search(page, "d_model")
    assert [r["href"] for r in found] == [f"../{lang}/search-words.html#formula"]
    assert "d_ff = 4 d_model" in found[0]["snippet"] and found[0]["marks"] == ["d_model", "d_model"]
    (result,) = [r for r in search(page, "σ²+ϵ") if r["href"].endswith("#formula")]
    assert "(xᵢ−μ)/√(σ²+ϵ)" in result["snippet"] and result["marks"] == ["σ²+ϵ"]


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_a_query_that_is_a_whole_heading_or_title_ranks_it_first(real_site, open_page, lang):
    """残差连接 is a heading, and in the text of other sections more often than in its own."""
    data = index_of(real_site, lang)
    page = open_page(url(real_site, lang))
    queries = [(title, {f"../{href}"}) for href, title in data["pages"]]
    for _, anchor, heading, _ in data["sections"]:
        if heading:  # a heading may be used twice (each lesson's reproduce section): either is first
            queries.append((heading, {f"../{data['pages'][s[0]][0]}#{s[1]}" for s in data["sections"] if s[2] == heading}))
    assert len(queries) > 20
    for query, wanted in queries:
        if query in {title for _, title in data["pages"]}:
            wanted = {f"../{href}" for href, title in data["pages"] if title == query}  # a title over a heading
        found = search(page, query)
        assert found and found[0]["href"] in wanted, (query, found[:1], wanted)
    title = " " + data["pages"][0][1].replace(" ", "  ") + " "  # as typed, with more spaces
    assert search(page, title)[0]["href"] == f"../{data['pages'][0][0]}"


@pytest.fixture(scope="module")
def many_site(tmp_path_factory):
    """The fixture project and a lesson of 24 sections, each with the same rare word (冗余 / 冗長)."""
    root = tmp_path_factory.mktemp("many")
    content = copy_fixture(root / "content")
    for lang, word in (("zh", "冗余"), ("ja", "冗長")):
        sections = "".join(f"\n## {word} {n} {{#part-{n}}}\n\n{word}之{n}。\n" for n in range(1, 25))
        (content / lang / "many.md").write_text(f'+++\ntitle = "{word}"\norder = 3\nsummary = "{word}。"\n+++\n\n{word}。\n'
                                                + sections, encoding="utf-8")
    return build_site(content, root / "dist")


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_a_long_list_says_it_shows_the_best_and_shows_the_rest_on_request(many_site, open_page, lang):
    word = {"zh": "冗余", "ja": "冗長"}[lang]
    page = open_page(url(many_site, lang))
    found = search(page, word)
    n = 25  # the lesson's first section and its 24 headed ones
    assert len(found) == 20
    more = page.locator("#search-results #search-more")
    assert more.get_attribute("role") == "option"
    assert more.text_content() == catalog(lang).ngettext("Show all %(n)s result", "Show all %(n)s results", n) % {"n": n}
    shown = catalog(lang).ngettext("The best %(shown)s of %(n)s result", "The best %(shown)s of %(n)s results", n)
    assert "20" not in shown and str(n) not in shown  # the numbers come from the placeholders
    page.wait_for_function("(t) => document.querySelector('[data-part=search-status]').textContent === t",
                           arg=shown % {"n": n, "shown": 20})
    page.keyboard.press("ArrowUp")  # from the box, up goes to the last option: the one that shows them all
    assert page.locator("#search-input").get_attribute("aria-activedescendant") == "search-more"
    page.keyboard.press("Enter")
    assert len(results(page)) == n and page.locator("#search-more").count() == 0
    assert page.locator("#search-input").get_attribute("aria-activedescendant") == "search-result-20"  # the 21st
    page.wait_for_function("(t) => document.querySelector('[data-part=search-status]').textContent === t",
                           arg=catalog(lang).ngettext("%(n)s result", "%(n)s results", n) % {"n": n})
    page.locator("#search-input").fill(word + " 1")  # a new query: 1 and 10-19, all shown
    assert len(results(page)) == 11 and page.locator("#search-more").count() == 0
    page.locator("#search-input").fill(word)
    assert len(results(page)) == 20
    page.locator("#search-more").click()  # and with the mouse
    assert len(results(page)) == n and page.evaluate("document.activeElement.id") == "search-input"


@pytest.mark.browser
def test_search_works_from_the_unpacked_archive(search_site, open_page, tmp_path):
    with zipfile.ZipFile(search_site / "offline.zip") as archive:
        archive.extractall(tmp_path)
    page = open_page(url(tmp_path / "site", "ja"))
    found = search(page, "正規化")
    assert found and page.evaluate("document.querySelector('script[src*=\"search-ja.\"]').src").startswith(
        (tmp_path / "site" / "assets").as_uri())
    page.locator("#search-results [role=option]").first.click()
    page.wait_for_url((tmp_path / "site").as_uri() + "/ja/*")


@pytest.mark.browser
def test_search_works_under_a_sub_path(search_site, open_page):
    handler = partial(SimpleHTTPRequestHandler, directory=str(search_site.parent))
    handler.log_message = lambda *a: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/{search_site.name}/"
    try:
        page = open_page(base + "zh/ffn-residual.html", allowed_prefix=base)
        found = search(page, "层归一化")
        assert found
        page.locator("#search-results [role=option]").first.click()
        page.wait_for_url(base + "zh/search-words.html")
    finally:
        server.shutdown()


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_screenshots_of_results_are_saved(search_site, open_page, lang):
    ARTIFACTS.mkdir(exist_ok=True)
    for width, name in ((1000, "desktop"), (390, "phone")):
        page = open_page(url(search_site, lang), viewport={"width": width, "height": 800})
        search(page, "残差")
        page.keyboard.press("ArrowDown")
        path = ARTIFACTS / f"search-{lang}-{name}.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 10_000
        box = page.locator("#search-results").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1  # the panel stays on the screen


def test_every_language_page_has_its_search_and_the_pages_of_no_language_have_none(real_site):
    """The entry page and the 404 belong to no language: a box there would search one language in the other's words."""
    for name in ("index.html", "404.html"):
        assert parse(real_site / name).css_first("[data-search]") is None, name
    for page in sorted(real_site.glob("*/*.html")):
        box = parse(page).css_first("[data-search]")
        assert box is not None and box.attributes["data-lang"] == parse(page).css_first("html").attributes["lang"], page


def test_a_formula_drops_the_rows_that_only_wrap_one_token_or_the_whole_formula():
    """latex2mathml wraps each group in an <mrow>; a row around one identifier, number or text, and the row that is a
    formula's only child, draw the same without it. A row around an operator stays: <mo>'s form (prefix, infix,
    postfix) depends on its place in its row."""
    from builder.mathml import latex_to_mathml, linear_text

    assert latex_to_mathml(r"\gamma") == "<math><mi>γ</mi></math>"
    assert latex_to_mathml(r"\Delta_{\text{attn}}") == "<math><msub><mi>Δ</mi><mtext>attn</mtext></msub></math>"
    assert latex_to_mathml(r"\mathrm{softmax}(z)").startswith("<math><mi>softmax</mi><mo")
    assert linear_text(latex_to_mathml(r"x_{0}")) == "x₀" and linear_text(latex_to_mathml(r"W_{V}")) == "W_V"
    assert latex_to_mathml(r"a^{-1}") == "<math><msup><mi>a</mi><mrow><mo>−</mo><mn>1</mn></mrow></msup></math>"
    assert latex_to_mathml(r"x^{+}").count("<mrow><mo>") == 1  # the lone operator keeps its row
