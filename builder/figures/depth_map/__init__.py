"""The depth map: how far the tracked word's stream has moved from its input x₀, sublayer by sublayer.

Residual on, the seed's picture: the input's length ‖x₀‖ as a ribbon underneath, and on it, per
block, two bars (after attention, after the FFN) whose height is the correction accumulated so far,
‖x − x₀‖. Stacked heights are not lengths (‖x₀‖ + ‖x − x₀‖ ≥ ‖x‖), so a diamond marks the stream's
true length ‖x‖ after each sublayer; each block's number, over its FFN column, is its last diamond's: that
length after the block (the figure the lessons quote). Residual off: the ribbon is cut at the entrance and each bar is the
sublayer's output ‖Δ‖, hatched, which is then the whole stream. Every state of every scenario shares
one y scale, so on and off, and one sentence and another, compare at a glance. A panel under the
walkthrough shows how far apart the tokens are (the largest distance between any two) after every sublayer
of the current state, up to the current depth; with the residual off, the residual-on line is drawn grey
to compare (never while it is on: the lesson asks the reader to predict the collapse first).
"""

from __future__ import annotations

import numpy as np

from builder.figures import FOLDER, FigureContext, FigureKind, N_, view_key
from builder.figures.chart import legend, nice_ticks, place_labels, tick_decimals
from builder.figures.tokens import spread, sublayer_spread
from builder.steps import MAX_BLOCK

OFFSET = 0.23  # each block's two bars sit this far left (attention) and right (FFN) of its centre: room for the
# number over the FFN column beside a tall attention bar, on a phone at depth 6
BAR_WIDTH = 0.32
NONE = "—"  # a table cell with no value: not a number, so no words to translate

LABELS = {
    "title": N_("Depth map"),
    "caption_on": N_("The slate-blue ribbon is the length of the input, ‖x₀‖. Stacked on it, each block has two "
                     "bars: how far the stream has moved from x₀, ‖x − x₀‖, after the block's attention (left) and "
                     "after its FFN (right). Diamonds mark the stream's true length ‖x‖: stacked heights are not "
                     "lengths, because lengths do not add."),
    "caption_off": N_("Residual off: the ribbon is cut at the entrance. Each bar is the length of a sublayer's "
                      "output, ‖Δ‖, which now replaces the stream (x = Δ), so the diamonds sit on the bar tops."),
    "axis_x": N_("Block"),
    "axis_y_on": N_("Length: ‖x₀‖ with ‖x − x₀‖ stacked on it"),
    "axis_y_off": N_("Length ‖Δ‖ = ‖x‖"),
    "ribbon": N_("Input ‖x₀‖"),
    "attention_on": N_("‖x − x₀‖ after attention"),
    "ffn_on": N_("‖x − x₀‖ after the FFN"),
    "attention_off": N_("‖Δ‖ of attention"),
    "ffn_off": N_("‖Δ‖ of the FFN"),
    "length": N_("True length ‖x‖"),
    "length_label": N_("True length ‖x‖; the number over a block is its last diamond's"),
    "after_attention": N_("Block %(n)s, after attention"),
    "after_ffn": N_("Block %(n)s, after the FFN"),
    "spread_title": N_("How far apart are the four words?"),
    "spread_axis": N_("Largest distance between two words"),
    "spread_on": N_("Residual on"),
    "spread_off": N_("Residual off"),
    "spread_compare_on": N_("Residual on, to compare"),
    "spread_column": N_("Spread of the words"),
    "spread_label": N_("The largest distance between any two words' vectors after each block: %(on)s with the "
                       "residual on, %(off)s with it off."),
    "spread_label_on": N_("The largest distance between any two words' vectors after each block, with the residual "
                          "on: %(on)s."),
    "summary_on": N_("Residual on, %(depth)s blocks: the stream of “%(token)s” is %(moved)s away from its input "
                     "(stacked on the ribbon of %(base)s) and %(length)s long."),
    "summary_off": N_("Residual off, %(depth)s blocks: the input ribbon is cut at the entrance; the stream of "
                      "“%(token)s” is just the last output, %(length)s long."),
    "twin_caption": N_("Numbers behind the chart: the vector of “%(token)s” in “%(scenario)s”, residual "
                       "%(residual)s, %(depth)s blocks."),
    "twin_measures_caption": N_("Its lengths: %(measure)s is the bar, ‖x‖ the diamond. The spread of the words is "
                                "the largest distance between any two of them (the lower chart)."),
    "position": N_("Where"),  # heads the tables' rows: the input, then after each sublayer (points in the run)
    # Translators: heads the walkthrough's little table, whose rows are vectors: the stream before a step, its
    # corrections Δ, the stream after, their sum
    "readout_corner": N_("Vector"),
    "measure_on": N_("‖x − x₀‖"),
    "measure_off": N_("‖Δ‖"),
    "stream": N_("Stream x"),
    "stream_before": N_("Stream before"),
    # with the residual off the rows are not a sum: the stream before is replaced, the stream after is the output
    "stream_before_off": N_("Stream before (replaced)"),
    "stream_off": N_("Stream x = Δ"),
    "correction_attention": N_("Δ of attention, block %(n)s"),
    "correction_ffn": N_("Δ of the FFN, block %(n)s"),
    # with the residual off a sublayer's result replaces the stream: it is an output, not a correction added to it
    "output_attention": N_("Output of attention, block %(n)s"),
    "output_ffn": N_("Output of the FFN, block %(n)s"),
    "sum_row": N_("x₀ + every Δ"),
    "sum_note": N_("After %(depth)s blocks the stream is x₀ plus %(count)s corrections, two per block: "
                   "add the rows above and compare with the stream."),
    "sum_off_note": N_("With the residual off there is no sum: the stream is only the last output."),
    "attention_caption": N_("Attention weights of “%(token)s” in block %(n)s"),
    "text_note": N_("The step's text describes “%(scenario)s” with the residual on; the numbers below are for "
                    "the chart's current state."),
    "back_to_text": N_("Show “%(scenario)s” with the residual on"),
    "walk_title": N_("Step by step"),
    "step_prev": N_("Previous step"),
    "step_next": N_("Next step"),
    "beyond": N_("This step's block is beyond the current depth; raise the depth to see it on the chart."),
}


