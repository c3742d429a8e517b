"""Chinese and Japanese typesetting: monospace code, diagrams that line up, bold next to CJK punctuation,
phrase-aware line breaks, language names in the reader's language, and search metadata."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from conftest import build_site, copy_fixture, parse

LANGS = ["zh", "ja"]
STROKES = "│┬┐┤┘▼┌└├"

DIAGRAM_COLUMNS = """(pre) => {
  // For every box-drawing stroke: its column as the text counts it (a wide character takes two) and its x.
  const out = [];
  const code = pre.querySelector('code') || pre;
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  let column = 0, line = 0, node;
  const wide = (ch) => /[\\u1100-\\u115f\\u2e80-\\ua4cf\\uac00-\\ud7a3\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uff60\\uffe0-\\uffe6]/.test(ch);
  while ((node = walker.nextNode())) {
    for (let i = 0; i < node.data.length; i++) {
      const ch = node.data[i];
      if (ch === '\\n') { line++; column = 0; continue; }
      if ('STROKES'.includes(ch)) {
        const range = document.createRange();
        range.setStart(node, i); range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        out.push([line, column, ch, r.left + r.width / 2]);
      }
      column += wide(ch) ? 2 : 1;
    }
  }
  return out;
}""".replace("STROKES", STROKES)


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_code_and_diagrams_keep_a_monospace_font(real_site, open_page, lang):
    page = open_page((real_site / lang / "ffn-residual.html").as_uri())
    for selector in ("pre", "pre code", "p code", "figure.diagram pre"):
        family = page.locator(selector).first.evaluate("e => getComputedStyle(e).fontFamily")
        assert family.startswith("ui-monospace"), (selector, family)
    body = page.locator("article p").first.evaluate("e => getComputedStyle(e).fontFamily")
    assert "Noto Sans CJK" in body and not body.startswith("ui-monospace")


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1000, 390])
def test_diagram_strokes_line_up_across_lines(real_site, open_page, lang, width):
    page = open_page((real_site / lang / "ffn-residual.html").as_uri(), viewport={"width": width, "height": 900})
    checked = 0
    for pre in page.locator("figure.diagram pre").all():
        pre.scroll_into_view_if_needed()
        by_column: dict[int, list[float]] = {}
        for line, column, ch, x in pre.evaluate(DIAGRAM_COLUMNS):
            by_column.setdefault(column, []).append(x)
        for column, xs in by_column.items():
            if len(xs) > 1:
                assert max(xs) - min(xs) < 1.0, (lang, column, xs)
                checked += 1
    assert checked >= 4  # the residual diagram and the block diagram have vertical strokes


# Off-screen lesson blocks are laid out only near the screen (content-visibility: auto), and text above
# that gets laid out moves the rest: a block measured right after scrolling to it may be skipped again.
# These tests are about the blocks' own boxes, so every block is laid out from the start.
EVERY_BLOCK_LAID_OUT = "article > * { content-visibility: visible !important; }"


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [390, 1280])
def test_a_diagram_shows_all_of_itself_without_scrolling(real_site, open_page, lang, width):
    """The residual diagram's point is at its right end ("x + Δ", the identity path's note): on a phone its
    text gets smaller until its widest line fits, instead of being cut off at the edge."""
    page = open_page((real_site / lang / "ffn-residual.html").as_uri(), viewport={"width": width, "height": 844})
    page.add_style_tag(content=EVERY_BLOCK_LAID_OUT)
    pres = page.locator("figure.diagram pre").all()
    # every `::: diagram` of the lesson (five since the post-norm one), each a captioned figure
    assert len(pres) == (Path(__file__).parents[1] / "content" / lang / "ffn-residual.md").read_text(encoding="utf-8").count("\n::: diagram ") == 5
    for pre in pres:
        pre.scroll_into_view_if_needed()
        scroll, client, right, text_right, size = pre.evaluate("""e => { const r = document.createRange(); r.selectNodeContents(e);
          const texts = [...r.getClientRects()].map(x => x.right);
          return [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().right, Math.max(...texts), parseFloat(getComputedStyle(e).fontSize)]; }""")
        assert scroll <= client and text_right <= right, (lang, width, scroll, client, text_right, right)
        assert size >= (8.5 if width == 390 else 14)  # as large as fits (full size on a desktop)
        assert pre.get_attribute("tabindex") is None  # nothing to scroll, so no tab stop


MONOSPACE_GRID = """(pre) => {
  // Every character of the block: its column as the text counts it (a wide character takes two), its left
  // edge from the start of its line (its own extent, letter spacing included; an ambiguous character's,
  // the box the build puts it in), and the width of one column (a run of zeros measured in the block's font).
  const code = pre.querySelector('code'), out = [];
  const probe = code.appendChild(document.createElement('span'));
  probe.textContent = '0'.repeat(100);
  const ch = probe.getBoundingClientRect().width / 100, start = probe.getBoundingClientRect();
  probe.remove();
  const origin = code.getBoundingClientRect().left;
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  const wide = (c) => /[\\u1100-\\u115f\\u2e80-\\ua4cf\\uac00-\\ud7a3\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uff60\\uffe0-\\uffe6]/.test(c);
  let column = 0, line = 0, node;
  while ((node = walker.nextNode())) {
    for (let i = 0; i < node.data.length; i++) {
      const c = node.data[i];
      if (c === '\\n') { line++; column = 0; continue; }
      const boxed = node.parentElement.matches('.cn');
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = boxed ? node.parentElement.getBoundingClientRect() : range.getBoundingClientRect();
      out.push([line, column, c, r.left - origin, r.width]);
      column += wide(c) ? 2 : 1;
    }
  }
  return {ch: ch, chars: out};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [1280, 390])
