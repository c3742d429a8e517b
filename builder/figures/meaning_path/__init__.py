"""The tracked word's path in meaning space: its vector after each block, seen in the plane of two of
its dimensions, which the lesson names where it places the figure:

    ::: interactive meaning-path geography finance

One path per example sentence of the lesson, all in the same axes: the picked sentence in colour, the
others grey and dashed underneath. Every path starts at the word's input x₀ (the same vector in every
sentence) and goes where the corrections of its neighbours push it, so the two senses of "bank" part
ways; with the residual off each output replaces the vector and the paths end where the words collapse.
Sentences whose paths are the same to the last digit (the same words in another order) share one path,
named for all of them. The axes have one scale across every state and sentence, the same units across
and up, so directions and distances read true. The walkthrough outlines the point its step is about.
"""

from __future__ import annotations

import numpy as np

from builder.figures import FOLDER, FigureContext, FigureKind, N_, view_key
from builder.figures.chart import legend, nice_range, place_labels, tick_decimals
from builder.steps import MAX_BLOCK

WIDE, NARROW = 640, 360  # the drawing's widths (as the other charts); its height keeps one unit the same across and up
MARGINS = {"wide": {"l": 58, "r": 14, "t": 32, "b": 46}, "narrow": {"l": 46, "r": 8, "t": 32, "b": 42}}  # as chart.SIZES
SAME_POINT = 0.05  # points closer than this (in the axes' units) are one point to the eye and share a label
OUTLINE = 0.5  # the walkthrough's square around a point, in the axes' units

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
    "summary_other": N_("at %(xv)s, %(yv)s in %(titles)s"),
    "twin_caption": N_("The path of “%(token)s” in %(titles)s, residual %(residual)s: %(x)s and %(y)s after each "
                       "block."),
    "position": N_("Where"),
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


def _frame(x_span: float, y_span: float) -> dict:
    """Drawings whose plot areas have the data's shape, so a unit is as long across as up."""
    out = {}
    for size, width in (("wide", WIDE), ("narrow", NARROW)):
        m = MARGINS[size]
        plot = width - m["l"] - m["r"]
        out[size] = [width, round(plot * y_span / x_span + m["t"] + m["b"]), m]
    return out


def views(ctx: FigureContext) -> dict[str, dict]:
    """One view per (scenario, residual, depth): every sentence's path, the picked one in colour."""
    x_key, y_key = ctx.args
    first = ctx.scenarios[0]
    xi, yi = first.dimensions.index(x_key), first.dimensions.index(y_key)
    paths = {s.name: _paths(s, xi, yi) for s in ctx.scenarios}
    every = np.vstack([p for by in paths.values() for p in by.values()])
    pad = 0.06 * max(np.ptp(every[:, 0]), np.ptp(every[:, 1]))
    x_lo, x_hi, x_ticks = nice_range(every[:, 0].min() - pad, every[:, 0].max() + pad)
    y_lo, y_hi, y_ticks = nice_range(every[:, 1].min() - pad, every[:, 1].max() + pad)
    frame = _frame(x_hi - x_lo, y_hi - y_lo)
    groups = _groups(ctx.scenarios, paths)
    out = {}
    for scenario in ctx.scenarios:
        for residual in (True, False):
            for depth in range(1, MAX_BLOCK + 1):
                state = {"scenario": scenario.name, "residual": residual, "depth": depth}
                out[view_key(state, KIND.state)] = _view(ctx, scenario, groups, paths, residual, depth, frame,
                                                         (x_lo, x_hi, x_ticks), (y_lo, y_hi, y_ticks))
    return out


