"""Rand, ARI, homogeneity, completeness, V-measure, FMI and VI against scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

from ereval.metrics import evaluate


@st.composite
def labels(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(2, 40))
    k = draw(st.integers(1, 8))
    t = np.array(draw(st.lists(st.integers(0, k), min_size=n, max_size=n)))
    p = np.array(draw(st.lists(st.integers(0, k), min_size=n, max_size=n)))
    return t, p


def _nonzero_pairs(x: np.ndarray) -> bool:
    return bool((np.bincount(x) > 1).any())


@given(labels())
def test_against_sklearn(tp: tuple[np.ndarray, np.ndarray]) -> None:
    t, p = tp
    res = evaluate(t, p)
    h, c, v = skm.homogeneity_completeness_v_measure(t, p)
    assert res["homogeneity"] == pytest.approx(h, abs=1e-10)
    assert res["completeness"] == pytest.approx(c, abs=1e-10)
    assert res["v_measure"] == pytest.approx(v, abs=1e-10)
    assert res["rand_index"] == pytest.approx(skm.rand_score(t, p), abs=1e-12)
    vi = skm.mutual_info_score(t, t) + skm.mutual_info_score(p, p) - 2 * skm.mutual_info_score(t, p)
    assert res["variation_of_information"] == pytest.approx(vi, abs=1e-10)
    ari = res["adjusted_rand_index"]
    if math.isnan(ari):  # 0/0: scikit-learn special-cases it to 1.0
        assert skm.adjusted_rand_score(t, p) == 1.0
    else:
        assert ari == pytest.approx(skm.adjusted_rand_score(t, p), abs=1e-10)
    fmi = res["fowlkes_mallows"]
    if _nonzero_pairs(t) and _nonzero_pairs(p):
        assert fmi == pytest.approx(skm.fowlkes_mallows_score(t, p), abs=1e-12)
    else:  # no true or no predicted pair: undefined here, 0.0 in scikit-learn
        assert math.isnan(fmi) or fmi == 0.0


def test_v_measure_beta_matches_sklearn() -> None:
    t = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    p = np.array([0, 0, 1, 1, 1, 2, 2, 0])
    res = evaluate(t, p, metrics="info", beta=2.0)
    assert res["v_measure_beta"] == pytest.approx(skm.v_measure_score(t, p, beta=2.0), abs=1e-12)


def test_large_counts_stay_exact() -> None:
    # 3 clusters of 10^6 records: pair counts ~ 1.5e12, beyond float64 exactness of products
    n = 1_000_000
    t = np.repeat(np.arange(3), n)
    p = t.copy()
    p[:10] = 1
    res = evaluate(t, p, metrics="rand")
    assert res["adjusted_rand_index"] == pytest.approx(skm.adjusted_rand_score(t, p), rel=1e-12)
    assert res["rand_index"] == pytest.approx(skm.rand_score(t, p), rel=1e-12)
