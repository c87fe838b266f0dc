"""Each step of OASIS against hand calculations: prior, posterior, F guess, v*, weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval.oasis import (
    OASISSampler,
    Pool,
    Strata,
    epsilon_greedy,
    initial_f_guess,
    optimal_item_weights,
    optimal_strata_weights,
    posterior_mean,
    prior_pseudo_counts,
)


def test_initial_f_guess_by_hand() -> None:
    # strata sizes 2 and 8; pi0 = 0.5, 0.1; lambda = 1, 0
    # TP ~ 2*0.5*1 = 1; PP = 2; P ~ 2*0.5 + 8*0.1 = 1.8 -> F = 1 / (0.5*2 + 0.5*1.8)
    assert initial_f_guess(0.5, [2, 8], [0.5, 0.1], [1.0, 0.0]) == pytest.approx(1 / 1.9)
    assert initial_f_guess(1.0, [2, 8], [0.5, 0.1], [1.0, 0.0]) == pytest.approx(0.5)
    assert initial_f_guess(0.5, [2], [0.0], [0.0]) == 0.5  # 0/0 -> 1/2


def test_prior_and_posterior_by_hand() -> None:
    g1, g0 = prior_pseudo_counts([0.25, 0.5], 4.0)
    np.testing.assert_allclose(g1, [1.0, 2.0])
    np.testing.assert_allclose(g0, [3.0, 2.0])
    # no labels yet: the prior mean
    np.testing.assert_allclose(posterior_mean([0, 0], [0, 0], g1, g0), [0.25, 0.5])
    # stratum 0: 2 matches in 4 labels; decaying prior weighs 1/4:
    # (2 + 1/4) / (4 + 4/4) = 0.45; static prior: (2 + 1) / (4 + 4) = 0.375
    assert posterior_mean([2], [4], [1.0], [3.0])[0] == pytest.approx(0.45)
    assert posterior_mean([2], [4], [1.0], [3.0], decaying=False)[0] == pytest.approx(0.375)


def test_optimal_strata_weights_by_hand() -> None:
    alpha, f = 0.5, 0.6
    pi = [0.9, 0.2, 0.01]
    lam = [1.0, 0.5, 0.0]
    w = [0.1, 0.2, 0.7]
    t0 = 0.1 * math.sqrt(0.3**2 * 0.1 + 0.4**2 * 0.9)
    # lambda = 1/2: (1 - alpha)(1 - lambda) F sqrt(pi) + lambda sqrt(...)
    t1 = 0.2 * (0.5 * 0.5 * 0.6 * math.sqrt(0.2) + 0.5 * math.sqrt(0.3**2 * 0.8 + 0.4**2 * 0.2))
    t2 = 0.7 * 0.5 * 0.6 * 0.1
    expected = np.array([t0, t1, t2]) / (t0 + t1 + t2)
    np.testing.assert_allclose(optimal_strata_weights(alpha, f, pi, lam, w), expected, rtol=1e-12)
    # all terms zero: fall back to the stratum weights
    np.testing.assert_allclose(
        optimal_strata_weights(0.5, 0.0, [0.0, 0.0], [0.0, 0.0], w[:2]), [1 / 3, 2 / 3]
    )


def test_optimal_item_weights_is_the_pairwise_formula() -> None:
    prob = np.array([0.9, 0.3, 0.01, 0.04])
    pred = np.array([1, 1, 0, 0])
    alpha, f = 0.5, 0.5
    raw = np.where(
        pred == 1,
        np.sqrt((alpha * f) ** 2 * (1 - prob) + (1 - f) ** 2 * prob),
        (1 - alpha) * f * np.sqrt(prob),
    )
    np.testing.assert_allclose(optimal_item_weights(alpha, f, prob, pred), raw / raw.sum())


def test_epsilon_greedy_by_hand() -> None:
    np.testing.assert_allclose(epsilon_greedy([1.0, 0.0], [0.25, 0.75], 0.2), [0.85, 0.15])


def _tiny_oasis(seed: int = 0, **options: object) -> OASISSampler:
    # 2 strata: {0, 1} with scores 0.9, 0.8 (both predicted 1), {2..9} predicted 0
    scores = [0.9, 0.8] + [0.1] * 8
    preds = [1, 1] + [0] * 8
    pool = Pool.from_arrays(scores, preds, labels=[1, 0] + [0] * 7 + [1])
    strata = Strata.from_allocations([1, 1] + [0] * 8)
    return OASISSampler(pool, strata=strata, seed=seed, **options)  # type: ignore[arg-type]


def test_oasis_initial_state_by_hand() -> None:
    s = _tiny_oasis(epsilon=0.1)
    # pi0 = mean probability: [0.1, 0.85]; lambda = [0, 1]; omega = [0.8, 0.2]
    np.testing.assert_allclose(s.pi, [0.1, 0.85])
    # F0 = (2*0.85*1) / (0.5 * 2 + 0.5 * (8*0.1 + 2*0.85)) = 1.7 / 2.25
    assert s.f_guess == pytest.approx(1.7 / 2.25)
    assert s.prior_strength == 4.0  # 2 K
    f = 1.7 / 2.25
    t0 = 0.8 * 0.5 * f * math.sqrt(0.1)
    t1 = 0.2 * math.sqrt((0.5 * f) ** 2 * 0.15 + (1 - f) ** 2 * 0.85)
    vstar = np.array([t0, t1]) / (t0 + t1)
    expected = 0.1 * np.array([0.8, 0.2]) + 0.9 * vstar
    np.testing.assert_allclose(s.instrumental(), expected, rtol=1e-12)


def test_oasis_update_weight_and_posterior_after_one_label() -> None:
    s = _tiny_oasis(seed=3, epsilon=0.1)
    v = s.instrumental()
    q = s.ask()
    assert q is not None
    k = q.stratum
    s.tell(int(s.pool.labels[q.index]))  # type: ignore[index]
    _, w = s.history
    # W = N p(z) / q(z) = N_k / v_k
    assert w[0] == pytest.approx(s.strata.sizes[k] / v[k], rel=1e-12)
    # posterior of stratum k after one label with the decaying prior (1/n = 1):
    # (l + 2 pi0) / (1 + 2)
    pi0 = [0.1, 0.85][k]
    label = int(s.pool.labels[q.index])  # type: ignore[index]
    assert s.pi[k] == pytest.approx((label + 2 * pi0) / 3)
    # the estimate after one draw is the plain ratio of the weighted counts
    tp = w[0] * label * q.prediction
    den = 0.5 * w[0] * q.prediction + 0.5 * w[0] * label
    est = s.estimate().f_measure.value
    if den > 0:
        assert est == pytest.approx(tp / den)
    else:
        assert math.isnan(est)


def test_exhausted_stratum_leaves_the_distribution_and_counts_exactly() -> None:
    s = _tiny_oasis(seed=1, epsilon=0.5)
    while not (s.strata.sizes[1] == 2 and s._unlabelled[1] == 0):  # label both top pairs
        q = s.ask()
        assert q is not None
        s.tell(int(s.pool.labels[q.index]))  # type: ignore[index]
    v = s.instrumental()
    assert v[1] == 0.0 and v[0] == pytest.approx(1.0)
    # the top stratum now counts exactly (TP = 1, PP = 2, P = 1); the sums keep
    # only the draws from the open stratum 0, earlier ones included
    q = s.ask()
    assert q is not None and q.stratum == 0  # no more draws from the completed stratum
    s.tell(int(s.pool.labels[q.index]))  # type: ignore[index]
    assert s._census == [1.0, 2.0, 1.0]
    idx, w = s.history
    in0 = s.strata.allocations[idx] == 0
    labels = s.pool.labels[idx].astype(float)  # type: ignore[index]
    preds = s.pool.predictions[idx].astype(float)
    np.testing.assert_allclose(
        s._sums,
        [np.sum((w * labels * preds)[in0]), np.sum((w * preds)[in0]), np.sum((w * labels)[in0])],
    )
    t = s.iterations
    tp = 1.0 + np.sum((w * labels * preds)[in0]) / t
    pp = 2.0 + np.sum((w * preds)[in0]) / t
    pos = 1.0 + np.sum((w * labels)[in0]) / t
    assert s.estimate().f_measure.value == pytest.approx(tp / (0.5 * pp + 0.5 * pos))


def test_draws_follow_the_instrumental_distribution() -> None:
    from scipy.stats import chisquare

    s = _tiny_oasis(seed=5, epsilon=0.2)
    v = s.instrumental()
    draws = np.array([s._draw()[2] for _ in range(20_000)])  # state frozen: no labels
    counts = np.bincount(draws, minlength=2)
    assert chisquare(counts, v * draws.size).pvalue > 1e-4
