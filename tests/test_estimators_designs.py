"""Sampling designs: repeated draws, weights, blocks, replacement, and the sampling helper."""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from ereval.estimators import (
    ClusterSample,
    EstimationWarning,
    as_sample,
    draw_sample,
    estimate,
    prepare_prediction,
)

PRED = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}
SAMPLE = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 8: "c4"}


def _pp(sample: ClusterSample) -> tuple[float, float]:
    e = estimate(PRED, sample, metrics="pairwise_precision")["pairwise_precision"]
    return e.value, e.std


def test_repeated_draws_are_separate_rows() -> None:
    once = as_sample(SAMPLE, design="cluster", weights="uniform")
    twice = as_sample(SAMPLE, design="cluster", weights="uniform", draws=["c1", "c2", "c4", "c1"])
    counted = as_sample(
        SAMPLE, design="cluster", weights="uniform", draws={"c1": 2, "c2": 1, "c4": 1}
    )
    assert twice.n_draws == 4 and once.n_draws == 3
    assert twice.draws.tolist() == [0, 1, 2, 0]
    # draw order does not matter, only the multiset of draws
    assert _pp(twice) == pytest.approx(_pp(counted), rel=1e-15)
    # collapsing the repeated draw changes the estimate and its variance
    est_once, std_once = _pp(once)
    est_twice, std_twice = _pp(twice)
    assert std_twice != pytest.approx(std_once, rel=1e-3)
    # by hand: B = (1, 0, 0, 1), A = (1.5, 0.5, 1, 1.5): R = 2/4.5; residuals
    # d = B - R A = (1/3, -2/9, -4/9, 1/3); V = sum d^2 / (4 * 3 * Abar^2), Abar = 9/8
    d = np.array([1 / 3, -2 / 9, -4 / 9, 1 / 3])
    assert std_twice == pytest.approx(np.sqrt((d**2).sum() / (12 * (9 / 8) ** 2)), rel=1e-12)
    assert est_twice != pytest.approx(est_once)


def test_draws_column_in_a_table() -> None:
    frame = pd.DataFrame(
        {"record_id": list(SAMPLE), "cluster_id": list(SAMPLE.values()), "k": [2, 2, 2, 1, 1, 1]}
    )
    s = as_sample(frame, design="cluster", weights="uniform", draws="k")
    assert sorted(s.draws.tolist()) == [0, 0, 1, 2]


def test_inverse_probability_weights_are_equivalent() -> None:
    p = {"c1": 0.5, "c2": 0.2, "c4": 0.25}
    inv = {k: 1 / v for k, v in p.items()}
    a = as_sample(SAMPLE, design="cluster", weights=p)
    b = as_sample(SAMPLE, design="cluster", weights=inv, weight_kind="inverse_probability")
    assert np.allclose(a.probabilities, b.probabilities)
    assert _pp(a) == pytest.approx(_pp(b), rel=1e-12)


def test_probabilities_only_matter_up_to_a_constant() -> None:
    a = as_sample(SAMPLE, design="cluster", weights={"c1": 3, "c2": 2, "c4": 1})
    b = as_sample(SAMPLE, design="cluster", weights={"c1": 0.3, "c2": 0.2, "c4": 0.1})
    assert _pp(a) == pytest.approx(_pp(b), rel=1e-12)


def test_record_design_is_cluster_size_sampling() -> None:
    rec = as_sample(SAMPLE, design="record")
    clu = as_sample(SAMPLE, design="cluster", weights="cluster_size")
    assert rec.probabilities.tolist() == [3.0, 2.0, 1.0]
    assert _pp(rec) == pytest.approx(_pp(clu), rel=1e-15)
    assert rec.weights == "cluster_size"


def test_fpc_shrinks_the_variance() -> None:
    wr = as_sample(SAMPLE, design="cluster", weights="uniform")
    wor = as_sample(SAMPLE, design="cluster", weights="uniform", replace=False, population_size=7)
    assert wor.theta == pytest.approx(1 - 2 / 6)
    assert _pp(wor)[1] == pytest.approx(_pp(wr)[1] * np.sqrt(1 - 2 / 6), rel=1e-12)
    # without a population size, theta = 1 (the large-population approximation)
    assert as_sample(SAMPLE, design="cluster", weights="uniform", replace=False).theta == 1.0


def test_block_design_sums_clusters_per_block() -> None:
    blocks = {"c1": "A", "c2": "A", "c4": "B"}
    s = as_sample(SAMPLE, design="block", weights="uniform", blocks=blocks)
    assert s.n_units == 2 and s.n_draws == 2
    # block A: TP = 1, links = 1.5 + 0.5 = 2; block B: TP = 0, links = 1.
    # B = (1, 0), A = (2, 1): R = 1/3; d = (1/3, -1/3); sum A d = 1/3; Abar = 1.5
    e = estimate(PRED, s, metrics="pairwise_precision")["pairwise_precision"]
    assert e.value == pytest.approx(1 / 3 + (1 / 3) / (2 * 2.25))
    assert e.std == pytest.approx(np.sqrt((2 / 9) / (2 * 2.25)))
    size = as_sample(SAMPLE, design="block", weights="cluster_size", blocks=blocks)
    assert size.probabilities.tolist() == [5.0, 1.0]


