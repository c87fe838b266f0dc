"""The sampling baselines (eqs. 2-5, Algorithm 1) and the annotation counts (Figure 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval import InputError, InputTypeError
from ereval.paula import (
    annotation_counts,
    hoeffding_half_width,
    hoeffding_sample_size,
    paula_plan,
    random_sampling_annotations,
    random_sampling_curve,
    random_sampling_threshold,
    stratified_annotations,
    stratified_design,
    stratified_sample_size,
    uniform_sample_ranks,
)

from . import _paula_support as ref

SCIENCE_KB = 217_077

# --------------------------------------------------------------------------- eqs. 2-5


def test_eq2_and_eq3_by_hand() -> None:
    # eq. (2): ln(2/0.05) / (2 * 0.1^2 * 0.5^2) = 3.688879 / 0.005 = 737.78
    z = hoeffding_sample_size(epsilon=0.1, precision=0.5, failure_probability=0.05)
    assert z == pytest.approx(math.log(40) / 0.005, rel=1e-15)
    assert round(z, 2) == 737.78
    # eq. (3) with the 2000 samples of §5.3: sqrt(ln(40) / 4000) = 0.03037
    assert hoeffding_half_width(2000, failure_probability=0.05) == pytest.approx(
        math.sqrt(math.log(40) / 4000), rel=1e-15
    )
    # eq. (2) and eq. (3) are two views of the same bound: z samples of eq. (2)
    # give a half-width of epsilon * p
    hw = hoeffding_half_width(math.ceil(z), failure_probability=0.05)
    assert hw <= 0.1 * 0.5 < hoeffding_half_width(math.floor(z), failure_probability=0.05)


def test_eq5_convention_and_the_papers_47030() -> None:
    plan = paula_plan(SCIENCE_KB, epsilon=0.03, delta=100)
    alpha = plan.approximation - 1.0  # gamma (1 + epsilon) - 1 = 0.0812 exactly
    assert alpha == pytest.approx(0.0812, rel=1e-12)
    kw = {"precision": 0.7, "failure_probability": 0.05}
    exact = random_sampling_annotations(SCIENCE_KB, alpha=alpha, **kw)
    # sqrt(2 * 217077 / (0.0812^2 * 0.49) * ln(2 * 217077 / 0.05)) = 46,335.5
    assert exact == pytest.approx(46_335.506, abs=0.01)
    # the paper's 47,030 (§1, §4.4.3) is the same formula with alpha rounded to 0.08,
    # truncated: 47,030.54
    assert int(random_sampling_annotations(SCIENCE_KB, alpha=0.08, **kw)) == 47_030
    assert (
        annotation_counts(
            SCIENCE_KB, epsilon=0.03, delta=100, p_min=0.7, failure_probability=0.05
        ).random_sampling
        == 46_336
    )


def test_eq4_and_eq5_are_consistent() -> None:
    # eq. (5) is s + n_{alpha,s} at the s where s = n_{alpha,s}
    kw = {"alpha": 0.05, "precision": 0.6, "failure_probability": 0.1}
    total = random_sampling_annotations(10**6, **kw)
    s = total / 2
    assert random_sampling_threshold(10**6, round(s), **kw) == pytest.approx(s, rel=1e-5)
    # eq. (4) with the setting of §4.4.3: N / (2 s alpha^2 p^2) ln(2N/delta), s = 17,392
    n_as = random_sampling_threshold(
        SCIENCE_KB, 17_392, alpha=0.0812, precision=0.7, failure_probability=0.05
    )
    assert n_as == pytest.approx(
        SCIENCE_KB / (2 * 17_392 * 0.0812**2 * 0.49) * math.log(2 * SCIENCE_KB / 0.05)
    )
    assert round(n_as) == 30_862


def test_figure_1_shape() -> None:
    # N = 10^7, p_min = 0.5, Delta = 100 (Figure 1), delta = 0.05
    def counts(eps: float) -> tuple[int, int, int]:
        c = annotation_counts(10**7, epsilon=eps, delta=100, p_min=0.5, failure_probability=0.05)
        return c.paula, c.stratified, c.random_sampling

    # "PAULA requires over an order of magnitude fewer annotations than random sampling"
    for eps in (0.0075, 0.01, 0.02, 0.03, 0.05, 0.1):
        paula, _, rand = counts(eps)
        assert rand > 10 * paula
    # stratified sampling "starts off as more efficient ... when alpha is small" ...
    paula, strat, _ = counts(0.001)  # alpha = 2.2 %
    assert strat < paula
    # ... "but requires twice as many" for approximation errors of a few percent
    for eps in (0.0075, 0.01, 0.02, 0.03, 0.04):  # alpha = 3.5 % .. 10.3 %
        paula, strat, _ = counts(eps)
        assert 1.75 < strat / paula < 2.3


def test_annotation_counts_fields() -> None:
    c = annotation_counts(SCIENCE_KB, epsilon=0.03, delta=100, p_min=0.7, failure_probability=0.05)
    assert (c.n, c.delta, c.paula) == (SCIENCE_KB, 100, 17_392)
    assert c.alpha == pytest.approx(0.0812)
    assert c.stratified == math.ceil(
        stratified_annotations(
            SCIENCE_KB, epsilon=0.03, r_tilde=3400, p_min=0.7, failure_probability=0.05
        )
    )
    small = annotation_counts(5000, epsilon=0.05, delta=50, p_min=0.1, failure_probability=0.05)
    assert small.random_sampling == 5000  # eq. (5) gives 34,900: never more than the list


# --------------------------------------------------------------------------- Algorithm 1


def test_section_444_stratified_numbers() -> None:
    # delta = 0.05, epsilon = 0.03, p_min = 0.5, r~ = 1000: ell = 234, m = 29, gamma = 1.1;
    # factor epsilon / (2 (gamma-1)^2 (1+epsilon) p^2) = 0.03 / 0.00515 = 5.825 (paper:
    # 5.8); per point factor * ln((L - ell) / (delta/2)): 46.8 for N = 10^4 (L = 311)
    # and 50.9 for N = 10^5 (L = 389); the paper, with 5.8, prints 46.6 and 50.6.
    kw = {"epsilon": 0.03, "r_tilde": 1000, "p_min": 0.5, "failure_probability": 0.05}
    g_ell = ref.g(0.03, 234)
    assert g_ell == 1010  # ceil(1.03^234) = ceil(1009.0x)
    factor = 0.03 / (2 * (1.1 - 1) ** 2 * 1.03 * 0.25)
    assert round(factor, 1) == 5.8
    for n, big_l, paper in [(10_000, 311, 46.6), (100_000, 389, 50.6)]:
        per_point = (stratified_annotations(n, **kw) - g_ell) / (big_l - 234)
        assert per_point == pytest.approx(factor * math.log(40 * (big_l - 234)), rel=1e-9)
        assert round(5.8 * math.log(40 * (big_l - 234)), 1) == paper
    assert round((stratified_annotations(10_000, **kw) - g_ell) / 77, 1) == 46.8
    assert round((stratified_annotations(100_000, **kw) - g_ell) / 155, 1) == 50.9
    # s = ceil(ln(2 (L - ell) / delta) / (2 (beta - 1)^2 p^2)) with beta = gamma = 1.1
    assert stratified_sample_size(10_000, **kw) == math.ceil(math.log(40 * 77) / 0.005)


def test_stratified_design_structure() -> None:
    d = stratified_design(
        50_000, epsilon=0.1, r_tilde=200, p_min=0.5, failure_probability=0.1, beta=1.3, seed=11
    )
    k = d.grid.size
    # every X_k has exactly s members
    alive = np.zeros(k, dtype=int)
    for b, e in zip(d.sample_birth, d.sample_death, strict=True):
        alive[b : e + 1] += 1
    assert alive.tolist() == [d.s] * k
    # members born at k > 0 were drawn from (g_{k-1}, g_k]; at 0 from 1..g_ell
    born = d.sample_birth
    assert np.all(d.sample_rank[born == 0] <= d.grid[0])
    later = born > 0
    assert np.all(d.sample_rank[later] > d.grid[born[later] - 1])
    assert np.all(d.sample_rank[later] <= d.grid[born[later]])
    # annotations close to Theorem 2's expectation (duplicates only lower the count)
    theory = stratified_annotations(
        50_000, epsilon=0.1, r_tilde=200, p_min=0.5, failure_probability=0.1, beta=1.3
    )
    assert 0.9 * theory < d.annotations <= 1.1 * theory
    ranks = d.ranks()
    assert np.all(np.diff(ranks) > 0) and ranks[0] == 1


def test_stratified_estimate_matches_its_definition_and_covers() -> None:
    # S_k / s computed by hand from the membership, and simultaneous coverage of the
    # Hoeffding intervals over seeded repetitions (at most delta = 0.2 may fail;
    # failures ~ Binomial(30, <= 0.2) so > 15 happens with probability < 1e-3).
    n = 20_000
    rng = np.random.default_rng(5)
    v = (rng.random(n) < np.linspace(0.95, 0.55, n)).astype(np.int64)
    p = np.cumsum(v) / np.arange(1, n + 1)
    failures = 0
    for seed in range(30):
        d = stratified_design(
            n, epsilon=0.1, r_tilde=150, p_min=0.5, failure_probability=0.2, beta=1.2, seed=seed
        )
        ranks = d.ranks()
        est = d.estimate(ranks, v[ranks - 1])
        if seed == 0:
            by_hand = [
                v[d.sample_rank[(d.sample_birth <= k) & (d.sample_death >= k)] - 1].sum() / d.s
                for k in range(1, d.grid.size)
            ]
            np.testing.assert_allclose(est.estimate_grid[1:], by_hand)
            assert est.estimate_grid[0] == p[d.grid[0] - 1]
            assert est.estimate(np.arange(1, 101)).tolist() == p[:100].tolist()
        lo, hi = est.interval(d.grid)
        failures += not np.all((lo <= p[d.grid - 1]) & (p[d.grid - 1] <= hi))
    assert failures <= 15


def test_stratified_errors() -> None:
    d = stratified_design(
        5_000, epsilon=0.2, r_tilde=60, p_min=0.5, failure_probability=0.1, seed=1
    )
    ranks = d.ranks()
    with pytest.raises(InputError, match=r"have no label"):
        d.estimate(ranks[:-1], np.ones(ranks.size - 1, int))
    with pytest.raises(InputError, match=r"not in the design"):
        d.estimate(np.r_[ranks[:-1], ranks[-1] + 1], np.ones(ranks.size, int))
    with pytest.raises(InputError, match=r"'r_tilde' is too small .* m = .* must be >= 1"):
        stratified_sample_size(1000, epsilon=0.1, r_tilde=5, p_min=0.5, failure_probability=0.1)
    with pytest.raises(InputError, match=r"'beta' must lie in \(1, inf\]; received 1.0"):
        stratified_sample_size(
            1000, epsilon=0.1, r_tilde=50, p_min=0.5, failure_probability=0.1, beta=1.0
        )
    with pytest.raises(InputError, match=r"'p_min' must lie in \(0, 1\]; received 0.0"):
        stratified_design(1000, epsilon=0.1, r_tilde=50, p_min=0.0, failure_probability=0.1)
    # no strata beyond the prefix: nothing to sample
    assert (
        stratified_sample_size(50, epsilon=0.1, r_tilde=50, p_min=0.5, failure_probability=0.1) == 0
    )


# --------------------------------------------------------------------------- §3 estimator


def test_random_sampling_curve_by_hand() -> None:
    # samples at ranks 2, 5, 9 with labels 1, 0, 1 in a list of 10
    cur = random_sampling_curve(
        10, [9, 2, 5], [1, 1, 0], ranks=[1, 2, 6, 10], failure_probability=0.9
    )
    p = cur["precision"]
    assert p.n.tolist() == [0, 1, 2, 3] and cur.points.tolist() == [1, 2, 6, 10]
    assert np.isnan(p.value[0]) and p.value[1:].tolist() == [1.0, 0.5, 2 / 3]
    half = math.sqrt(math.log(2 / 0.9) / (2 * 2))  # eq. (3) with z = 2, delta = 0.9
    assert p.lower[2] == pytest.approx(0.5 - half) and p.upper[2] == pytest.approx(0.5 + half)
    assert (p.lower[0], p.upper[0]) == (0.0, 1.0)  # no sample: no information
    assert p.upper[1] == 1.0  # clipped
    assert cur.level == pytest.approx(0.1) and np.isnan(p.std).all()
    joint = random_sampling_curve(
        10, [2, 5, 9], [1, 0, 1], simultaneous=True, failure_probability=0.5
    )
    assert joint.details["failure_probability"] == 0.05
    assert joint.points.tolist() == [2, 5, 9, 10]
    assert list(cur.to_frame().columns) == [
        "rank",
        "precision",
        "precision_std",
        "precision_lower",
        "precision_upper",
    ]


def test_random_sampling_pointwise_coverage() -> None:
    # eq. (3) at r = N/2 with delta = 0.2 over 40 seeded samples of 300: Hoeffding is
    # conservative, so at most 8 misses are expected; > 16 has probability < 1e-3.
    n = 10_000
    rng = np.random.default_rng(2)
    v = (rng.random(n) < np.linspace(0.9, 0.3, n)).astype(np.int64)
    truth = v[: n // 2].mean()
    misses = 0
    for seed in range(40):
        s = uniform_sample_ranks(n, 300, seed=seed)
        cur = random_sampling_curve(n, s, v[s - 1], ranks=[n // 2], failure_probability=0.2)
        misses += not (cur["precision"].lower[0] <= truth <= cur["precision"].upper[0])
    assert misses <= 16


def test_uniform_sample_ranks() -> None:
    s = uniform_sample_ranks(2_000_000_000, 1000, seed=np.random.default_rng(0))
    assert s.size == 1000 and np.all(np.diff(s) > 0) and s[0] >= 1 and s[-1] <= 2_000_000_000
    assert uniform_sample_ranks(5, 5, seed=1).tolist() == [1, 2, 3, 4, 5]
    with pytest.raises(
        InputError, match=r"'s' must be at most n=5 \(sampling without replacement\)"
    ):
        uniform_sample_ranks(5, 6)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "exc", "pattern"),
    [
        (
            lambda: hoeffding_sample_size(epsilon=0, precision=0.5, failure_probability=0.05),
            InputError,
            r"'epsilon' must lie in \(0, inf\]; received 0",
        ),
        (
            lambda: hoeffding_sample_size(epsilon=0.1, precision=1.5, failure_probability=0.05),
            InputError,
            r"'precision' must lie in \(0, 1\]; received 1.5",
        ),
        (
            lambda: hoeffding_sample_size(epsilon=0.1, precision=0.5, failure_probability=1.0),
            InputError,
            r"'failure_probability' must lie in \(0, 1\); received 1.0",
        ),
        (
            lambda: hoeffding_half_width(0, failure_probability=0.05),
            InputError,
            r"'z' must be an integer >= 1; received 0",
        ),
        (
            lambda: random_sampling_threshold(
                100, 0, alpha=0.1, precision=0.5, failure_probability=0.05
            ),
            InputError,
            r"'s' must be an integer >= 1",
        ),
        (
            lambda: random_sampling_annotations(
                100, alpha=-1, precision=0.5, failure_probability=0.05
            ),
            InputError,
            r"'alpha' must lie in \(0, inf\]",
        ),
        (
            lambda: random_sampling_curve(10, [1, 1], [0, 1]),
            InputError,
            r"'sample_ranks' must be distinct",
        ),
        (
            lambda: random_sampling_curve(10, [1, 11], [0, 1]),
            InputError,
            r"'sample_ranks' must lie in 1\.\.10",
        ),
        (
            lambda: random_sampling_curve(10, [1, 2], [0, 3]),
            InputError,
            r"'sample_labels' must hold only 0 and 1",
        ),
        (
            lambda: random_sampling_curve(10, [1.0, 2.0], [0, 1]),
            InputTypeError,
            r"'sample_ranks' must hold integer ranks",
        ),
        (
            lambda: random_sampling_curve(10, [1, 2], [0]),
            InputError,
            r"same length; received 2 and 1",
        ),
        (
            lambda: annotation_counts(1000, epsilon=2, delta=5, p_min=0.5, failure_probability=0.1),
            InputError,
            r"'epsilon' must lie in \(0, 1\]; received 2",
        ),
    ],
)
def test_bad_input(call: object, exc: type[Exception], pattern: str) -> None:
    with pytest.raises(exc, match=pattern):
        call()  # type: ignore[operator]
