"""Imports point one way: cli → build → stages → engine. The engine is a numpy-only leaf."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "builder"
# Each module may import only the modules listed (of ours); anything else is a dependency cycle in the making.
ALLOWED = {
    "engine": set(),
    "errors": set(),
    "sources": {"errors"},
    "mathml": set(),
    "output": {"errors"},
    "scenarios": {"engine", "errors", "sources"},
    "i18n": {"errors", "sources"},
    "content": {"errors", "i18n", "sources"},
    "figures": {"engine", "i18n", "scenarios"},
    "markdown": {"errors", "mathml"},
    "pages": {"errors"},
    "catalogs": {"errors", "i18n", "scenarios"},
    "checks": {"content", "errors", "markdown"},
    "translation": {"content", "errors", "i18n", "scenarios"},
    "site": {"content", "errors", "figures", "i18n", "markdown", "pages", "scenarios", "sources", "translation"},
    "build": {"catalogs", "checks", "content", "errors", "i18n", "markdown", "output", "pages", "scenarios", "site",
              "translation"},
    "serve": {"build", "checks", "errors", "output", "site"},
    "cli": {"build", "catalogs", "errors", "serve", "translation"},
    "__main__": {"cli"},
    "__init__": set(),
}


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "builder":
                names |= {alias.name for alias in node.names}
            elif node.module.startswith("builder."):
                names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("builder.")}
    return names


def test_every_module_is_accounted_for():
    assert {p.stem for p in PACKAGE.glob("*.py")} == set(ALLOWED)


def test_imports_point_one_way():
    for path in PACKAGE.glob("*.py"):
        assert imports_of(path) <= ALLOWED[path.stem], f"{path.name} imports {imports_of(path) - ALLOWED[path.stem]}"


def test_engine_is_a_numpy_only_leaf():
    tree = ast.parse((PACKAGE / "engine.py").read_text(encoding="utf-8"))
    modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    modules |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert modules <= {"numpy", "__future__", "dataclasses"}


def test_javascript_has_no_strings_of_its_own():
    import re

    script = (PACKAGE.parent / "templates" / "assets" / "lesson.js").read_text(encoding="utf-8")
    code = re.sub(r"//.*", "", script)
    # Any quoted text with letters outside the small set of identifiers the code needs is a UI string.
    words = set(re.findall(r'"([^"\n]*[A-Za-z\u3040-\u9fff][^"\n]*)"', code))
    allowed = re.compile(r"^([#.\[\]\w:-]+|[\w-]+(=[\w-]+)?|#?[a-z-]+( [a-z-]+)*|.*\.js|\^.*)$")
    suspicious = {w for w in words if " " in w and not allowed.match(w)}
    assert not {w for w in suspicious if re.search(r"[\u3040-\u9fff]|\b(the|step|block|residual)\b", w, re.I)}, suspicious
