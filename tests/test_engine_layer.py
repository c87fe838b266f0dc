"""Every engine builds the same table, checked against an independent pandas reference;
engine options are checked before any work; ``auto`` picks as documented."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError, RecordMismatchError
from ereval.cli import app
from ereval.cli._engine import engine_from_options
from ereval.contingency import ContingencyTable
from ereval.engines import DuckDBEngine, NumpyEngine, get_engine, numpy_bytes
from ereval.engines import _base as engine_base
from ereval.engines import _dialect as sql
from ereval.metrics import CANONICAL_METRICS, EXTRA_METRICS, evaluate
from ereval.statistics import compute_table

from ._example_data import EXAMPLES

runner = CliRunner()


def _clusterings(ids: str, key: str, policy: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A truth and a noisy prediction; with a mismatch policy, each side has records of
    its own."""
    rng = np.random.default_rng(11)
    n = 1500
    truth = rng.integers(0, 200, size=n)
    pred = truth.copy()
    moved = rng.random(n) < 0.25
    pred[moved] = rng.integers(0, 260, size=int(moved.sum()))
    uid = rng.permutation(n) * 7 + 3
    frame_t = pd.DataFrame({"uid": uid, "cluster_id": truth})
    frame_p = pd.DataFrame({"uid": uid, "cluster_id": [f"k{v}" for v in pred]})
    if ids == "text":
        for f in (frame_t, frame_p):
            f["uid"] = [f"r{u:05d}" if u % 3 else f"{u}" for u in f["uid"]]
    if key == "several":
        for f in (frame_t, frame_p):
            f["source"] = np.where(np.arange(n) % 2 == 0, "a", 'b"q')
    frame_p = frame_p.iloc[rng.permutation(n)].reset_index(drop=True)
    if policy != "error":
        frame_t = frame_t.iloc[: n - 40]
        frame_p = frame_p.iloc[25:]
    return frame_t.reset_index(drop=True), frame_p.reset_index(drop=True)


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def _reference(t: pd.DataFrame, p: pd.DataFrame, key: list[str], policy: str) -> ContingencyTable:
    """The table by pandas: an outer merge on the key, cluster codes in sorted order."""
    m = t.merge(p, on=key, how="outer", suffixes=("_t", "_p"), indicator=True)
    if policy == "intersection":
        m = m[m["_merge"] == "both"]
    tc = np.sort(m["cluster_id_t"].dropna().unique())
    pc = np.sort(m["cluster_id_p"].dropna().unique())
    both = m[m["_merge"] == "both"]
    cells = (
        pd.DataFrame(
            {
                "i": np.searchsorted(tc, both["cluster_id_t"].to_numpy()),
                "j": np.searchsorted(pc, both["cluster_id_p"].to_numpy()),
            }
        )
        .value_counts()
        .sort_index()
    )
    sizes_t = m["cluster_id_t"].dropna().value_counts().reindex(tc).to_numpy()
    sizes_p = m["cluster_id_p"].dropna().value_counts().reindex(pc).to_numpy()
    i, j = (cells.index.get_level_values(x).to_numpy() for x in ("i", "j"))
    return ContingencyTable(i, j, cells.to_numpy(), sizes_t, sizes_p, policy)  # type: ignore[arg-type]


def _read_back(path: Path) -> pd.DataFrame:
    """The file as the engines read it: CSV columns as text, Parquet as typed."""
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    return pd.read_csv(path, dtype=str, keep_default_na=False)


@pytest.mark.each_engine
@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("policy", ["error", "intersection", "twinless"])
@pytest.mark.parametrize("ids", ["text", "integer"])
@pytest.mark.parametrize("key", ["one", "several"])
def test_every_engine_builds_the_reference_table(
    tmp_path: Path, engine: str, kind: str, policy: str, ids: str, key: str
) -> None:
    frame_t, frame_p = _clusterings(ids, key, policy)
    t = _write(frame_t, tmp_path / f"t.{kind}")
    p = _write(frame_p, tmp_path / f"p.{kind}")
    cols = ["source", "uid"] if key == "several" else ["uid"]
    opts: dict[str, Any] = {"record_col": cols if key == "several" else "uid"}
    tab = compute_table(get_engine(engine), t, p, on_mismatch=policy, **opts)  # type: ignore[arg-type]
    ref = _reference(_read_back(t), _read_back(p), cols, policy)
    for name in ("rows", "cols", "counts", "true_sizes", "pred_sizes"):
        np.testing.assert_array_equal(getattr(tab, name), getattr(ref, name), err_msg=name)
    names = list(CANONICAL_METRICS) + (list(EXTRA_METRICS) if policy == "twinless" else [])
    got = evaluate(t, p, engine=engine, on_mismatch=policy, metrics=names, **opts)  # type: ignore[arg-type]
    expected = evaluate(ref, metrics=names)
    for name in names:
        a, b = got[name], expected[name]
        # DuckDB sums the floats in another order: equal to 1e-12 (NumPy: bit for bit)
        tol = 0.0 if engine == "numpy" else 1e-12
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=tol, abs_tol=tol), (
            name
        )


