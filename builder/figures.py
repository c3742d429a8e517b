"""Trace values a lesson prints: `{{RUN:SELECTION [FIELD]}}`, resolved against the engine's trace.

Every figure in a lesson's text comes from here, so the text cannot disagree with the
charts. A translator can move a reference anywhere within a sentence.

    RUN        on (pre-norm, residual on) | off (pre-norm, residual off) | post (post-norm)
    SELECTION  b0                 the input x₀
               bN                 the stream after block N (1-6)
               bN.attention       block N's attention step: its correction Δ (default) ...
               bN.ffn             ... or, with `.after` / `.before`, the stream after / before it
               bA-B               a series over blocks A..B (A may be 0, the input); needs a FIELD
    FIELD      (none)             the whole vector of the tracked token: [1.0, 0.0, −0.2, 1.0]
               a dimension key    one component: 1.3
               length             the vector's length ‖x‖: 0.4
               correction         the cumulative correction ‖x − x₀‖
               top                (attention steps) the word the tracked token attends to most
               weight             (attention steps) the tracked token's largest attention weight

Examples: `{{on:b0}}`, `{{on:b1.attention}}`, `{{on:b1.ffn.after}}`, `{{off:b6 length}}`,
`{{on:b0-3 geography}}` → 0.3 → 1.3 → 2.3 → 3.4. Figures print to one decimal.
"""

from __future__ import annotations

import re

import numpy as np

from builder.engine import Trace
from builder.i18n import format_number, format_vector
from builder.scenarios import Scenario

RUNS = {"on": "pre-on", "off": "pre-off", "post": "post-on"}  # names in the text → runs of the JSON contract
REF = re.compile(
    r"(?P<run>[a-z]+):b(?P<a>\d)(?:-(?P<b>\d)|\.(?P<sub>attention|ffn)(?:\.(?P<part>delta|after|before))?)?"
    r"(?:\s+(?P<field>[a-z_]+))?"
)
SERIES_ARROW = " → "


class TraceValues:
    """Resolve trace references for one scenario, in one locale."""

    def __init__(self, scenario: Scenario, locale: str):
        self.scenario = scenario
        self.locale = locale

    def trace(self, run: str) -> Trace:
        return self.scenario.traces[RUNS[run]]

    def resolve(self, ref: str) -> tuple[str, str | None]:
        """Return (text, None), or ("", problem) when the reference is wrong."""
        match = REF.fullmatch(ref.strip())
        if not match:
            return "", f"bad trace reference {{{{{ref}}}}}: expected e.g. {{{{on:b1.attention}}}} or {{{{off:b6 length}}}}"
        run, field = match["run"], match["field"]
        if run not in RUNS:
            return "", f"unknown run {run!r} in {{{{{ref}}}}} (use on, off or post)"
        trace, tracked = self.trace(run), self.scenario.tracked
        dims = self.scenario.dimensions
        a = int(match["a"])
        if not 0 <= a <= trace.depth or (match["sub"] and a == 0):
            return "", f"block {a} out of range in {{{{{ref}}}}} (0 is the input, 1 to {trace.depth} are blocks)"
        if match["b"] is not None:  # a series
            b = int(match["b"])
            if not a < b <= trace.depth:
                return "", f"bad block range {a}-{b} in {{{{{ref}}}}}"
            if field is None:
                return "", f"a series needs a field, e.g. {{{{{ref} {dims[0]}}}}}"
            values = [self._field(self._stream(trace, n), trace, field, n) for n in range(a, b + 1)]
            if any(v is None for v in values):
                return "", f"unknown field {field!r} in {{{{{ref}}}}} (use a dimension: {', '.join(dims)}, or length)"
            return SERIES_ARROW.join(format_number(v, self.locale) for v in values), None
        if match["sub"]:
            step = trace.steps[2 * (a - 1) + (0 if match["sub"] == "attention" else 1)]
            if field in ("top", "weight"):
                if step.attention is None:
                    return "", f"{field!r} needs an attention step in {{{{{ref}}}}}"
                row = step.attention[tracked]
                best = int(np.argmax(row))
                return (self.scenario.tokens[best], None) if field == "top" else (format_number(row[best], self.locale, 2), None)
            vector = {"delta": step.delta, "after": step.after, "before": step.before}[match["part"] or "delta"][tracked]
            block = a if (match["part"] or "delta") != "before" else a - 1
        else:
            vector, block = self._stream(trace, a), a
        if field is None:
            return format_vector(vector, self.locale), None
        value = self._field(vector, trace, field, block)
        if value is None:
            return "", f"unknown field {field!r} in {{{{{ref}}}}} (use {', '.join(dims)}, length, correction, top or weight)"
        return format_number(value, self.locale), None

    def _stream(self, trace: Trace, block: int) -> np.ndarray:
        return trace.x0[self.scenario.tracked] if block == 0 else trace.block_outputs()[block - 1][self.scenario.tracked]

    def _field(self, vector, trace: Trace, field: str, block: int):
        if field in self.scenario.dimensions:
            return float(vector[self.scenario.dimensions.index(field)])
        if field == "length":
            return float(np.linalg.norm(vector))
        if field == "correction":
            return float(np.linalg.norm(vector - trace.x0[self.scenario.tracked]))
        return None
