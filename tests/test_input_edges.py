"""Real-world input shapes: keys of several columns of mixed types, predictions that leave
out singletons, empty predictions, every metric of scored pairs at one threshold,
recordlinkage's truth format, and grids that only thin what is shown."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from typer.testing import CliRunner

import ereval
from ereval import InputError, InputTypeError, RecordMismatchError
from ereval.cli import app
from ereval.curves import evaluate_pairs, threshold_curve
from ereval.engines import DuckDBEngine, NumpyEngine, SparkEngine
from ereval.io import links_to_membership
from ereval.statistics import INTEGER_STATISTICS, compute_statistics

runner = CliRunner()


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for key, value in a.items():
        assert value == pytest.approx(b[key], rel=1e-12, abs=1e-12, nan_ok=True), key


# -- keys of several columns of mixed types ---------------------------------------------


def _splink_like(tmp_path: Path, n: int = 150) -> tuple[Path, Path, pd.DataFrame, pd.DataFrame]:
    """Splink's clusters in Parquet (integer ``unique_id`` beside text
    ``source_dataset``) and a truth in CSV (every id text)."""
    rng = np.random.default_rng(11)
    truth = pd.DataFrame(
        {
            "source_dataset": rng.choice(["census", "acs"], n),
            "unique_id": rng.permutation(n),
            "cluster_id": rng.integers(0, n // 3, n),
        }
    )
    pred = truth.assign(cluster_id=rng.integers(0, n // 3, n)).sample(frac=1.0, random_state=3)
    t_path, p_path = tmp_path / "truth.csv", tmp_path / "clusters.parquet"
    truth.to_csv(t_path, index=False)
    pred.to_parquet(p_path, index=False)
    return t_path, p_path, truth, pred


KEY = ["source_dataset", "unique_id"]


@pytest.mark.each_engine
def test_mixed_key_kinds_are_detected_and_string_compares_them(tmp_path: Path, engine: str) -> None:
    t_path, p_path, truth, pred = _splink_like(tmp_path)
    with pytest.raises(InputTypeError) as exc:
        ereval.evaluate(t_path, p_path, record_col=KEY, engine=engine)
    message = str(exc.value)
    assert "keys of (text, text)" in message and "keys of (text, integer)" in message
    assert "id_type='string'" in message
    got = ereval.evaluate(t_path, p_path, record_col=KEY, engine=engine, id_type="string")
    _same(got, ereval.evaluate(truth, pred, record_col=KEY))


def test_string_ids_write_integer_parts_as_decimal_text() -> None:
    truth = pd.DataFrame({"s": ["a", "a"], "u": ["07", "7"], "cluster_id": [1, 2]})
    pred = pd.DataFrame({"s": ["a", "a"], "u": [7, 8], "cluster_id": [1, 1]})
    # 7 is "7", not "07", as for one column
    with pytest.raises(RecordMismatchError, match=r"""\["a","07"\]"""):
        ereval.evaluate(truth, pred, record_col=["s", "u"], id_type="string")


def test_mixed_key_kinds_in_the_cli_and_the_curve(tmp_path: Path) -> None:
    t_path, p_path, truth, pred = _splink_like(tmp_path)
    args = ["metrics", str(t_path), str(p_path), "--record-col", ",".join(KEY), "-f", "json"]
    clash = runner.invoke(app, args)
    assert clash.exit_code == 2 and "--id-type string" in clash.stderr
    ok = runner.invoke(app, [*args, "--id-type", "string"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["b3_f1"] == pytest.approx(
        ereval.evaluate(truth, pred, record_col=KEY)["b3_f1"]
    )
    # scored pairs keyed the same way (Splink's predictions), against the CSV truth
    pairs = pd.DataFrame(
        {
            "source_dataset_l": truth["source_dataset"][:-1].to_numpy(),
            "unique_id_l": truth["unique_id"][:-1].to_numpy(),
            "source_dataset_r": truth["source_dataset"][1:].to_numpy(),
            "unique_id_r": truth["unique_id"][1:].to_numpy(),
            "match_weight": np.linspace(-3, 3, len(truth) - 1),
        }
    )
    pairs.to_parquet(tmp_path / "pairs.parquet")
    opts: dict[str, Any] = {
        "score_col": "match_weight",
        "left_col": ["source_dataset_l", "unique_id_l"],
        "right_col": ["source_dataset_r", "unique_id_r"],
        "record_col": KEY,
    }
    with pytest.raises(InputTypeError, match="id_type='string'"):
        threshold_curve(t_path, tmp_path / "pairs.parquet", **opts)
    got = threshold_curve(t_path, tmp_path / "pairs.parquet", id_type="string", **opts)
    want = threshold_curve(truth, pairs, **opts)
    pd.testing.assert_frame_equal(got.frame, want.frame)


def test_mixed_key_kinds_on_spark(tmp_path: Path, spark: Any) -> None:
    t_path, p_path, truth, pred = _splink_like(tmp_path, n=60)
    engine = SparkEngine(session=spark)
    with pytest.raises(InputTypeError, match="keys of"):
        compute_statistics(engine, t_path, p_path, record_col=KEY)
    got = compute_statistics(engine, t_path, p_path, record_col=KEY, id_type="string")
    want = compute_statistics(NumpyEngine(), truth, pred, record_col=KEY)
    assert {k: getattr(got, k) for k in INTEGER_STATISTICS} == {
        k: getattr(want, k) for k in INTEGER_STATISTICS
    }


# -- predictions that leave out singletons ----------------------------------------------


def _leaving_out(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame({"record_id": np.arange(n) * 7, "cluster_id": rng.integers(0, n // 2, n)})
    full = truth.assign(cluster_id=rng.integers(0, n // 2, n))
    sizes = full["cluster_id"].map(full["cluster_id"].value_counts())
    return truth, full, full[sizes > 1].sample(frac=1.0, random_state=seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_singletons_complete_the_prediction(tmp_path: Path, seed: int) -> None:
    truth, full, short = _leaving_out(200, seed)
    want = ereval.evaluate(truth, full, metrics="all")
    got = ereval.evaluate(truth, short, on_mismatch="singletons", metrics="all")
    _same(got, want)
    truth.to_csv(tmp_path / "t.csv", index=False)
    short.to_parquet(tmp_path / "p.parquet", index=False)
    for engine in (NumpyEngine(), DuckDBEngine()):
        stats = compute_statistics(
            engine, tmp_path / "t.csv", tmp_path / "p.parquet", on_mismatch="singletons",
            id_type="string",
        )  # fmt: skip
        _same(
            ereval.evaluate(stats),
            ereval.evaluate(truth.astype(str), full.astype({"record_id": str})),
        )


def test_singletons_in_the_error_tables() -> None:
    truth, full, short = _leaving_out(60, 5)
    got = ereval.record_errors(truth, short, on_mismatch="singletons", engine="numpy")
    want = ereval.record_errors(truth, full, engine="numpy")
    cols = ["record_id", "true_size", "pred_size", "EI", "SDE", "OCE", "UCE", "ROCE", "RUCE", "H"]
    pd.testing.assert_frame_equal(got[cols], want[cols])
    left_out = ~got["record_id"].isin(short["record_id"])
    assert got.loc[left_out, "pred_cluster"].isna().all()
    pd.testing.assert_frame_equal(
        ereval.cluster_errors(truth, short, on_mismatch="singletons", engine="numpy"),
        ereval.cluster_errors(truth, full, engine="numpy"),
    )


# -- empty predictions ------------------------------------------------------------------


def test_empty_predictions_give_nan_precision_and_zero_recall(tmp_path: Path) -> None:
    truth = pd.DataFrame({"record_id": ["a", "b", "c"], "cluster_id": [1, 1, 2]})
    none = pd.DataFrame({"record_id_1": [], "record_id_2": [], "score": []})
    for got in (
        evaluate_pairs(truth, none, metrics="pairwise"),
        evaluate_pairs(truth, none, score_col="score", threshold=0.5, metrics="pairwise"),
        evaluate_pairs(truth, pd.MultiIndex.from_tuples([], names=["l", "r"])),
        evaluate_pairs(truth, ereval.as_pairs([])),
    ):
        assert math.isnan(got["pairwise_precision"]) and got["pairwise_recall"] == 0.0
        assert math.isnan(got["links_precision"]) and got["links_recall"] == 0.0
        assert got["n_pred_clusters"] == 3 and got["links_fn"] == 1
    empty = pd.DataFrame({"record_id": pd.Series([], dtype=str), "cluster_id": []})
    with pytest.raises(RecordMismatchError, match="on_mismatch='singletons'"):
        ereval.evaluate(truth, empty)
    got = ereval.evaluate(truth, empty, on_mismatch="singletons")
    _same(got, ereval.evaluate(truth, {"a": 1, "b": 2, "c": 3}))
    assert math.isnan(got["pairwise_precision"]) and got["pairwise_recall"] == 0.0
    (tmp_path / "pairs.csv").write_text("record_id_1,record_id_2,score\n")
    (tmp_path / "pred.csv").write_text("record_id,cluster_id\n")
    truth.to_csv(tmp_path / "truth.csv", index=False)
    t, pairs, pred = (str(tmp_path / f) for f in ("truth.csv", "pairs.csv", "pred.csv"))
    for args in (
        ["metrics", t, pairs, "--pairs"],
        ["metrics", t, pairs, "--pairs", "--score-col", "score", "--threshold", "0.5"],
        ["metrics", t, pred, "--on-mismatch", "singletons"],
        ["metrics", t, pred, "--on-mismatch", "singletons", "--engine", "duckdb"],
    ):
        out = runner.invoke(app, [*args, "-f", "json"])
        assert out.exit_code == 0, out.output
        row = json.loads(out.stdout)
        assert row["pairwise_precision"] is None and row["pairwise_recall"] == 0.0
    curve = runner.invoke(app, ["curve", t, pairs, "--score-col", "score", "-f", "json"])
    assert curve.exit_code == 0 and json.loads(curve.stdout) == []


# -- every metric of scored pairs at one threshold; recordlinkage's truth ---------------


def _components(truth: pd.DataFrame, pairs: pd.DataFrame, t: float) -> pd.DataFrame:
    n = len(truth)
    kept = pairs[pairs["score"] >= t]
    graph = csr_matrix((np.ones(len(kept)), (kept["record_id_1"], kept["record_id_2"])), (n, n))
    return pd.DataFrame(
        {"record_id": np.arange(n), "cluster_id": connected_components(graph, directed=False)[1]}
    )


def test_metrics_pairs_at_a_threshold_gives_every_clustering_metric(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    n = 90
    truth = pd.DataFrame({"record_id": np.arange(n), "cluster_id": rng.integers(0, 30, n)})
    a, b = rng.integers(0, n, 400), rng.integers(0, n, 400)
    pairs = pd.DataFrame({"record_id_1": a, "record_id_2": b}).query("record_id_1 < record_id_2")
    pairs = pairs.drop_duplicates().assign(score=lambda f: rng.random(len(f)).round(2))
    truth.to_parquet(tmp_path / "truth.parquet")
    pairs.to_parquet(tmp_path / "pairs.parquet")
    args = ["metrics", str(tmp_path / "truth.parquet"), str(tmp_path / "pairs.parquet")]
    out = runner.invoke(
        app, [*args, "--pairs", "--score-col", "score", "--threshold", "0.7", "-f", "json"]
    )
    assert out.exit_code == 0, out.output
    row = json.loads(out.stdout)
    want = ereval.evaluate(truth, _components(truth, pairs, 0.7))
    for key, value in want.items():
        assert row[key] == pytest.approx(value, nan_ok=True) or (
            row[key] is None and value != value
        )
    kept = pairs[pairs["score"] >= 0.7]
    tc = truth["cluster_id"].to_numpy()
    assert row["links_tp"] == int((tc[kept["record_id_1"]] == tc[kept["record_id_2"]]).sum())
    lone = runner.invoke(app, [*args, "--pairs", "--threshold", "0.7"])
    assert lone.exit_code == 2 and "'--threshold' needs the score column" in lone.stderr
    wrong = runner.invoke(app, [*args, "--score-col", "score"])
    assert wrong.exit_code == 2 and "give --pairs too" in wrong.stderr


def test_recordlinkage_truth_format() -> None:
    links = pd.MultiIndex.from_tuples([("a1", "b1"), ("a2", "b2"), ("a3", "b3")])
    records = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]
    pred = pd.MultiIndex.from_tuples([("a1", "b1"), ("a2", "b3"), ("a4", "b4")])
    truth = links_to_membership(links, records=records)
    got = ereval.evaluate_pairs(truth, pred, metrics="pairwise")
    assert (got["links_tp"], got["links_fp"], got["links_fn"]) == (1, 2, 2)
    assert got["links_tn"] == 8 * 7 // 2 - 5
    # the MultiIndex itself: a clustering of the linked records
    direct = ereval.evaluate(links, {"a1": 0, "b1": 0, "a2": 1, "b2": 2, "a3": 3, "b3": 3})
    assert direct["pairwise_precision"] == 1.0 and direct["pairwise_recall"] == pytest.approx(2 / 3)
    with pytest.raises(InputError, match="duplicate"):
        links_to_membership(links, records=["a1", "a1"])


# -- a grid only thins what is shown ----------------------------------------------------


def test_grid_does_not_move_the_reported_thresholds(tmp_path: Path) -> None:
    from ereval import example

    truth, pairs = example.load("truth.csv"), example.load("pairs.csv")
    full = threshold_curve(truth, pairs, score_col="probability")
    for grid in (8, [0.2, 0.9]):
        thin = threshold_curve(truth, pairs, score_col="probability", thresholds=grid)
        assert len(thin.frame) < 10
        for metric in ("pairwise_f1", "b3_f1", "links_f1", "cluster_f1"):
            assert thin.best(metric) == full.best(metric)
        for target in (0.9, 0.99, 0.999):
            assert thin.threshold_for(target) == full.threshold_for(target)
            assert thin.threshold_for(target, metric="b3_precision") == full.threshold_for(
                target, metric="b3_precision"
            )
    # the CLI's summary is that of every score, whatever --grid
    truth.to_csv(tmp_path / "truth.csv", index=False)
    pairs.to_csv(tmp_path / "pairs.csv", index=False)
    paths = [str(tmp_path / "truth.csv"), str(tmp_path / "pairs.csv")]
    base = ["curve", *paths, "--score-col", "probability", "--precision-target", "0.999"]
    summaries = []
    for extra in ([], ["--grid", "8"]):
        out = runner.invoke(app, [*base, *extra, "-o", str(tmp_path / "c.csv")])
        assert out.exit_code == 0, out.output
        summaries.append(out.stdout.split("summary")[1])
    assert summaries[0] == summaries[1]
    hit = full.threshold_for(0.999)
    assert hit is not None and f"{hit['threshold']:.6g}" in summaries[0]


def test_grid_best_of_a_metric_without_incremental_form() -> None:
    rng = np.random.default_rng(2)
    n = 60
    truth = pd.DataFrame({"record_id": np.arange(n), "cluster_id": rng.integers(0, 20, n)})
    a, b = rng.integers(0, n, 200), rng.integers(0, n, 200)
    pairs = pd.DataFrame({"record_id_1": a, "record_id_2": b}).query("record_id_1 < record_id_2")
    pairs = pairs.drop_duplicates().assign(score=lambda f: rng.random(len(f)).round(2))
    thin = threshold_curve(truth, pairs, metrics="ceafe", thresholds=4)
    best = thin.best("ceafe_f1")
    by_hand = {
        t: ereval.evaluate(truth, _components(truth, pairs, t), metrics="ceafe")["ceafe_f1"]
        for t in np.unique(pairs["score"])
    }
    top = max(by_hand.values())
    assert best["ceafe_f1"] == pytest.approx(top)
    assert best["threshold"] == max(t for t, v in by_hand.items() if v == pytest.approx(top))
