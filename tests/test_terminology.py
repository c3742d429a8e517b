"""The terminology check: each variant the glossary asks to avoid is reported where a translator wrote it,
with its line and the preferred term; code, math, diagrams and alias notes are not prose."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, build_site, parse

GLOSSARY = """
[[terms]]
en = "block"
zh = "块"
ja = "ブロック"
avoid.zh = ["层"]
allow.zh = ["两层"]
avoid.ja = ["段"]
allow.ja = ["段階"]

[[terms]]
en = "sublayer"
zh = "子层"
ja = "サブレイヤー"

[[terms]]
en = "layer normalisation"
zh = "层归一化"
ja = "層正規化"
avoid.zh = ["LayerNorm"]

[[terms]]
en = "token"
zh = "token"
ja = "トークン"
avoid.ja = ["token"]
"""


def terminology(content):
    from builder.build import check

    return [str(w) for w in check(content, ROOT / "templates") if "terminology" in w.message]


def append(path, text) -> int:
    """Append `text` to a lesson; return the file line its first line lands on."""
    before = path.read_text(encoding="utf-8")
    path.write_text(before.rstrip("\n") + "\n\n" + text, encoding="utf-8")
    return before.rstrip("\n").count("\n") + 3


@pytest.fixture
def glossed(content_copy):
    (content_copy / "glossary.toml").write_text(GLOSSARY, encoding="utf-8")
    return content_copy


def test_a_planted_variant_is_reported_with_its_line_and_the_preferred_term(glossed):
    lesson = glossed / "zh" / "transformer-block.md"
    line = append(lesson, "残差流在这一层被更新两次。\n")
    assert terminology(glossed) == [f"{lesson}:{line}: warning: terminology: write “块” (block), not “层”"]


def test_variants_are_found_in_headings_tables_lists_captions_and_later_lines_of_a_paragraph(glossed):
    append(glossed / "ja" / "transformer-block.md", "## ブロック {#planted}\n")  # the sections must match
    lesson = glossed / "zh" / "transformer-block.md"
    line = append(lesson, "第一行没有问题，\n第二行有 LayerNorm。\n\n## 每一层 {#planted}\n\n| 甲 | 乙 |\n|---|---|\n"
                          "| 一 | 第二层 |\n\n- 列表里的层\n\n::: diagram 图题里的层\n```text\n层\n```\n:::\n")
    found = terminology(glossed)
    lines = sorted(int(w.split(":")[1]) for w in found)
    assert lines == [line + 1, line + 3, line + 7, line + 9, line + 11], found
    assert f"{lesson}:{line + 1}: warning: terminology: write “层归一化” (layer normalisation), not “LayerNorm”" in found


def test_code_math_diagrams_alias_notes_and_longer_terms_are_not_reported(glossed):
    append(glossed / "zh" / "transformer-block.md",
           "代码 `层` 不算，公式 $\\text{层}$ 不算，[层]{alias}是一个别名注记。层归一化和两层网络都没问题。\n\n"
           "```python\nx = layer_norm(x)  # 每一层\n```\n")
    assert terminology(glossed) == []


def test_an_alias_note_prints_the_word_alone(tmp_path, glossed):
    append(glossed / "zh" / "transformer-block.md", "前馈网络（[FFN]{alias}）在每个位置上单独计算。\n")
    tree = parse(build_site(glossed, tmp_path / "dist") / "zh" / "transformer-block.html")
    paragraph = next(p for p in tree.css("article p") if "在每个位置上单独计算" in p.text())
    assert paragraph.text() == "前馈网络（FFN）在每个位置上单独计算。"


def test_latin_variants_match_whole_words_and_case(glossed):
    append(glossed / "ja" / "transformer-block.md", "各 token のベクトル。tokens や Token は別の語です。\n")
    found = terminology(glossed)
    assert len(found) == 1 and found[0].endswith("write “トークン” (token), not “token”")


def test_the_front_matter_title_and_summary_are_prose(glossed):
    lesson = glossed / "ja" / "ffn-residual.md"
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(text.replace('summary = "', 'summary = "段を重ねる。', 1), encoding="utf-8")
    line = next(n for n, row in enumerate(text.split("\n"), 1) if row.startswith("summary"))
    assert terminology(glossed) == [f"{lesson}:{line}: warning: terminology: write “ブロック” (block), not “段”"]


def test_a_variant_in_a_catalog_is_reported_on_its_msgstr_line(glossed):
    po = glossed / "zh" / "messages.po"
    lines = po.read_text(encoding="utf-8").split("\n")
    number = next(n for n, row in enumerate(lines, 1) if row == 'msgstr "深度（块数）"')
    lines[number - 1] = 'msgstr "深度（层数）"'
    po.write_text("\n".join(lines), encoding="utf-8")
    assert terminology(glossed) == [f"{po}:{number}: warning: terminology: write “块” (block), not “层”"]


def test_placeholders_in_a_catalog_are_not_prose(glossed):
    glossary = glossed / "glossary.toml"
    glossary.write_text(GLOSSARY + '\n[[terms]]\nen = "number"\nzh = "数"\nja = "数"\navoid.zh = ["n"]\n', encoding="utf-8")
    assert terminology(glossed) == []  # %(n)s is everywhere in the catalog


def test_check_prints_the_warning_and_still_succeeds(glossed):
    lesson = glossed / "zh" / "transformer-block.md"
    line = append(lesson, "这一层。\n")
    result = subprocess.run([sys.executable, "-m", "builder", "check", "--content", str(glossed)], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert f"{lesson}:{line}: warning: terminology: write “块” (block), not “层”" in result.stderr.splitlines()


@pytest.mark.parametrize("entry,message", [
    ('[[terms]]\nen = "block"\nzh = "块"\navoid.zh = "层"\n', "terms[0]: `avoid` maps a language"),
    ('[[terms]]\nen = "block"\nzh = "块"\navoid.zh = ["块"]\n', "is both the preferred form and a variant"),
    ('[[terms]]\nen = "block"\navoid.zh = ["层"]\n', "variants to avoid in 'zh' but no preferred form"),
    ('[[terms]]\nzh = "块"\n', "needs `en`"),
    ('[[terms]]\nen = "block"\nzh = "块"\nfr = "bloc"\n', "unknown key 'fr'"),
    ('[[terms]]\nen = "block"\nzh = "块"\nwrap.zh = "块|状"\n', "`wrap.<lang>` is the preferred form with `|`"),
])
def test_a_malformed_glossary_is_reported_with_its_line(content_copy, entry, message):
    from builder.build import check
    from builder.errors import UserError

    (content_copy / "glossary.toml").write_text("# terms\n\n" + entry, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        check(content_copy, ROOT / "templates")
    problems = [str(p) for p in caught.value.problems]
    assert len(problems) == 1 and problems[0].startswith(f"{content_copy / 'glossary.toml'}:") and message in problems[0]
    assert int(problems[0].split(":")[1]) >= 3  # the entry's own line, not the file's first


@pytest.mark.parametrize("lang,planted,variants", [("zh", "前馈网络的隐藏层有四个单元。", ["隐藏层"]),
                                                   ("zh", "隐层和隐含层也一样。", ["隐层", "隐含层"]),
                                                   ("ja", "FFN の隠れ層には四つのユニットがあります。", ["隠れ層"])])
def test_the_real_glossary_names_the_ffns_hidden_layer_as_the_lessons_do(real_content_copy, lang, planted, variants):
    """The lessons call it 中间层 / 中間層 throughout; a textbook synonym is reported as that term's variant, and
    only so (its 层 / 層 is not also taken for a block)."""
    preferred = {"zh": "中间层", "ja": "中間層"}[lang]
    lesson = real_content_copy / lang / "ffn-residual.md"
    assert lesson.read_text(encoding="utf-8").count(preferred) >= 3
    line = append(lesson, planted + "\n")
    assert terminology(real_content_copy) == [
        f"{lesson}:{line}: warning: terminology: write “{preferred}” (the FFN's hidden layer), not “{variant}”" for variant in variants]


def test_an_asides_title_is_prose(glossed):
    lesson = glossed / "zh" / "transformer-block.md"
    line = append(lesson, "::: aside 每一层的说明\n正文。\n:::\n")
    assert terminology(glossed) == [f"{lesson}:{line}: warning: terminology: write “块” (block), not “层”"]
