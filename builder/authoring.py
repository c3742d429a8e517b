"""The authors' commands: start a lesson or a scenario from a skeleton (`new`), and look at a
scenario's numbers before writing about them (`scenario show`).

    python -m builder new lesson SLUG [--order N] [--sections a,b,c] [--scenario NAME] [--figure KIND]
    python -m builder new scenario NAME --from OTHER
    python -m builder scenario show NAME

What `new` writes holds `[[TODO: …]]` placeholders; `check` warns about each one left (a warning, so
the preview shows the page at once, and `--strict` keeps a placeholder from being published).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from builder.content import RESERVED_SLUGS, SLUG, load_lessons
from builder.errors import Problem, UserError
from builder.i18n import load_site_config
from builder.markdown import LessonRenderer
from builder.references import TraceValues
from builder.scenarios import Scenario, load_scenarios
from builder.sources import content_target, write_content_file
from builder.steps import RUNS

SECTION_ID = re.compile(r"[a-z][a-z0-9-]*")
HELP = "AUTHORING.md"


def _todo(text: str) -> str:
    return f"[[TODO: {text}]]"


def new_lesson(content: Path, slug: str, order: int | None = None, sections: list[str] | None = None,
               scenario: str | None = None, figures: list[str] | None = None, known_figures=()) -> list[str]:
    """Write `content/<lang>/<slug>.md` in every language: the same front matter keys, the same
    section ids and the same figure placements, so the translations match the source from the start."""
    config = load_site_config(content)
    if not SLUG.fullmatch(slug) or slug in RESERVED_SLUGS:
        raise UserError(Problem(content / config.source_language / f"{slug}.md", None,
                                f"{slug!r} is not a usable lesson name: lowercase letters, digits and hyphens, "
                                f"not {' or '.join(sorted(RESERVED_SLUGS))}"))
    for lang in config.languages:
        path = content / lang.code / f"{slug}.md"
        if path.exists() or path.is_symlink():  # a dangling link too: writing would create its target
            raise UserError(Problem(path, None, "already exists; `new lesson` never overwrites a lesson"))
        content_target(path, content)
    sections = sections or ["first-section", "summary"]
    for anchor in sections:
        if not SECTION_ID.fullmatch(anchor):
            raise UserError(Problem("--sections", None, f"{anchor!r} is not a section id (lowercase letters, digits "
                                                        "and hyphens, starting with a letter)"))
    if len(set(sections)) != len(sections):
        raise UserError(Problem("--sections", None, "each section id once"))
    scenarios, _ = load_scenarios(content / "scenarios")
    on_disk = {path.stem for path in (content / "scenarios").glob("*.toml")}
    if scenario is not None and scenario not in on_disk:
        raise UserError(Problem("--scenario", None, f"unknown scenario {scenario!r} (have: {', '.join(sorted(on_disk))})"))
    figures = figures or []
    for kind in figures:
        if kind not in known_figures:
            raise UserError(Problem("--figure", None, f"unknown figure {kind!r} (known: {', '.join(sorted(known_figures))})"))
    lessons, _ = load_lessons(content, config, on_disk)
    source = lessons.get(config.source_language, {})
    if figures and scenario is None:  # the scenario of the first lesson that has one: the lessons' default
        scenario = next((lesson.scenario for lesson in sorted(source.values(), key=lambda l: l.order) if lesson.scenario),
                        sorted(on_disk)[0] if on_disk else None)
        if scenario is None:
            raise UserError(Problem("--figure", None, "a figure needs a scenario, and there is none"))
    used = {lesson.order: lesson for lesson in source.values()}
    if order is None:
        order = max(used, default=0) + 1
    elif order in used:
        raise UserError(Problem(used[order].path, None, f"order {order} is already this lesson's; choose another "
                                                        f"--order (free: {max(used) + 1})"))
    lines = []
    for lang in config.languages:
        path = content / lang.code / f"{slug}.md"
        is_source = lang.code == config.source_language
        write_content_file(path, _skeleton(order, sections, scenario, figures, is_source).encode("utf-8"), content)
        lines.append(f"wrote {path}" + (" (the source: write the lesson here)" if is_source else
                                        " (a stub with the same sections, for the translator)"))
    lines.append(f"next: replace every [[TODO: …]] (`python -m builder check` lists them), preview with "
                 f"`python -m builder serve`; {HELP}, 'Writing a first lesson'")
    return lines


def _skeleton(order: int, sections: list[str], scenario: str | None, figures: list[str], source: bool) -> str:
    what = "write" if source else "translate"
    front = [
        "+++",
        f'title = "{_todo("the title" if source else "translate the title")}"',
        f"order = {order}",
        f'summary = "{_todo("one line for the lesson list" if source else "translate the summary")}"',
    ]
    if scenario:
        front.append(f'scenario = "{scenario}"')
    if figures:
        front.append("figures = [" + ", ".join(f'"{kind}"' for kind in figures) + "]")
    body = ["+++", "", _todo(f"{what} the opening: what the reader will understand by the end"), ""]
    for i, anchor in enumerate(sections):
        body += [f"## {_todo('section title')} {{#{anchor}}}", "", _todo(f"{what} this section"), ""]
        if i == 0:
            for kind in figures:
                body += [f"::: interactive {kind}", ":::", ""]
    return "\n".join(front + body).rstrip("\n") + "\n"


def new_scenario(content: Path, name: str, origin: str) -> list[str]:
    """Write `content/scenarios/<name>.toml`, starting from another scenario's tokens and model."""
    folder = content / "scenarios"
    path = folder / f"{name}.toml"
    if not SLUG.fullmatch(name):
        raise UserError(Problem(path, None, f"{name!r} is not a usable scenario name: lowercase letters, digits, hyphens"))
    if path.exists() or path.is_symlink():
        raise UserError(Problem(path, None, "already exists; `new scenario` never overwrites a scenario"))
    content_target(path, content)
    scenarios, problems = load_scenarios(folder)
    if origin not in scenarios:
        own = [p for p in problems if Path(p.path).stem == origin]
        raise UserError(own or Problem(folder / f"{origin}.toml", None, f"no scenario {origin!r} to start from "
                                                                        f"(have: {', '.join(sorted(scenarios))})"))
    other = scenarios[origin]
    items = []
    for word, vector, own in zip(other.tokens, other.x0, other.own_vectors):
        text = json.dumps(word, ensure_ascii=False)
        items.append(f"{{ text = {text}, vector = {_row(vector)} }}" if own else text)
    text = "\n".join([
        f"# {_todo('what this scenario shows')}",
        f"# Started from {origin} by `python -m builder new scenario`. A word of the model's vocabulary takes its",
        f"# fitted vector; give another word its own: {{ text = \"deposit\", vector = [0.0, 0.9, 0.0, 0.1] }}",
        f"# ({HELP}, 'Models and vectors'). See its numbers with `python -m builder scenario show {name}`.",
        "",
        f'title = "{_todo("a title, e.g. the sentence")}"',
        f'model = "{other.model}"',
        "tokens = [" + ", ".join(items) + "]",
        f"tracked = {json.dumps(other.tokens[other.tracked], ensure_ascii=False)}",
        f"depth = {other.depth}",
        f"residual = {'true' if other.residual else 'false'}",
    ]) + "\n"
    write_content_file(path, text.encode("utf-8"), content)
    vocabulary = ", ".join(sorted(_model_vocabulary(other)))
    return [f"wrote {path} (from {other.path})",
            f"next: edit its title and tokens (the vocabulary of {other.model}: {vocabulary}), look at its numbers "
            f"with `python -m builder scenario show {name}`, list it in a lesson's `scenarios = [...]`, then run "
            f"`python -m builder catalog` and translate its title; {HELP}, 'Adding a scenario'"]


