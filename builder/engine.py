"""The Transformer block the lessons teach, in numpy, recording every step.

A leaf module: numpy in, numpy out, no files and nothing else of ours.

One block, pre-norm (the lesson's form):

    x = x + attention(norm(x))      # first update of the residual stream
    x = x + ffn(norm(x))            # second update

With the residual switched off the sublayer output replaces the stream (x = Δ).
Post-norm, the 2017 layout, is here only so a lesson can compare the two:
x = norm(x + attention(x)), x = norm(x + ffn(x)).

Shapes: T tokens, D = 4 model dimensions, H hidden FFN units.
Every block uses the SAME weights: the lessons share one block, stored in content/models/bank-block.toml
(builder/models.py reads it; this module never opens a file). They were not trained: tools/fit_weights.py
fitted them, with the words' vectors, to the figures the lessons state.
The attention has no causal mask and no position information, so the block is
permutation equivariant: reordering tokens reorders every output the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EPS = 1e-5  # LayerNorm's variance floor; keeps a constant vector finite
MAX_DEPTH = 6
SUBLAYERS = ("attention", "ffn")


@dataclass(frozen=True)
class Weights:
    """The one set of weights every block shares (fitted by tools/fit_weights.py, stored in the model file)."""

    w_q: np.ndarray  # (D, D) query projection
    w_k: np.ndarray  # (D, D) key projection
    w_v: np.ndarray  # (D, D) value projection
    w_o: np.ndarray  # (D, D) output projection: the head's correction back to D
    w_1: np.ndarray  # (D, H) FFN expand
    b_1: np.ndarray  # (H,)
    w_2: np.ndarray  # (H, D) FFN shrink back to D
    b_2: np.ndarray  # (D,)


@dataclass(frozen=True)
class Step:
    """One sublayer update of the residual stream, for every token."""

    block: int  # 1-based
    sublayer: str  # "attention" or "ffn"
    before: np.ndarray  # (T, D) stream entering the sublayer
    normed: np.ndarray  # (T, D) the normalised copy the sublayer reads (pre-norm)
    delta: np.ndarray  # (T, D) the sublayer output: the correction Δ
    after: np.ndarray  # (T, D) stream leaving the sublayer
    attention: np.ndarray | None  # (T, T) row i: how token i spreads its attention


@dataclass(frozen=True)
class Trace:
    """Every step of one run, plus the figures the depth map draws."""

    x0: np.ndarray  # (T, D) the input vectors
    steps: list[Step]  # 2 per block, in order
    residual: bool
    norm_position: str  # "pre" or "post"

    @property
    def depth(self) -> int:
        return len(self.steps) // 2

    def block_outputs(self) -> np.ndarray:
        """Return the stream after each block: (depth, T, D)."""
        return np.stack([s.after for s in self.steps if s.sublayer == "ffn"])

    def cumulative_correction(self) -> np.ndarray:
        """Return ‖stream − x₀‖ after each block, per token: (depth, T); the green bars."""
        return np.linalg.norm(self.block_outputs() - self.x0, axis=-1)

    def latest_output_size(self) -> np.ndarray:
        """Return ‖latest FFN output‖ after each block, per token: (depth, T); the red bars."""
        return np.stack([np.linalg.norm(s.delta, axis=-1) for s in self.steps if s.sublayer == "ffn"])

    def stream_length(self) -> np.ndarray:
        """Return ‖stream‖ after each block, per token: (depth, T)."""
        return np.linalg.norm(self.block_outputs(), axis=-1)

    def truncated(self, depth: int) -> Trace:
        """Return the first `depth` blocks: shared weights make a shallower run a prefix."""
        return Trace(self.x0, self.steps[: 2 * depth], self.residual, self.norm_position)


def norm(x: np.ndarray) -> np.ndarray:
    """Normalise each token's vector to zero mean and unit variance (LayerNorm, γ=1, β=0)."""
    mean = x.mean(axis=-1, keepdims=True)  # (T, 1)
    var = x.var(axis=-1, keepdims=True)  # (T, 1)
    return (x - mean) / np.sqrt(var + EPS)  # (T, D)


def softmax(scores: np.ndarray) -> np.ndarray:
    """Turn each row of scores into weights that sum to 1."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # shift for stability
    return e / e.sum(axis=-1, keepdims=True)


def attention(x: np.ndarray, w: Weights) -> tuple[np.ndarray, np.ndarray]:
    """Mix information across tokens with one scaled dot-product head; no mask, no positions."""
    q, k, v = x @ w.w_q, x @ w.w_k, x @ w.w_v  # (T, D) each
    scores = q @ k.T / np.sqrt(x.shape[-1])  # (T, T)
    weights = softmax(scores)  # (T, T), rows sum to 1
    return weights @ v @ w.w_o, weights  # (T, D), (T, T)


def ffn(x: np.ndarray, w: Weights) -> np.ndarray:
    """Expand, ReLU, shrink back: the same function at every position, independently."""
    hidden = np.maximum(0.0, x @ w.w_1 + w.b_1)  # (T, H)
    return hidden @ w.w_2 + w.b_2  # (T, D)


def run(
    x0: np.ndarray,
    w: Weights,
    depth: int = MAX_DEPTH,
    *,
    residual: bool = True,
    norm_position: str = "pre",
) -> Trace:
    """Run `depth` blocks sharing the weights `w` over the tokens `x0` (T, D), recording every step."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1 to {MAX_DEPTH}, got {depth!r}")
    if norm_position not in ("pre", "post"):
        raise ValueError(f"norm_position must be 'pre' or 'post', got {norm_position!r}")
    x = np.asarray(x0, dtype=float)  # (T, D)
    steps: list[Step] = []
    for block in range(1, depth + 1):
        for sublayer in SUBLAYERS:
            x, step = _update(x, w, block, sublayer, residual, norm_position)
            steps.append(step)
    return Trace(np.asarray(x0, dtype=float), steps, residual, norm_position)


def _update(x, w, block, sublayer, residual, norm_position):
    """Apply one sublayer to the stream and record it."""
    normed = norm(x) if norm_position == "pre" else x  # post-norm feeds the raw stream
    if sublayer == "attention":
        delta, weights = attention(normed, w)
    else:
        delta, weights = ffn(normed, w), None
    after = x + delta if residual else delta  # the residual switch: add the correction, or replace
    if norm_position == "post":
        after = norm(after)
    return after, Step(block, sublayer, x, normed, delta, after, weights)
