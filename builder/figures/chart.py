"""The description of a chart every figure kind produces, its label placement, and its SVG rendering.

A chart is data: axes with their ranges, ticks and titles, and marks (a band, bars, points, a line,
value labels), each with its numbers, its class and its hover text. The class names the mark's colour:
`--mark-<class>` in the style sheets (site.css, or the kind's own figure.css), which the SVG, the
legend's swatches and Plotly all read, so the three cannot disagree. The builder draws the chart as
SVG, so it is on the page at first paint, without JavaScript and on paper; lesson.js draws the very
same description as SVG for other states and with Plotly once the reader interacts. Tests compare them.

    {"x": {"range": [lo, hi], "ticks": [[value, label, short label]], "title": str},
     "y": {"range": [lo, hi], "ticks": [[value, label]], "title": str},
     "marks": [{"type": "band" | "bar" | "points" | "line" | "text" | "outline", "class": str, "x": [...], "y": [...],
                "base": [...] (bars), "width": float (bars), "pattern": "hatch" (bars, optional),
                "dash": [on, off] (lines and outlines, optional), "symbol": "circle" | "square" | "diamond" | "ring",
                "gap": float (text, optional: how far a label keeps from its point, default GAP),
                "hover": [...], "text": [...] (text), "position": ["above" | "below" | "left" | "right"] (text)}],
     "legend": [{"class": str, "text": str, "swatch": "bar" | "band" | "line" | "point", "pattern": ..., "dash": ...,
                 "symbol": ...}],           # made by legend(): each entry drawn like the mark it names
     "label": str,                         # what the chart shows, in one sentence (its accessible name)
     "size": "main" | "panel",             # the main chart, or a lower panel beside it
     "frame": {"wide": [w, h, margins], "narrow": [...]},  # optional: a coordinate system of the kind's own
     "title": str}                         # optional: a heading above the chart (a panel's question)

An outline is a rectangle's edge, x: [left, right], y: [bottom, top] (the area a close-up enlarges). A ring
is a hollow circle around where a point is, larger than a point: a path drawn in rings shows around another
path's points where the two coincide.

Value labels are placed by place_labels(): each goes to the first of its candidate positions where, in
the wide and the narrow drawing alike, it overlaps no mark, no other label and stays inside the plot.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from html import escape

# The SVG's own coordinate systems: a wide one for desktops and a narrow one for phones (site.css
# shows one of them), so labels keep a readable size on both.
# A panel (a smaller chart beside the main one) is lower. lesson.js uses the same margins for Plotly.
# The top margin holds the y axis's title, set horizontally above the axis (AXIS_TITLE): Chinese and
# Japanese read sideways when a title is turned 90°.
SIZES = {"main": {"wide": (640, 334, {"l": 58, "r": 14, "t": 32, "b": 46}),
                  "narrow": (360, 314, {"l": 46, "r": 8, "t": 32, "b": 42})},
         "panel": {"wide": (640, 244, {"l": 58, "r": 14, "t": 32, "b": 46}),
                   "narrow": (360, 254, {"l": 46, "r": 8, "t": 32, "b": 42})}}
FONT = {"wide": 12.5, "narrow": 11}  # text size in the SVG's units (site.css), and Plotly's in pixels
GAP = 8  # a value label keeps this far from its point: clear of a marker (radius 5.5) and its outline
CENTRE = GAP + 7  # a label above or below its point has its middle this far from it
HATCH = 5.5  # hatching: one stripe of the background every 5.5 units, 1.5 wide (as the legend's swatch)
RADIUS = 5.5  # point markers
RING = (6.5, 9.0)  # a ring marker's inner and outer radius: clear of a point (and its outline) on top of it
POINT_OUTLINE = 22  # the walkthrough's square around one point: clear of a ring, inside a label's distance (gap 13)
# A mark's arrays that run along its points, one entry per point (a band's and an outline's x and y are
# its edges instead: they have no points).
POINT_FIELDS = ("x", "y", "base", "hover", "text", "position")
POINTED = ("bar", "points", "line", "text")
HALFWAY_RADIUS = 5  # the walkthrough's dot on a point no mark draws: near a path's points (5.5), in another colour
HALFWAY_RING = 12  # and the ring around it where it stands apart from every path (a speck in a wide chart on a phone)
STEPS = (1, 2, 5, 10)  # round tick steps: 1, 2 or 5 times a power of ten
AXIS_TITLE = (4, 11)  # the y axis's title: its left end and its middle, from the drawing's top left corner


def frame(chart: dict, size: str):
    """(width, height, margins) of the chart's coordinate system at `size` ("wide" or "narrow")."""
    if chart.get("frame"):
        width, height, margins = chart["frame"][size]
        return width, height, margins
    return SIZES[chart.get("size", "main")][size]


