"""The two options of OASISSampler that follow the paper (Marchant & Rubinstein 2017)
where this sampler's defaults follow other choices: ``completed_strata="sampled"``
(the plain estimator of eq. 3 once a stratum is fully labelled, as the authors'
``oasis`` 0.1.3 package does) and ``prior_scale="per_stratum"`` (the prior
``eta [pi0; 1 - pi0]`` of Algorithm 3, line 1, where the authors' code gives each
stratum ``eta / K``). Hand cases show what each switch changes; a seeded Monte
Carlo check shows the estimates stay unbiased and their intervals cover."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from ereval._errors import InputError
from ereval.oasis import OASISSampler, Pool, Strata, load_sampler, stratify, synthetic_pool

# -- a small pool with a tiny top stratum ------------------------------------------
# stratum 0: two predicted matches (both true); stratum 1: 40 predicted non-matches,
# 4 of them true matches
N_TOP, N_REST = 2, 40
LABELS = np.array([1, 1] + [1] * 4 + [0] * (N_REST - 4))
PRED = np.array([1] * N_TOP + [0] * N_REST)
SCORES = np.concatenate([[0.95, 0.9], np.linspace(0.4, 0.01, N_REST)])
PROBS = np.array([0.9, 0.9] + [0.1] * N_REST)
STRATA = Strata.from_allocations([0] * N_TOP + [1] * N_REST)


def small_pool() -> Pool:
    return Pool.from_arrays(SCORES, PRED, labels=LABELS, probabilities=PROBS)


def run_until_top_complete(completed: str, seed: int) -> OASISSampler:
    """Label until stratum 0 is complete and a true match of stratum 1 is labelled."""
    sampler = OASISSampler(
        small_pool(), strata=STRATA, seed=seed, completed_strata=completed, epsilon=0.2
    )
    while not (
        {0, 1} <= set(sampler.labelled[0].tolist())
        and {2, 3, 4, 5} & set(sampler.labelled[0].tolist())
    ):
        q = sampler.ask()
        assert q is not None
        sampler.tell(int(LABELS[q.index]))
    return sampler


def weighted_f(idx: np.ndarray, w: np.ndarray, alpha: float, census: tuple[float, ...]) -> float:
    """F-alpha of (census counts) + (1/T) sum_t W_t f(z_t), from the run's history."""
    t = idx.shape[0]
    y, a = LABELS[idx].astype(float), PRED[idx].astype(float)
    tp = census[0] + float(np.sum(w * y * a)) / t
    pp = census[1] + float(np.sum(w * a)) / t
    p = census[2] + float(np.sum(w * y)) / t
    return tp / (alpha * pp + (1 - alpha) * p)


@pytest.mark.parametrize("seed", range(5))
def test_sampled_keeps_the_plain_estimator_after_a_stratum_completes(seed: int) -> None:
    sampler = run_until_top_complete("sampled", seed)
    idx, w = sampler.history
    # eq. 3 over every draw, the completed stratum's included
    plain = weighted_f(idx, w, 0.5, (0.0, 0.0, 0.0))
    assert sampler.estimate().f_measure.value == pytest.approx(plain, rel=1e-12)
    # and the completed stratum keeps its mass in the instrumental distribution
    assert sampler.instrumental()[0] > 0.0


@pytest.mark.parametrize("seed", range(5))
def test_exact_counts_a_completed_stratum_exactly(seed: int) -> None:
    sampler = run_until_top_complete("exact", seed)
    idx, w = sampler.history
    # stratum 0 is known: TP = 2, PP = 2, P = 2; its draws leave the sums
    open_draws = STRATA.allocations[idx] == 1
    exact = weighted_f(idx, np.where(open_draws, w, 0.0), 0.5, (2.0, 2.0, 2.0))
    assert sampler.estimate().f_measure.value == pytest.approx(exact, rel=1e-12)
    assert sampler.instrumental()[0] == 0.0
    plain = weighted_f(idx, w, 0.5, (0.0, 0.0, 0.0))
    assert exact != pytest.approx(plain, rel=1e-9)  # the switch changes the number


def test_the_two_agree_until_a_stratum_completes() -> None:
    pool = synthetic_pool(3_000, imbalance=30.0, separation=3.5, seed=3)
    strata = stratify(pool.scores, n_strata=15)
    a = OASISSampler(pool, strata=strata, seed=11)
    b = OASISSampler(pool, strata=strata, seed=11, completed_strata="sampled")
    ea, eb = a.run(budget=40), b.run(budget=40)
    assert (a._unlabelled > 0).all()  # nothing completed yet
    assert np.array_equal(a.history[0], b.history[0])
    assert ea.f_measure.value == eb.f_measure.value
    assert ea.f_measure.lower == eb.f_measure.lower


