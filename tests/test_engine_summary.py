"""Summary statistics computed where the data is (DuckDB, Spark) equal the in-memory ones:
every field of the :class:`~ereval.summary.Summary` exactly, every rate and Hill number
to 1e-12, over edge cases written as files; the same errors, worded alike; and
``ereval summary --engine duckdb`` prints what ``--engine numpy`` prints.

Spark is slow to start and to query: the cheap cases run on NumPy and DuckDB, a
representative subset on Spark (the ``spark`` fixture of ``conftest.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import IdKindError, InputError, InputTypeError
from ereval.cli import app
from ereval.engines import DuckDBEngine, Engine, NumpyEngine
from ereval.engines import _dialect as sql
from ereval.summary import Summary, cluster_sizes, summarize
from ereval.summary import _sql as summary_sql
from ereval.summary._sql import engine_cluster_sizes, engine_summary, summary_engine

from ._engine_cases import TRICKY, write
from ._engines import build

runner = CliRunner()
ORDERS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf)
Case = Callable[[Path], tuple[Any, dict[str, Any]]]


def assert_same_summary(got: Summary, ref: Summary, label: str = "") -> None:
    """Every field equal; every derived statistic equal to 1e-12."""
    for name in ("n_records", "n_clusters", "n_matched", "n_homonym", "n_variation"):
        assert getattr(got, name) == getattr(ref, name), (label, name)
        assert type(getattr(got, name)) is type(getattr(ref, name)), (label, name)
    for name in ("sizes", "counts"):
        a, b = getattr(got, name), getattr(ref, name)
        assert a.dtype == b.dtype == np.int64, (label, name)
        np.testing.assert_array_equal(a, b, err_msg=f"{label} {name}")
    d_got, d_ref = got.statistics(ORDERS), ref.statistics(ORDERS)
    assert list(d_got) == list(d_ref)
    for key, value in d_ref.items():
        if math.isnan(value):
            assert math.isnan(d_got[key]), (label, key)
        else:
            assert d_got[key] == pytest.approx(value, rel=1e-12, abs=0), (label, key)
    np.testing.assert_allclose(got.entropy_curve()[1], ref.entropy_curve()[1], rtol=1e-12)


def _spark(request: pytest.FixtureRequest) -> Engine:
    return build("spark", request.getfixturevalue("spark"))


# --------------------------------------------------------------------------- cases
def _all_singletons(tmp: Path) -> tuple[Any, dict[str, Any]]:
    ids = [f"s{k:03d}" for k in range(50)] + TRICKY
    return write(pd.DataFrame({"record_id": ids, "cluster_id": ids}), tmp / "s.csv"), {}


def _giant(tmp: Path) -> tuple[Any, dict[str, Any]]:
    frame = pd.DataFrame({"record_id": np.arange(500, dtype=np.int64) * 7, "cluster_id": 3})
    return write(frame, tmp / "g.parquet"), {}


def _tricky_text(tmp: Path) -> tuple[Any, dict[str, Any]]:
    # 01, 1 and 001 are three records; NA, null, NaN, None are ids; spaces count
    clusters = ["NA", "na", " NA", "NA", "0", "00", "0", "x", "x ", "x", "null", "NA", "a,b", "é"]
    frame = pd.DataFrame({"record_id": TRICKY, "cluster_id": clusters})
    return write(frame, tmp / "t.csv"), {}


def _zipf_integers(tmp: Path) -> tuple[Any, dict[str, Any]]:
    rng = np.random.default_rng(3)
    sizes = np.minimum(rng.zipf(1.8, 400), 60)
    clusters = np.repeat(rng.permutation(10**6)[: sizes.size], sizes)
    records = rng.permutation(10**7)[: clusters.size].astype(np.int64) - 5 * 10**6
    frame = pd.DataFrame({"record_id": records, "cluster_id": clusters.astype(np.int32)})
    return write(frame, tmp / "z.parquet"), {}


def _csv_parts(tmp: Path) -> tuple[Any, dict[str, Any]]:
    folder = tmp / "parts"
    folder.mkdir()
    rng = np.random.default_rng(5)
    records = [f"r{k}" for k in range(300)]
    clusters = [f"c{v}" for v in rng.integers(0, 90, 300)]
    frame = pd.DataFrame({"record_id": records, "cluster_id": clusters})
    for k, part in enumerate(np.array_split(np.arange(300), 3)):
        write(frame.iloc[part], folder / f"part-{k}.csv")
    return folder / "part-*.csv", {}


def _parquet_folder(tmp: Path) -> tuple[Any, dict[str, Any]]:
    folder = tmp / "pq"
    folder.mkdir()
    rng = np.random.default_rng(6)
    frame = pd.DataFrame(
        {"record_id": np.arange(400, dtype=np.int64), "cluster_id": rng.integers(0, 70, 400)}
    )
    for k, part in enumerate(np.array_split(np.arange(400), 4)):
        write(frame.iloc[part], folder / f"part-{k:05d}.parquet")
    return folder, {}


def _homonyms(tmp: Path) -> tuple[Any, dict[str, Any]]:
    # {a,b} holds x (also in {c}) and y: homonym and variation; {c}: homonym only;
    # {d,e,f}: z only, nowhere else; {g}: w, also in {h,i}; {h,i}: w and W (case counts)
    frame = pd.DataFrame(
        {
            "record_id": list("abcdefghi"),
            "cluster_id": ["1", "1", "2", "3", "3", "3", "4", "5", "5"],
            "name": ["x", "y", "x", "z", "z", "z", "w", "w", "W"],
        }
    )
    return write(frame, tmp / "h.csv"), {"names": "name"}


def _two_name_columns(tmp: Path) -> tuple[Any, dict[str, Any]]:
    rng = np.random.default_rng(8)
    n = 600
    frame = pd.DataFrame(
        {
            "record_id": np.arange(n, dtype=np.int64) * 11,
            "cluster_id": rng.integers(0, 200, n),
            "first": rng.choice(["ann", "bo", "cy", 'd"q', "e\\f", " "], n),
            "last": rng.integers(0, 12, n),
        }
    )
    return write(frame, tmp / "n.parquet"), {"names": ["first", "last"]}


def _two_text_name_columns(tmp: Path) -> tuple[Any, dict[str, Any]]:
    # "a b" + "c" and "a" + "b c" are different names
    frame = pd.DataFrame(
        {
            "record_id": ["1", "2", "3", "4", "5"],
            "cluster_id": ["k", "k", "m", "m", "n"],
            "first": ["a b", "a", "a b", "x", "a"],
            "last": ["c", "b c", "c", "y", "b c"],
        }
    )
    return write(frame, tmp / "n2.csv"), {"names": ["first", "last"]}


def _key_of_two_cluster_columns(tmp: Path) -> tuple[Any, dict[str, Any]]:
    frame = pd.DataFrame(
        {
            "record_id": [f"r{k}" for k in range(8)],
            "src": ["a", "a", "b", "b", "a", "b", "a", "a"],
            "k": ["1", "1", "1", "1", "2", "2", "2", "1"],
            "name": ["p", "q", "p", "p", "r", "r", "s", "p"],
        }
    )
    return write(frame, tmp / "k.csv"), {"cluster_col": ["src", "k"], "names": "name"}


CASES: dict[str, Case] = {
    "all_singletons": _all_singletons,
    "one_giant_cluster": _giant,
    "tricky_text_ids": _tricky_text,
    "integer_ids_parquet": _zipf_integers,
    "glob_of_csv_parts": _csv_parts,
    "folder_of_parquet_parts": _parquet_folder,
    "homonyms": _homonyms,
    "two_name_columns": _two_name_columns,
    "two_text_name_columns": _two_text_name_columns,
    "key_of_two_cluster_columns": _key_of_two_cluster_columns,
}
SPARK_CASES = ["tricky_text_ids", "two_name_columns"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_duckdb_summary_equals_the_numpy_summary(tmp_path: Path, case: str) -> None:
    data, options = CASES[case](tmp_path)
    ref = summarize(data, engine="numpy", **options)
    got = summarize(data, engine="duckdb", **options)
    assert_same_summary(got, ref, case)
    if "names" not in options:
        sizes = cluster_sizes(data, engine="duckdb", **options)
        assert sorted(sizes.tolist()) == sorted(cluster_sizes(data, **options).tolist())


@pytest.mark.parametrize("case", SPARK_CASES)
def test_spark_summary_equals_the_numpy_summary(
    tmp_path: Path, request: pytest.FixtureRequest, case: str
) -> None:
    data, options = CASES[case](tmp_path)
    ref = summarize(data, engine="numpy", **options)
    got = summarize(data, engine=_spark(request), **options)
    assert_same_summary(got, ref, case)


@pytest.mark.parametrize("seed", range(6))
def test_random_clusterings_with_names(tmp_path: Path, seed: int) -> None:
    """Random sizes, few or many names, text or integer ids: the same summary."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    labels = rng.integers(0, max(1, n // int(rng.integers(1, 6))), n)
    names = rng.integers(0, int(rng.integers(1, n + 2)), n)
    frame = pd.DataFrame({"record_id": rng.permutation(n) * 3, "cluster_id": labels, "nm": names})
    if seed % 2:
        frame = frame.astype(str)
        path = write(frame, tmp_path / "r.csv")
    else:
        path = write(frame, tmp_path / "r.parquet")
    for options in ({}, {"names": "nm"}, {"names": ["nm", "cluster_id"]}):
        ref = summarize(path, engine="numpy", **options)  # type: ignore[arg-type]
        got = summarize(path, engine="duckdb", **options)  # type: ignore[arg-type]
        assert_same_summary(got, ref, f"{seed} {options}")