MIN_TOP = 0.01  # an axis never rises less than this: tick labels show at most three decimals


def nice_ticks(top: float, count: int = 5) -> tuple[float, list[float]]:
    """Return a rounded-up axis top and evenly spaced round ticks (1, 2 or 5 × 10ⁿ apart) from 0 to it."""
    if not top >= MIN_TOP:  # nothing to show at the precision of the labels (or not a number): a plain 0-1 axis
        return 1.0, [0.0, 0.5, 1.0]
    lo, hi, ticks = nice_range(0.0, top, count)
    return hi, ticks


def nice_range(lo: float, hi: float, count: int = 5) -> tuple[float, float, list[float]]:
    """Widen [lo, hi] to round ticks (1, 2 or 5 × 10ⁿ apart), 3 to 8 intervals of them: the step whose
    axis ends closest around the data (on a tie, the coarser one). `count` is the number of intervals
    aimed at, where the data fall in between."""
    if not hi - lo >= MIN_TOP:  # nothing to tell apart at the labels' precision (or not a number): one unit
        centre = round(lo) if math.isfinite(lo) else 0.0
        return centre - 0.5, centre + 0.5, [centre - 0.5, centre, centre + 0.5]
    best = None
    raw = (hi - lo) / count
    for power in (10 ** (math.floor(math.log10(raw)) + k) for k in (-1, 0, 1)):
        for m in STEPS:
            step = m * power
            first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
            if not 3 <= last - first <= 8:
                continue
            span = (last - first) * step
            if best is None or span < best[0] - 1e-9 or abs(span - best[0]) < 1e-9 and step > best[1]:
                best = (span, step, first, last)
    _, step, first, last = best
    ticks = [round(i * step, 10) + 0.0 for i in range(first, last + 1)]
    return ticks[0], ticks[-1], ticks


def tick_decimals(ticks: list[float]) -> int:
    """How many decimals show every tick exactly (0.5 needs one, 2 needs none)."""
    for decimals in range(4):
        if all(abs(round(t, decimals) - t) < 1e-9 for t in ticks):
            return decimals
    return 3


def legend(chart: dict, entries: list[tuple[str, str]]) -> list[dict]:
    """The legend of `chart`: for each (mark class, text), a swatch drawn like that mark (a bar with its
    hatching, a line with its dash, a point with its symbol), in the mark's own colour."""
    out = []
    for css, text in entries:
        mark = next(m for m in chart["marks"] if m["class"].split()[0] == css)
        swatch = {"bar": "bar", "band": "band", "line": "line", "points": "point", "outline": "outline"}[mark["type"]]
        entry = {"class": css, "text": text, "swatch": swatch}
        for key in ("pattern", "dash", "symbol"):
            if mark.get(key):
                entry[key] = mark[key]
        out.append(entry)
    return out


# ---- Label placement ---------------------------------------------------------------------------

def text_box(text: str, size: str) -> tuple[float, float]:
    """A generous estimate of a label's width and height in the SVG's units (digits and a point are
    about 0.6 em; Plotly's text is a little larger relative to the plot, hence the margin)."""
    font = FONT[size] * 1.1
    return len(text) * 0.62 * font + 2, font * 1.05