def views(ctx: FigureContext) -> dict[str, dict]:
    """One view per (scenario, residual, depth). Every state of every scenario shares one y scale, so
    heights compare across the toggle, the depth and the example sentences alike."""
    out = {}
    runs = {s.name: {True: s.traces["pre-on"], False: s.traces["pre-off"]} for s in ctx.scenarios}
    top = max(_scale(runs[s.name], s.tracked) for s in ctx.scenarios)
    spread_top = max(sublayer_spread(r).max() for by in runs.values() for r in by.values()) * 1.18
    for scenario in ctx.scenarios:
        for residual in (True, False):
            for depth in range(1, MAX_BLOCK + 1):
                state = {"scenario": scenario.name, "residual": residual, "depth": depth}
                out[view_key(state, KIND.state)] = _view(ctx, scenario, runs[scenario.name], residual, depth, top,
                                                         spread_top)
    return out


def _scale(runs, t) -> float:
    """The highest a scenario's chart reaches in any state: a stacked bar, a length or an output, with room
    above it for the value label of its block."""
    on, off = runs[True], runs[False]
    base = np.linalg.norm(on.x0[t])
    highest = max(base + max(np.linalg.norm(s.after[t] - on.x0[t]) for s in on.steps),
                  max(np.linalg.norm(s.after[t]) for s in on.steps + off.steps), base)
    return highest * 1.12


def _bars(run, residual, t, depth):
    """Per sublayer up to `depth`: (x, height, base, length, step)."""
    base = float(np.linalg.norm(run.x0[t])) if residual else 0.0
    out = []
    for step in run.steps[: 2 * depth]:
        x = step.block + (-OFFSET if step.sublayer == "attention" else OFFSET)
        height = float(np.linalg.norm(step.after[t] - run.x0[t])) if residual else float(np.linalg.norm(step.delta[t]))
        out.append((x, height, base, float(np.linalg.norm(step.after[t])), step))
    return out


