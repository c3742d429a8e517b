"""Property tests of the readers contributors' files go through: the lesson reader (front matter, trace
references, containers, heading ids) and the catalog reader. Whatever the text:

- it never raises anything but a UserError (no traceback);
- every problem is exactly one line, names the file, and carries no control character;
- the time it takes grows linearly with its size.

Examples are generated deterministically (tests/conftest.py loads the "repeatable" Hypothesis profile) and
bounded per test, so CI runs the same cases every time; HYPOTHESIS_PROFILE=explore searches afresh.
"""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from builder.content import load_lesson
from builder.errors import UserError
from builder.figures import KINDS
from builder.i18n import check_catalog, compile_catalog, format_markers, read_catalog
from builder.markdown import LessonRenderer
from builder.references import TraceValues
from builder.scenarios import load_scenarios
from conftest import CONTENT, FIXTURE, ROOT, copy_fixture

EXPLORING = os.environ.get("HYPOTHESIS_PROFILE") == "explore"


def bounded(examples: int):
    return settings(max_examples=2000 if EXPLORING else examples)


SCENARIOS, _ = load_scenarios(FIXTURE / "scenarios")
VALUES = {lang: TraceValues(SCENARIOS, "river-bank", locale) for lang, locale in (("zh", "zh_Hans"), ("ja", "ja"))}
RENDERER = LessonRenderer()
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def assert_one_line_each(problems, path: Path) -> None:
    for problem in problems:
        line = str(problem)
        assert not CONTROL.search(line), repr(line)
        assert line.startswith(str(path)), line


# The lesson reader ---------------------------------------------------------------------------------------

# Pieces of lesson text, near the grammar and just off it; joined in any order with any separators.
words = st.text(alphabet=st.sampled_from(list("ab 残差流の修正。、（）*_`$\\#{}:.-0123456789\t\u202e\x1b")), max_size=12)
run = st.sampled_from(["on", "off", "post", "bad", "", "ON"])
selection = st.sampled_from(["b0", "b1", "b6", "b7", "b9", "b1.attention", "b2.ffn.after", "b1.ffn.before", "b0-3",
                             "b3-1", "b1.attention.delta", "b", "b1.", "river-bank/", "money-bank/on:b1", "b6.final", "b0.final",
                             "b1.final.after", "b1-3.final"])
field = st.sampled_from(["", " length", " cosine", " top", " weight", " spread", " correction", " geography",
                         " nonsense", "  length", "\nlength", " length extra"])
reference = st.builds(lambda s, r, sel, f, close: "{{" + s + r + ":" + sel + f + close,
                      st.sampled_from(["", " ", "money-bank/", "nope/"]), run, selection, field,
                      st.sampled_from(["}}", "}", "", " }}", "}}}"]))
heading = st.builds(lambda level, title, anchor: f"{level} {title}{anchor}",
                    st.sampled_from(["#", "##", "###", "####"]), words,
                    st.sampled_from([" {#intro}", " {#a-b}", " {\\#t}", " {&#35;t}", " {#}", " {#Bad}", "{#x}", "",
                                     " {#x} tail", " {#x}{#y}", " {{on:b0}} {#x}"]))
container = st.sampled_from(["::: diagram 图", "::: diagram", "::: walkthrough", "::: interactive", "::: interactive depth-map",
                             "::: interactive nope", ":::", "::::", "::: unknown"])
block = st.one_of(words, reference, heading, container, st.sampled_from([
    "- item", "1. step", "  - nested", "> quote", "```python", "```", "$$", "$x_0$", "$\\href{x}{y}$", "| a | b |",
    "|---|---|", "**粗体**", "[link](javascript:alert(1))", "<script>x</script>", "1.5", "\\*\\*", "***"]))
body = st.lists(st.tuples(block, st.sampled_from(["\n", "\n\n", " ", ""])), max_size=25).map(
    lambda parts: "".join(text + sep for text, sep in parts))

front_value = st.one_of(st.text(max_size=8), st.integers(-3, 3), st.booleans(),
                        st.lists(st.sampled_from(["river-bank", "depth-map", "b1", "input", "x"]), max_size=3))
front_matter = st.dictionaries(st.sampled_from(["title", "order", "summary", "scenario", "scenarios", "figures",
                                                "walkthrough", "extra"]), front_value, max_size=6)


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


