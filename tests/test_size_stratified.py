"""The size-stratified design: strata, allocation, the stratified ratio estimator, its
variance and finite-population correction, against hand computation, enumeration of every
sample of a tiny population, seeded Monte Carlo and the record design."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval._errors import InputError
from ereval._simulate import simulate
from ereval.estimators import (
    EstimationWarning,
    as_sample,
    cluster_terms,
    draw_sample,
    estimate,
    prepare_prediction,
    ratio_of_means,
)
from ereval.estimators._registry import SPEC_BY_KEY
from ereval.estimators._size_design import pilot_sd, plan_size_stratified, prediction_strata
from ereval.estimators._strata import allocate, default_bounds, proxy_sd, size_strata
from ereval.estimators._stratified import fpc_fraction, stratified_ratio_of_means
from ereval.metrics import evaluate

# A tiny population: 10 records, true clusters A (4), B (3), C (2), D (1);
# the prediction merges C into B's records and splits A in two.
TRUTH = {1: "A", 2: "A", 3: "A", 4: "A", 5: "B", 6: "B", 7: "B", 8: "C", 9: "C", 10: "D"}
PRED = {1: "a", 2: "a", 3: "a2", 4: "a2", 5: "b", 6: "b", 7: "b", 8: "b", 9: "b", 10: "d"}
KEYS = (
    "pairwise_precision",
    "pairwise_recall",
    "pairwise_f1",
    "b3_precision",
    "b3_recall",
    "cluster_precision",
    "cluster_recall",
    "homogeneity",
    "completeness",
)


def _true_pairs_predicted() -> int:
    """|T ∩ P| by a double loop over record pairs."""
    ids = list(TRUTH)
    return sum(
        TRUTH[i] == TRUTH[j] and PRED[i] == PRED[j] for i, j in itertools.combinations(ids, 2)
    )


def _predicted_pairs() -> int:
    ids = list(PRED)
    return sum(PRED[i] == PRED[j] for i, j in itertools.combinations(ids, 2))


def _labelled(
    drawn: dict[int, int], strata_of: dict[int, str], sizes: dict[str, int]
) -> pd.DataFrame:
    """The labelled table of drawn records (record -> draws): every record of their clusters."""
    clusters = {TRUTH[r] for r in drawn}
    rows = [
        {
            "record_id": r,
            "cluster_id": c,
            "stratum": strata_of[r],
            "stratum_records": sizes[strata_of[r]],
            "record_draws": drawn.get(r, 0),
        }
        for r, c in TRUTH.items()
        if c in clusters
    ]
    return pd.DataFrame(rows)


def _strata_of_tiny(bounds: list[int]) -> tuple[dict[int, str], dict[str, int]]:
    _, s = prediction_strata(PRED, strata=bounds)
    prepared = prepare_prediction(PRED, index=False)
    labels = {int(r): str(s.labels[s.codes[i]]) for i, r in enumerate(prepared.records)}
    sizes = {str(lab): int(n) for lab, n in zip(s.labels, s.sizes, strict=True)}
    return labels, sizes


class TestStrataAndAllocation:
    def test_default_bounds_are_powers_of_two(self) -> None:
        assert default_bounds(1) == [1]
        assert default_bounds(2) == [1, 2]
        assert default_bounds(100) == [1, 2, 3, 5, 9, 17, 33, 65]

    def test_strata_of_the_tiny_prediction(self) -> None:
        # predicted sizes: a 2, a2 2, b 5, d 1 -> strata 1 (1 record), 2 (4), 5 (5)
        s = size_strata([2, 2, 2, 2, 5, 5, 5, 5, 5, 1])
        assert s.labels.tolist() == ["1", "2", "5"]
        assert s.sizes.tolist() == [1, 4, 5]
        assert proxy_sd(s).tolist() == [1.0, 2.0, 5.0]

    def test_user_bounds_and_open_last_stratum(self) -> None:
        s = size_strata([1, 2, 3, 7, 7], bounds="1,3")
        assert s.labels.tolist() == ["1-2", "3+"]
        assert s.sizes.tolist() == [2, 3]

    def test_allocation_by_hand(self) -> None:
        # proportional 100 * (600, 300, 100) / 1000
        assert allocate(100, [600, 300, 100]).tolist() == [60, 30, 10]
        # Neyman N_h S_h = 600, 300, 800 -> 35.3, 17.6, 47.1 -> 35, 18, 47
        assert allocate(100, [600, 300, 100], sd=[1, 1, 8]).tolist() == [35, 18, 47]
        # a floor of 0.9 keeps 54, 27, 9 and shares the other 10 by Neyman above it
        out = allocate(100, [600, 300, 100], sd=[1, 1, 8], floor=0.9)
        assert out.sum() == 100 and (out >= [54, 27, 9]).all() and out[2] > 9
        # without replacement no stratum gets more than its records
        assert allocate(10, [3, 100], sd=[100, 1], replace=False).tolist()[0] == 3

    def test_allocation_refuses_too_few_draws(self) -> None:
        with pytest.raises(InputError, match="too small for 3 strata"):
            allocate(5, [10, 10, 10])
        with pytest.raises(InputError, match="'floor' must lie in"):
            allocate(50, [10, 10], floor=1.5)


class TestStratifiedRatioByHand:
    def test_two_strata(self) -> None:
        # weighted rows; R = 26/44, within-stratum residuals -1, +1 in each stratum,
        # V = (2 (1 + 1) + 2 (1 + 1)) / 44^2, the denominator constant within strata (no bias term)
        est, std = stratified_ratio_of_means(
            [1.0, 3.0, 10.0, 12.0], [2.0, 2.0, 20.0, 20.0], [0, 0, 1, 1], theta=[1.0, 1.0]
        )
        assert float(est) == pytest.approx(26 / 44, abs=1e-15)
        assert float(std) == pytest.approx(math.sqrt(8) / 44, abs=1e-15)
        _, std_fpc = stratified_ratio_of_means(
            [1.0, 3.0, 10.0, 12.0], [2.0, 2.0, 20.0, 20.0], [0, 0, 1, 1], theta=[0.5, 0.0]
        )
        assert float(std_fpc) == pytest.approx(math.sqrt(2) / 44, abs=1e-15)

    def test_one_stratum_is_the_unstratified_estimator(self) -> None:
        rng = np.random.default_rng(3)
        a = rng.random((5, 40)) + 0.1
        b = a * rng.random((5, 40))
        est, std = stratified_ratio_of_means(b, a, np.zeros(40, dtype=np.int64), theta=[1.0])
        ref_est, ref_std = ratio_of_means(b, a)
        np.testing.assert_allclose(est, ref_est, rtol=1e-12)
        np.testing.assert_allclose(std, ref_std, rtol=1e-12)

    def test_fpc_fraction(self) -> None:
        assert fpc_fraction([2, 5], [10, 5]).tolist() == [0.8, 0.0]


class TestEnumeration:
    """Every sample of the tiny population: exact expectations."""

    @pytest.mark.parametrize("replace", [False, True])
    def test_totals_unbiased_and_variance_exact(self, replace: bool) -> None:
        bounds = [1, 2, 5]
        strata_of, sizes = _strata_of_tiny(bounds)
        members = {h: [r for r in TRUTH if strata_of[r] == h] for h in sizes}
        # two draws in the strata of 4 and 5 records, the single record of stratum "1" once
        n_h = {"1": 1, "2-4": 2, "5": 2}
        n_total = len(TRUTH)
        tp, pp = _true_pairs_predicted(), _predicted_pairs()
        pick = itertools.combinations if not replace else itertools.product
        per_stratum = []
        for h, recs in members.items():
            if h == "1":
                per_stratum.append([(recs[0],)])
            elif replace:
                per_stratum.append(list(pick(recs, repeat=n_h[h])))  # type: ignore[call-arg]
            else:
                per_stratum.append(list(pick(recs, n_h[h])))  # type: ignore[call-arg]
        totals, variances, estimates = [], [], []
        for combo in itertools.product(*per_stratum):
            drawn: dict[int, int] = {}
            for part in combo:
                for r in part:
                    drawn[r] = drawn.get(r, 0) + 1
            # stratum "1" holds one record, drawn once: no variance either way
            s = as_sample(
                _labelled(drawn, strata_of, sizes), design="size_stratified", replace=replace
            )
            terms = cluster_terms(prepare_prediction(PRED, index=False), s)
            f, _ = SPEC_BY_KEY["pairwise_precision"].terms(terms, 1.0)
            b = (
                f[s.cluster_codes[s.draw_records]]
                / s.cluster_sizes[s.cluster_codes[s.draw_records]]
                * s.draw_weights
            )
            # A = 1 per record: the ratio is the total / N exactly, its variance V(total) / N^2
            theta = s.stratum_theta()
            est, std = stratified_ratio_of_means(b, s.draw_weights, s.draw_strata, theta=theta)
            totals.append(float(b.sum()))
            variances.append(float(std) ** 2 * n_total**2)
            estimates.append(float(est))
        totals_arr = np.asarray(totals)
        # E[B_hat] = sum_c f(c) = |T ∩ P| (the block form's numerator), exactly
        assert totals_arr.mean() == pytest.approx(tp, rel=1e-12)
        # E[V_hat] = Var(B_hat), exactly (Cochran 1977, Theorems 5.3 and 2.4)
        assert np.mean(variances) == pytest.approx(totals_arr.var(), rel=1e-9)
        assert np.mean(estimates) == pytest.approx(tp / n_total, rel=1e-12)
        assert pp > 0

    def test_ratio_estimate_nearly_unbiased(self) -> None:
        """The bias-corrected pairwise precision over every without-replacement sample."""
        strata_of, sizes = _strata_of_tiny([1, 2, 5])
        members = {h: [r for r in TRUTH if strata_of[r] == h] for h in sizes}
        truth_value = evaluate(TRUTH, PRED, metrics=["pairwise_precision"])["pairwise_precision"]
        values, plain = [], []
        for p2 in itertools.combinations(members["2-4"], 3):
            for p5 in itertools.combinations(members["5"], 3):
                drawn = {r: 1 for r in (*members["1"], *p2, *p5)}
                s = as_sample(
                    _labelled(drawn, strata_of, sizes), design="size_stratified", replace=False
                )
                e = estimate(PRED, s, metrics="pairwise_precision")["pairwise_precision"]
                values.append(e.value)
                terms = cluster_terms(prepare_prediction(PRED, index=False), s)
                f, g = SPEC_BY_KEY["pairwise_precision"].terms(terms, 1.0)
                cc = s.cluster_codes[s.draw_records]
                w = s.draw_weights / s.cluster_sizes[cc]
                plain.append(float((f[cc] * w).sum() / (g[cc] * w).sum()))
        bias = abs(np.mean(values) - truth_value)
        assert bias < 0.02
        assert bias <= abs(np.mean(plain) - truth_value) + 1e-12


class TestCensusAndFpc:
    def test_stratified_census_is_exact_with_zero_variance(self) -> None:
        strata_of, sizes = _strata_of_tiny([1, 2, 5])
        table = _labelled({r: 1 for r in TRUTH}, strata_of, sizes)
        s = as_sample(table, design="size_stratified", replace=False)
        exact = evaluate(TRUTH, PRED, metrics=list(KEYS))
        est = estimate(PRED, s, metrics=list(KEYS))
        for key in KEYS:
            assert est[key].value == pytest.approx(exact[key], abs=1e-12), key
            assert est[key].std == pytest.approx(0.0, abs=1e-12), key
            lo, hi = est[key].interval
            assert hi - lo == pytest.approx(0.0, abs=1e-9), key
        # forced off: the same sample gets a positive variance
        off = estimate(PRED, s, metrics="pairwise_precision", fpc=False)["pairwise_precision"]
        assert off.std > 0

    def test_record_census_without_replacement(self) -> None:
        s = draw_sample(TRUTH, n=len(TRUTH), design="record", replace=False, seed=1)
        assert s.population_size == len(TRUTH) and s.theta == 0.0
        exact = evaluate(TRUTH, PRED, metrics=list(KEYS))
        est = estimate(PRED, s, metrics=list(KEYS))
        for key in KEYS:
            assert est[key].value == pytest.approx(exact[key], abs=1e-12), key
            assert est[key].std == pytest.approx(0.0, abs=1e-12), key

    def test_record_fpc_is_one_minus_the_sampled_share(self) -> None:
        s = draw_sample(TRUTH, n=6, design="record", replace=False, seed=2)
        assert s.theta == pytest.approx(1 - 6 / 10)
        table = s.to_frame()
        again = as_sample(table, design="record", replace=False, population_size=10)
        with_fpc = estimate(PRED, again, metrics="pairwise_recall")["pairwise_recall"]
        plain = as_sample(table, design="record")
        without = estimate(PRED, plain, metrics="pairwise_recall")["pairwise_recall"]
        assert with_fpc.std == pytest.approx(without.std * math.sqrt(0.4), rel=1e-12)


def _record_and_single_stratum(
    truth: dict[int, int], pred: dict[int, int], drawn: list[int], replace: bool
) -> tuple[object, object]:
    counts = pd.Series(drawn).value_counts()
    clusters = {truth[r] for r in drawn}
    rows = [
        {
            "record_id": r,
            "cluster_id": c,
            "stratum": "all",
            "stratum_records": len(truth),
            "record_draws": int(counts.get(r, 0)),
        }
        for r, c in truth.items()
        if c in clusters
    ]
    table = pd.DataFrame(rows)
    per_cluster = table.groupby("cluster_id")["record_draws"].sum()
    record = as_sample(
        table[["record_id", "cluster_id"]],
        design="record",
        draws=per_cluster.to_dict(),
        replace=replace,
        population_size=None if replace else len(truth),
    )
    stratified = as_sample(table, design="size_stratified", replace=replace)
    return record, stratified


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=3, max_size=12),
    moves=st.lists(st.integers(0, 10_000), min_size=0, max_size=6),
    draws=st.lists(st.integers(0, 10_000), min_size=4, max_size=30),
    replace=st.booleans(),
)
def test_one_stratum_gives_the_record_design(
    sizes: list[int], moves: list[int], draws: list[int], replace: bool
) -> None:
    truth = {}
    r = 0
    for c, k in enumerate(sizes):
        for _ in range(k):
            truth[r] = c
            r += 1
    n = len(truth)
    pred = dict(truth)
    for m in moves:
        pred[m % n] = pred[(m // n) % n]
    drawn = [d % n for d in draws]
    if not replace:
        drawn = list(dict.fromkeys(drawn))
        if len(drawn) < 2:
            return
    record, stratified = _record_and_single_stratum(truth, pred, drawn, replace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimationWarning)  # NaN where undefined, on both paths
        a = estimate(pred, record, naive=False)
        b = estimate(pred, stratified, naive=False)
    assert list(a) == list(b)
    for key in a:
        for x, y in (
            (a[key].value, b[key].value),
            (a[key].std, b[key].std),
            *zip(a[key].interval, b[key].interval, strict=True),
        ):
            assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(
                y, rel=1e-9, abs=1e-12
            ), key


def _population(seed: int) -> tuple[dict[int, int], dict[int, int]]:
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(2.0, 700), 40)
    labels = np.repeat(np.arange(sizes.size), sizes)
    pred = labels.copy()
    moved = rng.choice(labels.size, labels.size // 10, replace=False)
    pred[moved] = labels[rng.integers(0, labels.size, moved.size)]
    return dict(enumerate(labels.tolist())), dict(enumerate(pred.tolist()))


@pytest.mark.parametrize("allocation", ["neyman", "proportional"])
def test_monte_carlo_bias_std_and_coverage(allocation: str) -> None:
    truth, pred = _population(7)
    repeats = 2000
    res = simulate(
        truth,
        pred,
        design="size_stratified",
        sample_size=150,
        repeats=repeats,
        seed=11,
        estimators=",".join(KEYS),
        naive=False,
        allocation=allocation,  # type: ignore[arg-type]
    )
    for row in res.summary.itertuples():
        # bias: within 4 Monte Carlo standard errors, or second order (< 10% of the spread)
        assert abs(row.bias) < max(4 * row.bias_se, 0.1 * row.empirical_std), row.estimator
        # the reported std tracks the spread (its own Monte Carlo error is a few percent)
        assert row.mean_std == pytest.approx(row.empirical_std, rel=0.2), row.estimator
        # 95% intervals: coverage within 3 standard errors of 0.95 or above
        se = math.sqrt(0.95 * 0.05 / repeats)
        assert row.coverage > 0.95 - 3 * se - 0.02, row.estimator


def test_monte_carlo_through_draw_sample_and_estimate() -> None:
    """The path a campaign takes (draw_sample, as_sample from the table, estimate)."""
    truth, pred = _population(8)
    exact = evaluate(truth, pred, metrics=["pairwise_precision"])["pairwise_precision"]
    rng = np.random.default_rng(5)
    prepared = prepare_prediction(pred)
    values, covered = [], 0
    for _ in range(120):
        s = draw_sample(truth, n=120, design="size_stratified", pred=pred, seed=rng)
        s = as_sample(s.to_frame(), design="size_stratified")
        e = estimate(prepared, s, metrics="pairwise_precision")["pairwise_precision"]
        values.append(e.value)
        covered += e.interval[0] <= exact <= e.interval[1]
    assert abs(np.mean(values) - exact) < 4 * np.std(values) / math.sqrt(len(values)) + 0.005
    assert covered / 120 >= 0.88


class TestPilotAndPlan:
    def test_pilot_allocation_favours_the_strata_with_errors(self) -> None:
        truth, pred = _population(9)
        pilot = draw_sample(truth, n=300, design="record", seed=1)
        prepared, strata = prediction_strata(pred)
        sd = pilot_sd(pilot, prepared, strata)
        assert sd.shape == (strata.n_strata,) and (sd >= 0).all() and sd.max() > 0
        s = draw_sample(
            truth,
            n=200,
            design="size_stratified",
            pred=pred,
            pilot=pilot,
            allocation="neyman",
            seed=2,
        )
        assert s.n_draws == 200 and (s.stratum_draws >= 2).all()

    def test_plan_columns_and_counts(self) -> None:
        plan = plan_size_stratified(PRED, n=7, strata=[1, 2, 5], allocation="proportional", seed=0)
        assert list(plan.columns) == ["record_id", "stratum", "stratum_records", "record_draws"]
        assert int(plan["record_draws"].sum()) == 7
        sizes = dict(zip(plan["stratum"], plan["stratum_records"], strict=False))
        assert sizes == {k: v for k, v in {"1": 1, "2-4": 4, "5": 5}.items() if k in sizes}


class TestBadInput:
    def _table(self) -> pd.DataFrame:
        strata_of, sizes = _strata_of_tiny([1, 2, 5])
        return _labelled({1: 1, 3: 1, 5: 1, 6: 1, 10: 1}, strata_of, sizes)

    def test_a_stratum_needs_two_draws(self) -> None:
        table = self._table()
        assert as_sample(table, design="size_stratified").stratum_draws.tolist() == [2, 2, 1]
        table.loc[table.record_id == 6, "record_draws"] = 0
        with pytest.raises(InputError, match="stratum '5' has 1 draw"):
            as_sample(table, design="size_stratified")

    def test_missing_columns_and_options_that_do_not_apply(self) -> None:
        table = self._table()
        with pytest.raises(InputError, match="no column 'stratum'"):
            as_sample(table.drop(columns="stratum"), design="size_stratified")
        with pytest.raises(
            InputError, match="'weights', 'weight_kind', 'blocks' and 'draws' do not"
        ):
            as_sample(table, design="size_stratified", weights="uniform")
        with pytest.raises(InputError, match="'population_size' does not apply"):
            as_sample(table, design="size_stratified", replace=False, population_size=10)
        bad = table.copy()
        bad.loc[bad.record_draws > 0, "stratum"] = None
        with pytest.raises(InputError, match="missing for 5 drawn record"):
            as_sample(bad, design="size_stratified")
        with pytest.raises(InputError, match="needs 'pred'"):
            draw_sample(TRUTH, n=6, design="size_stratified")
        with pytest.raises(InputError, match="options of design='size_stratified'"):
            draw_sample(TRUTH, n=6, design="record", strata=[1, 2])
        with pytest.raises(InputError, match="'allocation' must be one of"):
            draw_sample(TRUTH, n=6, design="size_stratified", pred=PRED, allocation="optimal")
        with pytest.raises(InputError, match="strictly increasing"):
            draw_sample(TRUTH, n=6, design="size_stratified", pred=PRED, strata=[2, 3])


def test_simulate_repeats_match_estimate_on_the_same_draws() -> None:
    """The vectorised simulation and estimate() give the same numbers for the same draws."""
    from ereval.estimators._size_design import stratified_draws, stratum_allocation

    truth, pred = _population(12)
    keys = "pairwise_precision,pairwise_recall,b3_recall,cluster_f1,homogeneity"
    res = simulate(
        truth,
        pred,
        design="size_stratified",
        sample_size=60,
        repeats=3,
        seed=21,
        estimators=keys,
        naive=False,
    )
    rng = np.random.default_rng(21)
    prepared, strata = prediction_strata(pred)
    n_h = stratum_allocation(strata, prepared, n=60)
    positions = stratified_draws(strata, n_h, seed=rng, repeats=3)
    labels = strata.labels[strata.codes]
    for r in range(3):
        drawn = pd.Series(prepared.records[positions[r]]).value_counts()
        clusters = {truth[int(x)] for x in drawn.index}
        rows = [
            {
                "record_id": rec,
                "cluster_id": c,
                "stratum": labels[rec],
                "stratum_records": int(strata.sizes[strata.codes[rec]]),
                "record_draws": int(drawn.get(rec, 0)),
            }
            for rec, c in truth.items()
            if c in clusters
        ]
        s = as_sample(pd.DataFrame(rows), design="size_stratified")
        est = estimate(pred, s, metrics=keys)
        for key, e in est.items():
            assert e.value == pytest.approx(res.estimates[key][r], rel=1e-10), key
            assert e.std == pytest.approx(res.stds[key][r], rel=1e-9), key
            lo, hi = res.intervals[key][0][r], res.intervals[key][1][r]
            assert e.interval == pytest.approx((lo, hi), rel=1e-9, abs=1e-12), key
