"""Reviewer errors: the sensitivity of the estimates, the rate from double review, and the
benchmark of one reviewer (Binette et al. 2024, §3.4; Binette et al. 2022, §§2.2 and 4)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ereval import InputError
from ereval._simulate import inject_errors
from ereval.estimators import (
    as_sample,
    draw_sample,
    estimate,
    prepare_prediction,
    reviewer_error_rate,
    reviewer_sensitivity,
)
from ereval.estimators._reviewer_errors import reviewer_model
from ereval.estimators._reviewer_rate import error_from_disagreement, label_rates
from ereval.labels import (
    LabelStore,
    create_cluster_review,
    double_review_counts,
    export_labels,
    reviewer_error_study,
)

# predicted clusters: x = {1, 2, 3, 9}, y = {4, 5}, z = {6}, w = {7, 8}
PRED = {1: "x", 2: "x", 3: "x", 9: "x", 4: "y", 5: "y", 6: "z", 7: "w", 8: "w"}
# sampled true clusters (records 3, 7, 8, 9 are not sampled)
SAMPLE = {1: "a", 2: "a", 4: "b", 5: "b", 6: "c"}
KW = {"design": "cluster", "weights": "uniform"}


def test_rate_zero_gives_exactly_the_plain_estimates() -> None:
    rng = np.random.default_rng(4)
    sizes = np.minimum(rng.zipf(2.0, size=1500), 25)
    labels = np.repeat(np.arange(sizes.size), sizes)[:1500]
    truth = {i: int(c) for i, c in enumerate(labels)}
    moved = inject_errors(truth, rate=0.2, seed=5)
    pred = dict(zip(moved.records.tolist(), moved.clusters.tolist(), strict=True))
    s = draw_sample(truth, n=120, design="record", seed=6)
    table = reviewer_sensitivity(pred, s, repeats=7, seed=1)
    plain = estimate(pred, s, naive=False)
    assert set(table.shifts) == set(plain)
    for key, shift in table.shifts.items():
        assert shift.estimate == plain[key], key
        assert (shift.mean, shift.std, shift.lower, shift.upper) == (0.0, 0.0, 0.0, 0.0), key
        assert shift.perturbed == plain[key].value


def test_certain_errors_give_the_hand_perturbed_sample() -> None:
    # over = 1: every record but the anchor (the first of each cluster) leaves
    only_anchors = {1: "a", 4: "b", 6: "c"}
    defined = (
        "pairwise_precision,cluster_precision,cluster_recall,b3_precision,average_cluster_size"
    )
    t = reviewer_sensitivity(PRED, SAMPLE, over=1.0, repeats=3, seed=0, metrics=defined, **KW)
    want = estimate(PRED, only_anchors, metrics=defined, **KW)
    for key, shift in t.shifts.items():
        assert shift.perturbed == pytest.approx(want[key].value, rel=1e-12, nan_ok=True), key
        assert shift.std == pytest.approx(0.0, abs=1e-12)
    # under = 1: every unsampled record of a predicted cluster meeting a sampled cluster
    # joins it: 3 and 9 (cluster x meets a) join a; y and z hold no other record
    joined = {1: "a", 2: "a", 3: "a", 9: "a", 4: "b", 5: "b", 6: "c"}
    t = reviewer_sensitivity(PRED, SAMPLE, under=1.0, repeats=3, seed=0, **KW)
    want = estimate(PRED, joined, naive=False, **KW)
    for key, shift in t.shifts.items():
        assert shift.perturbed == pytest.approx(want[key].value, rel=1e-12), key
    # e.g. pairwise precision of the joined sample: a holds all 6 links of x
    assert t.shifts["pairwise_recall"].perturbed == pytest.approx(want["pairwise_recall"].value)


def test_the_anchor_is_the_record_named_like_its_cluster() -> None:
    sample = {"r1": "r2", "r2": "r2", "r3": "r3"}
    pred = {"r1": "p", "r2": "p", "r3": "q"}
    model = reviewer_model(
        prepare_prediction(pred), as_sample(sample, design="cluster", weights="uniform")
    )
    anchors = model.sample.records[model.anchor].tolist()
    assert sorted(anchors) == ["r2", "r3"]


def test_size_proportional_probabilities_follow_the_perturbed_sizes() -> None:
    s = as_sample(SAMPLE, design="record")
    model = reviewer_model(prepare_prediction(PRED), s)
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = model.perturb(rng, over=0.5, under=0.5)
        sizes = np.bincount(p.cluster_codes, minlength=p.n_clusters)
        np.testing.assert_array_equal(p.probabilities, sizes[np.argsort(p.unit_of_cluster)])
        assert len(set(p.records.tolist())) == p.records.shape[0]  # a record joins one cluster
    # uniform probabilities stay
    u = reviewer_model(prepare_prediction(PRED), as_sample(SAMPLE, **KW))
    assert (u.perturb(rng, over=0.5, under=0.5).probabilities == 1.0).all()


def test_seeded_and_shifted_in_the_expected_direction() -> None:
    rng = np.random.default_rng(8)
    sizes = np.minimum(rng.zipf(2.0, size=2000), 25)
    labels = np.repeat(np.arange(sizes.size), sizes)[:2000]
    truth = {i: int(c) for i, c in enumerate(labels)}
    moved = inject_errors(truth, rate=0.3, seed=9)
    pred = dict(zip(moved.records.tolist(), moved.clusters.tolist(), strict=True))
    s = draw_sample(truth, n=150, design="record", seed=10)
    kw = {"metrics": "pairwise_precision,pairwise_recall,average_cluster_size", "repeats": 40}
    a = reviewer_sensitivity(pred, s, over=0.1, under=0.1, seed=3, **kw)
    b = reviewer_sensitivity(pred, s, over=0.1, under=0.1, seed=3, **kw)
    assert a.to_dict() == b.to_dict()
    # splitting records off the labelled entities (over) makes them smaller; adding
    # predicted co-members (under) makes them larger and raises precision
    small = reviewer_sensitivity(pred, s, over=0.3, seed=3, **kw).shifts
    large = reviewer_sensitivity(pred, s, under=0.3, seed=3, **kw).shifts
    assert small["average_cluster_size"].mean < 0 < large["average_cluster_size"].mean
    assert large["pairwise_precision"].mean > 0
    for shift in a.shifts.values():
        assert shift.std > 0 and shift.lower <= shift.mean <= shift.upper


def test_sensitivity_errors_name_the_argument() -> None:
    with pytest.raises(InputError, match="'over'"):
        reviewer_sensitivity(PRED, SAMPLE, over=1.5, **KW)
    with pytest.raises(InputError, match="'under'"):
        reviewer_sensitivity(PRED, SAMPLE, under="x", **KW)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="'repeats'"):
        reviewer_sensitivity(PRED, SAMPLE, repeats=0, **KW)
    with pytest.raises(InputError, match="single_block"):
        reviewer_sensitivity(PRED, SAMPLE, design="single_block")


# ------------------------------------------------------------------ the error rate


def test_error_rate_hand_cases() -> None:
    # delta = 2 eps (1 - eps): eps = 0.1 gives delta = 0.18
    assert error_from_disagreement([0.18]).tolist() == [0.1]
    # q = 1/2 and symmetric errors: the rates given the label are eps itself
    assert label_rates(0.2, 0.5) == pytest.approx((0.2, 0.2))
    # no error: nothing is wrong whatever the label
    assert label_rates(0.0, 0.3) == (0.0, 0.0)
    # fewer "does not belong" labels than errors alone make: everything belongs (pi = 1),
    # so every "does not belong" is wrong and no "belongs" is
    assert label_rates(0.1, 0.95) == pytest.approx((0.0, 1.0))
    # the rates are probabilities for every eps and q
    for eps in np.linspace(0.0, 0.5, 11):
        for q in np.linspace(0.01, 0.99, 13):
            over, under = label_rates(float(eps), float(q))
            assert 0.0 <= over <= 1.0 and 0.0 <= under <= 1.0, (eps, q)
    r = reviewer_error_rate([4, 6, 5], [0, 0, 0], [8, 2, 10])
    assert r.error.value == 0.0 and r.over.value == 0.0 and r.under.value == 0.0
    assert r.items == 3 and r.decisions == 15 and r.included == pytest.approx(20 / 30)
    with pytest.raises(InputError, match="'disagreements'"):
        reviewer_error_rate([2, 2], [3, 0], [0, 0])
    with pytest.raises(InputError, match="at least 2"):
        reviewer_error_rate([2], [1], [2])


def _simulate_items(
    rng: np.random.Generator, eps: float, pi: float, items: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items of 2..11 candidate decisions; each reviewer flips the truth with rate eps."""
    m = rng.integers(2, 12, size=items)
    item = np.repeat(np.arange(items), m)
    truth = rng.random(item.size) < pi
    one = truth ^ (rng.random(item.size) < eps)
    two = truth ^ (rng.random(item.size) < eps)
    d = np.bincount(item, weights=one != two, minlength=items).astype(np.int64)
    inc = np.bincount(item, weights=one.astype(int) + two, minlength=items).astype(np.int64)
    return m, d, inc


