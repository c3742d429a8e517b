"""The description of a chart every figure kind produces, and its SVG rendering.

A chart is data: axes with their ranges, ticks and titles, and marks (a band, bars, points, a line,
value labels), each with its numbers, its class (which colour of site.css it takes) and its hover
text. The builder draws it as SVG, so the chart is on the page at first paint, without JavaScript
and on paper; lesson.js draws the very same description with Plotly once the reader interacts. A
test compares the two.

    {"x": {"range": [lo, hi], "ticks": [[value, label, short label]], "title": str},
     "y": {"range": [0, top], "ticks": [[value, label]], "title": str},
     "marks": [{"type": "band" | "bar" | "points" | "line" | "text", "class": str, "x": [...], "y": [...],
                "base": [...] (bars), "width": float (bars), "hover": [...], "text": [...] (text)}],
     "label": str,                         # what the chart shows, in one sentence (its accessible name)
     "size": "main" | "panel",             # the main chart, or a lower panel beside it
     "title": str}                         # optional: a heading above the chart (a panel's question)
"""

from __future__ import annotations

import math
from html import escape

# The SVG's own coordinate systems: a wide one for desktops and a narrow one for phones (site.css
# shows one of them), so labels keep a readable size on both.
# A panel (a smaller chart beside the main one) is lower. lesson.js uses the same margins for Plotly.
SIZES = {"main": {"wide": (640, 320, {"l": 58, "r": 14, "t": 18, "b": 46}),
                  "narrow": (360, 300, {"l": 46, "r": 8, "t": 18, "b": 42})},
         "panel": {"wide": (640, 230, {"l": 58, "r": 14, "t": 18, "b": 46}),
                   "narrow": (360, 240, {"l": 46, "r": 8, "t": 18, "b": 42})}}


MIN_TOP = 0.01  # an axis never rises less than this: tick labels show at most three decimals


def nice_ticks(top: float, count: int = 5) -> tuple[float, list[float]]:
    """Return a rounded-up axis top and evenly spaced ticks from 0 to it."""
    if not top >= MIN_TOP:  # nothing to show at the precision of the labels (or not a number): a plain 0-1 axis
        return 1.0, [0.0, 0.5, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    ticks = [round(i * step, 10) for i in range(int(math.ceil(top / step - 1e-9)) + 1)]
    return ticks[-1], ticks


def tick_decimals(ticks: list[float]) -> int:
    """How many decimals show every tick exactly (0.5 needs one, 2.5 needs one, 2 needs none)."""
    for decimals in range(4):
        if all(abs(round(t, decimals) - t) < 1e-9 for t in ticks):
            return decimals
    return 3


def render_svg(chart: dict, size: str, highlight: list | None = None) -> str:
    """Draw `chart` as an SVG of `size` ("wide" or "narrow"), styled by site.css, with a walkthrough's
    outline when `highlight` ([x centre, width, y0, y1]) is given (shown only where scripts run).
    templates/assets/lesson.js draws the same SVG for other states until Plotly takes over: keep the two
    in step (tests/test_browser.py compares them)."""
    width, height, m = SIZES[chart.get("size", "main")][size]
    x_lo, x_hi = chart["x"]["range"]
    y_lo, y_hi = chart["y"]["range"]
    left, right, top, bottom = m["l"], width - m["r"], m["t"], height - m["b"]

    def sx(x):
        return left + (x - x_lo) / (x_hi - x_lo) * (right - left)

    def sy(y):
        return bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - top)

    def f(v):
        return f"{v:.1f}".rstrip("0").rstrip(".")

    # The box around it carries the chart's accessible name; the drawing itself is decoration to AT.
    out = [f'<svg class="chart-svg chart-svg-{size}" viewBox="0 0 {width} {height}" aria-hidden="true" focusable="false">']
    out.append('<g class="axes">')
    for value, label in chart["y"]["ticks"]:
        y = f(sy(value))
        out.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y}" y2="{y}"/>')
        out.append(f'<text class="tick" x="{left - 6}" y="{y}" text-anchor="end" dominant-baseline="middle">'
                   f"{escape(label)}</text>")
    for value, label, short in chart["x"]["ticks"]:
        out.append(f'<text class="tick" x="{f(sx(value))}" y="{bottom + 16}" text-anchor="middle">'
                   f"{escape(short if size == 'narrow' else label)}</text>")
    out.append(f'<line class="axis" x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}"/>')
    out.append(f'<text class="axis-title" x="{f((left + right) / 2)}" y="{height - 6}" text-anchor="middle">'
               f'{escape(chart["x"]["title"])}</text>')
    out.append(f'<text class="axis-title" transform="translate(13 {f((top + bottom) / 2)}) rotate(-90)" '
               f'text-anchor="middle">{escape(chart["y"]["title"])}</text>')
    out.append("</g>")
    for mark in chart["marks"]:
        out.append(_mark(mark, sx, sy, f))
    if highlight:
        x, w, y0, y1 = highlight
        out.append(f'<rect class="highlight needs-js" x="{f(sx(x - w / 2))}" y="{f(sy(y1))}" '
                   f'width="{f(sx(x + w / 2) - sx(x - w / 2))}" height="{f(sy(y0) - sy(y1))}"/>')
    out.append("</svg>")
    return "".join(out)


