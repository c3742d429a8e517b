"""A lesson page's figures: each kind's HTML (with its build-time chart) and the page data lesson.js reads.

Page data (`<script type="application/json" id="lesson-data">`), in two halves (page_data): inline, what
the page shows before the reader picks another scenario or turns the residual off; the other views in
`assets/data/<lang>-<slug>.<hash>.js` (`self.lessonMoreData = {"version": 4, "figures": {id: {"views": ...}},
"parts": [...], "pieces": [...], "rows": [...]}`, named on the script element as data-more), whose
parts, pieces and rows continue the inline ones' numbering. The inline half, version 4:

    {"version": 4,
     "defaults": {"scenario": "river-bank", "residual": true, "depth": 3, "block": 1, "step": 1},
     "scenarios": ["river-bank", ...],                 # the picker's choices, the default first
     "steps": [{"block": 0}, {"block": 1}, ...],       # the walkthrough: each step's block (0: none)
     "labels": {"on": ..., "off": ..., ...},           # the few strings the script shows itself
     "chart_sizes": {...}, "chart_geometry": {...},       # builder/figures/chart.py's drawing, for lesson.js's
     "figures": {"<figure id>": {"kind": "depth-map", "state": ["scenario", "residual", "depth"],
                                  "walkthrough": true,          # its charts outline the walkthrough's steps
                                  "views": {"keys": ["river-bank|on|3", ...],   # VIEWs, a list per field
                                            "summary": [...], "charts": [...], ...}}},
     "parts": [...],                                    # the charts, tables, readouts and captions the views name
     "pieces": [...],                                   # the axes, legends, frames and marks the charts name
     "point_fields": ["x", "y", ...],                   # a mark's arrays with one entry per point
     "rows": [...]}                                     # the rows the tables and readouts name

A VIEW names its caption, charts, text twins, walkthrough readouts, attention grid and walkthrough notice by their index in `parts`
(each distinct one stored once, so its index tells lesson.js whether a state change leaves a chart as it
was; a chart without a `label` is named by the view's summary); the rest it
holds itself. A chart in `parts` names its axes, legend, frame and each of its marks by their index in
`pieces` (each distinct one stored once). A mark that is the first points of another (a bar series at
depth 3 is the first three bars of the one at depth 6) is named [i, n]: the mark `pieces[i]` with each
of its arrays that run along the points ("point_fields") cut to its first n. A
table (a text twin, a readout) names each of its rows by its index in `rows` (each distinct one stored
once: the table at depth 3 repeats the rows of the one at depth 2).

A VIEW is everything a figure shows in one state, already translated and formatted: its caption,
summary (the live region's text), charts (builder/figures/chart.py), text twin (`twins`: one or more
tables, each {caption, columns, rows}), walkthrough readouts
and highlights, or an attention grid. The script only chooses the view for the state and draws it.
"""

from __future__ import annotations

import gettext
import math
from pathlib import Path

from markupsafe import Markup

from builder.figures import COMMON_LABELS, KINDS, FigureContext, view_key
from builder.figures.chart import (AXIS_TITLE, CENTRE, FONT, GAP, HALFWAY_RADIUS, HALFWAY_RING, HATCH, POINT_FIELDS, POINT_OUTLINE,
                                   POINTED, RADIUS, RING, SIZES, frame, render_svg)
from builder.i18n import Language
from builder.pages import json_for_script, render_page
from builder.scenarios import Scenario, to_json
from builder.steps import MAX_BLOCK, parse_step
from builder.typesetting import label_breaks

PAGE_LABELS = ("on", "off", "show_table", "hide_table", "step_of", "with_step")
CHART_PIECES = ("x", "y", "legend", "frame")  # with each mark, stored once in `pieces` and named by index in a chart


