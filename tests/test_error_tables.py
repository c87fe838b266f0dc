"""Record-wise and cluster-wise error metrics (Binette et al. 2024, §3.3.1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval import RecordMismatchError, cluster_errors, evaluate, record_errors


def test_hand_computed_record_errors() -> None:
    # truth: A = {1, 2, 3}, B = {4}; prediction: x = {1, 2}, y = {3, 4}
    truth = {1: "A", 2: "A", 3: "A", 4: "B"}
    pred = {1: "x", 2: "x", 3: "y", 4: "y"}
    df = record_errors(truth, pred).set_index("record_id")
    # record 1: c = {1,2,3}, ĉ = {1,2}: OCE 0, UCE 1, SDE -1, ROCE 0, RUCE 1/3, H = log(2/2)
    assert df.loc[1, ["EI", "SDE", "OCE", "UCE"]].tolist() == [1, -1, 0, 1]
    assert df.loc[1, "RUCE"] == pytest.approx(1 / 3)
    assert df.loc[1, "H"] == 0.0
    # record 3: c = {1,2,3}, ĉ = {3,4}: OCE 1 (record 4), UCE 2, SDE -1, H = log(1/2)
    assert df.loc[3, ["EI", "SDE", "OCE", "UCE"]].tolist() == [1, -1, 1, 2]
    assert df.loc[3, "ROCE"] == 0.5 and df.loc[3, "H"] == pytest.approx(math.log(0.5))
    # record 4: c = {4}, ĉ = {3,4}: OCE 1, UCE 0, SDE 1
    assert df.loc[4, ["EI", "SDE", "OCE", "UCE"]].tolist() == [1, 1, 1, 0]


def test_cluster_errors_average_their_records() -> None:
    truth = {1: "A", 2: "A", 3: "A", 4: "B", 5: "C", 6: "C"}
    pred = {1: "x", 2: "x", 3: "y", 4: "y", 5: "z", 6: "z"}
    rec = record_errors(truth, pred)
    clu = cluster_errors(truth, pred).set_index("cluster_id")
    for cid, group in rec.groupby("true_cluster"):
        for col in ("EI", "SDE", "OCE", "UCE", "ROCE", "RUCE", "H"):
            assert clu.loc[cid, col] == pytest.approx(group[col].mean())
    assert clu.loc["C", "EI"] == 0.0  # predicted exactly
    assert clu.loc["A", "n_pred_clusters"] == 2 and clu.loc["A", "size"] == 3


def test_error_metrics_recover_global_metrics() -> None:
    """sum_r H(r) = -N H(T|P) (Lemma 5) and sum_r (1 - RUCE) / N = B3 recall."""
    rng = np.random.default_rng(0)
    t = rng.integers(0, 30, size=300)
    p = np.where(rng.random(300) < 0.3, rng.integers(0, 40, size=300), t)
    rec = record_errors(t, p)
    ev = evaluate(t, p)
    _, counts = np.unique(t, return_counts=True)
    h_t = -(counts / 300 * np.log(counts / 300)).sum()
    assert 1 + rec["H"].sum() / (300 * h_t) == pytest.approx(ev["homogeneity"], abs=1e-12)
    assert (1 - rec["RUCE"]).mean() == pytest.approx(ev["b3_recall"], abs=1e-12)
    assert (1 - rec["ROCE"]).mean() == pytest.approx(ev["b3_precision"], abs=1e-12)


def test_sample_of_true_clusters_against_full_prediction() -> None:
    pred = {1: "x", 2: "x", 3: "x", 4: "y", 5: "y"}
    sample = {1: "A", 2: "A"}  # one sampled true cluster; the prediction has more records
    with pytest.raises(RecordMismatchError):
        record_errors(sample, pred)
    df = record_errors(sample, pred, on_mismatch="twinless")
    assert df["pred_size"].tolist() == [3, 3]  # full predicted cluster sizes
    assert df["OCE"].tolist() == [1, 1]
    with pytest.raises(RecordMismatchError, match=r"absent from 'pred'"):
        record_errors({1: "A", 9: "A"}, pred, on_mismatch="twinless")


@pytest.mark.parametrize("seed", range(6))
def test_cluster_errors_equal_the_means_of_record_errors(seed: int) -> None:
    # cluster ids with gaps (unused codes), a sample of true clusters against a
    # whole prediction, and text ids: the cell-wise sums equal the per-record means
    rng = np.random.default_rng(seed)
    n = 300
    records = [f"r{k}" for k in range(n)]
    true = rng.integers(0, 40, n) * 7
    pred = rng.integers(0, 25, n) * 3 + 1000
    keep = np.isin(true, rng.choice(np.unique(true), 10, replace=False))
    truth = {r: int(c) for r, c, k in zip(records, true, keep, strict=True) if k}
    whole = {r: int(c) for r, c in zip(records, pred, strict=True)}
    clu = cluster_errors(truth, whole, on_mismatch="twinless")
    rec = record_errors(truth, whole, on_mismatch="twinless")
    grouped = rec.groupby("true_cluster", sort=True)
    assert clu["cluster_id"].tolist() == sorted(set(truth.values()))
    assert clu["size"].tolist() == grouped.size().tolist()
    assert clu["n_pred_clusters"].tolist() == grouped["pred_cluster"].nunique().tolist()
    for col in ("EI", "SDE", "OCE", "UCE", "ROCE", "RUCE", "H"):
        np.testing.assert_allclose(clu[col], grouped[col].mean(), rtol=1e-12, atol=1e-15)
