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

from builder.build import Workspace, gather, write_atomically
from builder.checks import check_parity
from builder.errors import UserError
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
            problems += check_parity(inputs.lessons, rendering.outlines, inputs.config.source_language)
            problems += rendering.problems
            files = rendering.files
            if problems:
                raise UserError(list(dict.fromkeys(problems)))
        except UserError as err:
            with self.lock:
                self.errors = [str(p) for p in err.problems]
                self.version += 1
            return f"build failed: {len(err.problems)} problem(s)\n" + "\n".join(self.errors)
        with self.lock:
            merged = {**self.files, **files} if only is not None else files
            written = [rel for rel, data in files.items() if self.files.get(rel) != data]
            self.files = merged
            if only is None or not self.out.exists():
                write_atomically(self.out, merged)
            else:
                for rel in written:
                    target = self.out / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(files[rel])
            self.errors = []
            self.version += 1
        scope = "all pages" if only is None else ", ".join(sorted(written)) or "nothing changed"
        return f"rebuilt {scope} in {time.perf_counter() - started:.2f} s"

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


def make_handler(preview: Preview):
    root = preview.out.resolve()

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # quiet: the terminal shows builds, not requests
            pass

        def do_GET(self):
            path = urlsplit(self.path).path
            if path == STATUS_PATH:
                return self._send(preview.status(), "application/json")
            if path == SCRIPT_PATH:
                return self._send(RELOAD_JS.encode("utf-8"), "text/javascript")
            target = Path(self.translate_path(self.path)).resolve()
            raw = unquote(path)
            if ".." in Path(raw).parts or not (target == root or root in target.parents):
                return self.send_error(HTTPStatus.FORBIDDEN, "outside the output folder")
            if target.is_file() and target.suffix == ".html":
                page = target.read_bytes().replace(b"</body>", f'<script src="{SCRIPT_PATH}"></script></body>'.encode(), 1)
                return self._send(page, "text/html; charset=utf-8")
            if not target.exists() and (root / "404.html").exists() and not preview.errors:
                return self._send((root / "404.html").read_bytes(), "text/html; charset=utf-8", HTTPStatus.NOT_FOUND)
            return super().do_GET()

        def _send(self, body: bytes, kind: str, code=HTTPStatus.OK):
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

    return partial(Handler, directory=str(root))


def serve(content: Path, out: Path, templates: Path, host: str = "127.0.0.1", port: int = 8000,
          ready: threading.Event | None = None, stop: threading.Event | None = None) -> None:
    """Build, serve and watch until interrupted (or until `stop` is set, for tests)."""
    from watchfiles import watch

    preview = Preview(content, out, templates)
    print(preview.rebuild(), flush=True)
    out.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer((host, port), make_handler(preview))
    server.daemon_threads = True
    address = f"http://{host}:{server.server_address[1]}/"
    print(f"serving {out} at {address}index.html (Ctrl+C to stop)", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if ready is not None:
        ready.port = server.server_address[1]
        ready.set()
    watched = [p for p in (content, templates) if p.exists()]
    try:
        for changes in watch(*watched, stop_event=stop, debounce=200, step=50, yield_on_timeout=False):
            changed = {Path(path) for _, path in changes}
            print(preview.rebuild(changed), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
        print("stopped", file=sys.stderr)

