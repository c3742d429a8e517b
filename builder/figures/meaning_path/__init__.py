"""The tracked word's path in meaning space: its vector after each block, seen in the plane of two of
its dimensions, which the lesson names where it places the figure:

    ::: interactive meaning-path geography finance

One path per example sentence of the lesson, all in the same axes: the picked sentence in colour, the
others grey and dashed underneath. Every path starts at the word's input x₀ (the same vector in every
sentence) and goes where the corrections of its neighbours push it, so the two senses of "bank" part
ways; with the residual off each output replaces the vector and the paths end where the words collapse.
Sentences whose paths are the same to the last digit (the same words in another order) share one path,
named for all of them. The axes have one scale across every state and sentence, the same units across
and up, so directions and distances read true. The walkthrough outlines the point its step is about; a
step about a block's attention alone is about a point the path does not mark (the stream halfway through
the block), so it marks that point with a dot of its own, not the block's end point (the FFN's step).

Without the residual the paths stay within a small area around x₀, one blot at that scale: the chart marks
the area with a dashed rectangle, and a close-up under it (its own chart, titled with how many times it
enlarges, again one scale for every residual-off state) draws the same paths there with their labels and
the walkthrough's outlines. The other sentences' points are rings, so where two paths coincide both show,
and the legend says from which block they sit on one point.
"""

from __future__ import annotations

import math

import numpy as np

from builder.figures import FOLDER, FigureContext, FigureKind, N_, view_key
from builder.figures.chart import POINT_OUTLINE, legend, nice_range, place_labels, text_box, tick_decimals
from builder.steps import MAX_BLOCK

WIDE, NARROW = 640, 360  # the drawing's widths (as the other charts); its height keeps one unit the same across and up
MARGINS = {"wide": {"l": 58, "r": 14, "t": 32, "b": 46}, "narrow": {"l": 46, "r": 8, "t": 32, "b": 42}}  # as chart.SIZES
SAME_POINT = 0.006  # points closer than this share of the x axis are one point to the eye and share a label
CLOSE_UP_SHAPE = 1.6  # the close-up is this many times wider than tall
TIMES = (4, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)  # how many times the close-up enlarges: a round number

LABELS = {
    "title": N_("Path in meaning space"),
    "caption_on": N_("The vector of “%(token)s” after each block, in the plane of two of its dimensions: %(x)s "
                     "across, %(y)s up. One path for each example sentence, all from the same input x₀; the picked "
                     "sentence in colour, the others grey and dashed."),
    "caption_off": N_("Residual off: each sublayer's output replaces the vector (x = Δ), so nothing of x₀ is carried "
                      "along. The paths of “%(token)s”, %(x)s across and %(y)s up; the picked sentence in colour."),
    "quoted": N_("“%(text)s”"),
    "and": N_("%(first)s and %(second)s"),
    # A legend entry is one phrase: the sentences, then what the line is (a title may end in brackets itself)
    "shared": N_("%(titles)s: one and the same path"),
    "picked": N_("%(titles)s, the picked sentence"),
    "picked_shared": N_("%(titles)s: one and the same path, the picked sentences"),
    "point": N_("%(titles)s, %(where)s"),
    "summary": N_("Residual %(residual)s, %(depth)s blocks: “%(token)s” ends at %(x)s %(xv)s, %(y)s %(yv)s in "
                  "%(titles)s; %(others)s."),
    "summary_one": N_("Residual %(residual)s, %(depth)s blocks: “%(token)s” ends at %(x)s %(xv)s, %(y)s %(yv)s in "
                      "%(titles)s."),
    "summary_other": N_("at %(x)s %(xv)s, %(y)s %(yv)s in %(titles)s"),
    "twin_caption": N_("The path of “%(token)s” in %(titles)s, residual %(residual)s: %(x)s and %(y)s after each "
                       "block."),
    "position": N_("Where"),
    "meets": N_("%(titles)s, on the same point as the picked sentence from block %(n)s on (the rings around its dots)"),
    "zoom_title": N_("Close-up: the dashed rectangle enlarged %(times)s times"),
    "zoom_area": N_("Dashed rectangle: the area of the close-up below"),
    # Translators: a point's label when blocks first to last all end on it (the collapse), e.g. "3–6". Japanese "3〜6".
    "block_range": N_("%(first)s–%(last)s"),
    # Translators: the residual-off caption, then caption_zoom. Chinese and Japanese need no space between them.
    "caption_with_zoom": N_("%(caption)s %(zoom)s"),
    "caption_zoom": N_("The paths stay so close to x₀ that this chart shows them as one small blot; the close-up "
                       "below it enlarges them %(times)s times."),
}


