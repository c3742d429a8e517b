"""A translator's workflow: an author's edit never blocks the build, the translator sees exactly what
changed in the source, mark-current checks before it records, and each language sees its own problems."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, parse
from test_site import tree_digest

ZH = "zh/ffn-residual.md"
JA = "ja/ffn-residual.md"
NEW_SECTION = ("## 下一步 {#next}", "### 残差连接和跳跃连接 {#residual-vs-skip}\n\n"
                                    "在 ResNet 里，跳跃连接就是这条捷径。\n\n## 下一步 {#next}")
EDITED_SENTENCE = ("每个子层之前先归一化。", "每个子层之前都先做一次归一化。")


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "builder", *args], cwd=ROOT, capture_output=True, text=True)


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def line_of(path, text):
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


def author_edits(content):
    """The trial's edit: one sentence changed mid-lesson and one new h3 section, in the source only."""
    edit(content / ZH, *EDITED_SENTENCE)
    edit(content / ZH, *NEW_SECTION)


def test_a_new_source_section_builds_with_a_warning_and_the_outdated_notice(tmp_path, content_copy):
    author_edits(content_copy)
    out = tmp_path / "dist"
    result = run_cli("build", "--content", str(content_copy), "--out", str(out))
    assert result.returncode == 0, result.stderr
    ja = content_copy / JA
    assert "warning: translation is outdated (#assemble changed, #residual-vs-skip added)" in result.stderr
    assert f"{ja}:{line_of(ja, '## 次へ {#next}')}: warning: missing section h3 #residual-vs-skip" in result.stderr
    assert "2 warnings" in result.stdout
    page = parse(out / "ja" / "ffn-residual.html")
    notice = page.css_first(".notice")
    assert notice is not None and "原文" in notice.text()
    link = notice.css_first('a[href="../zh/ffn-residual.html#residual-vs-skip"]')
    assert link is not None and link.text() == "残差连接和跳跃连接"
    # The section the translation lacks still has its id, where it would be: before #next.
    ids = [node.attributes.get("id") for node in page.css("article [id]")]
    assert ids.index("residual-vs-skip") == ids.index("next") - 1
    assert parse(out / "zh" / "ffn-residual.html").css_first("#residual-vs-skip") is not None


def test_strict_turns_the_warnings_into_a_failure_and_writes_nothing(tmp_path, content_copy):
    out = tmp_path / "dist"
    assert run_cli("build", "--content", str(content_copy), "--out", str(out)).returncode == 0
    before = tree_digest(out)
    author_edits(content_copy)
    result = run_cli("build", "--strict", "--content", str(content_copy), "--out", str(out))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == "build --strict: 2 warnings, nothing written"
    assert tree_digest(out) == before
    assert run_cli("check", "--strict", "--content", str(content_copy)).returncode == 1
    assert run_cli("check", "--content", str(content_copy)).returncode == 0


def test_a_translation_marked_current_that_disagrees_with_its_source_stays_an_error(content_copy):
    edit(content_copy / JA, "## 次へ {#next}", "## 次へ {#onward}")
    result = run_cli("check", "--content", str(content_copy))
    assert result.returncode == 1
    assert f"{content_copy / JA}:{line_of(content_copy / JA, '## 次へ {#onward}')}: missing section h2 #next" in result.stderr


