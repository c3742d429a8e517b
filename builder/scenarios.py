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
      "x0": [T][D],                          # the input vectors and the shared weights, not rounded:
      "eps": 1e-05,                          # the engine's inputs (and its norm's variance floor),
      "weights": {"w_q": [D][D], ...},       # so a reader can recompute every figure
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

Every number of a run is rounded to 4 decimals (−0 becomes 0); keys are sorted; the same
scenario file always gives byte-identical JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path

import numpy as np

from builder import engine
from builder.errors import Problem, UserError
from builder.models import D, Model, load_models, matrix
from builder.sources import MAX_TITLE_CHARS, key_line, list_folder, placeholders, read_bytes, read_toml, table_line

JSON_DECIMALS = 4
# Limits, so a scenario cannot make pages of hundreds of megabytes: every page embeds every token's
# trace (T² attention weights per step). The model's own limits keep the numbers far from overflow.
MAX_TOKENS = 12
MAX_TOKEN_CHARS = 80
RUN_KEYS = {"pre-on": ("pre", True), "pre-off": ("pre", False), "post-on": ("post", True)}
KNOWN_KEYS = {"title", "model", "tokens", "tracked", "depth", "residual"}
NAME = re.compile(r"[a-z0-9][a-z0-9-]*")  # as a lesson's slug and the trace-reference grammar's SCENARIO
HELP = "see AUTHORING.md, 'Adding a scenario'"
# A hand-chosen vector this many times shorter or longer than the model's vocabulary is far outside
# what the weights were fitted on: its corrections would be drowned by it, or drown it.
LENGTH_FACTOR = 3.0


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the input tokens, the model they run through and the defaults."""

    name: str
    path: Path
    title: str
    tokens: list[str]
    x0: np.ndarray  # (T, D)
    tracked: int
    dimensions: list[str]  # the model's
    depth: int
    residual: bool
    weights: engine.Weights  # the model's
    model: str = ""
    own_vectors: tuple[bool, ...] = ()  # per token: given in the scenario (True) or from the vocabulary
    warnings: tuple[Problem, ...] = ()

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


def models_folder(scenario_path: Path) -> Path:
    """content/models/, beside the scenarios' folder."""
    return scenario_path.parent.parent / "models"


def load_scenario(path: Path, models: dict[str, Model] | None = None) -> Scenario:
    """Read one scenario file, raising a UserError naming the file, line and key on any mistake.
    `models` are the loaded models by name (default: every model in content/models/, loaded now)."""
    if not NAME.fullmatch(path.stem):  # it names data/<name>.json and is written in trace references
        raise UserError(Problem(path, None, f"file name {path.stem!r} is not a valid scenario name (lowercase "
                                            "letters, digits, hyphens), as `{{NAME/on:b1}}` in a lesson needs"))
    text, data = read_toml(path)

    def bad(key, message, section=None, index=0):
        top = key.split(".")[0].split("[")[0]
        line = key_line(text, key.split(".")[-1], section, index) or key_line(text, top) or table_line(text, top)
        return UserError(Problem(path, line, f"{key}: {message}"))

    def need(table, key, kind, prefix="", section=None, index=0):
        if key not in table:
            raise UserError(Problem(path, None, f"missing key {prefix + key!r} ({HELP})"))
        value = table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise bad(prefix + key, f"expected {_kind_name(kind)}, got {value!r}", section, index)
        return value

    moved = sorted(set(data) & {"weights", "dimensions"})
    if moved:
        raise bad(moved[0], "weights and dimensions belong to the model the scenario runs through "
                            f"(content/models/<name>.toml), named by `model = \"<name>\"`; {HELP}")
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise bad(unknown[0], f"unknown key (a scenario has {', '.join(sorted(KNOWN_KEYS))}; {HELP})")
    title = need(data, "title", str)
    if not 1 <= len(title.strip()) <= MAX_TITLE_CHARS or not title.isprintable():
        raise bad("title", f"a title is 1 to {MAX_TITLE_CHARS} printable characters, got {len(title):,}"
                           + (" (with a line break or control character)" if not title.isprintable() else ""))
    model_name = need(data, "model", str)
    if models is None:
        models, _ = load_models(models_folder(path))
    model = models.get(model_name)
    if model is None:
        if (models_folder(path) / f"{model_name}.toml").is_file():
            raise UserError([])  # the model's own problems are reported for its file
        raise bad("model", f"unknown model {model_name!r} (have: {', '.join(sorted(models)) or 'none'}; models "
                           f"are content/models/<name>.toml, {HELP})")
    tracked_text = need(data, "tracked", str)
    depth = need(data, "depth", int)
    if not 1 <= depth <= engine.MAX_DEPTH:
        raise bad("depth", f"must be 1 to {engine.MAX_DEPTH}, got {depth!r}")
    residual = need(data, "residual", bool)

    items = need(data, "tokens", list)
    if not items or not all(isinstance(t, (str, dict)) for t in items):
        raise bad("tokens", "expected words (\"bank\") or tables ({ text = \"bank\", vector = [...] })")
    if not 2 <= len(items) <= MAX_TOKENS:
        raise bad("tokens", f"a scenario has 2 to {MAX_TOKENS} tokens (each page embeds every token's trace), "
                            f"got {len(items)}")
    tokens, vectors, own = [], [], []
    for i, item in enumerate(items):
        where = f"tokens[{i}]."
        tok = {"text": item} if isinstance(item, str) else item
        word = need(tok, "text", str, where, "tokens", i)
        if not 1 <= len(word) <= MAX_TOKEN_CHARS or not word.isprintable():
            raise bad(f"{where}text", f"a token is 1 to {MAX_TOKEN_CHARS} printable characters, got {word!r}", "tokens", i)
        extra = sorted(set(tok) - {"text", "vector"})
        if extra:
            raise bad(f"{where}{extra[0]}", "unknown key (a token has text and, optionally, vector)", "tokens", i)
        tokens.append(word)
        if "vector" in tok:
            vectors.append(matrix(tok["vector"], (D,), f"{where}vector", lambda k, m, s: bad(k, m, s, i), "tokens"))
            own.append(True)
        elif word in model.vocabulary:
            vectors.append(model.vocabulary[word])
            own.append(False)
        else:
            raise bad("tokens", f"{word!r} is not in the vocabulary of {model.path}: give its vector, "
                                f"{{ text = {json.dumps(word, ensure_ascii=False)}, vector = [4 numbers] }} ({HELP})")
    if tracked_text not in tokens:
        raise bad("tracked", f"{tracked_text!r} is not one of the tokens {tokens!r}")

    x0 = np.array(vectors)
    scenario = Scenario(
        name=path.stem, path=path, title=title, tokens=tokens, x0=x0,
        tracked=tokens.index(tracked_text), dimensions=list(model.dimensions), depth=depth,
        residual=residual, weights=model.weights, model=model.name, own_vectors=tuple(own),
        warnings=tuple(placeholders(path, text) + vector_warnings(path, text, tokens, x0, own, model)),
    )
    for key, trace in scenario.traces.items():  # within the limits above this cannot happen; say so if it does
        if not all(np.isfinite(a).all() for s in trace.steps for a in (s.after, s.delta)):
            raise UserError(Problem(path, None, f"the {key} run produced numbers too large to compute; "
                                                "use smaller weights and vectors"))
    return scenario