def _view(ctx: FigureContext, scenario, runs, residual: bool, depth: int, top: float, spread_top: float) -> dict:
    t = scenario.tracked
    run = runs[residual]
    dims = ctx.dims(scenario)
    token = scenario.tokens[t]
    bars = _bars(run, residual, t, depth)
    x0 = run.x0[t]
    base = float(np.linalg.norm(x0))
    y_top, y_ticks = nice_ticks(top)
    decimals = tick_decimals(y_ticks)
    pad = 0.04 * y_top  # the walkthrough's outline runs 0.4 × this above the bars it frames

    def hover(title, vector):
        return title + "\n" + "\n".join(ctx.named(d, v) for d, v in zip(dims, vector))

    def where(step):
        return ctx.t("after_attention" if step.sublayer == "attention" else "after_ffn", n=step.block)

    state = "on" if residual else "off"
    measure = ctx.t("measure_on" if residual else "measure_off")
    marks = [{"type": "band", "class": "ribbon", "x": [-0.5, depth + 0.5 if residual else 0.5], "y": [round(base, 4)],
              "hover": [hover(ctx.t("input"), x0)]}]
    for sublayer in ("attention", "ffn"):
        chosen = [b for b in bars if b[4].sublayer == sublayer]
        mark = {"type": "bar", "class": f"bar-{sublayer}-{state}", "width": BAR_WIDTH,
                "x": [round(b[0], 2) for b in chosen], "y": [round(b[1], 4) for b in chosen],
                "base": [round(b[2], 4) for b in chosen],
                # a bar's hover says its own height (the stream's vector is in the table of numbers)
                "hover": [where(b[4]) + "\n" + ctx.named(measure, b[1]) for b in chosen]}
        if not residual:
            mark["pattern"] = "hatch"  # a sublayer's output standing alone: nothing below it carries on
        marks.append(mark)
    marks.append({"type": "points", "class": "length", "symbol": "diamond", "x": [round(b[0], 2) for b in bars],
                  "y": [round(b[3], 4) for b in bars],
                  "hover": [where(b[4]) + "\n" + ctx.named(ctx.t("length"), b[3]) for b in bars]})
    # Each block's number is its last diamond's, the stream's true length after the block (the figure the
    # text quotes), set right above that diamond's column (the FFN's), so it never reads as the height of
    # the other bar (with the residual off, the tall attention bar beside it). It sits on the column's top, the
    # label's own gap (chart.GAP) clear of the diamond and the walkthrough's outline: floating higher, on a phone
    # at depth 4 and more, it would sit level with the next block's taller attention bar and read as its label.
    ends = [b for b in bars if b[4].sublayer == "ffn"]
    marks.append({"type": "text", "class": "value", "candidates": ["above"], "x": [round(b[0], 2) for b in ends],
                  "y": [round(max(b[2] + b[1], b[3]), 4) for b in ends], "text": [ctx.num(b[3], 1) for b in ends]})
    ticks = [[b, ctx.block(b), "x₀" if b == 0 else str(b)] for b in range(depth + 1)]
    last = bars[-1]
    summary = (ctx.t("summary_on", depth=depth, token=token, moved=ctx.num(last[1], 1), base=ctx.num(base, 1),
                     length=ctx.num(last[3], 1)) if residual
               else ctx.t("summary_off", depth=depth, token=token, length=ctx.num(last[3], 1)))
    main = {"x": {"range": [-0.6, depth + 0.6], "ticks": ticks, "title": ctx.t("axis_x")},
            "y": {"range": [0, y_top], "ticks": [[v, ctx.num(v, decimals)] for v in y_ticks],
                  "title": ctx.t("axis_y_on" if residual else "axis_y_off")},
            "marks": marks, "label": summary,
            "highlights": [_highlight(step, bars, base, residual, depth, pad) for step in ctx.walkthrough]}
    main["legend"] = legend(main, [("ribbon", ctx.t("ribbon")), (f"bar-attention-{state}", ctx.t(f"attention_{state}")),
                                   (f"bar-ffn-{state}", ctx.t(f"ffn_{state}")), ("length", ctx.t("length_label"))])
    place_labels(main)

    # The panel: how far apart all the words are after every sublayer, each point under its bar above (the
    # same x axis), up to the current depth, with its numbers. With the residual off, the residual-on state
    # is drawn grey underneath, up to the same depth, to compare with; with it on, nothing else is drawn: the
    # lesson asks the reader to predict what turning the residual off does before the figure shows it.
    spreads = {r: sublayer_spread(runs[r], depth) for r in (True, False)}
    s_top, s_ticks = nice_ticks(spread_top)
    s_dec = tick_decimals(s_ticks)
    xs = [0] + [round(b[0], 2) for b in bars]
    names = [ctx.t("input")] + [where(b[4]) for b in bars]

    def spread_line(r, css, symbol):
        return {"type": "line", "class": css, "symbol": symbol, "x": xs, "y": [round(v, 4) for v in spreads[r]],
                "hover": [f"{name}\n{ctx.t('spread_' + ('on' if r else 'off'))}\n{ctx.named(ctx.t('spread_column'), v)}"
                          for name, v in zip(names, spreads[r])]}

    mine = spreads[residual]
    panel_marks = ([] if residual else [dict(spread_line(True, "spread-compare", "circle"), dash=[7, 4])]) + [
        spread_line(residual, f"spread-{state}", "circle" if residual else "square"),
        # the numbers: the input's, then each attention's that changes the number shown (the text quotes block
        # 1's, the collapse), then the block ends (the lessons quote them); each where it has room
        _spread_labels(xs, mine, ctx)]
    # said as the chart draws it: up to this depth, and the residual-off line only once it is turned off (the
    # lesson asks for a guess first)
    ends = {r: " → ".join(ctx.num(v, 1) for v in spread(runs[r], depth)) for r in (True, False)}
    panel_label = ctx.t("spread_label", on=ends[True], off=ends[False]) if not residual else \
        ctx.t("spread_label_on", on=ends[True])
    panel = {"x": {"range": [-0.6, depth + 0.6], "ticks": ticks, "title": ctx.t("axis_x")},
             "y": {"range": [0, s_top], "ticks": [[v, ctx.num(v, s_dec)] for v in s_ticks], "title": ctx.t("spread_axis")},
             "marks": panel_marks, "label": panel_label, "size": "panel", "title": ctx.t("spread_title"), "highlights": []}
    panel["legend"] = legend(panel, [(f"spread-{state}", ctx.t(f"spread_{state}"))]
                             + ([] if residual else [("spread-compare", ctx.t("spread_compare_on"))]))
    place_labels(panel)

    heads = [ctx.t("input")] + [where(b[4]) for b in bars]
    vectors = [x0] + [b[4].after[t] for b in bars]
    # the input's bar: ‖x − x₀‖ is 0 there; with the residual off the bars are outputs, ‖Δ‖, and the input is none
    measures = [[ctx.num(0) if residual else NONE, ctx.num(base), ctx.num(mine[0])]] + [
        [ctx.num(height), ctx.num(length), ctx.num(mine[i + 1])] for i, (x, height, _, length, step) in enumerate(bars)]
    caption = dict(token=token, scenario=ctx.sentence(scenario), residual=ctx.on_off(residual), depth=depth)
    twins = [{"caption": ctx.t("twin_caption", **caption), "columns": [ctx.t("position")] + dims,
              "rows": [[head] + [ctx.num(v) for v in vector] for head, vector in zip(heads, vectors)]},
             {"caption": ctx.t("twin_measures_caption", measure=measure), "columns": [ctx.t("position"), measure, "‖x‖",
                                                                                     ctx.t("spread_column")],
              "rows": [[head] + row for head, row in zip(heads, measures)]}]
    view = {"charts": {"main": main, "spread": panel}, "twins": twins, "summary": summary,
            "caption": ctx.t("caption_on" if residual else "caption_off"),
            "steps": [_readout(ctx, scenario, run, residual, depth, step) for step in ctx.walkthrough]}
    if ctx.walkthrough and (not residual or scenario is not ctx.scenarios[0]):
        # The steps' text is about the lesson's own sentence with the residual on: said in a notice above
        # it, with a button that goes back to that state (lesson.js sets `state`), on each step whose
        # numbers here differ from that state's (not on the input, the same in every sentence and run).
        text = ctx.scenarios[0]
        differ = [n for n, (step, shown) in enumerate(zip(ctx.walkthrough, view["steps"]), 1)
                  if shown != _readout(ctx, text, text.traces["pre-on"], True, depth, step)]
        if differ:
            view["notice"] = {"text": ctx.t("text_note", scenario=ctx.sentence(text)),
                              "button": ctx.t("back_to_text", scenario=ctx.sentence(text)),
                              "state": {"scenario": text.name, "residual": True}, "steps": differ}
    return view


