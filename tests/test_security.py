"""Content is semi-trusted: whatever a contributor puts in lessons, catalogs, scenarios or site.toml, a
reader's browser gets only the site's own markup and scripts. Also the preview server's guards and
the output folder's atomicity under SIGKILL. (Inputs that must be refused are in tests/bad-inputs/.)"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from conftest import CONTENT, ROOT, build_site, copy_fixture, html_pages, parse
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


def wait_for_status(port: int, text: bytes, present: bool = True, seconds: float = 20) -> bytes:
    deadline = time.time() + seconds
    status = request(port, "/__lesson_builder/status")[1]
    while time.time() < deadline and (text in status) != present:
        time.sleep(0.2)
        status = request(port, "/__lesson_builder/status")[1]
    return status


def test_preview_keeps_serving_when_a_folder_appears_where_a_lesson_should_be(preview_server):
    port, content, out = preview_server
    (content / "zh" / "oops.md").mkdir()
    assert b"oops.md: is a folder, not a file" in wait_for_status(port, b"is a folder")
    status, body = request(port, "/zh/index.html")  # the problems, in place of the page
    assert status == 200 and b"oops.md: is a folder, not a file" in body and b"The build failed" in body
    (content / "zh" / "oops.md").rmdir()
    assert b"is a folder" not in wait_for_status(port, b"is a folder", present=False)
    assert request(port, "/zh/index.html")[0] == 200


def test_while_the_build_fails_pages_show_the_problems_and_scripts_stay_scripts(preview_server):
    """An open page asks for files after its load (its figures' data at idle, the charting library): while a
    build has failed, those still come from the last good build. Answered with the problems page, a script
    would run HTML ("Unexpected token '<'")."""
    port, content, out = preview_server
    data = "assets/data/zh-transformer-block.js"  # the preview names it by the page alone
    (content / "zh" / "oops.md").mkdir()
    wait_for_status(port, b"is a folder")
    assert b"The build failed" in request(port, "/zh/transformer-block.html")[1]
    assert b"The build failed" in request(port, "/zh/")[1]
    for asset in ("/assets/site.js", "/assets/lesson.js", "/" + data):  # as the last good build wrote them
        status, body = request(port, asset)
        assert status == 200 and b"The build failed" not in body and not body.lstrip().startswith(b"<"), asset
    (content / "zh" / "oops.md").rmdir()
    wait_for_status(port, b"is a folder", present=False)


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


# The second hostile round (issue 21): nothing lost, nothing exposed ----------------------------------------

def run_builder(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "builder", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_recovery_removes_only_folders_the_builder_marked(tmp_path, content_copy):
    site = build_site(content_copy, tmp_path / "site")
    theirs = {tmp_path / ".site.old-2024" / "notes.txt": "a user's notes", tmp_path / ".site.new-draft" / "draft.txt": "a draft"}
    for path, text in theirs.items():
        path.parent.mkdir()
        path.write_text(text)
    killed = tmp_path / ".site.new-k1ll3d"  # what a killed build leaves: marked as ours
    (killed / "zh").mkdir(parents=True)
    (killed / ".lesson-builder").write_text("A build in progress (or killed); safe to delete.\n")
    build_site(content_copy, site)
    assert {path: path.read_text() for path in theirs} == theirs
    assert not killed.exists()


def test_an_output_name_is_never_read_as_a_pattern(tmp_path, content_copy):
    notes = tmp_path / "d" / ".notes.old-2024" / "notes.txt"
    notes.parent.mkdir(parents=True)
    notes.write_text("keep me")
    result = run_builder("build", "-q", "--content", str(content_copy), "--out", str(tmp_path / "d" / "*"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "d" / "*" / "zh" / "index.html").is_file()
    assert notes.read_text() == "keep me"


def test_an_output_folder_that_is_a_link_stays_a_link(tmp_path, content_copy):
    real = tmp_path / "published"
    real.mkdir()
    link = tmp_path / "dist"
    link.symlink_to(real)
    build_site(content_copy, link)
    edit(content_copy / "zh" / "ffn-residual.md", "## 下一步 {#next}", "## 下一步 {#next}\n\n新的一句。")
    build_site(content_copy, link)
    assert link.is_symlink() and Path(os.readlink(link)) == real
    assert "新的一句" in (real / "zh" / "ffn-residual.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "dist", "published"]


def test_an_output_link_to_nothing_is_refused(tmp_path, content_copy):
    (tmp_path / "dist").symlink_to(tmp_path / "missing")
    result = run_builder("build", "--content", str(content_copy), "--out", str(tmp_path / "dist"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{tmp_path / 'dist'}: is a symbolic link to {tmp_path / 'missing'}, which is not a folder" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "dist"]


def test_catalog_and_mark_current_replace_files_by_rename(content_copy):
    """Each file the builder writes in content/ is a new file renamed over the old one (a crash leaves one or
    the other), with the old one's permissions, and no temporary file is left behind."""
    pot, po, lesson = content_copy / "messages.pot", content_copy / "ja" / "messages.po", content_copy / "ja" / "ffn-residual.md"
    po.chmod(0o640)
    for path in (pot, po):  # out of date, so that `catalog` rewrites them
        path.write_text(path.read_text(encoding="utf-8") + "\n# stale\n", encoding="utf-8")
    before = {path: path.stat().st_ino for path in (pot, po, lesson)}
    assert run_builder("catalog", "--content", str(content_copy)).returncode == 0
    assert run_builder("mark-current", "ja", "ffn-residual", "--content", str(content_copy)).returncode == 0
    assert all(path.stat().st_ino != inode for path, inode in before.items())
    assert stat.S_IMODE(po.stat().st_mode) == 0o640
    assert not [p for p in content_copy.rglob(".*")]


def test_catalog_writes_through_a_link_that_stays_inside_content(content_copy):
    shared = content_copy / "shared"
    shared.mkdir()
    (content_copy / "messages.pot").rename(shared / "messages.pot")
    (content_copy / "messages.pot").symlink_to(Path("shared") / "messages.pot")
    assert run_builder("catalog", "--content", str(content_copy)).returncode == 0
    assert (content_copy / "messages.pot").is_symlink() and "msgid" in (shared / "messages.pot").read_text(encoding="utf-8")


def as_ordinary_user() -> list[str] | None:
    """The prefix that runs this Python as a user without root's override of permissions (nobody), or
    None where that user could not run it (the project or its Python in a folder only root may enter)."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        return None
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    trial = subprocess.run([*prefix, sys.executable, "-c", "import builder.cli"], cwd=ROOT, capture_output=True, timeout=60)
    return prefix if trial.returncode == 0 else None


def test_an_unreadable_language_folder_is_one_line(monkeypatch, capsys):
    """A language folder its user may not read (as root can, so the test runs as nobody where it can;
    elsewhere the file system's answers are made to say the same: permission denied)."""
    root = Path(tempfile.mkdtemp(prefix="unreadable-", dir="/tmp"))
    content, out = root / "content", root / "out" / "dist"
    try:
        copy_fixture(content)
        out.parent.mkdir()
        for path in [root, *root.rglob("*")]:
            path.chmod(0o777 if path.is_dir() else 0o666)
        (content / "ja").chmod(0)
        user = as_ordinary_user()
        if user is not None:
            result = subprocess.run([*user, sys.executable, "-m", "builder", "build", "--content", str(content),
                                     "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
            code, stderr = result.returncode, result.stderr
        else:
            from builder.cli import main

            denied = content / "ja"
            for name in ("scandir", "open", "stat", "lstat"):
                real = getattr(os, name)

                def refuse(path, *args, _real=real, _lists=name in ("scandir", "open"), **kwargs):
                    # Inside the folder nothing can even be looked at; the folder itself cannot be listed or opened.
                    if isinstance(path, (str, Path)) and (denied in Path(path).parents or _lists and Path(path) == denied):
                        raise PermissionError(13, "Permission denied", str(path))
                    return _real(path, *args, **kwargs)
                monkeypatch.setattr(os, name, refuse)
            code = main(["build", "--content", str(content), "--out", str(out)])
            monkeypatch.undo()
            stderr = capsys.readouterr().err
        assert code == 1 and "Traceback" not in stderr, stderr
        assert f"{content / 'ja'}: cannot read the folder: Permission denied" in stderr.splitlines()
        assert stderr.splitlines()[-1].endswith("nothing written")
    finally:
        if (content / "ja").exists():
            (content / "ja").chmod(0o755)
        shutil.rmtree(root)


# The preview: never a folder it did not make, never a dotfile, never half a page, never stuck.

def serve_command(content: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "builder", "serve", "--content", str(content), "--out", str(out), "--port", "0", *extra]


def refused_at_once(command: list[str]) -> subprocess.CompletedProcess:
    """Run a preview that must refuse to start; one that starts anyway is stopped and fails the test."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"the preview started instead of refusing:\n{out}{err}")
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def test_preview_refuses_a_folder_the_builder_did_not_make(tmp_path, content_copy):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    result = refused_at_once(serve_command(content_copy, home))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{home}: output folder is not empty and was not made by this builder" in result.stderr
    assert "serving" not in result.stdout


def test_preview_refuses_an_output_folder_inside_content(content_copy):
    result = refused_at_once(serve_command(content_copy, content_copy / "site"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "the output folder is inside the content folder" in result.stderr
    assert not (content_copy / "site").exists()


def test_preview_never_serves_dotfiles(preview_server):
    port, content, out = preview_server
    (out / ".env").write_text("SECRET=private")
    (out / "zh" / ".notes").write_text("private")
    (out / "visible.txt").symlink_to(out / ".env")  # a link inside the folder to one
    for target in ("/.env", "/zh/.notes", "/%2eenv", "/.lesson-builder", "/visible.txt", "/zh/./.notes"):
        status, body = request(port, target)
        assert status == 404 and b"private" not in body and b"SECRET" not in body, target
    assert request(port, "/zh/index.html")[0] == 200


def test_a_partial_rebuild_replaces_each_page_by_rename(tmp_path, content_copy):
    """A reader (or a kill) sees the old page or the new one, never half of one: the new page is a new
    file renamed over the old, not the old file rewritten in place."""
    from builder.serve import Preview

    out = tmp_path / "dist"
    preview = Preview(content_copy, out, ROOT / "templates")
    preview.rebuild()
    page = out / "ja" / "ffn-residual.html"
    inode = page.stat().st_ino
    lesson = content_copy / "ja" / "ffn-residual.md"
    edit(lesson, "## 次へ {#next}", "## 次へ（改訂） {#next}")
    assert preview.rebuild({lesson}).startswith("rebuilt assets/search-ja.js, ja/ffn-residual.html")  # and its index
    assert page.stat().st_ino != inode and "改訂" in page.read_text(encoding="utf-8").replace("<wbr>", "")
    assert sorted(p.name for p in out.rglob(".*")) == [".lesson-builder", ".nojekyll"]  # no temporary file left


def test_pages_read_during_partial_rebuilds_are_always_whole(tmp_path, content_copy):
    from builder.serve import Preview

    out = tmp_path / "dist"
    preview = Preview(content_copy, out, ROOT / "templates")
    preview.rebuild()
    page, lesson = out / "ja" / "ffn-residual.html", content_copy / "ja" / "ffn-residual.md"
    original = lesson.read_text(encoding="utf-8")
    done, reads, torn = threading.Event(), [0], []

    def read():
        while not done.is_set():
            body = page.read_bytes()
            reads[0] += 1
            if not body.rstrip().endswith(b"</html>"):
                torn.append(len(body))

    readers = [threading.Thread(target=read) for _ in range(2)]
    for reader in readers:
        reader.start()
    try:
        for n in range(1, 13):  # a long page, then a short one, and so on
            lesson.write_text(original.replace("## 次へ {#next}", f"## 次へ {{#next}}\n\n{'長い文。' * 2000 * (n % 2)}"),
                              encoding="utf-8")
            assert preview.rebuild({lesson}).startswith("rebuilt")
    finally:
        done.set()
        for reader in readers:
            reader.join()
    assert reads[0] > 0 and torn == []


def test_preview_cuts_off_clients_that_trickle_their_headers(tmp_path, content_copy, monkeypatch):
    """Slow clients each sending a header line well within the idle timeout held every slot for good."""
    from builder import serve as serve_module

    # Header lines every 0.5 s against an idle timeout of 5 s: only a deadline on the whole request frees a slot.
    monkeypatch.setattr(serve_module, "TIMEOUT", 5)
    monkeypatch.setattr(serve_module, "MAX_CONNECTIONS", 8)
    monkeypatch.setattr(serve_module, "REQUEST_DEADLINE", 2, raising=False)
    port, stop_preview, preview = start_preview(content_copy, tmp_path / "dist")
    stop = threading.Event()
    slow = []
    try:
        for _ in range(8):  # every slot
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET /zh/index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(sock)

        def trickle():
            while not stop.wait(0.5):
                for sock in slow:
                    try:
                        sock.sendall(b"X-Slow: 1\r\n")
                    except OSError:
                        pass

        thread = threading.Thread(target=trickle, daemon=True)
        thread.start()
        time.sleep(2.5)  # past the 2 s deadline, far from the 5 s idle timeout
        answered = None
        deadline = time.time() + 2
        while answered is None and time.time() < deadline:
            try:
                answered = request(port, "/zh/index.html")[0]
            except (OSError, IndexError):  # closed at once while the slots are still full
                time.sleep(0.2)
        assert answered == 200
    finally:
        stop.set()
        for sock in slow:
            sock.close()
        stop_preview.set()
        preview.join(10)


class EditOnReady(threading.Event):
    """A `ready` event that makes an edit the very moment the preview says it is ready."""

    def __init__(self, action):
        super().__init__()
        self.action = action

    def set(self):
        self.action()
        super().set()


def start_preview(content: Path, out: Path, templates: Path = ROOT / "templates", ready=None):
    from builder import serve as serve_module

    ready, stop = ready or threading.Event(), threading.Event()
    thread = threading.Thread(target=serve_module.serve, args=(content, out, templates),
                              kwargs={"port": 0, "ready": ready, "stop": stop}, daemon=True)
    thread.start()
    assert ready.wait(60)
    return ready.port, stop, thread


def test_preview_sees_an_edit_made_the_moment_it_is_ready(tmp_path, content_copy):
    """serve() said it was ready before its watcher watched, and an edit made then was lost (1 run in 4)."""
    port, stop, thread = start_preview(content_copy, tmp_path / "dist",
                                       ready=EditOnReady(lambda: (content_copy / "zh" / "oops.md").mkdir()))
    try:
        assert b"oops.md: is a folder, not a file" in wait_for_status(port, b"is a folder")
    finally:
        stop.set()
        thread.join(10)


def test_preview_shows_the_problems_at_every_page_when_the_first_build_fails(tmp_path, content_copy):
    lesson = content_copy / "zh" / "ffn-residual.md"
    edit(lesson, "{{on:b1 length}}", "{{on:b9 length}}")
    port, stop, thread = start_preview(content_copy, tmp_path / "dist")
    try:
        for target in ("/", "/index.html", "/zh/index.html", "/zh/ffn-residual.html", "/no/such/page"):
            status, body = request(port, target)
            assert status == 200 and b"The build failed" in body and b"block 9 out of range" in body, target
            assert b"ffn-residual.md:" in body and SCRIPT_TAG in body, target  # with the reload script
        assert request(port, "/assets/site.js")[0] == 404  # no build yet: a script is missing, never an HTML page
        edit(lesson, "{{on:b9 length}}", "{{on:b1 length}}")
        assert b"out of range" not in wait_for_status(port, b"out of range", present=False)
        status, body = request(port, "/zh/ffn-residual.html")
        assert status == 200 and b"The build failed" not in body and "前馈网络".encode() in body
    finally:
        stop.set()
        thread.join(10)


SCRIPT_TAG = b'<script src="/__lesson_builder/reload.js" data-version="'  # the build the page was served from


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    """The preview watching a copy of the builder's own folder, so a test may edit a figure kind."""
    from builder import serve as serve_module

    package = tmp_path / "package"
    shutil.copytree(ROOT / "builder" / "figures", package / "figures", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(serve_module, "PACKAGE", package, raising=False)
    monkeypatch.setattr(serve_module, "FIGURES", package / "figures", raising=False)
    return package


def test_preview_rebuilds_when_a_figure_template_or_style_changes(tmp_path, content_copy, package_copy, capfd):
    port, stop, thread = start_preview(content_copy, tmp_path / "dist")
    try:
        version = json.loads(request(port, "/__lesson_builder/status")[1])["version"]
        style = package_copy / "figures" / "depth_map" / "figure.css"
        style.write_text(style.read_text(encoding="utf-8") + "\n/* edited */\n", encoding="utf-8")
        deadline = time.time() + 20
        while time.time() < deadline and json.loads(request(port, "/__lesson_builder/status")[1])["version"] == version:
            time.sleep(0.2)
        assert json.loads(request(port, "/__lesson_builder/status")[1])["version"] > version
    finally:
        stop.set()
        thread.join(10)
    assert "rebuilt all pages" in capfd.readouterr().out.split("serving", 1)[1]


def test_preview_asks_for_a_restart_when_python_code_changes(tmp_path, content_copy, package_copy, capfd):
    port, stop, thread = start_preview(content_copy, tmp_path / "dist")
    try:
        code = package_copy / "figures" / "depth_map" / "__init__.py"
        code.write_text(code.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        status = wait_for_status(port, b"restart")
        assert b"figures/depth_map/__init__.py changed" in status and b"restart" in status
    finally:
        stop.set()
        thread.join(10)
    assert "restart `python -m builder serve`" in capfd.readouterr().out


def test_preview_prints_nothing_for_an_edit_that_changes_no_page(tmp_path, content_copy):
    from builder.serve import Preview

    preview = Preview(content_copy, tmp_path / "dist", ROOT / "templates")
    preview.rebuild()
    lesson = content_copy / "zh" / "ffn-residual.md"
    lesson.write_bytes(lesson.read_bytes())  # an editor saving without a change
    assert preview.rebuild({lesson}) == ""
    edit(lesson, "{{on:b1 length}}", "{{on:b9 length}}")
    assert preview.rebuild({lesson}).startswith("build failed: 1 problem\n")
    edit(lesson, "{{on:b9 length}}", "{{on:b1 length}}")
    assert "the problems are fixed" in preview.rebuild({lesson})


def test_preview_renaming_a_lesson_updates_its_neighbours(tmp_path, content_copy):
    """The next-lesson link of the page before it shows a lesson's title, so a new title rebuilds all pages."""
    from builder.serve import Preview

    out = tmp_path / "dist"
    preview = Preview(content_copy, out, ROOT / "templates")
    preview.rebuild()
    lesson = content_copy / "zh" / "ffn-residual.md"
    edit(lesson, 'title = "前馈网络与残差连接"', 'title = "前馈网络（改名）"')
    assert preview.rebuild({lesson}).startswith("rebuilt all pages")
    assert "前馈网络（改名）" in (out / "zh" / "transformer-block.html").read_text(encoding="utf-8").replace("<wbr>", "")


def test_a_partial_rebuild_never_writes_through_a_linked_folder(tmp_path, content_copy):
    """A folder inside the output replaced by a link elsewhere: the preview refuses to write there."""
    from builder.serve import Preview

    out = tmp_path / "dist"
    preview = Preview(content_copy, out, ROOT / "templates")
    preview.rebuild()
    elsewhere = tmp_path / "elsewhere"
    (out / "ja").rename(elsewhere)
    (out / "ja").symlink_to(elsewhere)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    lesson = content_copy / "ja" / "ffn-residual.md"
    edit(lesson, "## 次へ {#next}", "## 次へ（改訂） {#next}")
    log = preview.rebuild({lesson})
    assert log.startswith("build failed: 1 problem") and "leads outside it" in log, log
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before
