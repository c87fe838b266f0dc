"""The estimators' per-cluster terms through the SQL engines: a big prediction read where
it is, a small sample pushed in, and the same terms, estimates and errors as in memory
(integers exactly, floats to 1e-12)."""

from __future__ import annotations

import contextlib
import json
import math
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError, InputTypeError, RecordMismatchError
from ereval.analysis import sample_errors
from ereval.cli import app
from ereval.engines import DuckDBEngine, Engine
from ereval.estimators import (
    ClusterSample,
    ClusterTerms,
    EstimationWarning,
    PreparedPrediction,
    as_sample,
    cluster_terms,
    estimate,
    estimate_by_group,
    prepare_prediction,
)
from ereval.estimators import _sql as sample_sql
from ereval.estimators._sql import population_constants

from ._engines import build

runner = CliRunner()
N = 20_000
EXACT = ("size", "sq", "nb", "exact", "homonym", "variation")
CLOSE = ("frac", "b3p", "ent_pred", "ent_true")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A prediction of N records (a giant cluster, many singletons, pairs and mid-size
    clusters; names in two columns with homonyms), as Parquet with integer ids, as CSV
    with text ids and as a folder of Parquet parts; a truth that moves some records."""
    rng = np.random.default_rng(7)
    root = tmp_path_factory.mktemp("terms")
    sizes = [1500] + [1] * 4000 + [2] * 2000 + list(rng.integers(3, 40, 800))
    labels = np.repeat(np.arange(len(sizes)), sizes)[:N]
    labels = np.concatenate([labels, np.arange(len(sizes), len(sizes) + N - labels.size)])
    clusters = rng.permutation(labels) * 3 + 11  # integer ids with gaps
    truth = clusters.copy()
    moved = rng.choice(N, N // 10, replace=False)
    truth[moved] = rng.choice(clusters, moved.size)
    frame = pd.DataFrame(
        {
            "record_id": np.arange(N, dtype=np.int64),
            "cluster_id": clusters,
            "first": rng.choice(["ann", "bob", "cy", "dee", "eve"], N),
            "last": rng.integers(0, 400, N).astype(str),
        }
    )
    frame.to_parquet(root / "pred.parquet", index=False)
    frame.astype(str).to_csv(root / "pred.csv", index=False)
    parts = root / "parts"
    parts.mkdir()
    for k, (lo, hi) in enumerate(((0, 7000), (7000, 13000), (13000, N))):
        frame.iloc[lo:hi].to_parquet(parts / f"part-{k}.parquet", index=False)
    dup = root / "dup"
    dup.mkdir()
    frame.iloc[:100].to_parquet(dup / "part-0.parquet", index=False)
    frame.iloc[99:].to_parquet(dup / "part-1.parquet", index=False)  # record 99 twice
    return {"root": root, "frame": frame, "truth": truth, "rng": rng, "parts": parts, "dup": dup}


def _cluster_sample(data: dict[str, Any], *, text: bool, k: int = 40) -> ClusterSample:
    """Uniformly drawn true clusters (the giant predicted cluster touched)."""
    truth = data["truth"]
    chosen = np.unique(np.concatenate([[truth[0]], np.random.default_rng(1).choice(truth, k)]))
    keep = np.flatnonzero(np.isin(truth, chosen))
    ids = keep.astype(str).astype(object) if text else keep
    return as_sample(
        dict(zip(ids, truth[keep].astype(str), strict=True)), design="cluster", weights="uniform"
    )


def _record_sample(data: dict[str, Any], *, text: bool, k: int = 60) -> ClusterSample:
    """The true clusters of uniformly drawn records (size-proportional)."""
    truth = data["truth"]
    drawn = np.random.default_rng(2).choice(N, k, replace=False)
    keep = np.flatnonzero(np.isin(truth, truth[drawn]))
    ids = keep.astype(str).astype(object) if text else keep
    frame = pd.DataFrame({"record_id": ids, "cluster_id": truth[keep].astype(str)})
    return as_sample(frame, design="record")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Undefined naive values warn on every path alike; not the point here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimationWarning)
        yield


def _spark(request: pytest.FixtureRequest) -> Engine:
    return build("spark", request.getfixturevalue("spark"))


def _terms(
    pred: Any, s: ClusterSample, engine: Engine | str, names: Any = None
) -> tuple[ClusterTerms, PreparedPrediction]:
    records = None if engine == "numpy" else s.records
    prepared = prepare_prediction(pred, names=names, engine=engine, records=records)  # type: ignore[arg-type]
    return cluster_terms(prepared, s), prepared


def _cells(t: ClusterTerms, p: PreparedPrediction) -> list[tuple[Any, ...]]:
    """The cells as (sample cluster, predicted cluster id, count), in one order."""
    return sorted(zip(t.rows.tolist(), p.labels[t.cols].tolist(), t.counts.tolist(), strict=True))


def _name_cells(t: ClusterTerms, p: PreparedPrediction) -> list[tuple[int, int, int]]:
    """The (cluster, name) cells as (cluster, count, the name's count overall)."""
    assert t.name_rows is not None and t.name_codes is not None and t.name_counts is not None
    assert p.name_counts is not None
    totals = p.name_counts[t.name_codes]
    return sorted(zip(t.name_rows.tolist(), t.name_counts.tolist(), totals.tolist(), strict=True))


def assert_same_terms(
    got: tuple[ClusterTerms, PreparedPrediction], want: tuple[ClusterTerms, PreparedPrediction]
) -> None:
    (a, pa_), (b, pb) = got, want
    for name in EXACT:
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            np.testing.assert_array_equal(x, y, err_msg=name)
    for name in CLOSE:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=1e-12)
    assert _cells(a, pa_) == _cells(b, pb)
    if b.name_rows is not None:
        assert _name_cells(a, pa_) == _name_cells(b, pb)
    assert (a.n_records, a.n_pred_clusters, a.n_pred_pairs) == (
        b.n_records,
        b.n_pred_clusters,
        b.n_pred_pairs,
    )
    assert math.isclose(a.pred_entropy, b.pred_entropy, rel_tol=1e-12)
    assert isinstance(a.n_pred_pairs, int) and isinstance(a.n_records, int)