def _spread_labels(xs, values, ctx) -> dict:
    texts = [ctx.num(v, 1) for v in values]
    order = [0] + [i for i in range(1, len(xs), 2) if texts[i] != texts[i - 1]] + list(range(2, len(xs), 2))
    return {"type": "text", "class": "value", "optional": True, "candidates": ["above", "right", "below"],
            "x": [xs[i] for i in order], "y": [round(float(values[i]), 4) for i in order], "text": [texts[i] for i in order]}


def _highlight(step, bars, base, residual, depth, pad):
    """The outline a walkthrough step draws: [x centre, width, y0, y1], or None when off the chart."""
    if step.block > depth:
        return None
    if step.is_input:
        return [0, 0.9, 0, round(base + pad * 0.4, 4)]
    tops = {(b[4].block, b[4].sublayer): b[2] + max(b[1], 0) for b in bars}
    if step.is_sum:
        if not residual:
            return [round(depth + OFFSET, 2), BAR_WIDTH + 0.08, 0, round(tops[(depth, "ffn")] + pad * 0.4, 4)]
        return [depth / 2, depth + 1.0, 0, round(max(max(tops.values()), max(b[3] for b in bars)) + pad * 0.4, 4)]
    low = base if residual else 0
    if step.sublayer:
        x = step.block + (-OFFSET if step.sublayer == "attention" else OFFSET)
        return [round(x, 2), BAR_WIDTH + 0.08, round(low, 4), round(tops[(step.block, step.sublayer)] + pad * 0.4, 4)]
    high = max(tops[(step.block, "attention")], tops[(step.block, "ffn")])
    return [step.block, 2 * OFFSET + BAR_WIDTH + 0.1, round(low, 4), round(high + pad * 0.4, 4)]


