"""The corpus in tests/bad-inputs/: every broken input gives a one-line message naming the file (and the
line where there is one), a non-zero exit, no traceback, and leaves an existing dist/ byte-for-byte unchanged."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, build_site, copy_fixture
from test_site import tree_digest

CASES = sorted((Path(__file__).parent / "bad-inputs").glob("*.toml"))


def test_the_corpus_has_at_least_25_cases():
    assert len(CASES) >= 25


def apply(edit: dict, content: Path, tmp: Path) -> None:
    name = edit["file"].replace("{tmp}", str(tmp))
    path = Path(name) if name.startswith(str(tmp)) else (tmp / name if name.startswith("templates/") else content / name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if "mkdir" in edit:
        path.mkdir()
    elif "symlink_to" in edit:
        path.symlink_to(edit["symlink_to"].replace("{tmp}", str(tmp)))
    elif "write" in edit:
        path.write_text(edit["write"], encoding="utf-8")
    elif "copy_from" in edit:
        shutil.copy(content / edit["copy_from"], path)
    elif edit.get("delete"):
        path.unlink()
    elif "replace" in edit:
        old, new = edit["replace"]
        new = (new.replace("{deep}", "[" * 5000 + "]" * 5000).replace("{huge}", "9" * 5000)
               .replace("{many_words}", ", ".join(['"bank"'] * 1000)))
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{path}: {old!r} not found; the case is out of date"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    elif "append" in edit:
        with path.open("a", encoding="utf-8") as file:
            file.write(edit["append"].replace("{deep}", "[" * 5000 + "]" * 5000))
    elif "hex" in edit:
        lines = path.read_bytes().split(b"\n")
        n = edit["append_hex_after_line"]
        lines[n] = bytes.fromhex(edit["hex"]) + lines[n]
        path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_broken_input_is_reported_in_one_line_and_dist_is_untouched(tmp_path, case):
    spec = tomllib.loads(case.read_text(encoding="utf-8"))
    content, templates, out = tmp_path / "content", tmp_path / "templates", tmp_path / "dist"
    copy_fixture(content)
    shutil.copytree(ROOT / "templates", templates)
    build_site(content, out)
    before = tree_digest(out)
    for edit in spec.get("edit", []):
        apply(edit, content, tmp_path)

    args = [a.replace("{tmp}", str(tmp_path)) for a in spec.get("args", [])]
    command = [a.replace("{tmp}", str(tmp_path)) for a in spec.get("command", [])] or [
        "build", "--content", str(content), "--templates", str(templates), "--out", str(out), *args]
    result = subprocess.run([sys.executable, "-m", "builder", *command], cwd=ROOT, capture_output=True, text=True)

    assert result.returncode == spec.get("exit_code", 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    if "expect_file" in spec:
        name = spec["expect_file"]
        base = tmp_path if name.startswith("templates/") or "{tmp}" in str(spec.get("args")) else content
        line = spec.get("expect_line")
        if "expect_line_of" in spec:  # the line of the edited file that reads exactly this
            edited = (base / name).read_text(encoding="utf-8").splitlines()
            line = next(i for i, text in enumerate(edited, 1) if text.strip() == spec["expect_line_of"])
        prefix = f"{base / name}:" + (f"{line}:" if line else "")
        matching = [line for line in lines if line.startswith(prefix) and spec["expect"] in line]
        assert matching, f"no line starting {prefix!r} and containing {spec['expect']!r}:\n{result.stderr}"
        if command[0] == "build":
            assert lines[-1].startswith(("build: ", "build --strict: ")) and lines[-1].endswith("nothing written")
        else:
            assert lines[-1].startswith(f"{command[0]}: ")
    else:
        assert spec["expect"] in result.stderr
    assert tree_digest(out) == before, "an existing dist/ changed"