def test_summary_by_hand_on_duckdb(tmp_path: Path) -> None:
    data, options = _homonyms(tmp_path)
    s = summarize(data, engine="duckdb", **options)
    # sizes 2, 1, 3, 1, 2: 9 records in 5 clusters, 7 of them in clusters of 2 or more
    assert (s.n_records, s.n_clusters, s.n_matched) == (9, 5, 7)
    assert s.sizes.tolist() == [1, 2, 3] and s.counts.tolist() == [2, 2, 1]
    # homonyms: {a,b} (x), {c} (x), {g} (w), {h,i} (w); not {d,e,f}
    assert s.n_homonym == 4
    # variation: {a,b} (x, y) and {h,i} (w, W)
    assert s.n_variation == 2


def test_a_duckdb_relation_is_summarised_where_it_is(tmp_path: Path) -> None:
    import duckdb

    data, options = _two_name_columns(tmp_path)
    ref = summarize(data, engine="numpy", **options)
    con = duckdb.connect()
    try:
        relation = con.read_parquet(str(data))
        assert_same_summary(summarize(relation, **options), ref, "relation (auto)")
    finally:
        con.close()


def test_a_spark_dataframe_is_summarised_where_it_is(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    data, options = _homonyms(tmp_path)
    ref = summarize(data, engine="numpy", **options)
    spark = request.getfixturevalue("spark")
    frame = spark.read.csv(str(data), header=True)
    assert_same_summary(summarize(frame, **options), ref, "Spark DataFrame (auto)")


# --------------------------------------------------------------------------- names in a table
def _names_tables(tmp: Path) -> tuple[Path, Path, pd.DataFrame, pd.DataFrame]:
    clustering = pd.DataFrame(
        {"record_id": ["01", "1", "2", "3", "NA", "x "], "cluster_id": list("aabbcc")}
    )
    names = pd.DataFrame(
        {
            "record_id": ["x ", "NA", "3", "2", "1", "01", "zz", "yy"],  # more records
            "first": ["p", "q", "p", "p", "r", "p", "q", "r"],
            "last": ["s", "s", "s", "s", "s", "t", "s", "s"],
        }
    )
    return (
        write(clustering, tmp / "c.csv"),
        write(names, tmp / "names.csv"),
        clustering,
        names,
    )


@pytest.mark.each_engine("duckdb", "spark")
def test_names_from_another_table(tmp_path: Path, engine: str, engine_object: Engine) -> None:
    c_path, n_path, clustering, names = _names_tables(tmp_path)
    builder = engine_object
    for cols in (["first"], ["first", "last"]):
        if engine == "spark" and cols == ["first"]:
            continue  # one case on Spark
        keyed = names.set_index("record_id")
        if len(cols) == 1:
            mapping = keyed[cols[0]]
        else:
            mapping = pd.Series(
                [
                    json.dumps(list(v), separators=(",", ":"))
                    for v in keyed[cols].itertuples(index=False)
                ],
                index=keyed.index,
            )
        mapping = mapping[mapping.index.isin(clustering["record_id"])]
        ref = summarize(clustering, names=mapping, engine="numpy")
        got = engine_summary(builder, c_path, names=cols, names_from=n_path)
        assert_same_summary(got, ref, f"{engine} {cols}")


# --------------------------------------------------------------------------- errors
def _error(run: Callable[[], Any]) -> str:
    with pytest.raises(InputError) as info:
        run()
    return str(info.value)


def _same_error(tmp: Path, data: Any, engines: list[Engine], **options: Any) -> str:
    """The error of every engine, equal to the in-memory one; returned."""
    ref = _error(lambda: summarize(data, engine="numpy", **options))
    for builder in engines:
        assert _error(lambda b=builder: summarize(data, engine=b, **options)) == ref, builder
    return ref


def test_errors_are_worded_as_in_memory(tmp_path: Path) -> None:
    duck = [DuckDBEngine()]
    # a record id repeated in two parts
    parts = tmp_path / "dup"
    parts.mkdir()
    write(pd.DataFrame({"record_id": ["a", "b", "c"], "cluster_id": "1"}), parts / "part-0.csv")
    write(pd.DataFrame({"record_id": ["d", "b"], "cluster_id": "2"}), parts / "part-1.csv")
    msg = _same_error(tmp_path, parts, duck)
    assert "1 duplicate record ids (e.g. 'b')" in msg
    # a missing name: an empty CSV field, a None in Parquet text, a NaN in a float column
    frame = pd.DataFrame({"record_id": ["1", "2", "3"], "cluster_id": "k", "name": ["a", "", "b"]})
    msg = _same_error(tmp_path, write(frame, tmp_path / "m.csv"), duck, names="name")
    assert msg.startswith("'names' is missing") and "e.g. '2'" in msg
    frame = pd.DataFrame(
        {
            "record_id": np.arange(6, dtype=np.int64),
            "cluster_id": 1,
            "name": ["a", None, "b", None, None, None],
            "f": [1.0, 2.0, np.nan, 1.0, 1.0, 1.0],
            "g": ["", "b", "c", "d", "e", "f"],  # an empty text is a name in Parquet
            "h": [1, 1, 2, 2, 3, 3],
        }
    )
    m_path = write(frame, tmp_path / "m.parquet")
    msg = _same_error(tmp_path, m_path, duck, names="name")
    assert "for 4 record(s) in column 'name', e.g. 1, 3, 4 and 1 more" in msg
    msg = _same_error(tmp_path, m_path, duck, names="f")
    assert "in column 'f', e.g. 2" in msg
    # in a name of several columns an empty text is missing (in memory too)
    msg = _error(lambda: summarize(m_path, engine="duckdb", names=["g", "h"]))
    assert msg == "'names' is missing (empty, None or NaN) for 1 record(s) in column 'g', e.g. 0"
    assert "in key column 'g'" in _error(lambda: summarize(m_path, names=["g", "h"]))
    assert summarize(m_path, engine="duckdb", names="g").n_variation == 1
    # an absent name column, after the clustering's own checks
    msg = _same_error(tmp_path, m_path, duck, names="nope")
    assert "has no column 'nope'" in msg
    # an empty file, a file of missing cluster ids
    empty = tmp_path / "empty.csv"
    empty.write_text("record_id,cluster_id\n", encoding="utf-8")
    assert "is empty" in _same_error(tmp_path, empty, duck)
    assert "is empty" in _same_error(tmp_path, empty, duck, names="record_id")


def test_errors_of_the_names_table(tmp_path: Path) -> None:
    c_path, _, _, names = _names_tables(tmp_path)
    duck = DuckDBEngine()
    short = write(names.iloc[1:], tmp_path / "short.csv")  # no name for 'x '
    msg = _error(lambda: engine_summary(duck, c_path, names="first", names_from=short))
    assert msg == (
        "'names' has no name for 1 record(s) of 'clustering' (e.g. 'x '); homonymy needs "
        "the name of every record"
    )
    twice = write(pd.concat([names, names.iloc[[2]]]), tmp_path / "twice.csv")
    msg = _error(lambda: engine_summary(duck, c_path, names="first", names_from=twice))
    assert msg == f"'names_from': '{twice}' repeats record ids (e.g. '3')"
    gaps = names.assign(last=["s", "", "s", "s", "s", "s", "s", "s"])
    holes = write(gaps, tmp_path / "holes.csv")
    msg = _error(lambda: engine_summary(duck, c_path, names=["first", "last"], names_from=holes))
    assert msg == f"'names': column 'last' of '{holes}' has missing values"
    msg = _error(lambda: engine_summary(duck, c_path, names="middle", names_from=holes))
    assert msg.startswith(f"'names_from': '{holes}' has no column 'middle'")
    msg = _error(lambda: engine_summary(duck, c_path, names_from=holes))
    assert msg == "'names_from' needs 'names' (the column(s) to read from it)"
    # integer record ids in the clustering, text in the names table
    ints = write(pd.DataFrame({"record_id": [1, 2], "cluster_id": 1}), tmp_path / "i.parquet")
    with pytest.raises(IdKindError) as info:
        engine_summary(duck, ints, names="first", names_from=holes)
    assert info.value.sides == ("clustering", "names_from")
    msg = str(info.value)
    assert msg.startswith("record ids of 'clustering' are integer (e.g. 1, 2) but those of ")
    assert "'names_from' are text" in msg and msg.endswith("; give both ids of one kind")


@pytest.mark.parametrize("case", ["duplicates", "missing_name"])
def test_spark_errors_are_worded_as_in_memory(
    tmp_path: Path, request: pytest.FixtureRequest, case: str
) -> None:
    spark = [_spark(request)]
    if case == "duplicates":
        frame = pd.DataFrame({"record_id": ["a", "b", "a"], "cluster_id": ["1", "1", "2"]})
        msg = _same_error(tmp_path, write(frame, tmp_path / "d.csv"), spark)
        assert "duplicate record ids (e.g. 'a')" in msg
    else:
        frame = pd.DataFrame(
            {"record_id": [1, 2, 3], "cluster_id": [1, 1, 2], "f": [1.0, np.nan, 2.0]}
        )
        msg = _same_error(tmp_path, write(frame, tmp_path / "f.parquet"), spark, names="f")
        assert "in column 'f', e.g. 2" in msg


def test_engines_and_their_options_are_checked(tmp_path: Path) -> None:
    data, _ = _giant(tmp_path)
    with pytest.raises(InputError, match="'engine'"):
        summarize(data, engine="sqlite")  # type: ignore[arg-type]
    # names in memory are read in memory: refused by name on an SQL engine, kept in
    # memory by "auto"
    names = dict.fromkeys(range(0, 3500, 7), "n")
    with pytest.raises(InputTypeError, match="'names' must be the column"):
        summarize(data, engine="duckdb", names=names)
    assert isinstance(summary_engine("auto", data, names=names), NumpyEngine)
    with pytest.raises(InputError, match="'engine': the numpy engine"):
        engine_summary(NumpyEngine(), data)
    with pytest.raises(InputError, match="'engine': the numpy engine"):
        engine_cluster_sizes(NumpyEngine(), data)


def test_sql_builders_read_only_their_views() -> None:
    missing = summary_sql.missing_sql("s", is_float=True)
    assert missing == "(s IS NULL OR isnan(s))"
    assert summary_sql.missing_counts_sql("c", [missing, "(t IS NULL)"]) == (
        "SELECT count(*) FILTER (WHERE (s IS NULL OR isnan(s))), "
        "count(*) FILTER (WHERE (t IS NULL)) FROM c"
    )
    text = summary_sql.names_by_size_sql("named")
    assert text.count("FROM named") == 2 and "OVER" not in text and "ORDER" not in text
    assert "LEFT ANTI JOIN" in summary_sql.unnamed_count_sql("c", "n", dialect=sql.SPARK)


# --------------------------------------------------------------------------- CLI
@pytest.mark.parametrize(
    "case", ["tricky_text_ids", "two_text_name_columns", "folder_of_parquet_parts"]
)
def test_cli_output_is_the_same_on_numpy_and_duckdb(tmp_path: Path, case: str) -> None:
    data, options = CASES[case](tmp_path)
    args = ["summary", str(data), "--hill", "0,0.5,1,2,inf"]
    if "names" in options:
        names = options["names"]
        args += ["--names", names if isinstance(names, str) else ",".join(names)]
    outputs = {}
    for engine in ("numpy", "duckdb"):
        for fmt in ("json", "table"):
            res = runner.invoke(app, [*args, "--engine", engine, "-f", fmt])
            assert res.exit_code == 0, res.output
            outputs[engine, fmt] = res.stdout
        sizes = tmp_path / f"sizes-{engine}.csv"
        res = runner.invoke(
            app,
            [*args, "--engine", engine, "-o", str(sizes), "--threads", "1"]
            if engine == "duckdb"
            else [*args, "-o", str(sizes)],
        )
        assert res.exit_code == 0, res.output
        outputs[engine, "sizes"] = sizes.read_text(encoding="utf-8")
    for fmt in ("json", "table", "sizes"):
        assert outputs["duckdb", fmt] == outputs["numpy", fmt], fmt


def test_cli_names_from_and_errors_on_duckdb(tmp_path: Path) -> None:
    c_path, n_path, _, _ = _names_tables(tmp_path)
    args = ["summary", str(c_path), "--names", "first,last", "--names-from", str(n_path)]
    got = {e: runner.invoke(app, [*args, "--engine", e, "-f", "json"]) for e in ("numpy", "duckdb")}
    assert got["numpy"].exit_code == got["duckdb"].exit_code == 0, got["duckdb"].output
    assert got["duckdb"].stdout == got["numpy"].stdout
    assert json.loads(got["duckdb"].stdout)["homonymy_rate"] == pytest.approx(2 / 3)
    # errors: the same line, naming the flags
    short = write(
        pd.read_csv(n_path, dtype=str, keep_default_na=False).iloc[1:], tmp_path / "short.csv"
    )
    for extra in (["--names-from", str(short)], ["--memory-limit", "lots"]):
        res = {
            e: runner.invoke(app, [*args[:-2], *extra, "--engine", e]) for e in ("numpy", "duckdb")
        }
        assert res["duckdb"].exit_code == 2, res["duckdb"].output
        if extra[0] == "--names-from":
            assert res["duckdb"].output == res["numpy"].output
            assert "'--names' has no name for 1 record(s)" in res["duckdb"].output
        else:
            assert "'--memory-limit' must be a size" in res["duckdb"].output
    res = runner.invoke(app, ["summary", str(c_path), "--engine", "numpy", "--threads", "2"])
    assert res.exit_code == 2 and "'--threads' applies to the DuckDB engine" in res.output


def test_cli_output_is_the_same_on_spark(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue("spark")  # the session of the run (skipped without Java)
    data, _ = _tricky_text(tmp_path)
    args = ["summary", str(data), "-f", "json"]
    ref = runner.invoke(app, [*args, "--engine", "numpy"])
    got = runner.invoke(app, [*args, "--engine", "spark"])
    assert got.exit_code == 0, got.output
    assert got.stdout == ref.stdout
    res = runner.invoke(app, [*args, "--spark-conf", "spark.a=b"])
    assert res.exit_code == 2 and "'--spark-conf' applies to the Spark engine" in res.stderr
    res = runner.invoke(app, [*args, "--engine", "spark", "--temp-dir", str(tmp_path)])
    assert res.exit_code == 2 and "'--temp-dir' applies to the DuckDB engine" in res.stderr


@pytest.mark.each_engine(spark=True)
def test_names_of_several_columns_are_refused_alike(tmp_path: Path, engine: str) -> None:
    """Names of several columns with a date part: the same line on every engine, naming
    the option (DuckDB and Spark named the clustering)."""
    import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "c.parquet"
    days = [datetime.date(2000, 1, 1 + k) for k in range(4)]
    columns = {"record_id": range(4), "cluster_id": [1, 1, 2, 2], "n": list("abab"), "d": days}
    pq.write_table(pa.table(columns), path)
    result = runner.invoke(app, ["summary", str(path), "--names", "n,d", "--engine", engine])
    assert result.exit_code == 2
    assert result.output == (
        "error: '--names': column 'd' of a key made of several columns must hold integers or "
        "text; it holds date values\n"
    )