def check_args(args: tuple[str, ...], scenarios) -> str | None:
    """The plane: two different dimensions that every scenario of the lesson has."""
    known = scenarios[0].dimensions if scenarios else ()
    if len(args) != 2 or args[0] == args[1]:
        return (f"name the plane's two dimensions, across then up, e.g. `meaning-path {' '.join(known[:2]) or 'x y'}` "
                f"(got {' '.join(args) or 'none'})")
    for name in args:
        lacking = [s.name for s in scenarios if name not in s.dimensions]
        if lacking:
            return f"{name!r} is not a dimension of {', '.join(lacking)} (its dimensions: {', '.join(known)})"
    return None


def _paths(scenario, xi: int, yi: int) -> dict[bool, np.ndarray]:
    """The tracked word's (x, y) at the input and after each of the six blocks, residual on and off."""
    t = scenario.tracked
    out = {}
    for residual, key in ((True, "pre-on"), (False, "pre-off")):
        trace = scenario.traces[key]
        points = np.vstack([trace.x0[t][None, :], trace.block_outputs()[:, t]])  # (1 + blocks, C)
        out[residual] = points[:, [xi, yi]]  # (1 + blocks, 2)
    return out


def _after_attention(scenario, xi: int, yi: int) -> dict[bool, np.ndarray]:
    """The tracked word's (x, y) after each block's attention (before its FFN), residual on and off."""
    t = scenario.tracked
    return {residual: np.array([[s.after[t][xi], s.after[t][yi]] for s in scenario.traces[key].steps
                                if s.sublayer == "attention"])
            for residual, key in ((True, "pre-on"), (False, "pre-off"))}


def _groups(scenarios, paths) -> list[list]:
    """The lesson's scenarios, those with the very same path (both runs) grouped, in the lesson's order."""
    groups = []
    for s in scenarios:
        for group in groups:
            first = paths[group[0].name]
            if all(np.allclose(first[r], paths[s.name][r], atol=1e-9) for r in (True, False)):
                group.append(s)
                break
        else:
            groups.append([s])
    return groups


def _right_margins(*x_axes: tuple) -> dict[str, int]:
    """The right margin at each size: room for half of a tick label set on an axis's right end (Plotly drops
    a label that passes its box: the close-up's 0.6 on a phone). One for the main chart and its close-up,
    so their plots stay as wide as each other and the close-up is `times` larger on screen too."""
    out = {}
    for size in ("wide", "narrow"):
        out[size] = MARGINS[size]["r"]
        for _, hi, ticks in x_axes:
            if ticks and abs(ticks[-1] - hi) < 1e-9:
                end = f"{ticks[-1]:.{tick_decimals(ticks)}f}"
                out[size] = max(out[size], math.ceil(text_box(end, size)[0] / 2))
    return out


def _frame(x_axis: tuple, y_axis: tuple, right: dict[str, int]) -> dict:
    """Drawings whose plot areas have the data's shape, so a unit is as long across as up."""
    out = {}
    for size, width in (("wide", WIDE), ("narrow", NARROW)):
        m = {**MARGINS[size], "r": right[size]}
        plot = width - m["l"] - m["r"]
        out[size] = [width, round(plot * (y_axis[1] - y_axis[0]) / (x_axis[1] - x_axis[0]) + m["t"] + m["b"]), m]
    return out


def _axis(lo: float, hi: float) -> tuple[float, float, list[float]]:
    """An axis from lo to hi as given, with the round ticks (1, 2 or 5 × 10ⁿ apart) that fall inside it."""
    _, _, ticks = nice_range(lo, hi)
    return round(lo, 4), round(hi, 4), [t for t in ticks if lo - 1e-9 <= t <= hi + 1e-9]