lesson_text = st.one_of(
    st.builds(lambda meta, text: "+++\ntitle = \"t\"\norder = 1\nscenario = \"river-bank\"\n+++\n" + text, st.none(), body),
    st.builds(lambda meta, text: "+++\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in meta.items()) + "+++\n" + text,
              front_matter, body),
    st.text(max_size=200),
)


def read_lesson(path: Path, text: str, lang: str = "zh") -> list:
    """Load and render a lesson as a build does; return its problems."""
    path.write_text(text, encoding="utf-8")
    try:
        lesson = load_lesson(path, lang, set(SCENARIOS), set(KINDS))
    except UserError as err:
        return err.problems
    rendered = RENDERER.render(lesson.body, path, lesson.body_line, VALUES[lang].resolve, {}, lang)
    assert "<script" not in rendered.html.replace("&lt;script", "")
    return rendered.problems


@bounded(300)
@given(text=lesson_text)
def test_the_lesson_reader_never_raises_and_reports_each_problem_in_one_line(tmp_path, text):
    path = tmp_path / "zh" / "fuzz.md"
    path.parent.mkdir(exist_ok=True)
    assert_one_line_each(read_lesson(path, text), path)


def cpu_seconds(work) -> float:
    """The least CPU time of three runs of `work`, with the cycle collector paused (it runs at moments
    that have nothing to do with the input's size)."""
    gc.collect()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(3):
            started = time.process_time()
            work()
            best = min(best, time.process_time() - started)
        return best
    finally:
        gc.enable()


def grows_linearly(work_for_size, small: int) -> tuple[bool, str]:
    """Whether 4x the input costs well under the 16x a quadratic cost would (linear is 4x; the margin is
    wide because the machine is shared). Inputs too quick to measure pass."""
    a, b = cpu_seconds(lambda: work_for_size(small)), cpu_seconds(lambda: work_for_size(4 * small))
    return b < 0.05 or b < 10 * max(a, 0.005), f"{small}: {a:.3f} s, {4 * small}: {b:.3f} s"