def test_printed_output_keeps_its_columns_with_cjk_text(real_site, open_page, lang, width):
    """What the reproduce sections' code prints mixes CJK words and numbers, one row per block: a CJK
    character takes exactly two columns of the monospace font, so every character sits on the grid of
    columns and the rows' numbers line up under each other (the block number, the vector's bracket)."""
    checked = 0
    for slug in ("transformer-block", "ffn-residual"):
        page = open_page((real_site / lang / f"{slug}.html").as_uri(), viewport={"width": width, "height": 844})
        page.add_style_tag(content=EVERY_BLOCK_LAID_OUT)
        for pre in page.locator("article pre.output, article pre.highlight:not(.diagram pre)").all():
            pre.scroll_into_view_if_needed()
            grid = pre.evaluate(MONOSPACE_GRID)
            ch, chars = grid["ch"], grid["chars"]
            if not any(unicodedata.east_asian_width(c) in "WF" for _, _, c, _, _ in chars):
                continue
            for line, column, c, x, w in chars:
                assert abs(x - column * ch) < 0.5, (slug, line, column, c, x, column * ch)
                if unicodedata.east_asian_width(c) in "WF":
                    assert abs(w - 2 * ch) < 0.5, (slug, line, c, w, ch)
            checked += 1
        if slug == "transformer-block":  # the rows of twelve blocks: the number and the "[" under each other
            rows = page.locator("article pre.output").first.evaluate(MONOSPACE_GRID)["chars"]
            first_line = min(r[0] for r in rows)  # the spreads and the equal-weights correction, before the blocks' rows
            blocks = {r[0] for r in rows if r[2] == "[" and r[0] != first_line}  # a block's row prints bank's vector
            assert len(blocks) == 12
            for first in (str.isdigit, "[".__eq__):  # the first digit of each row (its block) and its first "["
                lefts = {min(x for n, _, c, x, _ in rows if n == line and first(c)) for line in blocks}
                assert max(lefts) - min(lefts) < 0.5, lefts
    assert checked >= 3  # both output blocks and the reproduce section's code, which prints CJK words


