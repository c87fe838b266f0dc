"""Every engine (NumPy, DuckDB, Spark) builds the same table from the registry of cases,
reads multi-part inputs alike and raises the same errors; the Spark engine's session,
options and messages.

Spark is slow to start: one local session serves the whole run (the ``spark``
fixture of ``conftest.py``) and the registry's cases are joined into one input
per file kind and policy.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ereval import InputError, InputTypeError
from ereval.contingency import ContingencyTable, contingency_table
from ereval.engines import DuckDBEngine, Engine, NumpyEngine, SparkEngine, get_engine
from ereval.engines import _dialect as sql
from ereval.engines import _spark_connection as sc
from ereval.engines import _spark_session as se
from ereval.io import IdenticalColumnsWarning
from ereval.metrics import CANONICAL_METRICS, EXTRA_METRICS, evaluate
from ereval.statistics import TableStatistics, compute_statistics, compute_table, table_statistics

from ._engine_cases import blocks, combined, registry, write
from ._engines import ALL_ENGINES, build
from ._example_data import EXAMPLES, IMPORT_ROOT
from .test_engine_statistics import POLICIES, assert_same_metrics, assert_same_statistics

INTEGER_STATS = ("n_records", "n_true_clusters", "n_pred_clusters", "n_common")


def _same_table(a: ContingencyTable, b: ContingencyTable, label: str) -> None:
    for name in ("rows", "cols", "counts", "true_sizes", "pred_sizes"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=label)


@pytest.mark.each_engine(spark=True)
@pytest.mark.parametrize(("kind", "ids"), [("csv", "text"), ("parquet", "integer")])
def test_registry_gives_the_same_numbers_on_every_engine(
    tmp_path: Path, engine: str, engine_object: Engine, kind: str, ids: str
) -> None:
    """The registry of ``test_engine_statistics`` in one input per policy: every case's
    block of the table equal to its own in-memory table, its metrics equal to 1e-12."""
    builder = engine_object
    for policy in POLICIES:
        cases = registry(policy, ids)
        with warnings.catch_warnings():  # the cases where the prediction is the truth
            warnings.simplefilter("ignore", IdenticalColumnsWarning)
            refs = [contingency_table(*f, on_mismatch=policy) for _, f in cases]  # type: ignore[arg-type]
        t, p = combined(cases)
        t_path = write(t, tmp_path / f"t-{policy}.{kind}")
        p_path = write(p, tmp_path / f"p-{policy}.{kind}")
        table = compute_table(builder, t_path, p_path, on_mismatch=policy)  # type: ignore[arg-type]
        if engine != "spark" or (policy, ids) == ("twinless", "text"):  # Spark: once, slow
            # the statistics computed where the data is, against those of the table
            stats = compute_statistics(builder, t_path, p_path, on_mismatch=policy)  # type: ignore[arg-type]
            assert_same_statistics(stats, table_statistics(table))
        shapes = [(r.n_true_clusters, r.n_pred_clusters) for r in refs]
        names = list(CANONICAL_METRICS) + list(EXTRA_METRICS)
        for (name, _), ref, got in zip(cases, refs, blocks(table, shapes), strict=True):
            label = f"{engine} {kind} {policy} {name}"
            _same_table(got, ref, label)
            for stat in INTEGER_STATS:
                assert getattr(got, stat) == getattr(ref, stat), (label, stat)
            assert_same_metrics(evaluate(got, metrics=names), evaluate(ref, metrics=names))


def test_spark_keys_of_several_text_columns(tmp_path: Path, spark: Any) -> None:
    rng = np.random.default_rng(4)
    n = 200
    src = np.where(np.arange(n) % 3 == 0, 'q"\\', np.where(np.arange(n) % 3 == 1, "a b", "é'"))
    base = pd.DataFrame(
        {"src": src, "uid": [f"{v:03d}" for v in rng.permutation(n)]},
    )
    t = base.assign(cluster_id=rng.integers(0, 30, size=n).astype(str))
    p = base.assign(cluster_id=rng.integers(0, 40, size=n).astype(str)).iloc[::-1]
    opts: dict[str, Any] = {"record_col": ["src", "uid"], "on_mismatch": "error"}
    for kind in ("csv", "parquet"):
        tf, pf = write(t, tmp_path / f"t.{kind}"), write(p, tmp_path / f"p.{kind}")
        ref = compute_table(NumpyEngine(), tf, pf, **opts)
        _same_table(compute_table(SparkEngine(session=spark), tf, pf, **opts), ref, kind)


def test_spark_dataframes_are_read_by_the_spark_engine(spark: Any) -> None:
    rows_t = [(1, "a"), (2, "a"), (3, "b"), (4, "b")]
    rows_p = [(4, "y"), (3, "x"), (2, "x"), (1, "x")]
    df_t = spark.createDataFrame(rows_t, "record_id long, cluster_id string")
    df_p = spark.createDataFrame(rows_p, "record_id long, cluster_id string")
    spark.sql("SELECT 42 AS answer").createOrReplaceTempView("cells")  # a user's view
    picked = get_engine("auto", truth=df_t, pred=df_p)
    assert isinstance(picked, SparkEngine) and picked.session(df_t) is spark
    expected = evaluate(dict(rows_t), dict(rows_p))
    assert_same_metrics(evaluate(df_t, df_p), expected)
    conf = {"spark.sql.shuffle.partitions": 2}
    chosen = get_engine(SparkEngine(conf=conf), truth=df_t, pred=df_p)
    assert isinstance(chosen, SparkEngine) and chosen.conf == {"spark.sql.shuffle.partitions": "2"}
    # the build ran in a session of its own: the user's views are untouched, none is left
    assert spark.table("cells").collect()[0][0] == 42
    assert not [v for v in spark.catalog.listTables("global_temp") if "ereval" in v.name]
    spark.catalog.dropTempView("cells")
    with pytest.raises(InputError, match="NumPy engine does not read Spark DataFrames"):
        evaluate(df_t, df_p, engine="numpy")
    with pytest.raises(InputError, match=r"^'truth' has no column\(s\) 'zz'"):
        evaluate(df_t, df_p, engine="spark", record_col="zz")
    with pytest.raises(InputError, match="Spark engine reads CSV or Parquet files"):
        evaluate({1: "a"}, {1: "a"}, engine="spark")
    # an Arrow table is copied into Spark as it is typed
    import pyarrow as pa

    arrow_t = pa.table({"record_id": ["01", "1", " x"], "cluster_id": [1, 1, 2]})
    arrow_p = pa.table({"record_id": ["1", "01", " x"], "cluster_id": ["a", "b", "b"]})
    assert_same_statistics(
        compute_statistics(SparkEngine(session=spark), arrow_t, arrow_p),
        compute_statistics(NumpyEngine(), arrow_t, arrow_p),
    )


def _spark_folder(spark: Any, frame_: pd.DataFrame, path: Path, kind: str) -> Path:
    df = spark.createDataFrame(list(frame_.itertuples(index=False)), "record_id string, c string")
    writer = df.withColumnRenamed("c", "cluster_id").repartition(3).write.mode("overwrite")
    if kind == "parquet":
        writer.parquet(str(path))
    else:
        # Spark's CSV writer trims the spaces around values unless told not to
        writer.options(
            header=True,
            quote='"',
            escape='"',
            ignoreLeadingWhiteSpace=False,
            ignoreTrailingWhiteSpace=False,
        ).csv(str(path))
    return path


def test_multi_part_inputs_on_every_engine(tmp_path: Path, spark: Any) -> None:
    rng = np.random.default_rng(9)
    n = 600
    ids = [f"{v:04d}" if v % 5 else f" {v} " for v in rng.permutation(n)]
    t = pd.DataFrame({"record_id": ids, "cluster_id": [f"c{v}" for v in rng.integers(0, 90, n)]})
    p = pd.DataFrame({"record_id": ids, "cluster_id": [f"k{v}" for v in rng.integers(0, 70, n)]})
    ref = contingency_table(t, p)
    for kind in ("parquet", "csv"):
        folder = _spark_folder(spark, t, tmp_path / f"t_{kind}", kind)
        names = sorted(f.name for f in folder.iterdir())
        assert "_SUCCESS" in names and any(x.endswith(".crc") for x in names)  # skipped
        pred = write(p, tmp_path / f"p.{kind}")
        glob = folder / f"part-*.{kind}" if kind == "parquet" else folder / "part-*.csv"
        for engine in ALL_ENGINES:
            builder = build(engine, spark)
            source = glob if engine == "duckdb" else folder
            _same_table(compute_table(builder, source, pred), ref, f"{engine} {kind}")
    # a record id repeated in two parts is the duplicate-id error, on every engine
    parts = tmp_path / "dup"
    parts.mkdir()
    write(t.iloc[:300], parts / "part-0.csv")
    write(pd.concat([t.iloc[300:], t.iloc[[7]]]), parts / "part-1.csv")
    for engine in ALL_ENGINES:
        builder = build(engine, spark)
        with pytest.raises(
            InputError, match=rf"^'truth' has 1 duplicate record ids \(e\.g\. '{ids[7]}'\)"
        ):
            compute_table(builder, parts, write(p, tmp_path / "p.csv"))


def test_engines_raise_the_same_errors(tmp_path: Path, spark: Any) -> None:
    def csv(name: str, body: str) -> Path:
        path = tmp_path / name
        path.write_text("record_id,cluster_id\n" + body)
        return path

    ok = csv("ok.csv", "1,a\n2,a\n3,b\n")
    (tmp_path / "empty_dir").mkdir()
    typed = write(
        pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": ["a", "a", "b"]}),
        tmp_path / "i.parquet",
    )
    bad: list[tuple[Path, Path, dict[str, Any]]] = [
        (tmp_path / "none.csv", ok, {}),
        (tmp_path / "none-*.parquet", ok, {}),
        (tmp_path / "empty_dir", ok, {}),
        (ok, ok, {"record_col": "zz"}),
        (csv("header_only.csv", ""), ok, {}),
        (csv("missing.csv", "1,a\n,a\n3,b\n"), ok, {}),
        (csv("d1.csv", "1,a\n2,a\n3,b\n9,c\n9,d\n"), ok, {"on_mismatch": "twinless"}),
        # a record of one side only repeated in its cluster, three times on the other side
        (csv("d3.csv", "1,a\n2,a\n3,b\n9,c\n9,c\n"), ok, {"on_mismatch": "intersection"}),
        (ok, csv("d4.csv", "1,a\n2,a\n3,b\n8,c\n8,c\n8,d\n"), {"on_mismatch": "twinless"}),
        (ok, csv("d2.csv", "1,a\n2,a\n2,b\n3,b\n"), {}),
        (ok, csv("more.csv", "1,a\n2,a\n3,b\n4,b\n"), {}),
        (ok, csv("x.csv", "7,a\n"), {"on_mismatch": "intersection"}),
        (typed, ok, {}),
    ]
    for truth, pred, opts in bad:
        messages = []
        for engine in ALL_ENGINES:
            builder = build(engine, spark)
            with pytest.raises((InputError, InputTypeError)) as info:
                compute_table(builder, truth, pred, **opts)
            messages.append(str(info.value))
        # the in-memory reader adds the row of a missing id
        assert messages[0].startswith(messages[1]) and messages[1] == messages[2], messages
        assert "\n" not in messages[2]
    ragged = tmp_path / "ragged.csv"
    ragged.write_text('record_id,cluster_id\n1,2\n3,4,5,6\n"unterminated\n')
    with pytest.raises(InputError, match=r"^'truth': cannot read") as info:
        compute_table(SparkEngine(session=spark), ragged, ok)
    assert "\n" not in str(info.value) and "\tat " not in str(info.value)


def test_spark_options_are_checked_before_work(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("", "local[x]", "mars://", 3):
        with pytest.raises(InputError, match=r"^'master' must be a Spark master"):
            SparkEngine(master=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^'conf' keys are Spark settings"):
        SparkEngine(conf={"shuffle": 2})
    with pytest.raises(InputError, match=r"^'conf': setting 'spark.x' has no value"):
        SparkEngine(conf={"spark.x": " "})
    # the memory of a new session: a size Spark runs in, given once, within a worker
    for bad, message in (
        ("lots", r"^'memory_limit' must be a size such as '2GB'"),
        ("1KB", r"^'memory_limit' must be at least 512MB \(Spark keeps 300 MiB"),
        (512, r"^'memory_limit' must be a size"),
    ):
        with pytest.raises(InputError, match=message):
            SparkEngine(memory_limit=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^'memory_limit' sets 'spark.driver.memory', which"):
        SparkEngine(memory_limit="2GB", conf={"spark.driver.memory": "1g"})
    with pytest.raises(InputError, match=r"^'memory_limit' must be at most the memory of a"):
        SparkEngine(master="local-cluster[2,1,1024]", memory_limit="1.5GB")
    local = SparkEngine(master="local[2]", memory_limit="2GiB")
    assert se.memory_settings("2GiB", local.master) == {"spark.driver.memory": "2048m"}
    cluster = se.memory_settings("1GB", "spark://host:7077")
    assert cluster == {"spark.driver.memory": "953m", "spark.executor.memory": "953m"}
    assert SparkEngine(conf={"spark.ui.enabled": False}).conf == {"spark.ui.enabled": "false"}
    with pytest.raises(TypeError, match="spark_master"):
        get_engine("spark", spark_master="local[2]")  # type: ignore[call-arg]
    assert isinstance(get_engine("spark"), SparkEngine)
    assert isinstance(get_engine("auto", truth={1: 1}, pred={1: 1}), NumpyEngine)
    assert isinstance(get_engine("duckdb"), DuckDBEngine)
    # Java missing: a clear one-line error before anything starts
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "")
    assert se.java_executable() is None
    with pytest.raises(InputError, match=r"^the Spark engine needs Java 17 or later"):
        se.new_session("local[1]")
    # PySpark missing: the extra to install
    monkeypatch.setitem(sys.modules, "pyspark", None)
    with pytest.raises(ImportError, match=r"pip install 'ereval\[spark\]'"):
        se.new_session("local[1]")


def test_spark_errors_become_one_line() -> None:
    text = (
        "An error occurred while calling o57.collectToPython.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0\n"
        "\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(x.scala:1)\n"
        "Caused by: org.apache.spark.SparkRuntimeException: [MALFORMED_RECORD_IN_PARSING] "
        "Malformed records are detected in record parsing. SQLSTATE: 22023\n"
        "\tat org.apache.spark.sql.catalyst.csv.UnivocityParser.parse(x.scala:2)\n"
    )
    assert se.spark_error(RuntimeError(text)) == (
        "SparkRuntimeException: [MALFORMED_RECORD_IN_PARSING] Malformed records are detected "
        "in record parsing."
    )
    assert se.spark_error(RuntimeError("[PATH_NOT_FOUND] Path does not exist: /x.")) == (
        "[PATH_NOT_FOUND] Path does not exist: /x."
    )


def test_spark_dialect() -> None:
    assert sql.SPARK.quote("it's \\ ok") == "'it\\'s \\\\ ok'"
    assert sql.SPARK.ident("a`b") == "`a``b`"
    assert "LEFT ANTI JOIN" in sql.mismatch_examples_sql("t", "p", dialect=sql.SPARK)
    assert " ANTI JOIN" in sql.mismatch_examples_sql("t", "p")
    assert "CAST(`n` AS STRING)" in sql.key_sql(["s", "n"], ["text", "integer"], dialect=sql.SPARK)
    # float sums: exact in DECIMAL on Spark (any order of the partitions), plain on DuckDB
    spark_sums = sql.expand_exact_sums(sql.cell_sums_sql("x", 10, sql.SPARK))
    assert "exact_sum" not in spark_sums and "AS DECIMAL(38, 18))) AS DOUBLE)" in spark_sums
    assert spark_sums.count("(") == spark_sums.count(")")
    assert "DECIMAL" not in sql.cell_sums_sql("x", 10)
    assert sql.expand_exact_sums("exact_sum(exact_sum(a)) + f(b)") == (
        "CAST(sum(CAST(CAST(sum(CAST(a AS DECIMAL(38, 18))) AS DOUBLE) AS DECIMAL(38, 18)))"
        " AS DOUBLE) + f(b)"
    )


def test_spark_entropy_sums_are_exact_when_their_terms_repeat() -> None:
    """The conditional entropies' terms take few distinct values (cells of one to a few
    records), so rounding each to Spark's fixed point would repeat one error per value
    instead of cancelling; the terms are summed before the division by N. Spark's
    statement runs here in DuckDB, whose DECIMAL(38, 18) sums are as exact as
    Spark's: at N = 10^8 its entropy sums equal a term-by-term ``math.fsum`` to 1e-15
    (terms of ``1e-8``, divided before the sum, were not)."""
    import duckdb

    rng = np.random.default_rng(8)
    m, n_records = 200_000, 10**8
    n = rng.integers(1, 4, size=m)
    a, b = n + rng.integers(0, 4, size=m), n + rng.integers(0, 4, size=m)
    con = duckdb.connect()
    con.register("cells", pd.DataFrame({"n": n, "a": a, "b": b, "bc": b, "rdeg": 2, "cdeg": 2}))
    con.execute("CREATE TABLE x AS SELECT *, 0.0 AS w3, 0.0 AS w4 FROM cells")
    query = sql.expand_exact_sums(sql.cell_sums_sql("x", n_records, sql.SPARK))
    got = con.execute(query).fetchall()[0]
    for value, other in ((got[4], b), (got[5], a)):
        terms = (n / n_records) * np.log(n / other)
        exact = math.fsum(terms.tolist())
        assert math.isclose(value, exact, rel_tol=1e-15), (value, exact)


T, P = str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_good.csv")


def test_cli_spark_engine(spark: Any) -> None:
    from typer.testing import CliRunner

    from ereval.cli import app

    runner = CliRunner()
    args = ["metrics", T, P, "-f", "json"]
    numpy_out = runner.invoke(app, [*args, "--engine", "numpy"])
    spark_out = runner.invoke(
        app, [*args, "--engine", "spark", "--spark-conf", "spark.sql.shuffle.partitions=2"]
    )
    assert spark_out.exit_code == 0, spark_out.output
    got, expected = json.loads(spark_out.stdout), json.loads(numpy_out.stdout)
    for key in ("n_records", "n_true_clusters", "n_pred_clusters"):
        assert got.pop(key) == expected.pop(key)
    assert_same_metrics(
        {k: math.nan if v is None else v for k, v in got.items()},
        {k: math.nan if v is None else v for k, v in expected.items()},
    )
    for extra, message in (
        (["--spark-conf", "spark.x"], "error: '--spark-conf' must be KEY=VALUE"),
        (["--spark-master", "mars"], "error: '--spark-master' must be a Spark master"),
        (["--spark-master", "local[3]"], "error: '--spark-master': a Spark session is already"),
        (["--threads", "2"], "error: '--threads' applies to the DuckDB engine; the Spark"),
        (["--memory-limit", "1KB"], "error: '--memory-limit' must be at least 512MB (Spark"),
        (["--memory-limit", "lots"], "error: '--memory-limit' must be a size such as"),
        (["--memory-limit", "1GB"], "error: '--memory-limit' 1GB applies to a new Spark"),
        (
            ["--memory-limit", "1GB", "--spark-conf", "spark.driver.memory=2g"],
            "error: '--memory-limit' sets 'spark.driver.memory', which '--spark-conf' sets",
        ),
    ):
        res = runner.invoke(app, [*args, "--engine", "spark", *extra])
        assert res.exit_code == 2 and res.stderr.startswith(message), res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
        assert "DuckDB" not in res.stderr or "--threads" in extra  # no DuckDB advice
    res = runner.invoke(app, ["metrics", T, P, "--spark-master", "local[2]"])
    assert res.exit_code == 2 and "'--spark-master' applies to the Spark engine" in res.stderr
    res = runner.invoke(app, ["metrics", T, P, "--pairs", "--engine", "spark"])
    assert res.exit_code == 2 and "'--engine' spark is not available" in res.stderr
    res = runner.invoke(app, ["metrics", T, P, "--pairs", "--spark-conf", "spark.a=b"])
    assert res.exit_code == 2 and "'--spark-conf' tunes the Spark engine" in res.stderr
    res = runner.invoke(app, ["simulate", "--engine", "spark"])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
    assert res.stderr.startswith("error: ereval simulate has no option '--engine'")


def test_a_new_spark_session_keeps_quiet(tmp_path: Path, spark: Any) -> None:
    """The JVM logs errors only, to a file: its stderr is sent there while it starts (it
    inherits the file descriptor), and the session runs without UI or progress bars."""
    conf = spark.sparkContext.getConf()
    assert str(se.QUIET_LOG4J) in conf.get("spark.driver.extraJavaOptions")
    assert se.QUIET_LOG4J.is_file() and "rootLogger.level = error" in se.QUIET_LOG4J.read_text()
    assert conf.get("spark.ui.enabled") == "false"
    assert conf.get("spark.ui.showConsoleProgress") == "false"
    import subprocess

    log = tmp_path / "jvm.log"
    code = (
        "import os, sys\n"
        "from ereval.engines._spark_session import _jvm_stderr_to\n"
        f"with _jvm_stderr_to(__import__('pathlib').Path({str(log)!r})):\n"
        "    os.system('echo child-noise >&2')\n"
        "os.write(2, b'after')\n"
    )
    env = {**__import__("os").environ, "PYTHONPATH": str(IMPORT_ROOT)}
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert res.stderr == "after" and log.read_text() == "child-noise\n"


def test_spark_statistics_of_the_hard_cases(
    tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table without common records, and its cells only when asked (CEAF's ties are a
    case of the registry); where no session of its own can be made (Spark Connect), a
    build leaves no view behind in the given one."""
    engine = SparkEngine(session=spark)
    before = {t.name for t in spark.catalog.listTables() if t.isTemporary}
    monkeypatch.setattr(sc, "_isolated", lambda session: session)
    t = pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": [1, 1, 2]})
    p = pd.DataFrame({"record_id": [4, 5, 6], "cluster_id": [1, 1, 1]})
    tf, pf = write(t, tmp_path / "apart_t.parquet"), write(p, tmp_path / "apart_p.parquet")
    reference = compute_table(NumpyEngine(), tf, pf, on_mismatch="twinless")
    seen: list[str] = []
    got = compute_statistics(
        engine,
        tf,
        pf,
        on_mismatch="twinless",
        cells="twinless",
        progress=seen.append,  # type: ignore[arg-type]
    )
    assert isinstance(got, TableStatistics)
    assert_same_statistics(got, table_statistics(reference))
    assert got.table is not None
    assert {t.name for t in spark.catalog.listTables() if t.isTemporary} == before
    assert seen[:3] == [
        "reading the clusterings (spark)",
        "joining the records (spark)",
        "computing the statistics (spark)",
    ]
