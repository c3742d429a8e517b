"""The grammar of walkthrough steps and trace references, defined once.

The front matter and the lesson text use it; figures turn parsed steps into what each step shows,
and the browser receives that as data: it never parses a step or a reference itself.

Walkthrough steps (front matter `walkthrough = [...]`):

    input           the input x₀
    bN              block N, both sublayers (1-6)
    bN.attention    block N's attention sublayer
    bN.ffn          block N's feed-forward sublayer
    sum             the stream as x₀ plus every correction so far

Trace references (`{{...}}` in lesson text): `[SCENARIO/]RUN:SELECTION [FIELD][:.DIGITS]`

    SCENARIO   a scenario the lesson names (front matter `scenarios`); default: its `scenario`
    RUN        on (pre-norm, residual on) | off (pre-norm, residual off) | post (post-norm)
    SELECTION  b0                 the input x₀
               bN                 the stream after block N (1-6)
               bN.attention       block N's attention step: its correction Δ (default) ...
               bN.ffn             ... or, with `.after` / `.before`, the stream after / before it
               bN.attention.values  the value vectors after W_O: what block N's attention averages
               bN.attention.uniform  the correction block N's attention would add with every weight equal (1/T):
                                  the plain mean of those value vectors, to compare with the real one
               bN.final           the stream after block N put through the stack's final norm, as if the
                                  stack ended there (`final_norm` in the lesson's code); on and off only
               bA-B               a series over blocks A..B (A may be 0, the input); needs a FIELD
               bA-B.final         the series of bN.final for N = A..B (A ≥ 1); needs a FIELD
    FIELD      (none)             the whole vector of the tracked token: [1.0, 0.0, −0.2, 1.0]
               a dimension key    one component: 1.3
               length             the vector's length ‖x‖
               correction         the cumulative correction ‖x − x₀‖
               bound              ‖x₀‖ + ‖x − x₀‖, the triangle inequality's bound on the length: the top of
                                  the depth map's bar (residual on), which its diamond ‖x‖ never passes
               spread             the largest distance between any two tokens' vectors (every token); after
                                  a block, after / before one sublayer (`b1.attention.after spread`), after
                                  the final norm (`b6.final spread`), between the corrections of one
                                  sublayer (`b1.attention spread`) or between the value vectors it averages
                                  (`b1.attention.values spread`)
               cosine             cos of the angle between this run's vector and the `on` run's
               top                (attention steps) the word the tracked token attends to most
               weight             (attention steps) the tracked token's largest attention weight
               weights            (attention steps) the tracked token's whole row of weights, in token order
               After `bN.final`, `.values` and `.uniform` only the whole vector, a dimension key, `length` and `spread`
               have a value.
    :.DIGITS   decimals to print, 0-3 (default: 1; 2 for `weight`, `weights` and `cosine`): `{{on:b1 finance:.2}}`
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BLOCK = 6
MAX_DECIMALS = 3
SUBLAYERS = ("attention", "ffn")
RUNS = {"on": "pre-on", "off": "pre-off", "post": "post-on"}  # names in the text → runs of the trace JSON
FIELDS = ("length", "correction", "bound", "spread", "cosine", "top", "weight", "weights")  # besides the dimension keys
STEP = re.compile(r"input|sum|b(?P<block>[1-6])(?:\.(?P<sublayer>attention|ffn))?")
REF = re.compile(
    r"(?:(?P<scenario>[a-z0-9][a-z0-9-]*)/)?(?P<run>[a-z]+):b(?P<a>\d)"
    r"(?:-(?P<b>\d)(?:\.(?P<series_final>final))?|\.(?P<sub>attention|ffn)(?:\.(?P<part>delta|after|before|values|uniform))?"
    r"|\.(?P<final>final))?"
    r"(?:\s+(?P<field>[a-z_]+))?(?:\s*:\.(?P<decimals>\d))?"
)


@dataclass(frozen=True)
class Step:
    """One walkthrough step: what part of the run it is about."""

    key: str
    block: int  # 0 for the input; the highest block for `sum` is the current depth
    sublayer: str | None  # "attention", "ffn", or None for a whole block (or input / sum)

    @property
    def is_sum(self) -> bool:
        return self.key == "sum"

    @property
    def is_input(self) -> bool:
        return self.key == "input"


def parse_step(key) -> Step | None:
    """Return the step `key` names, or None if it is not a step."""
    match = STEP.fullmatch(key) if isinstance(key, str) else None
    if match is None:
        return None
    if key in ("input", "sum"):
        return Step(key, 0, None)
    return Step(key, int(match["block"]), match["sublayer"])


STEP_HELP = "use input, b1..b6, b1.attention, b1.ffn or sum"
REF_HELP = "the grammar: AUTHORING.md, 'Trace references'"


@dataclass(frozen=True)
class Ref:
    """A parsed trace reference."""

    text: str
    scenario: str | None
    run: str
    first: int
    last: int | None  # a series bA-B
    sublayer: str | None
    part: str  # delta, after, before, values or uniform (sublayer selections)
    field: str | None
    final: bool = False  # bN.final: after the stack's final norm
    decimals: int | None = None  # `:.2`; None: the field's own

    def digits(self, default: int = 1) -> int:
        """How many decimals to print: the reference's `:.N`, or the field's own precision."""
        return default if self.decimals is None else self.decimals


def parse_ref(text: str) -> Ref | str:
    """Parse a trace reference; return the Ref, or why it is not one."""
    match = REF.fullmatch(text.strip())
    if not match:
        prefix = REF.match(text.strip())
        rest = text.strip()[prefix.end():].split() if prefix and prefix["field"] else []
        if rest:
            return (f"bad trace reference {{{{{text}}}}}: {rest[0]!r} after the field {prefix['field']!r}: a field takes "
                    "no argument, and a trace value is always about the scenario's tracked word (for whom it attends "
                    f"to, use `top` and `weight`); {REF_HELP}")
        return (f"bad trace reference {{{{{text}}}}}: expected e.g. {{{{on:b1.attention}}}} or {{{{off:b6 length}}}} "
                f"({REF_HELP})")
    if match["run"] not in RUNS:
        return f"unknown run {match['run']!r} in {{{{{text}}}}} (use on, off or post)"
    if match["decimals"] is not None and int(match["decimals"]) > MAX_DECIMALS:
        return (f"{{{{{text}}}}} asks for {match['decimals']} decimals: print at most {MAX_DECIMALS} (the figures show one "
                "or two; more digits say nothing a reader can compare)")
    if match["part"] in ("values", "uniform") and match["sub"] != "attention":
        return f"{{{{{text}}}}}: only attention averages value vectors; write bN.attention.{match['part']}"
    return Ref(text=" ".join(text.split()), scenario=match["scenario"], run=match["run"], first=int(match["a"]),
               last=int(match["b"]) if match["b"] is not None else None, sublayer=match["sub"],
               part=match["part"] or "delta", field=match["field"],
               final=match["final"] is not None or match["series_final"] is not None,
               decimals=int(match["decimals"]) if match["decimals"] is not None else None)
