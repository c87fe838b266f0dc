"""Estimators: formulas against brute force over explicit draws and pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval import InputError
from ereval.oasis import stratified_ratio, weighted_ratio
from ereval.oasis.estimates import adaptive_variance_sum, wald_interval


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.5, 1.0])
def test_weighted_ratio_matches_brute_force(alpha: float) -> None:
    rng = np.random.default_rng(1)
    t = 40
    w = rng.uniform(1, 50, t)
    lab = rng.integers(0, 2, t)
    pred = rng.integers(0, 2, t)
    census = rng.uniform(0, 3, (t, 3))
    x = census + w[:, None] * np.c_[lab * pred, pred, lab]
    est = weighted_ratio(x.sum(0), x.T @ x, alpha)
    a = x[:, 0]
    b = alpha * x[:, 1] + (1 - alpha) * x[:, 2]
    f = a.sum() / b.sum()
    u = a - f * b
    var = float(np.sum(u**2)) / b.sum() ** 2
    assert est.value == pytest.approx(f, rel=1e-12)
    assert est.std == pytest.approx(math.sqrt(var), rel=1e-9)
    z = 1.959963984540054
    assert est.lower == pytest.approx(max(0.0, f - z * math.sqrt(var)))
    assert est.upper == pytest.approx(min(1.0, f + z * math.sqrt(var)))


def test_weighted_ratio_undefined_is_nan() -> None:
    est = weighted_ratio(np.zeros(3), np.zeros((3, 3)), 0.5)
    assert all(math.isnan(v) for v in (est.value, est.std, est.lower, est.upper))


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_stratified_ratio_matches_brute_force(alpha: float) -> None:
    rng = np.random.default_rng(2)
    sizes = np.array([50, 30, 20])
    samples = [rng.integers(0, 2, (n, 2)) for n in (10, 6, 5)]  # columns: label, prediction
    n = np.array([len(s) for s in samples])
    tp = np.array([int((s[:, 0] & s[:, 1]).sum()) for s in samples])
    pp = np.array([int(s[:, 1].sum()) for s in samples])
    pos = np.array([int(s[:, 0].sum()) for s in samples])
    est = stratified_ratio(sizes, n, tp, pp, pos, alpha)
    totals = np.array(
        [
            sizes[k] * np.mean(np.c_[s[:, 0] & s[:, 1], s[:, 1], s[:, 0]], axis=0)
            for k, s in enumerate(samples)
        ]
    ).sum(0)
    den = alpha * totals[1] + (1 - alpha) * totals[2]
    f = totals[0] / den
    var = 0.0
    for k, s in enumerate(samples):
        e = (s[:, 0] & s[:, 1]) - f * (alpha * s[:, 1] + (1 - alpha) * s[:, 0])
        var += sizes[k] ** 2 * (1 - n[k] / sizes[k]) * np.var(e, ddof=1) / n[k]
    assert est.value == pytest.approx(f, rel=1e-12)
    assert est.std == pytest.approx(math.sqrt(var / den**2), rel=1e-9)


def test_stratified_ratio_unvisited_stratum_borrows_the_pooled_mean() -> None:
    # stratum 1 (size 10) not sampled: its rates are those of stratum 0 (2 TP, 2 PP, 3 P in 4)
    est = stratified_ratio(
        np.array([10, 10]),
        np.array([4, 0]),
        np.array([2, 0]),
        np.array([2, 0]),
        np.array([3, 0]),
        0.5,
    )
    assert est.value == pytest.approx(2 / 2.5)


def test_adaptive_variance_sum_matches_brute_force_on_a_labelled_pool() -> None:
    rng = np.random.default_rng(3)
    sizes = np.array([6, 4, 5])
    labels = [rng.integers(0, 2, n) for n in sizes]
    preds = [rng.integers(0, 2, n) for n in sizes]
    t_total = 12
    exhausted_at = np.array([-1, 5, -1])  # stratum 1 complete: counted exactly, no variance
    v = rng.uniform(0.1, 1.0, (t_total, 3))
    v[5:, 1] = 0.0
    v /= v.sum(1, keepdims=True)
    inv = np.where(v > 0, 1.0 / np.where(v > 0, v, 1.0), 0.0)
    alpha, f = 0.5, 0.6
    e = [
        (lab & pr) - f * (alpha * pr + (1 - alpha) * lab)
        for lab, pr in zip(labels, preds, strict=True)
    ]
    brute = 0.0
    for t in range(t_total):
        open_strata = (0, 2)
        brute += sum(sizes[k] ** 2 * np.mean(e[k] ** 2) / v[t, k] for k in open_strata)
        brute -= sum(float(e[k].sum()) for k in open_strata) ** 2
    got = adaptive_variance_sum(
        alpha,
        f,
        sizes=sizes,
        inv_v_sums=inv.sum(0),
        exhausted_at=exhausted_at,
        iterations=t_total,
        n_labelled=sizes,
        tp=np.array([int((lab & pr).sum()) for lab, pr in zip(labels, preds, strict=True)]),
        pp=np.array([int(pr.sum()) for pr in preds]),
        pos=np.array([int(lab.sum()) for lab in labels]),
        predicted=np.array([int(pr.sum()) for pr in preds]),
        prior_rate_predicted=np.full(3, 0.5),
        prior_rate_other=np.full(3, 0.5),
        prior_strength=2.0,
    )
    assert got == pytest.approx(max(brute, 0.0), rel=1e-9)


def test_adaptive_variance_uses_prior_rates_for_unlabelled_pairs() -> None:
    # one stratum of 10 pairs, nothing labelled, 2 predicted matches, prior rates
    # 0.5 (predicted) and 0.1 (other); F = 0.5, alpha = 0.5, S = 3 (three draws at v = 1)
    # e^2 sums: predicted: 2 * (0.5 * 0.25 + 0.5 * 0.0625); other: 8 * 0.1 * 0.0625
    # e sums: 2 * (0.5 * 0.5 - 0.5 * 0.25) - 8 * 0.1 * 0.25
    e2 = 2 * (0.5 * 0.25 + 0.5 * 0.0625) + 8 * 0.1 * 0.0625
    e1 = 2 * (0.5 * 0.5 - 0.5 * 0.25) - 8 * 0.1 * 0.25
    expected = 10 * e2 * 3 - 3 * e1**2
    got = adaptive_variance_sum(
        0.5,
        0.5,
        sizes=np.array([10]),
        inv_v_sums=np.array([3.0]),
        exhausted_at=np.array([-1]),
        iterations=3,
        n_labelled=np.array([0]),
        tp=np.array([0]),
        pp=np.array([0]),
        pos=np.array([0]),
        predicted=np.array([2]),
        prior_rate_predicted=np.array([0.5]),
        prior_rate_other=np.array([0.1]),
        prior_strength=5.0,
    )
    assert got == pytest.approx(expected)


def test_wald_interval_clips_and_checks_confidence() -> None:
    est = wald_interval(0.95, 0.01, confidence=0.9)
    assert est.upper == 1.0 and est.lower == pytest.approx(0.95 - 1.6448536269514722 * 0.1)
    with pytest.raises(InputError, match=r"'confidence' must lie in \(0, 1\); received 1.0"):
        wald_interval(0.5, 0.01, confidence=1.0)


def test_too_few_labels_for_recall_is_a_warning_not_a_silent_std_of_1_46() -> None:
    from ereval.oasis import OASISSampler

    from ._oasis_support import paper_pool

    est = OASISSampler(paper_pool("abt-buy-svm.csv.gz"), seed=0).run(budget=100)
    recall = est.recall
    assert (recall.n, recall.method, recall.level) == (100, "oasis", 0.95)
    assert recall.std == pytest.approx(1.4568, abs=1e-4)
    assert recall.interval == (0.0, 1.0)  # clamped
    (warning,) = recall.warnings
    assert warning.startswith("recall has a standard error (1.46) too large for its range [0, 1]")
    assert "100 labels are too few" in warning and "sample for it (alpha = 0)" in warning
    assert est.precision.warnings == ()  # 0.85 +- 0.12: informative
    assert warning in est.warnings and len(est.warnings) == 2  # F-alpha's and recall's


def test_an_undefined_measure_says_why() -> None:
    from ereval.oasis import PassiveSampler, Pool

    pool = Pool.from_arrays([0.1, 0.2, 0.3, 0.4], [0, 0, 0, 0], labels=[0, 0, 0, 0])
    est = PassiveSampler(pool, replace=False, seed=0).run(budget=2)
    assert math.isnan(est.precision.value) and math.isnan(est.precision.lower)
    assert est.precision.warnings == (
        "precision is undefined: none of the 2 labelled pairs counts in its denominator yet; "
        "label more pairs",
    )
