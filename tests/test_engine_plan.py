"""The DuckDB engine's join in many passes (:mod:`ereval.engines._plan`) gives the same
table, hence the same metrics bit for bit, as the in-memory engine."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError
from ereval.cli import app
from ereval.engines import DuckDBEngine
from ereval.engines._plan import MAX_MODULUS, Pass, limit_bytes, pass_count, run_split
from ereval.metrics import CANONICAL_METRICS, EXTRA_METRICS, evaluate
from ereval.statistics import (
    FLOAT_STATISTICS,
    INTEGER_STATISTICS,
    compute_statistics,
    compute_table,
    statistics_of,
)

SHAPES = ("text", "dense", "sparse", "hostile", "keys")


def _frames(shape: str, n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """A truth and a prediction of ``shape`` and the options that read them."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n // 3, size=n)
    if shape == "hostile":  # cluster ids ascending part by part
        truth = np.sort(truth)
    pred = truth.copy()
    moved = rng.random(n) < 0.25
    pred[moved] = rng.integers(0, n // 3, size=int(moved.sum()))
    options: dict[str, Any] = {}
    if shape == "text":
        ids: Any = np.array([f"r{'x' * (i % 7)}{i:05d}" for i in rng.permutation(n)])
    elif shape == "sparse":
        ids = rng.choice(2**62, size=n, replace=False).astype(np.int64)
    else:
        ids = rng.permutation(n).astype(np.int64)
    t = pd.DataFrame({"record_id": ids, "cluster_id": truth})
    p = pd.DataFrame({"record_id": ids, "cluster_id": pred})
    if shape == "keys":  # a record key of two columns, one text and one integer
        for frame in (t, p):
            frame["src"] = np.where(frame["record_id"] % 2 == 0, "a", "b")
            frame["local"] = frame["record_id"] // 2
        options["record_col"] = ["src", "local"]
    order = np.arange(n)[::-1] if shape == "hostile" else rng.permutation(n)
    return t, p.iloc[order].reset_index(drop=True), options


def _paths(tmp: Path, t: pd.DataFrame, p: pd.DataFrame, kind: str) -> tuple[Path, Path]:
    out = []
    for name, frame in (("t", t), ("p", p)):
        path = tmp / f"{name}.{kind}"
        if kind == "parquet":
            frame.to_parquet(path, index=False)
        else:
            frame.to_csv(path, index=False)
        out.append(path)
    return out[0], out[1]


def _same(expected: dict[str, float], got: dict[str, float]) -> None:
    for name, a in expected.items():
        b = got[name]
        assert (math.isnan(a) and math.isnan(b)) or a == b, name  # bit for bit


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("policy", ["error", "twinless"])
def test_table_in_many_passes_is_identical(tmp_path: Path, shape: str, policy: str) -> None:
    n = 600
    t, p, options = _frames(shape, n, seed=len(shape))
    if policy == "twinless":
        t, p = t.iloc[: n - 40], p.iloc[25:]
    kind = "csv" if shape in ("text", "keys") else "parquet"
    t_path, p_path = _paths(tmp_path, t, p, kind)
    names = list(CANONICAL_METRICS) + (list(EXTRA_METRICS) if policy == "twinless" else [])
    opts = {"on_mismatch": policy, **options}
    expected = evaluate(t_path, p_path, metrics=names, **opts)
    for passes in (1, 9, 23):  # 23 passes merge in 3
        table = compute_table(DuckDBEngine(passes=passes), t_path, p_path, **opts)
        _same(expected, evaluate(table, metrics=names))
        # the statistics from the join in passes: integers equal, floats to 1e-12
        stats = compute_statistics(DuckDBEngine(passes=passes), t_path, p_path, **opts)
        ref = statistics_of(table)
        canonical = list(CANONICAL_METRICS)
        for name, a in evaluate(ref, metrics=canonical).items():
            b = evaluate(stats, metrics=canonical)[name]
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (passes, name)
        assert stats.n_cells == ref.n_cells and stats.pairs_both == ref.pairs_both


@pytest.mark.parametrize("shape", ["text", "hostile", "keys", "text clusters", "sparse clusters"])
@pytest.mark.parametrize("policy", ["error", "twinless", "intersection"])
def test_statistics_beyond_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, policy: str
) -> None:
    """When the groups of the join in passes would not fit in the memory limit as NumPy
    arrays, every statistic comes from sweeps over their table (in one range or in
    many; cluster keys that are not codes by offset numbered first) or, when the
    clusters' arrays leave too little, from DuckDB's aggregate statements: the same
    statistics as the table in memory (integers equal, floats to 1e-12)."""
    from ereval.statistics import _stream, _swept

    n = 600
    t, p, options = _frames(shape.split()[0], n, seed=3 + len(shape))
    if shape == "text clusters":
        t["cluster_id"] = "c" + t["cluster_id"].astype(str)
        p["cluster_id"] = "c" + p["cluster_id"].astype(str)
    elif shape == "sparse clusters":  # integers too far apart to be codes by offset
        t["cluster_id"] = t["cluster_id"] * 2**40 - 7
        p["cluster_id"] = p["cluster_id"] * 2**40 - 7
    if policy != "error":
        t, p = t.iloc[: n - 40], p.iloc[25:]
    # CSV gives text cluster keys, Parquet integers
    t_path, p_path = _paths(tmp_path, t, p, "csv" if shape == "text clusters" else "parquet")
    opts = {"on_mismatch": policy, **options}
    ref = statistics_of(compute_table("numpy", t_path, p_path, **opts))
    calls: list[str] = []
    for module, name in ((_stream, "sql_table_statistics"), (_stream, "swept_statistics")):
        real = getattr(module, name)

        def spy(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    engine = DuckDBEngine(passes=5, memory_limit="128MB")
    regimes = [
        ({"CELL_BYTES": 1}, {}, []),  # the groups fit in NumPy
        ({"CELL_BYTES": 10**6}, {}, ["swept_statistics"]),
        # ranges of a few codes: many sweeps of each kind
        ({}, {"ROW_BYTES": 10**6, "COLUMN_BYTES": 2 * 10**6}, ["swept_statistics"]),
        # the clusters' arrays leave too little for a range
        ({}, {"LEAST_REST": 10**12}, ["sql_table_statistics"]),
        # the estimate of the keys let them be numbered, their number then does not fit
        ({"_may_fit": lambda *args, **kwargs: True}, {}, ["sql_table_statistics"]),
    ]
    for stream_values, swept_values, used in regimes:
        for name, value in stream_values.items():
            monkeypatch.setattr(_stream, name, value)
        for name, value in swept_values.items():
            monkeypatch.setattr(_swept, name, value)
        calls.clear()
        got = compute_statistics(engine, t_path, p_path, **opts)
        assert calls == used, (stream_values, swept_values)
        for field in INTEGER_STATISTICS:
            assert getattr(got, field) == getattr(ref, field), field
        for field in FLOAT_STATISTICS:
            want, have = getattr(ref, field), getattr(got, field)
            assert math.isclose(have, want, rel_tol=1e-12, abs_tol=1e-12), field


def test_link_only_in_passes(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 1500
    src = np.where(np.arange(n) % 3 == 0, "left", "right")
    truth = rng.integers(0, 500, size=n)
    pred = np.where(rng.random(n) < 0.3, rng.integers(0, 500, size=n), truth)
    t = pd.DataFrame({"record_id": np.arange(n), "cluster_id": truth, "source": src})
    p = pd.DataFrame({"record_id": np.arange(n), "cluster_id": pred}).sample(frac=1, random_state=1)
    t_path, p_path = _paths(tmp_path, t, p, "parquet")
    opts: dict[str, Any] = {"link_only": True, "source_col": "source"}
    names = list(CANONICAL_METRICS)
    expected = evaluate(t_path, p_path, metrics=names, **opts)
    table = compute_table(DuckDBEngine(passes=9), t_path, p_path, **opts)
    _same(expected, evaluate(table, metrics=names))


def test_split_pieces_cover_every_hash_once() -> None:
    class OutOfMemory(Exception):
        pass

    ran: list[Pass] = []

    def run(piece: Pass) -> None:  # a piece of modulus below 12 is too large
        if piece.modulus < 12 and piece.residue % 2 == 0:
            raise OutOfMemory
        ran.append(piece)

    finished: list[tuple[int, int]] = []  # (pass, pieces run by then)
    assert run_split(3, run, OutOfMemory, after=lambda k: finished.append((k, len(ran)))) == len(
        ran
    )
    # each pass is reported once, after its last piece and before the next pass's first
    assert [k for k, _ in finished] == [0, 1, 2]
    for k, count in finished:
        assert all(piece.residue % 3 == k for piece in ran[count - 1 : count])
        assert all(piece.residue % 3 > k for piece in ran[count:])
    for h in range(5000):
        assert sum(h % piece.modulus == piece.residue for piece in ran) == 1
    assert max(piece.modulus for piece in ran) == 12


def test_split_gives_up_at_the_most_passes() -> None:
    class OutOfMemory(Exception):
        pass

    def run(piece: Pass) -> None:
        if piece.residue == 0:
            raise OutOfMemory

    with pytest.raises(OutOfMemory):
        run_split(MAX_MODULUS // 2, run, OutOfMemory)


def test_pass_count_from_the_limit() -> None:
    assert limit_bytes("1GB") == 10**9 and limit_bytes("2 GiB") == 2 * 2**30
    assert pass_count(10**5, None) == 1
    assert pass_count(2 * 10**8, 10**9) == 64  # 2e8 rows * 160 B / (0.5 * 1e9)
    assert pass_count(10**15, 10**9) == MAX_MODULUS
    with pytest.raises(InputError, match="'passes' must be a whole number from 1 to 4096"):
        DuckDBEngine(passes=0)


@pytest.mark.parametrize("limit", ["1KB", "31MB"])
def test_too_small_memory_limit_is_one_line(tmp_path: Path, limit: str) -> None:
    t, p, _ = _frames("dense", 100, seed=1)
    t_path, p_path = _paths(tmp_path, t, p, "parquet")
    args = ["metrics", str(t_path), str(p_path), "--engine", "duckdb", "--memory-limit", limit]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "'--memory-limit' must be at least 32MB" in lines[0]
    assert f"received '{limit}'" in lines[0]
    assert "SET" not in lines[0]


# keys of each kind: a type Parquet gives back exactly (files), one it does not
# (HUGEINT: DuckDB tables), floats of two types on the two sides, text
KEY_TYPES = {
    "bigint": ("BIGINT", "BIGINT"),
    "hugeint": ("HUGEINT", "HUGEINT"),
    "float-double": ("FLOAT", "DOUBLE"),
    "text": ("VARCHAR", "VARCHAR"),
}


def _cells_of(con: Any, query: str) -> list[tuple[Any, ...]]:
    rows = con.execute(query).fetchall()
    return sorted(rows, key=lambda row: (str(row[0]), str(row[1])))


@pytest.mark.parametrize("kind", list(KEY_TYPES))
@pytest.mark.parametrize("passes", [2, 7])
def test_planned_cells_equal_one_join(tmp_path: Path, kind: str, passes: int) -> None:
    """The cells computed in passes are the cells of the single full outer join, for
    keys of every kind (records of one side only included), and the partition files
    are removed from the temporary directory afterwards."""
    from ereval.engines._dialect import cells_sql
    from ereval.engines._duckdb import DuckDBDatabase
    from ereval.engines._plan import planned_cells

    rng = np.random.default_rng(passes)
    n = 400
    records = [int(r) + (2**70 if kind == "hugeint" else 0) for r in rng.permutation(n)]
    truth = rng.integers(0, 90, size=n)
    pred = np.where(rng.random(n) < 0.3, rng.integers(0, 90, size=n), truth)
    db = DuckDBDatabase(DuckDBEngine(temp_dir=tmp_path))
    for name, clusters, (lo, hi), rtype in (
        ("t", truth, (0, n - 30), KEY_TYPES[kind][0]),
        ("p", pred, (20, n), KEY_TYPES[kind][1]),
    ):
        quote = "'" if kind == "hugeint" else ""  # beyond BIGINT: read from text
        rows = ", ".join(
            f"({quote}{int(r)}{quote}, {int(c)})"
            for r, c in zip(records[lo:hi], clusters[lo:hi], strict=True)
        )
        cast = "CAST(CAST(r AS BIGINT) AS VARCHAR)" if rtype == "VARCHAR" else f"CAST(r AS {rtype})"
        cluster = "CAST(c AS HUGEINT)" if kind == "hugeint" else "c"
        db.execute(
            f"CREATE VIEW {name} AS SELECT {cast} AS r, {cluster} AS c "
            f"FROM (VALUES {rows}) AS v(r, c)"
        )
    expected = _cells_of(db, cells_sql("t", "p"))
    assert planned_cells(db, ("t", "p"), passes) == ("cells", (0, 0))
    got = _cells_of(db, "SELECT tc, pc, n FROM cells")
    assert got == expected
    assert sum(row[2] for row in got) == n  # 370 + 380 rows, 350 records in common
    assert list(tmp_path.iterdir()) == []
    # one record of the truth's only repeated once, two of the prediction's only (one
    # in another cluster): the passes count the surplus rows of each side
    db.execute("DROP TABLE cells")
    db.execute(
        "CREATE VIEW t2 AS SELECT r, c FROM t UNION ALL "
        "(SELECT r, c FROM t WHERE r NOT IN (SELECT r FROM p) ORDER BY r LIMIT 1)"
    )
    db.execute(
        "CREATE VIEW p2 AS SELECT r, c FROM p UNION ALL "
        "(SELECT r, c + 1 FROM p WHERE r NOT IN (SELECT r FROM t) ORDER BY r LIMIT 2)"
    )
    assert planned_cells(db, ("t2", "p2"), passes) == ("cells", (1, 2))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("shape", ["text", "hostile"])
def test_error_tables_in_passes_equal_in_memory(tmp_path: Path, shape: str) -> None:
    from ereval.metrics import cluster_errors, record_errors

    t, p, options = _frames(shape, 500, seed=4)
    kind = "csv" if shape == "text" else "parquet"
    t_path, p_path = _paths(tmp_path, t, p, kind)
    for table in (record_errors, cluster_errors):
        expected = table(t_path, p_path, engine="numpy", **options)
        got = table(t_path, p_path, engine=DuckDBEngine(passes=6), **options)
        pd.testing.assert_frame_equal(got, expected)


class _Full(Exception):
    """A stand-in for the backend's out-of-memory error."""


class _FakeDatabase:
    """What :func:`in_passes` reads of a database: its plan and its memory error."""

    out_of_memory = (_Full,)

    def __init__(self, engine: DuckDBEngine, log: list[Any] | None = None) -> None:
        from ereval.engines import DuckDBDatabase

        self._plan = DuckDBDatabase.pass_plan
        self.engine = engine
        self.log = [] if log is None else log

    def execute(self, query: str) -> None:
        self.log.append(query)

    def planned_passes(self, rows: int) -> int:
        return self.engine.planned_passes(rows)

    def pass_plan(self, rows: int) -> tuple[int, int]:
        return self._plan(self, rows)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("engine", "rows", "fails_at", "expected"),
    [
        # 12 planned passes (10^7 per side under 1 GB, of which DuckDB's share is
        # 532 MiB): one pass first, which fits
        (DuckDBEngine(memory_limit="1GB"), 2 * 10**7, set(), [1]),
        # ... and when it does not, the plan's 12 after a reset
        (DuckDBEngine(memory_limit="1GB"), 2 * 10**7, {1}, [1, "DROP TABLE IF EXISTS cells", 12]),
        # 115 planned passes: straight to the plan
        (DuckDBEngine(memory_limit="1GB"), 2 * 10**8, set(), [115]),
        # no limit: one pass, then two
        (DuckDBEngine(), 2 * 10**8, {1}, [1, "DROP TABLE IF EXISTS cells", 2]),
        # passes given are kept, and a given single pass that fails goes to two
        (DuckDBEngine(memory_limit="1GB", passes=3), 2 * 10**7, set(), [3]),
        (DuckDBEngine(passes=1), 10, {1}, [1, "DROP TABLE IF EXISTS cells", 2]),
    ],
)
def test_in_passes_tries_one_pass_where_the_plan_is_short(
    engine: DuckDBEngine, rows: int, fails_at: set[int], expected: list[Any]
) -> None:
    from ereval.engines._plan import in_passes

    log: list[Any] = []

    def run(passes: int) -> int:
        log.append(passes)
        if passes in fails_at:
            raise _Full
        return passes

    got = in_passes(_FakeDatabase(engine, log), rows, run, leaves=("cells",))
    assert log == expected and got == expected[-1]


def test_a_failing_plan_is_not_run_again() -> None:
    from ereval.engines._plan import in_passes

    def run(passes: int) -> int:
        raise _Full

    with pytest.raises(_Full):
        in_passes(_FakeDatabase(DuckDBEngine(memory_limit="1GB")), 2 * 10**8, run, leaves=())


@pytest.mark.parametrize(
    ("limit", "share"),
    [
        # (10^9 - 176 MiB - 224 MiB) / 1.04
        ("1GB", int((10**9 - 400 * 2**20) / 1.04)),
        ("1440MiB", 1000 * 2**20),
        ("400MiB", 200 * 2**20),
        ("32MB", 32 * 10**6),
    ],
)
def test_duckdb_gets_the_limit_less_the_process_own(limit: str, share: int) -> None:
    """A memory limit is the whole process's: DuckDB's buffers get what is left once
    the interpreter's 176 MiB and DuckDB's allocations beyond its own limit (224 MiB
    and 4% of its share) are counted (half for small limits, never less than DuckDB's
    floor), and its allocator gives back what it frees beyond 32 MB rather than its
    default 128 and 512 MB."""
    from ereval.engines import DuckDBDatabase

    db = DuckDBDatabase(DuckDBEngine(memory_limit=limit))
    assert db.engine.buffer_limit == db.memory_bytes() == share

    def setting(name: str) -> str:
        return str(db.execute(f"SELECT current_setting('{name}')").fetchall()[0][0])

    assert abs(limit_bytes(setting("memory_limit").replace(" ", "")) - share) < 0.01 * share
    for name in ("allocator_flush_threshold", "allocator_bulk_deallocation_flush_threshold"):
        assert limit_bytes(setting(name).replace(" ", "")) <= 32 * 10**6
    assert setting("allocator_background_threads").lower() == "true"
    # without a limit DuckDB keeps its own settings
    free = DuckDBDatabase(DuckDBEngine())
    assert free.memory_bytes() is None
    flush = free.execute("SELECT current_setting('allocator_flush_threshold')").fetchall()[0][0]
    assert limit_bytes(str(flush).replace(" ", "")) > 32 * 10**6


def test_hold_memory_lowers_the_limit_meanwhile() -> None:
    """Arrays held in NumPy while DuckDB works come out of the engine's limit: DuckDB's
    own is lowered by their size (not below the lent floor) and set back afterwards."""
    from ereval.engines import DuckDBDatabase

    def setting(db: DuckDBDatabase) -> int:
        text = db.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        return limit_bytes(str(text).replace(" ", ""))

    # DuckDB's share of 1440 MiB is 1000 MiB
    db = DuckDBDatabase(DuckDBEngine(memory_limit="1440MiB"))
    before = setting(db)
    assert before == db.engine.buffer_limit == 1000 * 2**20
    with db.hold_memory(500 * 2**20):
        assert setting(db) == 500 * 2**20
    with db.hold_memory(2**40):  # more than the limit: DuckDB keeps the floor
        assert setting(db) == limit_bytes("64MB") // 2**20 * 2**20
    assert setting(db) == before
    free = DuckDBDatabase(DuckDBEngine())
    unlimited = setting(free)
    with free.hold_memory(2**30):
        assert setting(free) == unlimited


@pytest.mark.parametrize("passes", [1, 3])
def test_repeated_records_of_one_side_only_are_found_in_passes(tmp_path: Path, passes: int) -> None:
    """A record of one side only that repeats is not in the join's counts: found by the
    full join of the check in one pass, and by the passes themselves in several."""
    from ereval import InputError
    from ereval.metrics import evaluate

    ok = tmp_path / "ok.csv"
    ok.write_text("record_id,cluster_id\n1,a\n2,a\n3,b\n4,b\n")
    truth_dup = tmp_path / "t.csv"
    truth_dup.write_text("record_id,cluster_id\n1,a\n2,a\n3,b\n9,c\n9,d\n")
    pred_dup = tmp_path / "p.csv"
    pred_dup.write_text("record_id,cluster_id\n1,a\n2,a\n7,x\n8,y\n8,y\n7,z\n")
    (tmp_path / "spill").mkdir()
    engine = DuckDBEngine(passes=passes, temp_dir=tmp_path / "spill")
    with pytest.raises(InputError, match=r"^'truth' has 1 duplicate record ids \(e\.g\. '9'\)"):
        evaluate(truth_dup, ok, engine=engine, on_mismatch="twinless")
    with pytest.raises(InputError, match=r"^'pred' has 2 duplicate record ids \(e\.g\. '7', '8'\)"):
        evaluate(ok, pred_dup, engine=engine, on_mismatch="twinless")
    assert evaluate(ok, ok, engine=engine)["b3_f1"] == 1.0


@pytest.mark.parametrize("csv", [False, True])
def test_keys_of_one_side_only_that_share_a_hash_in_passes_are_no_repeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, csv: bool
) -> None:
    """The passes keep a text key of one side only by its hash: when every such record of
    a side is given one hash, the passes count repeats that the sides' own check then
    does not find, and the metrics are those of NumPy (from Parquet files and from CSV
    files, whose passes are tables)."""
    from ereval.engines import _dialect, _sources

    monkeypatch.setattr(
        _dialect,
        "HASHED_ALONE_KEY",
        "CASE WHEN t.r IS NULL OR p.r IS NULL THEN CAST(t.r IS NULL AS UBIGINT) END",
    )
    checked: list[str] = []
    check_unique = _sources.check_unique

    def spy(con: Any, view: str, name: str) -> None:
        checked.append(name)
        check_unique(con, view, name)

    monkeypatch.setattr("ereval.statistics._cells.check_unique", spy)
    rng = np.random.default_rng(3)
    ids = [f"id-{k}" for k in range(300)]
    files = []
    for name, kept in (("t", ids[:260]), ("p", ids[30:])):
        frame = pd.DataFrame({"record_id": kept, "cluster_id": rng.integers(0, 40, len(kept))})
        path = tmp_path / f"{name}.{'csv' if csv else 'parquet'}"
        if csv:
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path)
        files.append(path)
    (tmp_path / "spill").mkdir()
    engine = DuckDBEngine(passes=4, temp_dir=tmp_path / "spill")
    got = evaluate(*files, engine=engine, on_mismatch="twinless")
    expected = evaluate(*files, engine="numpy", on_mismatch="twinless")
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-12, abs_tol=1e-15), key
    assert checked == ["truth", "pred"]


