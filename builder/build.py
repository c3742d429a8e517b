"""The build, top to bottom: gather and check everything, render every file, then swap the output
folder in atomically. Nothing reaches the output folder until every input is known to be good: pages
go into a staging folder beside it as they are rendered, and it replaces the output folder in one
rename only when the whole build succeeded.
"""

from __future__ import annotations

import gc
import gettext
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from builder import checks, links, publish, site
from builder.catalogs import load_translations, template_version
from builder.content import load_lessons, meta_line
from builder.errors import Problem, UserError
from builder.figures import KINDS
from builder.i18n import CATALOG_NAME, TEMPLATE_NAME, SiteConfig, load_site_config, read_catalog
from builder.markdown import LessonRenderer
from builder.output import Staging, check_apart
from builder.pages import make_environment
from builder.scenarios import Scenario, load_scenarios
from builder.sources import PLACEHOLDER, list_folder, placeholders, read_bytes
from builder.terminology import GLOSSARY_NAME, Glossary, check_catalog, load_glossary
from builder.translation import outdated_warning, state_of



@dataclass
class Inputs:
    """Everything a build reads, loaded and validated."""

    content: Path
    templates: Path
    config: SiteConfig
    scenarios: dict[str, Scenario]
    lessons: dict  # {lang: {slug: Lesson}}
    translations: dict  # {lang: gettext translations}
    env: object  # the Jinja environment
    renderer: LessonRenderer
    glossary: Glossary = field(default_factory=Glossary)  # the terms, for the terminology check and line breaks
    warnings: list[Problem] = field(default_factory=list)
    memo: dict = field(default_factory=dict)  # figure parts computed once per scenario and locale


@dataclass
class Summary:
    out: Path
    pages: dict[str, int]
    warnings: list[Problem]
    seconds: float
    stages: list[tuple[str, float]] = field(default_factory=list)  # (stage, seconds), in order

    def describe(self) -> str:
        per_lang = ", ".join(f"{lang} {n}" for lang, n in self.pages.items())
        total = sum(self.pages.values())
        return (f"built {total} pages ({per_lang}) into {self.out} in {self.seconds:.2f} s"
                f", {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}")

    def describe_stages(self) -> str:
        return "  ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in self.stages)


class Stopwatch:
    """Times the stages of a build, for `build --timings` and the benchmark."""

    def __init__(self):
        self.stages: list[tuple[str, float]] = []
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.stages.append((name, now - self._last))
        self._last = now


class FileMemo:
    """What was loaded from each file, kept until the file's bytes (or what else it depends on) change.
    The preview keeps one between rebuilds, so an edit reloads only the file edited."""

    def __init__(self):
        self._entries: dict[Path, tuple[tuple, object]] = {}

    def __call__(self, path: Path, load, depends=()):
        try:
            key = (read_bytes(path), depends() if callable(depends) else depends)
        except UserError:
            return load()  # let the loader report the file
        hit = self._entries.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        value = load()  # a loader's UserError propagates and nothing is remembered
        self._entries[path] = (key, value)
        return value


def _load_now(path: Path, load, depends=()):
    """A one-off build remembers nothing: reading each file twice to compare it would only cost time."""
    return load()


class Workspace:
    """What one build hands to the next in the same process (the preview): loaded files, the Jinja
    environment (which recompiles a template only when its file changes) and every lesson's parse."""

    def __init__(self, remember: bool = True):
        self.remember = FileMemo() if remember else _load_now
        self.renderer = LessonRenderer()
        self.envs: dict[Path, object] = {}
        # Figure parts (views, markup, page data, trace values), kept between the preview's partial
        # rebuilds, which only a lesson edit starts: a catalog, template, glossary or scenario change
        # rebuilds everything, and the preview empties this first (Preview._render).
        self.memo: dict = {}

    def environment(self, templates: Path):
        if templates not in self.envs:
            self.envs[templates] = make_environment(templates)
        return self.envs[templates]


