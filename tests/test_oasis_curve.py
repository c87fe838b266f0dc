"""Curves estimated from a sampler's labels: exact on a census, unbiased and covering by
seeded Monte Carlo.

Each Monte Carlo check runs R = 200 seeded runs. Tolerances come from the Monte
Carlo error: the mean error within 3.5 standard errors of 0 (se = sd / sqrt(R))
plus 2 / n for the O(1/n) bias of a ratio estimator with n labels, and the
coverage of the 95% intervals within 3.5 sd (sqrt(0.95 * 0.05 / R), about 0.054)
of 0.95, less 0.03 for the first-order variance formula.
"""

from __future__ import annotations

import io
import json
import math
from functools import cache
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval._errors import InputError
from ereval.cli import app
from ereval.curves import threshold_curve
from ereval.oasis import (
    Pool,
    estimated_curve,
    make_sampler,
    stratify,
    synthetic_pool,
)
from ereval.results import EstimateCurve

runner = CliRunner()

R = 150
NOMINAL = 0.95
COVER_TOL = 3.5 * math.sqrt(NOMINAL * (1 - NOMINAL) / R) + 0.03
THRESHOLDS = (-0.5, 0.0, 0.5)


@cache
def _pool() -> Pool:
    # about 830 matches; every measure well inside (0, 1) at THRESHOLDS
    return synthetic_pool(5_000, imbalance=5, separation=2.5, seed=7)


def _true(pool: Pool, t: float) -> dict[str, float]:
    accepted = pool.scores >= t
    labels = np.asarray(pool.labels) == 1
    tp = float(np.sum(accepted & labels))
    pp, pos = float(accepted.sum()), float(labels.sum())
    return {"precision": tp / pp, "recall": tp / pos, "f_measure": 2 * tp / (pp + pos)}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "options", "budget"),
    [
        ("passive", {}, 400),
        ("passive", {"replace": False}, 400),
        ("stratified", {}, 400),
        ("importance", {}, 300),
        ("oasis", {}, 300),
    ],
    ids=["passive", "passive-wor", "stratified", "importance", "oasis"],
)
def test_bias_and_coverage(method: str, options: dict[str, object], budget: int) -> None:
    pool = _pool()
    if method in ("oasis", "stratified"):
        options = {**options, "strata": stratify(pool.scores)}
    truth = {t: _true(pool, t) for t in THRESHOLDS}
    values: dict[tuple[float, str], list[float]] = {}
    covered: dict[tuple[float, str], list[bool]] = {}
    for r in range(R):
        sampler = make_sampler(method, pool, seed=r, **options)  # type: ignore[arg-type]
        sampler.run(budget=budget)
        curve = estimated_curve(sampler, THRESHOLDS)
        for i, t in enumerate(curve.points.tolist()):
            for name in ("precision", "recall", "f_measure"):
                est = curve.estimate(name, i)
                values.setdefault((t, name), []).append(est.value)
                lo, hi = est.interval
                covered.setdefault((t, name), []).append(lo <= truth[t][name] <= hi)
    for (t, name), vals in values.items():
        x = np.asarray(vals)
        assert np.isfinite(x).all(), (t, name)
        se = x.std(ddof=1) / math.sqrt(R)
        bias = x.mean() - truth[t][name]
        assert abs(bias) <= 3.5 * se + 2.0 / budget, (method, t, name, bias, se)
        cover = float(np.mean(covered[(t, name)]))
        # an estimate with no spread (e.g. precision 1 above every non-match) is exact
        if x.std() > 0:
            assert cover >= NOMINAL - COVER_TOL, (method, t, name, cover)


