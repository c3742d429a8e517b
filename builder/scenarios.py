"""Scenarios: read and validate the TOML files under content/scenarios/, run the engine, shape traces as JSON.

Trace JSON contract (version 1), embedded in each lesson page as
`<script type="application/json" id="trace-data">`:

    {
      "version": 1,
      "scenario": "river-bank",             # file stem
      "title": "by the river bank",
      "tokens": ["by", "the", "river", "bank"],
      "tracked": 3,                          # index into tokens
      "dimensions": ["geography", ...],      # keys; the page carries their translated labels
      "default": {"depth": 3, "residual": true},
      "max_depth": 6,
      "runs": {                              # every run is MAX_DEPTH blocks deep; a shallower
        "pre-on":  RUN,                      # depth is a prefix because all blocks share weights
        "pre-off": RUN,
        "post-on": RUN
      }
    }
    RUN = {
      "norm": "pre" | "post", "residual": true | false,
      "x0": [T][D],
      "steps": [ {"block": 1-based, "sublayer": "attention" | "ffn",
                  "before": [T][D], "normed": [T][D], "delta": [T][D], "after": [T][D],
                  "attention": [T][T] (attention steps only; row i = token i's weights)} ],
      "blocks": {"cumulative": [depth][T],   # ‖stream − x₀‖ after each block (green bars)
                 "output": [depth][T],       # ‖latest FFN output‖ after each block (red bars)
                 "length": [depth][T]}       # ‖stream‖ after each block
    }

Every number is rounded to 4 decimals (−0 becomes 0); keys are sorted; the same
scenario file always gives byte-identical JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from builder import engine
from builder.errors import Problem, UserError
from builder.sources import key_line, read_toml
from builder.steps import FIELDS, SUBLAYERS

JSON_DECIMALS = 4
# Limits, so a scenario cannot make pages of hundreds of megabytes or overflow the engine: every page
# embeds every token's trace (T² attention weights per step), and the numbers stay far from overflow.
MAX_TOKENS = 12
MAX_HIDDEN = 64
MAX_TOKEN_CHARS = 80
MAX_MAGNITUDE = 1000.0
# Words of the trace-reference grammar a dimension may not be named (it would shadow them).
RESERVED_FIELDS = set(FIELDS) | {"delta", "after", "before", *SUBLAYERS}
RUN_KEYS = {"pre-on": ("pre", True), "pre-off": ("pre", False), "post-on": ("post", True)}
WEIGHT_SHAPES = {  # D = 4 model dimensions, H = FFN width (any, from w_1)
    "w_q": ("D", "D"), "w_k": ("D", "D"), "w_v": ("D", "D"), "w_o": ("D", "D"),
    "w_1": ("D", "H"), "b_1": ("H",), "w_2": ("H", "D"), "b_2": ("D",),
}
D = 4


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the input tokens, the shared weights and the defaults."""

    name: str
    path: Path
    title: str
    tokens: list[str]
    x0: np.ndarray  # (T, D)
    tracked: int
    dimensions: list[str]
    depth: int
    residual: bool
    weights: engine.Weights

    def run(self, norm_position: str, residual: bool) -> engine.Trace:
        """Run the engine to the maximum depth; shallower depths are prefixes."""
        return engine.run(self.x0, self.weights, engine.MAX_DEPTH, residual=residual, norm_position=norm_position)

    @cached_property
    def traces(self) -> dict[str, engine.Trace]:
        """Every run the pages need, keyed as in the JSON contract; run once per scenario."""
        return {key: self.run(norm, residual) for key, (norm, residual) in RUN_KEYS.items()}

    @cached_property
    def data(self) -> dict:
        """The scenario and all its runs as the JSON contract, shaped once for every page that embeds it."""
        return scenario_to_data(self)

    @cached_property
    def data_json(self) -> str:
        return to_json(self.data)


