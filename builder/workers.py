"""Render lesson pages in worker processes when there are enough of them to be worth it.

On Linux the workers are forked after the inputs are loaded, so they inherit them instead of
receiving a copy; each renders an interleaved share of the slugs, and results are gathered in
page order, so the output never depends on the number of workers.
"""

from __future__ import annotations

import multiprocessing
import sys

from builder.figures import KINDS
from builder.lesson_page import Plan, Unit, render_unit
from builder.markdown import warm_up

MIN_SLUGS_PER_JOB = 16  # below this a worker process costs more than it saves

_WORK = None  # (inputs, plan), set just before forking so workers inherit it instead of receiving a copy


def render_units(inputs, plan: Plan, units: list[str], jobs: int, on_pages) -> list[Unit]:
    """Render each slug's pages, calling `on_pages(files)` as each is done."""
    global _WORK
    jobs = min(jobs, len(units) // MIN_SLUGS_PER_JOB)
    if jobs < 2 or not sys.platform.startswith("linux"):  # fork is safe (and cheap) only there
        done = []
        for slug in units:
            done.append(render_unit(inputs, plan, slug))
            on_pages(done[-1].files(slug))
        return done
    _warm_up(inputs)
    chunks = [units[i::jobs * 4] for i in range(jobs * 4)]  # interleaved, so long and short lessons mix
    by_slug = {}
    _WORK = (inputs, plan)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for chunk, results in pool.imap_unordered(_render_chunk, chunks):
                for slug, unit in zip(chunk, results):
                    by_slug[slug] = unit
                    on_pages(unit.files(slug))
    finally:
        _WORK = None
    return [by_slug[slug] for slug in units]


def _render_chunk(slugs: list[str]) -> tuple[list[str], list[Unit]]:
    inputs, plan = _WORK
    return slugs, [render_unit(inputs, plan, slug) for slug in slugs]


def _warm_up(inputs) -> None:
    """Do once, before forking, what every worker would otherwise do for itself."""
    for name in ["lesson.html", *(f"figures/{kind.template}" for kind in KINDS.values())]:
        try:
            inputs.env.get_template(name)
        except Exception:  # a broken template is reported by the page that uses it
            pass
    warm_up([lesson.body for by_slug in inputs.lessons.values() for lesson in by_slug.values()])
    for scenario in inputs.scenarios.values():
        scenario.traces