def test_a_fuzzy_or_untranslated_ui_string_falls_back_to_english_with_a_warning(tmp_path, content_copy):
    po = content_copy / "ja" / "messages.po"
    edit(po, 'msgid "Next lesson"\nmsgstr "次のレッスン"', '#, fuzzy\nmsgid "Next lesson"\nmsgstr "次のレッスン"')
    edit(po, 'msgstr "前のレッスン"', 'msgstr ""')
    out = tmp_path / "dist"
    result = run_cli("build", "--content", str(content_copy), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "warning: fuzzy translation of 'Next lesson'" in result.stderr
    assert "warning: untranslated message 'Previous lesson', shown in English" in result.stderr
    pager = parse(out / "ja" / "transformer-block.html").css_first(".pager").text()
    assert "Next lesson" in pager and "次のレッスン" not in pager
    assert run_cli("build", "--strict", "--content", str(content_copy), "--out", str(out)).returncode == 1


def test_a_translation_never_marked_is_said_so_not_called_outdated(tmp_path, content_copy):
    ja = content_copy / JA
    text = ja.read_text(encoding="utf-8")
    start = text.index("[translation]")
    ja.write_text(text[:start] + text[text.index("+++", start):], encoding="utf-8")
    result = run_cli("build", "--content", str(content_copy), "--out", str(tmp_path / "dist"))
    assert result.returncode == 0, result.stderr
    assert f"{ja}:1: warning: translation never marked current" in result.stderr and "outdated" not in result.stderr
    notice = parse(tmp_path / "dist" / "ja" / "ffn-residual.html").css_first(".notice").text()
    assert "原文と照合されていない" in notice
    info = status(content_copy)["lessons"][1]["languages"]["ja"]
    assert info["status"] == "unmarked"


def status(content, *extra):
    result = run_cli("status", "--json", "--content", str(content), *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_status_lists_changed_sections_in_page_order_with_source_lines(content_copy):
    author_edits(content_copy)
    zh = content_copy / ZH
    result = run_cli("status", "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    assert "outdated (2 sections)" in result.stdout
    assembled = line_of(zh, "## 把三件套拼成一个块 {#assemble}")
    added = line_of(zh, "### 残差连接和跳跃连接 {#residual-vs-skip}")
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if "assemble  changed" in line)
    assert lines[first].split()[0].startswith(f"{assembled}-")
    assert lines[first + 1].split()[:3] == [f"{added}-{added + 2}", "residual-vs-skip", "added"]
    info = status(content_copy)["lessons"][1]["languages"]["ja"]
    assert [(c["section"], c["change"]) for c in info["changes"]] == [("assemble", "changed"), ("residual-vs-skip", "added")]
    assert info["changes"][1]["lines"] == [added, added + 2]


def test_status_diff_shows_the_source_as_it_was_and_as_it_is_character_by_character(content_copy):
    author_edits(content_copy)
    zh = content_copy / ZH
    result = run_cli("status", "--diff", "ja", "ffn-residual", "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    edited = line_of(zh, "每个子层之前都先做一次归一化。")
    added = line_of(zh, "### 残差连接和跳跃连接 {#residual-vs-skip}")
    out = result.stdout
    assert f"#assemble  changed  ({zh}:" in out and f"#residual-vs-skip  added  ({zh}:{added}-{added + 2})" in out
    assert f"{edited:>7} ~ 每个子层之前[-先-]{{+都先做一次+}}归一化。" in out  # one character between two edits: one edit
    assert f"{added:>7} + ### 残差连接和跳跃连接 {{#residual-vs-skip}}" in out
    data = status(content_copy, "--diff", "ja", "ffn-residual")["diffs"][0]
    assert data["recorded"] and [c["change"] for c in data["changes"]] == ["changed", "added"]
    changed = data["changes"][0]
    assert "每个子层之前先归一化。" in changed["old_text"] and "每个子层之前都先做一次归一化。" in changed["new_text"]
    line = next(l for l in changed["diff"] if l["new_line"] == edited)
    assert line["kind"] == "changed" and line["segments"] == [["equal", "每个子层之前"], ["delete", "先"],
                                                              ["insert", "都先做一次"], ["equal", "归一化。"]]


def test_status_diff_names_a_removed_section_with_its_old_lines(content_copy):
    zh = content_copy / ZH
    old_line = line_of(zh, "## 分工总览 {#division-of-labour}")
    edit(zh, "## 分工总览 {#division-of-labour}\n\n注意力混合信息，前馈网络逐位置加工。\n\n", "")
    out = run_cli("status", "--diff", "ja", "--content", str(content_copy)).stdout
    assert f"#division-of-labour  removed  (was {content_copy / 'ja' / 'translated-from' / 'ffn-residual.md'}:{old_line}-{old_line + 2})" in out
    assert f"was {old_line} - ## 分工总览 {{#division-of-labour}}" in out


def test_a_title_edit_is_reported_as_the_front_matter_and_a_blank_line_is_no_change(content_copy):
    zh = content_copy / ZH
    edit(zh, "## 下一步 {#next}", "\n\n## 下一步 {#next}")  # only blank lines: a page cannot tell
    assert status(content_copy)["lessons"][1]["languages"]["ja"]["status"] == "current"
    edit(zh, 'title = "前馈网络与残差连接"', 'title = "前馈网络和残差连接"')
    info = status(content_copy)["lessons"][1]["languages"]["ja"]
    assert info["status"] == "outdated" and info["changed_sections"] == ["front matter"]
    out = run_cli("status", "--diff", "ja", "ffn-residual", "--content", str(content_copy)).stdout
    assert '2 ~ title = "前馈网络[-与-]{+和+}残差连接"' in out


def test_mark_current_refuses_a_translation_that_fails_check_unless_forced(content_copy):
    author_edits(content_copy)
    ja = content_copy / JA
    before = ja.read_bytes()
    result = run_cli("mark-current", "ja", "ffn-residual", "--content", str(content_copy))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{ja}:{line_of(ja, '## 次へ {#next}')}: missing section h3 #residual-vs-skip" in result.stderr
    assert result.stderr.splitlines()[-1] == "mark-current: 1 problem; nothing marked: fix them, or mark anyway with --force"
    assert ja.read_bytes() == before
    forced = run_cli("mark-current", "ja", "ffn-residual", "--force", "--content", str(content_copy))
    assert forced.returncode == 0, forced.stderr
    assert status(content_copy)["lessons"][1]["languages"]["ja"]["status"] == "current"
    assert run_cli("check", "--content", str(content_copy)).returncode == 1  # current, and it disagrees: an error


def test_mark_current_refuses_a_broken_trace_reference(content_copy):
    ja = content_copy / JA
    edit(ja, "{{on:b1 length}}", "{{on:b1 lenght}}")
    result = run_cli("mark-current", "ja", "ffn-residual", "--content", str(content_copy))
    assert result.returncode == 1
    assert "unknown field 'lenght'" in result.stderr


def test_mark_current_needs_lesson_names_or_all(content_copy):
    result = run_cli("mark-current", "ja", "--content", str(content_copy))
    assert result.returncode == 1 and "or give --all" in result.stderr
    edit(content_copy / ZH, *EDITED_SENTENCE)
    assert status(content_copy)["lessons"][1]["languages"]["ja"]["status"] == "outdated"
    marked = run_cli("mark-current", "ja", "--all", "--content", str(content_copy))
    assert marked.returncode == 0, marked.stderr
    assert marked.stdout.count("marked current") == 2
    assert run_cli("status", "--strict", "--content", str(content_copy)).returncode == 0


def test_mark_current_keeps_a_copy_of_the_source_for_the_next_diff(content_copy):
    edit(content_copy / ZH, *EDITED_SENTENCE)
    assert run_cli("mark-current", "ja", "ffn-residual", "--content", str(content_copy)).returncode == 0
    copy = content_copy / "ja" / "translated-from" / "ffn-residual.md"
    assert copy.read_text(encoding="utf-8") == (content_copy / ZH).read_text(encoding="utf-8")
    record = (content_copy / JA).read_text(encoding="utf-8")
    assert "source_hash" in record and "sections =" not in record  # compact: the copy holds the text
    edit(content_copy / ZH, "注意力混合信息", "注意力在位置之间混合信息")
    out = run_cli("status", "--diff", "ja", "ffn-residual", "--content", str(content_copy)).stdout
    assert "注意力{+在位置之间+}混合信息" in out and "都先做一次" not in out


def test_check_and_status_with_lang_show_only_that_languages_problems(content_copy):
    edit(content_copy / "zh" / "messages.po", 'msgstr "第 %(n)s 步，共 %(total)s 步"', 'msgstr "共 %(total)s 步"')
    everything = run_cli("check", "--content", str(content_copy))
    assert everything.returncode == 1 and "zh/messages.po" in everything.stderr
    ja = run_cli("check", "--lang", "ja", "--content", str(content_copy))
    assert ja.returncode == 0, ja.stderr
    assert ja.stdout.strip() == "check: no problems in ja (1 problem in other languages not shown)"
    zh = run_cli("check", "--lang", "zh", "--content", str(content_copy))
    assert zh.returncode == 1 and "zh/messages.po" in zh.stderr
    data = status(content_copy, "--lang", "ja")
    assert [c["lang"] for c in data["catalogs"]] == ["ja"] and set(data["progress"]) == {"ja"}
    assert set(data["lessons"][0]["languages"]) == {"ja"}
    assert "unknown language 'ko'" in run_cli("check", "--lang", "ko", "--content", str(content_copy)).stderr


def test_status_reports_progress_by_sections_and_characters(content_copy):
    data = status(content_copy)
    assert data["progress"]["ja"]["sections"]["current_percent"] == 100.0
    author_edits(content_copy)
    progress = status(content_copy)["progress"]["ja"]
    sections, characters = progress["sections"], progress["characters"]
    assert sections["translated"] == sections["total"] - 1  # the new section
    assert sections["current"] == sections["total"] - 2  # ... and the edited one
    assert 0 < characters["current"] < characters["translated"] < characters["total"]
    assert sections["translated_percent"] == round(100 * sections["translated"] / sections["total"], 1)
    table = run_cli("status", "--content", str(content_copy)).stdout
    assert f"ja: {sections['translated']} of {sections['total']} sections translated" in table


def test_check_says_one_warning_not_one_warnings(content_copy):
    edit(content_copy / ZH, *EDITED_SENTENCE)
    result = run_cli("check", "--content", str(content_copy))
    assert result.stdout.strip() == "check: no problems, 1 warning"


def test_check_reports_a_string_the_templates_need_without_running_catalog(tmp_path, content_copy):
    import shutil

    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    edit(templates / "list.html", '<h1>{{ _("Lessons") }}</h1>', '<h1>{{ _("Lessons") }}</h1>\n<p>{{ _("A brand new sentence") }}</p>')
    result = run_cli("check", "--content", str(content_copy), "--templates", str(templates))
    assert result.returncode == 0, result.stderr
    for lang in ("zh", "ja"):
        assert (f"{content_copy / lang / 'messages.po'}: warning: missing message 'A brand new sentence', shown in "
                "English (run `python -m builder catalog` to add it)") in result.stderr
    assert f"{content_copy / 'messages.pot'}: warning: out of date" in result.stderr
    assert run_cli("check", "--strict", "--content", str(content_copy), "--templates", str(templates)).returncode == 1


def test_a_changed_string_comes_back_fuzzy_with_its_previous_msgid(tmp_path, content_copy):
    import shutil

    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    edit(templates / "lesson.html", '_("Open the original")', '_("Open the original lesson")')
    assert run_cli("catalog", "--content", str(content_copy), "--templates", str(templates)).returncode == 0
    po = (content_copy / "ja" / "messages.po").read_text(encoding="utf-8")
    entry = po[po.index('#| msgid "Open the original"') - 40: po.index('msgid "Open the original lesson"') + 60]
    assert "#, fuzzy" in entry and '#| msgid "Open the original"' in entry and 'msgstr "原文を開く"' in entry
    result = run_cli("check", "--content", str(content_copy), "--templates", str(templates))
    assert result.returncode == 0 and "warning: fuzzy translation of 'Open the original lesson'" in result.stderr
    # Reviewed: the fuzzy flag removed, the next `catalog` drops the previous msgid.
    path = content_copy / "ja" / "messages.po"
    path.write_text(path.read_text(encoding="utf-8").replace('#, fuzzy\n#| msgid "Open the original"\n', '#| msgid "Open the original"\n'),
                    encoding="utf-8")
    assert run_cli("catalog", "--content", str(content_copy), "--templates", str(templates)).returncode == 0
    assert '#| msgid "Open the original"' not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("typed,named", [("ステップ ％(n)s / %(total)s", "full-width ％ in ％(n)s"),
                                         ("ステップ %（n）s / %(total)s", "full-width （ and ） in %（n）s")])
def test_a_full_width_placeholder_is_named_as_such(content_copy, typed, named):
    po = content_copy / "ja" / "messages.po"
    edit(po, 'msgstr "ステップ %(n)s / %(total)s"', f'msgstr "{typed}"')
    result = run_cli("check", "--content", str(content_copy))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    line = po.read_text(encoding="utf-8").splitlines().index(f'msgstr "{typed}"')
    assert f"{po}:{line}: {named} in the translation of 'Step %(n)s of %(total)s': type placeholders with the ASCII" \
        in result.stderr


def test_a_full_width_percent_sign_in_text_is_fine(content_copy):
    po = content_copy / "ja" / "messages.po"
    edit(po, 'msgstr "次のステップ"', 'msgstr "次のステップ（５０％）"')
    assert run_cli("check", "--content", str(content_copy)).returncode == 0


def test_a_wrong_placeholder_is_reported_once_on_the_catalog_not_on_a_template(content_copy):
    po = content_copy / "ja" / "messages.po"
    edit(po, 'msgstr "ステップ %(n)s / %(total)s"', 'msgstr "ステップ %(m)s / %(total)s"')
    result = run_cli("check", "--content", str(content_copy))
    lines = result.stderr.splitlines()
    assert result.returncode == 1 and lines[-1] == "check: 1 problem", lines
    assert lines[0].startswith(f"{po}:") and "placeholders ['m', 'total']" in lines[0]


def test_a_translators_preview_keeps_serving_while_another_language_has_problems(tmp_path, content_copy):
    from builder.serve import Preview

    edit(content_copy / "zh" / "messages.po", 'msgstr "第 %(n)s 步，共 %(total)s 步"', 'msgstr "共 %(total)s 步"')
    everyone = Preview(content_copy, tmp_path / "all", ROOT / "templates")
    assert everyone.rebuild().startswith("build failed: 1 problem")
    translator = Preview(content_copy, tmp_path / "ja", ROOT / "templates", lang="ja")
    log = translator.rebuild()
    assert log.startswith("rebuilt all pages") and log.endswith("(1 problem in other languages not shown)"), log
    assert translator.errors == [] and (tmp_path / "ja" / "ja" / "ffn-residual.html").is_file()
    # Their own mistakes still show.
    edit(content_copy / JA, "{{on:b1 length}}", "{{on:b1 lenght}}")
    assert translator.rebuild({content_copy / JA}).startswith("build failed: ")
    assert any("unknown field 'lenght'" in error for error in translator.errors)
    assert all("zh/messages.po" not in error for error in translator.errors)


def test_serve_takes_lang_and_refuses_an_unknown_one(content_copy, tmp_path):
    from builder.cli import _parser

    assert _parser().parse_args(["serve", "--lang", "ja"]).lang == "ja"
    result = run_cli("serve", "--lang", "ko", "--port", "0", "--content", str(content_copy), "--out", str(tmp_path / "d"))
    assert result.returncode == 1 and "unknown language 'ko'" in result.stderr and "Traceback" not in result.stderr
