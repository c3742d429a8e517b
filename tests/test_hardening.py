"""What must hold on every run: valid HTML, a strict CSP, inert injections, and loaders that never crash."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.content import load_lesson
from builder.errors import UserError
from builder.markdown import LessonRenderer
from builder.scenarios import load_scenario
from conftest import ROOT, build_site, html_pages, parse

IN_CI = os.environ.get("CI", "").lower() == "true"


def need(tool_ok: bool, what: str):
    if not tool_ok:
        if IN_CI:
            pytest.fail(f"{what} is missing (CI=true: a missing tool is a failure)")
        pytest.skip(f"{what} is missing; ./scripts/test installs it")


def test_nu_html_checker_reports_no_errors(site):
    jar = Path(os.environ.get("VNU_JAR", ROOT / ".tools/node_modules/vnu-jar/build/dist/vnu.jar"))
    need(jar.is_file() and shutil.which("java") is not None, "the Nu HTML checker (java + vnu.jar)")
    result = subprocess.run(["java", "-jar", str(jar), "--skip-non-html", "--errors-only", "--format", "json", str(site)],
                            capture_output=True, text=True)
    messages = json.loads(result.stderr or result.stdout or '{"messages": []}')["messages"]
    assert messages == [], json.dumps(messages, ensure_ascii=False, indent=1)
    assert len(html_pages(site)) == 10  # entry, 404, two lesson lists, four lessons, two offline pages


def test_every_page_carries_a_content_security_policy(site):
    for page in html_pages(site):
        meta = parse(page).css_first('meta[http-equiv="Content-Security-Policy"]')
        assert meta is not None, page
        policy = meta.attributes["content"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
        assert "default-src 'self'" in policy


def test_no_inline_script_can_run(site):
    for page in html_pages(site):
        for script in parse(page).css("script"):
            assert script.attributes.get("src") or script.attributes.get("type") == "application/json", page


# Fuzzing: arbitrary text gives a page or a clean error, never a crash. -------------------------------

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
renderer = LessonRenderer()


@FUZZ
@given(st.text())
def test_front_matter_loader_never_crashes(tmp_path, text):
    path = tmp_path / "zh" / "fuzz.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    try:
        load_lesson(path, "zh", {"river-bank"})
    except UserError as err:
        assert all(str(problem).startswith(str(path)) for problem in err.problems)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("+=\"'[]{}#\n abc123.-_:$\\`*|>~!")) | st.characters(exclude_categories=("Cs",)), max_size=300))
def test_front_matter_loader_never_crashes_on_near_miss_syntax(tmp_path, body):
    path = tmp_path / "zh" / "fuzz2.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text('+++\ntitle = "t"\norder = 1\n' + body + "\n+++\n" + body, encoding="utf-8")
    try:
        load_lesson(path, "zh", {"river-bank"})
    except UserError:
        pass


def resolve(ref):
    return ("1.0", None) if ref.startswith("on:") else ("", f"bad {ref}")


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("#$`*_[](){}:!<>|-~=\n\\ ab1.")) | st.characters(exclude_categories=("Cs",)), max_size=400))
def test_markdown_renderer_never_crashes(text):
    rendered = renderer.render(text, Path("fuzz.md"), 1, resolve)
    assert isinstance(rendered.html, str)
    assert "<script" not in rendered.html.lower().replace("&lt;script", "")


@FUZZ
@given(st.text(max_size=600))
def test_scenario_loader_never_crashes(tmp_path, text):
    path = tmp_path / "fuzz.toml"
    path.write_text(text, encoding="utf-8")
    try:
        load_scenario(path)
    except UserError as err:
        assert str(err.problems[0]).startswith(str(path))


@FUZZ
@given(st.dictionaries(st.sampled_from(["title", "tracked", "depth", "residual", "dimensions", "tokens", "weights"]),
                       st.one_of(st.integers(-3, 9), st.text(max_size=5), st.booleans(), st.floats(allow_nan=True),
                                 st.lists(st.floats(allow_nan=True), max_size=5)), max_size=7))
def test_scenario_loader_never_crashes_on_wrong_types(tmp_path, data):
    lines = [f"{key} = {json.dumps(value)}".replace("NaN", "nan").replace("Infinity", "inf") for key, value in data.items()]
    path = tmp_path / "typed.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    try:
        load_scenario(path)
    except UserError:
        pass


# Injection: markup in content or scenarios ends up inert. -----------------------------------------------

EVIL = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'


@pytest.fixture(scope="module")
def evil_site(tmp_path_factory):
    from conftest import copy_fixture

    root = tmp_path_factory.mktemp("evil")
    content = copy_fixture(root / "content")
    scenario = content / "scenarios" / "river-bank.toml"
    text = scenario.read_text(encoding="utf-8").replace(
        '"river", "bank"]', f'{{ text = {json.dumps(EVIL)}, vector = [0.99, -0.20, 0.01, -0.01] }}, "bank"]')
    scenario.write_text(text.replace('title = "by the river bank"', f"title = {json.dumps(EVIL)}"), encoding="utf-8")
    lesson = content / "zh" / "transformer-block.md"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace(
        "## 常见误区 {#mistakes}", f'{EVIL} <a href="javascript:alert(3)" onclick="alert(4)">x</a> [y](javascript:alert(5))\n\n'
                                "## 常见误区 {#mistakes}"), encoding="utf-8")
    return build_site(content, root / "dist")


def test_injected_markup_is_escaped_in_the_html(evil_site):
    for page in html_pages(evil_site):
        tree = parse(page)
        assert not tree.css("img"), page
        assert not [n for n in tree.css("[onclick], [onerror]")], page
        assert not [a for a in tree.css("a") if a.attributes.get("href", "").startswith("javascript:")], page
        assert all(s.attributes.get("src") or s.attributes.get("type") == "application/json" for s in tree.css("script"))


@pytest.mark.browser
def test_injected_markup_never_runs_in_the_browser(evil_site, open_page):
    page = open_page((evil_site / "zh" / "transformer-block.html").as_uri() + "#depth=3&residual=on&step=2")
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.locator("#depth-map").scroll_into_view_if_needed()
    page.wait_for_selector("[data-figure][data-ready]")
    page.locator('[data-control="step-next"]').click()
    page.locator('[data-control="step-prev"]').click()
    page.locator('#depth-map [data-control="twin"]').click()
    # the hover is Plotly's: wait until it has drawn this state (until then the SVG shows it, and Plotly's is hidden)
    page.wait_for_selector('#depth-map [data-chart="main"] [data-part="chart"].plotted')
    bar = page.locator('#depth-map [data-chart="main"] .plot .bars .point path').first
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#depth-map .hoverlayer .hovertext")
    assert dialogs == []
    assert EVIL in page.locator(".attention-weights").inner_text()  # the evil word, shown as text
    assert EVIL in page.locator("#attention").inner_text()
    assert page.locator("img").count() == 0


# Links in three hosting modes: at /, under a sub-path, and over file://. ---------------------------------

LINKS = """() => [...document.querySelectorAll('a[href], link[href], script[src]')]
  .map(e => e.href || e.src).filter(u => !u.startsWith('data:'))"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # a request the page makes after its test (an idle fetch) prints nothing
        pass