def label_box(px: float, py: float, position: str, width: float, height: float,
              gap: float = GAP) -> tuple[float, float, float, float]:
    """The box [left, top, right, bottom] a label takes when placed at `position` of the point (px, py),
    `gap` from it (a text mark's own "gap", clear of larger markers such as rings)."""
    centre = gap + CENTRE - GAP
    if position == "above":
        return px - width / 2, py - centre - height / 2, px + width / 2, py - centre + height / 2
    if position == "below":
        return px - width / 2, py + centre - height / 2, px + width / 2, py + centre + height / 2
    if position == "right":
        return px + gap, py - height / 2, px + gap + width, py + height / 2
    return px - gap - width, py - height / 2, px - gap, py + height / 2


def _scales(chart: dict, size: str):
    width, height, m = frame(chart, size)
    (x_lo, x_hi), (y_lo, y_hi) = chart["x"]["range"], chart["y"]["range"]
    left, right, top, bottom = m["l"], width - m["r"], m["t"], height - m["b"]
    return (lambda x: left + (x - x_lo) / (x_hi - x_lo) * (right - left),
            lambda y: bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - top),
            (left, top, right, bottom))


def _obstacles(chart: dict, size: str) -> tuple[list, list]:
    """Every mark's boxes and line segments in the SVG's units (text marks are placed, not obstacles)."""
    sx, sy, _ = _scales(chart, size)
    boxes, segments = [], []
    for mark in chart["marks"]:
        kind = mark["type"]
        if kind == "band":
            (a, b), h = mark["x"], mark["y"][0]
            boxes.append((sx(a), sy(h) - 1, sx(b), sy(0)))
        elif kind == "bar":
            half = mark["width"] / 2
            for i, (x, y) in enumerate(zip(mark["x"], mark["y"])):
                base = mark["base"][i] if mark.get("base") else 0.0
                boxes.append((sx(x - half), sy(base + y), sx(x + half), sy(base)))
        elif kind in ("points", "line"):
            points = [(sx(x), sy(y)) for x, y in zip(mark["x"], mark["y"])]
            r = (RING[1] if mark.get("symbol") == "ring" else RADIUS) + 1.5
            boxes += [(px - r, py - r, px + r, py + r) for px, py in points]
            if kind == "line":
                segments += list(zip(points, points[1:]))
    return boxes, segments


