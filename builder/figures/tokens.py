"""Measures over every token of a run, not only the tracked one."""

from __future__ import annotations

import numpy as np

from builder.engine import MAX_DEPTH, Trace


def spread(run: Trace, depth: int = MAX_DEPTH) -> np.ndarray:
    """The largest distance between any two tokens' vectors: for x₀, then after each block up to `depth`."""
    states = [run.x0] + [s.after for s in run.steps[: 2 * depth] if s.sublayer == "ffn"]
    return np.array([np.linalg.norm(x[:, None, :] - x[None, :, :], axis=-1).max() for x in states])


def sublayer_spread(run: Trace, depth: int = MAX_DEPTH) -> np.ndarray:
    """The same distance for x₀, then after every sublayer up to `depth` (attention, FFN, attention, …)."""
    states = [run.x0] + [s.after for s in run.steps[: 2 * depth]]
    return np.array([np.linalg.norm(x[:, None, :] - x[None, :, :], axis=-1).max() for x in states])