def _close_up(paths, x_axis, y_axis) -> dict | None:
    """Where the residual-off paths stay, enlarged: a window a round number of times smaller than the main
    chart (`times`), wider than tall, the same for every residual-off state, so they compare in it too; its
    units as long across as up. None when those paths are not small in the main chart."""
    off = np.vstack([by[False] for by in paths.values()])
    lo, hi = off.min(axis=0), off.max(axis=0)
    need = (hi - lo) * 1.3 + 1e-6  # room around the points for their labels
    main_span = x_axis[1] - x_axis[0]
    need_x = max(need[0], need[1] * CLOSE_UP_SHAPE)
    fits = [t for t in TIMES if main_span / t >= need_x]
    if not fits:
        return None
    times = max(fits)
    x_span = main_span / times
    y_span = max(x_span / CLOSE_UP_SHAPE, need[1])
    centre = (lo + hi) / 2
    x = _axis(*_on_ticks(centre[0] - x_span / 2, x_span, lo[0], hi[0]))
    y = _axis(*_on_ticks(centre[1] - y_span / 2, y_span, lo[1], hi[1]))
    return {"times": times, "x": x, "y": y}


def _on_ticks(start: float, span: float, lo: float, hi: float) -> tuple[float, float]:
    """The window [start, start + span] with both ends on labelled ticks, so its corner reads as a round
    number (not −0.1997, a hair short of the −0.2 tick and so unlabelled, with the 0.0 gridline floating
    above the axis): moved by under half a tick if the points lo..hi keep a tenth of the window clear on
    both sides, else widened out to the ticks around it."""
    _, _, ticks = nice_range(start, start + span)
    step = ticks[1] - ticks[0]
    if not step < span:  # a window too small for its own ticks (nice_range's one-unit fallback): leave it
        return start, start + span
    snapped = round(round(start / step) * step, 10) + 0.0
    margin = span / 10
    if snapped + margin <= lo and hi <= snapped + span - margin:
        return snapped, snapped + span
    first, last = math.floor(start / step + 1e-3), math.ceil((start + span) / step - 1e-3)
    return round(first * step, 10) + 0.0, round(last * step, 10) + 0.0


def views(ctx: FigureContext) -> dict[str, dict]:
    """One view per (scenario, residual, depth): every sentence's path, the picked one in colour; with the
    residual off, a close-up of where the paths stay."""
    x_key, y_key = ctx.args
    first = ctx.scenarios[0]
    xi, yi = first.dimensions.index(x_key), first.dimensions.index(y_key)
    paths = {s.name: _paths(s, xi, yi) for s in ctx.scenarios}
    halfway = {s.name: _after_attention(s, xi, yi) for s in ctx.scenarios}
    every = np.vstack([p for by in paths.values() for p in by.values()])
    pad = 0.06 * max(np.ptp(every[:, 0]), np.ptp(every[:, 1]))
    x_axis = nice_range(every[:, 0].min() - pad, every[:, 0].max() + pad)
    y_axis = nice_range(every[:, 1].min() - pad, every[:, 1].max() + pad)
    zoom = _close_up(paths, x_axis, y_axis)
    right = _right_margins(x_axis, *([zoom["x"]] if zoom else []))
    main = {"x": x_axis, "y": y_axis, "frame": _frame(x_axis, y_axis, right)}
    if zoom:
        zoom["frame"] = _frame(zoom["x"], zoom["y"], right)
    groups = _groups(ctx.scenarios, paths)
    out = {}
    for scenario in ctx.scenarios:
        for residual in (True, False):
            for depth in range(1, MAX_BLOCK + 1):
                state = {"scenario": scenario.name, "residual": residual, "depth": depth}
                out[view_key(state, KIND.state)] = _view(ctx, scenario, groups, paths, halfway[scenario.name][residual],
                                                         residual, depth, main, None if residual else zoom)
    return out


