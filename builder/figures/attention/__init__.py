"""Where attention looks: the attention weights of one block as a token × token grid.

Row i is the word that looks, column j the word it looks at; each row adds up to 1. The grid is a
table with the numbers printed in it (shaded by weight), so it reads the same with a screen reader,
on paper and without JavaScript. The walkthrough's steps about a block select that block.
"""

from __future__ import annotations

import numpy as np

from builder.figures import FOLDER, FigureContext, FigureKind, N_, view_key
from builder.steps import MAX_BLOCK

LABELS = {
    "title": N_("Where attention looks"),
    "caption": N_("Each row is a word looking at the sentence; each cell, how much of its attention goes to the "
                  "word of that column. A row adds up to 1; the darker the cell, the larger the weight."),
    "block_control": N_("Block"),
    "grid_caption": N_("Attention weights in block %(n)s, “%(scenario)s”, residual %(residual)s."),
    "looks": N_("Looks"),
    "at": N_("at"),
    # Translators: the grid's corner cell, over the row labels (the words that look) and beside the
    # column labels (the words looked at)
    "corner": N_("%(looks)s \\ %(at)s"),
    "summary": N_("In block %(n)s, “%(token)s” gives the most attention to “%(top)s” (%(weight)s)."),
}


def views(ctx: FigureContext) -> dict[str, dict]:
    """One view per (scenario, residual, block)."""
    out = {}
    for scenario in ctx.scenarios:
        t = scenario.tracked
        for residual in (True, False):
            run = scenario.traces["pre-on" if residual else "pre-off"]
            for block in range(1, MAX_BLOCK + 1):
                weights = run.steps[2 * (block - 1)].attention  # (T, T)
                top = int(np.argmax(weights[t]))
                summary = ctx.t("summary", n=block, token=scenario.tokens[t], top=scenario.tokens[top],
                                weight=ctx.num(weights[t][top]))
                grid = {"caption": ctx.t("grid_caption", n=block, scenario=ctx.title(scenario), residual=ctx.on_off(residual)),
                        "corner": ctx.t("corner", looks=ctx.t("looks"), at=ctx.t("at")), "tokens": list(scenario.tokens), "tracked": t,
                        "cells": [[[ctx.num(w), round(float(w), 3)] for w in row] for row in weights],
                        "top": [int(np.argmax(row)) for row in weights]}
                state = {"scenario": scenario.name, "residual": residual, "block": block}
                out[view_key(state, KIND.state)] = {"grid": grid, "summary": summary, "caption": ctx.t("caption"),
                                                    "steps": []}
    return out


KIND = FigureKind(name="attention", folder=FOLDER / "attention", state=("scenario", "residual", "block"),
                  controls=("scenario", "residual", "block"), labels=LABELS, views=views)