@pytest.mark.parametrize("decaying", [True, False])
def test_prior_per_stratum_is_k_times_stronger(decaying: bool) -> None:
    pool = small_pool()
    k, eta = 2, 3.0
    pi0 = {0: 0.9, 1: 0.1}
    for scale, strength in (("split", eta / k), ("per_stratum", eta)):
        s = OASISSampler(
            pool,
            strata=STRATA,
            seed=0,
            prior_strength=eta,
            decaying_prior=decaying,
            prior_scale=scale,  # type: ignore[arg-type]
        )
        # before any label every stratum sits on its prior mean pi0
        assert s.pi.tolist() == pytest.approx([0.9, 0.1])
        q = s.ask()
        assert q is not None
        s.tell(1)
        # one match in stratum k (n_k = 1: the decaying weight 1/n_k is 1 too):
        # (1 + s pi0) / (1 + s) with s = eta / K = 1.5 (split) or eta = 3 (paper)
        p0 = pi0[q.stratum]
        assert s.pi[q.stratum] == pytest.approx((1 + strength * p0) / (1 + strength), rel=1e-12)
        other = 1 - q.stratum
        assert s.pi[other] == pytest.approx(pi0[other])


def test_prior_scale_hand_values() -> None:
    # stratum 1 (pi0 = 0.1) after one match, eta = 3, K = 2:
    # split (1 + 1.5 * 0.1) / 2.5 = 0.46; per stratum (1 + 3 * 0.1) / 4 = 0.325
    from ereval.oasis._model import posterior_mean, prior_pseudo_counts

    for strength, expected in ((3.0 / 2, 0.46), (3.0, 0.325)):
        g1, g0 = prior_pseudo_counts([0.1], strength)
        assert posterior_mean([1], [1], g1, g0).tolist() == pytest.approx([expected])


def test_default_prior_strength_is_2k_in_both_scales() -> None:
    pool = small_pool()
    for scale in ("split", "per_stratum"):
        s = OASISSampler(pool, strata=STRATA, seed=0, prior_scale=scale)  # type: ignore[arg-type]
        assert s.prior_strength == 4.0 and s.prior_scale == scale


def test_options_are_checked_and_saved(tmp_path: object) -> None:
    pool = small_pool()
    with pytest.raises(InputError, match=r"^'completed_strata' must be one of 'exact', 'sampled'"):
        OASISSampler(pool, completed_strata="plain")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^'prior_scale' must be one of 'split', 'per_stratum'"):
        OASISSampler(pool, prior_scale="paper")  # type: ignore[arg-type]
    sampler = OASISSampler(
        pool, strata=STRATA, seed=3, completed_strata="sampled", prior_scale="per_stratum"
    )
    sampler.run(budget=5)
    from pathlib import Path

    path = Path(str(tmp_path)) / "state.npz"
    sampler.save(path)
    again = load_sampler(path, pool)
    assert isinstance(again, OASISSampler)
    assert again.completed_strata == "sampled" and again.prior_scale == "per_stratum"
    assert again.estimate().f_measure.value == sampler.estimate().f_measure.value


# -- seeded Monte Carlo -----------------------------------------------------------
# R seeded runs per setting on a pool whose small top stratum (10 predicted matches)
# completes in most runs; the mean error within 3.5 standard errors of 0
# (se = sd / sqrt(R)) and the coverage of the 95% intervals at least
# 0.95 - 3.5 sqrt(0.95 0.05 / R).
R = 100
COVER_TOL = 3.5 * math.sqrt(0.95 * 0.05 / R)


@cache
def mc_pool() -> tuple[Pool, Strata]:
    rng = np.random.default_rng(7)
    n_top, n_rest = 10, 290
    probs = np.concatenate([np.full(n_top, 0.8), np.linspace(0.3, 0.005, n_rest)])
    labels = (rng.random(probs.size) < probs).astype(int)
    pred = np.array([1] * n_top + [0] * n_rest)
    pool = Pool.from_arrays(probs, pred, labels=labels, probabilities=probs)
    strata = Strata.from_allocations(np.concatenate([[0] * n_top, np.repeat(np.arange(1, 6), 58)]))
    return pool, strata


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        {"completed_strata": "sampled"},
        {"prior_scale": "per_stratum"},
        {"completed_strata": "sampled", "prior_scale": "per_stratum"},
    ],
)
def test_estimates_stay_unbiased_and_covered(options: dict[str, str]) -> None:
    pool, strata = mc_pool()
    truth = pool.true_measure(0.5)
    err, covered, completed = [], [], 0
    for r in range(R):
        sampler = OASISSampler(pool, strata=strata, seed=r, **options)  # type: ignore[arg-type]
        est = sampler.run(budget=60).f_measure
        err.append(est.value - truth)
        covered.append(est.lower <= truth <= est.upper)
        completed += int((sampler._unlabelled == 0).any())
    e = np.array(err)
    assert np.isfinite(e).all()
    assert abs(e.mean()) <= 3.5 * e.std(ddof=1) / math.sqrt(R), (e.mean(), e.std(ddof=1))
    assert np.mean(covered) >= 0.95 - COVER_TOL
    assert completed >= R // 3  # the top stratum did complete: the switches were exercised