def _view(ctx: FigureContext, scenario, groups, paths, halfway, residual, depth, main, zoom) -> dict:
    first = ctx.scenarios[0]
    x_name, y_name = ctx.dims(first)[first.dimensions.index(ctx.args[0])], ctx.dims(first)[first.dimensions.index(ctx.args[1])]
    token = scenario.tokens[scenario.tracked]
    picked = next(g for g in groups if scenario in g)
    others = [g for g in groups if g is not picked]
    blocks = list(range(depth + 1))
    shown = {id(g): paths[g[0].name][residual][: depth + 1] for g in groups}
    mine = shown[id(picked)]

    def titles(group):  # “money in the bank”, or “by the river bank” and “bank by the river” sharing a path
        names = [ctx.t("quoted", text=ctx.sentence(s)) for s in group]
        text = names[0]
        for name in names[1:]:
            text = ctx.t("and", first=text, second=name)
        return text

    def named(group):  # a legend entry: one phrase, whether the path is one sentence's or shared, picked or not
        if group is picked:
            return ctx.t("picked_shared" if len(group) > 1 else "picked", titles=titles(group))
        return ctx.t("shared", titles=titles(group)) if len(group) > 1 else titles(group)

    def where(n):
        return ctx.block(n) if n else ctx.t("input") + " x₀"

    def mark(group, css):
        points = shown[id(group)]
        m = {"type": "line", "class": css, "symbol": "circle", "x": [round(float(p[0]), 4) for p in points],
             "y": [round(float(p[1]), 4) for p in points],
             # the hover names the path by its first sentence (the legend names them all)
             "hover": [ctx.t("point", titles=ctx.t("quoted", text=ctx.sentence(group[0])), where=where(n))
                       + "\n" + ctx.named(x_name, p[0]) + "\n" + ctx.named(y_name, p[1]) for n, p in zip(blocks, points)]}
        if css == "path-other":  # dashed, its points rings: where it runs under the picked path, the rings show
            m["dash"] = [7, 4]
            m["symbol"] = "ring"
        return m

    def labels(span):
        """Which block each point of the picked path is after; points that sit on each other (the collapse)
        share one label, "3–6"."""
        runs = []
        for n, point in enumerate(mine):
            if runs and np.linalg.norm(point - mine[runs[-1][0]]) < SAME_POINT * span:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        # "gap": clear of the rings around the points and of the square the walkthrough draws around one
        return {"type": "text", "class": "value", "optional": True, "gap": POINT_OUTLINE / 2 + 2,
                "x": [round(float(mine[a][0]), 4) for a, _ in runs],
                "y": [round(float(mine[a][1]), 4) for a, _ in runs],
                "text": ["x₀" if a == 0 else str(a) if a == b else ctx.t("block_range", first=a, last=b) for a, b in runs]}

    def meets(group, span):
        """The block from which this path sits on the picked one to the end, or None."""
        apart = np.linalg.norm(shown[id(group)] - mine, axis=1) >= SAME_POINT * span
        if apart[-1]:
            return None
        n = len(apart) - 1
        while n > 1 and not apart[n - 1]:
            n -= 1
        return n

    def axes(a):
        (x_lo, x_hi, x_ticks), (y_lo, y_hi, y_ticks) = a["x"], a["y"]
        xd, yd = tick_decimals(x_ticks), tick_decimals(y_ticks)
        return {"x": {"range": [x_lo, x_hi], "ticks": [[v, ctx.num(v, xd), ctx.num(v, xd)] for v in x_ticks], "title": x_name},
                "y": {"range": [y_lo, y_hi], "ticks": [[v, ctx.num(v, yd)] for v in y_ticks], "title": y_name},
                "frame": a["frame"]}

    def path_legend(chart, span):
        entries = [("path-picked", named(picked))]
        if others:
            # the rings' note names the sentences alone: "A and B: one and the same path" inside it read as two notes
            notes = [ctx.t("meets", titles=titles(g), n=meets(g, span)) if meets(g, span) else named(g) for g in others]
            entries.append(("path-other", ctx.listed(notes)))
        return entries

    end = {id(g): paths[g[0].name][residual][depth] for g in groups}
    # Read out as the table under the chart prints them: with the residual off the ends sit near 0.1-0.4, where
    # one decimal would say 0.4 for the 0.35 the lesson and the table give.
    summary = ctx.t("summary" if others else "summary_one", residual=ctx.on_off(residual), depth=depth, token=token,
                    x=x_name, y=y_name, xv=ctx.num(end[id(picked)][0]), yv=ctx.num(end[id(picked)][1]),
                    titles=titles(picked),
                    others=ctx.listed(ctx.t("summary_other", x=x_name, y=y_name, xv=ctx.num(end[id(g)][0]),
                                           yv=ctx.num(end[id(g)][1]),
                                           titles=titles(g)) for g in others))
    paths_marks = [mark(g, "path-other") for g in others] + [mark(picked, "path-picked")]
    main_span = main["x"][1] - main["x"][0]
    chart = {**axes(main), "marks": list(paths_marks), "label": summary}
    caption = ctx.t("caption_on" if residual else "caption_off", token=token, x=x_name, y=y_name)
    charts = {"main": chart}
    if zoom is None:
        chart["marks"].append(labels(main_span))
        chart["highlights"] = [_outline(step, mine, halfway, depth, chart) for step in ctx.walkthrough]
        chart["legend"] = legend(chart, path_legend(chart, main_span))
    else:
        # The paths stay where the main chart shows one blot: it marks that area and leaves the labels and the
        # walkthrough's outlines to the close-up, which draws the same paths there, `times` larger.
        (x_lo, x_hi, _), (y_lo, y_hi, _) = zoom["x"], zoom["y"]
        chart["marks"].append({"type": "outline", "class": "zoom-area", "x": [x_lo, x_hi], "y": [y_lo, y_hi], "dash": [4, 3]})
        zoom_span = x_hi - x_lo
        title = ctx.t("zoom_title", times=zoom["times"])
        close = {**axes(zoom), "marks": list(paths_marks) + [labels(zoom_span)], "label": title, "title": title,
                 "highlights": [_outline(step, mine, halfway, depth, axes(zoom)) for step in ctx.walkthrough]}
        # a step's point outside the close-up (the stream after a block's attention, which leaves x₀ far
        # behind without the residual) is marked where the main chart shows it
        # with a ring around its dot: at the main chart's scale it is a speck beside the blot
        chart["highlights"] = [None if near else _ringed(_outline(step, mine, halfway, depth, chart))
                               for step, near in zip(ctx.walkthrough, close["highlights"])]
        close["legend"] = legend(close, path_legend(close, zoom_span))
        chart["legend"] = legend(chart, path_legend(chart, zoom_span) + [("zoom-area", ctx.t("zoom_area"))])
        place_labels(close)
        charts["zoom"] = close
        caption = ctx.t("caption_with_zoom", caption=caption, zoom=ctx.t("caption_zoom", times=zoom["times"]))
    place_labels(chart)
    twins = [{"caption": ctx.t("twin_caption", token=token, titles=titles(g), residual=ctx.on_off(residual), x=x_name, y=y_name),
              "columns": [ctx.t("position"), x_name, y_name],
              "rows": [[where(n), ctx.num(p[0]), ctx.num(p[1])] for n, p in zip(blocks, paths[g[0].name][residual])]}
             for g in [picked] + others]
    return {"charts": charts, "twins": twins, "summary": summary, "caption": caption, "steps": []}


