"""Where attention looks: the attention weights of one block as a token × token grid.

Row i is the word that looks, column j the word it looks at; each row adds up to 1. The grid is a
table with the numbers printed in it (shaded by weight, with a scale under it), so it reads the same
with a screen reader, on paper and without JavaScript. The walkthrough's steps about a block select
that block. A row's largest weight is marked, and named in the summary, only when it clearly leads:
four weights of about a quarter each are an even spread, not a preference.
"""

from __future__ import annotations

from builder.figures import FOLDER, FigureContext, FigureKind, N_, view_key
from builder.steps import MAX_BLOCK

CLEAR_LEAD = 0.05  # a weight "leads" when it beats the row's next one by this much (0.26 over 0.25 is noise)
DECIMALS = 2  # the weights as the grid and the summary print them
SCALE_TOP = 0.5  # the shading: from the background at 0 to full colour at 0.5 and above

LABELS = {
    "title": N_("Where attention looks"),
    "caption": N_("Each row is a word looking at the sentence; each cell, how much of its attention goes to the "
                  "word of that column. A row adds up to 1; the darker the cell, the larger the weight. A framed "
                  "cell is a row's largest weight, ahead of the next one by %(lead)s or more."),
    "block_control": N_("Block"),
    "grid_caption": N_("Attention weights in block %(n)s, “%(scenario)s”, residual %(residual)s."),
    "looks": N_("Looks"),
    "at": N_("at"),
    # Translators: the grid's corner cell has two lines, this one over the other: what the rows are
    # (the words that look) and what the columns are (the words looked at)
    "corner_rows": N_("Rows: %(looks)s"),
    "corner_columns": N_("Columns: %(at)s"),
    "summary": N_("In block %(n)s, “%(token)s” gives the most attention to “%(top)s” (%(weight)s)."),
    "summary_even": N_("In block %(n)s, “%(token)s” spreads its attention about evenly: no word stands out, every "
                       "weight is between %(low)s and %(high)s."),
    "summary_equal": N_("In block %(n)s, “%(token)s” gives every word the same attention, %(weight)s each."),
    "scale": N_("Weight"),
    "at_least": N_("%(value)s or more"),
}


def lead(row) -> int | None:
    """The index of the row's clearly largest weight, or None when no weight leads by CLEAR_LEAD.

    Decided on the weights as printed, in whole hundredths: the reader judges the frame by the numbers
    in the row, so two rows that read 0.21 0.25 0.23 0.30 are framed alike (unrounded, one leads by
    0.050 and the other by 0.045)."""
    unit = 10 ** DECIMALS
    shown = [round(round(float(w), DECIMALS) * unit) for w in row]
    order = sorted(range(len(shown)), key=lambda i: shown[i], reverse=True)
    return order[0] if shown[order[0]] - shown[order[1]] >= round(CLEAR_LEAD * unit) else None


def views(ctx: FigureContext) -> dict[str, dict]:
    """One view per (scenario, residual, block)."""
    out = {}
    scale = {"title": ctx.t("scale"), "low": ctx.num(0, 1), "high": ctx.t("at_least", value=ctx.num(SCALE_TOP, 1))}
    for scenario in ctx.scenarios:
        t = scenario.tracked
        for residual in (True, False):
            run = scenario.traces["pre-on" if residual else "pre-off"]
            for block in range(1, MAX_BLOCK + 1):
                weights = run.steps[2 * (block - 1)].attention  # (T, T)
                top = lead(weights[t])
                low, high = ctx.num(weights[t].min(), DECIMALS), ctx.num(weights[t].max(), DECIMALS)
                if top is None and low == high:
                    summary = ctx.t("summary_equal", n=block, token=scenario.tokens[t], weight=low)
                elif top is None:
                    summary = ctx.t("summary_even", n=block, token=scenario.tokens[t], low=low, high=high)
                else:
                    summary = ctx.t("summary", n=block, token=scenario.tokens[t], top=scenario.tokens[top],
                                    weight=ctx.num(weights[t][top], DECIMALS))
                grid = {"caption": ctx.t("grid_caption", n=block, scenario=ctx.sentence(scenario), residual=ctx.on_off(residual)),
                        "corner": [ctx.t("corner_rows", looks=ctx.t("looks")), ctx.t("corner_columns", at=ctx.t("at"))], "tokens": list(scenario.tokens), "tracked": t,
                        "cells": [[[ctx.num(w, DECIMALS), round(min(float(w) / SCALE_TOP, 1.0), 2)] for w in row] for row in weights],
                        "top": [-1 if lead(row) is None else lead(row) for row in weights], "scale": scale}
                state = {"scenario": scenario.name, "residual": residual, "block": block}
                out[view_key(state, KIND.state)] = {"grid": grid, "summary": summary, "caption": ctx.t("caption", lead=ctx.num(CLEAR_LEAD, DECIMALS)),
                                                    "steps": []}
    return out


KIND = FigureKind(name="attention", folder=FOLDER / "attention", state=("scenario", "residual", "block"),
                  controls=("scenario", "residual", "block"), labels=LABELS, views=views)
