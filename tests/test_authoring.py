"""An author's workflow: a new lesson and a new scenario from skeletons, a scenario's numbers before
writing about them, the shared model, and adding real content without breaking a fixture test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import CONTENT, ROOT, parse

from builder.sourcediff import char_diff


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "builder", *args], cwd=ROOT, capture_output=True, text=True, env=env)


def test_new_lesson_writes_the_same_sections_in_every_language_and_builds(tmp_path, content_copy):
    result = run_cli("new", "lesson", "self-attention", "--order", "3", "--sections", "who-looks,scores,summary",
                     "--figure", "attention", "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    zh, ja = content_copy / "zh" / "self-attention.md", content_copy / "ja" / "self-attention.md"
    assert f"wrote {zh}" in result.stdout and f"wrote {ja}" in result.stdout
    for path in (zh, ja):
        text = path.read_text(encoding="utf-8")
        assert "order = 3" in text and 'figures = ["attention"]' in text and 'scenario = "river-bank"' in text
        assert [line.split("{#")[1] for line in text.splitlines() if line.startswith("## ")] == \
            ["who-looks}", "scores}", "summary}"]
        assert "::: interactive attention" in text
    built = run_cli("build", "--content", str(content_copy), "--out", str(tmp_path / "dist"))
    assert built.returncode == 0, built.stderr
    # Parity-ready: the stub differs from the source in no section, figure or reference.
    assert "missing section" not in built.stderr and "figures differ" not in built.stderr
    assert f"{zh}:2: warning: placeholder left by `python -m builder new`: [[TODO: the title]]" in built.stderr
    # The stub is set aside until its title is translated: readers get the original, marked as such.
    assert f"{ja}:2: warning: a stub from `python -m builder new`" in built.stderr
    stub = parse(tmp_path / "dist" / "ja" / "self-attention.html")
    assert stub.css_first("article").attributes["lang"] == "zh-Hans" and "翻訳されていません" in stub.css_first(".notice").text()
    page = parse(tmp_path / "dist" / "zh" / "self-attention.html")
    assert [h.attributes["id"] for h in page.css("article h2[id]")][-3:] == ["who-looks", "scores", "summary"]
    listed = [a.attributes["href"] for a in parse(tmp_path / "dist" / "zh" / "index.html").css(".lesson-list a")]
    assert "self-attention.html" in listed
    assert run_cli("check", "--strict", "--content", str(content_copy)).returncode == 1  # placeholders never publish
    status = json.loads(run_cli("status", "--json", "--content", str(content_copy)).stdout)
    assert next(row for row in status["lessons"] if row["slug"] == "self-attention")["languages"]["ja"]["status"] == "unmarked"
    sections = status["progress"]["ja"]["sections"]
    assert sections["translated"] == sections["total"] - 4  # the stub's opening and three sections are still to do


def test_new_lesson_takes_the_next_order_and_refuses_to_overwrite(content_copy):
    assert run_cli("new", "lesson", "third", "--content", str(content_copy)).returncode == 0
    assert "order = 3" in (content_copy / "zh" / "third.md").read_text(encoding="utf-8")
    again = run_cli("new", "lesson", "third", "--content", str(content_copy))
    assert again.returncode == 1 and "already exists" in again.stderr and "Traceback" not in again.stderr
    clash = run_cli("new", "lesson", "fourth", "--order", "1", "--content", str(content_copy))
    assert clash.returncode == 1 and "order 1 is already this lesson's" in clash.stderr
    bad = run_cli("new", "lesson", "Fourth Lesson", "--content", str(content_copy))
    assert bad.returncode == 1 and "is not a usable lesson name" in bad.stderr


def test_new_scenario_starts_from_another_scenarios_tokens_and_model(content_copy):
    result = run_cli("new", "scenario", "deposit-bank", "--from", "money-bank", "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    path = content_copy / "scenarios" / "deposit-bank.toml"
    text = path.read_text(encoding="utf-8")
    assert 'model = "bank-block"' in text and 'tokens = ["money", "in", "the", "bank"]' in text
    assert "bank, by, in, money, river, the" in result.stdout  # the words it may use without a vector
    check = run_cli("check", "--content", str(content_copy))
    assert check.returncode == 0, check.stderr
    assert f"{path}:6: warning: placeholder left by `python -m builder new`" in check.stderr
    # Its title is a UI string: reported missing from the catalogs without running `catalog` first.
    assert "missing message 'scenario|[[TODO: a title, e.g. the sentence]]'" in check.stderr
    missing = run_cli("new", "scenario", "x", "--from", "nowhere", "--content", str(content_copy))
    assert missing.returncode == 1 and "no scenario 'nowhere' to start from" in missing.stderr


def test_scenario_show_prints_the_tracked_words_numbers_and_the_lessons_values(content_copy):
    from builder.scenarios import load_scenario

    result = run_cli("scenario", "show", "river-bank", "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    scenario = load_scenario(content_copy / "scenarios" / "river-bank.toml")
    on = scenario.traces["pre-on"]
    b3 = on.block_outputs()[2][scenario.tracked]
    row = on.steps[4].attention[scenario.tracked]
    line = next(l for l in out.splitlines()[out.splitlines().index(next(l for l in out.splitlines() if l.startswith("on:"))):]
                if l.strip().startswith("b3 "))
    assert "[" + ", ".join(f"{v:.2f}" for v in b3) + "]" in line
    assert f"{np.linalg.norm(b3):.2f}" in line and line.split()[-4:] == [f"{w:.2f}" for w in row]
    zh = content_copy / "zh" / "transformer-block.md"
    assert f"{zh}:" in out and "{{on:b1.attention top}} = river" in out
    assert "{{off:b6 length}} = 0.4" in out
    unknown = run_cli("scenario", "show", "nowhere", "--content", str(content_copy))
    assert unknown.returncode == 1 and "no scenario 'nowhere'" in unknown.stderr


def test_a_reference_with_an_argument_after_its_field_says_why_it_is_wrong(content_copy):
    lesson = content_copy / "zh" / "transformer-block.md"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("{{on:b2}}", "{{on:b2.attention weight river}}", 1),
                      encoding="utf-8")
    result = run_cli("check", "--content", str(content_copy))
    assert "'river' after the field 'weight': a field takes no argument" in result.stderr
    assert "AUTHORING.md" in result.stderr


def test_a_broken_scenario_does_not_hide_the_lessons_own_mistakes(content_copy):
    scenario = content_copy / "scenarios" / "river-bank.toml"
    scenario.write_text(scenario.read_text(encoding="utf-8").replace('tracked = "bank"', 'tracked = "Bank"'),
                        encoding="utf-8")
    lesson = content_copy / "zh" / "transformer-block.md"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("## 常见误区 {#mistakes}", "## 常见误区"), encoding="utf-8")
    result = run_cli("check", "--content", str(content_copy))
    assert "'Bank' is not one of the tokens" in result.stderr
    assert f"{lesson}:" in result.stderr and "needs a stable id" in result.stderr


@pytest.mark.parametrize("old,new,segments", [
    ("前馈网络先把向量扩大", "前馈网络会先把向量放大", [("equal", "前馈网络"), ("insert", "会"), ("equal", "先把向量"),
                                             ("delete", "扩"), ("insert", "放"), ("equal", "大")]),
    ("The geography grows.", "The finance grows.", [("equal", "The "), ("delete", "geography"), ("insert", "finance"),
                                                    ("equal", " grows.")]),
    ("{{on:b1 length}} 约为", "{{on:b2 length}} 约为", [("equal", "{{on:"), ("delete", "b1"), ("insert", "b2"),
                                                   ("equal", " length}} 约为")]),
])
def test_the_character_diff_reads_as_edits_in_cjk_and_latin_text(old, new, segments):
    assert list(char_diff(old, new)) == segments


def test_adding_a_real_lesson_and_scenario_breaks_no_fixture_test(tmp_path):
    """Copy the project, add a lesson and a scenario to its real content the way an author would (new,
    catalog), then run the suite's catalog and translation checks of the fixture project against it."""
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(".venv", ".git", "dist", ".tools", "node_modules",
                                                                 "__pycache__", ".bench-env", ".pytest_cache"))
    content = project / "content"

    def cli(*args):
        result = subprocess.run([sys.executable, "-m", "builder", *args], cwd=project, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result

    cli("new", "scenario", "deposit-bank", "--from", "money-bank")
    cli("new", "lesson", "self-attention", "--figure", "attention")
    cli("catalog")
    assert "deposit-bank" in (content / "messages.pot").read_text(encoding="utf-8")
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not browser",
                            "tests/test_translation.py", "tests/test_translator_workflow.py",
                            "-k", "catalog or check or status or fuzzy"],
                           cwd=project, capture_output=True, text=True, env={**os.environ, "CI": ""})
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert " passed" in tests.stdout and "failed" not in tests.stdout