def _mark(mark: dict, sx, sy, f) -> str:
    kind, css = mark["type"], escape(mark["class"])
    parts = [f'<g class="mark mark-{kind} {css}" data-mark="{css}">']
    hover = mark.get("hover") or []
    if kind == "band":
        (a, b), h = mark["x"], mark["y"][0]
        parts.append(f'<rect class="fill" x="{f(sx(a))}" y="{f(sy(h))}" width="{f(sx(b) - sx(a))}" '
                     f'height="{f(sy(0) - sy(h))}" data-y="{h}"/>')
        parts.append(f'<line class="edge" x1="{f(sx(a))}" x2="{f(sx(b))}" y1="{f(sy(h))}" y2="{f(sy(h))}"/>')
    elif kind == "bar":
        half = mark["width"] / 2
        for i, (x, y) in enumerate(zip(mark["x"], mark["y"])):
            base = mark["base"][i] if mark.get("base") else 0.0
            top, low = sy(base + y), sy(base)
            title = f"<title>{escape(hover[i])}</title>" if i < len(hover) else ""
            parts.append(f'<rect x="{f(sx(x - half))}" y="{f(top)}" width="{f(sx(x + half) - sx(x - half))}" '
                         f'height="{f(max(low - top, 0.5))}" data-x="{x}" data-y="{y}" data-base="{base}">{title}</rect>')
    elif kind in ("points", "line"):
        points = [(sx(x), sy(y)) for x, y in zip(mark["x"], mark["y"])]
        if kind == "line" and len(points) > 1:
            parts.append('<polyline class="stroke" points="' + " ".join(f"{f(x)},{f(y)}" for x, y in points) + '"/>')
        for i, ((px, py), x, y) in enumerate(zip(points, mark["x"], mark["y"])):
            title = f"<title>{escape(hover[i])}</title>" if i < len(hover) else ""
            r = 5.5
            shape = (f"M{f(px)} {f(py - r)}L{f(px + r)} {f(py)}L{f(px)} {f(py + r)}L{f(px - r)} {f(py)}Z"
                     if mark.get("symbol") == "diamond" else
                     f"M{f(px - 4.5)} {f(py - 4.5)}h9v9h-9Z" if mark.get("symbol") == "square" else
                     f"M{f(px - r)} {f(py)}a{r} {r} 0 1 0 {2 * r} 0a{r} {r} 0 1 0 {-2 * r} 0Z")
            parts.append(f'<path class="point" d="{shape}" data-x="{x}" data-y="{y}">{title}</path>')
    elif kind == "text":
        below = mark.get("anchor") == "below"
        for x, y, text in zip(mark["x"], mark["y"], mark["text"]):
            parts.append(f'<text class="value" x="{f(sx(x))}" y="{f(sy(y) + (14 if below else -5))}" '
                         f'text-anchor="middle" data-x="{x}" data-y="{y}">{escape(text)}</text>')
    parts.append("</g>")
    return "".join(parts)