def test_monte_carlo_recovers_a_known_error_rate_at_its_coverage() -> None:
    eps, pi, reps, level = 0.08, 0.4, 300, 0.95
    q = pi * (1 - eps) + (1 - pi) * eps
    over_true, under_true = eps * (1 - pi) / q, eps * pi / (1 - q)
    rng = np.random.default_rng(2024)
    covered = 0
    values, overs, unders = [], [], []
    for _ in range(reps):
        m, d, inc = _simulate_items(rng, eps, pi, 150)
        r = reviewer_error_rate(m, d, inc, level=level)
        covered += r.error.lower <= eps <= r.error.upper
        values.append(r.error.value)
        overs.append(r.over.value)
        unders.append(r.under.value)
    v = np.array(values)
    # unbiased to within 4 Monte Carlo standard errors (the map is nearly linear here)
    assert abs(v.mean() - eps) < 4 * v.std(ddof=1) / math.sqrt(reps)
    # the interval holds its level within 3 binomial standard errors
    assert covered / reps >= level - 3 * math.sqrt(level * (1 - level) / reps)
    # the rates given the label recover the simulated ones
    assert np.mean(overs) == pytest.approx(over_true, abs=4 * np.std(overs) / math.sqrt(reps))
    assert np.mean(unders) == pytest.approx(under_true, abs=4 * np.std(unders) / math.sqrt(reps))