def test_fit_weights_writes_the_one_model_file_exactly_as_it_is_stored(monkeypatch):
    """tools/fit_weights.py writes content/models/bank-block.toml and nothing else: given the stored
    weights and vocabulary, its writer reproduces the file byte for byte (so a refit changes only numbers)."""
    import importlib.util
    import types

    scipy = types.ModuleType("scipy")
    optimize = types.ModuleType("scipy.optimize")
    optimize.least_squares = None  # the fit itself needs scipy; the writer does not
    monkeypatch.setitem(sys.modules, "scipy", scipy)
    monkeypatch.setitem(sys.modules, "scipy.optimize", optimize)
    monkeypatch.setattr(sys, "argv", ["fit_weights.py"])
    spec = importlib.util.spec_from_file_location("fit_weights", ROOT / "tools" / "fit_weights.py")
    fit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fit)
    from builder.models import load_model

    model = load_model(CONTENT / "models" / "bank-block.toml")
    assert fit.MODEL == CONTENT / "models" / "bank-block.toml"
    assert set(fit.VOCABULARY) == set(model.vocabulary) == set(fit.FREE_WORDS) | {"bank"}
    weights = {name: getattr(model.weights, name) for name in ("w_q", "w_k", "w_v", "w_o", "w_1", "b_1", "w_2", "b_2")}
    assert fit.to_toml(model.vocabulary, weights) == fit.MODEL.read_text(encoding="utf-8")
    source = (ROOT / "tools" / "fit_weights.py").read_text(encoding="utf-8")
    assert source.count("write_text(") == 1 and "MODEL.write_text(" in source  # the one file, nothing else