def _overlaps(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0 and min(a[3], b[3]) - max(a[1], b[1]) > 0


def _crosses(box, segment) -> bool:
    """Whether a line segment passes through a box (Liang–Barsky clipping), with a pixel of room."""
    (x0, y0), (x1, y1) = segment
    left, top, right, bottom = box[0] - 1.5, box[1] - 1.5, box[2] + 1.5, box[3] + 1.5
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def place_labels(chart: dict) -> dict:
    """Give every label of the chart's text marks a position: the first of its mark's `candidates`
    (default: above, below, right, left) that is clear of every mark and every label placed before it,
    inside the plot, in both drawings. A mark with `optional` drops labels that fit nowhere (a crowded
    path keeps its clear ones); any other label keeps its first choice, and the tests catch the overlap."""
    sizes = ("wide", "narrow")
    geometry = {size: (_scales(chart, size), *_obstacles(chart, size)) for size in sizes}
    placed = {size: [] for size in sizes}
    for mark in chart["marks"]:
        if mark["type"] != "text" or mark.get("position"):
            continue
        candidates = mark.pop("candidates", ["above", "below", "right", "left"])
        keep, positions = [], []
        for i, (x, y, text) in enumerate(zip(mark["x"], mark["y"], mark["text"])):
            choice = None
            for position in candidates:
                boxes = {}
                for size in sizes:
                    (sx, sy, plot), obstacles, segments = geometry[size]
                    box = label_box(sx(x), sy(y), position, *text_box(text, size), mark.get("gap", GAP))
                    inside = box[0] >= plot[0] and box[2] <= plot[2] + 4 and box[1] >= plot[1] - 8 and box[3] <= plot[3]
                    clear = inside and not any(_overlaps(box, o) for o in obstacles + placed[size]) and \
                        not any(_crosses(box, s) for s in segments)
                    if not clear:
                        break
                    boxes[size] = box
                else:
                    choice = position
                    for size in sizes:
                        placed[size].append(boxes[size])
                    break
            if choice is None and not mark.get("optional"):
                choice = candidates[0]
            if choice is not None:
                keep.append(i)
                positions.append(choice)
        for key in ("x", "y", "text"):
            mark[key] = [mark[key][i] for i in keep]
        mark["position"] = positions
        mark.pop("optional", None)
    return chart


# ---- SVG ---------------------------------------------------------------------------------------

def f(v: float) -> str:
    """A coordinate to one decimal as lesson.js's toFixed(1) writes it: an exact tie (94.25) away from zero,
    where Python's format would round it to even."""
    return str(Decimal(v).quantize(TENTH, ROUND_HALF_UP)).rstrip("0").rstrip(".")


TENTH = Decimal("0.1")


def hatch_path(x: float, y: float, w: float, h: float) -> str:
    """Diagonal stripes (/) across the box, HATCH apart: the lines x + y = c clipped to it. lesson.js
    draws the same (hatch())."""
    step = HATCH * math.sqrt(2)
    parts = []
    c = x + y + step / 2
    while c < x + w + y + h:
        # where the line x + y = c enters and leaves the box, going up and to the right
        x0, y0 = max(x, c - (y + h)), min(y + h, c - x)
        x1, y1 = min(x + w, c - y), max(y, c - (x + w))
        parts.append(f"M{f(x0)} {f(y0)}L{f(x1)} {f(y1)}")
        c += step
    return "".join(parts)


def render_svg(chart: dict, size: str, highlight: list | None = None) -> str:
    """Draw `chart` as an SVG of `size` ("wide" or "narrow"), styled by site.css, with a walkthrough's
    outline when `highlight` is given (shown only where scripts run): [x centre, width, y0, y1], an area in
    the axes' units, or [x, y], one point, outlined by a square POINT_OUTLINE across whatever the scale, or
    [x, y, "halfway"], a point no mark draws (the stream after a block's attention): a dot in the outline's
    colour, no square (on a phone the square would take in the block's end point beside it too); or
    [x, y, "ringed"], such a point far from every path (a chart whose paths are in a close-up): the dot and a
    ring around it, so a reader finds it at a phone's scale.
    templates/assets/lesson.js draws the same SVG for other states until Plotly takes over: keep the two
    in step (tests/test_browser.py compares them)."""
    width, height, m = frame(chart, size)
    to_x, to_y, (left, top, right, bottom) = _scales(chart, size)
    # Positions fall on whole units of the viewBox (a fraction of a CSS pixel, at most, at either size):
    # the drawing looks the same and its decimals no longer count against the page's bytes. Half up, as
    # lesson.js's Math.round.
    sx, sy = (lambda x: math.floor(to_x(x) + 0.5)), (lambda y: math.floor(to_y(y) + 0.5))

    # The box around it carries the chart's accessible name; the drawing itself is decoration to AT.
    # Where a text anchors is site.css's (.tick, .tick-y, .axis-title-y, .value), not an attribute on each.
    out = [f'<svg class="chart-svg chart-svg-{size}" viewBox="0 0 {width} {height}" aria-hidden="true" focusable="false">']
    out.append('<g class="axes">')
    for value, label in chart["y"]["ticks"]:
        y = f(sy(value))
        out.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y}" y2="{y}"/>')
        out.append(f'<text class="tick tick-y" x="{left - 6}" y="{y}">'
                   f"{escape(label)}</text>")
    for value, label, short in chart["x"]["ticks"]:
        out.append(f'<text class="tick" x="{f(sx(value))}" y="{bottom + 16}">'
                   f"{escape(short if size == 'narrow' else label)}</text>")
    out.append(f'<line class="axis" x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}"/>')
    out.append(f'<text class="axis-title" x="{f((left + right) / 2)}" y="{height - 6}">'
               f'{escape(chart["x"]["title"])}</text>')
    # The y title reads across, above the tick labels (upright characters), never turned on its side.
    out.append(f'<text class="axis-title axis-title-y" x="{AXIS_TITLE[0]}" y="{AXIS_TITLE[1]}">{escape(chart["y"]["title"])}</text>')
    out.append("</g>")
    # Hover titles only in the wide drawing: the narrow one is a phone's, which has no pointer to hover
    # with (the values are in the figure's text twin), and a page's own bytes are budgeted.
    for mark in chart["marks"]:
        out.append(_mark(mark, sx, sy, wide=size == "wide"))
    if highlight and len(highlight) == 3:
        if highlight[2] == "ringed":
            out.append(f'<circle class="highlight-ring needs-js" cx="{f(sx(highlight[0]))}" cy="{f(sy(highlight[1]))}" '
                       f'r="{HALFWAY_RING}"/>')
        out.append(f'<circle class="highlight-point needs-js" cx="{f(sx(highlight[0]))}" cy="{f(sy(highlight[1]))}" '
                   f'r="{HALFWAY_RADIUS}"/>')
    elif highlight and len(highlight) == 2:
        half = POINT_OUTLINE / 2
        out.append(f'<rect class="highlight needs-js" x="{f(sx(highlight[0]) - half)}" y="{f(sy(highlight[1]) - half)}" '
                   f'width="{POINT_OUTLINE}" height="{POINT_OUTLINE}"/>')
    elif highlight:
        x, w, y0, y1 = highlight
        out.append(f'<rect class="highlight needs-js" x="{f(sx(x - w / 2))}" y="{f(sy(y1))}" '
                   f'width="{f(sx(x + w / 2) - sx(x - w / 2))}" height="{f(sy(y0) - sy(y1))}"/>')
    out.append("</svg>")
    return "".join(out)