def gather(content: Path, templates: Path, workspace: Workspace | None = None) -> tuple[Inputs, list[Problem]]:
    """Load and validate every input, returning what loaded and every problem found on the way."""
    workspace = workspace or Workspace(remember=False)
    remember = workspace.remember
    problems: list[Problem] = []
    config = load_site_config(content)  # without the languages nothing else can be checked
    scenarios, found = load_scenarios(content / "scenarios", remember)
    problems += found
    # Lessons may name a scenario that exists but failed to load: that file's own error is enough.
    try:
        on_disk = {path.stem for path in list_folder(content / "scenarios", ".toml")}
    except UserError:
        on_disk = set(scenarios)  # load_scenarios reported the folder
    lessons, found = load_lessons(content, config, on_disk, remember, figures=set(KINDS))
    problems += found
    translations, found = remember(content / TEMPLATE_NAME, lambda: load_translations(content, config, templates),
                                   lambda: (config.languages, template_version(content, templates),
                                            *(_read_or_none(content / lang.code / CATALOG_NAME) for lang in config.languages)))
    translations = dict(translations)
    problems += [p for p in found if p.severity == "error"]
    warnings = [p for p in found if p.severity != "error"]  # untranslated UI strings show in English
    for lang in config.languages:  # keep rendering with untranslated strings so later checks still run
        translations.setdefault(lang.code, gettext.NullTranslations())
    codes = [lang.code for lang in config.languages]
    glossary, found = remember(content / GLOSSARY_NAME, lambda: load_glossary(content, codes), tuple(codes))
    problems += found
    env = workspace.environment(templates)
    inputs = Inputs(content, templates, config, scenarios, lessons, translations, env, workspace.renderer, glossary,
                    memo=workspace.memo)
    inputs.warnings += warnings
    inputs.warnings += [warning for scenario in scenarios.values() for warning in scenario.warnings]
    inputs.warnings += [warning for by_slug in lessons.values() for lesson in by_slug.values()
                        for warning in placeholders(lesson.path, lesson.text)]
    inputs.warnings += set_stubs_aside(lessons, config.source_language)
    inputs.warnings += outdated_translations(lessons, config.source_language)
    inputs.warnings += catalog_terminology(content, config, glossary, remember)
    return inputs, problems


def catalog_terminology(content: Path, config: SiteConfig, glossary: Glossary, remember) -> list[Problem]:
    """Warn about the glossary's avoided variants in each language's catalog (a catalog that does not
    load is reported by load_translations)."""
    warnings = []
    for lang in config.languages:
        path = content / lang.code / CATALOG_NAME
        try:
            catalog = remember(path, lambda: read_catalog(path, lang.locale), lang.locale)
        except UserError:
            continue
        warnings += check_catalog(glossary, lang.code, path, catalog)
    return warnings


def _read_or_none(path: Path) -> bytes | None:
    try:
        return read_bytes(path)
    except UserError:
        return None


def set_stubs_aside(lessons: dict, source_language: str) -> list[Problem]:
    """A translation still titled with the placeholder of `builder new` is a stub: readers get the
    original, with the notice that the lesson is not translated yet, until it has a title of its own."""
    warnings = []
    for lang, by_slug in lessons.items():
        if lang == source_language:
            continue
        for slug in [slug for slug, lesson in by_slug.items() if PLACEHOLDER.search(lesson.title)]:
            lesson = by_slug.pop(slug)
            warnings.append(Problem(lesson.path, meta_line(lesson.text, "title") or 1,
                                    "a stub from `python -m builder new`: readers get the original, marked as not "
                                    "translated yet, until this translation has a title", "warning"))
    return warnings


def outdated_translations(lessons: dict, source_language: str) -> list[Problem]:
    """Warn about translations whose source changed since they were marked current, or that were never
    marked: they are built as they are, with a notice on the page."""
    warnings = []
    for lang, by_slug in lessons.items():
        if lang == source_language:
            continue
        for slug, lesson in by_slug.items():
            state = state_of(lesson, lessons[source_language].get(slug))
            if state.status in ("outdated", "unmarked"):
                warnings.append(outdated_warning(lesson, state))
    return warnings


def check_rendering(inputs: Inputs, rendering) -> list[Problem]:
    """The problems a rendering found, with the checks across languages: return the errors, and add
    the warnings (an outdated translation's differences from its source) to the inputs' warnings."""
    found = (checks.check_parity(inputs.lessons, rendering.outlines, inputs.config.source_language) + rendering.problems
             + links.broken_links(inputs.lessons, rendering.files))
    inputs.warnings += [p for p in found if p.severity != "error"] + rendering.warnings
    return [p for p in found if p.severity == "error"]


