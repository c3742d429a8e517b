"""Lighthouse on every lesson page, mobile defaults, served as GitHub Pages serves (pages_server.py).

Needs Node.js (npx fetches lighthouse@12.2.3 from the npm registry on first use) and Chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

VERSION = "12.2.3"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def available(chromium: str | None) -> str | None:
    if shutil.which("npx") is None:
        return "npx (Node.js) is not installed"
    if chromium is None:
        return "no Chromium that runs"
    return None


def run(url: str, chromium: str) -> dict:
    """One Lighthouse run (mobile defaults): the four category scores (0-100) and total blocking time."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        command = ["npx", "--yes", f"lighthouse@{VERSION}", url, "--output=json", f"--output-path={out}", "--quiet",
                   "--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run"]
        subprocess.run(command, check=True, env={**os.environ, "CHROME_PATH": chromium}, capture_output=True,
                       timeout=600)
        report = json.loads(out.read_text(encoding="utf-8"))
    scores = {name: round(report["categories"][name]["score"] * 100) for name in CATEGORIES}
    scores["tbt"] = report["audits"]["total-blocking-time"]["numericValue"]
    scores["lcp"] = report["audits"]["largest-contentful-paint"]["numericValue"]
    scores["bytes"] = report["audits"]["total-byte-weight"]["numericValue"]
    failed = [audit["id"] for audit in report["audits"].values()
              if audit.get("score") is not None and audit["score"] < 1 and audit.get("scoreDisplayMode") == "binary"]
    scores["failed audits"] = failed
    return scores
