"""The error tables (one row per record, one per true cluster) are the same on every
engine: the same columns, types and row order, integers exactly and floats to the
bit, over the registry of edge cases (all singletons, one giant cluster, text ids
spelled to trip a reader from CSV, integer ids from Parquet, a glob of parts) under
every ``on_mismatch`` policy; the same errors, on one line; and the CLI writes the
same files whichever engine computed them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError, RecordMismatchError, cluster_errors, record_errors
from ereval.cli import app
from ereval.engines import DuckDBEngine, SparkEngine
from ereval.engines import _dialect as sql
from ereval.metrics import _records_sql as errors_sql
from ereval.metrics._records_sql import copy_format, engine_cluster_errors, engine_record_errors

from ._engine_cases import TRICKY, combined, prefixed, write
from .test_engine_statistics import CASES, POLICIES, Frames

runner = CliRunner()
TABLES = {"record": record_errors, "cluster": cluster_errors}


def _sides(frames: Frames, policy: str) -> Frames:
    """The truth and prediction of a case under ``policy``: with ``"intersection"``
    each side lacks some records of the other; with ``"twinless"`` the truth lacks
    some records of the prediction (the prediction may hold more records, the truth
    never: every true record needs a predicted cluster)."""
    t, p = frames
    if policy == "error" or len(t) < 6:
        return t, p
    cut_t = max(1, len(t) // 20)
    t = t.iloc[: len(t) - cut_t].reset_index(drop=True)
    if policy == "intersection":
        p = p.iloc[max(1, len(p) // 15) :].reset_index(drop=True)
    return t, p


def _awkward() -> Frames:
    """Text ids that must stay as written, cluster ids among them too."""
    ids = TRICKY
    t_clusters = [
        "a,b",
        "a,b",
        'q"q',
        'q"q',
        "NA",
        " x ",
        " x ",
        "é",
        "é",
        "01",
        "1",
        "1",
        "0",
        "0",
    ]
    p_clusters = ["01", "a,b", 'q"q', "NA", "NA", " x ", "é", "é", "é", "1", "1", "-0", "0", "0"]
    order = np.random.default_rng(7).permutation(len(ids))
    return (
        pd.DataFrame({"record_id": ids, "cluster_id": t_clusters}),
        pd.DataFrame(
            {
                "record_id": [ids[k] for k in order],
                "cluster_id": [p_clusters[k] for k in order],
            }
        ),
    )


def assert_same_frame(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Same columns, types and row order; integers and ids exactly, floats to 1e-12
    (they are in fact equal to the bit, which :func:`test_csv_files_are_byte_identical`
    relies on)."""
    assert got.columns.tolist() == expected.columns.tolist()
    assert got.dtypes.tolist() == expected.dtypes.tolist()
    assert len(got) == len(expected)
    for col in expected.columns:
        a, b = got[col].to_numpy(), expected[col].to_numpy()
        if b.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=col)
            np.testing.assert_array_equal(a, b, err_msg=col)
        else:
            assert a.tolist() == b.tolist(), col


def _files(frames: Frames, tmp: Path, kind: str, ids: str) -> tuple[Path, Path]:
    if ids == "text" and frames[0]["record_id"].dtype.kind in "iu":
        frames = prefixed(frames, "text", 0)
    t = write(frames[0], tmp / f"t.{kind}")
    p = write(frames[1], tmp / f"p.{kind}")
    return t, p


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", [*CASES, "awkward"])
def test_duckdb_gives_the_in_memory_tables(tmp_path: Path, case: str, policy: str) -> None:
    base = _awkward() if case == "awkward" else CASES[case]()
    frames = _sides(base, policy)
    engine = DuckDBEngine(threads=2)
    for kind, ids in (("csv", "text"), ("parquet", "integer")):
        if case == "awkward" and kind == "parquet":
            continue  # text ids only
        t, p = _files(frames, tmp_path, kind, ids)
        for table, fn in TABLES.items():
            expected = fn(t, p, engine="numpy", on_mismatch=policy)
            assert_same_frame(fn(t, p, engine=engine, on_mismatch=policy), expected)
            if table == "record":
                assert expected["record_id"].tolist() == sorted(expected["record_id"])
            else:
                assert expected["cluster_id"].tolist() == sorted(expected["cluster_id"])


