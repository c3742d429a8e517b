"""Models: the one block the scenarios run through, read from content/models/<name>.toml.

A model is stored once and named by every scenario that runs through it (`model = "bank-block"`):

    dimensions = ["geography", "finance", "function_word", "bank_identity"]   # what the 4 axes mean

    [vocabulary]                   # the words the weights were fitted with, and their vectors
    river = [0.99, -0.20, 0.01, -0.01]
    bank = [0.30, 0.30, 0.00, 1.00]

    [weights]                      # shared by all six blocks (builder/engine.py)
    w_q = [[...], ...]             # (4, 4); w_k, w_v, w_o likewise
    w_1 = [[...], ...]             # (4, H): the FFN is H wide, 1 to 64
    b_1 = [...]                    # (H,)
    w_2 = [[...], ...]             # (H, 4)
    b_2 = [...]                    # (4,)

`tools/fit_weights.py` writes the lessons' model (weights and vocabulary together, because they were
fitted together). A scenario's token takes its vector from the vocabulary unless it gives its own;
the vocabulary's lengths are also the range a hand-chosen vector is checked against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from builder import engine
from builder.errors import Problem, UserError
from builder.sources import key_line, read_toml, table_line
from builder.steps import FIELDS, SUBLAYERS

D = 4  # model dimensions: every vector and weight has this many
MAX_HIDDEN = 64
MAX_MAGNITUDE = 1000.0  # every number, so the engine stays far from overflow
MAX_WORDS = 200
MAX_WORD_CHARS = 80
# Words of the trace-reference grammar a dimension may not be named (it would shadow them).
RESERVED_FIELDS = set(FIELDS) | {"delta", "after", "before", *SUBLAYERS}
WEIGHT_SHAPES = {  # D = 4 model dimensions, H = FFN width (any, from w_1)
    "w_q": ("D", "D"), "w_k": ("D", "D"), "w_v": ("D", "D"), "w_o": ("D", "D"),
    "w_1": ("D", "H"), "b_1": ("H",), "w_2": ("H", "D"), "b_2": ("D",),
}
KNOWN_KEYS = {"dimensions", "vocabulary", "weights"}
HELP = "see AUTHORING.md, 'Models and vectors'"


@dataclass(frozen=True)
class Model:
    """A validated model: what its dimensions mean, the words it was fitted with, its weights."""

    name: str
    path: Path
    dimensions: list[str]
    vocabulary: dict[str, np.ndarray]  # word → (D,) vector
    weights: engine.Weights

    @property
    def fitted_lengths(self) -> tuple[float, float]:
        """The shortest and longest vector of the vocabulary: the range the weights were fitted on."""
        lengths = [float(np.linalg.norm(v)) for v in self.vocabulary.values()]
        return (min(lengths), max(lengths)) if lengths else (0.0, 0.0)


def load_model(path: Path) -> Model:
    """Read one model file, raising a UserError naming the file, line and key on any mistake."""
    text, data = read_toml(path)

    def bad(key, message, section=None):
        line = key_line(text, key.split(".")[-1], section) or (table_line(text, section) if section else None)
        return UserError(Problem(path, line, f"{key}: {message}"))

    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise bad(unknown[0], f"unknown key (a model has {', '.join(sorted(KNOWN_KEYS))}; {HELP})")
    for key in ("dimensions", "weights"):
        if key not in data:
            raise UserError(Problem(path, None, f"missing key {key!r} ({HELP})"))
    dimensions = data["dimensions"]
    if (not isinstance(dimensions, list) or len(dimensions) != D
            or not all(isinstance(d, str) and re.fullmatch(r"[a-z][a-z0-9_]{0,31}", d) for d in dimensions)):
        raise bad("dimensions", f"expected {D} lowercase keys, got {dimensions!r}")
    if len(set(dimensions)) != D:
        raise bad("dimensions", f"each dimension needs its own name, got {dimensions!r}")
    reserved = sorted(set(dimensions) & RESERVED_FIELDS)
    if reserved:
        raise bad("dimensions", f"{reserved[0]!r} is a field of trace references ({{{{on:b6 {reserved[0]}}}}}); "
                                f"name the dimension otherwise (reserved: {', '.join(sorted(RESERVED_FIELDS))})")

    vocabulary_table = data.get("vocabulary", {})
    if not isinstance(vocabulary_table, dict):
        raise bad("vocabulary", "expected a [vocabulary] table of word = [4 numbers]")
    if len(vocabulary_table) > MAX_WORDS:
        raise bad("vocabulary", f"at most {MAX_WORDS} words, got {len(vocabulary_table)}")
    vocabulary = {}
    for word, vector in vocabulary_table.items():
        if not 1 <= len(word) <= MAX_WORD_CHARS or not word.isprintable():
            raise bad(f"vocabulary.{word}", f"a word is 1 to {MAX_WORD_CHARS} printable characters", "vocabulary")
        vocabulary[word] = matrix(vector, (D,), f"vocabulary.{word}", bad, "vocabulary")

    weights_table = data["weights"]
    if not isinstance(weights_table, dict):
        raise bad("weights", "expected a [weights] table")
    hidden = None
    arrays = {}
    for key, dims in WEIGHT_SHAPES.items():
        if key not in weights_table:
            raise UserError(Problem(path, table_line(text, "weights"), f"missing key 'weights.{key}'"))
        value = weights_table[key]
        if key == "w_1" and isinstance(value, list) and value and isinstance(value[0], list):
            hidden = len(value[0])
            if not 1 <= hidden <= MAX_HIDDEN:
                raise bad("weights.w_1", f"the FFN has 1 to {MAX_HIDDEN} hidden units, got {hidden}", "weights")
        shape = tuple(D if d == "D" else (hidden or 0) for d in dims)
        arrays[key] = matrix(value, shape, f"weights.{key}", bad, "weights")
    unknown = sorted(set(weights_table) - set(WEIGHT_SHAPES))
    if unknown:
        raise bad(f"weights.{unknown[0]}", "unknown weight (expected " + ", ".join(WEIGHT_SHAPES) + ")", "weights")
    return Model(name=path.stem, path=path, dimensions=list(dimensions), vocabulary=vocabulary,
                 weights=engine.Weights(**arrays))


def matrix(value, shape, key, bad, section):
    """Check a nested list of finite numbers has `shape` and return it as an array."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise bad(key, f"expected shape {shape_text(shape)} of numbers (rows of equal length, "
                       f"each within ±{MAX_MAGNITUDE:g})", section) from None
    if arr.shape != shape or 0 in shape:
        got = shape_text(arr.shape) if value is not None else "nothing"
        raise bad(key, f"expected shape {shape_text(shape)}, got {got}", section)
    if not np.isfinite(arr).all():
        raise bad(key, "contains NaN or infinity", section)
    if (np.abs(arr) > MAX_MAGNITUDE).any():
        raise bad(key, f"every number must be within ±{MAX_MAGNITUDE:g}, got {np.abs(arr).max():g}", section)
    return arr


def shape_text(shape) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ")"


def model_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.toml"))


def load_models(folder: Path, remember=None) -> tuple[dict[str, Model], list[Problem]]:
    """Load every model in `folder`, collecting all problems."""
    remember = remember or (lambda path, load, depends: load())
    models, problems = {}, []
    for path in model_files(folder):
        try:
            models[path.stem] = remember(path, lambda: load_model(path), ())
        except UserError as err:
            problems.extend(err.problems)
    return models, problems
