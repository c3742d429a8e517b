"""The vendored plotly.js basic bundle: the same plotly.js version as the installed `plotly` package,
the checksum its README records, and its licence beside it."""

from __future__ import annotations

import hashlib
import importlib.util
import re
from pathlib import Path

from conftest import ROOT

VENDOR = ROOT / "templates" / "assets" / "vendor"


def header_version(path: Path) -> str:
    head = path.read_bytes()[:400].decode("utf-8", "replace")
    return re.search(r"plotly\.js.*?v(\d+\.\d+\.\d+)", head).group(1)


def test_the_bundle_is_the_plotly_js_of_the_installed_plotly_package():
    package = Path(importlib.util.find_spec("plotly").submodule_search_locations[0])
    assert header_version(VENDOR / "plotly-basic.min.js") == header_version(package / "package_data" / "plotly.min.js")
    assert "(basic - minified)" in (VENDOR / "plotly-basic.min.js").read_text(encoding="utf-8")[:200]


def test_the_bundle_matches_the_recorded_checksum_and_version():
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    recorded = re.search(r"sha256 `([0-9a-f]{64})`", readme).group(1)
    assert hashlib.sha256((VENDOR / "plotly-basic.min.js").read_bytes()).hexdigest() == recorded
    assert f"version **{header_version(VENDOR / 'plotly-basic.min.js')}**" in readme


def test_the_licence_travels_with_it(site):
    licence = (VENDOR / "plotly-basic.LICENSE.txt").read_text(encoding="utf-8")
    assert "MIT" in licence or "Permission is hereby granted" in licence
    assert (site / "assets" / "vendor" / "plotly-basic.LICENSE.txt").is_file()
