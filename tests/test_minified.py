"""Our scripts as published: shortened once by tools/minify_scripts.py (local names renamed), kept in
templates/minified/ with the hash of the source they were made from, and used only while it matches."""

from __future__ import annotations

import hashlib
import importlib.util
import sys

from conftest import ROOT

from builder.publish import MINIFIED_HEADER, minified

sys.path.insert(0, str(ROOT / "tools"))
import minify_scripts  # noqa: E402

TEMPLATES = ROOT / "templates"


def test_each_shortened_script_was_made_from_the_script_as_it_is_now():
    for name in minify_scripts.SCRIPTS:
        source = (TEMPLATES / "assets" / name).read_bytes()
        header = (TEMPLATES / "minified" / name).read_text(encoding="utf-8").partition("\n")[0] + "\n"
        assert header == MINIFIED_HEADER.format(sha256=hashlib.sha256(source).hexdigest()), (
            f"templates/assets/{name} changed since templates/minified/{name} was made: "
            "run `python tools/minify_scripts.py` and commit the result")


def test_the_shortened_scripts_are_what_the_tool_makes_from_them():
    for name in minify_scripts.SCRIPTS:
        made = minify_scripts.shortened(TEMPLATES / "assets" / name)
        assert (TEMPLATES / "minified" / name).read_text(encoding="utf-8") == made


def test_the_site_publishes_the_shortened_scripts(real_site):
    for name in minify_scripts.SCRIPTS:
        kept = (TEMPLATES / "minified" / name).read_bytes().partition(b"\n")[2]
        assert (real_site / "assets" / name).read_bytes() == kept
        assert b"function(){\"use strict\";var " in kept[:200] or name != "lesson.js"


def test_an_edited_script_is_published_through_rjsmin_until_it_is_shortened_again(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "minified").mkdir()
    source = (TEMPLATES / "assets" / "site.js").read_bytes() + b"\n/* an author's edit */ var edited = 1;\n"
    (tmp_path / "minified" / "site.js").write_bytes((TEMPLATES / "minified" / "site.js").read_bytes())  # stale
    published = minified("assets/site.js", source, tmp_path)
    assert b"var edited=1" in published  # the edit reaches the reader
    assert published != (TEMPLATES / "minified" / "site.js").read_bytes().partition(b"\n")[2]
    import rjsmin
    assert published == rjsmin.jsmin(source.decode("utf-8")).encode("utf-8")


def test_a_project_without_shortened_scripts_still_publishes_them_minified(tmp_path):
    source = b"function greet(name) {\n  // says hello\n  return 'hi ' + name;\n}\n"
    published = minified("assets/site.js", source, tmp_path)
    assert b"says hello" not in published and b"function greet(name){return'hi '+name;}" in published


def test_the_shortening_library_is_installed_with_the_tests():
    assert importlib.util.find_spec("calmjs.parse") is not None