@pytest.mark.each_engine
def test_engines_raise_the_same_errors(tmp_path: Path, engine: str) -> None:
    def csv(name: str, body: str) -> Path:
        path = tmp_path / name
        path.write_text("record_id,cluster_id\n" + body)
        return path

    ok = csv("ok.csv", "1,a\n2,a\n3,b\n")
    # a repeated record that the other side lacks: not visible in the join's counts
    dup_alone = csv("d1.csv", "1,a\n2,a\n3,b\n9,c\n9,d\n")
    with pytest.raises(InputError, match=r"^'truth' has 1 duplicate record ids \(e\.g\. '9'\)"):
        evaluate(dup_alone, ok, engine=engine, on_mismatch="twinless")  # type: ignore[arg-type]
    # the same on the prediction's side, while the truth has a record of its own too
    dup_pred_alone = csv("d3.csv", "1,a\n2,a\n8,b\n8,c\n")
    with pytest.raises(InputError, match=r"^'pred' has 1 duplicate record ids \(e\.g\. '8'\)"):
        evaluate(ok, dup_pred_alone, engine=engine, on_mismatch="twinless")  # type: ignore[arg-type]
    dup_matched = csv("d2.csv", "1,a\n2,a\n2,b\n3,b\n")
    with pytest.raises(InputError, match=r"^'pred' has 1 duplicate record ids \(e\.g\. '2'\)"):
        evaluate(ok, dup_matched, engine=engine)  # type: ignore[arg-type]
    with pytest.raises(RecordMismatchError, match=r"1 record\(s\) only in 'pred' \(e\.g\. '4'\)"):
        evaluate(ok, csv("more.csv", "1,a\n2,a\n3,b\n4,b\n"), engine=engine)  # type: ignore[arg-type]
    with pytest.raises(RecordMismatchError, match="no record in common"):
        evaluate(ok, csv("x.csv", "7,a\n"), engine=engine, on_mismatch="intersection")  # type: ignore[arg-type]


def test_duckdb_relations_are_read_by_the_duckdb_engine() -> None:
    con = duckdb.connect()
    t = con.sql("SELECT * FROM (VALUES (1, 'a'), (2, 'a'), (3, 'b')) v(record_id, cluster_id)")
    p = con.sql("SELECT * FROM (VALUES (3, 'y'), (2, 'x'), (1, 'x')) v(record_id, cluster_id)")
    assert isinstance(get_engine("auto", truth=t, pred=p), DuckDBEngine)
    assert evaluate(t, p)["pairwise_f1"] == 1.0
    frames = evaluate({1: "a", 2: "a", 3: "b"}, {3: "y", 2: "z", 1: "x"})
    assert (
        evaluate(
            t,
            con.sql(
                "SELECT 3 AS record_id, 'y' AS cluster_id UNION ALL "
                "SELECT 2, 'z' UNION ALL SELECT 1, 'x'"
            ),
        )
        == frames
    )
    with pytest.raises(InputError, match="NumPy engine does not read DuckDB relations"):
        evaluate(t, p, engine="numpy")
    with pytest.raises(InputError, match=r"^'truth' has no column\(s\) 'zz'"):
        evaluate(t, p, engine="duckdb", record_col="zz")
    with pytest.raises(
        InputError, match="reads CSV or Parquet files, Arrow tables and DuckDB relations"
    ):
        evaluate({1: "a"}, {1: "a"}, engine="duckdb")


def test_engine_options_are_checked_before_work(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^'memory_limit' must be a size such as '2GB'"):
        DuckDBEngine(memory_limit="lots")
    for bad in (0, -2, True, 1.5):
        with pytest.raises(InputError, match=r"^'threads' must be a whole number >= 1"):
            DuckDBEngine(threads=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^'temp_dir' must be an existing directory"):
        DuckDBEngine(temp_dir=tmp_path / "nowhere")
    res = runner.invoke(app, ["metrics", T, P, "--engine", "numpy", "--threads", "2"])
    assert res.exit_code == 2
    assert res.stderr.startswith("error: '--threads' applies to the DuckDB engine; --engine numpy")
    with pytest.raises(InputError, match=r"'engine'"):
        get_engine("sparkle")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^'memory_limit'"):
        DuckDBEngine(memory_limit="2 parsecs")
    engine = DuckDBEngine(memory_limit="64MB", threads=1, temp_dir=tmp_path)
    con = engine.connect()
    settings = dict(
        con.execute(
            "SELECT name, value FROM duckdb_settings() "
            "WHERE name IN ('threads', 'temp_directory', 'memory_limit')"
        ).fetchall()
    )
    con.close()
    assert settings["threads"] == "1" and settings["temp_directory"] == str(tmp_path)
    assert settings["memory_limit"].startswith("61") or "MiB" in settings["memory_limit"]


T, P = str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_good.csv")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memory-limit", "lots"], "error: '--memory-limit' must be a size such as '2GB'"),
        (["--threads", "0"], "error: '--threads' must be a whole number >= 1; received 0"),
        (["--temp-dir", "/no/such/dir"], "error: '--temp-dir' must be an existing directory"),
        (
            ["--engine", "numpy", "--threads", "2"],
            "error: '--threads' applies to the DuckDB engine; --engine numpy",
        ),
    ],
)
def test_cli_engine_options_are_one_line_errors(args: list[str], message: str) -> None:
    res = runner.invoke(app, ["metrics", T, P, *args])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(message), res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_cli_engines_print_the_same_result(tmp_path: Path) -> None:
    args = ["metrics", T, P, "-f", "json"]
    outs = [
        runner.invoke(app, [*args, *extra])
        for extra in (
            ["--engine", "numpy"],
            ["--engine", "duckdb", "--threads", "1", "--memory-limit", "256MB"],
            ["--engine", "duckdb", "--temp-dir", str(tmp_path)],
            [],
        )
    ]
    assert all(o.exit_code == 0 for o in outs), [o.output for o in outs]
    results = [json.loads(o.stdout) for o in outs]
    assert results[0] == results[3]  # auto picks NumPy here
    for other in results[1:3]:
        assert other.keys() == results[0].keys()
        for key, value in results[0].items():
            assert math.isclose(other[key], value, rel_tol=1e-12, abs_tol=1e-12), key


