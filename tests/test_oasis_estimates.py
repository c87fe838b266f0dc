"""The samplers' estimates: point estimates and interval inputs against brute force, warnings."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from ereval.estimators._ratio import MIN_UNITS
from ereval.oasis import Pool, make_sampler, stratify, synthetic_pool
from ereval.oasis._base import MIN_LABELS
from ereval.oasis._calibration import Recalibration, recalibrate
from ereval.oasis._intervals import Cells, ModelCounts, combine_intervals, one_draw_interval


@cache
def _pool() -> Pool:
    return synthetic_pool(3_000, imbalance=30, separation=3.0, seed=5)


def _f(c: np.ndarray, alpha: float) -> float:
    den = alpha * c[1] + (1 - alpha) * c[2]
    return c[0] / den if den > 0 else math.nan


def _kinds(labels: np.ndarray, accepted: np.ndarray) -> np.ndarray:
    return np.stack([labels * accepted, accepted, labels], axis=1).astype(np.float64)


@pytest.mark.parametrize(
    ("method", "options", "budget"),
    [("oasis", {"n_strata": 8}, 700), ("importance", {}, 300), ("passive", {}, 300)],
)
def test_weighted_point_estimates_match_a_loop_over_the_draws(
    method: str, options: dict[str, object], budget: int
) -> None:
    pool = _pool()
    sampler = make_sampler(method, pool, seed=1, **options)  # type: ignore[arg-type]
    est = sampler.run(budget=budget)
    idx, lab = sampler.labelled
    labelled = dict(zip(idx.tolist(), lab.tolist(), strict=True))
    alloc = sampler.strata.allocations
    # a stratum every pair of which is labelled is counted exactly, its draws dropped
    closed = {
        k
        for k in range(sampler.strata.n_strata)
        if all(i in labelled for i in sampler.strata.members(k))
    }
    if method == "oasis":
        assert closed, "the test wants a completely labelled stratum"
    counts = np.zeros(3)
    for i, y in labelled.items():
        if alloc[i] in closed:
            counts += [y * pool.predictions[i], pool.predictions[i], y]
    hist_idx, hist_w = sampler.history
    t = len(hist_idx)
    for i, w in zip(hist_idx.tolist(), hist_w.tolist(), strict=True):
        if alloc[i] not in closed:
            y = labelled[i]
            counts += np.array([y * pool.predictions[i], pool.predictions[i], y]) * w / t
    for alpha, e in ((0.5, est.f_measure), (1.0, est.precision), (0.0, est.recall)):
        assert e.value == pytest.approx(_f(counts, alpha), rel=1e-12)


@pytest.mark.parametrize(
    ("method", "options"), [("stratified", {}), ("passive", {"replace": False})]
)
def test_stratified_point_estimates_match_a_loop_over_the_strata(
    method: str, options: dict[str, object]
) -> None:
    pool = _pool()
    sampler = make_sampler(method, pool, seed=2, **options)  # type: ignore[arg-type]
    est = sampler.run(budget=250)
    idx, lab = sampler.labelled
    strata = sampler.strata
    f = _kinds(lab, pool.predictions[idx])
    pooled = f.mean(axis=0)
    counts = np.zeros(3)
    for k in range(strata.n_strata):
        mine = strata.allocations[idx] == k
        mean = f[mine].mean(axis=0) if mine.any() else pooled
        counts += strata.sizes[k] * mean
    for alpha, e in ((0.5, est.f_measure), (1.0, est.precision), (0.0, est.recall)):
        assert e.value == pytest.approx(_f(counts, alpha), rel=1e-12)


def _model_parts(pool: Pool, model_alloc: np.ndarray, idx: np.ndarray, lab: np.ndarray, k: int):  # type: ignore[no-untyped-def]
    """The cells of the model by explicit loops: (weight, above, below) per sigma point and
    the cells at the recalibration's centre."""
    acc = pool.predictions.astype(bool)
    n_pairs = np.zeros((k, 2))
    prob = np.zeros((k, 2))
    for i in range(pool.size):
        side = int(acc[i])
        n_pairs[model_alloc[i], side] += 1
        prob[model_alloc[i], side] += pool.probabilities[i]
    n_lab = np.zeros((k, 2))
    matches = np.zeros((k, 2))
    for i, y in zip(idx.tolist(), lab.tolist(), strict=True):
        side = int(acc[i])
        n_lab[model_alloc[i], side] += 1
        matches[model_alloc[i], side] += y
    mean_p = np.where(n_pairs > 0, prob / np.maximum(n_pairs, 1), 0.5)
    calib = Recalibration.fit(pool.probabilities[idx], lab.astype(float))

    def cells(delta: float) -> tuple[Cells, Cells]:
        out = [
            Cells.from_labels(
                n_pairs[:, s] - n_lab[:, s],
                n_lab[:, s],
                matches[:, s],
                recalibrate(mean_p[:, s], delta),
            )
            for s in (1, 0)
        ]
        return out[0], out[1]

    parts = [(w, *cells(d)) for w, d in calib.points()]
    centre = cells(calib.mode)
    known = (float(matches[:, 1].sum()), float(n_pairs[:, 1].sum()), float(matches.sum()))
    return parts, centre, known, n_pairs


