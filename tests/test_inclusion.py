"""Unequal-probability draws without replacement: exact inclusion probabilities, HT estimators.

Three kinds of check: the sampler's inclusion probabilities enumerated exactly
(every order of the units and every interval of the start point, in rational
arithmetic), the Horvitz-Thompson total's expectation over that enumeration, and
seeded Monte Carlo of the ratio estimators' bias, standard error and coverage.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from ereval import simulate
from ereval._errors import InputError
from ereval._simulate import inject_errors
from ereval.estimators import as_sample, draw_sample, estimate
from ereval.estimators._inclusion import (
    hajek_theta,
    inclusion_probabilities,
    inclusion_theta,
    systematic_pick,
    systematic_sample,
)
from ereval.estimators._ratio import ratio_of_means
from ereval.metrics import evaluate


def _exact_design(pi: list[Fraction]) -> dict[tuple[int, ...], Fraction]:
    """Probability of every sample under randomised systematic sampling, exactly.

    For each of the ``T!`` equally likely orders the sample is a step function of
    ``U``, constant between the fractional parts of the cumulative sums: evaluate
    :func:`systematic_pick` at each piece's midpoint, weighted by its length.
    """
    t = len(pi)
    out: dict[tuple[int, ...], Fraction] = {}
    n_orders = math.factorial(t)
    for order in itertools.permutations(range(t)):
        cuts = {Fraction(0), Fraction(1)}
        total = Fraction(0)
        for k in order:
            total += pi[k]
            cuts.add(total - math.floor(total))
        edges = sorted(cuts)
        for lo, hi in itertools.pairwise(edges):
            if hi == lo:
                continue
            mid = (lo + hi) / 2
            picked = systematic_pick(
                [float(p) for p in pi], np.array([order]), np.array([float(mid)])
            )
            key = tuple(int(x) for x in picked[0])
            out[key] = out.get(key, Fraction(0)) + (hi - lo) / n_orders
    return out


PI_CASES = [
    [Fraction(1, 5), Fraction(1, 2), Fraction(3, 5), Fraction(7, 10)],
    [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3), Fraction(1, 1), Fraction(1, 1)],
    [Fraction(1, 10), Fraction(2, 5), Fraction(1, 2), Fraction(3, 4), Fraction(1, 4)],
]


class TestInclusionProbabilities:
    def test_hand_case_with_a_certainty(self) -> None:
        # p = 1, 1, 2, 8 and n = 2: 2 * 8/12 > 1, so unit 3 is certain; the rest share 1 draw
        assert inclusion_probabilities([1, 1, 2, 8], 2).tolist() == [0.25, 0.25, 0.5, 1.0]

    def test_cascading_certainties(self) -> None:
        # n = 3: 3 * 10/21 > 1 -> certain; then 2 * 8/11 > 1 -> certain; 1 left for 1, 1, 1
        pi = inclusion_probabilities([1, 1, 1, 8, 10], 3)
        assert pi == pytest.approx([1 / 3, 1 / 3, 1 / 3, 1.0, 1.0])

    @pytest.mark.parametrize("n", [1, 5, 17, 40])
    def test_sum_and_proportionality(self, n: int) -> None:
        p = np.random.default_rng(n).pareto(1.0, 40) + 0.1
        pi = inclusion_probabilities(p, n)
        assert pi.sum() == pytest.approx(n, rel=1e-12)
        assert ((pi > 0) & (pi <= 1)).all()
        free = pi < 1
        if free.any():
            assert np.allclose(pi[free] / p[free], (pi[free] / p[free])[0])
        # a certain unit is at least as large as every uncertain one
        if (~free).any() and free.any():
            assert p[~free].min() >= p[free].max()

    def test_bad_input(self) -> None:
        with pytest.raises(InputError, match="cannot draw 5 units"):
            inclusion_probabilities([1, 2, 3], 5)
        with pytest.raises(InputError, match="finite and > 0"):
            inclusion_probabilities([1, 0, 3], 1)
        with pytest.raises(InputError, match="sum to a whole number"):
            systematic_sample([0.5, 0.7])
        with pytest.raises(InputError, match=r"\(0, 1\]"):
            systematic_sample([1.5, 0.5])


class TestSystematicSampler:
    @pytest.mark.parametrize("pi", PI_CASES)
    def test_enumeration_realises_pi_exactly(self, pi: list[Fraction]) -> None:
        design = _exact_design(pi)
        n = int(sum(pi))
        assert sum(design.values()) == 1
        assert all(len(set(s)) == n for s in design)  # n distinct units every time
        for u, want in enumerate(pi):
            got = sum((pr for s, pr in design.items() if u in s), Fraction(0))
            assert got == want, (u, got, want)

    @pytest.mark.parametrize("pi", PI_CASES)
    def test_horvitz_thompson_total_is_unbiased(self, pi: list[Fraction]) -> None:
        y = [Fraction(3), Fraction(-1), Fraction(7), Fraction(2), Fraction(5)][: len(pi)]
        design = _exact_design(pi)
        expect = sum((pr * sum(y[u] / pi[u] for u in s) for s, pr in design.items()), Fraction(0))
        assert expect == sum(y)

    def test_sampler_frequencies_match_pi(self) -> None:
        pi = inclusion_probabilities([1, 2, 3, 4, 10, 1, 1], 3)
        reps = 20000
        drawn = systematic_sample(pi, seed=0, repeats=reps)
        assert drawn.shape == (reps, 3)
        assert (np.diff(drawn, axis=1) > 0).all()
        freq = np.bincount(drawn.ravel(), minlength=7) / reps
        se = np.sqrt(pi * (1 - pi) / reps)
        assert np.all(np.abs(freq - pi) <= 4.5 * se + 1e-12)


class TestHajekVariance:
    def test_hand_case(self) -> None:
        # z = (2, -1, -1), pi = (0.5, 0.5, 1): c = (0.5, 0.5, 0); G = (1 - 0.5) / 1 = 0.5
        # sum c (z - G)^2 = 0.5 * 2.25 + 0.5 * 2.25 = 2.25; sum z^2 = 6
        assert float(hajek_theta([2.0, -1.0, -1.0], [0.5, 0.5, 1.0])) == pytest.approx(0.375)

    def test_equal_probabilities_give_the_srs_correction(self) -> None:
        z = np.array([1.5, -0.5, 2.0, -3.0])  # sums to 0, like residuals of a ratio
        assert float(hajek_theta(z, np.full(4, 0.4))) == pytest.approx(0.6)

    def test_ratio_rows(self) -> None:
        # b = (1, 0), a = (1, 1), pi = 0.5: R = 1/2, z = (1/2, -1/2), theta = 1 - 0.5
        assert float(inclusion_theta([1.0, 0.0], [1.0, 1.0], [0.5, 0.5])) == pytest.approx(0.5)
        assert float(inclusion_theta([1.0, 0.0], [1.0, 1.0], [1.0, 1.0])) == 0.0


def _population(seed: int, k: int = 150) -> tuple[pd.DataFrame, dict[int, int]]:
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(1.8, size=k), 25)
    labels = np.repeat(np.arange(k), sizes)
    truth = {i: int(c) for i, c in enumerate(labels)}
    moved = inject_errors(truth, rate=0.15, seed=seed)
    pred = dict(zip(moved.records.tolist(), moved.clusters.tolist(), strict=True))
    return pd.DataFrame({"record_id": list(truth), "cluster_id": labels}), pred


class TestEstimators:
    def test_drawn_sample_keeps_exact_inclusion_probabilities(self) -> None:
        truth, _ = _population(0)
        s = draw_sample(
            truth, n=60, design="cluster", weights="cluster_size", replace=False, seed=3
        )
        assert s.inclusion and s.weights == "inclusion" and s.n_units == 60
        sizes = truth.groupby("cluster_id").size()
        pi = pd.Series(inclusion_probabilities(sizes.to_numpy(), 60), index=sizes.index)
        assert np.allclose(s.probabilities, pi.loc[s.unit_labels.tolist()].to_numpy())
        # the table it writes reads back as the same sample
        back = as_sample(s.to_frame(), design="cluster", replace=False)
        assert back.inclusion and np.allclose(back.probabilities, s.probabilities)

    def test_hand_computed_estimate(self) -> None:
        # two sampled clusters {1,2} (pi 1/2) and {3} (pi 1/4); pred merges 2 and 3
        sample = pd.DataFrame(
            {"record_id": [1, 2, 3], "cluster_id": ["a", "a", "b"], "pi": [0.5, 0.5, 0.25]}
        )
        pred = {1: "x", 2: "y", 3: "y"}
        s = as_sample(
            sample, design="cluster", weights="pi", weight_kind="inclusion_probability",
            replace=False,
        )  # fmt: skip
        est = estimate(pred, s, metrics="pairwise_recall", naive=False)["pairwise_recall"]
        # recall rows: B = true links found (0 for a, 0 for b), A = true links (1, 0) / pi
        assert est.value == 0.0
        # b3 recall: per cluster sum_r |c ∩ ĉ(r)| / |c| ... check the ratio path against rows
        e = estimate(pred, s, metrics="b3_recall", naive=False)["b3_recall"]
        b = np.array([1.0, 1.0]) / np.array([0.5, 0.25])  # sum_r |c∩ĉ|/|c|: a: 1/2+1/2, b: 1
        a = np.array([2.0, 1.0]) / np.array([0.5, 0.25])  # records
        theta = float(inclusion_theta(b, a, [0.5, 0.25]))
        want, sd = ratio_of_means(b, a, theta=theta)
        assert e.value == pytest.approx(float(want)) and e.std == pytest.approx(float(sd))
        # HT ratio (no bias correction) = (2 + 4) / (4 + 4)
        assert float(b.sum() / a.sum()) == pytest.approx(0.75)

    def test_census_is_exact_with_zero_variance(self) -> None:
        truth, pred = _population(1)
        k = truth["cluster_id"].nunique()
        s = draw_sample(truth, n=k, design="cluster", weights="cluster_size", replace=False, seed=0)
        assert np.all(s.probabilities == 1.0)
        exact = evaluate(dict(zip(truth.record_id, truth.cluster_id, strict=True)), pred)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            est = estimate(pred, s, metrics="pairwise_precision,pairwise_recall,b3_recall")
        for key, e in est.items():
            assert e.value == pytest.approx(exact[key], rel=1e-12), key
            assert e.std == pytest.approx(0.0, abs=1e-12), key

    def test_record_design_without_replacement_census(self) -> None:
        truth, pred = _population(2, k=60)
        n = len(truth)
        s = draw_sample(truth, n=n, design="record", replace=False, seed=0)
        assert s.theta == 0.0
        est = estimate(pred, s, metrics="pairwise_precision_record", naive=False)
        exact = evaluate(dict(zip(truth.record_id, truth.cluster_id, strict=True)), pred)
        e = est["pairwise_precision_record"]
        assert e.value == pytest.approx(exact["pairwise_precision"], rel=1e-12)
        assert e.std == 0.0

    def test_bad_options(self) -> None:
        frame = pd.DataFrame({"record_id": [1, 2], "cluster_id": [1, 2], "pi": [0.5, 1.5]})
        with pytest.raises(InputError, match=r"\(0, 1\]"):
            as_sample(frame, design="cluster", weights="pi",
                      weight_kind="inclusion_probability", replace=False)  # fmt: skip
        with pytest.raises(InputError, match="replace=False"):
            as_sample(frame, design="cluster", weights="pi", weight_kind="inclusion_probability")
        with pytest.raises(InputError, match="applies to design='cluster', 'block'"):
            as_sample(frame, design="record", weight_kind="inclusion_probability", replace=False)
        with pytest.raises(InputError, match="population_size"):
            as_sample(frame, design="cluster", weights="pi", replace=False, population_size=4,
                      weight_kind="inclusion_probability")  # fmt: skip

    def test_simulate_matches_estimate_on_one_sample(self) -> None:
        """simulate's vectorised path and estimate() agree draw for draw."""
        truth, pred = _population(3)
        keys = ["pairwise_precision", "pairwise_recall"]
        res = simulate(truth, pred=pred, sample_size=50, repeats=3, design="cluster",
                       weights="cluster_size", replace=False, estimators=keys, seed=5)  # fmt: skip
        rng = np.random.default_rng(5)
        sizes = truth.groupby("cluster_id").size()
        pi = inclusion_probabilities(sizes.to_numpy(), 50)
        assert res.estimates["pairwise_precision"].shape == (3,)
        # same stream: simulate draws the systematic samples first
        drawn = systematic_sample(pi, seed=rng, repeats=3)
        for r in range(3):
            keep = sizes.index[drawn[r]]
            part = truth[truth["cluster_id"].isin(keep)].copy()
            part["pi"] = part["cluster_id"].map(pd.Series(pi, index=sizes.index))
            s = as_sample(part, design="cluster", weights="pi",
                          weight_kind="inclusion_probability", replace=False)  # fmt: skip
            one = estimate(pred, s, metrics=keys, naive=False)
            for key in keys:
                assert res.estimates[key][r] == pytest.approx(one[key].value, rel=1e-10)
                assert res.stds[key][r] == pytest.approx(one[key].std, rel=1e-10)


