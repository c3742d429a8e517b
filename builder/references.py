"""Trace values a lesson prints: `{{[SCENARIO/]RUN:SELECTION [FIELD]}}`, resolved against the engine's trace.

Every figure in a lesson's text comes from here, so the text cannot disagree with the charts. A
translator can move a reference anywhere within a sentence. The grammar is in builder/steps.py.

Examples: `{{on:b0}}`, `{{on:b1.attention}}`, `{{on:b1.ffn.after}}`, `{{off:b6 length}}`,
`{{on:b0-3 geography}}` → 0.3 → 1.3 → 2.3 → 3.4, `{{off:b2 spread}}`, `{{off:b1.attention.after spread}}`,
`{{money-bank/on:b3 finance}}`, `{{on:b6.final bank_identity}}` (after the stack's final norm) → 0.2.
Figures print to one decimal; attention weights and cosines to two (`{{on:b1.attention weights}}`: the tracked
word's row); `:.2` after a reference asks for two (`{{on:b1.ffn.after geography:.2}}` → 0.35).
"""

from __future__ import annotations

import numpy as np

from builder.engine import Trace, norm
from builder.i18n import format_number, format_vector
from builder.scenarios import Scenario
from builder.steps import RUNS, Ref, parse_ref

SERIES_ARROW = " → "
MIN_LENGTH = 1e-9  # a vector shorter than this has no direction to take a cosine of