def _model_vocabulary(scenario: Scenario) -> list[str]:
    from builder.models import load_model

    model_path = scenario.path.parent.parent / "models" / f"{scenario.model}.toml"
    return list(load_model(model_path).vocabulary)


def _row(values, decimals: int = 2) -> str:
    return "[" + ", ".join(f"{float(v) + 0.0:.{decimals}f}" for v in values) + "]"


def show_scenario(content: Path, name: str) -> list[str]:
    """The numbers a lesson about this scenario can cite: per block and run, the tracked word's vector,
    its length and its attention row; then every trace value the lessons use, with its value."""
    folder = content / "scenarios"
    scenarios, problems = load_scenarios(folder)
    if name not in scenarios:
        own = [p for p in problems if Path(p.path).stem == name]
        raise UserError(own or Problem(folder / f"{name}.toml", None, f"no scenario {name!r} "
                                                                      f"(have: {', '.join(sorted(scenarios))})"))
    scenario = scenarios[name]
    word = scenario.tokens[scenario.tracked]
    out = [f"{scenario.path}: {scenario.title!r}, through the model {scenario.model}, tracking {word!r} "
           f"(default depth {scenario.depth}, residual {'on' if scenario.residual else 'off'})", ""]
    width = max(len(t) for t in scenario.tokens)
    out.append(f"  dimensions: {', '.join(scenario.dimensions)}")
    out.append(f"  {'token':<{width}}  {'vector':<30}  length  from")
    for token, vector, own in zip(scenario.tokens, scenario.x0, scenario.own_vectors):
        out.append(f"  {token:<{width}}  {_row(vector):<30}  {np.linalg.norm(vector):6.2f}  "
                   f"{'its own vector' if own else 'the vocabulary'}")
    for warning in scenario.warnings:
        out.append(f"  {warning}")
    columns = "  ".join(f"{t:>{max(5, len(t))}}" for t in scenario.tokens)
    for key, label in (("pre-on", "on: pre-norm, residual on"), ("pre-off", "off: pre-norm, residual off"),
                       ("post-on", "post: post-norm, residual on")):
        trace = scenario.traces[key]
        run = next(short for short, full in RUNS.items() if full == key)
        out += ["", f"{label}  ({{{{{run}:bN}}}}); {word!r} after each block, and whom it attends to in that block",
                f"  block  {'vector':<30}  length  attention  {columns}"]
        out.append(f"  {'b0':>5}  {_row(trace.x0[scenario.tracked]):<30}  {np.linalg.norm(trace.x0[scenario.tracked]):6.2f}")
        for block in range(1, trace.depth + 1):
            vector = trace.block_outputs()[block - 1][scenario.tracked]
            row = trace.steps[2 * (block - 1)].attention[scenario.tracked]
            cells = "  ".join(f"{w:>{max(5, len(t))}.2f}" for w, t in zip(row, scenario.tokens))
            out.append(f"  {'b' + str(block):>5}  {_row(vector):<30}  {np.linalg.norm(vector):6.2f}  {'':<9}  {cells}")
    out += ["", "trace values the lessons use, as the source language prints them:"]
    out += _used_references(content, scenario, scenarios) or ["  (none yet: cite them as {{on:b1}}, {{off:b6 length}}, "
                                                              f"{{{{{name}/on:b3 {scenario.dimensions[0]}}}}}; "
                                                              f"{HELP}, 'Trace references')"]
    return out


def _used_references(content: Path, scenario: Scenario, scenarios: dict[str, Scenario]) -> list[str]:
    config = load_site_config(content)
    locale = next(lang.locale for lang in config.languages if lang.code == config.source_language)
    lessons, _ = load_lessons(content, config, set(scenarios))
    renderer = LessonRenderer()
    out = []
    for lesson in lessons.get(config.source_language, {}).values():
        if scenario.name not in lesson.scenarios:
            continue
        values = TraceValues({n: scenarios[n] for n in lesson.scenarios if n in scenarios}, lesson.scenario, locale)
        for ref, line in renderer.parse(lesson.body, lesson.path, lesson.body_line).refs:
            named = ref.split("/", 1)[0] if "/" in ref.split(":", 1)[0] else lesson.scenario
            if named != scenario.name:
                continue
            value, problem = values.resolve(ref)
            out.append(f"  {lesson.path}:{line}  {{{{{' '.join(ref.split())}}}}} = {problem or value}")
    return out