def test_monte_carlo_bias_std_and_coverage() -> None:
    """Seeded: 60% of the clusters drawn with pi ∝ size; tolerances from Monte Carlo error."""
    truth, pred = _population(4, k=200)
    keys = ["pairwise_precision", "pairwise_recall", "b3_precision", "b3_recall"]
    reps = 600
    kw = {"pred": pred, "sample_size": 120, "repeats": reps, "design": "cluster",
          "weights": "cluster_size", "replace": False, "estimators": keys}  # fmt: skip
    res = simulate(truth, seed=11, **kw)  # type: ignore[arg-type]
    wr = simulate(truth, seed=11, fpc=False, **kw)  # type: ignore[arg-type]
    summary = res.summary.set_index("estimator")
    for key in keys:
        values = res.estimates[key]
        sd = float(values.std(ddof=1))
        truth_value = float(res.true_values[key])
        # bias: within 4 Monte Carlo standard errors (plus the ratio's O(1/n) bias)
        assert abs(values.mean() - truth_value) <= 4 * sd / math.sqrt(reps) + 0.1 * sd, key
        # the reported std tracks the empirical one (its MC error ~ 1/sqrt(2 reps) ~ 3%)
        ratio = float(np.sqrt(np.mean(res.stds[key] ** 2))) / sd
        assert 0.8 <= ratio <= 1.25, (key, ratio)
        # nominal 95%: 3 binomial standard errors below
        assert summary.loc[key, "coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps), key
        # the with-replacement approximation ignores the 60% share: wider
        assert np.mean(wr.stds[key]) > 1.2 * np.mean(res.stds[key]), key


def test_predicted_clusters_without_replacement_census() -> None:
    """Predicted clusters drawn with pi ∝ size, all of them: the exact precision, no variance."""
    from ereval.estimators._unequal_designs import plan_predicted_cluster

    truth, pred = _population(5, k=80)
    k = len(set(pred.values()))
    plan = plan_predicted_cluster(pred, n=k, weights="cluster_size", replace=False, seed=0)
    assert "inclusion_probability" in plan.columns and (plan["inclusion_probability"] == 1).all()
    labelled = plan.merge(truth, on="record_id")
    s = as_sample(labelled, design="predicted_cluster", replace=False)
    assert s.inclusion
    est = estimate(pred, s, metrics="pairwise_precision,b3_precision", naive=False)
    exact = evaluate(dict(zip(truth.record_id, truth.cluster_id, strict=True)), pred)
    for key, e in est.items():
        assert e.value == pytest.approx(exact[key], rel=1e-12) and e.std == 0.0
    part = plan_predicted_cluster(pred, n=10, weights="cluster_size", replace=False, seed=0)
    assert part["unit_id"].nunique() == 10
    pi = part.groupby("unit_id")["inclusion_probability"].first()
    assert ((pi > 0) & (pi <= 1)).all() and (pi < 1).any()


def test_subsets_keep_the_inclusion_probabilities() -> None:
    """Restricted samples and subgroups keep the Horvitz-Thompson form and Hajek's variance."""
    from ereval.estimators._restrict import restrict_sample

    truth, pred = _population(6)
    k = truth["cluster_id"].nunique()
    s = draw_sample(truth, n=k, design="cluster", weights="cluster_size", replace=False, seed=1)
    half = truth["record_id"].to_numpy()[::2]
    r = restrict_sample(s, half)
    assert r.inclusion and r.weights == "inclusion"
    # still a census of the restricted population: no variance
    e = estimate(pred, r, metrics="b3_recall", naive=False)["b3_recall"]
    assert e.std == pytest.approx(0.0, abs=1e-12)
    # a subgroup of a census is a census of the subgroup
    keep = sorted(truth["cluster_id"].unique())[: k // 3]
    sub = estimate(pred, s, metrics="b3_precision", naive=False, subgroup=keep)["b3_precision"]
    assert sub.std == pytest.approx(0.0, abs=1e-12)
    # theta_for: every unit of a census has pi = 1, so no correction is left
    rows = np.array([1.0, 0.0, 2.0])
    assert s.theta_for(rows, np.ones(3), [0, 1, 2]) == 0.0


class TestPoissonRecords:
    """Expected-error records drawn without replacement: Poisson sampling, exact pi_c."""

    def test_cluster_inclusion_by_enumeration(self) -> None:
        # records of one cluster with pi 1/2, 1/3 and 1/4: the cluster is missed only when
        # all three are, (1/2)(2/3)(3/4) = 1/4, so pi_c = 3/4
        pi = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 4)]
        missed = Fraction(0)
        for hits in itertools.product((0, 1), repeat=3):
            pr = math.prod((p if h else 1 - p) for p, h in zip(pi, hits, strict=True))
            if not any(hits):
                missed += pr
        from ereval.estimators._inclusion import cluster_inclusion

        got = cluster_inclusion([float(p) for p in pi], [0, 0, 0], 1)
        assert got[0] == pytest.approx(float(1 - missed)) and 1 - missed == Fraction(3, 4)

    def test_poisson_theta_hand_case(self) -> None:
        from ereval.estimators._inclusion import poisson_theta

        # n = 2 rows: (n-1)/n * sum (1 - pi) z^2 / sum z^2 = 1/2 * (0.5 + 0.5) / 2
        assert float(poisson_theta([1.0, -1.0], [0.5, 0.5])) == pytest.approx(0.25)

    def test_draw_read_back_and_census(self) -> None:
        truth, pred = _population(7, k=120)
        q = pd.Series(np.random.default_rng(0).uniform(0.2, 1.0, len(truth)), index=truth.record_id)
        s = draw_sample(truth, n=80, design="expected_error", weights=q, replace=False, seed=2)
        assert s.poisson and not s.replace and s.n_draws == s.n_clusters
        back = as_sample(s.to_frame(), design="expected_error", replace=False)
        assert back.poisson and np.allclose(back.probabilities, s.probabilities)
        full = draw_sample(
            truth, n=len(truth), design="expected_error", weights=q, replace=False, seed=2
        )
        exact = evaluate(dict(zip(truth.record_id, truth.cluster_id, strict=True)), pred)
        est = estimate(pred, full, metrics="pairwise_precision,b3_recall", naive=False)
        for key, e in est.items():
            assert e.value == pytest.approx(exact[key], rel=1e-12) and e.std == 0.0

    def test_simulate_matches_estimate(self) -> None:
        truth, pred = _population(8, k=100)
        q = pd.Series(np.random.default_rng(1).uniform(0.1, 1.0, len(truth)), index=truth.record_id)
        keys = ["pairwise_precision", "b3_recall"]
        res = simulate(truth, pred=pred, sample_size=60, repeats=3, design="expected_error",
                       weights=q, replace=False, estimators=keys, seed=4)  # fmt: skip
        # the same stream: one uniform per population cluster per repeat, in cluster order
        pop = as_sample(truth, design="expected_error", weights=q)
        pi_r = inclusion_probabilities(pop.record_probabilities, 60)
        from ereval.estimators._inclusion import cluster_inclusion

        pi_c = cluster_inclusion(pi_r, pop.cluster_codes, pop.n_clusters)
        included = np.random.default_rng(4).random((3, pop.n_clusters)) < pi_c
        for r in range(3):
            labels = pop.cluster_labels[included[r]]
            keep = np.isin(pop.clusters, labels)
            part = pd.DataFrame({"record_id": pop.records[keep], "cluster_id": pop.clusters[keep],
                                 "record_inclusion_probability": pi_r[keep]})  # fmt: skip
            one = estimate(pred, as_sample(part, design="expected_error", replace=False),
                           metrics=keys, naive=False)  # fmt: skip
            for key in keys:
                assert res.estimates[key][r] == pytest.approx(one[key].value, rel=1e-10)
                assert res.stds[key][r] == pytest.approx(one[key].std, rel=1e-10)

    def test_monte_carlo(self) -> None:
        truth, pred = _population(9, k=200)
        rng = np.random.default_rng(3)
        q = pd.Series(rng.uniform(0.05, 1.0, len(truth)), index=truth.record_id)
        keys = ["pairwise_precision", "pairwise_recall", "b3_precision", "b3_recall"]
        reps = 600
        res = simulate(truth, pred=pred, sample_size=150, repeats=reps, design="expected_error",
                       weights=q, replace=False, estimators=keys, seed=12)  # fmt: skip
        summary = res.summary.set_index("estimator")
        for key in keys:
            values = res.estimates[key]
            sd = float(values.std(ddof=1))
            assert abs(values.mean() - res.true_values[key]) <= 4 * sd / math.sqrt(reps) + 0.1 * sd
            ratio = float(np.sqrt(np.mean(res.stds[key] ** 2))) / sd
            assert 0.8 <= ratio <= 1.25, (key, ratio)
            assert summary.loc[key, "coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps), key


def test_a_total_the_design_fixes_has_no_variance() -> None:
    """Big clusters taken with certainty and equal-size singletons for the rest: b3 recall's
    HT total is the same in every sample, so its standard error is 0 and its interval finite."""
    labels = np.concatenate([np.repeat(np.arange(5), 20), np.arange(5, 65)])
    truth = pd.DataFrame({"record_id": np.arange(labels.size), "cluster_id": labels})
    # the big clusters are split in two halves, the singletons predicted right
    pred = {int(r): f"{c}-{r % 2}" for r, c in zip(truth.record_id, labels, strict=True)}
    exact = evaluate(dict(zip(truth.record_id, truth.cluster_id, strict=True)), pred)
    for seed in range(5):
        s = draw_sample(truth, n=30, design="cluster", weights="cluster_size", replace=False,
                        seed=seed)  # fmt: skip
        assert np.sort(s.probabilities)[-5:].tolist() == [1.0] * 5
        e = estimate(pred, s, metrics="b3_recall", naive=False)["b3_recall"]
        assert e.value == pytest.approx(exact["b3_recall"], rel=1e-12)
        assert e.std == 0.0 and e.interval == (e.value, e.value)
