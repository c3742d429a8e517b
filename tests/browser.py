"""Chromium through Playwright: launching it, and pages that record every error and request."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--log-level=3"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


def chromium_executable() -> str | None:
    """Return a system Chromium that actually runs; None means Playwright's own download."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists() and _runs(candidate):
            return candidate
    return None


def _runs(executable: str) -> bool:
    """Snap wrappers exist but may not start (containers, CI); ask for the version to find out."""
    try:
        return subprocess.run([executable, "--headless", "--no-sandbox", "--version"], capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def launch(playwright):
    """Launch Chromium, or skip (fail under CI=true) when none can start."""
    try:
        return playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
    except Exception as err:  # Playwright raises its own Error for a missing browser
        message = f"no Chromium could start: {str(err).splitlines()[0]}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true: a missing browser is a failure)")
        pytest.skip(message)


@dataclass
class Recorder:
    """Everything a page did that a reader should never see: errors, and requests off the site."""

    allowed_prefix: str = "file://"
    withheld: tuple[str, ...] = ()  # files of the site a test withholds on purpose (say, the charting library)
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    navigations: int = 0  # the main frame's navigations so far
    started_at: dict = field(default_factory=dict)  # request → navigations when it started
    failed: list = field(default_factory=list)  # (request, failure) of every request that failed

    def attach(self, page):
        # Plotly's own warnings ("WARN: Invalid color specifier …") arrive as console.trace, not warning.
        page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}")
                if (m.type in ("error", "warning", "trace") or m.text.startswith(("WARN", "ERROR")))
                and not (self.withheld and "Failed to load resource" in m.text) else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("request", lambda r: self._started(page, r))
        page.on("requestfailed", lambda r: self._failed(page, r))
        page.route("**/*", self._route)
        return page

    def _started(self, page, request):
        if request.is_navigation_request() and request.frame == page.main_frame:
            self.navigations += 1
        self.started_at[request] = self.navigations

    def _failed(self, page, request):
        if not self._withheld(request.url):
            self.failed.append((request, request.failure))

    def _cancelled(self, request, failure) -> bool:
        # A page that navigates (a reload, a link) cancels what it was still loading: the browser's own
        # doing, not a fault. Judged at the end: Chromium may report the cancelled request before the
        # navigation request that cancelled it (a reload the page's own script starts), so a count read
        # when the failure arrives missed the navigation now and then.
        return failure == "net::ERR_ABORTED" and self.started_at.get(request, self.navigations) < self.navigations

    def _withheld(self, url: str) -> bool:
        return any(url.endswith(name) for name in self.withheld)

    def _route(self, route):
        url = route.request.url
        if self._withheld(url):
            route.abort()
        elif url.startswith(self.allowed_prefix) or url.startswith("data:"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def problems(self) -> list[str]:
        return self.errors + [f"failed request: {request.url} {failure}" for request, failure in self.failed
                              if not self._cancelled(request, failure)]

    def assert_clean(self):
        assert self.blocked == [], f"requests off the site: {self.blocked}"
        assert self.problems() == [], "\n".join(self.problems())
