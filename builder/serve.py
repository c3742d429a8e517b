"""A live preview for authors and translators: build, serve on 127.0.0.1, rebuild what an edit
affects, and reload the open page.

- The watcher is watching before the first build starts, so no edit is lost, however early.
- It watches content/, the templates and the figure kinds (builder/figures/: templates and styles
  are reloaded; a change to Python code is reported with a request to restart).
- While the last build failed, every page answers with a page listing the problems, which reloads
  itself once they are fixed (on the very first build too); the files pages load (scripts, styles, data)
  still come from the last good build, so an open page never runs HTML as a script.
- It serves only a folder the builder made, never a dotfile, and writes every page atomically.

The reload script, the status endpoint and the problems page exist only in served responses, never in dist/.
"""

from __future__ import annotations

import html
import json
import socket
import sys
import threading
import time
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from builder.build import Workspace, check_rendering, for_language, gather, tally
from builder.output import MARKER, OutputLock, check_apart, check_ours, replace_file, resolve_output, write_atomically
from builder.errors import Problem, UserError, printable
from builder import site

PACKAGE = Path(__file__).resolve().parent  # the builder's own code: figure kinds are watched, Python is not reloaded
FIGURES = PACKAGE / "figures"
STATUS_PATH = "/__lesson_builder/status"


def is_page(path: str) -> bool:
    """Whether an address is a page (an .html file, or a folder and its index), not a file a page loads."""
    return path.endswith("/") or PurePosixPath(path).suffix in ("", ".html")
