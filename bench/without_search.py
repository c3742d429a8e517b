"""`python -m builder` with search taken out: the baseline that bench/search.py measures what search adds to
a build against. The same code, the same course, and templates whose search box is empty (bench/search.py
passes a copy); here the work search does at build time is skipped: no section text taken from the pages,
no index built, no index name put into the pages (they keep the placeholder, which nobody reads).

    python bench/without_search.py build --content DIR --templates DIR --out DIR -q
"""

import builder.lesson_page
import builder.search
from builder.cli import run

SKIPPED = {(builder.lesson_page, "page_sections"): lambda body, figures=(): [],
           (builder.search, "build_index"): lambda html_lang, pages: b"",
           (builder.search, "fill_placeholders"): lambda files, names, written=(): {}}
for (module, name), stand_in in SKIPPED.items():
    # a renamed function would leave search in and make this baseline measure nothing: fail instead
    assert hasattr(module, name), f"{module.__name__}.{name} is gone: update bench/without_search.py"
    setattr(module, name, stand_in)

if __name__ == "__main__":
    run()