PIXELS = """async ([b64, x, y0, y1]) => { const img = new Image(); img.src = 'data:image/png;base64,' + b64; await img.decode();
  const c = document.createElement('canvas'); c.width = img.width; c.height = img.height; const g = c.getContext('2d');
  g.drawImage(img, 0, 0); const d = g.getImageData(x, y0, 1, y1 - y0).data, out = [];
  for (let i = 0; i < d.length; i += 4) out.push(d[i] + d[i + 1] + d[i + 2]);
  return out; }"""


def edge_brightness(page, pre, side):
    """The brightest pixel of a column 3 px inside the code box's left or right edge, a little in from the
    top (where the code's first line leaves the background bare): the shade says there is more that way."""
    import base64

    box = pre.bounding_box()
    shot = page.screenshot(clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": min(box["height"], 60)})
    x = 3 if side == "left" else int(box["width"]) - 4
    return max(page.evaluate(PIXELS, [base64.b64encode(shot).decode(), x, 2, 8]))


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [390, 1280])
def test_code_wider_than_the_page_says_so_and_scrolls_by_keyboard(real_site, open_page, lang, width):
    """Code is not wrapped (that would change what it says), so a long line scrolls inside its box: the box
    is shaded at the edge where more is hidden, takes the focus, and a screen reader names it."""
    from test_browser import catalog

    page = open_page((real_site / lang / "transformer-block.html").as_uri(), viewport={"width": width, "height": 844})
    page.add_style_tag(content=EVERY_BLOCK_LAID_OUT)
    pres = page.locator("article pre:not(.diagram pre)").all()
    wide = []
    for pre in pres:
        pre.scroll_into_view_if_needed()
        if pre.evaluate("e => e.scrollWidth > e.clientWidth + 1"):
            wide.append(pre)
    assert len(wide) >= 2  # the first code block and the reproduce section's code are wider than the page
    for pre in pres:
        assert pre.get_attribute("tabindex") == "0" and pre.get_attribute("role") == "group"  # named alike: not landmarks
        name = page.locator("#" + pre.get_attribute("aria-labelledby")).text_content()
        assert name in (catalog(lang).gettext("Code"), catalog(lang).gettext("What the code above prints"))
    for pre in wide:
        pre.scroll_into_view_if_needed()
        plain = edge_brightness(page, pre, "left")  # at the start nothing is hidden on the left
        assert edge_brightness(page, pre, "right") < plain - 30  # shaded: more to the right
        pre.focus()
        for _ in range(60):  # the keyboard scrolls it to the end of its longest line
            page.keyboard.press("ArrowRight")
            if pre.evaluate("e => e.scrollLeft + e.clientWidth >= e.scrollWidth - 1"):
                break
        assert pre.evaluate("e => e.scrollLeft + e.clientWidth >= e.scrollWidth - 1")
        assert edge_brightness(page, pre, "left") < plain - 30 and abs(edge_brightness(page, pre, "right") - plain) < 10


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_lesson_title_does_not_break_inside_a_word_on_a_phone(real_site, open_page, lang):
    page = open_page((real_site / lang / "transformer-block.html").as_uri(), viewport={"width": 390, "height": 800})
    lines = page.evaluate("""() => { const h = document.querySelector('h1'); const range = document.createRange();
      range.selectNodeContents(h); return [...range.getClientRects()].map(r => Math.round(r.top)); }""")
    words = page.locator("h1").text_content().split()
    assert len(set(lines)) <= len(words)  # at most one line per word: never a break inside one


def test_inline_math_takes_its_neighbouring_cjk_punctuation_along():
    from builder.markdown import make_markdown

    html = make_markdown().render("长度（$x$）。再写 $y$，$z$ 和 $w$ 后面没有标点\n")
    assert html.count('class="math-glue"') == 2
    assert '<span class="math-glue">（<math>' in html  # the opening bracket comes along
    assert '</math>）。</span>' in html and '</math>，</span>' in html  # and every closing mark after it
    assert html.count("<math>") == 4  # math with a space or nothing beside it stays as it was
    assert "长度<span" in html and "再写 <span" in html and "</math> 和 <math>" in html