SCRIPT_PATH = "/__lesson_builder/reload.js"
# The pages register /sw.js, which keeps pages for reading offline; a preview must show every edit, and
# a worker left on this address (a build served here before) would answer for it. This one removes itself.
WORKER_PATH = "/sw.js"
REMOVE_WORKER_JS = """self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) {
  event.waitUntil(self.registration.unregister().then(function () { return caches.keys(); }).then(function (names) {
    return Promise.all(names.filter(function (n) { return n.indexOf("lessons-") === 0; }).map(function (n) { return caches.delete(n); }));
  }));
});
"""
RELOAD_JS = """(function () {
  // The build this page was served from: a page that learnt it from its first status check would take a
  // build finished before that check for its own, and never reload.
  var served = document.currentScript && document.currentScript.getAttribute("data-version");
  var version = served === null || served === undefined ? null : Number(served);
  function poll() {
    fetch("%s", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (s) {
      if (version !== null && s.version !== version) { location.reload(); return; }
      version = s.version;
      var box = document.getElementById("lesson-builder-notice");
      if (s.notice) {
        if (!box) {
          box = document.createElement("p");
          box.id = "lesson-builder-notice";
          box.setAttribute("role", "status");
          box.style.cssText = "position:fixed;left:0;right:0;bottom:0;margin:0;padding:.6em 1em;z-index:99999;" +
            "background:#5a4500;color:#fff;font:14px/1.4 system-ui,sans-serif";
          document.body.appendChild(box);
        }
        box.textContent = s.notice;
      } else if (box) { box.remove(); }
    }).catch(function () {}).then(function () { setTimeout(poll, 500); });
  }
  poll();
})();
""" % STATUS_PATH
PROBLEMS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'">
<title>Build failed: {count}</title>
<style>
body {{ margin: 0; font: 16px/1.5 system-ui, sans-serif; background: #fff; color: #1a1a1a; }}
main {{ max-width: 60rem; margin: 0 auto; padding: 1.5rem; }}
h1 {{ color: #8b0000; font-size: 1.4rem; }}
pre {{ background: #fbeaea; border-left: 4px solid #8b0000; padding: 1rem; overflow-x: auto; white-space: pre-wrap; }}
@media (prefers-color-scheme: dark) {{ body {{ background: #161616; color: #eee; }} pre {{ background: #3a1515; }} h1 {{ color: #ff8a8a; }} }}
</style>
</head>
<body>
<main>
<h1>The build failed: {count}</h1>
<p>Fix what is listed below and save; this page reloads by itself when the site builds again.</p>
<pre id="lesson-builder-problems" role="alert">{problems}</pre>
</main>
<script src="{script}" data-version="{version}"></script>
</body>
</html>
"""


class Preview:
    """The state shared by the watcher and the server: the last good files, the last errors, a notice."""

    def __init__(self, content: Path, out: Path, templates: Path, lang: str | None = None):
        self.content, self.out, self.templates = content, out, templates
        self.lang = lang  # a translator's preview: other languages' problems neither stop it nor show
        self.hidden: list = []
        self.version = 0
        self.errors: list[str] = []
        self.notice = ""  # e.g. that Python code changed and the preview needs a restart
        self.files: dict[str, bytes] = {}
        self.lock = threading.Lock()
        self.workspace = Workspace()  # unchanged files stay loaded and parsed between rebuilds
        self._listed: dict | None = None  # what the lesson lists and neighbour links show, as of the last build
        self.searched: dict = {}  # each page's sections, for the search index

    def rebuild(self, changed: set[Path] | None = None) -> str:
        """Rebuild everything, or only the lesson pages `changed` files affect; return one log line
        (with the problems on the lines after it when the build failed), or "" when nothing changed."""
        started = time.perf_counter()
        failing = bool(self.errors)
        try:
            rendering, only = self._render(self._affected_slugs(changed))
            written = self._write(rendering.files, only)
        except UserError as err:
            with self.lock:
                self.errors = [str(p) for p in err.problems]
                self.version += 1
            count = len(err.problems)
            return f"build failed: {count} problem{'s' if count != 1 else ''}\n" + "\n".join(self.errors)
        except Exception as err:  # our bug: show it in the page and keep serving, with the traceback here
            import traceback
            traceback.print_exc()
            with self.lock:
                self.errors = [printable(f"internal error (please report it): {type(err).__name__}: {err}")]
                self.version += 1
            return "build failed: internal error"
        seconds = time.perf_counter() - started
        hidden = f" ({tally(self.hidden)} in other languages not shown)" if self.hidden else ""
        if only is None:
            return f"rebuilt all pages in {seconds:.2f} s{hidden}"
        if written:
            return f"rebuilt {', '.join(sorted(written))} in {seconds:.2f} s{hidden}"
        # No page changed (an editor saving twice, a change inside a comment): nothing to say, unless
        # the last build had failed and this one says the problems are fixed.
        return f"rebuilt in {seconds:.2f} s: the problems are fixed (no page changed)" if failing else ""

    def _render(self, only: set[str] | None):
        """Gather, check and render (all pages, or the pages of the slugs in `only`); raise UserError with
        every problem. Returns (the rendering, the slugs it covers or None for all). A partial rebuild
        turns into a full one when a lesson was added, removed, renamed or reordered, since every
        lesson list and neighbouring page shows those."""
        if only is None:  # what changed may be a catalog, template, glossary or scenario: no figure part is kept
            self.workspace.memo.clear()
        inputs, problems = gather(self.content, self.templates, self.workspace)
        listed = {(lang, slug): (lesson.title, lesson.order, lesson.summary)
                  for lang, lessons in inputs.lessons.items() for slug, lesson in lessons.items()}
        if only is not None and listed != self._listed:
            only = None  # the memo stays: a lesson added or retitled changes no figure part
        rendering = site.render_site(inputs, None, only=only, searched=self.searched, preview=True)
        problems += check_rendering(inputs, rendering)
        if self.lang is not None:  # the pages of this language are served whatever the others' state
            problems, self.hidden = for_language(problems, self.content, self.lang)
        if problems:
            raise UserError(list(dict.fromkeys(problems)))
        self._listed = listed
        return rendering, only

    def _write(self, files: dict[str, bytes], only: set[str] | None) -> list[str]:
        """Write a full rebuild by swapping the folder, a partial one file by file, each file by a
        rename (a reader never sees half a page); return what changed."""
        with self.lock:
            if only is not None and self.files:  # the code colours follow every page's code, not just the rebuilt ones'
                files = {**files, **site.code_colours({**self.files, **files})}
            merged = {**self.files, **files} if only is not None else files
            written = [rel for rel, data in files.items() if self.files.get(rel) != data]
            if only is None or not self.out.exists():
                write_atomically(self.out, merged)
            else:
                folder = resolve_output(self.out)
                check_ours(folder)
                with OutputLock(folder):
                    for rel in written:
                        replace_file(folder, rel, files[rel])
            self.files = merged
            self.errors = []
            self.version += 1
        return written

    def _affected_slugs(self, changed: set[Path] | None) -> set[str] | None:
        """Lesson files affect their own slug; anything else (scenarios, catalogs, templates) affects all."""
        if not changed or not self.files:
            return None
        slugs = set()
        for path in changed:
            path = Path(path)
            if path.suffix == ".md" and path.parent.parent.resolve() == self.content.resolve():
                slugs.add(path.stem)
            else:
                return None
        return slugs

    def status(self) -> bytes:
        with self.lock:
            return json.dumps({"version": self.version, "errors": self.errors, "notice": self.notice}).encode("utf-8")

    def problems_page(self) -> bytes | None:
        """The page every address shows while the last build failed, or None."""
        with self.lock:
            errors, version = list(self.errors), self.version
        if not errors:
            return None
        count = f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
        return PROBLEMS_PAGE.format(count=count, problems=html.escape("\n".join(errors)),
                                    script=SCRIPT_PATH, version=version).encode("utf-8")

    def current_version(self) -> int:
        with self.lock:
            return self.version


MAX_PATH = 2048  # longer request targets are refused (no page of ours has one)
MAX_CONNECTIONS = 64  # connections served at once; more are closed at once
TIMEOUT = 10  # seconds a connection may sit idle (half-open connections would hold threads forever)
REQUEST_DEADLINE = 20  # seconds a whole request may take: a client trickling header lines is cut off too
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]"}


def make_handler(preview: Preview, extra_hosts: frozenset[str] = frozenset()):
    root = preview.out.resolve()
    hosts = LOCAL_HOSTS | set(extra_hosts)

    class Handler(SimpleHTTPRequestHandler):
        timeout = TIMEOUT

        def log_message(self, format, *args):  # quiet: the terminal shows builds, not requests
            pass

        def do_GET(self):
            self._respond(head=False)

        def do_HEAD(self):
            self._respond(head=True)

        def _respond(self, head: bool):
            """One guard for every method: the Host header, the request target, the output folder."""
            host = (self.headers.get("Host") or "").strip().lower()
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in hosts:  # a DNS-rebinding page reaches us under a foreign name
                return self.send_error(HTTPStatus.BAD_REQUEST, "unknown Host header; use 127.0.0.1 or localhost")
            path = urlsplit(self.path).path
            raw = unquote(path)
            if len(self.path) > MAX_PATH or "\0" in raw or any(ord(c) < 32 for c in raw) or not path.startswith("/"):
                return self.send_error(HTTPStatus.BAD_REQUEST, "bad request target")
            if path == STATUS_PATH:
                return self._send(preview.status(), "application/json", head=head)
            if path == WORKER_PATH:
                return self._send(REMOVE_WORKER_JS.encode("utf-8"), "text/javascript", head=head)
            if path == SCRIPT_PATH:
                return self._send(RELOAD_JS.encode("utf-8"), "text/javascript", head=head)
            # The build a page is served from, read before anything else: a build that ends while it is served
            # (a new file, or the problems) then costs the page one more reload, never a missed one.
            version = preview.current_version()
            problems = preview.problems_page()
            if problems is not None and is_page(path):  # every page shows the problems until they are fixed
                # 200, not 500: the preview itself works, and a browser would log an error for each poll.
                # Only pages: a script or stylesheet the open page asks for meanwhile (its figures' data
                # at idle, the charting library) still comes from the last good build, never as HTML.
                return self._send(problems, "text/html", head=head)
            if not (root / MARKER).is_file():  # never serve a folder the builder did not make
                return self.send_error(HTTPStatus.NOT_FOUND, "not found")
            try:
                target = Path(self.translate_path(self.path)).resolve()
            except (OSError, ValueError):
                return self.send_error(HTTPStatus.BAD_REQUEST, "bad request target")
            if ".." in Path(raw).parts or not (target == root or root in target.parents):
                return self.send_error(HTTPStatus.FORBIDDEN, "outside the output folder")
            # No dotfiles, as asked for or as reached through a link: the marker, editors' and
            # the preview's temporary files, anything private that ended up in the folder.
            if any(part.startswith(".") for part in (*Path(raw).parts, *target.relative_to(root).parts)):
                return self.send_error(HTTPStatus.NOT_FOUND, "not found")
            if target.is_dir():
                if not path.endswith("/"):
                    return self._redirect(path + "/")
                target = target / "index.html"
            if target.is_file():
                body = target.read_bytes()
                if target.suffix == ".html":
                    body = body.replace(b"</body>", f'<script src="{SCRIPT_PATH}" data-version="{version}"></script></body>'.encode(), 1)
                return self._send(body, self.guess_type(str(target)), head=head)
            if (root / "404.html").is_file():
                return self._send((root / "404.html").read_bytes(), "text/html; charset=utf-8", HTTPStatus.NOT_FOUND, head)
            return self.send_error(HTTPStatus.NOT_FOUND, "not found")  # no folder listings, ever

        def _redirect(self, location: str):
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _send(self, body: bytes, kind: str, code=HTTPStatus.OK, head: bool = False):
            if kind.startswith("text/") and "charset" not in kind:
                kind += "; charset=utf-8"
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if not head:
                self.wfile.write(body)

    return partial(Handler, directory=str(root))


class PreviewServer(ThreadingHTTPServer):
    """A threading server with a bound on connections served at once and a deadline for each: the idle
    timeout alone let 200 clients each sending a header line every 2 s hold every slot for good."""

    daemon_threads = True

    def __init__(self, address, handler):
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._deadlines: dict[socket.socket, float] = {}
        self._deadlines_lock = threading.Lock()
        self._closed = threading.Event()
        super().__init__(address, handler)
        threading.Thread(target=self._enforce_deadlines, daemon=True).start()

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # too many at once: close it rather than queue a thread
            return
        with self._deadlines_lock:
            self._deadlines[request] = time.monotonic() + REQUEST_DEADLINE
        try:
            super().process_request(request, client_address)
        except Exception:
            self._forget(request)
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._forget(request)
            self._slots.release()

    def _forget(self, request) -> None:
        with self._deadlines_lock:
            self._deadlines.pop(request, None)

    def _enforce_deadlines(self) -> None:
        """Cut off every connection past its deadline: its handler's next read ends, and its slot frees."""
        while not self._closed.wait(0.1):
            now = time.monotonic()
            with self._deadlines_lock:
                late = [sock for sock, deadline in self._deadlines.items() if deadline < now]
            for sock in late:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def server_close(self):
        self._closed.set()
        super().server_close()

    def handle_error(self, request, client_address):  # a client that hung up is not our problem
        pass


def classify(paths, preview: Preview) -> tuple[set[Path], list[Path]]:
    """Split watched paths into inputs to rebuild from and Python files that need a restart; leave out
    the output folder, hidden files (editors' swap and lock files) and the builder's other files."""
    out = preview.out.resolve()
    inputs, code = set(), []
    for name in paths:
        path = Path(name)
        if path.name.startswith(".") or path.resolve() == out or out in path.resolve().parents:
            continue
        if path.is_relative_to(PACKAGE):
            if path.suffix == ".py":
                code.append(path)
            elif path.is_relative_to(FIGURES):  # a figure kind's template or styles
                inputs.add(path)
            continue
        inputs.add(path)
    return inputs, sorted(code)


def serve(content: Path, out: Path, templates: Path, host: str = "127.0.0.1", port: int = 8000,
          ready: threading.Event | None = None, stop: threading.Event | None = None, lang: str | None = None) -> None:
    """Build, serve and watch until interrupted (or until `stop` is set, for tests). `ready` is set once
    the server answers and the watcher is watching."""
    from watchfiles import watch

    check_apart(out, content=content, templates=templates)  # an output inside content/ rebuilt forever
    check_ours(resolve_output(out))  # refused before anything is served: it may be someone's home folder
    if lang is not None:
        for_language([], content, lang)  # an unknown language is reported before anything is served
    preview = Preview(content, out, templates, lang)
    try:  # bind first: a port in use or a bad address is reported before any work
        server = PreviewServer((host, port), make_handler(preview, frozenset({host.lower()})))
    except (OSError, OverflowError, UnicodeError, ValueError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise UserError(Problem(f"--host {host} --port {port}", None, f"cannot serve there: {reason}")) from None
    serving = False
    try:
        watched = [p for p in (content, templates, PACKAGE) if p.exists()]
        # With a timeout the generator yields at once, and the watcher exists from its first step: arm it
        # before the first build, so an edit made at any moment from here on is seen.
        changes = watch(*watched, stop_event=stop, debounce=200, step=50, rust_timeout=100, yield_on_timeout=True)
        pending = next(changes, set())
        print(preview.rebuild(), flush=True)
        address = f"http://{host}:{server.server_address[1]}/"
        print(f"serving {printable(str(out))} at {address}index.html (Ctrl+C to stop)", flush=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        serving = True
        if ready is not None:
            ready.port = server.server_address[1]
            ready.set()
        while True:
            inputs, code = classify({path for _, path in pending}, preview)
            if code:
                names = ", ".join(str(p.relative_to(PACKAGE.parent)) for p in code)
                preview.notice = (f"{names} changed: the preview does not reload Python code; restart "
                                  "`python -m builder serve` to use it")  # open pages show it too
                print(preview.notice, flush=True)
            log = preview.rebuild(inputs) if inputs else ""
            if log:
                print(log, flush=True)
            pending = next(changes, None)
            if pending is None:
                break
    except KeyboardInterrupt:
        pass
    finally:
        if serving:
            server.shutdown()  # waits for serve_forever to return: only when it was started
        server.server_close()
        print("stopped", file=sys.stderr)
