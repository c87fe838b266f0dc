"""CEAF_r&n (Rahman & Ng 2009): hand-worked cases, a brute-force reference that
enumerates every one-to-one alignment, and properties over random clusterings."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given

import ereval.metrics._ceaf
from ereval.metrics import evaluate

from . import _reference as ref
from .test_metrics_bruteforce import close, clustering_pair

RN = ("ceaf_rn_precision", "ceaf_rn_recall", "ceaf_rn_f1")
Pair = tuple[dict[int, int], dict[int, int]]


def ceaf_rn(truth: object, pred: object, *, twinless: bool = True) -> dict[str, float]:
    return evaluate(truth, pred, metrics="ceaf_rn", on_mismatch="twinless" if twinless else "error")


def relabelled(t: dict[int, int], p: dict[int, int]) -> tuple[dict[str, str], dict[str, object]]:
    """The same two clusterings with new record ids, new cluster ids and new orders."""
    rng = np.random.default_rng(len(t) + len(p))
    t_ids, p_ids = sorted(set(t.values())), sorted(set(p.values()))
    new_t = dict(zip(t_ids, rng.permutation(len(t_ids)).tolist(), strict=True))
    new_p = dict(zip(p_ids, rng.permutation(len(p_ids)).tolist(), strict=True))
    records = sorted(set(t) | set(p))
    name = {r: f"rec-{i}" for r, i in zip(records, rng.permutation(len(records)), strict=True)}
    truth = {name[r]: f"T{new_t[t[r]]}" for r in rng.permutation(sorted(t)).tolist()}
    pred: dict[str, object] = {
        name[r]: ("P", new_p[p[r]]) for r in rng.permutation(sorted(p)).tolist()
    }
    return truth, pred


# -- hand-worked cases ------------------------------------------------------------


def test_twinless_records_of_larger_clusters_stay() -> None:
    # key {a,b,c}; response {a,b,d}, {e}; d and e are twinless
    # e is a twinless singleton: discarded; d stays in {a,b,d}
    # Phi = |{a,b,c} ∩ {a,b,d}| = 2; R = 2/3 key records, P = 2/3 kept response records
    truth, pred = [["a", "b", "c"]], [["a", "b", "d"], ["e"]]
    res = ceaf_rn(truth, pred)
    assert tuple(res[k] for k in RN) == pytest.approx((2 / 3, 2 / 3, 2 / 3), rel=1e-15)
    # plain CEAFm keeps e as well: P = 2/4
    plain = evaluate(truth, pred, metrics="ceafm", on_mismatch="twinless")
    assert plain["ceafm_precision"] == 0.5


def test_twinless_key_records_stay_in_the_key() -> None:
    # key {a,b}, {c}; response {a}, {b,x}, {y}; c, x and y are twinless
    # y is discarded; x stays; key records a, b, c (3), kept response a, b, x (3)
    # {a,b} aligns with {a} or {b,x}: Phi = 1; {c} shares nothing: P = 1/3, R = 1/3
    res = ceaf_rn([["a", "b"], ["c"]], [["a"], ["b", "x"], ["y"]])
    assert tuple(res[k] for k in RN) == pytest.approx((1 / 3, 1 / 3, 1 / 3), rel=1e-15)


def test_every_response_record_discarded() -> None:
    # response {x}, {y}: both twinless singletons, nothing is left
    # CoNLL convention: an empty denominator gives 0, and F is 0
    res = ceaf_rn([["a", "b"]], [["x"], ["y"]])
    assert tuple(res[k] for k in RN) == (0.0, 0.0, 0.0)


def test_reported_with_twinless_records_and_fbeta() -> None:
    truth, pred = {"a": 1, "b": 1, "c": 2}, {"a": 1, "b": 1, "z": 3}
    assert set(RN) <= set(evaluate(truth, pred, on_mismatch="twinless"))
    assert not set(RN) & set(evaluate(truth, truth))  # on request otherwise
    res = evaluate(truth, pred, on_mismatch="twinless", beta=0.5)
    # z is discarded; Phi = 2 of 3 key and 2 response records: P = 1, R = 2/3
    # F_0.5 = 1.25 P R / (0.25 P + R) = (5/6) / (11/12) = 10/11
    assert res["ceaf_rn_fbeta"] == pytest.approx(10 / 11, rel=1e-15)


def test_doctests() -> None:
    result = doctest.testmod(ereval.metrics._ceaf, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# -- brute-force reference ----------------------------------------------------------


@given(clustering_pair(twinless=True))
def test_twinless_records_match_brute_force(pair: Pair) -> None:
    t, p = pair
    res = ceaf_rn(t, p)
    rp, rr = ref.ceaf_rn(t, p)
    assert close(res["ceaf_rn_precision"], rp) and close(res["ceaf_rn_recall"], rr)


# -- properties ---------------------------------------------------------------------


@given(clustering_pair())
def test_is_ceafm_without_twinless_records(pair: Pair) -> None:
    t, p = pair
    res = evaluate(t, p, metrics=["ceaf_rn", "ceafm"])
    for part in ("precision", "recall", "f1"):
        assert res[f"ceaf_rn_{part}"] == res[f"ceafm_{part}"]


@given(clustering_pair(twinless=True))
def test_bounds_with_twinless_records(pair: Pair) -> None:
    res = ceaf_rn(*pair)
    assert all(0.0 <= res[k] <= 1.0 for k in RN), res


@given(clustering_pair(twinless=True))
def test_label_and_record_permutation_with_twinless_records(pair: Pair) -> None:
    base = ceaf_rn(*pair)
    other = ceaf_rn(*relabelled(*pair))
    for key in RN:
        assert close(base[key], other[key]), key