def _same(u: Any, v: Any) -> bool:
    if isinstance(u, float) and isinstance(v, float):
        if math.isnan(u) or math.isnan(v):
            return math.isnan(u) and math.isnan(v)
        return math.isclose(u, v, rel_tol=1e-12, abs_tol=1e-14)
    if isinstance(u, list | tuple) and isinstance(v, list | tuple):
        return len(u) == len(v) and all(_same(a, b) for a, b in zip(u, v, strict=True))
    return bool(u == v)


def assert_same_estimates(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert list(got) == list(want)
    for key in want:
        x, y = got[key].to_dict(), want[key].to_dict()
        assert x.keys() == y.keys()
        for field, value in y.items():
            assert _same(x[field], value), (key, field, x[field], value)


CASES = [
    ("pred.parquet", False, "cluster", None),
    ("pred.parquet", False, "record", "first"),
    ("pred.csv", True, "cluster", ["first", "last"]),
    ("pred.csv", True, "record", "last"),
    ("parts", False, "record", ["first", "last"]),
    ("parts/*.parquet", False, "cluster", "first"),
]


@pytest.mark.parametrize(("path", "text", "design", "names"), CASES)
def test_duckdb_terms_equal_the_in_memory_terms(
    data: dict[str, Any], path: str, text: bool, design: str, names: Any
) -> None:
    s = (_record_sample if design == "record" else _cluster_sample)(data, text=text)
    pred = str(data["root"] / path)
    want = _terms(pred, s, "numpy", names)
    got = _terms(pred, s, DuckDBEngine(threads=2), names)
    assert_same_terms(got, want)
    # only what the sample touches came back
    prepared = got[1]
    assert prepared.records.shape[0] == s.records.shape[0] < N
    assert prepared.sizes.shape[0] < want[1].sizes.shape[0]


@pytest.mark.parametrize(("path", "text"), [("pred.parquet", False), ("pred.csv", True)])
def test_duckdb_estimates_and_error_tables_equal_the_in_memory_ones(
    data: dict[str, Any], path: str, text: bool
) -> None:
    s = _record_sample(data, text=text)
    pred = str(data["root"] / path)
    with _quiet():
        want = estimate(pred, s, names="first", engine="numpy")
        got = estimate(pred, s, names="first", engine=DuckDBEngine(memory_limit="500MB"))
    assert_same_estimates(got, want)
    groups = {c: i % 3 for i, c in enumerate(s.cluster_labels)}
    with _quiet():
        by_want = estimate_by_group(pred, s, groups, engine="numpy", metrics="pairwise_recall")
        by_got = estimate_by_group(pred, s, groups, engine="duckdb", metrics="pairwise_recall")
    assert list(by_got) == list(by_want)
    for g in by_want:
        assert_same_estimates(by_got[g], by_want[g])
    x = sample_errors(pred, s, engine="numpy").table
    y = sample_errors(pred, s, engine=DuckDBEngine(threads=1)).table
    pd.testing.assert_frame_equal(y, x, check_exact=False, rtol=1e-12)


def _error(fn: Any) -> Exception:
    with pytest.raises((InputError, InputTypeError, RecordMismatchError)) as info:
        fn()
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return info.value


@pytest.mark.parametrize("path", ["pred.parquet", "pred.csv"])
def test_errors_are_those_of_the_in_memory_path(data: dict[str, Any], path: str) -> None:
    pred = str(data["root"] / path)
    text = path.endswith(".csv")
    missing: Any = "no-such-record" if text else 10**9
    first: Any = "5" if text else 5
    s = as_sample(
        {first: "a", missing: "a", "3" if text else 3: "b"}, design="cluster", weights="uniform"
    )
    errs = [_error(lambda e=e: _terms(pred, s, e)) for e in ("numpy", "duckdb")]
    assert all(isinstance(e, RecordMismatchError) for e in errs)
    assert str(errs[0]) == str(errs[1])
    # ids of the other kind
    other = as_sample(
        {4 if text else "4": "a", 6 if text else "6": "a"}, design="cluster", weights="uniform"
    )
    errs = [_error(lambda e=e: _terms(pred, other, e)) for e in ("numpy", "duckdb")]
    assert all(isinstance(e, InputTypeError) for e in errs)
    assert str(errs[0]) == str(errs[1])
    # a missing column is named
    for e in ("numpy", "duckdb"):
        err = _error(
            lambda e=e: prepare_prediction(
                pred, cluster_col="nope", engine=e, records=None if e == "numpy" else s.records
            )
        )
        assert "'nope'" in str(err)


def test_duplicate_record_ids_across_parts(data: dict[str, Any]) -> None:
    s = as_sample({5: "a", 7: "a", 300: "b"}, design="cluster", weights="uniform")
    pred = str(data["dup"])
    errs = [_error(lambda e=e: _terms(pred, s, e)) for e in ("numpy", "duckdb")]
    assert str(errs[0]) == str(errs[1])
    assert "'pred' has 1 duplicate record ids (e.g. 99)" in str(errs[1])


def test_engine_options_are_checked_before_any_work(data: dict[str, Any]) -> None:
    s = _cluster_sample(data, text=False, k=3)
    pred = str(data["root"] / "pred.parquet")
    with pytest.raises(InputError, match="'memory_limit' must be a size"):
        estimate(pred, s, engine=DuckDBEngine(memory_limit="lots"))
    prepared = prepare_prediction(pred)
    with pytest.raises(InputError, match="already prepared in memory"):
        estimate(prepared, s, engine="duckdb")
    with pytest.raises(InputError, match="'names': an SQL engine reads the names"):
        estimate(pred, s, engine="duckdb", names={0: "x"})
    with pytest.raises(InputError, match="'records': engine 'duckdb' prepares"):
        prepare_prediction(pred, engine="duckdb")


def test_a_duckdb_relation_is_read_where_it_is(data: dict[str, Any]) -> None:
    s = _cluster_sample(data, text=False, k=10)
    path = str(data["root"] / "pred.parquet")
    con = duckdb.connect()
    relation = con.sql(f"SELECT * FROM read_parquet('{path}')")
    with _quiet():
        got = estimate(relation, s, metrics="pairwise_precision,b3_recall")  # auto: DuckDB
        want = estimate(path, s, metrics="pairwise_precision,b3_recall", engine="numpy")
    assert_same_estimates(got, want)


def test_population_constants_match_a_direct_count() -> None:
    sizes = np.array([1, 2, 5, 300_000])
    counts = np.array([7, 3, 2, 1])
    all_sizes = np.repeat(sizes, counts)
    n, k, pairs, entropy = population_constants(sizes, counts)
    assert (n, k, pairs) == (
        int(all_sizes.sum()),
        int(all_sizes.size),
        sum(int(b) * (int(b) - 1) // 2 for b in all_sizes),
    )
    p = all_sizes / all_sizes.sum()
    assert math.isclose(entropy, float(-(p * np.log(p)).sum()), rel_tol=1e-13)
    assert population_constants(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == (
        0,
        0,
        0,
        0.0,
    )


def test_sql_brings_back_only_touched_clusters() -> None:
    query = sample_sql.touched_sql("x", "p", names=True)
    assert "WHERE c IN (SELECT c FROM x)" in query and "WHERE s IN (SELECT s FROM x)" in query
    assert "s" not in sample_sql.sampled_records_sql("q", "p", names=False).split("FROM")[0][-8:]


def test_cli_estimate_with_duckdb_prints_what_numpy_prints() -> None:
    from ereval import example

    files = example.files()
    pred, sample = str(files["pred_good.csv"]), str(files["sample.csv"])
    args = ["estimate", "--pred", pred, "--sample", sample, "--design", "record"]
    args += ["--draws", "draws", "-f", "json", "--quiet"]
    outs = [runner.invoke(app, [*args, "--engine", e]) for e in ("numpy", "duckdb")]
    assert all(o.exit_code == 0 for o in outs), [o.output for o in outs]
    assert json.loads(outs[1].stdout) == json.loads(outs[0].stdout)
    assert outs[1].stderr == outs[0].stderr
    errs = [
        runner.invoke(
            app,
            [
                "analyze",
                "--pred",
                pred,
                "--sample",
                sample,
                "--design",
                "record",
                "-f",
                "json",
                "--quiet",
                "--engine",
                e,
                "--threads",
                "1",
            ]
            if e == "duckdb"
            else [
                "analyze",
                "--pred",
                pred,
                "--sample",
                sample,
                "--design",
                "record",
                "-f",
                "json",
                "--quiet",
                "--engine",
                e,
            ],
        )
        for e in ("numpy", "duckdb")
    ]
    assert all(o.exit_code == 0 for o in errs), [o.output for o in errs]
    assert errs[1].stdout == errs[0].stdout
    bad = runner.invoke(app, [*args, "--engine", "numpy", "--memory-limit", "1GB"])
    assert bad.exit_code == 2 and "'--memory-limit' applies to the DuckDB engine" in bad.stderr


def test_spark_terms_equal_the_in_memory_terms(
    data: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    engine = _spark(request)
    s = _record_sample(data, text=False, k=20)
    pred = str(data["parts"])
    want = _terms(pred, s, "numpy", ["first", "last"])
    got = _terms(pred, s, engine, ["first", "last"])
    assert_same_terms(got, want)
    csv = str(data["root"] / "pred.csv")
    missing = as_sample({"5": "a", "nope": "a", "3": "b"}, design="cluster", weights="uniform")
    errs = [_error(lambda e=e: _terms(csv, missing, e)) for e in ("numpy", engine)]
    assert str(errs[0]) == str(errs[1])


def test_name_errors_are_those_of_the_in_memory_path(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    frame = pd.DataFrame(
        {"record_id": [1, 2, 3, 4], "cluster_id": [1, 1, 2, 2], "name": ["a", None, None, "b"]}
    )
    frame.to_parquet(path, index=False)
    records = np.array([1, 4])
    for names in ("nope", "name"):
        errs = [
            _error(
                lambda e=e, names=names: prepare_prediction(
                    str(path), names=names, engine=e, records=None if e == "numpy" else records
                )
            )
            for e in ("numpy", "duckdb")
        ]
        assert str(errs[0]) == str(errs[1])
        assert str(errs[1]).startswith("'names'")


def _typed_ids(kind: str, ids: np.ndarray) -> Any:
    import datetime
    import decimal

    import pyarrow as pa

    if kind == "decimal":
        return pa.array([decimal.Decimal(int(i)) / 4 for i in ids]).cast(pa.decimal128(12, 2))
    if kind == "date":
        return pa.array([datetime.date(2000, 1, 1) + datetime.timedelta(days=int(i)) for i in ids])
    if kind == "unsigned":  # past 2^63: Spark reads the Parquet column as DECIMAL(20,0)
        return pa.array(ids.astype(np.uint64) + np.uint64(2**63))
    if kind == "top":  # up to 2^64 - 1: no larger uint64 is left
        return pa.array(np.uint64(2**64 - 1) - ids.astype(np.uint64))
    if kind == "float":
        return pa.array(ids / 4.0)
    return pa.array([f"r{i}" for i in ids])


def _typed_runs(
    tmp_path: Path, command: str, engine: str, kind: str, fmt: str
) -> tuple[dict[str, str], int]:
    """The output of ``ereval COMMAND --format FMT`` on a prediction and a labelled
    sample whose ids are of ``kind`` and, again, written as text; and the number of
    sampled clusters."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(4)
    n = 2000
    ids = rng.permutation(n)
    truth = rng.integers(0, 500, n)
    pred = np.where(rng.random(n) < 0.8, truth, rng.integers(0, 500, n))
    sampled = np.isin(truth, rng.choice(500, 40, replace=False))
    outputs = {}
    for written in (kind, "text"):
        p, s = tmp_path / f"p-{written}.parquet", tmp_path / f"s-{written}.parquet"
        pq.write_table(pa.table({"record_id": _typed_ids(written, ids), "cluster_id": pred}), p)
        sample = {"record_id": _typed_ids(written, ids[sampled]), "cluster_id": truth[sampled]}
        pq.write_table(pa.table(sample), s)
        argv = [command, "--pred", str(p), "--sample", str(s), "--design", "cluster"]
        options = ["--weights", "uniform", "--engine", engine, "-f", fmt, "-q"]
        result = runner.invoke(app, [*argv, *options])
        assert result.exit_code == 0, result.output
        outputs[written] = result.stdout
    return outputs, int(np.unique(truth[sampled]).shape[0])


@pytest.mark.each_engine(spark=True)
@pytest.mark.parametrize("kind", ["decimal", "date", "unsigned"])
def test_estimates_over_typed_ids_are_those_of_text_ids(
    tmp_path: Path, engine: str, kind: str
) -> None:
    """``estimate`` with ids of decimals, dates or unsigned integers past 2^63 gives the
    estimates of the same ids written as text, on every engine. DuckDB refused decimals
    and dates (its fetch made them floats and timestamps, of another kind than the
    sample's); Spark refused the unsigned ids (as decimals) and could not take the
    sample's ``uint64`` column in."""
    outputs, _ = _typed_runs(tmp_path, "estimate", engine, kind, "json")
    got, want = json.loads(outputs[kind]), json.loads(outputs["text"])
    assert list(got) == list(want) and "pairwise_precision" in want
    for key, fields in want.items():
        assert got[key].keys() == fields.keys()
        for field, value in fields.items():
            assert _same(got[key][field], value), (key, field, got[key][field], value)


@pytest.mark.each_engine(spark=True)
@pytest.mark.parametrize("kind", ["decimal", "date", "top", "float"])
def test_sample_errors_over_typed_ids_are_those_of_text_ids(
    tmp_path: Path, engine: str, kind: str
) -> None:
    """``analyze`` (the error table of a sample against the whole prediction) gives the
    table of the same ids written as text, on every engine. The SQL engines bring back
    the sampled records only and stand for the rest of their clusters by new ids of the
    same kind: text ids for decimals, dates and floats (refused as ids of two kinds),
    and integers past the largest, which overflowed next to 2^64 - 1."""
    tables, n_clusters = _typed_runs(tmp_path, "analyze", engine, kind, "csv")
    assert tables[kind] == tables["text"]
    # a header and a row for each sampled cluster
    assert len(tables["text"].splitlines()) == 1 + n_clusters