@bounded(15)
@given(unit=st.lists(st.one_of(reference, block), min_size=1, max_size=4).map(" ".join))
def test_the_lesson_reader_takes_time_linear_in_the_size_of_a_paragraph(unit):
    """The same text over and over in one paragraph (an unclosed `{{` cost quadratic time there)."""
    copies = max(1, 20_000 // max(len(unit), 1))
    ok, detail = grows_linearly(lambda n: LessonRenderer().parse(unit * n, Path("x.md"), 1), copies)
    assert ok, f"{unit!r}: {detail}"


@bounded(10)
@given(unit=st.lists(block, min_size=1, max_size=4).map("\n".join))
def test_the_lesson_reader_takes_time_linear_in_the_number_of_lines(unit):
    copies = max(1, 20_000 // max(len(unit), 1))
    ok, detail = grows_linearly(lambda n: LessonRenderer().parse((unit + "\n\n") * n, Path("x.md"), 1), copies)
    assert ok, f"{unit!r}: {detail}"


def test_an_unclosed_brace_pair_in_a_long_paragraph_is_scanned_once():
    """600 KB of `{{` without `}}` in one paragraph took about 50 s (each `{{` searched to the end of the
    paragraph). Run it in a child process with a hang guard: a guard against the quadratic case, not a
    speed target."""
    code = ("from pathlib import Path; from builder.markdown import LessonRenderer; "
            "p = LessonRenderer().parse('段落 {{ 未闭合 ' * 60000, Path('x.md'), 1); print(len(p.refs))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["0"], result.stderr


# The catalog reader --------------------------------------------------------------------------------------

TEMPLATE = read_catalog(CONTENT / "messages.pot")
MESSAGES = [m for m in TEMPLATE if m.id]
HEADER = ('msgid ""\nmsgstr ""\n"Project-Id-Version: lesson-builder VERSION\\n"\n"Language: zh_Hans\\n"\n'
          '"Plural-Forms: {plural}\\n"\n"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=utf-8\\n"\n\n')


def po_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


marker = st.sampled_from(["%(n)s", "%(token)s", "%(n)d", "%(n)*s", "%(n)99999999999999999999s", "%(n)300000000s",
                          "%s", "%", "%%", "%(n)", "%(n)-5s", "%(na me)s", "％(n)s", "%(depth)s", "%(language)s"])
translation = st.lists(st.one_of(marker, st.text(alphabet="译文字 ab\"\\\n", max_size=6)), max_size=6).map("".join)
plural = st.sampled_from(["nplurals=1; plural=0;", "nplurals=2; plural=(n != 1);", "nplurals=40000000; plural=0;",
                          "nplurals=0; plural=0;", "nplurals=x; plural=0;", "nplurals=1; plural=n/0;",
                          "nplurals=1; plural=((((((((n))))))));", "nplurals=1;", "", "nplurals=" + "9" * 5000 + ";"])
entry = st.tuples(st.sampled_from(MESSAGES), translation, st.sampled_from(["", "#, fuzzy\n", "#, python-format\n"]))
extra = st.sampled_from(["", 'msgid "one"\nmsgid_plural "%(n)s many"\nmsgstr[0] "%(n)s 个"\n\n',
                         'msgid "x"\nmsgstr "unclosed\n\n', 'msgstr "orphan"\n\n', '"stray"\n\n', "#~ msgid \"old\"\n\n"])


def catalog_text(plural_forms: str, entries, tail: str) -> str:
    parts = [HEADER.format(plural=plural_forms)]
    for message, string, flags in entries:
        context = f"msgctxt {po_string(message.context)}\n" if message.context else ""
        if isinstance(message.id, tuple):  # a plural message: one form is enough for nplurals=1
            parts.append(f"{flags}{context}msgid {po_string(message.id[0])}\nmsgid_plural {po_string(message.id[1])}\n"
                         f"msgstr[0] {po_string(string)}\n\n")
        else:
            parts.append(f"{flags}{context}msgid {po_string(message.id)}\nmsgstr {po_string(string)}\n\n")
    return "".join(parts) + tail


@bounded(300)
@given(plural_forms=plural, entries=st.lists(entry, max_size=8), tail=extra)
def test_the_catalog_reader_never_raises_and_every_accepted_translation_formats(tmp_path, plural_forms, entries, tail):
    """A catalog is refused in one line per problem, or each translation it gives fills its placeholders
    with words, as the pages do, into a string of bounded size."""
    path = tmp_path / "messages.po"
    path.write_text(catalog_text(plural_forms, entries, tail), encoding="utf-8")
    try:
        catalog = read_catalog(path, "zh_Hans")
        problems = check_catalog(catalog, TEMPLATE, path)
        translations = compile_catalog(catalog, path)
    except UserError as err:
        problems = err.problems
    assert_one_line_each(problems, path)
    if problems:
        return
    for message in MESSAGES:
        source = message.id[0] if isinstance(message.id, tuple) else message.id
        names = format_markers(source)[0]
        if isinstance(message.id, tuple):
            text = translations.ngettext(*message.id, 1)
        else:
            text = translations.pgettext(message.context, message.id) if message.context else translations.gettext(message.id)
        filled = text % {name: "词" for name in names} if names else text
        assert len(filled) <= 2 * len(source) + 200


@bounded(10)
@given(entries=st.lists(entry, min_size=1, max_size=4))
def test_the_catalog_reader_takes_time_linear_in_the_number_of_entries(tmp_path, entries):
    path = tmp_path / "messages.po"

    def read(n):
        path.write_text(catalog_text("nplurals=1; plural=0;", entries * n, ""), encoding="utf-8")
        try:
            check_catalog(read_catalog(path, "zh_Hans"), TEMPLATE, path)
        except UserError:
            pass
    ok, detail = grows_linearly(read, max(1, 300 // len(entries)))
    assert ok, detail


# A scenario of values too small to draw builds, on an axis that says so --------------------------------

def test_a_scenario_of_tiny_values_and_zero_weights_builds(tmp_path):
    """Values of 1e-12 with every weight 0 made the tick maker divide by zero."""
    import tomllib

    content = copy_fixture(tmp_path / "content")
    path = content / "models" / "bank-block.toml"
    model = tomllib.loads(path.read_text(encoding="utf-8"))

    def zero(value):
        return [zero(v) for v in value] if isinstance(value, list) else 0.0
    path.write_text(f"dimensions = {model['dimensions']!r}\n[vocabulary]\n"
                    + "".join(f"{word} = [1e-12, 1e-12, 1e-12, 1e-12]\n" for word in model["vocabulary"])
                    + "[weights]\n" + "".join(f"{key} = {zero(value)}\n" for key, value in model["weights"].items()),
                    encoding="utf-8")
    result = subprocess.run([sys.executable, "-W", "error", "-m", "builder", "build", "--content", str(content),
                             "--out", str(tmp_path / "dist")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "RuntimeWarning" not in result.stderr
    page = (tmp_path / "dist" / "zh" / "transformer-block.html").read_text(encoding="utf-8")
    assert "NaN" not in page
