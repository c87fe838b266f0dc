"""Threshold curves on the SQL engines: the same curve as in memory, from pairs
streamed in batches into a union-find over the records.

The reference is the in-memory path (``engine="numpy"``), itself checked against
brute force in tests/test_curves.py; :class:`StreamedForest` is checked against
:func:`forest_edges` (SciPy's minimum spanning tree over every pair at once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import Error, InputError
from ereval._algorithms import StreamedForest, forest_edges
from ereval.cli import app
from ereval.curves import ThresholdCurve, threshold_curve
from ereval.curves._curve import CurveJob
from ereval.curves._sql import score_ranges
from ereval.engines import DuckDBEngine

from ._engines import build

runner = CliRunner()


def _data(
    seed: int, n: int = 120, m: int = 900, *, sources: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A truth of ``n`` records with text ids with leading zeros (``0007``, and ``7``
    for another record) and about ``m`` distinct pairs scored on a coarse grid (many
    ties); with ``sources`` records of two data sets and pairs across them only."""
    rng = np.random.default_rng(seed)
    ids = np.array([f"{i:04d}" if i % 5 else str(i // 5) for i in range(n)])
    assert len(set(ids.tolist())) == n
    cluster = rng.integers(0, n // 3, n)
    truth = pd.DataFrame({"record_id": ids, "cluster_id": [f"c{c:03d}" for c in cluster]})
    source = rng.integers(0, 2, n)
    if sources:
        truth["source"] = np.where(source == 0, "left", "right")
    # true pairs more often, so that the clustering metrics move
    same = rng.integers(0, n, 3 * m)
    left = rng.integers(0, n, 3 * m)
    right = np.where(rng.random(3 * m) < 0.3, _partner(cluster, left, rng), same)
    lo, hi = np.minimum(left, right), np.maximum(left, right)
    key = np.unique(lo * n + hi)
    lo, hi = key // n, key % n
    keep = lo != hi
    if sources:
        keep &= source[lo] != source[hi]
    lo, hi = lo[keep], hi[keep]
    pick = rng.permutation(lo.size)[:m]
    lo, hi = lo[pick], hi[pick]
    swap = rng.random(lo.size) < 0.5  # either order
    a, b = np.where(swap, hi, lo), np.where(swap, lo, hi)
    true = cluster[a] == cluster[b]
    score = np.round(np.where(true, rng.normal(1, 1, a.size), rng.normal(-1, 1, a.size)), 1)
    pairs = pd.DataFrame({"record_id_1": ids[a], "record_id_2": ids[b], "score": score})
    return truth, pairs


def _partner(cluster: Any, left: Any, rng: np.random.Generator) -> Any:
    """For each record of ``left``, a random record of its true cluster (itself at worst)."""
    out = np.array(left, copy=True)
    for k, r in enumerate(left.tolist()):
        mates = np.flatnonzero(cluster == cluster[r])
        out[k] = mates[rng.integers(0, mates.size)]
    return out


def _write(tmp_path: Path, truth: pd.DataFrame, pairs: pd.DataFrame, fmt: str) -> tuple[str, str]:
    t, p = tmp_path / f"truth.{fmt}", tmp_path / f"pairs.{fmt}"
    if fmt == "csv":
        truth.to_csv(t, index=False)
        pairs.to_csv(p, index=False)
    else:
        truth.to_parquet(t, index=False)
        pairs.to_parquet(p, index=False)
    return str(t), str(p)


def _same(a: ThresholdCurve, b: ThresholdCurve) -> None:
    """Counts equal, floats within 1e-12, in the frame, the summary, ROC and PR."""
    assert list(a.frame.columns) == list(b.frame.columns)
    assert len(a.frame) == len(b.frame)
    for col in a.frame.columns:
        x, y = a.frame[col].to_numpy(), b.frame[col].to_numpy()
        if x.dtype.kind in "iu":
            assert y.dtype.kind in "iu", col
            np.testing.assert_array_equal(x, y, err_msg=col)
        else:
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-12, err_msg=col)
    assert a.summary.keys() == b.summary.keys()
    for key, v in a.summary.items():
        if isinstance(v, int):
            assert b.summary[key] == v, key
        else:
            np.testing.assert_allclose(v, b.summary[key], rtol=0, atol=1e-12, err_msg=key)
    for x, y in ((a.roc(), b.roc()), (a.pr(), b.pr())):
        np.testing.assert_allclose(x.to_numpy(), y.to_numpy(), rtol=0, atol=1e-12)


def _run(engine: Any, truth: Any, pairs: Any, *, batch_rows: int, **kw: Any) -> ThresholdCurve:
    """The curve from ``engine`` with the pairs streamed ``batch_rows`` at a time."""
    options = {
        "score_col": "score",
        "left_col": "record_id_1",
        "right_col": "record_id_2",
        "record_col": "record_id",
        "cluster_col": "cluster_id",
        "on_mismatch": kw.pop("on_mismatch", "error"),
        "id_type": kw.pop("id_type", "exact"),
    }
    job = CurveJob(
        truth,
        pairs,
        options,
        source_col=kw.pop("source_col", None),
        thresholds=kw.pop("thresholds", None),
        metrics=kw.pop("metrics", ()),
        beta=kw.pop("beta", 1.0),
        progress=None,
        batch_rows=batch_rows,
    )
    assert not kw
    curve: ThresholdCurve = engine.run(job)
    return curve


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(
    ("thresholds", "metrics"),
    [(None, None), (7, None), ([-0.5, 0.0, 0.35, 9.0], None), (None, []), (5, "canonical")],
)
def test_duckdb_equals_numpy(tmp_path: Path, fmt: str, thresholds: Any, metrics: Any) -> None:
    truth, pairs = _data(1)
    t, p = _write(tmp_path, truth, pairs, fmt)
    kw: dict[str, Any] = {"thresholds": thresholds, "metrics": metrics, "beta": 0.5}
    a = threshold_curve(t, p, engine="numpy", **kw)
    b = threshold_curve(t, p, engine=DuckDBEngine(threads=1), **kw)
    _same(a, b)
    assert a.summary["n_pairs"] == len(pairs) and a.summary["n_true_pairs_scored"] > 10
    # best() and threshold_for() look at every distinct score, whatever the grid
    if "pairwise_f1" in a.frame.columns:
        assert a.best("pairwise_f1") == pytest.approx(b.best("pairwise_f1"), abs=1e-12)
    assert a.threshold_for(0.3) == pytest.approx(b.threshold_for(0.3), abs=1e-12)


@pytest.mark.parametrize("batch_rows", [1, 7, 64, 100_000])
def test_many_batches(tmp_path: Path, batch_rows: int) -> None:
    """The union-find sees the pairs a few at a time: the same curve whatever the
    batch size (one pair per batch included)."""
    truth, pairs = _data(2, n=90, m=500)
    t, p = _write(tmp_path, truth, pairs, "parquet")
    metrics = ["pairwise", "b3", "cluster", "muc", "v_measure", "rand_index"]
    a = threshold_curve(t, p, engine="numpy", metrics=metrics)
    b = _run(
        DuckDBEngine(threads=1), t, p, batch_rows=batch_rows, metrics=tuple(a.frame.columns[10:])
    )
    _same(a, b)
    assert a.frame["n_pred_clusters"].nunique() > 20  # many merges happened


def test_link_only(tmp_path: Path) -> None:
    truth, pairs = _data(3, sources=True)
    t, p = _write(tmp_path, truth, pairs, "csv")
    kw: dict[str, Any] = {"link_only": True, "source_col": "source"}
    a = threshold_curve(t, p, engine="numpy", **kw)
    b = _run(
        DuckDBEngine(),
        t,
        p,
        batch_rows=13,
        source_col="source",
        metrics=tuple(a.frame.columns[10:]),
    )
    _same(a, b)
    assert a.summary["n_sources"] == b.summary["n_sources"] == 2
    # a pair within one data set is refused by both, naming it
    inside = truth.loc[truth["source"] == "left", "record_id"].iloc[:2].tolist()
    bad = pd.concat(
        [
            pairs,
            pd.DataFrame({"record_id_1": [inside[0]], "record_id_2": [inside[1]], "score": [0.5]}),
        ]
    )
    bad.to_csv(p, index=False)
    for engine in ("numpy", "duckdb"):
        with pytest.raises(InputError, match=r"1 pair\(s\) of two records of one data set"):
            threshold_curve(t, p, engine=engine, **kw)


def test_records_missing_from_the_truth(tmp_path: Path) -> None:
    """Pairs naming records absent from the truth: an error naming them, or dropped."""
    truth, pairs = _data(4)
    extra = pd.DataFrame(
        {
            "record_id_1": ["x1", pairs["record_id_1"][0], "x2"],
            "record_id_2": [pairs["record_id_2"][0] + "z", "x3", "x1"],
            "score": [0.1, 2.0, 0.1],
        }
    )
    t, p = _write(tmp_path, truth, pd.concat([pairs, extra]), "csv")
    for engine in ("numpy", "duckdb"):
        with pytest.raises(InputError, match=r"3 pair\(s\) naming records absent from 'truth'"):
            threshold_curve(t, p, engine=engine)
    a = threshold_curve(t, p, engine="numpy", on_mismatch="intersection")
    b = threshold_curve(t, p, engine="duckdb", on_mismatch="intersection")
    _same(a, b)
    assert b.summary["n_pairs_dropped"] == 3


def test_ids_read_exactly(tmp_path: Path) -> None:
    """``0007`` is not ``7``: a pair of ``7`` and ``0008`` is not a pair of ``0007``."""
    truth = pd.DataFrame(
        {"record_id": ["0007", "7", "0008", "8"], "cluster_id": ["a", "b", "a", "b"]}
    )
    pairs = pd.DataFrame(
        {"record_id_1": ["7", "0007"], "record_id_2": ["0008", "8"], "score": [0.9, 0.4]}
    )
    t, p = _write(tmp_path, truth, pairs, "csv")
    a = threshold_curve(t, p, engine="numpy")
    b = threshold_curve(t, p, engine="duckdb")
    _same(a, b)
    assert b.frame["links_tp"].tolist() == [0, 0]
    # with the ids compared as text an integer file matches a text one
    pd.DataFrame({"record_id_1": [7], "record_id_2": [8], "score": [0.5]}).to_parquet(
        tmp_path / "ints.parquet"
    )
    got = threshold_curve(t, tmp_path / "ints.parquet", engine="duckdb", id_type="string")
    assert got.frame["links_fp"].tolist() == [0] and got.frame["links_tp"].tolist() == [1]


def test_empty_pairs(tmp_path: Path) -> None:
    truth, _ = _data(5, n=30, m=10)
    pairs = pd.DataFrame(
        {
            "record_id_1": pd.Series([], dtype="string"),
            "record_id_2": pd.Series([], dtype="string"),
            "score": pd.Series([], dtype=float),
        }
    )
    t, p = _write(tmp_path, truth, pairs, "parquet")
    for thresholds in (None, [0.5]):
        a = threshold_curve(t, p, engine="numpy", thresholds=thresholds)
        b = threshold_curve(t, p, engine="duckdb", thresholds=thresholds)
        _same(a, b)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_negative_zero_is_the_score_zero(tmp_path: Path, fmt: str) -> None:
    """-0.0 and 0.0 are one score on every engine, and its threshold is written 0.0
    whichever of the two comes first (a sign of zero would differ between runs)."""
    truth = pd.DataFrame({"record_id": range(6), "cluster_id": [0, 0, 1, 1, 2, 2]})
    pairs = pd.DataFrame(
        {"record_id_1": [0, 2, 4, 1], "record_id_2": [1, 3, 5, 2], "score": [-0.0, 0.0, 0.5, -0.0]}
    )
    t, p = _write(tmp_path, truth, pairs, fmt)
    for engine in ("numpy", "duckdb"):
        frame = threshold_curve(t, p, engine=engine).frame
        thresholds = frame["threshold"].to_numpy()
        assert thresholds.tolist() == [0.0, 0.5]
        assert not np.signbit(thresholds).any(), engine
        assert frame["n_accepted"].tolist() == [4, 1]


def test_decimal_scores_are_numbers_on_every_engine(tmp_path: Path) -> None:
    """A Parquet column of decimals (as SQL systems write scores) is read as the nearest
    doubles on every engine (NumPy refused it as not numbers)."""
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    truth, pairs = _data(11)
    t, _ = _write(tmp_path, truth, pairs, "parquet")
    text = [f"{v:.1f}" for v in pairs["score"]]
    table = pa.table(
        {
            "record_id_1": pairs["record_id_1"].tolist(),
            "record_id_2": pairs["record_id_2"].tolist(),
            "score": pa.array([decimal.Decimal(v) for v in text], pa.decimal128(6, 2)),
        }
    )
    pq.write_table(table, tmp_path / "decimal.parquet")
    expected = threshold_curve(t, pairs.assign(score=[float(v) for v in text]), engine="numpy")
    for engine in ("numpy", "duckdb"):
        _same(threshold_curve(t, str(tmp_path / "decimal.parquet"), engine=engine), expected)


@pytest.mark.parametrize(
    ("rows", "error"),
    [
        ([("0001", "0001", "0.5")], "pairs a record with itself"),
        ([("0001", "0002", "0.5"), ("0002", "0001", "0.7")], r"1 repeated pair\(s\)"),
        ([("0001", "0002", "")], r"1 missing, NaN or infinite score"),
        ([("0001", "0002", "inf")], r"1 missing, NaN or infinite score"),
        # the same words from every engine, naming the text that is not a number
        ([("0001", "0002", "high")], "must hold numbers; it holds text such as 'high'$"),
        ([("0001", "zz", "0.5"), ("zz", "0001", "0.7")], r"repeated pair\(s\)"),
    ],
)
def test_bad_pairs_refused_alike(tmp_path: Path, rows: list[tuple[str, ...]], error: str) -> None:
    truth = pd.DataFrame({"record_id": ["0001", "0002", "0003"], "cluster_id": ["a", "a", "b"]})
    good = [("0002", "0003", "0.1")]
    pairs = pd.DataFrame(good + rows, columns=["record_id_1", "record_id_2", "score"])
    t, p = _write(tmp_path, truth, pairs, "csv")
    for engine in ("numpy", "duckdb"):
        with pytest.raises(Error, match=error):
            threshold_curve(t, p, engine=engine, on_mismatch="intersection")


@pytest.mark.parametrize("seed", range(6))
def test_streamed_forest_is_kruskals(seed: int) -> None:
    """The merging pairs of pairs streamed in random batch sizes are those of the
    minimum spanning tree over every pair's rank at once."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    m = int(rng.integers(1, 400))
    left, right = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = left != right
    left, right = left[keep], right[keep]
    lo, hi = np.minimum(left, right), np.maximum(left, right)
    _, first = np.unique(lo * n + hi, return_index=True)
    first = np.sort(first)
    left, right = left[first], right[first]
    rank = np.arange(left.size, dtype=np.int64)
    expected = forest_edges(n, left, right, rank)
    forest = StreamedForest(n)
    start = 0
    while start < left.size:
        stop = start + int(rng.integers(1, 30))
        forest.add(left[start:stop], right[start:stop])
        start = stop
    got_l, got_r, position = forest.merges()
    np.testing.assert_array_equal(position - 1, expected)
    np.testing.assert_array_equal(got_l, left[expected])
    np.testing.assert_array_equal(got_r, right[expected])


@pytest.mark.parametrize("rows", [1, 2, 5, 50])
def test_score_ranges_cover_every_pair(rows: int) -> None:
    """The ranges of scores the Spark engine streams one by one: every distinct score in
    exactly one range, in order, each range within ``rows`` pairs or a single score."""
    rng = np.random.default_rng(rows)
    counts = rng.integers(1, 8, 40)
    scores = np.sort(rng.choice(1000, 40, replace=False) / 10.0)[::-1]
    accepted = np.cumsum(counts)
    ranges = score_ranges(scores, accepted, rows)
    covered = [j for hi, lo in ranges for j in np.flatnonzero((scores <= hi) & (scores >= lo))]
    assert covered == list(range(40))
    for hi, lo in ranges:
        inside = counts[(scores <= hi) & (scores >= lo)]
        assert inside.sum() <= rows or inside.size == 1


def test_spark_equals_numpy(tmp_path: Path, spark: Any) -> None:
    truth, pairs = _data(6, n=60, m=300)
    t, p = _write(tmp_path, truth, pairs, "parquet")
    a = threshold_curve(t, p, engine="numpy", thresholds=9)
    b = _run(
        build("spark", spark),
        t,
        p,
        batch_rows=1000,
        thresholds=9,
        metrics=tuple(a.frame.columns[10:]),
    )
    _same(a, b)


def test_cli_engine_options(tmp_path: Path) -> None:
    truth, pairs = _data(7, n=80, m=400)
    t, p = _write(tmp_path, truth, pairs, "csv")
    got = {}
    for flags in (
        ["--engine", "numpy"],
        ["--engine", "duckdb", "--memory-limit", "256MB", "--threads", "1"],
    ):
        res = runner.invoke(app, ["curve", t, p, "--grid", "9", "-f", "json", "-q", *flags])
        assert res.exit_code == 0, res.output
        got[flags[1]] = pd.DataFrame(json.loads(res.stdout))
    pd.testing.assert_frame_equal(got["numpy"], got["duckdb"], rtol=0, atol=1e-12)
    for flags, error in (
        (["--engine", "numpy", "--memory-limit", "1GB"], "'--memory-limit' applies to the DuckDB"),
        (["--engine", "duckdb", "--memory-limit", "lots"], "'--memory-limit' must be a size"),
    ):
        res = runner.invoke(app, ["curve", t, p, *flags])
        assert res.exit_code != 0
        assert error in res.output and "Traceback" not in res.output


def test_a_curve_that_cannot_fit_the_limit_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what the curve holds in memory while the pairs are sorted (its union-find and the
    # counts of each distinct score) is checked against the limit before the sort:
    # a line naming the option, not DuckDB's own error after minutes of work
    from ereval.curves import _sql

    truth, pairs = _data(3, n=60, m=200)
    t, p = _write(tmp_path, truth, pairs, "parquet")
    engine = DuckDBEngine(threads=1, memory_limit="1GB")
    assert threshold_curve(t, p, engine=engine).summary["n_pairs"] == 200
    n_scores = len(set(pairs["score"]))
    monkeypatch.setattr(_sql, "SCORE_BYTES", 2**30 // n_scores + 1)  # > 1 GB in all
    with pytest.raises(InputError, match=r"'memory_limit' leaves [\d,]+ MiB for the work") as e:
        threshold_curve(t, p, engine=engine)
    assert f"60 records and {n_scores:,} distinct scores holds" in str(e.value)


@pytest.mark.parametrize("kind", ["int", "text"])
def test_every_engine_names_the_same_repeated_pair(tmp_path: Path, kind: str) -> None:
    # the least repeated pair in the order of the ids, its ids in that order (numbers
    # as numbers), whatever the order of the rows; the same on every run
    rng = np.random.default_rng(7)
    n = 40
    ids = np.arange(100, 100 + n) if kind == "int" else np.array([f"r{k:03d}" for k in range(n)])
    truth = pd.DataFrame({"record_id": ids, "cluster_id": np.arange(n) // 4})
    pairs = [(ids[k], ids[k + 1], 0.01 * k) for k in range(n - 1)]
    pairs += [(ids[30], ids[12], 0.5), (ids[12], ids[30], 0.25)]
    pairs += [(ids[9], ids[35], 0.75), (ids[35], ids[9], 0.125)]
    frame = pd.DataFrame(pairs, columns=["record_id_1", "record_id_2", "score"])
    frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    t, p = _write(tmp_path, truth, frame, "parquet")
    least = repr(tuple(ids[[9, 35]].tolist()))  # ('r009', 'r035') or (109, 135)
    for engine in ("numpy", "duckdb", "duckdb"):
        with pytest.raises(Error, match=r"2 repeated pair\(s\)") as e:
            threshold_curve(t, p, engine=engine)
        assert f"e.g. {least} scored " in str(e.value), str(e.value)


@pytest.mark.each_engine(spark=True)
@pytest.mark.parametrize(
    ("scores", "held"),
    [
        (["0.5", "0.25", "0.9"], "text such as '0.5', '0.25', '0.9'"),
        (["0.5", "n/a", "0.9"], "text such as 'n/a'"),
        ([None, None, None], "text, every value missing"),
    ],
)
def test_typed_text_scores_are_refused_alike(
    tmp_path: Path, engine: str, scores: list[str | None], held: str
) -> None:
    """A Parquet score column of text is not numbers, whatever it holds, on every
    engine (DuckDB and Spark parsed numbers written as text; NumPy refused them). A
    CSV file's fields are text and are read as numbers everywhere (above)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t, p = tmp_path / "t.parquet", tmp_path / "p.parquet"
    pq.write_table(pa.table({"record_id": [1, 2, 3, 4], "cluster_id": [1, 1, 2, 2]}), t)
    pairs = {"record_id_1": [1, 1, 3], "record_id_2": [2, 3, 4]}
    pq.write_table(pa.table({**pairs, "score": pa.array(scores, pa.string())}), p)
    result = runner.invoke(app, ["curve", str(t), str(p), "--engine", engine])
    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: '--score-col': column 'score' of 'pairs' must hold numbers; it holds {held}\n"
    )


@pytest.mark.each_engine(spark=True)
@pytest.mark.parametrize(
    ("scores", "n_bad"),
    [([float("nan"), 0.5, 0.3, 0.2], 1), ([float("nan"), 0.5, None, float("-inf")], 3)],
)
def test_nan_scores_of_parquet_are_refused_alike(
    tmp_path: Path, engine: str, scores: list[float | None], n_bad: int
) -> None:
    """A NaN score read from Parquet is refused on every engine, with the same count
    and the least bad pair in the order of its ids (DuckDB found such a NaN
    ``<= 1.79e308``, so took it for a finite score: a curve with a NaN threshold)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t, p = tmp_path / "t.parquet", tmp_path / "p.parquet"
    truth = {"record_id": ["a", "b", "c", "d", "e"], "cluster_id": [1, 1, 2, 2, 3]}
    pq.write_table(pa.table(truth), t)
    pairs = {"record_id_1": ["d", "c", "b", "a"], "record_id_2": ["e", "d", "c", "e"]}
    pq.write_table(pa.table({**pairs, "score": pa.array(scores, pa.float64())}), p)
    result = runner.invoke(app, ["curve", str(t), str(p), "--engine", engine])
    assert result.exit_code == 2, result.output
    least = "('d', 'e')" if n_bad == 1 else "('a', 'e')"
    assert result.output == (
        f"error: '--score-col': column 'score' of 'pairs' has {n_bad} missing, NaN or "
        f"infinite score(s) (e.g. the pair {least}); every pair needs a finite score\n"
    )
