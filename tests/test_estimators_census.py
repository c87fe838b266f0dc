"""A census sample (every true cluster, drawn once, without replacement) reproduces the exact metrics.

With ``T = n`` the finite-population correction is ``theta = 0``: no bias correction
and no variance, so every estimator must equal the exact value computed by
:mod:`ereval.metrics` (or, for the summary statistics, a brute-force count).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ereval._simulate import inject_errors
from ereval.estimators import (
    as_sample,
    cluster_terms,
    estimate,
    estimate_by_group,
    prepare_prediction,
)
from ereval.estimators._registry import SPEC_BY_KEY
from ereval.metrics import cluster_errors, evaluate


def _population(seed: int, n: int = 1500) -> tuple[dict[int, int], dict[int, int]]:
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(2.0, size=n), 40)
    labels = np.repeat(np.arange(sizes.size), sizes)[:n]
    truth = {i: int(c) for i, c in enumerate(labels)}
    moved = inject_errors(truth, rate=0.15, seed=seed)
    pred = dict(zip(moved.records.tolist(), moved.clusters.tolist(), strict=True))
    return truth, pred


def _census(truth: dict[int, int], **kw: object) -> object:
    k = len(set(truth.values()))
    return as_sample(
        truth, design="cluster", weights="uniform", replace=False, population_size=k, **kw
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_census_reproduces_exact_metrics(seed: int, beta: float) -> None:
    truth, pred = _population(seed)
    exact = evaluate(truth, pred, beta=beta)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = estimate(pred, _census(truth), beta=beta, naive=False)
    checked = 0
    for key, e in est.items():
        metric = SPEC_BY_KEY[key].metric
        if metric in exact:
            assert e.value == pytest.approx(exact[metric], rel=1e-12, abs=1e-13), key
            assert e.std == pytest.approx(0.0, abs=1e-12), key
            checked += 1
    assert checked == (17 if beta != 1.0 else 15)


def test_census_summary_statistics_brute_force() -> None:
    truth, pred = _population(5)
    rng = np.random.default_rng(5)
    names = {r: f"n{rng.integers(0, 400)}" for r in truth}
    est = estimate(
        pred,
        _census(truth),
        names=names,
        naive=False,
        metrics="average_cluster_size,matching_rate,homonymy_rate,name_variation_rate",
    )
    members: dict[int, list[int]] = {}
    for r, c in truth.items():
        members.setdefault(c, []).append(r)
    sizes = np.array([len(m) for m in members.values()])
    holders: dict[str, set[int]] = {}
    for r, c in truth.items():
        holders.setdefault(names[r], set()).add(c)
    homonym = [any(len(holders[names[r]]) > 1 for r in m) for m in members.values()]
    variation = [len({names[r] for r in m}) > 1 for m in members.values()]
    assert est["average_cluster_size"].value == pytest.approx(sizes.mean())
    assert est["matching_rate"].value == pytest.approx(sizes[sizes > 1].sum() / sizes.sum())
    assert est["homonymy_rate"].value == pytest.approx(np.mean(homonym))
    assert est["name_variation_rate"].value == pytest.approx(np.mean(variation))


def test_census_of_blocks_reproduces_exact_metrics() -> None:
    truth, pred = _population(3)
    blocks = {c: c % 7 for c in set(truth.values())}
    sample = as_sample(
        truth, design="block", weights="uniform", blocks=blocks, replace=False, population_size=7
    )
    exact = evaluate(truth, pred)
    est = estimate(pred, sample, naive=False)
    for key in (
        "pairwise_precision",
        "pairwise_recall",
        "b3_precision",
        "cluster_precision",
        "homogeneity",
        "completeness",
    ):
        assert est[key].value == pytest.approx(exact[key], rel=1e-12), key


def test_census_subgroup_equals_the_subgroup_target() -> None:
    # Remark 3: precision of a subgroup = true links within it / predicted links touching it,
    # outgoing links counted half (they are shared with the other side).
    truth, pred = _population(4)
    group = {c: ("even" if c % 2 == 0 else "odd") for c in set(truth.values())}
    res = estimate_by_group(
        pred, _census(truth), group, metrics="pairwise_precision,pairwise_recall", naive=False
    )
    pred_size = pd.Series(pred).value_counts()
    for label in ("even", "odd"):
        recs = [r for r, c in truth.items() if group[c] == label]
        cells = pd.DataFrame({"t": [truth[r] for r in recs], "p": [pred[r] for r in recs]})
        n = cells.groupby(["t", "p"]).size()
        tp = float((n * (n - 1) / 2).sum())
        b = pred_size.loc[n.index.get_level_values("p")].to_numpy()
        links = float((n.to_numpy() * (b - 1) / 2).sum())
        a = cells.groupby("t").size()
        assert res[label]["pairwise_precision"].value == pytest.approx(tp / links)
        assert res[label]["pairwise_recall"].value == pytest.approx(
            tp / float((a * (a - 1) / 2).sum())
        )


def test_terms_agree_with_record_error_metrics() -> None:
    # Binette 2024, §3.3.1: per-cluster sums of UCE, SDE, ROCE, RUCE and EI from the
    # record-wise error table must match the estimator terms.
    truth, pred = _population(6, n=600)
    sample = _census(truth)
    terms = cluster_terms(prepare_prediction(pred), sample)  # type: ignore[arg-type]
    errs = cluster_errors(truth, pred).set_index("cluster_id")
    order = errs.loc[sample.cluster_labels]  # type: ignore[attr-defined]
    a = order["size"].to_numpy(dtype=float)
    assert np.allclose(terms.size, a)
    assert np.allclose(a * order["UCE"], a * a - terms.sq)
    assert np.allclose(a * order["SDE"], terms.nb - a * a)
    assert np.allclose(a * order["ROCE"], a - terms.b3p)
    assert np.allclose(a - a * order["RUCE"], terms.sq / a)
    assert np.allclose(1 - order["EI"], terms.exact)
