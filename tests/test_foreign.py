"""Words in another language inside a lesson: `*by the river bank*{lang=en}` (builder/foreign.py)."""

from __future__ import annotations

import pytest

from conftest import parse


@pytest.fixture(scope="module")
def md():
    from builder.markdown import make_markdown

    return make_markdown()


@pytest.mark.parametrize("source,html", [
    ("换成 *money in the bank*{lang=en}，块", '<p>换成 <em lang="en">money in the bank</em>，块</p>'),
    ("**bank**{lang=en-GB} の", '<p><strong lang="en-GB">bank</strong> の</p>'),
    ("*a **b**{lang=fr} c*{lang=en}", '<p><em lang="en">a <strong lang="fr">b</strong> c</em></p>'),
])
def test_an_emphasis_takes_the_language_written_after_it(md, source, html):
    assert md.render(source).strip() == html


@pytest.mark.parametrize("source", ["*a* {lang=en}", "*a*{lang=en onclick=x}", "*a*{lang=\"en\"}", "plain {lang=en}"])
def test_anything_but_a_language_tag_right_after_emphasis_stays_text(md, source):
    html = md.render(source)
    assert "lang=\"" not in html.split("{")[0] and "onclick=\"" not in html


def test_a_misplaced_language_note_fails_with_file_and_line(tmp_path):
    from builder.markdown import LessonRenderer

    parsed = LessonRenderer().parse("第一行\n\n换成 *money in the bank* {lang=en}。\n", tmp_path / "x.md", 10)
    assert [(p.line, p.message.split(":")[0]) for p in parsed.problems] == [(12, "`{lang=…}` goes right after an emphasis and takes a language tag")]


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_the_lessons_example_sentences_are_marked_english(real_site, lang):
    tree = parse(real_site / lang / "transformer-block.html")
    examples = [e for e in tree.css("article em, article strong") if e.text() in
                ("by the river bank", "money in the bank", "bank by the river", "bank")]
    assert len(examples) >= 6 and all(e.attributes.get("lang") == "en" for e in examples)
