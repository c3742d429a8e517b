"""A synthetic course, written three ways: for our builder, for Hugo and for MkDocs.

Every lesson has front matter, headings, paragraphs, a list, a table, a fenced Python block and
a link to the next lesson; every second lesson names the real scenario, embeds its depth map and
prints trace values. The peers get the same Markdown with our extensions rewritten to what they
understand: trace references replaced by the very text our builder prints for them, the figure
container dropped (they have no engine), YAML front matter for MkDocs.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("zh", "ja")

# One phrasebook per language; the lesson number varies every page so no two pages are the same.
WORDS = {
    "zh": {
        "title": "合成课程第 {n} 课：残差流的第 {n} 次更新",
        "summary": "基准测试用的合成课：标题、段落、列表、表格、代码和链接。",
        "intro": "这是第 {n} 课。每个块先把输入归一化，再交给注意力或前馈网络计算一个修正量，最后把修正量加回残差流。"
                 "这样一个块接一个块叠起来，向量逐步积累上下文信息，而原来的身份信息仍然保留在流里。",
        "h_steps": "更新的步骤",
        "steps": ["先对当前向量做层归一化。", "注意力从其他位置收集信息，得到第一个修正量。",
                  "前馈网络在每个位置内部加工，得到第二个修正量。", "两个修正量依次加回残差流。"],
        "trace": "在河岸这个例子里，块 1 的注意力修正量约为 {{on:b1.attention}}，三个块之后向量约为 {{on:b3}}；"
                 "关掉残差时，六个块之后的长度约为 {{off:b6 length}}。",
        "h_table": "各部分的作用",
        "table": [("部分", "作用", "参数个数"), ("注意力", "在位置之间搬运信息", "{a}"),
                  ("前馈网络", "在位置内部做非线性加工", "{b}"), ("层归一化", "稳定每个子层的输入尺度", "{c}")],
        "h_code": "用代码表示",
        "code_intro": "下面的伪代码和本课的公式一一对应：",
        "figure": "拖动深度，或者关掉残差，看看深度图怎么变化。",
        "h_next": "接下来",
        "next": "继续阅读[下一课]({href})，或者回到[课程列表](index.html)。",
    },
    "ja": {
        "title": "合成コース第 {n} 課：残差ストリームの {n} 回目の更新",
        "summary": "ベンチマーク用の合成課：見出し、段落、リスト、表、コード、リンク。",
        "intro": "これは第 {n} 課です。各ブロックは入力をまず正規化し、注意またはフィードフォワードネットワークで修正を計算し、"
                 "最後にその修正を残差ストリームに足し戻します。ブロックを重ねるごとにベクトルは文脈の情報をためていき、元の身元の情報もストリームに残ります。",
        "h_steps": "更新の手順",
        "steps": ["いまのベクトルを層正規化する。", "注意がほかの位置から情報を集め、最初の修正を作る。",
                  "フィードフォワードネットワークが各位置の中で処理し、二つ目の修正を作る。", "二つの修正を順に残差ストリームへ足し戻す。"],
        "trace": "川岸の例では、ブロック 1 の注意の修正はおよそ {{on:b1.attention}}、三つのブロックの後のベクトルはおよそ {{on:b3}} です。"
                 "残差を切ると、六つのブロックの後の長さはおよそ {{off:b6 length}} です。",
        "h_table": "各部品の役割",
        "table": [("部品", "役割", "パラメーター数"), ("注意", "位置のあいだで情報を運ぶ", "{a}"),
                  ("フィードフォワードネットワーク", "位置の中で非線形の処理をする", "{b}"), ("層正規化", "各サブレイヤーの入力の尺度を安定させる", "{c}")],
        "h_code": "コードで表す",
        "code_intro": "次の疑似コードは、この課の式と一対一に対応します。",
        "figure": "深さを動かしたり残差を切ったりして、深さマップの変化を見てください。",
        "h_next": "次へ",
        "next": "[次の課]({href})へ進むか、[課の一覧](index.html)に戻ってください。",
    },
}

CODE = '''```python
def block_{n}(x):
    x = x + attention(layer_norm(x))   # first correction
    x = x + ffn(layer_norm(x))         # second correction
    return x  # lesson {n}
```'''


def lesson_body(lang: str, n: int, lessons: int, with_scenario: bool) -> str:
    """The Markdown body of lesson `n` (1-based) in our dialect."""
    w = WORDS[lang]
    rows = [[cell.format(a=4 * n, b=8 * n, c=2 * n) for cell in row] for row in w["table"]]
    table = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    table += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    following = f"lesson-{n % lessons + 1:03d}.html"
    parts = [
        w["intro"].format(n=n),
        f"## {w['h_steps']} {{#steps}}",
        "\n".join(f"{i}. {step}" for i, step in enumerate(w["steps"], 1)),
    ]
    if with_scenario:
        parts += [w["trace"], w["figure"], "::: interactive\n:::"]
    parts += [
        f"## {w['h_table']} {{#parts}}",
        "\n".join(table),
        f"## {w['h_code']} {{#code}}",
        w["code_intro"],
        CODE.format(n=n),
        f"## {w['h_next']} {{#next}}",
        w["next"].format(href=following),
    ]
    return "\n\n".join(parts) + "\n"


def front_matter(lang: str, n: int, with_scenario: bool) -> dict:
    w = WORDS[lang]
    meta = {"title": w["title"].format(n=n), "order": n, "summary": w["summary"]}
    if with_scenario:
        meta.update(scenario="river-bank", figure="depth-map")
    return meta


def toml(meta: dict) -> str:
    def value(v):
        return str(v) if isinstance(v, int) else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "\n".join(f"{key} = {value(v)}" for key, v in meta.items())


def lessons_of(count: int):
    """Yield (lang, slug, n, with_scenario) for every lesson of the course."""
    for lang in LANGUAGES:
        for n in range(1, count + 1):
            yield lang, f"lesson-{n:03d}", n, n % 2 == 1


def write_ours(folder: Path, count: int) -> Path:
    """Our content folder: the real site.toml, catalogs, glossary and scenario, plus the synthetic lessons."""
    content = folder / "content"
    if content.exists():
        shutil.rmtree(content)
    content.mkdir(parents=True)
    real = ROOT / "content"
    for name in ("site.toml", "glossary.toml", "messages.pot"):
        shutil.copy2(real / name, content / name)
    shutil.copytree(real / "scenarios", content / "scenarios")
    shutil.copytree(real / "models", content / "models")
    for lang in LANGUAGES:
        (content / lang).mkdir()
        shutil.copy2(real / lang / "messages.po", content / lang / "messages.po")
    for lang, slug, n, with_scenario in lessons_of(count):
        text = f"+++\n{toml(front_matter(lang, n, with_scenario))}\n+++\n\n{lesson_body(lang, n, count, with_scenario)}"
        (content / lang / f"{slug}.md").write_text(text, encoding="utf-8")
    # The translations are current: record it as a translator would, so the build prints no warnings.
    sys.path.insert(0, str(ROOT))
    from builder.status import mark_current
    mark_current(content, ROOT / "templates", "ja", [], every=True, force=True)
    return content


def peer_body(lang: str, n: int, count: int, with_scenario: bool, values) -> str:
    """The same body for the peers: trace references become the text we print, no figure container."""
    body = lesson_body(lang, n, count, with_scenario).replace("::: interactive\n:::\n\n", "")
    return re.sub(r"\{\{(.+?)\}\}", lambda m: values[lang](m.group(1)), body)


def trace_printer():
    """Return {lang: ref -> text}, the figures exactly as our builder prints them."""
    sys.path.insert(0, str(ROOT))
    from builder.references import TraceValues
    from builder.i18n import load_site_config
    from builder.scenarios import load_scenario

    scenario = load_scenario(ROOT / "content" / "scenarios" / "river-bank.toml")
    locales = {lang.code: lang.locale for lang in load_site_config(ROOT / "content").languages}
    return {lang: (lambda ref, v=TraceValues({scenario.name: scenario}, scenario.name, locales[lang]): v.resolve(ref)[0])
            for lang in LANGUAGES}


HUGO_CONFIG = """\
baseURL = "https://example.org/"
title = "Synthetic course"
defaultContentLanguage = "zh"
defaultContentLanguageInSubdir = true
disableKinds = ["taxonomy", "term", "RSS"]
relativeURLs = true
uglyURLs = true  # lesson-001.html, as ours

