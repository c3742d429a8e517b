"""Offline after the first visit: the service worker (sw.js, written by the build at the site's root),
in a real Chromium, on a site served under a sub-path as GitHub Pages serves it."""

from __future__ import annotations

import json
import re
import shutil
import threading
from functools import lru_cache, partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import CONTENT, build_site, copy_fixture, parse

pytestmark = pytest.mark.browser
LOCALES = {"zh": "zh_Hans", "ja": "ja"}
UNVISITED = """+++
title = "{title}"
order = 3
summary = "{title}"
+++

{title}。
"""


@lru_cache(maxsize=None)
def catalog(lang):
    from builder.i18n import compile_catalog, read_catalog

    return compile_catalog(read_catalog(CONTENT / lang / "messages.po", LOCALES[lang]))


def write_content(folder, title_suffix=""):
    content = copy_fixture(folder)
    for lang, title in (("zh", "没有打开过的一课"), ("ja", "開いていない課")):
        (content / lang / "unvisited.md").write_text(UNVISITED.format(title=title), encoding="utf-8")
    if title_suffix:
        lesson = content / "zh" / "transformer-block.md"
        lesson.write_text(lesson.read_text(encoding="utf-8").replace('title = "Transformer 块"',
                                                                     f'title = "Transformer 块{title_suffix}"'), encoding="utf-8")
    return content


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server:
    """The site under /repo/ on 127.0.0.1, as a static host serves it."""

    def __init__(self, www):
        handler = partial(QuietHandler, directory=str(www))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/repo/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def served(tmp_path):
    site = build_site(write_content(tmp_path / "content"), tmp_path / "www" / "repo")
    server = Server(tmp_path / "www")
    yield site, server.base, tmp_path
    server.close()


@pytest.fixture
def context(chromium):
    context = chromium.new_context(viewport={"width": 1000, "height": 900})
    problems = []
    context.on("page", lambda page: page.on("pageerror", lambda e: problems.append(f"page error: {e}")))
    context.problems = problems
    yield context
    context.close()


KEPT = """async (urls) => {
  const names = (await caches.keys()).filter(n => n.startsWith('lessons-'));
  if (names.length !== 1) return false;
  const cache = await caches.open(names[0]);
  for (const url of urls) if (!(await cache.match(url))) return false;
  return true;
}"""


def title(page):
    return page.locator("h1").inner_text().replace("\n", "")


