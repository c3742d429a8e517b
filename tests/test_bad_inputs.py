"""The corpus in tests/bad-inputs/: every broken input gives a one-line message naming the file (and the
line where there is one), a non-zero exit, no traceback, and leaves an existing dist/ byte-for-byte unchanged,
and every other file too (a failed command writes nothing anywhere, and never through a link).

Edits a case may make (`[[edit]]`, applied in order; `file` is under content/, or templates/..., or {tmp}/...):
write, append, replace = [old, new], copy_from, delete, mkdir, mkfifo, symlink_to, hex + append_hex_after_line.
Text may use {deep} (brackets 5000 deep), {huge} (a 5000-digit number), {many_words}, and {repeat:N:TEXT}
(TEXT N times)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
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


def expand(text: str) -> str:
    text = (text.replace("{deep}", "[" * 5000 + "]" * 5000).replace("{huge}", "9" * 5000)
            .replace("{many_words}", ", ".join(['"bank"'] * 1000)))
    return re.sub(r"\{repeat:(\d+):(.*?)\}", lambda m: m.group(2) * int(m.group(1)), text, flags=re.S)


def apply(edit: dict, content: Path, tmp: Path) -> None:
    name = edit["file"].replace("{tmp}", str(tmp))
    path = Path(name) if name.startswith(str(tmp)) else (tmp / name if name.startswith("templates/") else content / name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if "mkdir" in edit:
        path.mkdir()
    elif "mkfifo" in edit:
        os.mkfifo(path)
    elif "symlink_to" in edit:
        path.symlink_to(edit["symlink_to"].replace("{tmp}", str(tmp)))
    elif "write" in edit:
        path.write_text(expand(edit["write"]), encoding="utf-8")
    elif "copy_from" in edit:
        shutil.copy(content / edit["copy_from"], path)
    elif edit.get("delete"):
        path.unlink()
    elif "replace" in edit:
        old, new = edit["replace"]
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{path}: {old!r} not found; the case is out of date"
        path.write_text(text.replace(old, expand(new), 1), encoding="utf-8")
    elif "append" in edit:
        with path.open("a", encoding="utf-8") as file:
            file.write(expand(edit["append"]))
    elif "hex" in edit:
        lines = path.read_bytes().split(b"\n")
        n = edit["append_hex_after_line"]
        lines[n] = bytes.fromhex(edit["hex"]) + lines[n]
        path.write_bytes(b"\n".join(lines))


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under `folder`, links not followed: (kind, content digest or link target, mode)."""
    entries = {}
    for where, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = Path(where) / name
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                entries[str(path.relative_to(folder))] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                entries[str(path.relative_to(folder))] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(),
                                                          stat.S_IMODE(info.st_mode))
            else:
                entries[str(path.relative_to(folder))] = ("dir" if stat.S_ISDIR(info.st_mode) else "other",
                                                          stat.S_IMODE(info.st_mode))
    return entries


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
    everything = snapshot(tmp_path)
    result = subprocess.run([sys.executable, "-m", "builder", *command], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)  # a FIFO once made the build wait forever

    assert result.returncode == spec.get("exit_code", 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert "\x1b" not in result.stderr + result.stdout, "a control character from the content reached the terminal"
    assert snapshot(tmp_path) == everything, "a failed command changed, made or removed a file"
    lines = result.stderr.strip().splitlines()
    summary = re.fullmatch(r"\w[\w-]*( --strict)?: (\d+) problems?(, (\d+) warnings?)?(, nothing written)?", lines[-1]) \
        if lines else None
    if summary:  # one problem, one line: nothing in a message may start a line of its own
        assert len(lines) - 1 == int(summary.group(2)) + int(summary.group(4) or 0), result.stderr
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
