"""Pools for the OASIS benchmarks: the three shipped pools and a stand-in for Amazon-Google.

The OASIS paper's Table 2 lists a pool of the Amazon-GoogleProducts benchmark with
676,267 pairs, 200 matches and a linear SVM of precision 0.597 and recall 0.185
(F1 0.2824: 37 true positives, 25 false positives).  Its published file
(``amazon-googleproducts-svm.h5`` of activeeval-experiments) is too large to ship, so
:func:`amazon_google_standin` builds a pool with exactly those counts from the
shipped Abt-Buy pool, the most similar one (product listings of two shops, the same
SVM, low recall):

* the scores of the true positives, false negatives and true negatives are drawn
  from those of Abt-Buy's by a smoothed bootstrap (Gaussian kernel, Silverman's
  bandwidth) kept on their side of the decision threshold; Abt-Buy has only two false
  positives, so the false positives come from the top 0.1% of its non-match scores,
  moved above the threshold the same way;
* the match probabilities are Platt-scaled: a logistic regression of the label on
  the score, fitted on the new pool (as the published pools' ``probability``
  columns are calibrated SVM outputs).

On it, OASIS with 1,000 labels has a mean absolute error of F1 of 0.074 (the real
pool's: 0.073) and, before the interval method described in ``docs/oasis.md``, an F1
interval of [0, 1] in 62% of runs.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from ereval.oasis import Pool, read_pool

POOLS_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "oasis-pools"
SHIPPED = {
    "abt-buy": "abt-buy-svm.csv.gz",
    "dblp-acm": "dblp-acm-svm-small.csv.gz",
    "restaurant": "restaurant-svm.csv.gz",
}
STANDIN = "amazon-google-standin"
POOL_NAMES = (*SHIPPED, STANDIN)


@cache
def load_pool(name: str) -> Pool:
    """One of :data:`POOL_NAMES`."""
    if name in SHIPPED:
        return read_pool(POOLS_DIR / SHIPPED[name])
    if name == STANDIN:
        return amazon_google_standin()
    raise SystemExit(f"unknown pool {name!r}; choose from {', '.join(POOL_NAMES)}")


def _platt(scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Calibrated probabilities ``expit(a s + b)`` by maximum likelihood."""
    y = labels.astype(np.float64)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = theta[0] * scores + theta[1]
        p = 0.5 * (1.0 + np.tanh(0.5 * z))
        value = float(np.sum(np.logaddexp(0.0, z) - y * z))
        return value, np.array([np.sum((p - y) * scores), np.sum(p - y)])

    start = np.array([0.0, np.log(y.mean() / (1.0 - y.mean()))])
    fit = minimize(loss, start, jac=True, method="BFGS")
    z = fit.x[0] * scores + fit.x[1]
    out: np.ndarray = 0.5 * (1.0 + np.tanh(0.5 * z))
    return out


def amazon_google_standin(
    *,
    n_pairs: int = 676_267,
    matches: int = 200,
    true_positives: int = 37,
    false_positives: int = 25,
    seed: int = 0,
) -> Pool:
    """The Abt-Buy-shaped pool with the Amazon-GoogleProducts counts (module docstring)."""
    base = read_pool(POOLS_DIR / SHIPPED["abt-buy"])
    assert base.labels is not None
    rng = np.random.default_rng(seed)
    s, y, pred = base.scores, base.labels, base.predictions
    tau = base.threshold

    def draw(values: np.ndarray, k: int, above: bool) -> np.ndarray:
        width = 1.06 * float(values.std()) * len(values) ** -0.2
        out = np.empty(0)
        while out.size < k:
            x = rng.choice(values, size=2 * k) + rng.normal(0.0, width, 2 * k)
            out = np.concatenate([out, x[(x >= tau) if above else (x < tau)]])
        return out[:k]

    non_matches = n_pairs - matches
    tail = s[(y == 0) & (s >= np.quantile(s[y == 0], 0.999))]
    scores = np.concatenate(
        [
            draw(s[(y == 1) & (pred == 1)], true_positives, True),
            draw(s[(y == 1) & (pred == 0)], matches - true_positives, False),
            draw(tail, false_positives, True),
            draw(s[(y == 0) & (pred == 0)], non_matches - false_positives, False),
        ]
    )
    labels = np.concatenate([np.ones(matches, np.int8), np.zeros(non_matches, np.int8)])
    order = rng.permutation(n_pairs)
    scores, labels = scores[order], labels[order]
    return Pool.from_arrays(
        scores,
        (scores >= tau).astype(np.int8),
        labels=labels,
        probabilities=_platt(scores, labels),
        score_kind="real",
        threshold=tau,
    )