NO_LINE_STARTS_WITH_PUNCTUATION = """() => [...document.querySelectorAll('article math:not([display=block])')].flatMap(m => {
  // Inline math followed by closing punctuation (。，）): the mark sits on the math's line, never first on the next.
  const next = m.nextSibling;
  if (!next || next.nodeType !== 3 || !/^[、。，．：；！？）」』】]/.test(next.data)) return [];
  const range = document.createRange(); range.setStart(next, 0); range.setEnd(next, 1);
  const mark = range.getBoundingClientRect(), math = m.getBoundingClientRect();
  return mark.top >= math.bottom - 2 ? [next.data.slice(0, 12)] : [];
})"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_no_line_starts_with_punctuation_after_inline_math(real_site, open_page, lang):
    for name, stray in at_phone_widths(real_site, open_page, lang, NO_LINE_STARTS_WITH_PUNCTUATION):
        assert not stray, f"{lang}/{name}: a line starts with the punctuation after inline math: {stray}"


def at_phone_widths(real_site, open_page, lang, script):
    """For each lesson page: what `script` finds at any phone width from 320 to 430 px (a break that shows at one
    width only: without the fixes, 、 at 344 px, post-|norm at 390 px), each with the width it was seen at."""
    for name in ("transformer-block", "ffn-residual"):
        page = open_page((real_site / lang / f"{name}.html").as_uri(), viewport={"width": 320, "height": 800})
        found = {}
        for width in range(320, 431, 6):
            page.set_viewport_size({"width": width, "height": 800})
            found.update({text: width for text in page.evaluate(script)})
        yield name, found


@pytest.mark.parametrize("lang,expected", [("zh", "<strong>前馈网络</strong>（FFN）"),
                                           ("ja", "<strong>フィードフォワードネットワーク</strong>（FFN）")])
def test_bold_next_to_cjk_punctuation_in_the_lessons(real_site, lang, expected):
    html = (real_site / lang / "ffn-residual.html").read_text(encoding="utf-8")
    assert expected in html
    for page in ("ffn-residual", "transformer-block"):
        tree = parse(real_site / lang / f"{page}.html")
        assert not tree.css("article strong strong")  # no nesting that bolds half a sentence
        assert "**" not in tree.css_first("article").text().replace(
            "".join(n.text() for n in tree.css("article pre")), "")


def test_diagram_characters_get_their_columns(real_site):
    tree = parse(real_site / "zh" / "ffn-residual.html")
    pre = tree.css("figure.diagram pre")[2]
    wide = "".join(s.text() for s in pre.css(".cw"))  # a run of wide characters shares one box
    narrow = [s.text() for s in pre.css(".cn")]
    assert wide and all(unicodedata.east_asian_width(ch) in "WF" for ch in wide)
    assert "│" in narrow and "▼" in narrow


def test_languages_are_named_in_the_readers_language(tmp_path, content_copy):
    (content_copy / "ja" / "ffn-residual.md").unlink()
    out = build_site(content_copy, tmp_path / "dist")
    notice = parse(out / "ja" / "index.html").css_first(".lesson-list .notice").text()
    assert "中国語" in notice and "中文" not in notice
    banner = parse(out / "ja" / "ffn-residual.html").css_first(".notice").text()
    assert "中国語" in banner


def test_hreflang_alternates_are_absolute_with_a_base_url(tmp_path):
    out = build_site(copy_fixture(tmp_path / "content"), tmp_path / "dist", "--base-url", "https://example.org/repo/")
    for page in ("zh/transformer-block.html", "ja/index.html"):
        links = parse(out / page).css('link[rel="alternate"]')
        assert links and all(link.attributes["href"].startswith("https://example.org/repo/") for link in links)
    tree = parse(out / "404.html")
    assert tree.css_first(".site-title").attributes["href"] == "https://example.org/repo/index.html"
    assert {s.attributes["lang"] for s in tree.css("h1 span[lang]")} == {"zh-Hans", "ja"}


def test_a_hyphenated_word_is_set_whole_in_prose_and_captions():
    from builder.markdown import LessonRenderer
    from builder.word_glue import words

    html = LessonRenderer().render("按 pre-norm 叠 `pre-norm` 块，见 [GPT-2](#x)。<b>\n", Path("x.md"), 1, str).html
    assert '按 <span class="word">pre-norm</span> 叠 <code>pre-norm</code>' in html  # code keeps its own
    assert '<a href="#x"><span class="word">GPT-2</span></a>' in html and "&lt;b&gt;" in html  # still escaped
    assert str(words('a "pre-norm" <i>')) == 'a &#34;<span class="word">pre-norm</span>&#34; &lt;i&gt;'


@pytest.mark.parametrize("lang", LANGS)
def test_the_norm_compare_caption_keeps_post_norm_whole(real_site, lang):
    caption = parse(real_site / lang / "ffn-residual.html").css_first('#norm-compare [data-part="caption"]')
    assert [w.text() for w in caption.css(".word")] == ["pre-norm", "post-norm"]


LINES_INSIDE_HYPHENATED_WORDS = r"""() => {
  // Each hyphenated word in the lesson's text and captions (not code or math): on how many lines it sits.
  const found = [], walk = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node; (node = walk.nextNode());) {
    if (node.parentElement.closest('pre, code, math, script, .visually-hidden, [hidden]')) continue;
    for (const m of node.data.matchAll(/[0-9A-Za-z\u00C0-\u024F]+(?:-[0-9A-Za-z\u00C0-\u024F]+)+/g)) {
      const range = document.createRange(); range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) found.push(m[0] + ' in ' + node.data.slice(Math.max(0, m.index - 8), m.index + 16));
    }
  }
  return found;
}"""


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_no_line_breaks_inside_a_hyphenated_word_on_a_phone(real_site, open_page, lang):
    for name, broken in at_phone_widths(real_site, open_page, lang, LINES_INSIDE_HYPHENATED_WORDS):
        assert not broken, f"{lang}/{name}: a line breaks inside a hyphenated word: {broken}"


@pytest.mark.browser
def test_a_caption_the_state_changes_keeps_its_hyphenated_words_whole(tmp_path, open_page):
    content = copy_fixture(tmp_path / "content")
    po = content / "ja" / "messages.po"
    text = po.read_text(encoding="utf-8")
    off = "残差接続オフ：帯はグラフを横切らず、「入力」の欄にだけ描かれます。"
    assert off in text
    po.write_text(text.replace(off, "残差接続オフ（pre-norm）：帯はグラフを横切らず、「入力」の欄にだけ描かれます。"), encoding="utf-8")
    site = build_site(content, tmp_path / "dist")
    page = open_page((site / "ja" / "transformer-block.html").as_uri())
    # the page's script must be running before the switch does anything (it failed now and then under load)
    page.locator("#depth-map").scroll_into_view_if_needed()
    page.wait_for_selector("#depth-map[data-ready]")
    page.locator('#depth-map [data-control="residual"]').click()
    caption = page.locator('#depth-map [data-part="caption"]')
    page.wait_for_function("() => document.querySelector('#depth-map [data-part=\"caption\"]').textContent.includes('（pre-norm）')")
    assert caption.locator(".word").all_text_contents() == ["pre-norm"]  # set by the script, not the build


@pytest.mark.parametrize("lang", LANGS)
def test_the_identity_tables_numbers_are_right_aligned_like_the_figures_tables(real_site, lang):
    """review-ja-30 3.9: the pre-norm/post-norm identity table left-aligned its numbers; every figure table aligns right."""
    tables = parse(real_site / lang / "ffn-residual.html").css("article > table")
    table = next(t for t in tables if [th.text() for th in t.css("thead th")][-1:] == ["post-norm"])
    cells = [td for tr in table.css("tbody tr") for td in tr.css("td")]
    assert cells and all("text-align:right" in (td.attributes.get("style") or "") for td in cells)
