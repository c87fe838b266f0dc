"""Property tests over the registry of all metrics: bounds, perfect match,
symmetry under swapping truth and prediction, label permutation, input formats."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ereval.metrics import CANONICAL_METRICS, EXTRA_METRICS, evaluate

ALL = CANONICAL_METRICS + EXTRA_METRICS
UNIT_INTERVAL = [m for m in ALL if m.endswith(("_precision", "_recall", "_f1"))] + [
    "homogeneity",
    "completeness",
    "v_measure",
    "rand_index",
    "fowlkes_mallows",
]
PRF_FAMILIES = sorted({m.rsplit("_", 1)[0] for m in ALL if m.endswith("_precision")})
SYMMETRIC = [
    "variation_of_information",
    "rand_index",
    "adjusted_rand_index",
    "fowlkes_mallows",
    "bmd",
    "gmd",
    "bmd_normalized",
]


@st.composite
def labels(draw: st.DrawFn, min_size: int = 1) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(min_size, 30))
    k = draw(st.integers(1, 6))
    t = np.array(draw(st.lists(st.integers(0, k), min_size=n, max_size=n)))
    p = np.array(draw(st.lists(st.integers(0, k), min_size=n, max_size=n)))
    return t, p


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@given(labels())
def test_bounds(tp: tuple[np.ndarray, np.ndarray]) -> None:
    t, p = tp
    res = evaluate(t, p, metrics=list(ALL))
    assert set(res) == set(ALL)
    for name in UNIT_INTERVAL:
        v = res[name]
        assert math.isnan(v) or -1e-12 <= v <= 1 + 1e-12, (name, v)
    ari = res["adjusted_rand_index"]
    assert math.isnan(ari) or -1 <= ari <= 1
    assert 0 <= res["variation_of_information"] <= math.log(len(t)) * 2 + 1e-9
    assert res["bmd"] >= 0 and res["gmd"] >= 0
    # Maidasani's normalisation 1 - BMD/(N-1) is at most 1 but can be negative
    assert math.isnan(res["bmd_normalized"]) or res["bmd_normalized"] <= 1
    for v in res.values():
        assert isinstance(v, float)


@given(labels())
def test_perfect_match(tp: tuple[np.ndarray, np.ndarray]) -> None:
    t, _ = tp
    res = evaluate(t, t, metrics=list(ALL))
    n_pairs = int((np.bincount(t) * (np.bincount(t) - 1) // 2).sum())
    for fam in PRF_FAMILIES:
        for part in ("precision", "recall", "f1"):
            v = res[f"{fam}_{part}"]
            if fam == "pairwise" and n_pairs == 0:
                assert math.isnan(v)  # no pair on either side: 0/0
            elif fam == "muc" and n_pairs == 0:
                assert v == 0.0  # CoNLL: no link on either side
            elif fam == "blanc" and len(t) == 1:
                assert v == 0.0  # CoNLL: no link of either kind
            else:
                assert v == pytest.approx(1.0), (fam, part, v)
    assert res["variation_of_information"] == 0.0
    assert res["bmd"] == 0.0 and res["gmd"] == 0.0
    assert res["homogeneity"] == res["completeness"] == res["v_measure"] == 1.0
    assert math.isnan(res["rand_index"]) if len(t) == 1 else res["rand_index"] == 1.0


@given(labels())
def test_swapping_truth_and_prediction_swaps_precision_and_recall(
    tp: tuple[np.ndarray, np.ndarray],
) -> None:
    t, p = tp
    a = evaluate(t, p, metrics=list(ALL))
    b = evaluate(p, t, metrics=list(ALL))

    def both_link_kinds(x: np.ndarray) -> bool:
        sizes = np.bincount(x)
        return bool((sizes > 1).any()) and int((sizes > 0).sum()) > 1

    for fam in PRF_FAMILIES:
        if fam == "b3_entity":
            continue  # weights true clusters equally: not symmetric by design
        if fam == "blanc" and not (both_link_kinds(t) and both_link_kinds(p)):
            continue  # the scorer's special cases look at the key's links only
        assert same(a[f"{fam}_precision"], b[f"{fam}_recall"]), fam
        assert same(a[f"{fam}_recall"], b[f"{fam}_precision"]), fam
        assert same(a[f"{fam}_f1"], b[f"{fam}_f1"]), fam
    for name in SYMMETRIC:
        assert same(a[name], b[name]), name
    assert same(a["homogeneity"], b["completeness"])


@given(labels(), st.randoms(use_true_random=False))
def test_label_and_record_permutation(tp: tuple[np.ndarray, np.ndarray], rnd: object) -> None:
    t, p = tp
    base = evaluate(t, p, metrics=list(ALL))
    rng = np.random.default_rng(len(t))
    relabel_t = {
        int(c): f"T{v}"
        for c, v in zip(np.unique(t), rng.permutation(np.unique(t).size), strict=True)
    }
    relabel_p = {
        int(c): (v, "x")
        for c, v in zip(np.unique(p), rng.permutation(np.unique(p).size), strict=True)
    }
    order = rng.permutation(len(t))
    recs = [f"rec-{i}" for i in range(len(t))]
    truth = {recs[i]: relabel_t[int(t[i])] for i in order}
    pred = {recs[i]: relabel_p[int(p[i])] for i in order[::-1]}
    other = evaluate(truth, pred, metrics=list(ALL))
    for name in ALL:
        assert same(base[name], other[name]), name


def _forms(t: np.ndarray, tmp: Path) -> list[object]:
    recs = np.array([f"r{i}" for i in range(len(t))])
    frame = pd.DataFrame({"record_id": recs, "cluster_id": t})
    frame.to_csv(tmp / "c.csv", index=False)
    frame.to_parquet(tmp / "c.parquet", index=False)
    clusters = [list(recs[t == c]) for c in np.unique(t)]
    return [
        frame,
        frame.rename(columns={"record_id": "a", "cluster_id": "b"}),
        pd.Series(t, index=recs),
        dict(zip(recs.tolist(), t.tolist(), strict=True)),
        clusters,
        pl.DataFrame({"record_id": recs, "cluster_id": t}),
        pa.table({"record_id": recs, "cluster_id": t}),
        tmp / "c.csv",
        str(tmp / "c.parquet"),
    ]


def test_input_formats_give_identical_results(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    t = rng.integers(0, 12, size=80)
    p = t.copy()
    p[rng.random(80) < 0.3] = rng.integers(0, 15, size=int((rng.random(80) < 0.3).sum()))[0]
    pred = pd.DataFrame({"record_id": [f"r{i}" for i in range(80)], "cluster_id": p})
    ref = evaluate(t, p)
    for form in _forms(t, tmp_path):
        got = evaluate(form, pred)
        for name in CANONICAL_METRICS:
            assert same(ref[name], got[name]), (type(form).__name__, name)
    # positional label arrays: numpy, list, polars Series
    for form in (list(t), pl.Series(t), pa.chunked_array([t])):
        got = evaluate(form, p)
        assert all(same(ref[n], got[n]) for n in CANONICAL_METRICS)