def test_a_glob_of_parts_and_a_relation_give_the_same_tables(tmp_path: Path) -> None:
    t, p = CASES["noisy"]()
    folder = tmp_path / "parts"
    folder.mkdir()
    for k, part in enumerate(np.array_split(np.arange(len(p)), 3)):
        p.iloc[part].to_parquet(folder / f"part-{k}.parquet", index=False)
    t_path = write(t, tmp_path / "t.parquet")
    whole = write(p, tmp_path / "p.parquet")
    import duckdb

    con = duckdb.connect()
    relation = con.read_parquet(str(t_path))
    for fn in TABLES.values():
        expected = fn(t_path, whole, engine="numpy")
        assert_same_frame(fn(t_path, str(folder / "*.parquet"), engine="duckdb"), expected)
        assert_same_frame(fn(t_path, folder, engine="duckdb"), expected)
        assert_same_frame(fn(relation, whole), expected)  # auto: a relation picks DuckDB
    con.close()


def test_renamed_columns_and_string_ids(tmp_path: Path) -> None:
    t, p = CASES["noisy_large_clusters"]()
    t = t.rename(columns={"record_id": "rid", "cluster_id": "entity"})
    t_path, p_path = write(t, tmp_path / "t.parquet"), write(p, tmp_path / "p.csv")
    opts: dict[str, Any] = {
        "truth_record_col": "rid",
        "truth_cluster_col": "entity",
        "id_type": "string",
    }
    for fn in TABLES.values():
        expected = fn(t_path, p_path, engine="numpy", **opts)
        assert_same_frame(fn(t_path, p_path, engine="duckdb", **opts), expected)


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text
    return text


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_true_records_missing_from_the_prediction(tmp_path: Path, kind: str) -> None:
    t, p = CASES["noisy"]()
    t_path = write(t, tmp_path / f"t.{kind}")
    p_path = write(p.iloc[7:], tmp_path / f"p.{kind}")  # 7 true records lack a prediction
    for policy in POLICIES:
        for fn in TABLES.values():
            if policy == "intersection":  # the common records only
                expected = fn(t_path, p_path, engine="numpy", on_mismatch=policy)
                got = fn(t_path, p_path, engine="duckdb", on_mismatch=policy)
                assert_same_frame(got, expected)
                continue
            messages = []
            for engine in ("numpy", "duckdb"):
                with pytest.raises(RecordMismatchError) as info:
                    fn(t_path, p_path, engine=engine, on_mismatch=policy)
                messages.append(_one_line(info.value))
            if policy == "twinless":
                assert messages[0] == messages[1]
                assert messages[0].startswith(
                    "7 record(s) of 'truth' are absent from 'pred' (e.g. "
                )
            else:
                assert all(
                    m.startswith("'truth' and 'pred' cover different records: ") for m in messages
                )
                assert messages[0].split(" (e.g.")[0] == messages[1].split(" (e.g.")[0]


def test_engine_functions_refuse_what_they_cannot_do(tmp_path: Path) -> None:
    t, p = _files(CASES["ceaf_ties"](), tmp_path, "parquet", "integer")
    with pytest.raises(
        InputError, match=r"^'engine': expected an engine \(NumPy, DuckDB or Spark\)"
    ):
        engine_record_errors(object(), t, p)
    with pytest.raises(InputError, match=r"^'out': DuckDB writes .csv, .csv.gz and .parquet"):
        engine_cluster_errors(DuckDBEngine(), t, p, out=tmp_path / "x.json")
    with pytest.raises(InputError, match=r"^'out': only the DuckDB engine writes"):
        engine_cluster_errors(SparkEngine(), t, p, out=tmp_path / "x.csv")
    with pytest.raises(TypeError, match="threads"):
        record_errors(t, p, engine="numpy", threads=2)  # type: ignore[call-arg]
    assert record_errors(t, p, engine=DuckDBEngine(threads=2)).equals(record_errors(t, p))
    assert copy_format(tmp_path / "x.CSV") == "csv" and copy_format("x.csv.gz") == "csv.gz"
    query = errors_sql.cluster_errors_sql("cells", dialect=sql.SPARK)
    assert "aggregate(array_sort(collect_list(" in query and "`ROCE`" in query


