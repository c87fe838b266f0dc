"""Every pair- and cluster-based metric against an O(n^2) brute-force reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ereval.contingency import contingency_table
from ereval.metrics import evaluate, pair_counts
from ereval.metrics._merge import bmd

from . import _reference as ref


def close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@st.composite
def clustering_pair(
    draw: st.DrawFn, twinless: bool = False
) -> tuple[dict[int, int], dict[int, int]]:
    n = draw(st.integers(1, 14))
    k = draw(st.integers(1, n))
    truth = {r: draw(st.integers(0, k - 1)) for r in range(n)}
    pred = {r: draw(st.integers(0, k)) for r in range(n)}
    if twinless:
        extra = draw(st.integers(0, 4))
        for e in range(extra):
            pred[100 + e] = draw(st.integers(0, k + 1))
        drop = draw(st.sets(st.sampled_from(sorted(truth)), max_size=max(0, n - 1)))
        for r in drop:
            del pred[r]
        if not pred:
            pred[100] = 0
    return truth, pred


def check_pr(res: dict[str, float], prefix: str, expected: tuple[float, float]) -> None:
    p, r = expected
    assert close(res[f"{prefix}_precision"], p), (prefix, res[f"{prefix}_precision"], p)
    assert close(res[f"{prefix}_recall"], r), (prefix, res[f"{prefix}_recall"], r)


@given(clustering_pair())
def test_common_records_match_brute_force(pair: tuple[dict[int, int], dict[int, int]]) -> None:
    t, p = pair
    res = evaluate(t, p)
    check_pr(res, "pairwise", ref.pairwise(t, p))
    assert close(res["pairwise_f1"], ref.f1(*ref.pairwise(t, p)))
    check_pr(res, "cluster", ref.cluster_pr(t, p))
    check_pr(res, "closest_cluster", ref.closest_cluster(t, p))
    check_pr(res, "muc", ref.muc(t, p))
    check_pr(res, "b3", ref.b3(t, p))
    check_pr(res, "b3_entity", ref.b3_entity(t, p))
    check_pr(res, "ceafm", ref.ceaf(t, p, 3))
    check_pr(res, "ceafe", ref.ceaf(t, p, 4))
    check_pr(res, "lea", ref.lea(t, p))
    bp, br, bf = ref.blanc(t, p)
    check_pr(res, "blanc", (bp, br))
    assert close(res["blanc_f1"], bf)
    assert res["bmd"] == ref.bmd(t, p)
    tp, fp, fn, tn = ref.pair_confusion(t, p)
    c = pair_counts(contingency_table(t, p))
    assert (c.true_positives, c.false_positives, c.false_negatives, c.true_negatives) == (
        tp,
        fp,
        fn,
        tn,
    )
    assert res["gmd"] == fp + fn
    total = tp + fp + fn + tn
    assert close(res["rand_index"], ref.div(tp + tn, total))
    _h_t, _h_p, h_tp, h_pt = ref.entropy_terms(t, p)
    assert math.isclose(res["variation_of_information"], h_tp + h_pt, abs_tol=1e-12)


@given(clustering_pair(twinless=True))
def test_twinless_records_match_brute_force(pair: tuple[dict[int, int], dict[int, int]]) -> None:
    t, p = pair
    res = evaluate(
        t,
        p,
        on_mismatch="twinless",
        metrics=[
            "pairwise",
            "cluster",
            "closest_cluster",
            "muc",
            "b3",
            "ceafm",
            "ceafe",
            "lea",
            "blanc",
            "ceaf_phi1",
            "ceaf_phi2",
        ],
    )
    check_pr(res, "pairwise", ref.pairwise(t, p))
    check_pr(res, "cluster", ref.cluster_pr(t, p))
    check_pr(res, "closest_cluster", ref.closest_cluster(t, p))
    check_pr(res, "muc", ref.muc(t, p))
    check_pr(res, "b3", ref.b3(t, p))
    check_pr(res, "ceafm", ref.ceaf(t, p, 3))
    check_pr(res, "ceafe", ref.ceaf(t, p, 4))
    check_pr(res, "ceaf_phi1", ref.ceaf(t, p, 1))
    check_pr(res, "ceaf_phi2", ref.ceaf(t, p, 2))
    check_pr(res, "lea", ref.lea(t, p))
    bp, br, bf = ref.blanc(t, p)
    check_pr(res, "blanc", (bp, br))
    assert close(res["blanc_f1"], bf)


@given(clustering_pair())
def test_ceaf_phi1_phi2_match_dense_assignment(pair: tuple[dict[int, int], dict[int, int]]) -> None:
    t, p = pair
    res = evaluate(t, p, metrics=["ceaf_phi1", "ceaf_phi2"])
    check_pr(res, "ceaf_phi1", ref.ceaf(t, p, 1))
    check_pr(res, "ceaf_phi2", ref.ceaf(t, p, 2))


def test_ceaf_hard_component_needs_a_real_assignment() -> None:
    # greedy best-cell choices fail here: both true clusters prefer predicted cluster x
    truth = {1: "A", 2: "A", 3: "A", 4: "B", 5: "B", 6: "B"}
    pred = {1: "x", 2: "x", 3: "y", 4: "x", 5: "x", 6: "x"}
    res = evaluate(truth, pred, metrics=["ceafm"])
    p, _r = ref.ceaf(truth, pred, 3)
    assert res["ceafm_precision"] == pytest.approx(p)
    # exact: align A->y (1) and B->x (3) = 4, better than A->x (2) + B->nothing
    assert res["ceafm_recall"] == pytest.approx(4 / 6)


def test_bmd_matches_definition_on_maidasani_results() -> None:
    truth = {"r1": 1, "r2": 1, "r3": 1, "r4": 2, "r5": 2, "r6": 2, "r7": 3, "r8": 3}
    results = {
        4: {"r1": 1, "r2": 1, "r3": 1, "r7": 1, "r8": 1, "r4": 2, "r5": 2, "r6": 2},
        6: dict.fromkeys(truth, 0),
        7: {r: r for r in truth},
    }
    for pred in results.values():
        assert bmd(contingency_table(truth, pred)) == ref.bmd(truth, pred)


@pytest.mark.parametrize("seed", range(6))
def test_ceaf_on_noisy_medium_clusterings_matches_dense_hungarian(seed: int) -> None:
    """Many ties and large connected components: exercises every reduction rule and
    the sparse assignment of what remains."""
    rng = np.random.default_rng(seed)
    n = 400
    truth = rng.integers(0, [60, 150, 300, 30, 100, 200][seed], size=n)
    pred = truth.copy()
    moved = rng.random(n) < [0.2, 0.5, 0.9, 0.3, 0.6, 0.4][seed]
    pred[moved] = rng.integers(0, 120, size=int(moved.sum()))
    t = dict(enumerate(truth.tolist()))
    p = dict(enumerate(pred.tolist()))
    res = evaluate(t, p, metrics=["ceafm", "ceafe", "ceaf_phi1", "ceaf_phi2"])
    for prefix, phi in (("ceafm", 3), ("ceafe", 4), ("ceaf_phi1", 1), ("ceaf_phi2", 2)):
        check_pr(res, prefix, ref.ceaf(t, p, phi))