def _outline(step, points, halfway, depth, chart):
    """The point a walkthrough step outlines (chart.py draws a square of a fixed size around it, clear of the
    marker and of its label on a phone too): the input, the stream after the step's block (the FFN's step
    ends the block: its point), the last point for the sum; None beyond the depth.

    A step about a block's attention is about the stream halfway through the block, which the path (a point
    per block) does not mark: [x, y, "halfway"], a dot of its own at that point (chart.py), so the step does
    not frame the block's end point, as the FFN's step does. None if that point is outside the chart."""
    n = depth if step.is_sum else step.block
    if n > depth:
        return None
    if step.sublayer == "attention":
        x, y = halfway[n - 1]
        (x_lo, x_hi), (y_lo, y_hi) = chart["x"]["range"], chart["y"]["range"]
        if not (x_lo <= x <= x_hi and y_lo <= y <= y_hi):
            return None
        return [round(float(x), 4), round(float(y), 4), "halfway"]
    x, y = points[n]
    return [round(float(x), 4), round(float(y), 4)]


def _ringed(outline):
    return outline[:2] + ["ringed"] if outline and outline[2:] == ["halfway"] else outline


KIND = FigureKind(name="meaning-path", folder=FOLDER / "meaning_path", state=("scenario", "residual", "depth"),
                  controls=("scenario", "residual", "depth"), labels=LABELS, views=views, walkthrough=True,
                  check_args=check_args)