def test_cli_pairs_refuse_the_duckdb_engine(tmp_path: Path) -> None:
    res = runner.invoke(app, ["errors", T, P, "--engine", "numpy", "-f", "json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["metrics", T, P, "--pairs", "--engine", "duckdb"])
    assert res.exit_code == 2 and "with '--pairs'" in res.stderr


def test_auto_picks_numpy_when_the_files_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = pd.DataFrame({"record_id": np.arange(1000), "cluster_id": np.arange(1000) // 3})
    t = _write(frame, tmp_path / "t.parquet")
    c = _write(frame, tmp_path / "c.csv")
    need = engine_base.BYTES_PER_RECORD * 2000  # Parquet rows from the metadata: exact
    assert numpy_bytes(t, t) == need
    csv_rows = c.stat().st_size // engine_base.CSV_BYTES_PER_RECORD + 1
    assert numpy_bytes(t, c) == engine_base.BYTES_PER_RECORD * (1000 + csv_rows)
    assert numpy_bytes({1: "a"}, t) is None
    for free, picked in (
        (2 * need, NumpyEngine),
        (2 * need - 1, DuckDBEngine),
        (None, NumpyEngine),
    ):
        monkeypatch.setattr(engine_base, "available_memory", lambda free=free: free)
        assert isinstance(get_engine("auto", truth=t, pred=t), picked), free
    monkeypatch.setattr(engine_base, "available_memory", lambda: 1)
    assert isinstance(get_engine("auto", truth={1: "a"}, pred={1: "a"}), NumpyEngine)
    picked_engine = engine_from_options(
        engine="auto", memory_limit=None, threads=1, temp_dir=None, truth=t, pred=t
    )
    assert isinstance(picked_engine, DuckDBEngine) and picked_engine.threads == 1
    assert evaluate(t, t, engine="auto")["pairwise_f1"] == 1.0  # through DuckDB
    assert engine_base.available_memory() == 1


def test_available_memory_is_positive() -> None:
    free = engine_base.available_memory()
    assert free is None or free > 0


def test_sql_is_built_by_pure_functions() -> None:
    assert sql.quote("it's") == "'it''s'"
    assert sql.ident('a"b') == '"a""b"'
    assert sql.key_sql(["x"], ["integer"]) == '"x"'
    two = sql.key_sql(["s", "n"], ["text", "integer"])
    con = duckdb.connect()
    got = con.execute(f"SELECT {two} FROM (VALUES ('a\"\\', 7)) v(s, n)").fetchone()
    assert got == ('["a\\"\\\\",7]',)  # the JSON text of ereval.io's keys
    assert "FULL OUTER JOIN" in sql.cells_sql("t", "p") and "ORDER BY" not in sql.cells_sql(
        "t", "p"
    )


def test_duckdb_under_a_small_memory_limit_gives_the_same_table(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 300_000
    ids = pd.Series([f"rec-{v}" for v in rng.permutation(n)])
    truth = pd.DataFrame({"record_id": ids, "cluster_id": rng.integers(0, n // 3, size=n)})
    pred = truth.sample(frac=1.0, random_state=1).reset_index(drop=True)
    moved = rng.random(n) < 0.3
    pred.loc[moved, "cluster_id"] = rng.integers(0, n // 3, size=int(moved.sum()))
    t = _write(truth, tmp_path / "t.parquet")
    p = _write(pred, tmp_path / "p.parquet")
    spill = tmp_path / "spill"
    spill.mkdir()
    small = DuckDBEngine(memory_limit="48MB", threads=2, temp_dir=spill)
    tab = compute_table(small, t, p)
    ref = compute_table(NumpyEngine(), t, p)
    for name in ("rows", "cols", "counts", "true_sizes", "pred_sizes"):
        np.testing.assert_array_equal(getattr(tab, name), getattr(ref, name), err_msg=name)