def test_engine_functions_write_files(tmp_path: Path) -> None:
    t, p = _files(_awkward(), tmp_path, "csv", "text")
    engine = DuckDBEngine()
    for table, fn in TABLES.items():
        in_sql = engine_record_errors if table == "record" else engine_cluster_errors
        frame = fn(t, p, engine="numpy")
        for name in ("x.csv", "x.parquet", "x.csv.gz"):
            path = tmp_path / name
            assert in_sql(engine, t, p, out=path) == len(frame)  # the rows written
            if name.endswith(".parquet"):
                assert_same_frame(pd.read_parquet(path), frame)
            else:
                text = gzip.open(path, "rt").read() if name.endswith(".gz") else path.read_text()
                assert text == frame.to_csv(index=False)


# -- the command line --------------------------------------------------------------------


def _run(args: list[str]) -> Any:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return res


@pytest.mark.parametrize("by", ["record", "cluster"])
def test_csv_files_are_byte_identical(tmp_path: Path, by: str) -> None:
    frames = _sides(CASES["noisy"](), "twinless")
    t, p = _files(frames, tmp_path, "csv", "text")
    base = ["errors", str(t), str(p), "--by", by, "--on-mismatch", "twinless", "-q"]
    written = {}
    for engine in ("numpy", "duckdb"):
        for name in ("e.csv", "e.csv.gz", "e.json", "e.parquet"):
            out = tmp_path / f"{engine}-{name}"
            _run([*base, "--engine", engine, "-o", str(out)])
            written[engine, name] = out
    assert written["numpy", "e.csv"].read_bytes() == written["duckdb", "e.csv"].read_bytes()
    assert written["numpy", "e.json"].read_bytes() == written["duckdb", "e.json"].read_bytes()
    unzipped = [gzip.open(written[e, "e.csv.gz"]).read() for e in ("numpy", "duckdb")]
    assert unzipped[0] == unzipped[1] == written["numpy", "e.csv"].read_bytes()
    assert_same_frame(
        pd.read_parquet(written["duckdb", "e.parquet"]),
        pd.read_parquet(written["numpy", "e.parquet"]),
    )
    printed = [_run([*base, "--engine", e, "-f", "json"]).stdout for e in ("numpy", "duckdb")]
    assert len(json.loads(printed[0])) > 10 and printed[0] == printed[1]
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    t, p = _files(CASES["noisy"](), tmp_path, "parquet", "integer")
    short = write(CASES["noisy"]()[1].iloc[5:], tmp_path / "short.parquet")
    out = tmp_path / "e.csv"
    for args, message in (
        (
            [str(t), str(short), "--on-mismatch", "twinless"],
            "error: 5 record(s) of 'truth' are absent from",
        ),
        ([str(t), str(p), "--spark-master", "local[1]"], "error: '--spark-master' applies"),
        ([str(t), str(p), "--memory-limit", "lots"], "error: '--memory-limit' must be a size"),
    ):
        res = runner.invoke(app, ["errors", *args, "--engine", "duckdb", "-o", str(out)])
        assert res.exit_code == 2, res.output
        assert res.stderr.startswith(message), res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
        assert not out.exists() and not list(tmp_path.glob(".*"))


# -- Spark: a representative subset, the cases joined into one input ---------------------


SPARK_CASES = ("noisy", "all_singletons", "one_giant_cluster", "ceaf_ties")


@pytest.mark.parametrize(
    ("kind", "ids", "policy"),
    [("csv", "text", "twinless"), ("parquet", "integer", "intersection")],
)
def test_spark_gives_the_in_memory_tables(
    tmp_path: Path, request: pytest.FixtureRequest, kind: str, ids: str, policy: str
) -> None:
    engine = SparkEngine(session=request.getfixturevalue("spark"))
    cases = [
        (name, prefixed(_sides(CASES[name](), policy), ids, k))
        for k, name in enumerate(SPARK_CASES)
    ]
    t, p = combined(cases)
    t_path = write(t, tmp_path / f"t.{kind}")
    p_path = write(p, tmp_path / f"p.{kind}")
    # the record table on text ids, the cluster table on integer ids (each ~ 10 queries)
    fn = record_errors if kind == "csv" else cluster_errors
    expected = fn(t_path, p_path, engine="numpy", on_mismatch=policy)
    assert_same_frame(fn(t_path, p_path, engine=engine, on_mismatch=policy), expected)


