"""Imports point one way: cli → build → stages → engine. The engine is a numpy-only leaf."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "builder"
# Every folder under builder/figures/ is a figure kind's unit.
KIND_UNITS = {f"figures.{p.parent.name}" for p in (PACKAGE / "figures").glob("*/__init__.py")}
# Each module may import only the modules listed (of ours); anything else is a dependency cycle in the making.
ALLOWED = {
    "engine": set(),
    "errors": set(),
    "sources": {"errors"},
    "steps": set(),
    "mathml": set(),
    "cjk": set(),
    "inline_tokens": set(),
    "foreign": {"inline_tokens"},
    "math_glue": {"inline_tokens"},
    "typesetting": set(),
    "word_glue": set(),
    "search": {"mathml"},  # a formula as one line of text
    "output": {"errors"},
    "models": {"engine", "errors", "sources", "steps"},
    "scenarios": {"engine", "errors", "models", "sources"},
    "i18n": {"errors", "sources"},
    "content": {"errors", "i18n", "sources", "steps"},
    "references": {"engine", "i18n", "scenarios", "steps"},
    "markdown": {"cjk", "foreign", "errors", "math_glue", "mathml", "typesetting", "word_glue"},
    "pages": {"errors", "typesetting", "word_glue"},
    "catalogs": {"errors", "i18n", "scenarios", "sources"},
    "checks": {"content", "errors", "markdown", "translation"},
    "terminology": {"errors", "sources"},
    "links": {"errors"},  # links in the lessons, checked on the rendered pages
    "translation": {"content", "errors", "sources"},
    "sourcediff": {"translation"},
    # A figure kind imports only the figures package's shared parts, the grammar and the engine's limits.
    "figures": {"i18n", "scenarios", "steps", *KIND_UNITS},
    "figures.chart": set(),
    "figures.tokens": {"engine"},
    **{unit: {"figures", "figures.chart", "figures.tokens", "steps"} for unit in KIND_UNITS},
    "figures.page": {"figures", "figures.chart", "i18n", "pages", "scenarios", "steps", "typesetting"},
    "lesson_page": {"checks", "content", "errors", "figures.page", "i18n", "markdown", "pages", "references",
                    "scenarios", "search", "terminology", "translation"},
    "workers": {"figures", "lesson_page", "markdown"},
    "publish": {"errors", "figures", "markdown", "sources"},
    "site": {"content", "errors", "lesson_page", "markdown", "pages", "publish", "search", "workers"},
    "build": {"catalogs", "checks", "content", "errors", "figures", "i18n", "links", "markdown", "output", "pages", "publish",
              "scenarios", "site", "sources", "terminology", "translation"},
    "serve": {"build", "errors", "output", "site"},
    # The authors' commands: skeletons and a scenario's numbers.
    "authoring": {"content", "errors", "i18n", "markdown", "models", "references", "scenarios", "sources", "steps"},
    # The translators' commands reuse the build's checks.
    "status": {"build", "catalogs", "checks", "content", "errors", "i18n", "scenarios", "site", "sourcediff",
               "translation"},
    "cli": {"authoring", "build", "catalogs", "errors", "figures", "serve", "status"},
    "__main__": {"cli"},
    "__init__": set(),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "builder":
                names |= {alias.name for alias in node.names}
            elif node.module.startswith("builder."):
                module = node.module[len("builder."):]
                if module == "figures" and any(f"figures.{a.name}" in ALLOWED for a in node.names):
                    names |= {f"figures.{a.name}" for a in node.names if f"figures.{a.name}" in ALLOWED}
                    names |= {"figures"} if any(f"figures.{a.name}" not in ALLOWED for a in node.names) else set()
                else:
                    names.add(module)
        elif isinstance(node, ast.Import):
            names |= {a.name[len("builder."):] for a in node.names if a.name.startswith("builder.")}
    return names


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def test_every_module_is_accounted_for():
    assert set(modules()) == set(ALLOWED)


def test_imports_point_one_way():
    for name, path in modules().items():
        assert imports_of(path) - {name} <= ALLOWED[name], f"{name} imports {imports_of(path) - ALLOWED[name]}"


def test_engine_is_a_numpy_only_leaf():
    tree = ast.parse((PACKAGE / "engine.py").read_text(encoding="utf-8"))
    found = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    found |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert found <= {"numpy", "__future__", "dataclasses"}


def string_literals(code: str) -> list[str]:
    """The string literals of a JavaScript source (comments and regular expression literals skipped)."""
    out, i, last = [], 0, ""
    while i < len(code):
        c = code[i]
        if code.startswith("//", i):
            i = code.find("\n", i) % (len(code) + 1)
            continue
        if c in "\"'`":
            j, buf = i + 1, []
            while j < len(code) and code[j] != c:
                if code[j] == "\\":
                    j += 1
                buf.append(code[j])
                j += 1
            out.append("".join(buf))
            i, last = j + 1, c
            continue
        if c == "/" and last in "(,=:[!&|?{};":  # a regular expression literal
            j = i + 1
            while j < len(code) and code[j] != "/":
                j += 2 if code[j] == "\\" else 1
            i, last = j + 1, "/"
            continue
        if not c.isspace():
            last = c
        i += 1
    return out


def test_javascript_has_no_strings_of_its_own():
    import re

    scripts = sorted((PACKAGE.parent / "templates" / "assets").glob("*.js"))
    assert {"lesson.js", "site.js", "search.js"} <= {path.name for path in scripts}
    for path in scripts:
        name, script = path.name, path.read_text(encoding="utf-8")
        prose = [s for s in string_literals(script)
                 if re.search(r"[\u3040-\u9fff]", s) or re.search(r"\b[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}\b", s)]
        assert prose == [], f"{name}: {prose}"


def test_the_javascript_knows_no_figure_kind_and_no_step_grammar():
    import re

    script = (PACKAGE.parent / "templates" / "assets" / "lesson.js").read_text(encoding="utf-8")
    literals = set(string_literals(script))
    assert not literals & {"depth-map", "norm-compare", "attention", "sum", "ffn", "pre-on", "pre-off", "post-on"}
    assert not [s for s in literals if re.fullmatch(r"b\d.*", s)]
    assert "attention|ffn" not in script and "b(\\d)" not in script  # no step pattern of its own
