"""Pre-norm and post-norm compared: the tracked word's stream length after each block, 1 to 6 deep.

The same block and weights; pre-norm keeps adding corrections to the stream, so its length grows,
while post-norm normalises after every addition, so with LayerNorm's γ = 1 the length stays at √d.
"""

from __future__ import annotations

import numpy as np

from builder.figures import FOLDER, FigureContext, FigureKind, N_, view_key
from builder.figures.chart import legend, nice_ticks, place_labels, tick_decimals
from builder.steps import MAX_BLOCK

# Where the two series meet (block 1: 1.8 and 2.0) one marker would hide the other: each sits a little to
# its side of the block, pre-norm left and post-norm right (a fortieth of the axis, about 8 px on a phone).
DODGE = 0.025

LABELS = {
    "title": N_("Pre-norm and post-norm compared"),
    # The caption names the word and its sentence: the page has no sentence picker, and a reader who starts at
    # the figure should not have to find them in the text.
    "caption": N_("The same block and weights, stacked 1 to 6 deep: how long the vector of “%(token)s” in %(sentence)s "
                  "is after each block."),
    "axis_x": N_("Block"),
    "axis_y": N_("Stream length ‖x‖"),
    "pre": N_("Pre-norm"),
    "post": N_("Post-norm"),
    # Translators: a point's hover names its line and its block ("Pre-norm · Block 2")
    "point": N_("%(series)s · %(where)s"),
    "summary": N_("After %(depth)s blocks the stream length is %(pre)s with pre-norm and %(post)s with post-norm."),
    "twin_caption": N_("Stream length ‖x‖ of “%(token)s” after each block."),
}


def views(ctx: FigureContext) -> dict[str, dict]:
    """One view per (scenario, depth)."""
    out = {}
    every = {s.name: {key: np.linalg.norm(s.traces[key].block_outputs()[:, s.tracked], axis=-1) for key in ("pre-on", "post-on")}
             for s in ctx.scenarios}
    # One y scale for every scenario and depth, so heights compare between them.
    y_top, y_ticks = nice_ticks(max(v.max() for lengths in every.values() for v in lengths.values()) * 1.15)
    decimals = tick_decimals(y_ticks)
    for scenario in ctx.scenarios:
        t = scenario.tracked
        lengths = every[scenario.name]
        for depth in range(1, MAX_BLOCK + 1):
            blocks = list(range(1, depth + 1))
            pre, post = lengths["pre-on"][:depth], lengths["post-on"][:depth]
            marks, xs = [], {"pre": [round(b - DODGE * depth, 3) for b in blocks], "post": [round(b + DODGE * depth, 3) for b in blocks]}
            for key, values, symbol in (("pre", pre, "circle"), ("post", post, "square")):
                mark = {"type": "line", "class": key, "symbol": symbol, "x": xs[key], "y": [round(v, 4) for v in values],
                        "hover": [ctx.t("point", series=ctx.t(key), where=ctx.block(b)) + "\n" + ctx.named(ctx.t("axis_y"), v)
                                  for b, v in zip(blocks, values)]}
                if key == "post":
                    mark["dash"] = [7, 4]
                marks.append(mark)
            # Value labels: the higher series tries above its points first, the lower below, so where the two
            # meet (block 1) they part; place_labels() moves any label that would touch a mark.
            for values, other, css in ((pre, post, "pre"), (post, pre, "post")):
                for higher in (True, False):
                    chosen = [i for i, (v, o) in enumerate(zip(values, other)) if (v >= o) == higher]
                    if chosen:
                        marks.append({"type": "text", "class": f"value {css}",
                                      "candidates": ["above", "below", "right", "left"] if higher
                                      else ["below", "above", "right", "left"],
                                      "x": [xs[css][i] for i in chosen], "y": [round(values[i], 4) for i in chosen],
                                      "text": [ctx.num(values[i], 1) for i in chosen]})
            summary = ctx.t("summary", depth=depth, pre=ctx.num(pre[-1], 1), post=ctx.num(post[-1], 1))
            chart = {"x": {"range": [0.5, depth + 0.5], "ticks": [[b, ctx.block(b), str(b)] for b in blocks],
                           "title": ctx.t("axis_x")},
                     "y": {"range": [0, y_top], "ticks": [[v, ctx.num(v, decimals)] for v in y_ticks], "title": ctx.t("axis_y")},
                     "marks": marks, "label": summary, "highlights": []}
            chart["legend"] = legend(chart, [("pre", ctx.t("pre")), ("post", ctx.t("post"))])
            place_labels(chart)
            twin = {"caption": ctx.t("twin_caption", token=scenario.tokens[t]),
                    "columns": [ctx.t("axis_x"), ctx.t("pre"), ctx.t("post")],
                    "rows": [[ctx.block(b), ctx.num(a), ctx.num(p)] for b, a, p in zip(blocks, pre, post)]}
            state = {"scenario": scenario.name, "depth": depth}
            out[view_key(state, KIND.state)] = {"charts": {"main": chart}, "twins": [twin], "summary": summary,
                                                "caption": ctx.t("caption", token=scenario.tokens[t], sentence=ctx.sentence(scenario)),
                                                "steps": []}
    return out


KIND = FigureKind(name="norm-compare", folder=FOLDER / "norm_compare", state=("scenario", "depth"), controls=("depth",),
                  labels=LABELS, views=views, defaults={"depth": MAX_BLOCK})  # the whole curve, 1 to 6