def test_spark_names_true_records_missing_from_the_prediction(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    engine = SparkEngine(session=request.getfixturevalue("spark"))
    t, p = _files(_awkward(), tmp_path, "csv", "text")
    short = write(pd.read_csv(p, dtype=str, keep_default_na=False).iloc[3:], tmp_path / "s.csv")
    messages = []
    for builder in ("numpy", engine):
        with pytest.raises(RecordMismatchError) as info:
            record_errors(t, short, engine=builder, on_mismatch="twinless")
        messages.append(_one_line(info.value))
    assert messages[0] == messages[1]


def test_cli_errors_on_spark(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue("spark")  # the running session is used
    t, p = _files(_sides(CASES["ceaf_ties"](), "error"), tmp_path, "csv", "text")
    base = ["errors", str(t), str(p), "-f", "json", "-q"]
    printed = [_run([*base, "--engine", e]).stdout for e in ("numpy", "spark")]
    assert printed[0] == printed[1]
    out = tmp_path / "e.csv"
    _run([*base, "--engine", "spark", "--by", "record", "-o", str(out)])
    assert out.read_text() == record_errors(t, p).to_csv(index=False)


def test_cli_names_pred_as_the_mode_reads_it(tmp_path: Path) -> None:
    # TRUTH PRED are arguments; --pred is the sample mode's option
    truth = tmp_path / "truth.csv"
    truth.write_text("record_id,cluster_id\n1,a\n2,a\n")
    dup = tmp_path / "dup.csv"
    dup.write_text("record_id,cluster_id\n1,a\n1,b\n2,b\n")
    sample = tmp_path / "sample.csv"
    sample.write_text("record_id,cluster_id\n1,a\n")
    for engine in ("numpy", "duckdb"):
        got = CliRunner().invoke(app, ["errors", str(truth), str(dup), "--engine", engine])
        assert got.exit_code == 2
        assert got.output.startswith("error: 'pred' has 1 duplicate record ids"), got.output
    args = ["analyze", "--pred", str(dup), "--sample", str(sample), "--design", "cluster"]
    got = CliRunner().invoke(app, [*args, "--weights", "uniform"])
    assert got.exit_code == 2
    assert got.output.startswith("error: '--pred' has 1 duplicate record ids"), got.output


@pytest.mark.each_engine(spark=True)
def test_every_engine_names_the_same_records_in_its_errors(
    tmp_path: Path, engine: str, engine_object: Any
) -> None:
    """The repeated records and the records of one side only are named alike by every
    engine: the three smallest ids, and how many more there are."""
    from ereval.metrics import evaluate

    ids = ["z", "z", "b", "b", "y", "y", "a", "a", "c"]
    twice = write(pd.DataFrame({"record_id": ids, "cluster_id": range(9)}), tmp_path / "t.parquet")
    with pytest.raises(InputError) as got:
        evaluate(twice, twice, engine=engine_object, metrics=["pairwise"])
    assert "4 duplicate record ids (e.g. 'a', 'b', 'y' and 1 more)" in str(got.value)
    t = write(
        pd.DataFrame({"record_id": ["q", "d", "x"], "cluster_id": [0, 0, 1]}),
        tmp_path / "a.parquet",
    )
    p = write(
        pd.DataFrame({"record_id": ["x", "m", "e", "k"], "cluster_id": [0, 1, 1, 1]}),
        tmp_path / "b.parquet",
    )
    with pytest.raises(RecordMismatchError) as mismatch:
        evaluate(t, p, engine=engine_object, metrics=["pairwise"])
    assert "2 record(s) only in 'truth' (e.g. 'd', 'q')" in str(mismatch.value)
    assert "3 record(s) only in 'pred' (e.g. 'e', 'k', 'm')" in str(mismatch.value)