def test_single_block_gives_a_ratio_of_sums_and_warns() -> None:
    with pytest.warns(EstimationWarning, match="single_block"):
        e = estimate(PRED, SAMPLE, design="single_block", metrics="pairwise_precision")
    # TP = 1 over links 1.5 + 0.5 + 1 = 3
    assert e["pairwise_precision"].value == pytest.approx(1 / 3)
    assert np.isnan(e["pairwise_precision"].std)
    assert "single_block" in e["pairwise_precision"].warnings[0]
    assert e["pairwise_precision"].method == "ratio of sums (block form, single_block design)"


def test_prepared_prediction_gives_the_same_results() -> None:
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        direct = estimate(PRED, s)
        prepared = estimate(prepare_prediction(PRED), s)
        unindexed = estimate(prepare_prediction(PRED, index=False), s)
    for key in direct:
        for other in (prepared, unindexed):
            a, b = direct[key], other[key]
            assert (a.value == b.value) or (np.isnan(a.value) and np.isnan(b.value))


def test_to_frame_lists_units_probabilities_and_draws() -> None:
    s = as_sample(SAMPLE, design="cluster", weights="cluster_size", draws=["c1", "c1", "c2", "c4"])
    frame = s.to_frame()
    assert frame["draws"].tolist() == [2, 2, 2, 1, 1, 1]
    assert frame["probability"].tolist() == [3.0, 3.0, 3.0, 2.0, 2.0, 1.0]


class TestDrawSample:
    TRUTH: ClassVar[list[list[int]]] = [[1, 2, 3, 4], [5, 6], [7], [8], [9, 10, 11]]

    def test_reproducible(self) -> None:
        a = draw_sample(self.TRUTH, n=20, design="record", seed=3)
        b = draw_sample(self.TRUTH, n=20, design="record", seed=3)
        assert a.draws.tolist() == b.draws.tolist()
        assert a.cluster_labels.tolist() == b.cluster_labels.tolist()

    def test_record_design_draws_clusters_proportionally_to_size(self) -> None:
        s = draw_sample(self.TRUTH, n=20000, design="record", seed=1)
        counts = np.bincount(s.draws, minlength=s.n_units)
        sizes = s.probabilities
        expected = 20000 * sizes / 11.0
        # chi-square with 4 degrees of freedom; 99.9% quantile is 18.47
        assert ((counts - expected) ** 2 / expected).sum() < 18.47

    def test_without_replacement_records_population_size(self) -> None:
        s = draw_sample(self.TRUTH, n=3, design="cluster", weights="uniform", replace=False, seed=0)
        assert s.n_draws == 3 and len(set(s.draws.tolist())) == 3
        assert s.population_size == 5 and s.theta == pytest.approx(1 - 2 / 4)

    def test_blocks(self) -> None:
        blocks = {0: "a", 1: "a", 2: "b", 3: "b", 4: "c"}
        s = draw_sample(self.TRUTH, n=4, design="block", weights="uniform", blocks=blocks, seed=2)
        assert s.design == "block" and s.n_draws == 4
        one = draw_sample(self.TRUTH, n=1, design="single_block", blocks=blocks, seed=2)
        assert one.n_draws == 1 and one.n_units == 1

    def test_sample_is_accepted_by_estimate(self) -> None:
        pred = [[1, 2, 3], [4, 5, 6], [7, 8], [9, 10, 11]]
        s = draw_sample(self.TRUTH, n=6, design="record", seed=4)
        out = estimate(pred, s, metrics="pairwise_recall,b3_recall")
        assert set(out) == {"pairwise_recall", "b3_recall"}


@pytest.mark.parametrize("index", [True, False])
@pytest.mark.parametrize(
    "ids",
    [
        np.arange(10, 18),  # dense integers (position table)
        np.arange(10, 18, dtype=np.uint64) + np.uint64(2**63),  # past 2^63 (the same table)
        np.array([5, 10**12, 7, 3, 10**9, 8, 1, 2]),  # sparse integers (hashing)
        np.array([f"r{i}" for i in range(8)], dtype=object),  # strings
    ],
)
def test_every_lookup_path_finds_the_same_records(ids: np.ndarray, index: bool) -> None:
    pred = pd.Series([1, 1, 2, 3, 2, 4, 4, 4], index=ids)
    prepared = prepare_prediction(pred, index=index)
    absent = np.array(["zz"], dtype=object) if ids.dtype == object else np.array([999], ids.dtype)
    pos = prepared.locate(np.concatenate([ids[[5, 0, 7]], absent]))
    assert pos.tolist() == [5, 0, 7, -1]
    sample = {ids[0]: "c1", ids[1]: "c1", ids[2]: "c1", ids[3]: "c2", ids[4]: "c2", ids[7]: "c4"}
    e = estimate(
        prepared, sample, design="cluster", weights="uniform", metrics="pairwise_precision"
    )
    assert e["pairwise_precision"].value == 0.3888888888888889
