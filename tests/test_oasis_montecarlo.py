"""Seeded Monte Carlo checks of every estimator: bias, interval coverage and width.

Each check runs R independent seeded runs.  Tolerances come from Monte Carlo
error: the mean error within 3.5 standard errors of 0 (se = sd / sqrt(R)); the
coverage of the 95% intervals at least 0.95 minus 3.5 of its standard errors
(sqrt(0.95 * 0.05 / R), 0.054 at R = 200); and the median width of the intervals
close to the empirical spread, between 0.6 and 1.5 times ``2 x 1.96 x sd`` (the
width of a normal interval with the true sd; the relative error of the empirical
sd is 1 / sqrt(2 (R - 1)), 5% at R = 200, and the intervals are skewed where the
estimates are, so they can be narrower than that and still cover).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from ereval.oasis import Pool, make_sampler, stratify, synthetic_pool

R = 200
NOMINAL = 0.95
Z = 1.959963984540054
COVER_TOL = 3.5 * math.sqrt(NOMINAL * (1 - NOMINAL) / R)
WIDTH_RANGE = (0.6, 1.5)


@cache
def _pool(imbalance: float) -> Pool:
    return synthetic_pool(20_000, imbalance=imbalance, separation=3.5, seed=3)


def _runs(method: str, imbalance: float, budget: int, **options: object) -> dict[float, np.ndarray]:
    pool = _pool(imbalance)
    if method in ("oasis", "stratified"):
        options["strata"] = stratify(pool.scores)
    truth = {a: pool.true_measure(a) for a in (0.5, 1.0, 0.0)}
    out: dict[float, list[tuple[float, float, float]]] = {a: [] for a in truth}
    for r in range(R):
        est = make_sampler(method, pool, seed=r, **options).run(budget=budget)  # type: ignore[arg-type]
        for a, m in ((0.5, est.f_measure), (1.0, est.precision), (0.0, est.recall)):
            out[a].append((m.value - truth[a], m.width, float(m.lower <= truth[a] <= m.upper)))
    return {a: np.array(v) for a, v in out.items()}


CASES = [
    # rare matches (1:100, ~200 matches): the adaptive and importance samplers
    ("oasis", 100.0, 800, {}),
    # static IS: the empirical variance needs a few more labels before the
    # recall interval reaches its level (0.895 at 800 labels, 0.935 at 1500)
    ("importance", 100.0, 1500, {}),
    # passive designs find few matches at 1:100; check them where the normal
    # approximation holds (1:10)
    ("stratified", 10.0, 800, {}),
    ("passive", 10.0, 800, {"replace": False}),
    ("passive", 10.0, 800, {"replace": True}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("method", "imbalance", "budget", "options"), CASES)
def test_bias_std_and_coverage(
    method: str, imbalance: float, budget: int, options: dict[str, object]
) -> None:
    runs = _runs(method, imbalance, budget, **options)
    for alpha, x in runs.items():
        err, width, covered = x[:, 0], x[:, 1], x[:, 2]
        assert np.isfinite(err).all(), (alpha, "undefined estimates")
        emp_sd = float(np.std(err, ddof=1))
        assert abs(err.mean()) <= 3.5 * emp_sd / math.sqrt(R), (alpha, err.mean(), emp_sd)
        assert covered.mean() >= NOMINAL - COVER_TOL, (alpha, covered.mean())
        ratio = float(np.median(width)) / (2 * Z * emp_sd)
        assert WIDTH_RANGE[0] <= ratio <= WIDTH_RANGE[1], (alpha, ratio)


@pytest.mark.slow
def test_rare_matches_in_large_low_score_strata() -> None:
    # The Abt-Buy pool: 50 matches among 53,753 pairs, 28 of them below the threshold and
    # spread over large low-score strata that OASIS visits rarely.  At 500 labels the
    # model-based delta-method interval was [0, 1] in 45% of runs (recall: 57%), and the
    # empirical one covered F1 in 76% of them.
    from ._oasis_support import paper_pool

    pool = paper_pool("abt-buy-svm.csv.gz")
    strata = stratify(pool.scores)
    runs = 100
    truth = {a: pool.true_measure(a) for a in (0.5, 0.0)}
    rows: dict[float, list[tuple[float, float, float]]] = {a: [] for a in truth}
    for seed in range(runs):
        est = make_sampler("oasis", pool, seed=seed, strata=strata).run(budget=500)
        for a in truth:
            m = est.measure(a)
            rows[a].append((m.value, m.width, float(m.lower <= truth[a] <= m.upper)))
    tol = 3.5 * math.sqrt(NOMINAL * (1 - NOMINAL) / runs)
    for a, values in rows.items():
        x = np.array(values)
        assert x[:, 2].mean() >= NOMINAL - tol, (a, x[:, 2].mean())
        # about the empirical spread (0.09-0.10 here), and never the whole range
        ratio = float(np.median(x[:, 1])) / (2 * Z * float(np.std(x[:, 0], ddof=1)))
        assert WIDTH_RANGE[0] <= ratio <= WIDTH_RANGE[1], (a, ratio)
        assert np.all(x[:, 1] < 0.9), (a, x[:, 1].max())