def defaults(scenario: Scenario, kinds=()) -> dict:
    """The page's starting state: the default scenario's settings, then what its figure kinds ask for."""
    state = {"scenario": scenario.name, "residual": scenario.residual, "depth": scenario.depth, "block": 1, "step": 1}
    for name in kinds:
        state.update(KINDS[name].defaults)
    return state


def check_args(kind_name: str, args: tuple[str, ...], scenarios: list[Scenario]) -> str | None:
    """What is wrong with the words a lesson gives a figure (`::: interactive NAME WORD...`), or None."""
    kind = KINDS[kind_name]
    if kind.check_args is None:
        return f"the figure {kind_name!r} takes no arguments, got {' '.join(args)!r}" if args else None
    return kind.check_args(args, scenarios)


def figure_views(kind_name: str, lang: Language, translations: gettext.NullTranslations, scenarios: list[Scenario],
                 walkthrough: list[str], args: tuple[str, ...] = (), units: tuple[str, ...] = ()) -> dict[str, dict]:
    """Every view of one figure kind for a lesson's scenarios and walkthrough, in one language, its labels
    set to break between phrases only (`units`: the glossary's terms, never broken)."""
    kind = KINDS[kind_name]
    ctx = FigureContext(lang, translations, scenarios, [parse_step(s) for s in walkthrough] if kind.walkthrough else [],
                        kind, tuple(args))
    views = kind.views(ctx)
    for view in views.values():
        set_labels(view, lambda text: label_breaks(text, lang.code, units))
        for chart in view.get("charts", {}).values():
            round_chart(chart)
    return views


def round_chart(chart: dict) -> None:
    """Round a chart's coordinates (its marks' and walkthrough outlines' numbers) to what its drawing can
    show: to 1/2000 of its axes' longer span at least (a third of a pixel in the wide drawing), and never
    below two decimals, so the 20× close-up keeps its precision. Both drawings (the build's SVG and
    lesson.js's) read the rounded numbers; the page data is the lighter for it."""
    spans = [chart[axis]["range"][1] - chart[axis]["range"][0] for axis in ("x", "y") if axis in chart]
    decimals = max(2, math.ceil(math.log10(2000 / max(spans)))) if spans and max(spans) > 0 else None
    if decimals is None:
        return

    def rounded(value):
        if isinstance(value, float):
            return round(value, decimals)
        if isinstance(value, list):
            return [rounded(item) for item in value]
        return value

    for mark in chart["marks"]:
        if mark.get("type") == "outline":  # the area a close-up enlarges: exactly the close-up's axes
            continue
        for key in ("x", "y", "base"):
            if key in mark:
                mark[key] = rounded(mark[key])
    if chart.get("highlights"):
        chart["highlights"] = rounded(chart["highlights"])


def set_labels(view: dict, label) -> None:
    """Set a view's labels with `label` (typesetting.label_breaks): legend entries, chart titles, table
    headers and row names, the captions of the attention table and of a walkthrough step's attention weights
    (a table's caption is only as wide as its table), so they break
    between phrases, never inside a word or before a lone symbol. Sentences (captions, summaries) and the
    drawings' own text are left as they are."""
    for chart in view.get("charts", {}).values():
        for item in chart.get("legend", []):
            item["text"] = label(item["text"])
        if chart.get("title"):
            chart["title"] = label(chart["title"])
    for table in view.get("twins", []):
        table["columns"] = [label(c) for c in table["columns"]]
        table["rows"] = [[label(row[0])] + row[1:] for row in table["rows"]]
    if "grid" in view:  # the attention table's caption is as wide as the table: it breaks between phrases only
        view["grid"]["caption"] = label(view["grid"]["caption"])
    for readout in view.get("steps", []):
        readout["corner"] = label(readout["corner"])
        readout["columns"] = [label(c) for c in readout["columns"]]
        readout["rows"] = [[label(row[0])] + row[1:] for row in readout["rows"]]
        if readout.get("attention"):  # a noun phrase over a table of four narrow columns: it wraps as a label
            readout["attention"]["caption"] = label(readout["attention"]["caption"])
    if view.get("grid"):
        view["grid"]["corner"] = [label(line) for line in view["grid"]["corner"]]