# ------------------------------------------------------------------ the label store


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """30 records of 10 people (3 each); a prediction that splits one and merges two."""
    rows, truth, pred = [], [], []
    for k in range(30):
        person = k // 3
        rid = f"r{k:02d}"
        rows.append({"record_id": rid, "name": f"person {person}"})
        truth.append((rid, f"t{person}"))
        cluster = "p_r02" if rid == "r02" else "p1" if person in (1, 2) else f"p{person}"
        pred.append((rid, cluster))
    paths = {"data": tmp_path / "records.csv", "pred": tmp_path / "pred.csv"}
    pd.DataFrame(rows).to_csv(paths["data"], index=False)
    pd.DataFrame(pred, columns=["record_id", "cluster_id"]).to_csv(paths["pred"], index=False)
    paths["db"] = tmp_path / "labels.db"
    return paths


def _true(rid: str) -> list[str]:
    person = int(rid[1:]) // 3
    return [f"r{3 * person + j:02d}" for j in range(3)]


def _review_twice(world: dict[str, Path]) -> tuple[LabelStore, list[str], str]:
    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(
        store, "m", data=world["data"], prediction=world["pred"], n=8, seed=4, overlap=1.0
    )
    keys = [it.key for it in store.items("m")]
    for who in ("ana", "bob"):
        for key in keys:
            pred = set(review.predicted_cluster(key))
            true = set(_true(key))
            review.save(key, reviewer=who, remove=pred - true, add=true - pred)
    # bob wrongly keeps the merged cluster of one record of person 1 or 2, if drawn
    merged = next((k for k in keys if int(k[1:]) // 3 in (1, 2)), None)
    if merged is None:
        pytest.skip("no record of the merged people was drawn")
    review.save(merged, reviewer="bob")
    return store, keys, merged


def test_double_review_counts_by_hand(world: dict[str, Path]) -> None:
    store, keys, merged = _review_twice(world)
    m, d, inc = double_review_counts(store, "m")
    assert len(m) == len(keys)
    i = keys.index(merged)
    # merged: predicted cluster p1 holds 6 records, the candidates are the 5 others; ana
    # puts 2 with it, bob 5; they disagree on the 3 of the other person
    assert (m[i], d[i], inc[i]) == (5, 3, 7)
    others = [j for j in range(len(keys)) if j != i]
    assert (d[others] == 0).all()
    rate = reviewer_error_rate(m, d, inc)
    assert rate.disagreement.value > 0


def test_per_reviewer_benchmarks_give_per_reviewer_estimates(world: dict[str, Path]) -> None:
    store, _, merged = _review_twice(world)
    ana = export_labels(store, "m", kind="benchmark", reviewer="ana")
    bob = export_labels(store, "m", kind="benchmark", reviewer="bob")
    pred = pd.read_csv(world["pred"], dtype=str)
    # ana labelled the truth: her benchmark's clusters are true clusters
    for _, rows in ana.frame.groupby("cluster_id"):
        assert sorted(rows["record_id"]) == _true(rows["record_id"].iloc[0])
    assert len(bob.frame[bob.frame.cluster_id == merged]) == 6
    est_a = estimate(pred, ana.frame.drop(columns="tags"), design=ana.design, naive=False)
    est_b = estimate(pred, bob.frame.drop(columns="tags"), design=bob.design, naive=False)
    # bob's benchmark has the merged cluster as correct: higher precision
    assert est_b["pairwise_precision"].value > est_a["pairwise_precision"].value
    # the resolved benchmark refuses nothing, it leaves the disputed record out
    resolved = export_labels(store, "m", kind="benchmark")
    assert merged not in set(resolved.frame["record_id"]) and resolved.warnings
    with pytest.raises(InputError, match="'reviewer' 'cy'"):
        export_labels(store, "m", kind="benchmark", reviewer="cy")
    with pytest.raises(InputError, match="'reviewer'"):
        export_labels(store, "m", kind="spreadsheet", reviewer="ana")


def test_reviewer_error_study_from_the_store(world: dict[str, Path]) -> None:
    store, _, merged = _review_twice(world)
    # settle the dispute so that the benchmark holds every drawn record
    from ereval.labels import open_session

    review = open_session(store, "m")
    pred = set(review.predicted_cluster(merged))  # type: ignore[union-attr]
    review.save(merged, reviewer="lead", remove=pred - set(_true(merged)), adjudicate=True)  # type: ignore[union-attr]
    study = reviewer_error_study(store, "m", repeats=20, seed=2, metrics="pairwise_precision")
    assert study.rate.items >= 2 and study.rate.error.value > 0
    assert study.at_estimate.over == pytest.approx(study.rate.over.value)
    assert study.at_upper.over >= study.at_estimate.over
    assert set(study.to_frame()["rates"]) == {"estimate", "upper"}
    assert study.to_dict()["rate"]["items"] == study.rate.items
