"""Content is semi-trusted: whatever a contributor puts in lessons, catalogs, scenarios or site.toml, a
reader's browser gets only the site's own markup and scripts. Also the preview server's guards and
the output folder's atomicity under SIGKILL. (Inputs that must be refused are in tests/bad-inputs/.)"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from conftest import CONTENT, ROOT, build_site, html_pages, parse
from test_site import tree_digest

META_REFRESH = '<meta http-equiv="refresh" content="0;url=https://example.org/">'
SCRIPT = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path}: {old!r} not found"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    """A site built from content a hostile contributor edited in every place the build accepts."""
    root = tmp_path_factory.mktemp("hostile")
    content = root / "content"
    shutil.copytree(CONTENT, content)
    # Math: the text of \text, \mbox and \fbox used to reach the page as raw markup.
    edit(content / "zh" / "transformer-block.md", "## 常见误区 {#mistakes}",
         '$\\text{<meta/http-equiv="refresh"/content="0;url=https://example.org/">}$ '
         "$\\mbox{<script>alert(3)</script>}$ $\\fbox{<img src=x onerror=alert(4)>}$\n\n## 常见误区 {#mistakes}")
    # Catalogs: a translation full of markup, in a string every page shows and in one the chart reads.
    edit(content / "ja" / "messages.po", 'msgstr "レッスン一覧"', f'msgstr "{META_REFRESH.replace(chr(34), chr(92) + chr(34))}"')
    edit(content / "ja" / "messages.po", 'msgstr "ブロック %(n)s"', f'msgstr "{SCRIPT} %(n)s"')
    edit(content / "zh" / "messages.po", 'msgstr "下一课"', f'msgstr "{SCRIPT}"')
    return build_site(content, root / "dist", "--base-url", "https://example.org/repo/")


def test_math_text_is_escaped_not_markup(hostile_site):
    page = (hostile_site / "zh" / "transformer-block.html").read_text(encoding="utf-8")
    tree = parse(hostile_site / "zh" / "transformer-block.html")
    assert [m.attributes.get("http-equiv") for m in tree.css("meta[http-equiv]")] == ["Content-Security-Policy"]
    assert not tree.css("img") and not tree.css("script:not([src]):not([type='application/json'])")
    assert '<mtext>&lt;meta/http-equiv="refresh"/content="0;url=https://example.org/"&gt;</mtext>' in page
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in page


def test_catalog_translations_are_text_not_markup(hostile_site):
    for path in html_pages(hostile_site):
        tree = parse(path)
        assert [m.attributes.get("http-equiv") for m in tree.css("meta[http-equiv]")] == ["Content-Security-Policy"], path
        assert not tree.css("img") and not tree.css("[onerror]"), path
        assert all(s.attributes.get("src") or s.attributes.get("type") == "application/json" for s in tree.css("script"))
    ja = (hostile_site / "ja" / "transformer-block.html").read_text(encoding="utf-8")
    assert "&lt;meta http-equiv=&#34;refresh&#34;" in ja  # shown to the reader as the text it is


def test_sitemap_is_well_formed_xml_with_escaped_values(hostile_site):
    tree = ET.parse(hostile_site / "sitemap.xml")
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    locs = [loc.text for loc in tree.getroot().iterfind("s:url/s:loc", ns)]
    assert "https://example.org/repo/zh/transformer-block.html" in locs
    assert {link.get("hreflang") for link in tree.getroot().iterfind("s:url/x:link", ns)} == {"zh-Hans", "ja"}
    assert not list(tree.getroot().iter("{http://www.w3.org/1999/xhtml}script"))


@pytest.mark.browser
def test_hostile_pages_open_without_a_dialog_or_a_navigation(hostile_site, open_page):
    pages = ["zh/transformer-block.html", "ja/transformer-block.html", "ja/index.html", "zh/ffn-residual.html", "sitemap.xml"]
    for rel in pages:
        url = (hostile_site / rel).as_uri()
        page = open_page(url)  # any request off the site (a meta refresh to example.org) fails the test
        dialogs, navigations = [], []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame.url.split("#")[0] != url else None)
        page.wait_for_load_state("load")
        page.wait_for_timeout(600)  # a refresh of 0 seconds would have fired by now
        if rel.endswith(".html") and page.locator("#step-next").count():
            page.locator("#step-next").scroll_into_view_if_needed()
            page.locator("#step-next").click()
        assert dialogs == [] and navigations == [] and page.url.split("#")[0] == url, (rel, dialogs, navigations)


# The preview server ------------------------------------------------------------------------------------

@pytest.fixture
def preview_server(tmp_path, monkeypatch):
    from builder import serve as serve_module

    monkeypatch.setattr(serve_module, "TIMEOUT", 1)
    monkeypatch.setattr(serve_module, "MAX_CONNECTIONS", 8)
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    out = tmp_path / "dist"
    ready, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=serve_module.serve, args=(content, out, ROOT / "templates"),
                              kwargs={"port": 0, "ready": ready, "stop": stop}, daemon=True)
    thread.start()
    assert ready.wait(60)
    yield ready.port, content, out
    stop.set()
    thread.join(10)


def request(port: int, target: str, method: str = "GET", host: str | None = None) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(f"{method} {target} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_preview_guards_head_like_get(preview_server, tmp_path):
    port, content, out = preview_server
    (tmp_path / "secret.txt").write_text("do not serve")
    (out / "leak.txt").symlink_to(tmp_path / "secret.txt")
    assert request(port, "/leak.txt", "GET")[0] == 403
    assert request(port, "/leak.txt", "HEAD")[0] == 403
    assert request(port, "/zh/index.html", "HEAD") == (200, b"")


def test_preview_answers_bad_targets_with_400(preview_server):
    port, *_ = preview_server
    assert request(port, "/%00")[0] == 400
    assert request(port, "/" + "a" * 5000)[0] == 400
    assert request(port, "/zh/index.html")[0] == 200


def test_preview_accepts_only_local_host_names(preview_server):
    port, *_ = preview_server
    assert request(port, "/zh/index.html", host="attacker.example")[0] == 400
    assert request(port, "/zh/index.html", host=f"attacker.example:{port}")[0] == 400
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", "localhost"):
        assert request(port, "/zh/index.html", host=host)[0] == 200


def test_preview_lists_no_folders(preview_server):
    port, *_ = preview_server
    status, body = request(port, "/assets/")
    assert status == 404 and b"Directory listing" not in body and b'href="lesson.js"' not in body


def test_preview_drops_idle_connections_and_bounds_them(preview_server):
    port, *_ = preview_server
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(20)]
    try:
        # Beyond the bound (8 in this test) connections are closed at once; the rest after the timeout (1 s).
        closed = 0
        for sock in idle:
            sock.settimeout(4)
            try:
                closed += sock.recv(1) == b""
            except (TimeoutError, ConnectionResetError):
                closed += 1
        assert closed == len(idle)
        assert request(port, "/zh/index.html")[0] == 200
    finally:
        for sock in idle:
            sock.close()


def test_preview_keeps_serving_when_a_folder_appears_where_a_lesson_should_be(preview_server):
    port, content, out = preview_server
    (content / "zh" / "oops.md").mkdir()
    deadline = time.time() + 20
    status = b""
    while time.time() < deadline and b"is a folder" not in status:
        time.sleep(0.2)
        status = request(port, "/__lesson_builder/status")[1]
    assert b"oops.md: is a folder, not a file" in status
    assert request(port, "/zh/index.html")[0] == 200


def test_preview_reports_a_port_in_use(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "builder", "serve", "--port", str(port), "--out", str(tmp_path / "d")],
                                cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"--port {port}: cannot serve there: Address already in use" in result.stderr


# The output folder ----------------------------------------------------------------------------------------

def build_command(content: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "builder", "build", "-q", "--content", str(content), "--out", str(out)]


def test_killed_builds_never_leave_a_partial_site_or_leftovers(tmp_path, content_copy):
    out = tmp_path / "dist"
    build_site(content_copy, out)
    old = tree_digest(out)
    edit(content_copy / "zh" / "ffn-residual.md", "## 下一步 {#next}", "## 下一步 {#next}\n\n新的一句。")
    subprocess.run(build_command(content_copy, tmp_path / "new"), cwd=ROOT, check=True)
    new = tree_digest(tmp_path / "new")
    assert new != old
    started = time.perf_counter()
    subprocess.run(build_command(content_copy, tmp_path / "timing"), cwd=ROOT, check=True)
    duration = time.perf_counter() - started  # kill at random moments across a whole build
    shutil.rmtree(tmp_path / "timing")
    rng = random.Random(1)
    kills = runs = 0
    while kills < 30 and runs < 200:
        runs += 1
        process = subprocess.Popen(build_command(content_copy, out), cwd=ROOT, start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, duration))
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            kills += 1
        process.wait()
        assert tree_digest(out) in (old, new), "dist/ is neither the old site nor the new one"
    assert kills == 30
    subprocess.run(build_command(content_copy, out), cwd=ROOT, check=True)
    assert tree_digest(out) == new
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "dist", "new"]


def test_an_interrupted_swap_is_recovered(tmp_path, content_copy):
    """Where the swap is two renames, a kill between them leaves the old site beside an absent dist/."""
    out = build_site(content_copy, tmp_path / "dist")
    before = tree_digest(out)
    out.rename(tmp_path / ".dist.old-99999")
    (tmp_path / ".dist.new-abc").mkdir()
    (content_copy / "zh" / "transformer-block.md").write_text("broken", encoding="utf-8")
    result = subprocess.run(build_command(content_copy, out), cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1
    assert tree_digest(out) == before  # put back, even though this build failed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "dist"]


def test_two_builds_at_once_both_succeed(tmp_path, content_copy):
    out = tmp_path / "dist"
    processes = [subprocess.Popen(build_command(content_copy, out), cwd=ROOT, stderr=subprocess.PIPE, text=True)
                 for _ in range(3)]
    results = [(p.wait(), p.stderr.read()) for p in processes]
    assert [code for code, _ in results] == [0, 0, 0], results
    assert (out / "zh" / "transformer-block.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "dist"]


def test_where_exchange_is_unavailable_two_renames_replace_the_site(tmp_path, content_copy, monkeypatch):
    from builder import output

    monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    out = build_site(content_copy, tmp_path / "dist")
    edit(content_copy / "zh" / "ffn-residual.md", "## 下一步 {#next}", "## 下一步 {#next}\n\n新的一句。")
    build_site(content_copy, out)
    assert "新的一句" in (out / "zh" / "ffn-residual.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "dist"]