def test_passive_interval_matches_its_assembly_by_hand() -> None:
    # passive with replacement: removals are the draws (weight N / T each), additions one
    # more draw of each kind in each cell of the pool's default strata at weight N / T
    pool = _pool()
    sampler = make_sampler("passive", pool, seed=3)
    est = sampler.run(budget=200)
    idx, lab = sampler.labelled
    labelled = dict(zip(idx.tolist(), lab.tolist(), strict=True))
    model = stratify(pool.scores)
    k = model.n_strata
    hist_idx, _ = sampler.history
    t = len(hist_idx)
    n = pool.size
    x = (
        np.array(
            [
                [labelled[i] * pool.predictions[i], pool.predictions[i], labelled[i]]
                for i in hist_idx.tolist()
            ],
            dtype=float,
        )
        * n
    )  # W_t = N
    counts = x.sum(axis=0) / t
    parts, (above, below), known, n_pairs = _model_parts(pool, model.allocations, idx, lab, k)
    r1, r0 = above.mean_rate(), below.mean_rate()
    steps, weights = [-row / t for row in x], [1.0] * t
    for c in range(k):
        lab_in = [(i, y) for i, y in labelled.items() if model.allocations[i] == c]
        tp = sum(y for i, y in lab_in if pool.predictions[i])
        fp = sum(1 - y for i, y in lab_in if pool.predictions[i])
        fn = sum(y for i, y in lab_in if not pool.predictions[i])
        expected = {
            (1.0, 1.0, 1.0): (tp + above.unlabelled[c] * r1[c], n_pairs[c, 1]),
            (0.0, 1.0, 0.0): (fp + above.unlabelled[c] * (1 - r1[c]), n_pairs[c, 1]),
            (0.0, 0.0, 1.0): (fn + below.unlabelled[c] * r0[c], n_pairs[c, 0]),
        }
        for kind, (count, cell) in expected.items():
            m = t * cell / n  # expected draws into the cell
            if cell > 0 and count > 0:
                steps.append(np.array(kind) * cell / m)
                weights.append(m * count / cell)
    unlabelled = ModelCounts(parts)
    for alpha, e in ((0.5, est.f_measure), (1.0, est.precision), (0.0, est.recall)):
        one = one_draw_interval(counts, alpha, np.array(steps), np.array(weights), level=0.95)
        mod = unlabelled.interval(known, alpha, level=0.95)
        std, interval = combine_intervals(_f(counts, alpha), one, mod, level=0.95)
        assert e.value == pytest.approx(_f(counts, alpha), rel=1e-12)
        assert e.interval == pytest.approx(interval, rel=1e-9, abs=1e-12)
        assert e.std == pytest.approx(std, rel=1e-9)


def test_stratified_interval_matches_its_assembly_by_hand() -> None:
    # stratified without replacement: removals -N_k (f_j - mean_k) / (n_k - 1) with weight
    # 1 - n_k / N_k; additions N_k (f - mean_k) / (n_k + 1), expected n_k N_kind / N_k times
    # that correction
    pool = _pool()
    sampler = make_sampler("stratified", pool, seed=4)
    est = sampler.run(budget=150)
    idx, lab = sampler.labelled
    strata = sampler.strata
    k = strata.n_strata
    f = _kinds(lab, pool.predictions[idx])
    pooled = f.mean(axis=0)
    sizes = strata.sizes.astype(float)
    n_k = np.array([np.sum(strata.allocations[idx] == c) for c in range(k)], dtype=float)
    means = np.array(
        [f[strata.allocations[idx] == c].mean(axis=0) if n_k[c] else pooled for c in range(k)]
    )
    counts = sizes @ means
    fpc = 1 - n_k / sizes
    steps, weights = [], []
    for j, i in enumerate(idx.tolist()):
        c = strata.allocations[i]
        centre = means[c] if n_k[c] >= 2 else pooled
        steps.append(-sizes[c] * (f[j] - centre) / max(n_k[c] - 1, 1))
        weights.append(fpc[c])
    parts, (above, below), known, n_pairs = _model_parts(pool, strata.allocations, idx, lab, k)
    r1, r0 = above.mean_rate(), below.mean_rate()
    for c in range(k):
        mine = strata.allocations[idx] == c
        tp = float(np.sum(f[mine, 0]))
        fp = float(np.sum(f[mine, 1] - f[mine, 0]))
        fn = float(np.sum(f[mine, 2] - f[mine, 0]))
        expected = {
            (1.0, 1.0, 1.0): (tp + above.unlabelled[c] * r1[c], n_pairs[c, 1]),
            (0.0, 1.0, 0.0): (fp + above.unlabelled[c] * (1 - r1[c]), n_pairs[c, 1]),
            (0.0, 0.0, 1.0): (fn + below.unlabelled[c] * r0[c], n_pairs[c, 0]),
        }
        for kind, (count, cell) in expected.items():
            m = n_k[c] * cell / sizes[c] * fpc[c]
            if cell > 0 and count > 0 and m > 0:
                steps.append(sizes[c] * (np.array(kind) - means[c]) / (n_k[c] + 1))
                weights.append(m * count / cell)
    unlabelled = ModelCounts(parts)
    for alpha, e in ((0.5, est.f_measure), (1.0, est.precision), (0.0, est.recall)):
        one = one_draw_interval(counts, alpha, np.array(steps), np.array(weights), level=0.95)
        mod = unlabelled.interval(known, alpha, level=0.95)
        std, interval = combine_intervals(_f(counts, alpha), one, mod, level=0.95)
        assert e.interval == pytest.approx(interval, rel=1e-9, abs=1e-12)
        assert e.std == pytest.approx(std, rel=1e-9)


