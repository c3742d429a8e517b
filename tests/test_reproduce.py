"""Reproduce the numbers: each lesson with figures shows a numpy snippet that reads the published
data/<scenario>.json and prints the lesson's figures, and an output block (trace references, filled
in as Python prints them) saying what it prints. Here every snippet is run against the built files
and must print exactly its output block, which must be the engine's trace."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import CONTENT, build_site, copy_fixture, parse

LANGS = ["zh", "ja"]
SLUGS = ["transformer-block", "ffn-residual"]


def snippets(page):
    """(code, output) of every output block of a built page: the code block just before it."""
    blocks = parse(page).css("article pre.highlight")
    kinds = [block.attributes.get("data-lang") for block in blocks]
    return [(blocks[i - 1].css_first("code").text(), blocks[i].css_first("code").text())
            for i, kind in enumerate(kinds) if kind == "output"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", SLUGS)
def test_every_lesson_with_figures_shows_how_to_reproduce_them(real_site, lang, slug):
    page = real_site / lang / f"{slug}.html"
    tree = parse(page)
    assert tree.css("[data-figure]")
    assert tree.css_first("h2#reproduce") is not None and snippets(page)
    links = [a.attributes["href"] for a in tree.css("article a") if a.attributes["href"].startswith("../data/")]
    assert "../data/river-bank.json" in links
    for href in links:  # relative, and each names a file the build wrote
        assert re.fullmatch(r"\.\./data/[a-z0-9-]+\.json", href) and (page.parent / href).resolve().is_file()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", SLUGS)
def test_each_snippet_prints_exactly_what_its_page_says(real_site, lang, slug):
    for code, output in snippets(real_site / lang / f"{slug}.html"):
        assert len(code.strip().splitlines()) <= 40 and "import numpy as np" in code
        run = subprocess.run([sys.executable, "-c", code], cwd=real_site / "data", capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, run.stderr
        assert run.stdout == output, f"the snippet printed\n{run.stdout}\nthe page says\n{output}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", SLUGS)
def test_the_output_the_page_shows_is_the_engines_trace(real_site, lang, slug):
    """The output block, recomputed here from the engine, reference by reference."""
    from builder.references import TraceValues
    from builder.scenarios import load_scenarios

    scenarios, _ = load_scenarios(CONTENT / "scenarios")
    source = (CONTENT / lang / f"{slug}.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```output\n(.*?)^```", source, re.S | re.M)
    values = TraceValues(scenarios, "river-bank", None)
    expected = [re.sub(r"\{\{(.*?)\}\}", lambda m: values.resolve(m.group(1).strip())[0], block) for block in blocks]
    assert expected and expected == [output for _, output in snippets(real_site / lang / f"{slug}.html")]
    assert all(re.search(r"\d\.\d", block) for block in expected)


def test_the_published_data_holds_the_engines_inputs(real_site):
    from builder.engine import EPS
    from builder.scenarios import load_scenarios

    scenarios, _ = load_scenarios(CONTENT / "scenarios")
    for name, scenario in scenarios.items():
        data = json.loads((real_site / "data" / f"{name}.json").read_text(encoding="utf-8"))
        assert data["x0"] == scenario.x0.tolist() and data["eps"] == EPS
        assert data["weights"]["w_q"] == scenario.weights.w_q.tolist() and set(data["weights"]) == {
            "w_q", "w_k", "w_v", "w_o", "w_1", "b_1", "w_2", "b_2"}


# ---- What the build says about output blocks -----------------------------------------------------

def add_to_lesson(content, lang, text, before="## 常见误区 {#mistakes}"):
    lesson = content / lang / "transformer-block.md"
    source = lesson.read_text(encoding="utf-8")
    line = source[:source.index(before)].count("\n") + 1
    lesson.write_text(source.replace(before, text + before), encoding="utf-8")
    return lesson, line


def build_errors(content, tmp_path) -> str:
    """Every problem and warning a build of `content` reports, one a line."""
    from builder.build import build
    from builder.errors import UserError

    from conftest import ROOT

    try:
        summary = build(content, tmp_path / "dist", ROOT / "templates")
    except UserError as err:
        return "\n".join(str(problem) for problem in err.problems)
    return "\n".join(str(problem) for problem in summary.warnings)


def test_an_output_block_without_its_code_is_an_error_with_its_line(content_copy, tmp_path):
    lesson, line = add_to_lesson(content_copy, "zh", "运行后：\n\n```output\n{{on:b1 length}}\n```\n\n")
    assert f"{lesson}:{line + 2}: an ```output block shows what the code block before it prints" in build_errors(content_copy, tmp_path)


def test_a_figure_typed_into_an_output_block_is_an_error(content_copy, tmp_path):
    lesson, line = add_to_lesson(content_copy, "zh", "```python\nprint(1.8)\n```\n\n```output\n1.8\n```\n\n")
    assert f"{lesson}:{line + 5}: figure '1.8' typed into an output block" in build_errors(content_copy, tmp_path)


def test_a_wrong_reference_in_an_output_block_names_its_line(content_copy, tmp_path):
    lesson, line = add_to_lesson(content_copy, "zh", "```python\nprint(x)\n```\n\n```output\nok\n{{on:b9 length}}\n```\n\n")
    add_to_lesson(content_copy, "ja", "```python\nprint(x)\n```\n\n```output\nok\n{{on:b9 length}}\n```\n\n",
                  before="## よくある間違い {#mistakes}")
    assert f"{lesson}:{line + 6}: block 9 out of range" in build_errors(content_copy, tmp_path)


def test_an_output_block_is_filled_in_as_python_prints(content_copy, tmp_path):
    block = "```python\nprint(x)\n```\n\n```output\n长度 {{off:b1 length}} {{on:b1}} {{on:b0-2 geography}}\n```\n\n"
    add_to_lesson(content_copy, "zh", block)
    add_to_lesson(content_copy, "ja", block, before="## よくある間違い {#mistakes}")
    out = build_site(content_copy, tmp_path / "dist")
    from builder.references import TraceValues
    from builder.scenarios import load_scenarios

    scenarios, _ = load_scenarios(content_copy / "scenarios")
    plain = TraceValues(scenarios, "river-bank", None)
    output = parse(out / "zh" / "transformer-block.html").css_first('pre[data-lang="output"] code').text()
    assert output == f"长度 {plain.resolve('off:b1 length')[0]} {plain.resolve('on:b1')[0]} {plain.resolve('on:b0-2 geography')[0]}\n"
    assert "\u2212" not in output and re.fullmatch(r"长度 \d\.\d \[[-\d., ]+\] [-\d.]+ → [-\d.]+ → [-\d.]+\n", output)


def test_a_translation_is_told_when_it_prints_other_figures(content_copy, tmp_path):
    add_to_lesson(content_copy, "zh", "```python\nprint(x)\n```\n\n```output\n{{on:b1 length}}\n```\n\n")
    add_to_lesson(content_copy, "ja", "```python\nprint(x)\n```\n\n```output\n{{on:b2 length}}\n```\n\n",
                  before="## よくある間違い {#mistakes}")
    errors = build_errors(content_copy, tmp_path)
    assert "{{on:b1 length}}" in errors and "{{on:b2 length}}" in errors