def _mark(mark: dict, sx, sy, wide: bool = True) -> str:
    kind, css = mark["type"], escape(mark["class"])
    colour = escape(mark["class"].split()[0])
    style = f' style="--c: var(--mark-{colour})"' if kind != "text" else ""
    parts = [f'<g class="mark mark-{kind} {css}" data-mark="{css}"{style}>']
    hover = (mark.get("hover") or []) if wide else []
    # The values each shape draws (data-x, data-y, …) go with the hover titles, in the wide drawing only: the
    # browser tests read them there, and the narrow one draws the same values.
    def data(attrs: str) -> str:
        return attrs if wide else ""
    if kind == "band":
        (a, b), h = mark["x"], mark["y"][0]
        band_value = f' data-y="{h}"'
        parts.append(f'<rect class="fill" x="{f(sx(a))}" y="{f(sy(h))}" width="{f(sx(b) - sx(a))}" '
                     f'height="{f(sy(0) - sy(h))}"{data(band_value)}/>')
        parts.append(f'<line class="edge" x1="{f(sx(a))}" x2="{f(sx(b))}" y1="{f(sy(h))}" y2="{f(sy(h))}"/>')
    elif kind == "bar":
        half = mark["width"] / 2
        for i, (x, y) in enumerate(zip(mark["x"], mark["y"])):
            base = mark["base"][i] if mark.get("base") else 0.0
            top, low = sy(base + y), sy(base)
            x0, w, h = sx(x - half), sx(x + half) - sx(x - half), max(low - top, 0.5)
            title = f"<title>{escape(hover[i])}</title>" if i < len(hover) else ""
            bar_values = f' data-x="{x}" data-y="{y}" data-base="{base}"'
            parts.append(f'<rect x="{f(x0)}" y="{f(top)}" width="{f(w)}" height="{f(h)}"'
                         f'{data(bar_values)}>{title}</rect>')
            if mark.get("pattern") == "hatch":
                parts.append(f'<path class="hatch" d="{hatch_path(x0, top, w, h)}"/>')
    elif kind in ("points", "line"):
        points = [(sx(x), sy(y)) for x, y in zip(mark["x"], mark["y"])]
        if kind == "line" and len(points) > 1:
            dash = f' stroke-dasharray="{mark["dash"][0]} {mark["dash"][1]}"' if mark.get("dash") else ""
            parts.append('<polyline class="stroke" points="' + " ".join(f"{f(x)},{f(y)}" for x, y in points) + f'"{dash}/>')
        for i, ((px, py), x, y) in enumerate(zip(points, mark["x"], mark["y"])):
            title = f"<title>{escape(hover[i])}</title>" if i < len(hover) else ""
            ring = " ring" if mark.get("symbol") == "ring" else ""
            point_values = f' data-x="{x}" data-y="{y}"'
            parts.append(f'<path class="point{ring}" d="{_symbol(mark.get("symbol"), px, py)}"{data(point_values)}>{title}</path>')
    elif kind == "outline":
        (x0, x1), (y0, y1) = mark["x"], mark["y"]
        dash = f' stroke-dasharray="{mark["dash"][0]} {mark["dash"][1]}"' if mark.get("dash") else ""
        corners = [(sx(x0), sy(y0)), (sx(x1), sy(y0)), (sx(x1), sy(y1)), (sx(x0), sy(y1)), (sx(x0), sy(y0))]
        parts.append('<polyline class="stroke" points="' + " ".join(f"{f(x)},{f(y)}" for x, y in corners) + f'"{dash}/>')
    elif kind == "text":
        for x, y, text, position in zip(mark["x"], mark["y"], mark["text"], mark["position"]):
            px, py, anchor = _text_anchor(sx(x), sy(y), position, mark.get("gap", GAP))
            values = data(f' data-x="{x}" data-y="{y}" data-position="{position}"')
            parts.append(f'<text class="value" x="{f(px)}" y="{f(py)}" text-anchor="{anchor}"{values}>{escape(text)}</text>')
    parts.append("</g>")
    return "".join(parts)