def test_the_small_sample_rule_is_the_cluster_estimators() -> None:
    assert MIN_LABELS == MIN_UNITS == 30


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
@pytest.mark.parametrize("budget", [1, 6])
def test_a_handful_of_labels_gives_a_wide_interval_and_a_warning(
    method: str, options: dict[str, object], budget: int
) -> None:
    # probabilities of ordinary confidence (separation 3: a predicted match is 0.9 to 0.99)
    pool = synthetic_pool(20_000, imbalance=20, separation=3.0, seed=9)
    for seed in range(6):
        est = make_sampler(method, pool, seed=seed, **options).run(budget=budget)  # type: ignore[arg-type]
        for e in (est.f_measure, est.precision, est.recall):
            assert e.warnings, (seed, e)
            if math.isnan(e.value):
                assert "undefined" in e.warnings[0]
                continue
            # never a point, never as narrow as hundreds of labels would give
            assert e.lower < e.upper and e.width >= 0.15, (seed, e)
            assert any(f"rests on only {budget} labelled pairs" in w for w in e.warnings)


def test_warnings_name_the_measure_and_what_to_do() -> None:
    pool = _pool()
    est = make_sampler("oasis", pool, seed=0).run(budget=12)
    recall = est.recall
    assert (recall.n, recall.method, recall.level) == (12, "oasis", 0.95)
    few = [w for w in recall.warnings if "rests on only" in w]
    assert few == [
        "recall rests on only 12 labelled pairs: its interval comes mostly from the pool's "
        "match probabilities, not from labels (about 30 labels or more are needed); label more pairs"
    ]
    assert set(est.warnings) >= set(recall.warnings)
    # enough labels and an informative interval: no warning
    est = make_sampler("oasis", pool, seed=0).run(budget=400)
    assert est.f_measure.warnings == () and est.f_measure.width < 0.5


def test_a_wide_interval_is_flagged() -> None:
    pool = synthetic_pool(20_000, imbalance=200, seed=3)
    est = make_sampler("passive", pool, seed=0).run(budget=300)  # about one match labelled
    f = est.f_measure
    assert math.isfinite(f.value) and f.interval == (0.0, 1.0)
    assert any("too large for its range [0, 1]" in w for w in f.warnings), f.warnings


def test_an_undefined_measure_says_why() -> None:
    pool = Pool.from_arrays([0.1, 0.2, 0.3, 0.4], [0, 0, 0, 0], labels=[0, 0, 0, 0])
    est = make_sampler("passive", pool, replace=False, seed=0).run(budget=2)
    assert math.isnan(est.precision.value) and math.isnan(est.precision.lower)
    assert est.precision.warnings == (
        "precision is undefined: none of the 2 labelled pairs counts in its denominator yet; "
        "label more pairs",
    )


def test_a_census_is_exact_and_unwarned() -> None:
    pool = synthetic_pool(400, imbalance=5, seed=1)
    for method in ("oasis", "stratified", "passive"):
        options = {"replace": False} if method == "passive" else {}
        est = make_sampler(method, pool, seed=0, **options).run(budget=400)  # type: ignore[arg-type]
        assert est.f_measure.value == pytest.approx(pool.true_measure())
        assert est.f_measure.interval == (est.f_measure.value, est.f_measure.value)
        assert est.f_measure.std == 0.0 and est.warnings == ()
