"""The ACE evaluation score: hand-worked cases, a brute-force reference that
enumerates every one-to-one alignment, and properties over random clusterings."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from hypothesis import given

import ereval.metrics._ace
from ereval import InputError
from ereval.contingency import ContingencyTable, contingency_table
from ereval.metrics import evaluate
from ereval.metrics._ace import ace_alignment, ace_scores

from . import _reference as ref
from .test_metrics_bruteforce import close, clustering_pair
from .test_metrics_ceaf_rn import relabelled

ACE = ("ace_precision", "ace_recall", "ace_f1")
Pair = tuple[dict[int, int], dict[int, int]]


def ace(truth: object, pred: object, *, twinless: bool = False) -> dict[str, float]:
    return evaluate(truth, pred, metrics="ace", on_mismatch="twinless" if twinless else "error")


def check_brute_force(t: dict[int, int], p: dict[int, int], *, twinless: bool) -> None:
    res = ace(t, p, twinless=twinless)
    bp, br, overlap = ref.ace(t, p)
    assert close(res["ace_precision"], bp) and close(res["ace_recall"], br)
    assert close(res["ace_f1"], ref.f1(bp, br))
    table = contingency_table(t, p, on_mismatch="twinless" if twinless else "error")
    assert ace_alignment(table)[0] == overlap


# -- hand-worked cases ------------------------------------------------------------

MAIDASANI_TRUTH = [["r1", "r2", "r3"], ["r4", "r5", "r6"], ["r7", "r8"]]
RESULT_4 = [["r1", "r2", "r3", "r7", "r8"], ["r4", "r5", "r6"]]


@pytest.mark.parametrize(
    ("pred", "expected"),
    [
        # result 4: A={r1,r2,r3}, B={r4,r5,r6}, C={r7,r8}; x={r1,r2,r3,r7,r8}, y={r4,r5,r6}
        # cells A-x 3, C-x 2, B-y 3; best overlap A-x + B-y = 6 (C-x + B-y = 5)
        # TP = 2, FP = 2 - 2 = 0, FN = 3 - 2 = 1: P = 2/2, R = 2/3, F = 2(2/3)/(5/3) = 4/5
        (RESULT_4, (1.0, 2 / 3, 4 / 5)),
        # result 5: x={r1..r6}, y={r7,r8}; A-x or B-x (3) plus C-y (2): TP = 2 of 2 and 3
        ([["r1", "r2", "r3", "r4", "r5", "r6"], ["r7", "r8"]], (1.0, 2 / 3, 4 / 5)),
        # result 6: one cluster, aligned with one true cluster: P = 1/1, R = 1/3, F = 1/2
        ([[f"r{i}" for i in range(1, 9)]], (1.0, 1 / 3, 1 / 2)),
        # result 7: eight singletons; each true cluster takes one of its own: TP = 3
        # P = 3/8, R = 3/3, F = 2(3/8)/(11/8) = 6/11
        ([[f"r{i}"] for i in range(1, 9)], (3 / 8, 1.0, 6 / 11)),
    ],
)
def test_maidasani_results(pred: list[list[str]], expected: tuple[float, ...]) -> None:
    res = ace(MAIDASANI_TRUTH, pred)
    assert tuple(res[k] for k in ACE) == pytest.approx(expected, rel=1e-15)


def test_alignment_maximises_shared_records_not_pairs() -> None:
    # truth A={1}, B={2,3,4,5}; pred x={1,2,3,4}, y={5}
    # cells A-x 1, B-x 3, B-y 1: B-x alone shares 3 > A-x + B-y = 2, so TP = 1
    truth, pred = [[1], [2, 3, 4, 5]], [[1, 2, 3, 4], [5]]
    assert ace_alignment(contingency_table(truth, pred)) == (3, 1)
    res = evaluate(truth, pred, metrics=["ace", "ceaf_phi2"])
    assert (res["ace_precision"], res["ace_recall"]) == (1 / 2, 1 / 2)
    # CEAF phi2 maximises the number of pairs instead: A-x and B-y, 2 of 2
    assert (res["ceaf_phi2_precision"], res["ceaf_phi2_recall"]) == (1.0, 1.0)


def test_tie_goes_to_the_alignment_with_more_pairs() -> None:
    # truth A={1}, B={2,3,4}; pred x={1,2,3}, y={4}
    # cells A-x 1, B-x 2, B-y 1: {B-x} and {A-x, B-y} both share 2 records
    # the tie goes to the two pairs: TP = 2, P = 2/2, R = 2/2
    table = contingency_table([[1], [2, 3, 4]], [[1, 2, 3], [4]])
    assert ace_alignment(table) == (2, 2)
    assert ace_scores(table) == {"ace_precision": 1.0, "ace_recall": 1.0, "ace_f1": 1.0}
    # whichever side is the truth
    assert ace_alignment(contingency_table([[1, 2, 3], [4]], [[1], [2, 3, 4]])) == (2, 2)


def test_twinless_records() -> None:
    # truth A={a,b}, C={c}; pred P1={a,b}, P2={x,y}; c, x and y are twinless
    # only A-P1 shares records: TP = 1, FP = 1 (P2), FN = 1 (C): P = 1/2, R = 1/2
    res = ace([["a", "b"], ["c"]], [["a", "b"], ["x", "y"]], twinless=True)
    assert tuple(res[k] for k in ACE) == (0.5, 0.5, 0.5)


def test_fbeta_and_only_on_request() -> None:
    assert not set(ACE) & set(evaluate(MAIDASANI_TRUTH, RESULT_4))
    # result 4: P = 1, R = 2/3; F2 = 5 P R / (4 P + R) = (10/3) / (14/3) = 5/7
    res = evaluate(MAIDASANI_TRUTH, RESULT_4, metrics="ace", beta=2.0)
    assert res["ace_fbeta"] == pytest.approx(5 / 7, rel=1e-15)


def test_nan_without_true_clusters() -> None:
    empty = np.zeros(0, dtype=np.int64)
    table = ContingencyTable(empty, empty, empty, empty, np.array([2], dtype=np.int64))
    res = ace_scores(table)  # no aligned pair: P = 0/1, R = 0/0
    assert res["ace_precision"] == 0.0
    assert math.isnan(res["ace_recall"]) and math.isnan(res["ace_f1"])


def test_refuses_tables_beyond_exact_integers() -> None:
    one = np.zeros(1, dtype=np.int64)
    big = np.array([2**52], dtype=np.int64)
    table = ContingencyTable(one, one, big, big, big)
    # (n_common + 2) * (1 pair + 1) = 2**53 + 4: not exact in float64
    with pytest.raises(InputError, match=r"'table' is too large for the exact ACE alignment"):
        ace_alignment(table)


def test_doctests() -> None:
    result = doctest.testmod(ereval.metrics._ace, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# -- brute-force reference ----------------------------------------------------------


@given(clustering_pair())
def test_common_records_match_brute_force(pair: Pair) -> None:
    check_brute_force(*pair, twinless=False)


@given(clustering_pair(twinless=True))
def test_twinless_records_match_brute_force(pair: Pair) -> None:
    check_brute_force(*pair, twinless=True)


@pytest.mark.parametrize("seed", range(4))
def test_tied_medium_clusterings_match_brute_force(seed: int) -> None:
    """Larger components with many ties: the solver's reductions and its sparse
    assignment on the encoded weights."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, [4, 8, 12, 6][seed], size=24)
    pred = rng.integers(0, [5, 6, 10, 12][seed], size=24)
    check_brute_force(
        dict(enumerate(truth.tolist())), dict(enumerate(pred.tolist())), twinless=False
    )


