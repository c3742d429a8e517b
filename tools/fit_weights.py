"""Fit the weights of the one block every scenario shares, and the vocabulary's vectors, by least squares.

Development only (needs scipy, which the builder never imports):

    python tools/fit_weights.py [SEEDS] [HIDDEN]

writes content/models/bank-block.toml: the weights and the words' vectors, fitted together. Every
scenario names that model (`model = "bank-block"`) and takes its words' vectors from its vocabulary,
so a refit reaches every scenario, the ones written after this script too.

The lessons state their figures "about", to one decimal. One block (the same weights in every block
and every scenario) must give:
- "by the river bank": the seed's figures for "bank" (residual on), attention on "river" in block 1,
  a residual-off run of length about 0.4 at depth 6 whose bank-identity component is weak, and, with
  one block, on and off pointing the same way;
- "money in the bank": the same "bank" (and "the") vectors, attention on "money" in block 1, and the
  finance dimension growing where the river sentence grows geography;
- in both, a residual-off run whose FFN units are not all dead (so it does not end exactly on the
  FFN's bias b₂ whatever the input: the collapse the lesson shows is attention's, not a dead ReLU's).
The third scenario is the river sentence in another order; it needs no fitting (no positions).

We fit the free parameters (the other words' vectors, the attention and FFN weights) by least
squares, round every weight to two decimals, then refit the still-free parameters with the rounded
ones held fixed, a group at a time, so rounding does not compound through the blocks. This runs from
SEEDS random starts (6 by default); a result counts only if it meets every figure within the tolerances
of `acceptable`, and of those the one with the smallest worst error on TARGETS is written. The targets
are the lessons' own figures (with a gentle pull towards PRIOR and towards small weights), not a task
or data: the weights are fitted, not trained.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from builder.engine import Weights, run  # noqa: E402

D = 4
H = int(sys.argv[2]) if len(sys.argv) > 2 else 4
X0_BANK = np.array([0.3, 0.3, 0.0, 1.0])
# A reading of the four dimensions (geography, finance, function word, bank identity) for the other
# words, used as a starting point and a gentle prior.
PRIOR = {"by": [0.0, 0.0, 1.0, 0.0], "the": [0.0, 0.1, 1.0, 0.0], "river": [1.0, -0.2, 0.0, 0.0],
         "money": [-0.2, 1.0, 0.0, 0.0], "in": [0.0, 0.0, 1.0, 0.1]}
RIVER_TOKENS = ["by", "the", "river", "bank"]
MONEY_TOKENS = ["money", "in", "the", "bank"]
FREE_WORDS = ["by", "the", "river", "money", "in"]  # "bank" is fixed by the lesson

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
MONEY_MARGIN = 2.0  # money sentence, block 3: finance ahead of geography by at least this

SHAPES = {"words": (len(FREE_WORDS), D), "w_q": (D, D), "w_k": (D, D), "w_v": (D, D), "w_o": (D, D),
          "w_1": (D, H), "b_1": (H,), "w_2": (H, D), "b_2": (D,)}


def unpack(theta):
    parts, i = {}, 0
    for name, shape in SHAPES.items():
        n = int(np.prod(shape))
        parts[name] = theta[i:i + n].reshape(shape)
        i += n
    return parts


def model(theta):
    p = unpack(theta)
    vectors = dict(zip(FREE_WORDS, p["words"]), bank=X0_BANK)
    w = Weights(**{k: v for k, v in p.items() if k != "words"})
    river = np.array([vectors[t] for t in RIVER_TOKENS])
    money = np.array([vectors[t] for t in MONEY_TOKENS])
    return river, money, w


def figure(trace, kind, block, tracked=3):
    if kind == "attn_delta":
        return trace.steps[2 * (block - 1)].delta[tracked]
    if kind == "ffn_delta":
        return trace.steps[2 * (block - 1) + 1].delta[tracked]
    return trace.block_outputs()[block - 1][tracked]


def residuals(theta):
    river, money, w = model(theta)
    on = run(river, w, 6, residual=True)
    off = run(river, w, 6, residual=False)
    money_on = run(money, w, 6, residual=True)
    money_off = run(money, w, 6, residual=False)
    r = []
    for key, target in TARGETS.items():
        r.extend(20 * (figure(on, *key) - np.array(target)))
    final_off = off.block_outputs()[-1][3]
    r.append(20 * (np.linalg.norm(final_off) - OFF_LENGTH))
    r.append(20 * max(0.0, abs(final_off[3]) - OFF_IDENTITY_MAX))
    attn = on.steps[0].attention[3]
    r.append(20 * max(0.0, np.delete(attn, 2).max() + 0.1 - attn[2]))
    a, b = on.block_outputs()[0][3], off.block_outputs()[0][3]
    r.append(20 * max(0.0, ONE_BLOCK_COSINE - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
    # The money sentence: bank looks at "money" and leans to finance.
    attn = money_on.steps[0].attention[3]
    r.append(20 * max(0.0, np.delete(attn, 0).max() + 0.1 - attn[0]))
    out3 = money_on.block_outputs()[2][3]
    r.append(10 * max(0.0, MONEY_MARGIN - (out3[1] - out3[0])))
    r.append(10 * max(0.0, out3[0] - 0.6))  # geography stays low
    # ... and the other two dimensions stay as tame as in the river sentence (≈ −0.8 and ≈ 1.5 there).
    r.append(10 * max(0.0, abs(out3[2]) - 1.2))
    r.append(10 * max(0.0, abs(out3[3] - 1.4) - 0.4))
    for block in range(3):
        prev = X0_BANK if block == 0 else money_on.block_outputs()[block - 1][3]
        r.append(10 * max(0.0, prev[1] + 0.3 - money_on.block_outputs()[block][3][1]))  # finance grows each block
    # Residual off: keep some FFN unit alive at every block (no dead-ReLU collapse onto b_2).
    for trace in (off, money_off):
        for step in trace.steps:
            if step.sublayer == "ffn":
                hidden = np.maximum(0.0, step.normed @ w.w_1 + w.b_1)  # (T, H)
                r.append(10 * max(0.0, 0.15 - hidden.max()))
    r.extend(0.3 * (unpack(theta)["words"] - np.array([PRIOR[t] for t in FREE_WORDS])).ravel())
    r.extend(0.03 * theta)  # prefer small, readable weights
    return np.array(r)


def report(theta):
    river, money, w = model(theta)
    on = run(river, w, 6, residual=True)
    off = run(river, w, 6, residual=False)
    money_on = run(money, w, 6, residual=True)
    worst = max(np.abs(figure(on, *key) - target).max() for key, target in TARGETS.items())
    final_off = off.block_outputs()[-1][3]
    hidden = min(np.maximum(0.0, s.normed @ w.w_1 + w.b_1).max() for s in off.steps if s.sublayer == "ffn")
    return {
        "worst": worst, "off_length": np.linalg.norm(final_off), "off_identity": final_off[3],
        "river_attention": on.steps[0].attention[3], "money_attention": money_on.steps[0].attention[3],
        "money_b3": money_on.block_outputs()[2][3], "off_min_live_unit": hidden,
        "off_b6_minus_b2": np.linalg.norm(final_off - w.b_2),
        "cos1": (lambda a, b: a @ b / np.linalg.norm(a) / np.linalg.norm(b))(on.block_outputs()[0][3], off.block_outputs()[0][3]),
    }


def acceptable(rep):
    return (rep["worst"] <= 0.045 and 0.35 <= rep["off_length"] <= 0.45 and abs(rep["off_identity"]) <= 0.35
            and rep["river_attention"].argmax() == 2 and rep["money_attention"].argmax() == 0
            and rep["money_b3"][1] - rep["money_b3"][0] >= MONEY_MARGIN - 0.2 and rep["cos1"] >= 0.9
            and abs(rep["money_b3"][2]) <= 1.4 and abs(rep["money_b3"][3] - 1.4) <= 0.6
            and rep["off_min_live_unit"] > 0.05)


def fit(seed):
    rng = np.random.default_rng(seed)
    n = sum(int(np.prod(s)) for s in SHAPES.values())
    theta = rng.normal(0, 0.4, n)
    theta[:len(FREE_WORDS) * D] = np.array([PRIOR[t] for t in FREE_WORDS]).ravel()
    theta = least_squares(residuals, theta, method="trf", max_nfev=600).x
    free = np.ones(n, dtype=bool)
    order = np.argsort(-np.abs(theta))  # round the largest first
    for chunk in np.array_split(order, 10):
        theta[chunk] = np.round(theta[chunk], 2)
        free[chunk] = False
        if free.any():
            def sub(t, fixed=theta.copy(), mask=free.copy()):
                full = fixed.copy()
                full[mask] = t
                return residuals(full)
            theta[free] = least_squares(sub, theta[free], method="trf", max_nfev=100).x
    return np.round(theta, 2)


def fmt_row(row):
    return "[" + ", ".join(f"{v + 0.0:.2f}".replace("-0.00", "0.00") for v in row) + "]"


def fmt_matrix(m):
    return "[\n" + "".join(f"  {fmt_row(r)},\n" for r in m) + "]"


MODEL = ROOT / "content" / "models" / "bank-block.toml"
VOCABULARY = ["by", "the", "river", "money", "in", "bank"]


def to_toml(vectors, p):
    """The model file: dimensions, the fitted words' vectors, the weights every block shares."""
    out = ['# The block every scenario of the lessons runs through: one set of weights, shared by all six blocks',
           '# and every scenario, and the vectors of the words they were fitted with. Written by',
           '# tools/fit_weights.py (fitted to the lessons\' figures, rounded to two decimals); edit by hand only',
           '# with the tests running. How to choose vectors for new words: AUTHORING.md, "Models and vectors".',
           '',
           '# Keys naming the four dimensions; the catalogs translate them (msgctxt "dimension").',
           'dimensions = ["geography", "finance", "function_word", "bank_identity"]',
           '',
           '# The words the weights were fitted with. A scenario\'s token takes its vector from here unless it',
           '# gives its own; their lengths are the range a hand-chosen vector is checked against.',
           '[vocabulary]']
    width = max(len(word) for word in VOCABULARY)
    out += [f"{word:<{width}} = {fmt_row(vectors[word])}" for word in VOCABULARY]
    out += ["", "[weights]", "# Attention: one head, scaled dot-product, no mask, no positions."]
    for key in ("w_q", "w_k", "w_v", "w_o"):
        out.append(f"{key} = {fmt_matrix(p[key])}")
    out.append(f"# FFN: expand 4 -> {p['w_1'].shape[1]}, ReLU, shrink back to 4.")
    for key in ("w_1", "b_1", "w_2", "b_2"):
        out.append(f"{key} = {fmt_matrix(p[key]) if p[key].ndim == 2 else fmt_row(p[key])}")
    return "\n".join(out) + "\n"


def main():
    best = None
    for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 6):
        theta = fit(seed)
        rep = report(theta)
        ok = acceptable(rep)
        print(f"seed {seed}: " + ", ".join(f"{k} {np.round(v, 3)}" for k, v in rep.items()) + f", ok={ok}",
              file=sys.stderr, flush=True)
        if ok and (best is None or rep["worst"] < best[0]):
            best = (rep["worst"], theta)
    if best is None:
        sys.exit("no seed met every figure")
    p = unpack(best[1])
    vectors = dict(zip(FREE_WORDS, p["words"]), bank=X0_BANK)
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    MODEL.write_text(to_toml(vectors, p), encoding="utf-8")
    print(f"wrote {MODEL.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
