"""The shortcuts that make builds fast (worker processes, parsing once, the preview's memory of
unchanged files) must never change what is built."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import course  # noqa: E402  (bench/course.py: the benchmark's synthetic course)

LESSONS = 40  # per language: enough slugs for two workers (16 each at least)


def digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def build(content: Path, out: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "builder", "build", "--content", str(content), "--out", str(out), *flags],
                          cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    return course.write_ours(tmp_path_factory.mktemp("course"), LESSONS)


def test_the_benchmark_course_builds_without_problems_or_warnings(synthetic, tmp_path):
    result = build(synthetic, tmp_path / "dist", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    pages = LESSONS + 2  # and each language's lesson list and offline page
    assert f"built {2 * pages} pages (zh {pages}, ja {pages})" in result.stdout


def test_worker_processes_build_the_same_site_as_one_process(synthetic, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert build(synthetic, one, "--jobs", "1").returncode == 0
    assert build(synthetic, two, "--jobs", "2").returncode == 0
    assert digest(one) == digest(two)


def test_worker_processes_report_problems_like_one_process(synthetic, tmp_path):
    broken = tmp_path / "content"
    subprocess.run(["cp", "-r", str(synthetic), str(broken)], check=True)
    for n in (3, 30):
        path = broken / "ja" / f"lesson-{n:03d}.md"
        path.write_text(path.read_text(encoding="utf-8").replace("{#parts}", "{#roles}"), encoding="utf-8")
    one, two = build(broken, tmp_path / "one", "--jobs", "1"), build(broken, tmp_path / "two", "--jobs", "2")
    assert one.returncode == two.returncode == 1
    assert one.stderr == two.stderr
    assert one.stderr.count("#roles") == 2
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()


def test_each_lesson_is_parsed_once_per_build(content_copy, tmp_path, monkeypatch):
    from builder import build as build_stage
    from markdown_it import MarkdownIt

    parsed = []
    original = MarkdownIt.parse
    monkeypatch.setattr(MarkdownIt, "parse", lambda self, src, env=None: parsed.append(src) or original(self, src, env))
    build_stage.build(content_copy, tmp_path / "dist", ROOT / "templates", jobs=1)
    lessons = sorted(content_copy.glob("*/*.md"))
    assert len(parsed) == len(lessons) == 4


def test_timings_name_every_stage(tmp_path):
    result = build(ROOT / "content", tmp_path / "dist", "--timings", "-q")
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    for stage in ("imports", "gather", "render", "write"):
        assert f" {stage} " in f" {line} ", line


# The preview keeps unchanged files loaded; an edit to any kind of input must still show.

@pytest.fixture
def preview(content_copy, tmp_path):
    from builder.serve import Preview

    preview = Preview(content_copy, tmp_path / "dist", ROOT / "templates")
    assert preview.rebuild().startswith("rebuilt all pages")
    return preview


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def page(preview, rel: str) -> str:
    return (preview.out / rel).read_text(encoding="utf-8")


def test_preview_shows_an_edited_scenario_in_every_page_that_uses_it(preview):
    scenario = preview.content / "scenarios" / "river-bank.toml"
    rels = ("zh/transformer-block.html", "ja/ffn-residual.html")
    before = {rel: page(preview, rel) for rel in rels}
    edit(scenario, '"river", "bank"]', '"river", { text = "bank", vector = [0.90, 0.30, 0.00, 1.00] }]')  # bank's input
    assert preview.rebuild({scenario}).startswith("rebuilt all pages")
    for rel in rels:
        assert page(preview, rel) != before[rel], rel
    assert "[0.9, 0.3, 0.0, 1.0]" in page(preview, "zh/transformer-block.html")


def test_preview_shows_an_edited_model_in_every_scenario_that_runs_through_it(preview):
    model = preview.content / "models" / "bank-block.toml"
    before = page(preview, "zh/transformer-block.html")
    edit(model, "bank  = [0.30, 0.30, 0.00, 1.00]", "bank  = [0.90, 0.30, 0.00, 1.00]")  # bank's vector, in every scenario
    assert preview.rebuild({model}).startswith("rebuilt all pages")
    after = page(preview, "zh/transformer-block.html")
    assert after != before and "[0.9, 0.3, 0.0, 1.0]" in after


def test_preview_shows_an_edited_catalog(preview):
    catalog = preview.content / "ja" / "messages.po"
    text = catalog.read_text(encoding="utf-8")
    before = page(preview, "ja/index.html")
    msgid = 'msgid "Show the numbers"\nmsgstr "'
    assert msgid in text
    edit(catalog, msgid, msgid + "【改】")
    assert preview.rebuild({catalog}).startswith("rebuilt all pages")
    assert "【改】" in page(preview, "ja/transformer-block.html")
    assert "【改】" not in page(preview, "zh/transformer-block.html")
    assert page(preview, "ja/index.html") == before


def test_preview_shows_an_edited_template(preview, tmp_path):
    templates = tmp_path / "templates"
    subprocess.run(["cp", "-r", str(ROOT / "templates"), str(templates)], check=True)
    preview.templates = templates
    assert preview.rebuild().startswith("rebuilt all pages")
    template = templates / "lesson.html"
    edit(template, '<article class="lesson"', '<article data-edited="yes" class="lesson"')
    assert preview.rebuild({template}).startswith("rebuilt all pages")
    assert 'data-edited="yes"' in page(preview, "zh/transformer-block.html")


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_edit_after_edit_the_preview_writes_what_a_fresh_preview_writes(preview, tmp_path):
    """The preview keeps figure parts and search indexes between lesson edits; a catalog edit between
    them must not leave a stale figure label, nor a lesson edit a stale index or walkthrough."""
    from builder.serve import Preview

    lesson = preview.content / "zh" / "transformer-block.md"
    catalog = preview.content / "zh" / "messages.po"
    edit(lesson, "两次更新残差流。", "两次更新残差流（第一次修改）。")
    line = preview.rebuild({lesson})
    assert line.startswith("rebuilt ") and "all pages" not in line, line  # a partial rebuild
    edit(catalog, 'msgid "Input ‖x₀‖"\nmsgstr "', 'msgid "Input ‖x₀‖"\nmsgstr "【改】')  # a depth-map label
    assert preview.rebuild({catalog}).startswith("rebuilt all pages")
    assert "【改】" in page(preview, "zh/transformer-block.html")
    edit(lesson, 'walkthrough = ["input", "b1.attention", "b1.ffn", "b2", "b3", "sum"]',
         'walkthrough = ["input", "b1.attention", "b1.ffn", "b2", "sum"]')  # one step fewer: new views
    edit(lesson, "第一次修改", "第二次修改")
    text = lesson.read_text(encoding="utf-8")
    steps = text.split("::: walkthrough", 1)[1].split(":::", 1)[0]
    items = [line for line in steps.splitlines() if line[:1].isdigit() or line.startswith("- ")]
    assert len(items) == 6, items
    edit(lesson, items[4] + "\n", "")  # the list loses the step the front matter lost
    assert preview.rebuild({lesson}).startswith("rebuilt")
    assert preview.errors == [], preview.errors
    fresh = Preview(preview.content, tmp_path / "fresh", ROOT / "templates")
    assert fresh.rebuild().startswith("rebuilt all pages")
    assert files_of(preview.out) == files_of(fresh.out)


def test_preview_reports_a_broken_edit_then_recovers(preview):
    lesson = preview.content / "zh" / "ffn-residual.md"
    edit(lesson, " {#next}", "")
    assert preview.rebuild({lesson}).startswith("build failed")
    assert any("ffn-residual.md" in error and "stable id" in error for error in preview.errors)
    edit(lesson, "## 下一步", "## 下一步 {#next}")
    assert preview.rebuild({lesson}).startswith("rebuilt")
    assert preview.errors == []


def test_a_broken_template_cache_is_ignored(tmp_path):
    import jinja2
    from builder.pages import _QuietBytecodeCache

    def render(cache):
        env = jinja2.Environment(loader=jinja2.DictLoader({"page.html": "{{ 6 * 7 }}"}), bytecode_cache=cache)
        return env.get_template("page.html").render()

    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    assert render(_QuietBytecodeCache(str(cache_dir))) == "42"
    (written,) = cache_dir.iterdir()
    written.write_bytes(written.read_bytes()[:12])  # truncated: the header survives, the code does not
    assert render(_QuietBytecodeCache(str(cache_dir))) == "42"
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert render(_QuietBytecodeCache(str(not_a_folder))) == "42"  # cannot be written: skipped


def test_the_peers_course_prints_the_figures_as_we_do(tmp_path, synthetic):
    """The benchmark gives Hugo and MkDocs the same text with our trace values already printed."""
    hugo, mkdocs = course.write_hugo(tmp_path / "hugo", 4), course.write_mkdocs(tmp_path / "mkdocs", 4)
    texts = "".join(p.read_text(encoding="utf-8") for folder in (hugo, mkdocs) for p in folder.rglob("*.md"))
    assert "{{on:" not in texts and "{{off:" not in texts
    values = course.trace_printer()
    assert values["ja"]("on:b1.attention") in texts and values["zh"]("off:b6 length") in texts


def test_a_code_block_in_a_new_language_gets_its_colours_in_a_partial_preview_rebuild(preview, tmp_path):
    """The code colours hold only the token classes the pages' code uses; a lesson edit rebuilds that lesson alone,
    and the sheet still follows: a diff block brings its deleted and inserted lines' rules, as a fresh build would."""
    from builder.serve import Preview

    lesson = preview.content / "zh" / "transformer-block.md"
    assert ".highlight .gd" not in page(preview, "assets/pygments.css")
    lesson.write_text(lesson.read_text(encoding="utf-8") + "\n```diff\n- old\n+ new\n```\n", encoding="utf-8")
    line = preview.rebuild({lesson})
    assert line.startswith("rebuilt ") and "all pages" not in line, line  # a partial rebuild
    assert ".highlight .gd" in page(preview, "assets/pygments.css")
    fresh = Preview(preview.content, tmp_path / "fresh", ROOT / "templates")
    assert fresh.rebuild().startswith("rebuilt all pages")
    assert page(preview, "assets/pygments.css") == page(fresh, "assets/pygments.css")