def load_scenario(path: Path) -> Scenario:
    """Read one scenario file, raising a UserError naming the file, line and key on any mistake."""
    text, data = read_toml(path)

    def bad(key, message, section=None, index=0):
        return UserError(Problem(path, key_line(text, key.split(".")[-1], section, index), f"{key}: {message}"))

    def need(table, key, kind, prefix="", section=None, index=0):
        if key not in table:
            raise UserError(Problem(path, None, f"missing key {prefix + key!r}"))
        value = table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise bad(prefix + key, f"expected {_kind_name(kind)}, got {value!r}", section, index)
        return value

    title = need(data, "title", str)
    tracked_text = need(data, "tracked", str)
    depth = need(data, "depth", int)
    if not 1 <= depth <= engine.MAX_DEPTH:
        raise bad("depth", f"must be 1 to {engine.MAX_DEPTH}, got {depth!r}")
    residual = need(data, "residual", bool)
    dimensions = need(data, "dimensions", list)
    if len(dimensions) != D or not all(isinstance(d, str) and re.fullmatch(r"[a-z][a-z0-9_]{0,31}", d) for d in dimensions):
        raise bad("dimensions", f"expected {D} lowercase keys, got {dimensions!r}")
    if len(set(dimensions)) != D:
        raise bad("dimensions", f"each dimension needs its own name, got {dimensions!r}")
    reserved = sorted(set(dimensions) & RESERVED_FIELDS)
    if reserved:
        raise bad("dimensions", f"{reserved[0]!r} is a field of trace references ({{{{on:b6 {reserved[0]}}}}}); "
                                f"name the dimension otherwise (reserved: {', '.join(sorted(RESERVED_FIELDS))})")

    tokens_table = need(data, "tokens", list)
    if not tokens_table or not all(isinstance(t, dict) for t in tokens_table):
        raise bad("tokens", "expected one or more [[tokens]] tables")
    if not 2 <= len(tokens_table) <= MAX_TOKENS:
        raise bad("tokens", f"a scenario has 2 to {MAX_TOKENS} tokens (each page embeds every token's trace), "
                            f"got {len(tokens_table)}")
    tokens, vectors = [], []
    for i, tok in enumerate(tokens_table):
        where = f"tokens[{i}]."
        word = need(tok, "text", str, where, "tokens", i)
        if not 1 <= len(word) <= MAX_TOKEN_CHARS or not word.isprintable():
            raise bad(f"{where}text", f"a token is 1 to {MAX_TOKEN_CHARS} printable characters, got {word!r}", "tokens", i)
        tokens.append(word)
        vectors.append(_matrix(tok.get("vector"), (D,), f"{where}vector", lambda k, m, s: bad(k, m, s, i), "tokens"))
    if tracked_text not in tokens:
        raise bad("tracked", f"{tracked_text!r} is not one of the tokens {tokens!r}")

    weights_table = need(data, "weights", dict)
    hidden = None
    arrays = {}
    for key, dims in WEIGHT_SHAPES.items():
        if key not in weights_table:
            raise UserError(Problem(path, None, f"missing key 'weights.{key}'"))
        value = weights_table[key]
        if key == "w_1" and isinstance(value, list) and value and isinstance(value[0], list):
            hidden = len(value[0])
            if not 1 <= hidden <= MAX_HIDDEN:
                raise bad("weights.w_1", f"the FFN has 1 to {MAX_HIDDEN} hidden units, got {hidden}", "weights")
        shape = tuple(D if d == "D" else (hidden or 0) for d in dims)
        arrays[key] = _matrix(value, shape, f"weights.{key}", bad, "weights")
    unknown = sorted(set(weights_table) - set(WEIGHT_SHAPES))
    if unknown:
        raise bad(f"weights.{unknown[0]}", "unknown weight (expected " + ", ".join(WEIGHT_SHAPES) + ")", "weights")

    scenario = Scenario(
        name=path.stem, path=path, title=title, tokens=tokens, x0=np.array(vectors),
        tracked=tokens.index(tracked_text), dimensions=dimensions, depth=depth,
        residual=residual, weights=engine.Weights(**arrays),
    )
    for key, trace in scenario.traces.items():  # within the limits above this cannot happen; say so if it does
        if not all(np.isfinite(a).all() for s in trace.steps for a in (s.after, s.delta)):
            raise UserError(Problem(path, None, f"the {key} run produced numbers too large to compute; "
                                                "use smaller weights and vectors"))
    return scenario


def _kind_name(kind) -> str:
    return {str: "a string", int: "an integer", bool: "true or false", list: "an array", dict: "a table"}[kind]


def _matrix(value, shape, key, bad, section):
    """Check a nested list of finite numbers has `shape` and return it as an array."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise bad(key, f"expected shape {_shape_text(shape)} of numbers (rows of equal length, "
                       f"each within ±{MAX_MAGNITUDE:g})", section) from None
    if arr.shape != shape or 0 in shape:
        got = _shape_text(arr.shape) if value is not None else "nothing"
        raise bad(key, f"expected shape {_shape_text(shape)}, got {got}", section)
    if not np.isfinite(arr).all():
        raise bad(key, "contains NaN or infinity", section)
    if (np.abs(arr) > MAX_MAGNITUDE).any():
        raise bad(key, f"every number must be within ±{MAX_MAGNITUDE:g}, got {np.abs(arr).max():g}", section)
    return arr


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ")"


def load_scenarios(folder: Path, remember=None) -> tuple[dict[str, Scenario], list[Problem]]:
    """Load every scenario in `folder`, collecting all problems instead of stopping at the first.

    `remember(path, load, depends)` may return what an earlier `load()` of an unchanged file gave,
    so an unchanged scenario keeps its traces instead of running the engine again."""
    remember = remember or (lambda path, load, depends: load())
    scenarios, problems = {}, []
    for path in sorted(folder.glob("*.toml")):
        try:
            scenarios[path.stem] = remember(path, lambda: load_scenario(path), ())
        except UserError as err:
            problems.extend(err.problems)
    return scenarios, problems


def _rounded(a) -> list:
    """Round to JSON_DECIMALS and turn −0 into 0 so equal values serialise equally."""
    return (np.round(np.asarray(a, dtype=float), JSON_DECIMALS) + 0.0).tolist()


def trace_to_data(trace: engine.Trace) -> dict:
    """Shape one trace as the RUN object of the JSON contract."""
    steps = []
    for s in trace.steps:
        step = {"block": s.block, "sublayer": s.sublayer, "before": _rounded(s.before),
                "normed": _rounded(s.normed), "delta": _rounded(s.delta), "after": _rounded(s.after)}
        if s.attention is not None:
            step["attention"] = _rounded(s.attention)
        steps.append(step)
    return {
        "norm": trace.norm_position, "residual": trace.residual, "x0": _rounded(trace.x0), "steps": steps,
        "blocks": {"cumulative": _rounded(trace.cumulative_correction()),
                   "output": _rounded(trace.latest_output_size()),
                   "length": _rounded(trace.stream_length())},
    }


def scenario_to_data(scenario: Scenario) -> dict:
    """Shape a scenario and all its runs as the JSON contract."""
    return {
        "version": 1, "scenario": scenario.name, "title": scenario.title, "tokens": scenario.tokens,
        "tracked": scenario.tracked, "dimensions": scenario.dimensions,
        "default": {"depth": scenario.depth, "residual": scenario.residual},
        "max_depth": engine.MAX_DEPTH,
        "runs": {key: trace_to_data(trace) for key, trace in scenario.traces.items()},
    }


def to_json(data) -> str:
    """Serialise stably: sorted keys, no spaces, no NaN."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

