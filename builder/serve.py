"""A live preview for authors and translators: build, serve on 127.0.0.1, rebuild what an edit
affects, and reload the open page. A build error is shown in the page instead of stopping the server.

The reload script and the status endpoint exist only in served responses, never in dist/.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from builder.build import Workspace, check_rendering, gather
from builder.output import OutputLock, write_atomically
from builder.errors import Problem, UserError
from builder import site

STATUS_PATH = "/__lesson_builder/status"
SCRIPT_PATH = "/__lesson_builder/reload.js"
RELOAD_JS = """(function () {
  var version = null;
  function poll() {
    fetch("%s", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (s) {
      if (version !== null && s.version !== version) { location.reload(); return; }
      version = s.version;
      var box = document.getElementById("lesson-builder-error");
      if (s.errors.length) {
        if (!box) {
          box = document.createElement("pre");
          box.id = "lesson-builder-error";
          box.setAttribute("role", "alert");
          box.style.cssText = "position:fixed;left:0;right:0;bottom:0;margin:0;max-height:50vh;overflow:auto;" +
            "background:#8b0000;color:#fff;padding:1em;z-index:99999;white-space:pre-wrap;font-size:14px";
          document.body.appendChild(box);
        }
        box.textContent = s.errors.join("\\n");
      } else if (box) { box.remove(); }
    }).catch(function () {}).then(function () { setTimeout(poll, 500); });
  }
  poll();
})();
""" % STATUS_PATH


class Preview:
    """The state shared by the watcher and the server: the last good files and the last errors."""

    def __init__(self, content: Path, out: Path, templates: Path):
        self.content, self.out, self.templates = content, out, templates
        self.version = 0
        self.errors: list[str] = []
        self.files: dict[str, bytes] = {}
        self.lock = threading.Lock()
        self.workspace = Workspace()  # unchanged files stay loaded and parsed between rebuilds

    def rebuild(self, changed: set[Path] | None = None) -> str:
        """Rebuild everything, or only the lesson pages `changed` files affect; return a log line."""
        started = time.perf_counter()
        only = self._affected_slugs(changed)
        try:
            inputs, problems = gather(self.content, self.templates, self.workspace)
            rendering = site.render_site(inputs, None, only=only)
            problems += check_rendering(inputs, rendering)
            if problems:
                raise UserError(list(dict.fromkeys(problems)))
            written = self._write(rendering.files, only)
        except UserError as err:
            with self.lock:
                self.errors = [str(p) for p in err.problems]
                self.version += 1
            return f"build failed: {len(err.problems)} problem(s)\n" + "\n".join(self.errors)
        except Exception as err:  # our bug: show it in the page and keep serving, with the traceback here
            import traceback
            traceback.print_exc()
            with self.lock:
                self.errors = [f"internal error (please report it): {type(err).__name__}: {err}"]
                self.version += 1
            return "build failed: internal error"
        scope = "all pages" if only is None else ", ".join(sorted(written)) or "nothing changed"
        return f"rebuilt {scope} in {time.perf_counter() - started:.2f} s"

    def _write(self, files: dict[str, bytes], only: set[str] | None) -> list[str]:
        """Write a full rebuild atomically, a partial one file by file; return what changed."""
        with self.lock:
            merged = {**self.files, **files} if only is not None else files
            written = [rel for rel, data in files.items() if self.files.get(rel) != data]
            if only is None or not self.out.exists():
                write_atomically(self.out, merged)
            else:
                with OutputLock(self.out.absolute()):
                    for rel in written:
                        target = self.out / rel
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(files[rel])
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
            return json.dumps({"version": self.version, "errors": self.errors}).encode("utf-8")


MAX_PATH = 2048  # longer request targets are refused (no page of ours has one)
MAX_CONNECTIONS = 64  # connections served at once; more are closed at once
TIMEOUT = 10  # seconds a connection may sit idle (half-open connections would hold threads forever)
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
            if path == SCRIPT_PATH:
                return self._send(RELOAD_JS.encode("utf-8"), "text/javascript", head=head)
            try:
                target = Path(self.translate_path(self.path)).resolve()
            except (OSError, ValueError):
                return self.send_error(HTTPStatus.BAD_REQUEST, "bad request target")
            if ".." in Path(raw).parts or not (target == root or root in target.parents):
                return self.send_error(HTTPStatus.FORBIDDEN, "outside the output folder")
            if target.is_dir():
                if not path.endswith("/"):
                    return self._redirect(path + "/")
                target = target / "index.html"
            if target.is_file():
                body = target.read_bytes()
                if target.suffix == ".html":
                    body = body.replace(b"</body>", f'<script src="{SCRIPT_PATH}"></script></body>'.encode(), 1)
                return self._send(body, self.guess_type(str(target)), head=head)
            if (root / "404.html").is_file() and not preview.errors:
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
    """A threading server with a bound on connections served at once."""

    daemon_threads = True

    def __init__(self, address, handler):
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # too many at once: close it rather than queue a thread
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address):  # a client that hung up is not our problem
        pass


def serve(content: Path, out: Path, templates: Path, host: str = "127.0.0.1", port: int = 8000,
          ready: threading.Event | None = None, stop: threading.Event | None = None) -> None:
    """Build, serve and watch until interrupted (or until `stop` is set, for tests)."""
    from watchfiles import watch

    preview = Preview(content, out, templates)
    try:  # bind first: a port in use or a bad address is reported before any work
        server = PreviewServer((host, port), make_handler(preview, frozenset({host.lower()})))
    except (OSError, OverflowError, UnicodeError, ValueError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise UserError(Problem(f"--host {host} --port {port}", None, f"cannot serve there: {reason}")) from None
    try:
        print(preview.rebuild(), flush=True)
        out.mkdir(parents=True, exist_ok=True)
        address = f"http://{host}:{server.server_address[1]}/"
        print(f"serving {out} at {address}index.html (Ctrl+C to stop)", flush=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        if ready is not None:
            ready.port = server.server_address[1]
            ready.set()
        watched = [p for p in (content, templates) if p.exists()]
        for changes in watch(*watched, stop_event=stop, debounce=200, step=50, yield_on_timeout=False):
            changed = {Path(path) for _, path in changes if not Path(path).name.startswith(".")}
            if changed:
                print(preview.rebuild(changed), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
        print("stopped", file=sys.stderr)