def render_figure(env, templates: Path, translations, lang: Language, kind_name: str, views: dict[str, dict],
                  scenarios: list[Scenario], walkthrough: bool, kinds=(), units: tuple[str, ...] = (), number: str = "") -> str:
    """The figure's HTML in its default state: the view of the lesson's default scenario and settings;
    `number` is its number on the page ("Figure 2"), shown before its title."""
    kind = KINDS[kind_name]
    state = defaults(scenarios[0], kinds)
    view = views[view_key(state, kind.state)]
    fid = kind.name
    ctx = FigureContext(lang, translations, scenarios, [], kind)
    def first(chart):  # the outline of the walkthrough's first step, if the chart has one
        return (chart.get("highlights") or [None])[0] if walkthrough else None

    # A chart only some states have (a close-up) gets its box too, hidden and empty until lesson.js shows a state with it.
    charts = {}
    for other in views.values():
        for name, chart in other.get("charts", {}).items():
            charts.setdefault(name, chart)
    shown = view.get("charts", {})
    charts = {name: shown.get(name, chart) for name, chart in charts.items()}
    svgs = {name: Markup(render_svg(chart, "wide", first(chart)) + render_svg(chart, "narrow", first(chart)))
            for name, chart in shown.items()}
    # each chart box keeps its drawing's shape, wide and narrow (site.css picks one by the window's width)
    shapes = {name: {size: "{} / {}".format(*frame(chart, size)[:2]) for size in ("wide", "narrow")}
              for name, chart in charts.items()}
    choices = [{"name": s.name, "text": " ".join(s.tokens), "title": ctx.title(s)} for s in scenarios]
    def label(key, **values):  # a control's label, set as the views' labels are
        return label_breaks(ctx.t(key, **values), lang.code, units)

    return render_page(env, f"figures/{kind.template}", translations, templates, kind=kind, fid=fid, view=view,
                       state=state, t=ctx.t, label=label, scenarios=choices, svgs=svgs, shapes=shapes, charts=charts,
                       walkthrough=walkthrough, max_block=MAX_BLOCK, number=number)


def figure_number(translations, n: int) -> str:
    """A figure's number on its page, "Figure 2" in the page's language (diagrams are numbered alike)."""
    return translations.gettext(COMMON_LABELS["figure"]) % {"n": n}


