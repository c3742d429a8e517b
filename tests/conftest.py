"""Shared fixtures: the fixture project (tests/fixture/), the real content, and small scratch projects.

Tests of the machinery build the fixture project, so editing or adding a real lesson or scenario
breaks only the tests about that content (test_content.py, test_engine.py and test_lessons.py read
the real content on purpose)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests are deterministic wherever they run: the same examples every time (derandomize), no
# example database carried between runs, no per-example deadline (the machine is shared). Each test
# bounds its own number of examples. HYPOTHESIS_PROFILE=explore searches with fresh random examples.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
settings.register_profile("explore", parent=settings.get_profile("repeatable"), derandomize=False, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content"
FIXTURE = Path(__file__).resolve().parent / "fixture" / "content"
DEFAULT_SCENARIO = CONTENT / "scenarios" / "river-bank.toml"


def copy_fixture(dest: Path) -> Path:
    """Copy the fixture project's content to `dest`, with the real UI catalogs (they belong to the templates)."""
    shutil.copytree(FIXTURE, dest)
    shutil.copy(CONTENT / "messages.pot", dest / "messages.pot")
    for po in CONTENT.glob("*/messages.po"):
        shutil.copy(po, dest / po.parent.name / "messages.po")
    return dest


@pytest.fixture
def content_copy(tmp_path) -> Path:
    """Return a private copy of the fixture project's content a test may break."""
    return copy_fixture(tmp_path / "content")


@pytest.fixture
def real_content_copy(tmp_path) -> Path:
    """Return a private copy of the real content/."""
    dest = tmp_path / "content"
    shutil.copytree(CONTENT, dest)
    return dest


def build_site(content: Path, out: Path, *extra: str) -> Path:
    """Build `content` into `out` with the real templates, raising on failure."""
    from builder.build import build

    base_url = None
    if extra and extra[0] == "--base-url":
        base_url = extra[1]
    build(content, out, ROOT / "templates", base_url=base_url, make_zip="--zip" in extra)
    return out


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The fixture project, built once for every test that only reads the output."""
    root = tmp_path_factory.mktemp("site")
    return build_site(copy_fixture(root / "content"), root / "dist", "--zip")


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> Path:
    """The real content, built once for the tests about the lessons themselves."""
    return build_site(CONTENT, tmp_path_factory.mktemp("real") / "dist")


def parse(path: Path):
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(path.read_text(encoding="utf-8"))


def lesson_data(page: Path) -> dict:
    """A lesson page's data as lesson.js has it once the other scenarios' script is in: the inline
    #lesson-data with that script's views, parts, pieces and rows after its own (one numbering)."""
    import json
    import re

    node = parse(page).css_first("#lesson-data")
    data = json.loads(node.text())
    more = node.attributes.get("data-more")
    if more:
        script = (page.parent / more).read_text(encoding="utf-8")
        half = json.loads(re.fullmatch(r"self\.lessonMoreData=(.*);\n", script, re.S).group(1))
        for key in ("parts", "pieces", "rows"):
            data[key] += half[key]
        for name, figure in half["figures"].items():
            views = data["figures"][name]["views"]
            mine, theirs = len(views["keys"]), len(figure["views"]["keys"])  # before "keys" itself grows
            for field in set(views) | set(figure["views"]):  # a field only one half has is null in the other
                views[field] = views.get(field, [None] * mine) + figure["views"].get(field, [None] * theirs)
    return data


def trace_values(site: Path, lang: str, slug: str) -> dict[str, str]:
    """Each trace reference of a lesson's text (content/<lang>/<slug>.md) and the figure its page prints for
    it. The page does not name the references (bytes no reader needs): they are the lesson's `{{...}}`
    outside fenced blocks (an ```output block prints plain text), in the order the page prints them."""
    refs, fence = [], None
    for line in (CONTENT / lang / f"{slug}.md").read_text(encoding="utf-8").splitlines():
        opened = re.match(r"\s*(`{3,}|~{3,})", line)
        if opened and (fence is None or opened.group(1).startswith(fence)):
            fence = opened.group(1) if fence is None else None
        elif fence is None:
            refs += [ref.strip() for ref in re.findall(r"\{\{(.*?)\}\}", line)]
    printed = [node.text() for node in parse(site / lang / f"{slug}.html").css("article .trace-value")]
    assert len(printed) == len(refs), (lang, slug, len(printed), len(refs))
    return dict(zip(refs, printed))


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


@pytest.fixture(scope="session")
def chromium():
    from playwright.sync_api import sync_playwright

    from browser import launch

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def open_page(chromium):
    """Open a page with every non-file request aborted; fail the test on any error it logs."""
    from browser import Recorder

    contexts, recorders = [], []

    def _open(url: str, allowed_prefix: str = "file://", withhold: tuple[str, ...] = (), **context_options):
        context = chromium.new_context(**{"viewport": {"width": 1000, "height": 900}, **context_options})
        contexts.append(context)
        recorder = Recorder(allowed_prefix, withhold)
        recorders.append(recorder)
        page = recorder.attach(context.new_page())
        page.goto(url)
        return page

    yield _open
    for recorder in recorders:
        recorder.assert_clean()
    for context in contexts:
        context.close()
