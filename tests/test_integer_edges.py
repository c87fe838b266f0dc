"""Integer ids at the edges of their types: unsigned 64-bit ids past ``2^63``, and
sides whose integer types differ, read exactly on every path and every engine.

The reference is Python's own integers (arbitrary precision), and the same data
with every id written as its decimal text, which takes the text path."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ereval import estimate, evaluate
from ereval.cli import app
from ereval.estimators import prepare_prediction
from ereval.io import dense_int_span, int_offsets, span_ids, union, within_span

INTEGER_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@st.composite
def _dense_values(draw: st.DrawFn) -> np.ndarray:
    """Integers of one type, dense over a short span anywhere in the type's range
    (its ends included)."""
    dtype = np.dtype(draw(st.sampled_from(INTEGER_TYPES)))
    info = np.iinfo(dtype)
    span = draw(st.integers(1, 40))
    first, last = int(info.min), int(info.max) - span + 1
    starts = [st.just(first), st.just(last), st.integers(first, last)]
    if last >= 2**63 - span:  # about 2^63, where signed and unsigned 64-bit ids part
        starts.append(st.integers(2**63 - span, min(last, 2**63 + span)))
    lo = draw(st.one_of(*starts))
    picks = draw(st.lists(st.integers(0, span - 1), min_size=1, max_size=60))
    return np.array([lo + k for k in picks], dtype=dtype)


@settings(max_examples=300, deadline=None)
@given(_dense_values(), st.sampled_from(INTEGER_TYPES))
def test_offsets_and_ids_of_a_span_are_exact(values: np.ndarray, other: type) -> None:
    dense = dense_int_span(values)
    assert dense is not None
    lo, span = dense
    exact = [int(v) for v in values.tolist()]
    assert lo == min(exact) and span == max(exact) - lo + 1
    offsets = int_offsets(values, lo)
    assert offsets.dtype == np.int64
    assert offsets.tolist() == [v - lo for v in exact]
    back = span_ids(offsets, lo, values.dtype)
    assert back.dtype == values.dtype and back.tolist() == exact
    # with a column of another integer type: an integer type that holds every id
    mixed = span_ids(offsets, lo, values.dtype, np.dtype(other))
    assert mixed.dtype.kind in "iu" and [int(v) for v in mixed.tolist()] == exact


@settings(max_examples=300, deadline=None)
@given(_dense_values(), st.integers(-(2**64), 2**65), st.integers(1, 2**64))
def test_within_span_compares_without_rounding(values: np.ndarray, lo: int, span: int) -> None:
    expected = [lo <= int(v) < lo + span for v in values.tolist()]
    assert within_span(values, lo, span).tolist() == expected


def test_the_edges_of_unsigned_ids_by_hand() -> None:
    top = np.array([2**64 - 1, 2**64 - 3, 2**63], dtype=np.uint64)
    assert int_offsets(top[:2], 2**64 - 3).tolist() == [2, 0]
    assert span_ids(np.array([2, 0]), 2**64 - 3, top.dtype).tolist() == [2**64 - 1, 2**64 - 3]
    # unsigned and signed 64-bit ids have no common integer type in NumPy (float64)
    u, i = np.dtype(np.uint64), np.dtype(np.int64)
    assert span_ids(np.array([0, 1]), 7, u, i).tolist() == [7, 8]
    assert span_ids(np.array([0, 1]), 7, u, i).dtype == i
    assert span_ids(np.array([0, 1]), 2**63 - 1, u, i).dtype == u
    assert within_span(np.array([2**63 - 1]), 2**63 - 1, 1).tolist() == [True]
    assert within_span(np.array([2**63 - 1]), 2**63, 5).tolist() == [False]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=30),
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=30),
)
def test_unsigned_and_signed_ids_are_joined_as_integers(
    unsigned: list[int], signed: list[int]
) -> None:
    """NumPy's common type of ``uint64`` and ``int64`` is float64, under which ids past
    2^53 would meet: the union keeps every id exactly, in an integer type."""
    a, b = np.array(unsigned, dtype=np.uint64), np.array(signed, dtype=np.int64)
    for x, y, xs, ys in ((a, b, unsigned, signed), (b, a, signed, unsigned)):
        ids, pos_x, pos_y = union(x, y)
        values = [int(v) for v in ids.tolist()]
        assert len(set(values)) == len(values) == len(set(xs) | set(ys))
        assert [values[k] for k in pos_x.tolist()] == xs
        assert [values[k] for k in pos_y.tolist()] == ys


@pytest.mark.each_engine(spark=True)
def test_every_engine_scores_unsigned_ids_against_signed_ones(tmp_path: Path, engine: str) -> None:
    """Unsigned ids past 2^63 in the truth, signed ones (some negative) in the
    prediction: the numbers of the same ids written as text, and the same error."""
    rng = np.random.default_rng(3)
    common = list(range(50))
    high = [2**64 - 1 - 2 * k for k in range(40)]  # 1 apart as float64: equal
    truth_ids, pred_ids = common + high, [-1, -7, *common[::-1]]
    clusters = {"t": rng.integers(0, 20, len(truth_ids)), "p": rng.integers(0, 15, len(pred_ids))}
    paths = {}
    for text in (False, True):
        for name, ids, dtype in (("t", truth_ids, np.uint64), ("p", pred_ids, np.int64)):
            column = pa.array([str(v) for v in ids]) if text else pa.array(np.array(ids, dtype))
            path = tmp_path / f"{name}{'_text' if text else ''}.parquet"
            pq.write_table(pa.table({"record_id": column, "cluster_id": clusters[name]}), path)
            paths[name, text] = str(path)
    command = ["metrics", "--on-mismatch", "twinless", "-f", "json"]
    got = json.loads(_run(*command, paths["t", False], paths["p", False], "--engine", engine))
    reference = json.loads(_run(*command, paths["t", True], paths["p", True], "--engine", "numpy"))
    assert got.keys() == reference.keys()
    for key, value in reference.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    assert got["n_twinless_true"] == 40 and got["n_twinless_pred"] == 2
    result = CliRunner().invoke(
        app, ["errors", paths["t", False], paths["p", False], "--engine", engine, "-q"]
    )
    assert result.exit_code == 2
    smallest = ", ".join(str(v) for v in sorted(high)[:3])
    assert f"40 record(s) only in 'truth' (e.g. {smallest});" in result.output, result.output
    assert "2 record(s) only in 'pred' (e.g. -7, -1)." in result.output, result.output


# ---------------------------------------------------------------------------
# the commands, on both engines

N = 3000
HIGH = 2**64 - 2 * N  # every id past 2^63


def _sides(tmp_path: Path, *, text: bool) -> tuple[str, str, list[int]]:
    """Two files of partly the same records, ids ``HIGH + k`` as unsigned 64-bit
    integers (or as their decimal text); returns the paths and the truth's ids."""
    rng = np.random.default_rng(7)
    ids = [HIGH + k for k in range(N + 400)]
    truth_ids, pred_ids = ids[:N], [ids[400 + k] for k in rng.permutation(N)]

    def column(values: list[int]) -> pa.Array:
        if text:
            return pa.array([str(v) for v in values])
        return pa.array(np.array(values, dtype=np.uint64))

    folder = tmp_path / ("text" if text else "uint64")
    folder.mkdir()
    t, p = folder / "t.parquet", folder / "p.parquet"
    pq.write_table(
        pa.table({"record_id": column(truth_ids), "cluster_id": rng.integers(0, 700, N)}), t
    )
    pq.write_table(
        pa.table({"record_id": column(pred_ids), "cluster_id": rng.integers(0, 800, N)}), p
    )
    return str(t), str(p), truth_ids


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "-q"])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_unsigned_ids_past_2_63_score_as_their_text(tmp_path: Path, engine: str) -> None:
    t, p, _ = _sides(tmp_path, text=False)
    tt, tp, _ = _sides(tmp_path, text=True)
    for policy in ("twinless", "intersection"):
        command = ["metrics", "--on-mismatch", policy, "-f", "json"]
        got = json.loads(_run(*command, t, p, "--engine", engine))
        reference = json.loads(_run(*command, tt, tp, "--engine", "numpy"))
        assert got.keys() == reference.keys()
        for name, value in reference.items():
            assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name
    summary = json.loads(_run("summary", p, "-f", "json", "--engine", engine))
    assert summary == json.loads(_run("summary", tp, "-f", "json", "--engine", "numpy"))


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_unsigned_ids_past_2_63_are_written_exactly(tmp_path: Path, engine: str) -> None:
    t, p, truth_ids = _sides(tmp_path, text=False)
    out = _run(
        "errors", t, p, "--by", "record", "--on-mismatch", "intersection", "-f", "csv",
        "--engine", engine,
    )  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out)))
    common = sorted(set(truth_ids[400:]))
    assert sorted(int(r["record_id"]) for r in rows) == common
    assert all(r["record_id"] == str(int(r["record_id"])) for r in rows)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_sides_of_two_integer_types_keep_integer_ids(tmp_path: Path, engine: str) -> None:
    # unsigned 64-bit ids on one side, signed on the other: NumPy's common type of the
    # two is a float, and the ids were once written as 0.0, 1.0, ...
    t, p = tmp_path / "t.parquet", tmp_path / "p.parquet"
    pq.write_table(
        pa.table({"record_id": np.arange(12, dtype=np.uint64), "cluster_id": np.arange(12) // 3}),
        t,
    )
    ids = np.arange(14, dtype=np.int64)[::-1].copy()
    pq.write_table(pa.table({"record_id": ids, "cluster_id": ids // 2}), p)
    out = _run(
        "errors", str(t), str(p), "--by", "record", "--on-mismatch", "intersection",
        "-f", "csv", "--engine", engine,
    )  # fmt: skip
    assert [r["record_id"] for r in csv.DictReader(io.StringIO(out))] == [str(k) for k in range(12)]
    out = _run(
        "errors", str(t), str(p), "--by", "cluster", "--on-mismatch", "intersection",
        "-f", "csv", "--engine", engine,
    )  # fmt: skip
    assert [r["cluster_id"] for r in csv.DictReader(io.StringIO(out))] == ["0", "1", "2", "3"]


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_unsigned_cluster_ids_past_2_63(tmp_path: Path, engine: str) -> None:
    rng = np.random.default_rng(3)
    ids = np.arange(N)
    clusters = rng.integers(0, 500, N).astype(np.uint64) + np.uint64(2**64 - 600)
    t, p = tmp_path / "t.parquet", tmp_path / "p.parquet"
    pq.write_table(pa.table({"record_id": ids, "cluster_id": clusters}), t)
    pq.write_table(pa.table({"record_id": ids[::-1].copy(), "cluster_id": clusters}), p)
    out = _run("errors", str(t), str(p), "--by", "cluster", "-f", "csv", "--engine", engine)
    written = {int(r["cluster_id"]) for r in csv.DictReader(io.StringIO(out))}
    assert written == {int(c) for c in clusters.tolist()}


def test_an_estimate_over_unsigned_cluster_ids_past_2_63() -> None:
    # the prediction's cluster ids past 2^63 are coded by their span, as small ones are
    rng = np.random.default_rng(11)
    small = rng.integers(0, 40, 300)
    records = np.arange(300)
    sample = {int(r): f"t{int(c) // 2}" for r, c in zip(records[:60], small[:60], strict=True)}
    got, reference = (
        estimate(
            prepare_prediction(pd.Series(clusters, index=records)),
            sample,
            design="cluster",
            weights="uniform",
            metrics="pairwise_precision,pairwise_recall",
        )
        for clusters in (small.astype(np.uint64) + np.uint64(2**64 - 50), small)
    )
    for name in ("pairwise_precision", "pairwise_recall"):
        assert got[name].value == reference[name].value


@pytest.mark.each_engine(spark=True)
def test_decimals_of_no_fraction_are_integers_on_every_engine(tmp_path: Path, engine: str) -> None:
    """A ``DECIMAL(38, 0)`` column of ids (past 2^64 and below -2^63 too) against
    unsigned and signed integers: whole numbers, equal by value on every engine, as
    the same ids written as text."""
    from decimal import Decimal

    rng = np.random.default_rng(4)
    common = [2**64 - 1 - 2 * k for k in range(30)] + list(range(30))
    truth_ids = [Decimal(v) for v in common] + [Decimal(-(10**30) - k) for k in range(5)]
    pred_ids = common[::-1]
    tc, pc = rng.integers(0, 9, len(truth_ids)), rng.integers(0, 7, len(pred_ids))
    t, p = tmp_path / "t.parquet", tmp_path / "p.parquet"
    tt, pt = tmp_path / "tt.parquet", tmp_path / "pt.parquet"
    pq.write_table(
        pa.table({"record_id": pa.array(truth_ids, pa.decimal128(38, 0)), "cluster_id": tc}), t
    )
    pq.write_table(pa.table({"record_id": pa.array(pred_ids, pa.uint64()), "cluster_id": pc}), p)
    pq.write_table(pa.table({"record_id": [str(v) for v in truth_ids], "cluster_id": tc}), tt)
    pq.write_table(pa.table({"record_id": [str(v) for v in pred_ids], "cluster_id": pc}), pt)
    command = ["metrics", "--on-mismatch", "twinless", "-f", "json"]
    got = json.loads(_run(*command, str(t), str(p), "--engine", engine))
    reference = json.loads(_run(*command, str(tt), str(pt), "--engine", "numpy"))
    assert got.keys() == reference.keys()
    for key, value in reference.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    assert got["n_twinless_true"] == 5 and got["n_twinless_pred"] == 0


@pytest.mark.each_engine(spark=True)
def test_arrow_tables_of_unsigned_ids_on_every_engine(engine: str) -> None:
    """Arrow tables of unsigned ids (``uint64`` past 2^63, ``uint32`` and ``uint8``
    cluster ids) give the metrics of the same ids written as text on every engine
    (Spark could not take an unsigned column from Arrow)."""
    ids = np.arange(100, dtype=np.uint64) + np.uint64(2**63)
    true = pa.array(np.arange(100) // 3, pa.uint32())
    pred = pa.array(np.arange(100)[::-1] // 4, pa.uint8())
    got = evaluate(
        pa.table({"record_id": ids, "cluster_id": true}),
        pa.table({"record_id": ids, "cluster_id": pred}),
        engine=engine,
    )
    text = pa.array([str(i) for i in ids.tolist()])
    want = evaluate(
        pa.table({"record_id": text, "cluster_id": true.cast(pa.int64())}),
        pa.table({"record_id": text, "cluster_id": pred.cast(pa.int64())}),
    )
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True)
