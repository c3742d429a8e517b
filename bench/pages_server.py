"""A local server that serves a built site the way GitHub Pages does, for Lighthouse.

GitHub Pages serves every text file gzip-compressed (when the browser accepts it) with
`Cache-Control: max-age=600`, under the repository's sub-path (https://user.github.io/repo/), and its
404.html for missing paths. Python's http.server does none of this, which costs Lighthouse points
that Pages would not; so the benchmark serves through this instead.
"""

from __future__ import annotations

import gzip
import mimetypes
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

COMPRESSED = {".html", ".css", ".js", ".json", ".xml", ".svg", ".txt"}


def serve(site: Path, prefix: str = "/repo/") -> tuple[ThreadingHTTPServer, str]:
    """Serve `site` under `prefix` on a free port in a background thread; return (server, base URL)."""
    root = site.resolve()
    cache: dict[Path, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            path = unquote(urlsplit(self.path).path)
            if not path.startswith(prefix):
                return self._send(HTTPStatus.NOT_FOUND, root / "404.html")
            target = (root / path[len(prefix):]).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_relative_to(root) or not target.is_file():
                return self._send(HTTPStatus.NOT_FOUND, root / "404.html")
            return self._send(HTTPStatus.OK, target)

        def _send(self, status, file: Path):
            body = file.read_bytes()
            kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            self.send_response(status)
            self.send_header("Content-Type", kind + ("; charset=utf-8" if kind.startswith("text/") or kind.endswith(("javascript", "json", "xml")) else ""))
            self.send_header("Cache-Control", "max-age=600")
            if file.suffix in COMPRESSED and "gzip" in self.headers.get("Accept-Encoding", ""):
                if file not in cache:
                    cache[file] = gzip.compress(body, compresslevel=6)
                body = cache[file]
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{prefix}"
