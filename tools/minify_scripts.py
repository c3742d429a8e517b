"""Shorten our own scripts once, here, instead of in every build: calmjs.parse renames each function's
local variables (which rjsmin, the build's minifier, cannot do), and a lesson page's own bytes shrink by
about a kilobyte gzip. Parsing the scripts takes most of a second, longer than a whole build of the real
site, so the result is kept in templates/minified/, each file headed by the SHA-256 of the source it was
made from. The build publishes it only while that hash still matches (builder/publish.py); after an edit
to a script it falls back to rjsmin and tests/test_minified.py says to run this again:

    python tools/minify_scripts.py          (needs the test extra: pip install -e '.[test]')
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from builder.publish import MINIFIED_HEADER  # noqa: E402

SCRIPTS = ["lesson.js", "site.js", "search.js"]  # templates/assets/ (the vendored library is minified already)


def minify(source: str) -> str:
    from calmjs.parse import es5
    from calmjs.parse.unparsers.es5 import minify_print
    # globals keep their names: the pages and the service worker call them by name
    return minify_print(es5(source), obfuscate=True, obfuscate_globals=False) + "\n"


def shortened(path: Path) -> str:
    data = path.read_bytes()
    return MINIFIED_HEADER.format(sha256=hashlib.sha256(data).hexdigest()) + minify(data.decode("utf-8"))


def main() -> int:
    out = ROOT / "templates" / "minified"
    out.mkdir(exist_ok=True)
    for name in SCRIPTS:
        (out / name).write_text(shortened(ROOT / "templates" / "assets" / name), encoding="utf-8")
        print(f"templates/minified/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