def page_data(translations, lang: Language, scenarios: list[Scenario], walkthrough: list[str],
              figures: dict[str, dict[str, dict]], units: tuple[str, ...] = ()) -> tuple[dict, dict | None]:
    """The page data lesson.js reads: defaults, choices, walkthrough, labels and every figure's views,
    split in two: what the page shows before the reader picks another scenario or turns the residual off
    (the views of the default scenario with its residual setting, every view of a figure whose state has
    neither), inline in the page, and the other views (None when there are none), which lesson.js loads
    from a script of their own (more_script) when the browser is idle after the load, the reader comes
    near a figure, or a state needs them. The residual-off views go with the other scenarios: a third of
    the page's data, which a first paint never shows.

    Many states draw the very same chart, table or readout (a sentence with the same words in another
    order; a walkthrough step the depth does not reach): each such part is stored once in `parts`, and a
    view names it by its index there; so are a chart's pieces and a table's rows. The two halves share
    one numbering: what the first half's views name comes first and is inline, the rest continues it in
    the other, whose views may name the inline parts too. lesson.js puts them back into the views."""
    ctx = FigureContext(lang, translations, scenarios)  # the page's own labels are the common ones
    parts, pieces, rows = Store(), Store(), Store()
    part, piece, row = parts.add, pieces.add, rows.add

    def shared_chart(chart: dict) -> dict:
        # Charts of different states share most of what they hold (an axis, a legend, the other sentence's
        # path): each such piece is stored once in `pieces` (kept together: they compress best side by side).
        chart = dict(chart, marks=[piece(mark) for mark in chart["marks"]])
        for key in CHART_PIECES:
            if key in chart:
                chart[key] = piece(chart[key])
        return chart

    def shared_table(table: dict) -> dict:
        # A table at depth 3 has the rows of the one at depth 2 and two more: each row is stored once.
        return dict(table, rows=[row(r) for r in table["rows"]])

    start = defaults(scenarios[0], figures)  # the state the page opens in, as lesson.js gets it

    def first(name: str, key: str) -> bool:  # a view the page shows before another scenario or residual is picked
        state, values = KINDS[name].state, key.split("|")
        return all(values[state.index(field)] == view_key(start, (field,)) for field in ("scenario", "residual") if field in state)

    charts = Charts()
    shared = {name: ({}, {}) for name in figures}
    inline = None
    for shown_first in (True, False):
        for name, views in figures.items():
            for key, view in views.items():
                if first(name, key) != shown_first:
                    continue
                view = dict(view)
                if "charts" in view:
                    # a chart whose accessible name is the view's summary (most are) leaves it out: lesson.js
                    # and the template use the summary then
                    named = {chart: {k: v for k, v in value.items() if not (k == "label" and v == view.get("summary"))}
                             for chart, value in view["charts"].items()}
                    view["charts"] = {chart: charts.add(part(shared_chart(value))) for chart, value in named.items()}
                for field in ("steps", "twins"):
                    if field in view:
                        view[field] = [part(shared_table(value)) for value in view[field]]
                if "caption" in view:  # a figure has a caption or two, shared by all its views
                    view["caption"] = part(view["caption"])
                for field in ("grid", "notice"):
                    if field in view:
                        view[field] = part(view[field])
                shared[name][0 if shown_first else 1][key] = view
        if shown_first:
            inline = (len(parts.items), len(pieces.items), len(rows.items))
    kept = charts.cut_marks(parts.items, pieces.items, inline[1])
    split = (inline[0], charts.inline_pieces, inline[2])
    data = {
        "version": 4,
        "defaults": defaults(scenarios[0], figures),
        "scenarios": [s.name for s in scenarios],
        "steps": [{"block": parse_step(key).block} for key in walkthrough],
        # labels break between phrases; a template of sentences (with_step) is left as it is
        "labels": {key: ctx.t(key) if key == "with_step" else label_breaks(ctx.t(key), lang.code, units)
                   for key in PAGE_LABELS if key in COMMON_LABELS},
        "chart_sizes": SIZES,  # the SVG coordinate systems, for drawing a state before Plotly has loaded
        "chart_geometry": {"axis_title": AXIS_TITLE, "hatch": HATCH, "radius": RADIUS, "ring": RING, "outline": POINT_OUTLINE,
                           "halfway": HALFWAY_RADIUS, "halfway_ring": HALFWAY_RING, "gap": GAP, "centre": CENTRE, "font": FONT},
        "figures": {name: {"kind": name, "state": list(KINDS[name].state), "walkthrough": KINDS[name].walkthrough and bool(walkthrough),
                           "views": by_field(shared[name][0])} for name in figures},
        "parts": parts.items[:split[0]],
        "pieces": kept[:split[1]],
        "point_fields": list(POINT_FIELDS),
        "rows": rows.items[:split[2]],
    }
    if not any(rest for _, rest in shared.values()):
        return data, None
    more = {"version": 4,
            "figures": {name: {"views": by_field(shared[name][1])} for name in figures if shared[name][1]},
            "parts": parts.items[split[0]:], "pieces": kept[split[1]:], "rows": rows.items[split[2]:]}
    return data, more


MORE_GLOBAL = "lessonMoreData"  # the global the other scenarios' script sets (templates/assets/lesson.js reads it)


