"""Shared fixtures: the repository's own content, and small scratch projects."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content"
DEFAULT_SCENARIO = CONTENT / "scenarios" / "river-bank.toml"


@pytest.fixture
def content_copy(tmp_path) -> Path:
    """Return a private copy of content/ a test may break."""
    dest = tmp_path / "content"
    shutil.copytree(CONTENT, dest)
    return dest
