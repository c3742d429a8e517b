"""The lessons: every section of the seeds, figures from the trace, code, math, and zh/ja parity.

Tests named for a lesson read the real content; tests of the checks break the fixture project."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
import sys

import pytest

from conftest import ROOT, build_site, parse, trace_values

TRANSFORMER_SECTIONS = ["two-updates", "walkthrough", "unrolled-sum", "second-sense", "residual-off", "why-residuals", "norm-vs-skip",
                        "edge-cases", "mistakes", "reproduce", "scope", "self-check"]  # and the reader's own recomputation, and questions to check oneself
FFN_SECTIONS = ["position-wise-ffn", "why-expand", "per-position", "residual", "why-residual", "layernorm",
                "layernorm-vs-batchnorm", "pre-vs-post", "assemble", "division-of-labour", "summary", "reproduce", "next",
                "references"]

# The seeds' figures, as the lesson prints them (one decimal, U+2212 minus).
SEED_FIGURES = {
    "on:b0": "[0.3, 0.3, 0.0, 1.0]",
    "on:b1.attention": "[0.7, \u22120.3, \u22120.2, 0.0]",
    "on:b1.attention.after": "[1.0, 0.0, \u22120.2, 1.0]",
    "on:b1.attention top": "river",
    "on:b1.ffn": "[0.3, \u22120.1, \u22120.2, 0.2]",
    "on:b1": "[1.3, \u22120.1, \u22120.4, 1.2]",
    "on:b2": "[2.3, \u22120.6, \u22120.6, 1.4]",
    "on:b3": "[3.4, \u22121.2, \u22120.8, 1.5]",
    "on:b0-3 geography": "0.3 \u2192 1.3 \u2192 2.3 \u2192 3.4",
    "off:b6 length": "0.4",
}


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "builder", *args], cwd=ROOT, capture_output=True, text=True)


def section_ids(tree):
    return [h.attributes["id"] for h in tree.css("article > h2[id], article > h3[id]")]


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_transformer_block_has_every_section_of_the_seeds(real_site, lang):
    assert section_ids(parse(real_site / lang / "transformer-block.html")) == TRANSFORMER_SECTIONS


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_ffn_residual_has_every_section_of_the_seed(real_site, lang):
    assert section_ids(parse(real_site / lang / "ffn-residual.html")) == FFN_SECTIONS


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_lesson_figures_are_the_seeds_figures(real_site, lang):
    printed = trace_values(real_site, lang, "transformer-block")
    for ref, figure in SEED_FIGURES.items():
        if ref not in printed and f"{ref}:.2" in printed:  # printed to two decimals (step 2, review zh-19 4.2)
            numbers = printed[f"{ref}:.2"].strip("[]").replace("\u2212", "-").split(", ")
            shown = "[" + ", ".join(f"{float(n):.1f}".replace("-0.0", "0.0") for n in numbers) + "]"
            assert shown.replace("-", "\u2212") == figure, ref
            continue
        assert printed[ref] == figure, ref


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_walkthrough_has_the_six_steps(real_site, lang):
    tree = parse(real_site / lang / "transformer-block.html")
    assert len(tree.css("#walkthrough-steps > ol > li")) == 6


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_dimension_labels_are_said_to_be_this_examples_only(real_site, lang):
    assert {"zh": "这只是给本例起的名字", "ja": "この例のための名前"}[lang] in parse(real_site / lang / "transformer-block.html").text()


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_code_listings_are_highlighted_at_build_time(real_site, lang):
    tree = parse(real_site / lang / "ffn-residual.html")
    listings = [pre for pre in tree.css("pre.highlight") if pre.attributes.get("data-lang") == "python"]
    assert len(listings) == 3  # the seed's two, and the snippet that reproduces the figures (tests/test_reproduce.py)
    assert all(pre.css("span.k, span.kn, span.nc") for pre in listings)
    assert "class PositionwiseFFN" in listings[0].text() and "class PreNormBlock" in listings[1].text()
    assert "PyTorch" in tree.text()


def test_a_token_that_looks_like_the_code_around_it_gets_no_span_of_its_own():
    import re

    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    from builder.markdown import _highlighted

    code = "import numpy as np\nx = norm(x)  # 残差\nfor block in blocks:\n    x = x + block(x)\n"
    ours, theirs = _highlighted(code, "python"), highlight(code, PythonLexer(), HtmlFormatter(nowrap=True))
    assert 'class="n"' in theirs and 'class="p"' in theirs and 'class="w"' in theirs
    assert 'class="n"' not in ours and 'class="p"' not in ours and 'class="w"' not in ours  # names, ( ) : and spaces
    assert '<span class="k">for</span>' in ours and '<span class="o">=</span>' in ours and 'class="c1"' in ours
    assert re.sub("<[^>]+>", "", ours) == re.sub("<[^>]+>", "", theirs)  # the same text


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_formulas_are_mathml_and_no_dollar_is_left(real_site, lang):
    for slug in ("transformer-block", "ffn-residual"):
        tree = parse(real_site / lang / f"{slug}.html")
        assert tree.css("math")
        assert "$" not in tree.css_first("article").text()
    ffn = parse(real_site / lang / "ffn-residual.html")
    assert any("γ" in m.text() and "β" in m.text() for m in ffn.css('math[display="block"]'))  # the layer norm formula, whatever it is named


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_diagrams_are_captioned_figures(real_site, lang):
    figures = parse(real_site / lang / "ffn-residual.html").css("figure.diagram")
    # every `::: diagram` of the lesson (five since the post-norm one), each a captioned figure
    assert len(figures) == (Path(__file__).parents[1] / "content" / lang / "ffn-residual.md").read_text(encoding="utf-8").count("\n::: diagram ") == 5
    assert all(f.css_first("figcaption").text().strip() and f.css_first("pre") for f in figures)


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_missing_seed_pages_are_replaced_by_links_to_our_lessons(real_site, lang):
    hrefs = {a.attributes["href"] for a in parse(real_site / lang / "ffn-residual.html").css("article a")}
    assert "transformer-block.html" in hrefs


def break_and_check(content, lang, slug, old, new):
    path = content / lang / f"{slug}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = run_cli("check", "--content", str(content))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    return path, result.stderr.splitlines(), text.replace(old, new, 1).splitlines()


def line_of(lines, needle):
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_a_figure_typed_into_the_text_fails_with_file_and_line(content_copy):
    path, errors, lines = break_and_check(content_copy, "zh", "transformer-block", "长度约为 {{off:b6 length}}。", "长度约为 0.4。")
    line = line_of(lines, "长度约为 0.4。")
    assert any(e.startswith(f"{path}:{line}: figure '0.4' typed into the text") for e in errors), errors


def test_a_bad_trace_reference_fails_with_file_and_line(content_copy):
    path, errors, lines = break_and_check(content_copy, "ja", "transformer-block", "{{on:b2}}", "{{on:b9}}")
    line = line_of(lines, "{{on:b9}}")
    assert any(e.startswith(f"{path}:{line}:") and "out of range" in e for e in errors), errors
    assert any(e.startswith(f"{path}:{line}: figures differ") and "extra {{on:b9}}" in e for e in errors), errors


def test_unterminated_math_fails_with_file_and_line(content_copy):
    broken = "展开成 $x_N = x_0 + \\sum \\Delta："
    path, errors, lines = break_and_check(content_copy, "zh", "transformer-block", "展开成 $x_N = x_0 + \\sum \\Delta$：", broken)
    line = line_of(lines, broken)
    assert any(e.startswith(f"{path}:{line}: unterminated math") for e in errors), errors


def test_parity_reports_a_missing_section(content_copy):
    path, errors, lines = break_and_check(content_copy, "ja", "transformer-block", "## よくある間違い {#mistakes}", "## よくある間違い {#errors}")
    at = f"{path}:{line_of(lines, '{#errors}')}: "
    assert any(e.startswith(at + "missing section h2 #mistakes") for e in errors), errors
    assert any(e.startswith(at + "section h2 #errors is not in") for e in errors), errors


def test_parity_reports_a_different_figure(content_copy):
    path, errors, _ = break_and_check(content_copy, "ja", "transformer-block", "約 {{on:b3}}", "約 {{on:b2}}")
    assert any(e.startswith(f"{path}:") and "figures differ" in e and "missing {{on:b3}}" in e for e in errors), errors


def test_parity_reports_a_missing_walkthrough_step(content_copy):
    old = "3. **ブロック 1 の FFN**"
    path = content_copy / "ja" / "transformer-block.md"
    text = path.read_text(encoding="utf-8")
    start = text.index(old)
    end = text.index("4. **ブロック 2**")
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    errors = run_cli("check", "--content", str(content_copy)).stderr
    assert "5 walkthrough steps but" in errors
    assert "the walkthrough list has 5 steps but the front matter names 6" in errors


def test_heading_without_stable_id_fails(content_copy):
    path, errors, lines = break_and_check(content_copy, "zh", "transformer-block", "## 常见误区 {#mistakes}", "## 常见误区")
    assert any(e.startswith(f"{path}:{line_of(lines, '## 常见误区')}: heading") and "stable id" in e for e in errors), errors


def test_raw_html_in_lessons_is_shown_as_text(tmp_path, content_copy):
    from conftest import build_site

    path = content_copy / "zh" / "transformer-block.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("## 常见误区 {#mistakes}", '<script>alert(1)</script> <img src=x onerror="alert(2)">\n'
                                 '[click](javascript:alert(3))\n\n## 常见误区 {#mistakes}'), encoding="utf-8")
    out = build_site(content_copy, tmp_path / "dist")
    tree = parse(out / "zh" / "transformer-block.html")
    assert not tree.css("article script:not([type=\"application/json\"])") and not tree.css("article img")
    assert not [a for a in tree.css("article a") if a.attributes.get("href", "").startswith("javascript:")]
    assert "<script>alert(1)</script>" in tree.css_first("article").text()


def test_glossary_terms_are_used_in_each_language():
    import tomllib

    glossary = tomllib.loads((ROOT / "content" / "glossary.toml").read_text(encoding="utf-8"))
    for term in glossary["terms"]:
        for lang in ("zh", "ja"):
            lessons = " ".join((ROOT / "content" / lang / name).read_text(encoding="utf-8")  # a term may be a figure's
                               for name in ("transformer-block.md", "ffn-residual.md", "messages.po"))  # (測った時点)
            assert term[lang] in lessons, (term["en"], lang, term[lang])


def test_a_lesson_saved_with_windows_line_endings_builds_the_same(tmp_path, content_copy):
    from test_site import tree_digest

    before = tree_digest(build_site(content_copy, tmp_path / "lf"))
    for lesson in (content_copy / "zh").glob("*.md"):
        lesson.write_bytes(lesson.read_bytes().replace(b"\n", b"\r\n"))
    assert tree_digest(build_site(content_copy, tmp_path / "crlf")) == before


def test_editor_lock_files_and_hidden_files_are_not_lessons(tmp_path, content_copy):
    (content_copy / "zh" / ".#ffn-residual.md").symlink_to("root@host.1234:1700000000")  # Emacs, while editing
    (content_copy / "ja" / ".draft.md").write_text("not a lesson", encoding="utf-8")
    out = build_site(content_copy, tmp_path / "dist")
    assert sorted(p.name for p in (out / "zh").iterdir()) == ["ffn-residual.html", "index.html", "offline.html",
                                                              "transformer-block.html"]


def test_an_unreadable_lesson_is_reported_with_its_path(content_copy, monkeypatch):
    from builder.build import check
    from builder.errors import UserError

    real = os.open

    def open_(path, *args, **kwargs):
        if Path(path).name == "ffn-residual.md" and Path(path).parent.name == "ja":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    with pytest.raises(UserError) as caught:
        check(content_copy, ROOT / "templates")
    assert [str(p) for p in caught.value.problems] == [f"{content_copy / 'ja' / 'ffn-residual.md'}: cannot read: Permission denied"]


def test_a_heading_of_many_spaces_is_parsed_in_linear_time():
    # 150,000 spaces took 79 s with the old pattern; run it in a child with a hang guard, not a speed target.
    code = ("from pathlib import Path; from builder.markdown import LessonRenderer; r = LessonRenderer(); "
            "p = r.parse('## a' + ' ' * 150000 + 'b {#x}\\n' + '## c' + ' ' * 150000 + '\\n', Path('x.md'), 1); "
            "print(p.sections[0][1], len(p.problems))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["x", "1"], result.stderr


def test_lists_nested_too_deeply_are_reported_not_dropped():
    from builder.markdown import LessonRenderer

    body = "intro\n\n" + "".join("  " * i + "- x\n" for i in range(12)) + "\n## After {#after}\n"
    parsed = LessonRenderer().parse(body, Path("deep.md"), 5)
    assert [(p.line, "nested too deeply" in p.message) for p in parsed.problems] == [(16, True)]


def test_the_real_catalogs_hold_every_message_the_site_needs():
    """After adding a scenario, a model dimension, a template string or a figure label, run
    `python -m builder catalog` and translate: this fails until then (the build only warns)."""
    from builder.catalogs import extract_template
    from builder.i18n import read_catalog

    needed = {(m.context, m.id) for m in extract_template(ROOT / "content", ROOT / "templates") if m.id}
    stored = {(m.context, m.id) for m in read_catalog(ROOT / "content" / "messages.pot") if m.id}
    assert needed <= stored, sorted(needed - stored)
    for lang, locale in (("zh", "zh_Hans"), ("ja", "ja")):
        catalog = read_catalog(ROOT / "content" / lang / "messages.po", locale)
        untranslated = [key for key in needed if not (catalog.get(key[1], context=key[0]) or None)
                        or not catalog.get(key[1], context=key[0]).string or catalog.get(key[1], context=key[0]).fuzzy]
        assert untranslated == [], (lang, untranslated)