def _readout(ctx: FigureContext, scenario, run, residual, depth, step) -> dict:
    """What the walkthrough shows under a step's text: the vectors it is about, for this state."""
    t = scenario.tracked
    notes = []
    if step.block > depth:
        notes.append(ctx.t("beyond"))
    rows, attention = [], None

    def row(head, vector):
        rows.append([head] + [ctx.num(v) for v in vector])

    def sublayer_row(s):
        kind = ("correction_" if residual else "output_") + s.sublayer
        row(ctx.t(kind, n=s.block), s.delta[t])

    steps = run.steps
    if step.is_input:
        row(ctx.t("input") + " x₀", run.x0[t])
    elif step.is_sum:
        if residual:
            row(ctx.t("input") + " x₀", run.x0[t])
            for s in steps[: 2 * depth]:
                sublayer_row(s)
            row(ctx.t("sum_row"), run.x0[t] + sum(s.delta[t] for s in steps[: 2 * depth]))
            row(ctx.t("stream"), steps[2 * depth - 1].after[t])
            notes.append(ctx.t("sum_note", depth=depth, count=2 * depth))
        else:
            sublayer_row(steps[2 * depth - 1])
            row(ctx.t("stream_off"), steps[2 * depth - 1].after[t])
            notes.append(ctx.t("sum_off_note"))
    else:
        first = 2 * (step.block - 1) + (1 if step.sublayer == "ffn" else 0)
        chosen = steps[first: first + 1] if step.sublayer else steps[first: first + 2]
        row(ctx.t("stream_before" if residual else "stream_before_off"), chosen[0].before[t])
        for s in chosen:
            sublayer_row(s)
        row(ctx.t("stream" if residual else "stream_off"), chosen[-1].after[t])
        if chosen[0].attention is not None and step.sublayer == "attention":
            attention = {"caption": ctx.t("attention_caption", token=scenario.tokens[t], n=step.block),
                         "tokens": list(scenario.tokens), "weights": [ctx.num(w) for w in chosen[0].attention[t]]}
    return {"corner": ctx.t("readout_corner"), "columns": ctx.dims(scenario), "rows": rows, "attention": attention,
            "notes": notes}


KIND = FigureKind(name="depth-map", folder=FOLDER / "depth_map", state=("scenario", "residual", "depth"),
                  controls=("scenario", "residual", "depth"), labels=LABELS, views=views, walkthrough=True)