def _census_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(11)
    n = 80
    truth = pd.DataFrame(
        {"record_id": [f"r{i}" for i in range(n)], "cluster_id": rng.integers(0, 30, n)}
    )
    cl = truth["cluster_id"].to_numpy()
    left, right, scores = [], [], []
    for i, j in combinations(range(n), 2):
        left.append(f"r{i}")
        right.append(f"r{j}")
        scores.append(round(float(rng.normal(2.0 if cl[i] == cl[j] else 0.0, 1.0)), 1))
    pairs = pd.DataFrame({"record_id_1": left, "record_id_2": right, "score": scores})
    return truth, pairs


@pytest.mark.parametrize(
    ("method", "options"),
    [("passive", {"replace": False}), ("stratified", {}), ("oasis", {}), ("passive", {})],
    ids=["passive-wor", "stratified", "oasis", "passive"],
)
def test_census_is_the_exact_curve(method: str, options: dict[str, object]) -> None:
    truth, pairs = _census_case()
    cl = dict(zip(truth["record_id"], truth["cluster_id"], strict=True))
    labels = np.array(
        [cl[a] == cl[b] for a, b in zip(pairs["record_id_1"], pairs["record_id_2"], strict=True)],
        dtype=np.int8,
    )
    scores = pairs["score"].to_numpy()
    pool = Pool.from_arrays(scores, (scores >= 1.0).astype(np.int8), labels=labels)
    if method in ("oasis", "stratified"):
        options = {**options, "strata": stratify(pool.scores)}
    sampler = make_sampler(method, pool, seed=0, **options)  # type: ignore[arg-type]
    while not sampler.exhausted:
        query = sampler.ask()
        assert query is not None
        sampler.tell(int(labels[query.index]))
    exact = threshold_curve(truth, pairs).frame
    curve = estimated_curve(sampler, exact["threshold"].to_numpy())
    assert isinstance(curve, EstimateCurve) and curve.axis == "threshold"
    np.testing.assert_array_equal(curve.points, exact["threshold"].to_numpy())
    for name, column in (
        ("precision", "links_precision"),
        ("recall", "links_recall"),
        ("f_measure", "links_f1"),
    ):
        got = curve[name].value
        np.testing.assert_allclose(got, exact[column].to_numpy(), rtol=1e-12, atol=0)
        assert all(e.std == 0.0 and e.n == pool.size for e in curve.estimates(name))
        assert not any(e.warnings for e in curve.estimates(name))


def test_passive_is_the_plain_ratio_and_matches_the_sampler() -> None:
    pool = _pool()
    sampler = make_sampler("passive", pool, seed=3)
    est = sampler.run(budget=300)
    idx, lab = sampler.history[0], np.asarray(pool.labels)[sampler.history[0]]
    t = 0.5
    accepted = pool.scores[idx] >= t
    curve = estimated_curve(sampler, [t])
    precision, recall = curve.estimate("precision", 0), curve.estimate("recall", 0)
    assert precision.value == pytest.approx(lab[accepted].mean(), rel=1e-12)
    assert recall.value == pytest.approx(lab[accepted].sum() / lab.sum(), rel=1e-12)
    # at the pool's own threshold (predictions score >= 0) the sampler's estimate
    own = estimated_curve(sampler, [0.0], confidence=0.9)
    f = own.estimate("f_measure", 0)
    assert f.value == pytest.approx(est.f_measure.value, rel=1e-12)
    assert f.level == 0.9
    assert f.method == "passive" and f.n == sampler.labels_used
    assert own.details == {"alpha": 0.5, "labels_used": sampler.labels_used}


def test_grid_frame_and_dict() -> None:
    sampler = make_sampler("stratified", _pool(), seed=1, strata=stratify(_pool().scores))
    sampler.run(budget=200)
    curve = estimated_curve(sampler, 7)
    assert curve.points.shape == (7,) and np.all(np.diff(curve.points) > 0)
    frame = curve.to_frame()
    assert list(frame.columns[:5]) == [
        "threshold",
        "precision",
        "precision_std",
        "precision_lower",
        "precision_upper",
    ]
    assert len(curve.to_dict()["rows"]) == 7
    top = estimated_curve(sampler, [1e9])
    assert math.isnan(top["precision"].value[0]) and top.estimate("precision", 0).warnings
    with pytest.raises(InputError, match="thresholds"):
        estimated_curve(sampler, [math.nan])
    with pytest.raises(InputError, match="sampler"):
        estimated_curve("not a sampler", 5)  # type: ignore[arg-type]