def _symbol(symbol: str | None, px: float, py: float) -> str:
    r = RADIUS
    if symbol == "ring":  # the outer circle one way round, the inner the other: the middle stays empty
        a, b = RING
        return (f"M{f(px - b)} {f(py)}a{f(b)} {f(b)} 0 1 0 {f(2 * b)} 0a{f(b)} {f(b)} 0 1 0 {f(-2 * b)} 0Z"
                f"M{f(px - a)} {f(py)}a{f(a)} {f(a)} 0 1 1 {f(2 * a)} 0a{f(a)} {f(a)} 0 1 1 {f(-2 * a)} 0Z")
    if symbol == "diamond":
        return f"M{f(px)} {f(py - r)}L{f(px + r)} {f(py)}L{f(px)} {f(py + r)}L{f(px - r)} {f(py)}Z"
    if symbol == "square":
        return f"M{f(px - 4.5)} {f(py - 4.5)}h9v9h-9Z"
    return f"M{f(px - r)} {f(py)}a{f(r)} {f(r)} 0 1 0 {f(2 * r)} 0a{f(r)} {f(r)} 0 1 0 {f(-2 * r)} 0Z"


def _text_anchor(px: float, py: float, position: str, gap: float = GAP) -> tuple[float, float, str]:
    """Where a label's text goes (its anchor point, vertically centred) for a position of its point,
    as label_box() reckons it."""
    centre = gap + CENTRE - GAP
    if position == "above":
        return px, py - centre, "middle"
    if position == "below":
        return px, py + centre, "middle"
    if position == "right":
        return px + gap, py, "start"
    return px - gap, py, "end"
