"""Fit the hand-set weights of the default scenario to the lesson's figures, once.

Development only (needs scipy, which the builder never imports):

    python tools/fit_weights.py > content/scenarios/river-bank.toml

The lesson states its figures "about", to one decimal. We fit the free parameters
(the other tokens' vectors, the attention and FFN weights) by least squares, round
every weight to two decimals, then refit the still-free parameters with the rounded
ones held fixed, a group at a time, so rounding does not compound through the blocks.
The result is printed as the scenario TOML; the builder only ever reads that file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from builder.engine import Weights, run  # noqa: E402

TOKENS = ["by", "the", "river", "bank"]
BANK = 3
RIVER = 2
D, H = 4, 4
X0_BANK = np.array([0.3, 0.3, 0.0, 1.0])
# A reading of the four dimensions (geography, finance, function word, bank identity)
# for the other words, used only as a starting point and a gentle prior.
PRIOR = {"by": [0.0, 0.0, 1.0, 0.0], "the": [0.0, 0.1, 1.0, 0.0], "river": [1.0, -0.2, 0.0, 0.0]}

# The lesson's figures (seeds 000_*, 004_*), token "bank", residual on.
TARGETS = {
    ("attn_delta", 1): [0.7, -0.3, -0.2, 0.0],
    ("ffn_delta", 1): [0.3, -0.1, -0.2, 0.2],
    ("block_out", 2): [2.3, -0.6, -0.6, 1.4],
    ("block_out", 3): [3.4, -1.2, -0.8, 1.5],
}
OFF_LENGTH = 0.40  # residual off, depth 6: ‖x‖ ≈ 0.4
OFF_IDENTITY_MAX = 0.30  # ... with the bank-identity component clearly weaker than ≈1.5
ONE_BLOCK_COSINE = 0.92  # one block: on and off point the same way (SEED-NOTES)

SHAPES = {
    "others": (3, D),
    "w_q": (D, D), "w_k": (D, D), "w_v": (D, D), "w_o": (D, D),
    "w_1": (D, H), "b_1": (H,), "w_2": (H, D), "b_2": (D,),
}


def unpack(theta):
    parts, i = {}, 0
    for name, shape in SHAPES.items():
        n = int(np.prod(shape))
        parts[name] = theta[i:i + n].reshape(shape)
        i += n
    return parts


def model(theta):
    p = unpack(theta)
    x0 = np.vstack([p["others"], X0_BANK])
    w = Weights(**{k: v for k, v in p.items() if k != "others"})
    return x0, w


def figure(trace, kind, block):
    """Return the lesson figure `kind` of block `block` for "bank" in a residual-on trace."""
    if kind == "attn_delta":
        return trace.steps[2 * (block - 1)].delta[BANK]
    if kind == "ffn_delta":
        return trace.steps[2 * (block - 1) + 1].delta[BANK]
    return trace.block_outputs()[block - 1][BANK]


def residuals(theta):
    x0, w = model(theta)
    on = run(x0, w, 6, residual=True)
    off = run(x0, w, 6, residual=False)
    r = []
    for key, target in TARGETS.items():
        r.extend(20 * (figure(on, *key) - np.array(target)))
    final_off = off.block_outputs()[-1][BANK]
    r.append(20 * (np.linalg.norm(final_off) - OFF_LENGTH))
    r.append(20 * max(0.0, abs(final_off[3]) - OFF_IDENTITY_MAX))
    attn = on.steps[0].attention[BANK]
    r.append(20 * max(0.0, np.delete(attn, RIVER).max() + 0.1 - attn[RIVER]))
    a, b = on.block_outputs()[0][BANK], off.block_outputs()[0][BANK]
    cos = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
    r.append(20 * max(0.0, ONE_BLOCK_COSINE - cos))
    prior = np.array([PRIOR[t] for t in TOKENS[:3]])
    r.extend(0.3 * (unpack(theta)["others"] - prior).ravel())
    r.extend(0.03 * theta)  # prefer small, readable weights
    return np.array(r)


def report(theta):
    x0, w = model(theta)
    on = run(x0, w, 6, residual=True)
    off = run(x0, w, 6, residual=False)
    worst = max(np.abs(figure(on, *key) - target).max() for key, target in TARGETS.items())
    final_off = off.block_outputs()[-1][BANK]
    return worst, np.linalg.norm(final_off), final_off, on.steps[0].attention[BANK]


def fit(seed):
    rng = np.random.default_rng(seed)
    n = sum(int(np.prod(s)) for s in SHAPES.values())
    theta = rng.normal(0, 0.4, n)
    theta[:12] = np.array([PRIOR[t] for t in TOKENS[:3]]).ravel()
    sol = least_squares(residuals, theta, method="trf", max_nfev=300)
    theta = sol.x
    # Round a group at a time, refitting what is still free.
    free = np.ones(n, dtype=bool)
    order = np.argsort(-np.abs(theta))  # round the largest first
    for chunk in np.array_split(order, 8):
        theta[chunk] = np.round(theta[chunk], 2)
        free[chunk] = False
        if free.any():
            def sub(t, fixed=theta.copy(), mask=free.copy()):
                full = fixed.copy()
                full[mask] = t
                return residuals(full)
            sol = least_squares(sub, theta[free], method="trf", max_nfev=60)
            theta[free] = sol.x
    return np.round(theta, 2)


def fmt_row(row):
    return "[" + ", ".join(f"{v + 0.0:.2f}".replace("-0.00", "0.00") for v in row) + "]"


def fmt_matrix(m):
    return "[\n" + "".join(f"  {fmt_row(r)},\n" for r in m) + "]"


def to_toml(theta):
    p = unpack(theta)
    x0 = np.vstack([p["others"], X0_BANK])
    out = [
        "# The lesson's default scenario: \"by the river bank\", tracking \"bank\".",
        "# Weights fitted once by tools/fit_weights.py to the lesson's figures, then rounded",
        "# to two decimals; every block shares them. Edit by hand only with the tests running.",
        "",
        'title = "by the river bank"',
        'tracked = "bank"',
        "depth = 3",
        "residual = true",
        "# Keys naming the four dimensions; the catalogs translate them (msgctxt \"dimension\").",
        'dimensions = ["geography", "finance", "function_word", "bank_identity"]',
        "",
    ]
    for tok, vec in zip(TOKENS, x0):
        out += ["[[tokens]]", f'text = "{tok}"', f"vector = {fmt_row(vec)}", ""]
    out += ["[weights]", "# Attention: one head, scaled dot-product, no mask, no positions."]
    for name in ("w_q", "w_k", "w_v", "w_o"):
        out.append(f"{name} = {fmt_matrix(p[name])}")
    out.append("# FFN: expand 4 -> %d, ReLU, shrink back to 4." % H)
    for name in ("w_1", "b_1", "w_2", "b_2"):
        val = p[name]
        out.append(f"{name} = {fmt_matrix(val) if val.ndim == 2 else fmt_row(val)}")
    return "\n".join(out) + "\n"


def main():
    best = None
    for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 6):
        theta = fit(seed)
        worst, length, final_off, attn = report(theta)
        ok = worst <= 0.015 and 0.35 <= length <= 0.45 and abs(final_off[3]) <= 0.35 and attn.argmax() == RIVER
        print(f"seed {seed}: worst {worst:.4f}, off length {length:.3f}, off identity {final_off[3]:.3f}, "
              f"attn {np.round(attn, 2)}, ok={ok}", file=sys.stderr)
        if ok and (best is None or worst < best[0]):
            best = (worst, theta)
    if best is None:
        sys.exit("no seed met every figure")
    print(to_toml(best[1]), end="")


if __name__ == "__main__":
    main()