def test_a_visited_site_reads_offline_and_offers_a_new_version(served, context):
    site, base, tmp = served
    page = context.new_page()
    page.goto(base + "zh/transformer-block.html")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")  # the first visit is taken over
    registration = page.evaluate("""async () => { const r = await navigator.serviceWorker.getRegistration();
      return {scope: r.scope, updateViaCache: r.updateViaCache, script: r.active.scriptURL}; }""")
    assert registration == {"scope": base, "updateViaCache": "none", "script": base + "sw.js"}
    page.goto(base + "zh/ffn-residual.html")
    visited = [base + f"{lang}/{slug}.html" for lang in ("zh", "ja") for slug in ("transformer-block", "ffn-residual")]
    page.wait_for_function(KEPT, arg=visited)  # both lessons, each in both languages
    shell = json.loads(re.match(r"var BUILD = (.*);\n", (site / "sw.js").read_text(encoding="utf-8")).group(1))["shell"]
    assert {"assets/vendor/plotly-basic.min.js", "zh/offline.html", "ja/offline.html"} <= set(shell)
    assert any(re.fullmatch(r"assets/search-ja\.[0-9a-f]{12}\.js", path) for path in shell)
    # each lesson's other scenarios (assets/data/<lang>-<slug>.<hash>.js), kept before any page asks for them
    assert {lang for path in shell for lang in ("zh", "ja")
            if re.fullmatch(rf"assets/data/{lang}-transformer-block\.[0-9a-f]{{12}}\.js", path)} == {"zh", "ja"}
    page.wait_for_function(KEPT, arg=[base + path for path in shell])
    names = page.evaluate("caches.keys()")
    version = json.loads(re.match(r"var BUILD = (.*);\n", (site / "sw.js").read_text(encoding="utf-8")).group(1))["version"]
    assert names == [f"lessons-{version}"]
    assert not page.evaluate(KEPT, [base + "sw.js"])  # never kept

    context.set_offline(True)
    page.reload()
    assert title(page) == parse(site / "zh" / "ffn-residual.html").css_first("h1").text()
    page.goto(base + "zh/transformer-block.html")
    assert title(page) == parse(site / "zh" / "transformer-block.html").css_first("h1").text()
    page.locator("[data-figure]").first.scroll_into_view_if_needed()
    page.wait_for_selector("[data-figure][data-ready]")  # its scripts came too, the charting library with them
    page.locator(".language-switcher a").click()  # the other language of a page read online
    page.wait_for_url(base + "ja/transformer-block.html*")
    assert title(page) == parse(site / "ja" / "transformer-block.html").css_first("h1").text()
    # a page never opened online (kept with its translation): its other scenarios came with the shell
    page.locator('#depth-map input[value="money-bank"]').check()
    page.wait_for_function("() => (document.querySelector('#depth-map').getAttribute('data-state') || '').includes('scenario=money-bank')")
    assert catalog("ja").pgettext("scenario", "money in the bank") in page.locator("#depth-map-twin caption").first.text_content()
    page.locator("#search-input").fill("残差")  # the index was kept with the shell
    page.wait_for_selector("#search-results [role=option]")
    assert page.locator("#search-results [role=option]").count() >= 2
    page.goto(base + "zh/unvisited.html")  # never opened online: the offline page, in its language
    assert title(page) == catalog("zh").gettext("You are offline")
    page.locator("main a").click()
    page.wait_for_url(base + "zh/index.html")  # the lesson list was kept with the shell
    assert page.locator(".lesson-list a").count() == 3

    context.set_offline(False)
    page.goto(base + "zh/transformer-block.html")
    build_site(write_content(tmp / "content2", "（新版）"), site)  # a new version is published
    page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update())")  # as the browser checks now and then
    notice = page.locator("[data-update-notice]")
    notice.locator('[data-update="reload"]').wait_for()
    assert catalog("zh").gettext("A newer version of these lessons is available.") in notice.inner_text()
    assert title(page) == "Transformer 块"  # the page being read stays as it is
    notice.locator('[data-update="reload"]').click()
    # the reload navigates: until the new document has its heading, there is none to read (not an error)
    page.wait_for_function("() => (document.querySelector('h1')?.textContent ?? '').includes('（新版）')")
    page.wait_for_function("""async () => (await caches.keys()).filter(n => n.startsWith('lessons-')).length === 1""")
    new_version = json.loads(re.match(r"var BUILD = (.*);\n", (site / "sw.js").read_text(encoding="utf-8")).group(1))["version"]
    assert new_version != version and page.evaluate("caches.keys()") == [f"lessons-{new_version}"]  # the old cache is gone
    assert page.evaluate(KEPT, [base + "zh/ffn-residual.html"])  # pages kept before are kept again, fresh
    assert context.problems == []


def test_a_new_version_can_wait(served, context):
    site, base, tmp = served
    page = context.new_page()
    page.goto(base + "ja/transformer-block.html")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    build_site(write_content(tmp / "content2", "（新版）"), site)
    page.reload()  # a visit finds the new version too
    notice = page.locator("[data-update-notice]")
    notice.locator('[data-update="later"]').wait_for()
    assert catalog("ja").gettext("A newer version of these lessons is available.") in notice.inner_text()
    notice.locator('[data-update="later"]').click()
    assert notice.inner_text() == "" and page.url == base + "ja/transformer-block.html"


def test_no_service_worker_over_file(site, open_page):
    page = open_page((site / "zh" / "transformer-block.html").as_uri())
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)
    assert page.evaluate("""async () => { try { return navigator.serviceWorker ?
        (await navigator.serviceWorker.getRegistrations()).length : 0; } catch (e) { return 0; } }""") == 0


def test_the_policy_lets_only_the_sites_own_worker_run(site):
    for page in site.rglob("*.html"):
        policy = parse(page).css_first('meta[http-equiv="Content-Security-Policy"]').attributes["content"]
        assert "worker-src 'self'" in policy, page


def test_the_preview_has_no_service_worker_and_removes_one_left_behind(tmp_path, context):
    from builder.serve import serve

    from conftest import ROOT

    content = write_content(tmp_path / "content")
    out = tmp_path / "dist"
    ready, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=serve, args=(content, out, ROOT / "templates"),
                              kwargs={"port": 0, "ready": ready, "stop": stop}, daemon=True)
    thread.start()
    try:
        assert ready.wait(60)
        assert not (out / "sw.js").exists()  # the preview's pages must show every edit
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{ready.port}/zh/transformer-block.html")
        page.evaluate("caches.open('lessons-left-behind')")  # as a build served here before would leave
        page.evaluate("navigator.serviceWorker.register('/sw.js').then(() => true)")  # as the page does, again now
        page.wait_for_function("""async () => (await navigator.serviceWorker.getRegistrations()).length === 0
            && !(await caches.keys()).some(n => n.startsWith('lessons-'))""")
        assert page.evaluate("navigator.serviceWorker.controller") is None
    finally:
        stop.set()
        thread.join(10)