def render_checked(content: Path, templates: Path, base_url: str | None = None, offline_link: bool = False,
                   jobs: int = 1, watch: Stopwatch | None = None, on_pages=None) -> tuple[Inputs, site.Rendering]:
    """Gather, check and render everything in memory; raise one UserError listing every problem.
    `on_pages(files)` is called with each batch of lesson pages as soon as it is rendered (then
    finished by the rendering's `patches`, see site.render_site)."""
    watch = watch or Stopwatch()
    with _without_cycle_collection():
        inputs, problems = gather(content, templates)
        watch.lap("gather")
        rendering = site.render_site(inputs, base_url, offline_link=offline_link, jobs=jobs, on_pages=on_pages)
        watch.lap("render")
    problems += check_rendering(inputs, rendering)
    if problems:  # each problem once, in the order found, then the warnings
        raise UserError(list(dict.fromkeys(problems)) + list(dict.fromkeys(inputs.warnings)))
    return inputs, rendering


@contextmanager
def _without_cycle_collection():
    """Pause Python's cycle collector while a build holds every page's parse tree: it would walk them
    all again and again for garbage a one-shot build never needs back (it took a third of the time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class StrictWarnings(UserError):
    """Warnings under --strict: reported like problems, and the command fails."""


def _strict(warnings: list[Problem]) -> None:
    if warnings:
        raise StrictWarnings(warnings)


def check(content: Path, templates: Path, jobs: int = 1, strict: bool = False) -> list[Problem]:
    """Run every check a build runs, writing nothing; return the warnings (with `strict`, raise them)."""
    inputs, _ = render_checked(content, templates, jobs=jobs)
    if strict:
        _strict(inputs.warnings)
    return inputs.warnings


def build(content: Path, out: Path, templates: Path, base_url: str | None = None, make_zip: bool = False,
          jobs: int = 1, strict: bool = False) -> Summary:
    """Check everything and render the site, writing pages into a staging folder as they are ready;
    swap it into `out` in one step only when the whole site built without a problem (and, with
    `strict`, without a warning)."""
    started = time.perf_counter()
    watch = Stopwatch()
    check_apart(out, content=content, templates=templates)
    with Staging(out) as staging:
        inputs, rendering = render_checked(content, templates, base_url, offline_link=make_zip, jobs=jobs, watch=watch,
                                           on_pages=staging.write)
        files = rendering.files
        if strict:
            _strict(inputs.warnings)
        if make_zip:
            # The archive's own pages must not link to an archive they do not contain. Rendered in
            # this process: forking now, with the staging folder's writer threads alive, is not safe.
            offline = site.render_site(inputs, base_url, offline_link=False, jobs=1).files
            files["offline.zip"] = publish.zip_site(offline)
            watch.lap("zip")
        staging.commit(files, rendering.patches)
    watch.lap("write")
    pages = {lang.code: sum(1 for p in files if p.startswith(f"{lang.code}/") and p.endswith(".html"))
             for lang in inputs.config.languages}
    return Summary(out, pages, inputs.warnings, time.perf_counter() - started, watch.stages)


def for_language(problems: list[Problem], content: Path, lang: str) -> tuple[list[Problem], list[Problem]]:
    """Split problems into those a translator of `lang` deals with (their language's files, and the
    files every language shares: scenarios, models, templates, site.toml) and those of other languages."""
    config = load_site_config(content)
    if lang not in [language.code for language in config.languages]:
        raise UserError(Problem("--lang", None, f"unknown language {lang!r} (declared in site.toml: "
                                                f"{', '.join(language.code for language in config.languages)})"))
    others = [(content / language.code).absolute() for language in config.languages if language.code != lang]
    shown, hidden = [], []
    for problem in problems:
        path = Path(problem.path).absolute() if str(problem.path) else None
        elsewhere = path is not None and any(path == folder or folder in path.parents for folder in others)
        (hidden if elsewhere else shown).append(problem)
    return shown, hidden


def tally(problems) -> str:
    """`3 problems`, `1 warning`, `2 problems, 1 warning`."""
    warnings = sum(1 for p in problems if p.severity == "warning")
    errors = len(problems) - warnings

    def plural(n, word):
        return f"{n} {word}{'' if n == 1 else 's'}"
    return ", ".join(filter(None, [plural(errors, "problem") if errors or not warnings else "",
                                   plural(warnings, "warning") if warnings else ""]))