def serve_folder(folder: Path):
    handler = partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["root", "sub-path", "file"])
def test_every_link_resolves_in_each_hosting_mode(site, open_page, mode):
    server = None
    if mode == "file":
        base = site.as_uri() + "/"
    else:
        server = serve_folder(site if mode == "root" else site.parent)
        base = f"http://127.0.0.1:{server.server_address[1]}/" + ("" if mode == "root" else f"{site.name}/")
    try:
        checked = set()
        pages = [p.relative_to(site).as_posix() for p in html_pages(site)]
        for rel in pages:
            page = open_page(base + rel, allowed_prefix=base)
            page.wait_for_load_state("load")
            for url in page.evaluate(LINKS):
                target, _, fragment = url.partition("#")
                assert target.startswith(base), f"{rel}: {url} leaves the site"
                if target not in checked:
                    if mode == "file":
                        assert (site / target[len(base):]).is_file(), f"{rel}: {url}"
                    else:
                        assert page.request.get(target).status == 200, f"{rel}: {url}"
                    checked.add(target)
                if fragment and "=" not in fragment and target.endswith(".html"):
                    ids = {n.attributes["id"] for n in parse(site / target[len(base):]).css("[id]")}
                    assert fragment in ids, f"{rel}: {url}"
        print(f"{mode}: {len(pages)} pages, {len(checked)} distinct link targets checked")
        assert len(checked) >= 12  # eight pages, five assets, the offline archive
    finally:
        if server:
            server.shutdown()