def _two_widths(tmp_path: Path, widths: tuple[str, str], ids: list[int]) -> list[Path]:
    """The truth and the prediction as Parquet files, record ids ``ids`` in the first
    and ``ids`` reversed in the second, written in ``widths``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = []
    for name, width, order in (("t", widths[0], ids), ("p", widths[1], ids[::-1])):
        table = pa.table(
            {
                "record_id": pa.array(order, getattr(pa, width)()),
                "cluster_id": [i % 7 for i in order] if name == "t" else [i % 5 for i in order],
            }
        )
        pq.write_table(table, tmp_path / f"{name}.parquet")
        paths.append(tmp_path / f"{name}.parquet")
    return paths


@pytest.mark.parametrize("widths", [("int32", "int64"), ("int8", "uint64"), ("int16", "int32")])
def test_passes_find_equal_ids_read_in_two_widths(tmp_path: Path, widths: tuple[str, str]) -> None:
    """DuckDB hashes a negative integer differently in each width: ids written as 32-bit
    integers on one side and 64-bit on the other still meet in one pass."""
    ids = list(range(-60, 60)) if widths[1] != "uint64" else list(range(120))
    paths = _two_widths(tmp_path, widths, ids)
    expected = evaluate(*paths, metrics=list(CANONICAL_METRICS))
    for passes in (1, 3, 7):
        table = compute_table(DuckDBEngine(passes=passes), *paths)
        _same(expected, evaluate(table, metrics=list(CANONICAL_METRICS)))


@pytest.mark.each_engine(spark=True)
def test_every_engine_joins_negative_ids_read_in_two_widths(
    tmp_path: Path, engine: str, engine_object: Any
) -> None:
    """Negative ids written 32-bit in the truth and 64-bit in the prediction, some of
    them on one side only: every engine, whose join hashes the ids its own way, gives
    the in-memory numbers (Spark's shuffle partitions both sides in one type)."""
    ids = list(range(-90, 30))
    paths = _two_widths(tmp_path, ("int32", "int64"), ids)
    import pyarrow.parquet as pq

    pred = pq.read_table(paths[1])
    pq.write_table(pred.slice(0, 100), paths[1])  # the truth's last twenty ids are its own
    names = list(CANONICAL_METRICS)
    expected = evaluate(*paths, metrics=names, engine="numpy", on_mismatch="twinless")
    got = evaluate(*paths, metrics=names, engine=engine_object, on_mismatch="twinless")
    assert got.keys() == expected.keys()
    for name, value in expected.items():  # integers exactly, floats to 1e-12
        assert math.isclose(got[name], value, rel_tol=1e-12, abs_tol=1e-15), name
    assert evaluate(*paths, metrics="pairwise", on_mismatch="intersection") == evaluate(
        *paths, metrics="pairwise", engine=engine_object, on_mismatch="intersection"
    )