def _view(ctx: FigureContext, scenario, groups, paths, residual, depth, frame, x_axis, y_axis) -> dict:
    first = ctx.scenarios[0]
    x_name, y_name = ctx.dims(first)[first.dimensions.index(ctx.args[0])], ctx.dims(first)[first.dimensions.index(ctx.args[1])]
    token = scenario.tokens[scenario.tracked]
    picked = next(g for g in groups if scenario in g)
    others = [g for g in groups if g is not picked]
    blocks = list(range(depth + 1))

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
        points = paths[group[0].name][residual][: depth + 1]
        m = {"type": "line", "class": css, "symbol": "circle", "x": [round(float(p[0]), 4) for p in points],
             "y": [round(float(p[1]), 4) for p in points],
             # the hover names the path by its first sentence (the legend names them all)
             "hover": [ctx.t("point", titles=ctx.t("quoted", text=ctx.sentence(group[0])), where=where(n))
                       + f"\n{x_name}: {ctx.num(p[0])}\n{y_name}: {ctx.num(p[1])}" for n, p in zip(blocks, points)]}
        if css == "path-other":
            m["dash"] = [7, 4]
        return m

    marks = [mark(g, "path-other") for g in others] + [mark(picked, "path-picked")]
    mine = paths[picked[0].name][residual][: depth + 1]
    # Which block each point is after; points that sit on each other (the collapse) share one label, "3–6".
    runs = []
    for n, point in enumerate(mine):
        if runs and np.linalg.norm(point - mine[runs[-1][0]]) < SAME_POINT:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    names = ["x₀" if a == 0 else str(a) if a == b else f"{a}–{b}" for a, b in runs]
    marks.append({"type": "text", "class": "value", "optional": True, "x": [marks[-1]["x"][a] for a, _ in runs],
                  "y": [marks[-1]["y"][a] for a, _ in runs], "text": names})
    (x_lo, x_hi, x_ticks), (y_lo, y_hi, y_ticks) = x_axis, y_axis
    xd, yd = tick_decimals(x_ticks), tick_decimals(y_ticks)
    end = {id(g): paths[g[0].name][residual][depth] for g in groups}
    summary = ctx.t("summary" if others else "summary_one", residual=ctx.on_off(residual), depth=depth, token=token,
                    x=x_name, y=y_name, xv=ctx.num(end[id(picked)][0], 1), yv=ctx.num(end[id(picked)][1], 1),
                    titles=titles(picked),
                    others="; ".join(ctx.t("summary_other", xv=ctx.num(end[id(g)][0], 1), yv=ctx.num(end[id(g)][1], 1),
                                           titles=titles(g)) for g in others))
    chart = {"x": {"range": [x_lo, x_hi], "ticks": [[v, ctx.num(v, xd), ctx.num(v, xd)] for v in x_ticks], "title": x_name},
             "y": {"range": [y_lo, y_hi], "ticks": [[v, ctx.num(v, yd)] for v in y_ticks], "title": y_name},
             "marks": marks, "label": summary, "frame": frame,
             "highlights": [_outline(step, mine, depth) for step in ctx.walkthrough]}
    chart["legend"] = legend(chart, [("path-picked", named(picked))]
                             + ([("path-other", "; ".join(named(g) for g in others))] if others else []))
    place_labels(chart)
    twins = [{"caption": ctx.t("twin_caption", token=token, titles=titles(g), residual=ctx.on_off(residual), x=x_name, y=y_name),
              "columns": [ctx.t("position"), x_name, y_name],
              "rows": [[where(n), ctx.num(p[0]), ctx.num(p[1])] for n, p in zip(blocks, paths[g[0].name][residual])]}
             for g in [picked] + others]
    caption = ctx.t("caption_on" if residual else "caption_off", token=token, x=x_name, y=y_name)
    return {"charts": {"main": chart}, "twins": twins, "summary": summary, "caption": caption, "steps": []}


def _outline(step, points, depth):
    """The square a walkthrough step draws around the point it is about: the input, the stream after the
    step's block (a sublayer's step: its block), the last point for the sum; None beyond the depth."""
    n = depth if step.is_sum else step.block
    if n > depth:
        return None
    x, y = points[n]
    return [round(float(x), 4), OUTLINE, round(float(y) - OUTLINE / 2, 4), round(float(y) + OUTLINE / 2, 4)]


KIND = FigureKind(name="meaning-path", folder=FOLDER / "meaning_path", state=("scenario", "residual", "depth"),
                  controls=("scenario", "residual", "depth"), labels=LABELS, views=views, walkthrough=True,
                  check_args=check_args)