class TraceValues:
    """Resolve trace references for a lesson's scenarios (the first is the default), in one locale, or
    with `locale=None` as Python prints them (`-0.1`, `[0.3, 1.3]`): for the output of a lesson's code."""

    def __init__(self, scenarios: dict[str, Scenario], default: str, locale: str | None):
        self.scenarios = scenarios
        self.default = default
        self.locale = locale

    def _number(self, value: float, decimals: int = 1) -> str:
        return f"{value:.{decimals}f}" if self.locale is None else format_number(value, self.locale, decimals)

    def _vector(self, values, decimals: int = 1) -> str:
        if self.locale is None:
            return "[" + ", ".join(self._number(v, decimals) for v in values) + "]"
        return format_vector(values, self.locale, decimals)

    def resolve(self, text: str) -> tuple[str, str | None]:
        """Return (the value as text, None), or ("", why the reference is wrong)."""
        ref = parse_ref(text)
        if isinstance(ref, str):
            return "", ref
        name = ref.scenario or self.default
        scenario = self.scenarios.get(name)
        if scenario is None:
            return "", (f"unknown scenario {name!r} in {{{{{text}}}}} (the lesson's scenarios: "
                        f"{', '.join(self.scenarios) or 'none'}; list it under `scenarios` in the front matter)")
        trace, t, dims, field = scenario.traces[RUNS[ref.run]], scenario.tracked, scenario.dimensions, ref.field
        if not 0 <= ref.first <= trace.depth or (ref.sublayer and ref.first == 0):
            return "", f"block {ref.first} out of range in {{{{{text}}}}} (0 is the input, 1 to {trace.depth} are blocks)"
        if ref.final:
            return self._after_final_norm(scenario, ref)
        known = f"use {', '.join(dims)}, length, correction, bound, spread or cosine"
        if ref.last is not None:  # a series
            if not ref.first < ref.last <= trace.depth:
                return "", f"bad block range {ref.first}-{ref.last} in {{{{{text}}}}}"
            if field is None:
                return "", f"a series needs a field, e.g. {{{{{text} {dims[0]}}}}}"
            if field == "cosine" and not all(self._has_direction(scenario, ref.run, n) for n in range(ref.first, ref.last + 1)):
                return "", (f"'cosine' has no value in {{{{{text}}}}}: the tracked word's vector is zero in one of "
                            "these blocks, so it has no direction")
            values = [self._field(scenario, ref.run, n, self._stream(trace, t, n), field) for n in range(ref.first, ref.last + 1)]
            if any(v is None for v in values):
                return "", f"unknown field {field!r} in {{{{{text}}}}} ({known})"
            if not all(np.isfinite(values)):
                return "", f"{{{{{text}}}}} has no finite value in this scenario"
            return SERIES_ARROW.join(self._number(v, ref.digits(2 if field == "cosine" else 1)) for v in values), None
        if ref.sublayer:
            step = trace.steps[2 * (ref.first - 1) + (0 if ref.sublayer == "attention" else 1)]
            if field in ("top", "weight", "weights"):
                if step.attention is None:
                    return "", f"{field!r} needs an attention step in {{{{{text}}}}}"
                row = step.attention[t]
                if field == "weights":  # the whole row, in the sentence's word order, to two decimals like `weight`
                    return "[" + ", ".join(self._number(w, ref.digits(2)) for w in row) + "]", None
                best = int(np.argmax(row))
                return (scenario.tokens[best], None) if field == "top" else (self._number(row[best], ref.digits(2)), None)
            if field == "cosine":
                return "", f"'cosine' is measured on the stream after whole blocks, e.g. {{{{{ref.run}:b{ref.first} cosine}}}}"
            if ref.part in ("values", "uniform") and field not in (None, "length", "spread", *dims):
                return "", f"field {field!r} has no value for value vectors in {{{{{text}}}}} (use {', '.join(dims)}, length or spread)"
            # every token's: the stream before or after this one sublayer, its corrections, or the value vectors
            # after W_O that attention averages (its corrections are weighted means of these)
            values = step.normed @ scenario.weights.w_v @ scenario.weights.w_o if step.attention is not None else None
            rows = {"delta": step.delta, "after": step.after, "before": step.before, "values": values,
                    "uniform": None if values is None else np.broadcast_to(values.mean(axis=0), values.shape)}[ref.part]
            if field == "spread":
                return self._number(_spread(rows), ref.digits()), None
            vector = rows[t]
            if field in ("correction", "bound") and ref.part == "delta":
                return "", f"{field!r} needs a stream: add .after or .before in {{{{{text}}}}}"
            block = None
        else:
            if field in ("top", "weight", "weights"):
                return "", f"{field!r} needs an attention step, e.g. {{{{{ref.run}:b{max(ref.first, 1)}.attention {field}}}}}"
            vector, block = self._stream(trace, t, ref.first), ref.first
        if field is None:
            return self._vector(vector, ref.digits()), None
        if field == "cosine" and block is not None and not self._has_direction(scenario, ref.run, block):
            return "", (f"'cosine' has no value in {{{{{text}}}}}: the tracked word's vector is zero there, so it has "
                        "no direction (give the scenario's vectors a length, or print `length` instead)")
        value = self._field(scenario, ref.run, block, vector, field)
        if value is None:
            return "", f"unknown field {field!r} in {{{{{text}}}}} ({known})"
        if not np.isfinite(value):
            return "", f"{{{{{text}}}}} has no finite value in this scenario"
        return self._number(value, ref.digits(2 if field == "cosine" else 1)), None

    def _after_final_norm(self, scenario: Scenario, ref: Ref) -> tuple[str, str | None]:
        """`bN.final`: the stream after block N through the stack's final norm (LayerNorm, γ = 1, β = 0), as the
        lesson's `x = final_norm(x)` does after the last block: what the output layer would read."""
        text, trace, t, dims = ref.text, scenario.traces[RUNS[ref.run]], scenario.tracked, scenario.dimensions
        if ref.run == "post":
            return "", (f"{{{{{text}}}}}: post-norm has no final norm (its stream is normalised after every sublayer "
                        f"already); write {{{{post:b{ref.first}{'-' + str(ref.last) if ref.last else ''}"
                        f"{' ' + ref.field if ref.field else ''}}}}}")
        if ref.first == 0:
            return "", f"{{{{{text}}}}}: the final norm comes after a block; use b1.final to b{trace.depth}.final"
        if ref.last is not None and not (ref.first < ref.last <= trace.depth and ref.field):
            return "", (f"bad series {{{{{text}}}}}: blocks A < B ≤ {trace.depth} and a field, "
                        f"e.g. {{{{{ref.run}:b1-{trace.depth}.final length}}}}")
        streams = [norm(trace.block_outputs()[n - 1]) for n in range(ref.first, (ref.last or ref.first) + 1)]  # (T, D) each
        if ref.field is None:
            return self._vector(streams[0][t], ref.digits()), None
        if ref.field in dims:
            values = [float(stream[t, dims.index(ref.field)]) for stream in streams]
        elif ref.field == "length":
            values = [float(np.linalg.norm(stream[t])) for stream in streams]
        elif ref.field == "spread":
            values = [_spread(stream) for stream in streams]
        else:
            return "", (f"field {ref.field!r} has no value after the final norm in {{{{{text}}}}} "
                        f"(use {', '.join(dims)}, length or spread)")
        if not all(np.isfinite(values)):
            return "", f"{{{{{text}}}}} has no finite value in this scenario"
        return SERIES_ARROW.join(self._number(value, ref.digits()) for value in values), None

    def _has_direction(self, scenario: Scenario, run: str, block: int) -> bool:
        """Whether both vectors a cosine compares are long enough to have a direction."""
        vectors = (self._stream(scenario.traces[RUNS[run]], scenario.tracked, block),
                   self._stream(scenario.traces[RUNS["on"]], scenario.tracked, block))
        return all(np.linalg.norm(v) > MIN_LENGTH for v in vectors)

    @staticmethod
    def _stream(trace: Trace, t: int, block: int) -> np.ndarray:
        return trace.x0[t] if block == 0 else trace.block_outputs()[block - 1][t]

    def _field(self, scenario: Scenario, run: str, block: int | None, vector, field: str):
        t = scenario.tracked
        if field in scenario.dimensions:
            return float(vector[scenario.dimensions.index(field)])
        if field == "length":
            return float(np.linalg.norm(vector))
        if field == "correction":
            return float(np.linalg.norm(vector - scenario.x0[t]))
        if field == "bound":  # the triangle inequality's bound on the length: the depth map's bar top, residual on
            return float(np.linalg.norm(scenario.x0[t]) + np.linalg.norm(vector - scenario.x0[t]))
        if field == "spread" and block is not None:
            trace = scenario.traces[RUNS[run]]
            return _spread(trace.x0 if block == 0 else trace.block_outputs()[block - 1])
        if field == "cosine" and block is not None:
            other = self._stream(scenario.traces[RUNS["on"]], t, block)
            return float(vector @ other / (np.linalg.norm(vector) * np.linalg.norm(other)))
        return None


def _spread(x: np.ndarray) -> float:
    """The largest distance between any two tokens' vectors in `x` (T, D)."""
    return float(np.linalg.norm(x[:, None, :] - x[None, :, :], axis=-1).max())
