"""The build, top to bottom: gather and check everything, render every file in memory, then
write the output folder atomically. Nothing is written until every input is known to be good.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from babel.support import NullTranslations

from builder import checks, site
from builder.catalogs import load_translations
from builder.content import load_lessons
from builder.errors import Problem, UserError
from builder.i18n import SiteConfig, load_site_config
from builder.markdown import LessonRenderer
from builder.pages import make_environment
from builder.scenarios import Scenario, load_scenarios
from builder.translation import state_of

MARKER = ".lesson-builder"  # marks an output folder as ours, so a rebuild may replace it


@dataclass
class Inputs:
    """Everything a build reads, loaded and validated."""

    content: Path
    templates: Path
    config: SiteConfig
    scenarios: dict[str, Scenario]
    lessons: dict  # {lang: {slug: Lesson}}
    translations: dict  # {lang: babel Translations}
    env: object  # the Jinja environment
    renderer: LessonRenderer
    warnings: list[Problem] = field(default_factory=list)


@dataclass
class Summary:
    out: Path
    pages: dict[str, int]
    warnings: list[Problem]
    seconds: float

    def describe(self) -> str:
        per_lang = ", ".join(f"{lang} {n}" for lang, n in self.pages.items())
        total = sum(self.pages.values())
        return (f"built {total} pages ({per_lang}) into {self.out} in {self.seconds:.2f} s"
                f", {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}")


def gather(content: Path, templates: Path) -> tuple[Inputs, list[Problem]]:
    """Load and validate every input, returning what loaded and every problem found on the way."""
    problems: list[Problem] = []
    config = load_site_config(content)  # without the languages nothing else can be checked
    scenarios, found = load_scenarios(content / "scenarios")
    problems += found
    # Lessons may name a scenario that exists but failed to load: that file's own error is enough.
    on_disk = {path.stem for path in (content / "scenarios").glob("*.toml")}
    lessons, found = load_lessons(content, config, on_disk)
    problems += found
    translations, found = load_translations(content, config)
    problems += found
    for lang in config.languages:  # keep rendering with untranslated strings so later checks still run
        translations.setdefault(lang.code, NullTranslations())
    env = make_environment(templates)
    inputs = Inputs(content, templates, config, scenarios, lessons, translations, env, LessonRenderer())
    problems += checks.check_parity(lessons, config.source_language)
    inputs.warnings += outdated_translations(lessons, config.source_language)
    return inputs, problems


def outdated_translations(lessons: dict, source_language: str) -> list[Problem]:
    """Warn about translations whose source changed since they were marked current (they still build)."""
    warnings = []
    for lang, by_slug in lessons.items():
        if lang == source_language:
            continue
        for slug, lesson in by_slug.items():
            state = state_of(lesson, lessons[source_language].get(slug))
            if state.status == "outdated":
                warnings.append(Problem(lesson.path, None, f"translation is {state.describe()}; update it, then run "
                                                           f"`python -m builder mark-current {lang} {slug}`", "warning"))
    return warnings


def render_checked(content: Path, templates: Path, base_url: str | None = None,
                   offline_link: bool = False) -> tuple[Inputs, dict[str, bytes]]:
    """Gather, check and render everything in memory; raise one UserError listing every problem."""
    inputs, problems = gather(content, templates)
    files, found = site.render_site(inputs, base_url, offline_link=offline_link)
    problems += found
    if problems:
        raise UserError(list(dict.fromkeys(problems)))  # each problem once, in the order found
    return inputs, files


def check(content: Path, templates: Path) -> list[Problem]:
    """Run every check a build runs, writing nothing; return the warnings."""
    inputs, _ = render_checked(content, templates)
    return inputs.warnings


def build(content: Path, out: Path, templates: Path, base_url: str | None = None, make_zip: bool = False) -> Summary:
    """Check everything, render the site in memory, then swap it into `out` in one step."""
    started = time.perf_counter()
    inputs, files = render_checked(content, templates, base_url, offline_link=make_zip)
    if make_zip:
        # The archive's own pages must not link to an archive they do not contain.
        offline, _ = site.render_site(inputs, base_url, offline_link=False)
        files["offline.zip"] = site.zip_site(offline)
    write_atomically(out, files)
    pages = {lang.code: sum(1 for p in files if p.startswith(f"{lang.code}/") and p.endswith(".html"))
             for lang in inputs.config.languages}
    return Summary(out, pages, inputs.warnings, time.perf_counter() - started)


def write_atomically(out: Path, files: dict[str, bytes]) -> None:
    """Write `files` into a fresh folder beside `out`, then swap it in; on any failure `out` is untouched."""
    out = out.absolute()
    if out.exists() and not out.is_dir():
        raise UserError(Problem(out, None, "output path exists and is not a folder"))
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise UserError(Problem(out, None, f"output folder is not empty and was not made by this builder "
                                           f"(no {MARKER} file); refusing to replace it"))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    except OSError as err:
        raise UserError(Problem(out.parent, None, f"cannot write the output folder: {err.strerror}")) from None
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    try:
        for rel, data in sorted(files.items()):
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (staging / MARKER).write_text("Built by `python -m builder build`; safe to delete.\n", encoding="utf-8")
        staging.chmod(0o755)
        if out.exists():
            out.rename(old)
        staging.rename(out)
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        if old.exists() and not out.exists():
            old.rename(out)
        raise UserError(Problem(out, None, f"cannot write the output folder: {err.strerror}")) from None
    shutil.rmtree(old, ignore_errors=True)