# -- properties ---------------------------------------------------------------------


@given(clustering_pair(twinless=True))
def test_bounds_and_swap_with_twinless_records(pair: Pair) -> None:
    t, p = pair
    a, b = ace(t, p, twinless=True), ace(p, t, twinless=True)
    assert all(0.0 <= a[k] <= 1.0 for k in ACE), a
    # the alignment does not depend on which side is the truth
    assert (a["ace_precision"], a["ace_recall"]) == (b["ace_recall"], b["ace_precision"])
    assert a["ace_f1"] == b["ace_f1"]


@given(clustering_pair(twinless=True))
def test_between_exact_matches_and_most_pairs(pair: Pair) -> None:
    res = evaluate(*pair, metrics=["ace", "cluster", "ceaf_phi2"], on_mismatch="twinless")
    for part in ("precision", "recall"):
        # identical clusters are always aligned; phi2 aligns as many pairs as it can
        assert res[f"cluster_{part}"] <= res[f"ace_{part}"] <= res[f"ceaf_phi2_{part}"]


@given(clustering_pair(twinless=True))
def test_label_and_record_permutation_with_twinless_records(pair: Pair) -> None:
    base = ace(*pair, twinless=True)
    other = ace(*relabelled(*pair), twinless=True)
    for key in ACE:
        assert close(base[key], other[key]), key