[languages.zh]
contentDir = "content/zh"
languageName = "中文"
languageCode = "zh-Hans"
weight = 1

[languages.ja]
contentDir = "content/ja"
languageName = "日本語"
languageCode = "ja"
weight = 2

[markup.highlight]
noClasses = false

[markup.tableOfContents]
startLevel = 2
endLevel = 3
"""

# Hugo layouts that do what our pages do: language switcher, lesson list, contents, previous/next.
HUGO_LAYOUTS = {
    "_default/baseof.html": """<!doctype html>
<html lang="{{ .Site.Language.LanguageCode }}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} · {{ .Site.Title }}</title>
{{ range .AllTranslations }}<link rel="alternate" hreflang="{{ .Language.LanguageCode }}" href="{{ .RelPermalink }}">{{ end }}
<link rel="stylesheet" href="{{ "site.css" | relURL }}"></head>
<body><header><nav>{{ range .AllTranslations }}<a href="{{ .RelPermalink }}" lang="{{ .Language.LanguageCode }}">{{ .Language.LanguageName }}</a> {{ end }}</nav></header>
<main>{{ block "main" . }}{{ end }}</main></body></html>
""",
    "_default/single.html": """{{ define "main" }}<article><h1>{{ .Title }}</h1>
<nav aria-label="contents">{{ .TableOfContents }}</nav>
{{ .Content }}
<nav>{{ with .PrevInSection }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}
{{ with .NextInSection }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</nav></article>{{ end }}
""",
    "_default/list.html": """{{ define "main" }}<h1>{{ .Title }}</h1><ol>
{{ range .Pages.ByWeight }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a><p>{{ .Params.summary }}</p></li>{{ end }}
</ol>{{ end }}
""",
}


def write_hugo(folder: Path, count: int) -> Path:
    site = folder / "hugo"
    if site.exists():
        shutil.rmtree(site)
    values = trace_printer()
    for name, text in HUGO_LAYOUTS.items():
        path = site / "layouts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (site / "hugo.toml").write_text(HUGO_CONFIG, encoding="utf-8")
    (site / "static").mkdir()
    shutil.copy2(ROOT / "templates" / "assets" / "site.css", site / "static" / "site.css")
    for lang, slug, n, with_scenario in lessons_of(count):
        meta = front_matter(lang, n, with_scenario)
        meta["weight"] = meta.pop("order")
        path = site / "content" / lang / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"+++\n{toml(meta)}\n+++\n\n{peer_body(lang, n, count, with_scenario, values)}", encoding="utf-8")
    return site


MKDOCS_CONFIG = """\
site_name: Synthetic course
use_directory_urls: false
theme:
  name: mkdocs
markdown_extensions:
  - tables
  - attr_list
  - toc
  - fenced_code
  - codehilite
plugins:
  - i18n:
      docs_structure: folder
      languages:
        - locale: zh
          default: true
          name: 中文
          build: true
        - locale: ja
          name: 日本語
          build: true
"""


def write_mkdocs(folder: Path, count: int) -> Path:
    site = folder / "mkdocs"
    if site.exists():
        shutil.rmtree(site)
    values = trace_printer()
    (site / "docs").mkdir(parents=True)
    (site / "mkdocs.yml").write_text(MKDOCS_CONFIG, encoding="utf-8")
    for lang in LANGUAGES:
        (site / "docs" / lang).mkdir()
        (site / "docs" / lang / "index.md").write_text(f"# {lang}\n", encoding="utf-8")
    for lang, slug, n, with_scenario in lessons_of(count):
        meta = front_matter(lang, n, with_scenario)
        yaml = "\n".join(f"{key}: {value!r}" if isinstance(value, int) else f'{key}: "{value}"' for key, value in meta.items())
        (site / "docs" / lang / f"{slug}.md").write_text(
            f"---\n{yaml}\n---\n\n# {meta['title']}\n\n"
            + peer_body(lang, n, count, with_scenario, values).replace(".html)", ".md)"), encoding="utf-8")
    return site