def test_unlabelled_pairs_below_the_threshold_keep_recall_uncertain() -> None:
    pool = _pool()
    sampler = make_sampler("passive", pool, replace=False, seed=2)
    sampler.run(budget=50)
    idx, labels = sampler.labelled
    # no labelled match below it, unlabelled pairs below it
    lowest_match = float(np.min(pool.scores[idx[labels == 1]]))
    assert np.min(pool.scores) < lowest_match
    curve = estimated_curve(sampler, [lowest_match, float(np.min(pool.scores))])
    recall = curve.estimate("recall", 1)
    # the labels alone give recall 1 with no spread; the unlabelled pairs below the
    # threshold may hold matches, and the interval says so
    assert recall.value == 1.0 and recall.lower < 0.97 and recall.std > 0.0
    assert not any("understates" in w for w in recall.warnings)
    # below every pair, recall 1 is exact
    assert curve.estimate("recall", 0).value == 1.0
    assert curve.estimate("recall", 0).interval == (1.0, 1.0)
    assert not curve.estimate("recall", 0).warnings


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("oasis", {}),
        ("passive", {}),
        ("passive", {"replace": False}),
        ("stratified", {}),
        ("importance", {}),
    ],
    ids=["oasis", "passive", "passive-wor", "stratified", "importance"],
)
@pytest.mark.parametrize("budget", [1, 6, 150])
def test_curve_at_the_own_threshold_is_the_estimate(
    method: str, options: dict[str, object], budget: int
) -> None:
    pool = _pool()
    sampler = make_sampler(method, pool, seed=4, **options)  # type: ignore[arg-type]
    est = sampler.run(budget=budget, confidence=0.9)
    curve = estimated_curve(sampler, [0.0], confidence=0.9)  # predictions: score >= 0
    for name in ("precision", "recall", "f_measure"):
        mine, theirs = getattr(est, name), curve.estimate(name, 0)
        assert (theirs.value, theirs.std, *theirs.interval) == pytest.approx(
            (mine.value, mine.std, *mine.interval), nan_ok=True, rel=1e-12, abs=1e-15
        ), name
        assert theirs.level == mine.level == 0.9 and theirs.n == mine.n == budget


def test_cli_curve_grid(tmp_path: Path) -> None:
    pool = _pool()
    path = tmp_path / "pool.csv"
    pd.DataFrame(
        {
            "pair_id": np.arange(pool.size),
            "score": pool.scores,
            "prediction": pool.predictions,
            "label": pool.labels,
        }
    ).to_csv(path, index=False)
    base = ["oasis", "estimate", str(path), "--budget", "200", "--seed", "1", "-q"]
    res = runner.invoke(app, [*base, "--method", "passive", "--curve-grid", "4", "-f", "csv"])
    assert res.exit_code == 0, res.output
    frame = pd.read_csv(io.StringIO(res.stdout))
    assert len(frame) == 4 and frame.columns[0] == "threshold"
    sampler = make_sampler("passive", pool, seed=1)
    sampler.run(budget=200)
    expected = estimated_curve(sampler, 4)
    np.testing.assert_allclose(frame["f_measure"], expected["f_measure"].value)
    as_json = runner.invoke(app, [*base, "--curve-grid", "3", "-f", "json"])
    assert as_json.exit_code == 0, as_json.output
    assert len(json.loads(as_json.stdout)["curve"]) == 3
    bad = runner.invoke(app, [*base, "--curve-grid", "0"])
    assert bad.exit_code == 2 and "curve" in bad.stderr