def more_script(more: dict) -> bytes:
    """The other scenarios' views as a classic script that sets a global: a page read from disk (file://)
    may not fetch JSON, but it may load a script of its own site (as the search index, builder/search.py)."""
    return f"self.{MORE_GLOBAL}={json_for_script(to_json(more))};\n".encode("utf-8")


def by_field(views: dict[str, dict]) -> dict[str, list]:
    """A figure's views as one list per field, in the order of "keys" (a view without the field: null):
    each field's values side by side (the summaries, the charts they name) compress best."""
    keys = list(views)
    fields = sorted({field for view in views.values() for field in view})
    assert all(value is not None for view in views.values() for value in view.values())
    return {"keys": keys, **{field: [views[key].get(field) for key in keys] for field in fields}}


class Store:
    """A list that holds each distinct value once: add() returns the value's index in it."""

    def __init__(self):
        self.items: list = []
        self.index: dict[str, int] = {}

    def add(self, value) -> int:
        text = to_json(value)
        if text not in self.index:
            self.index[text] = len(self.items)
            self.items.append(value)
        return self.index[text]


def points(mark) -> int | None:
    """How many points a mark has, or None for one without points (a band, an outline, an axis, a legend)."""
    if not isinstance(mark, dict) or mark.get("type") not in POINTED:
        return None
    counts = {len(mark[key]) for key in POINT_FIELDS if key in mark}
    return counts.pop() if len(counts) == 1 else None


def first_points(pieces: list) -> dict[int, tuple[int, int]]:
    """Each mark of `pieces` that is the first n points of a longer one: its index → (the longest that
    holds it, n). The views of a figure at depths 1 to 6 draw the same series cut at each depth: stored
    whole once, the shorter ones name it. The longest that holds a mark is never itself cut from another."""
    def rest(mark):  # everything but the points
        return to_json({key: value for key, value in mark.items() if key not in POINT_FIELDS})

    alike: dict[str, list[int]] = {}
    for i, mark in enumerate(pieces):
        if points(mark):
            alike.setdefault(rest(mark), []).append(i)
    cuts = {}
    for same in alike.values():
        same.sort(key=lambda i: -points(pieces[i]))
        for i in same:
            n = points(pieces[i])
            whole = next((j for j in same if points(pieces[j]) > n and pieces[j].keys() == pieces[i].keys()
                          and all(pieces[j][key][:n] == pieces[i][key] for key in POINT_FIELDS if key in pieces[i])), None)
            if whole is not None:
                cuts[i] = (whole, n)
    return cuts


class Charts:
    """The charts stored in `parts` (by index), whose marks are cut from longer ones at the end."""

    def __init__(self):
        self.indices: set[int] = set()

    def add(self, index: int) -> int:
        self.indices.add(index)
        return index

    def cut_marks(self, parts: list, pieces: list, inline: int | None = None) -> list:
        """Leave out of `pieces` each mark that is the first points of another, name it [i, n] in the charts
        instead (first_points), and renumber; return the pieces kept. The first `inline` pieces (the page's
        inline half) are cut only from each other, so the inline half stands alone; how many of them are
        kept is `inline_pieces`."""
        inline = len(pieces) if inline is None else inline
        cuts = {i: cut for i, cut in first_points(pieces[:inline]).items()}
        cuts.update({i: cut for i, cut in first_points(pieces).items() if i >= inline})
        kept = [i for i in range(len(pieces)) if i not in cuts]
        self.inline_pieces = sum(1 for i in kept if i < inline)
        number = {old: new for new, old in enumerate(kept)}
        for index in sorted(self.indices):
            chart = parts[index]
            chart["marks"] = [[number[cuts[i][0]], cuts[i][1]] if i in cuts else number[i] for i in chart["marks"]]
            for key in CHART_PIECES:
                if key in chart:
                    chart[key] = number[chart[key]]
        return [pieces[i] for i in kept]