def vector_warnings(path: Path, text: str, tokens: list[str], x0: np.ndarray, own: list[bool], model: Model) -> list[Problem]:
    """Warn about token vectors the block cannot make sense of: a zero or constant vector (normalisation
    erases it), two different words with one vector (the block cannot tell them apart), and a length
    far outside the vocabulary's (the range the weights were fitted on)."""
    warnings = []
    low, high = model.fitted_lengths
    seen: dict[tuple, str] = {}

    def warn(i, message):
        line = token_line(text, tokens, i)
        warnings.append(Problem(path, line, f"token {tokens[i]!r}: {message} ({HELP})", "warning"))

    for i, vector in enumerate(x0):
        length = float(np.linalg.norm(vector))
        if length == 0:
            warn(i, "its vector is zero, so it carries no meaning and normalisation leaves it zero")
            continue
        if np.ptp(vector) == 0:
            warn(i, f"all {D} components are equal, so normalisation turns it into zeros: attention and "
                    "the FFN see nothing of it")
        key = tuple(np.round(vector, 6))
        if key in seen and seen[key] != tokens[i]:
            warn(i, f"has the same vector as {seen[key]!r}, so the block cannot tell the two words apart")
        seen.setdefault(key, tokens[i])
        if own[i] and high > 0 and not low / LENGTH_FACTOR <= length <= high * LENGTH_FACTOR:
            warn(i, f"its length {length:.2g} is far outside {low:.2g} to {high:.2g}, the lengths of "
                    f"the vocabulary the weights of {model.path.name} were fitted on")
    return warnings


def token_line(text: str, tokens: list[str], index: int) -> int | None:
    """The line where the `index`-th token is written: its [[tokens]] table, or the line of the
    `tokens = [...]` array that names it."""
    line = key_line(text, "text", "tokens", index)
    start = key_line(text, "tokens")
    if line or start is None:
        return line
    quoted, nth, seen = json.dumps(tokens[index], ensure_ascii=False), tokens[:index].count(tokens[index]), 0
    for number, row in enumerate(text.split("\n")[start - 1:], start):
        seen += row.count(quoted)
        if seen > nth:
            return number
    return start


def _kind_name(kind) -> str:
    return {str: "a string", int: "an integer", bool: "true or false", list: "an array", dict: "a table"}[kind]


def load_scenarios(folder: Path, remember=None, models: dict[str, Model] | None = None) -> tuple[dict[str, Scenario], list[Problem]]:
    """Load every scenario in `folder` (and the models they run through, unless given), collecting
    all problems instead of stopping at the first.

    `remember(path, load, depends)` may return what an earlier `load()` of an unchanged file gave,
    so an unchanged scenario keeps its traces instead of running the engine again."""
    remember = remember or (lambda path, load, depends: load())
    problems = []
    if models is None:
        models, problems = load_models(folder.parent / "models", remember)
    scenarios = {}
    def models_now():  # a scenario is loaded again when a model it may name changes
        return tuple((name, _read_or_none(model.path)) for name, model in sorted(models.items()))

    try:
        paths = list_folder(folder, ".toml")
    except UserError as err:
        return scenarios, problems + err.problems
    for path in paths:
        try:
            scenarios[path.stem] = remember(path, lambda: load_scenario(path, models), models_now)
        except UserError as err:
            problems.extend(err.problems)
    return scenarios, problems


def _read_or_none(path: Path) -> bytes | None:
    try:
        return read_bytes(path)
    except UserError:  # read_bytes refuses a FIFO, which would block
        return None


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
        # The engine's inputs, exactly: with them a reader recomputes every figure (the lessons show how).
        "x0": scenario.x0.tolist(), "eps": engine.EPS,
        "weights": {f.name: getattr(scenario.weights, f.name).tolist() for f in fields(scenario.weights)},
        "runs": {key: trace_to_data(trace) for key, trace in scenario.traces.items()},
    }


def to_json(data) -> str:
    """Serialise stably: sorted keys, no spaces, no NaN."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

