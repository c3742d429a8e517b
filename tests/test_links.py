"""A link in a lesson that leads nowhere is reported with its file and line, as Hugo and MkDocs do: a page
the site lacks, or an anchor its page lacks. Links to other sites and figure-state fragments are left alone."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def build(content, out):
    return subprocess.run([sys.executable, "-m", "builder", "build", "--content", str(content), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True)


def plant(content, lang, text):
    lesson = content / lang / "transformer-block.md"
    lines = lesson.read_text(encoding="utf-8").split("\n")
    lines.append(text)
    lesson.write_text("\n".join(lines), encoding="utf-8")
    return len(lines)  # the planted line's number


def test_a_link_to_a_missing_anchor_on_another_page_is_reported_with_its_line(content_copy, tmp_path):
    line = plant(content_copy, "zh", "见[下一课](ffn-residual.html#no-such-section)。")
    done = build(content_copy, tmp_path / "out")
    assert done.returncode == 0, done.stderr  # a warning: the other languages still build
    assert (f"zh/transformer-block.md:{line}: warning: the link 'ffn-residual.html#no-such-section': "
            "'zh/ffn-residual.html' has no anchor #no-such-section") in done.stderr + done.stdout


def test_a_link_to_a_missing_anchor_on_its_own_page_and_to_a_missing_page_are_reported(content_copy, tmp_path):
    line = plant(content_copy, "ja", "[ここ](#nowhere)と[別のページ](no-such-lesson.html)。")
    out = build(content_copy, tmp_path / "out")
    said = out.stderr + out.stdout
    assert f"ja/transformer-block.md:{line}: warning: the link '#nowhere'" in said
    assert f"ja/transformer-block.md:{line}: warning: the link 'no-such-lesson.html' leads to 'ja/no-such-lesson.html'" in said


def test_links_that_resolve_other_sites_and_figure_states_are_not_reported(content_copy, tmp_path):
    plant(content_copy, "zh", "[下一课](ffn-residual.html)、[外部](https://example.org/#x)、[状态](#residual=off&depth=6)、"
                              "[数据](../data/river-bank.json)。")
    done = build(content_copy, tmp_path / "out")
    assert done.returncode == 0 and "warning: the link" not in done.stderr + done.stdout


def test_strict_fails_on_a_broken_link(content_copy, tmp_path):
    plant(content_copy, "zh", "[坏链接](#nowhere)")
    done = subprocess.run([sys.executable, "-m", "builder", "build", "--strict", "--content", str(content_copy),
                           "--out", str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and "the link '#nowhere'" in done.stderr + done.stdout
    assert not (tmp_path / "out").exists()


def test_a_partial_rebuild_does_not_report_the_pages_it_did_not_render():
    """The preview renders only what an edit touched: a link to a page outside that batch is not broken."""
    from types import SimpleNamespace

    from builder.links import broken_links

    lesson = SimpleNamespace(lang="zh", slug="a", path="content/zh/a.md", body="[b](b.html) [c](b.html#x)", body_line=5)
    other = SimpleNamespace(lang="zh", slug="b", path="content/zh/b.md", body="", body_line=5)
    lessons = {"zh": {"a": lesson, "b": other}}
    assert broken_links(lessons, {"zh/a.html": b"<p></p>"}) == []
    found = broken_links(lessons, {"zh/a.html": b"", "zh/b.html": b'<h2 id="y">'})
    assert [(p.line, p.severity) for p in found] == [(5, "warning")] and "#x" in found[0].message
