"""The DuckDB engine's statistics streamed out of its join: the same as in memory
whatever the batches (many small ones here), the kind of cluster key (integers by
offset from the bounds of the sides, offsets too sparse to be codes, integers too
far apart for offsets, text, keys of several columns) and the mismatch policy; no
table of groups is written; the checks of the streamed totals raise the errors of
the materialised join word for word."""

from __future__ import annotations

import functools
import math
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from ereval._errors import InputError, RecordMismatchError
from ereval.engines import DuckDBDatabase, DuckDBEngine, NumpyEngine
from ereval.engines import _duckdb as duckdb_engine
from ereval.engines._sources import hashed_keys
from ereval.statistics import (
    FLOAT_STATISTICS,
    INTEGER_STATISTICS,
    compute_statistics,
    compute_table,
    table_statistics,
)
from ereval.statistics import _sizes as size_terms
from ereval.statistics import _sql as duckdb_stats
from ereval.statistics._cells import checked_cells
from ereval.statistics._stream import streamed_statistics

from ._engines import loaded_pair

KEYS = ["dense", "gaps", "sparse", "far", "text", "two-columns"]


def _sides(keys: str, policy: str, seed: int = 5) -> tuple[pa.Table, pa.Table]:
    rng = np.random.default_rng(seed)
    n, k = 400, 90
    truth = rng.integers(0, k, size=n)
    pred = truth.copy()
    moved = rng.random(n) < 0.3
    pred[moved] = rng.integers(0, k, size=int(moved.sum()))
    pred[:40] = 7  # one larger predicted cluster: stars and shared rows
    ids = rng.permutation(n) * 3 + 1
    t_keys: Any = truth
    p_keys: Any = pred - 50
    if keys == "gaps":  # offsets with a few unused codes
        t_keys, p_keys = truth * 2, pred * 3 - 100
    elif keys == "sparse":  # offsets too sparse to be codes (range beyond 4 per group)
        t_keys, p_keys = truth * 25, pred * 30
    elif keys == "far":  # a range beyond 4 per record: keys hashed as they are
        t_keys, p_keys = truth * 10**15 - 2**62, pred * 7 * 10**14 + 3
    elif keys in ("text", "two-columns"):
        t_keys, p_keys = [f"t{v}" for v in truth], [f"p{v}" for v in pred]
    order = rng.permutation(n)
    t = pa.table({"record_id": ids, "cluster_id": t_keys})
    p = pa.table({"record_id": ids[order], "cluster_id": np.asarray(p_keys)[order]})
    if keys == "two-columns":
        t = t.append_column("part", pa.array(truth % 3))
        p = p.append_column("part", pa.array(np.asarray(pred)[order] % 2))
    if policy != "error":
        t, p = t.slice(0, 380), p.slice(25)
    return t, p


def _same(got: Any, expected: Any) -> None:
    for name in INTEGER_STATISTICS:
        value = getattr(got, name)
        assert isinstance(value, int) and value == getattr(expected, name), name
    for name in FLOAT_STATISTICS:
        a, b = getattr(got, name), getattr(expected, name)
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (name, a, b)


def _streamed(t: Any, p: Any, **options: Any) -> tuple[Any, list[str]]:
    """The streamed statistics and the tables of the connection afterwards."""

    def work(con: Any, policy: Any, n_t: int, n_p: int) -> tuple[Any, list[str]]:
        stats = streamed_statistics(con, ("t", "p"), (n_t, n_p), policy)
        tables = con.execute("SELECT table_name FROM information_schema.tables").fetchall()
        return stats, sorted(r[0] for r in tables)

    return loaded_pair(DuckDBEngine(), t, p, options, work)  # type: ignore[no-any-return]


@pytest.mark.parametrize("keys", KEYS)
@pytest.mark.parametrize("policy", ["error", "intersection", "twinless"])
def test_streamed_statistics_match_memory_over_many_batches(
    monkeypatch: pytest.MonkeyPatch, keys: str, policy: str
) -> None:
    monkeypatch.setattr(duckdb_stats, "_BATCH", 7)
    monkeypatch.setattr(duckdb_stats, "SMALL", 11)
    monkeypatch.setattr(size_terms, "SMALL", 11)
    t, p = _sides(keys, policy)
    columns = ["cluster_id", "part"] if keys == "two-columns" else "cluster_id"
    options = {"on_mismatch": policy, "cluster_col": columns}
    reference = table_statistics(compute_table(NumpyEngine(), t, p, **options))
    got, tables = _streamed(t, p, **options)
    _same(got, reference)
    assert "cells" not in tables  # the groups went straight to NumPy
    # the engine takes this path unless the cells must come back
    stats = compute_statistics(DuckDBEngine(), t, p, cells="never", **options)  # type: ignore[arg-type]
    _same(stats, reference)
    assert stats.table is None


def test_the_codes_of_each_kind_of_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # which codes each kind of key gets (the range of the offsets, if any, and the
    # number of codes): by offset, offsets hashed, keys hashed
    seen: list[tuple[int | None, int]] = []
    finish = duckdb_stats._Codes.finish

    def spy(self: Any, m: int) -> tuple[Any, int]:
        codes, n_codes = finish(self, m)
        seen.append((None if self.lo is None else self.span, n_codes))
        return codes, n_codes

    monkeypatch.setattr(duckdb_stats._Codes, "finish", spy)
    for keys in ("gaps", "sparse", "far", "text"):
        _streamed(*_sides(keys, "error"))
    t_gaps, p_gaps, t_sparse, p_sparse, t_far, p_far, t_text, p_text = seen
    t, p = _sides("sparse", "error")
    k, r = (len(set(x.column("cluster_id").to_pylist())) for x in (t, p))
    # by offset from the smallest key of each side, the unused codes kept (of size 0)
    assert t_gaps == (2 * 89 + 1, 2 * 89 + 1) and p_gaps[0] == 3 * 89 + 1
    # offsets first, but too sparse once the groups are counted: hashed to the clusters
    assert t_sparse == (89 * 25 + 1, k) and p_sparse == (89 * 30 + 1, r)
    assert k < 89 * 25 / 4
    # too far apart for offsets, and text: hashed
    assert t_far == (None, k) and p_far == (None, r) and t_text == (None, k)
    assert p_text == (None, r)


def test_groups_arrive_in_batches_with_twinless_records_in_any(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the totals of one side only are summed over every batch, and under
    # policy="intersection" their groups are left out of each batch's pieces
    monkeypatch.setattr(duckdb_stats, "_BATCH", 3)
    t = pa.table({"record_id": np.arange(60), "cluster_id": np.arange(60) // 4})
    p = pa.table({"record_id": np.arange(5, 70), "cluster_id": np.arange(5, 70) // 6})
    for policy in ("twinless", "intersection"):
        expected = table_statistics(compute_table(NumpyEngine(), t, p, on_mismatch=policy))
        got, _ = _streamed(t, p, on_mismatch=policy)
        _same(got, expected)
        assert got.n_common == 55
    twinless, _ = _streamed(t, p, on_mismatch="twinless")
    assert (twinless.n_true_records, twinless.n_pred_records) == (60, 65)


def _errors(t: Any, p: Any, **options: Any) -> tuple[str, str]:
    """The error of the streamed path and that of the materialised join."""
    got = []
    for streamed in (True, False):

        def work(con: Any, policy: Any, n_t: int, n_p: int, streamed: bool = streamed) -> None:
            if streamed:
                streamed_statistics(con, ("t", "p"), (n_t, n_p), policy)
            else:
                checked_cells(con, ("t", "p"), (n_t, n_p), policy)

        with pytest.raises((InputError, RecordMismatchError)) as err:
            loaded_pair(DuckDBEngine(), t, p, options, work)
        got.append(str(err.value))
    return got[0], got[1]


def _table(ids: list[Any], clusters: list[Any]) -> pa.Table:
    return pa.table({"record_id": ids, "cluster_id": clusters})


def test_the_streamed_totals_raise_the_errors_of_the_join(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duckdb_stats, "_BATCH", 2)
    ok = _table([1, 2, 3, 4, 5], [1, 1, 2, 2, 3])
    # a repeated id matched on the other side: only the streamed totals show it
    streamed, joined = _errors(ok, _table([1, 2, 2, 3, 4, 5], [7, 7, 8, 8, 8, 9]))
    assert streamed == joined
    assert streamed.startswith("'pred' has 1 duplicate record ids (e.g. 2); each record")
    # a repeated id that the other side lacks
    dup = _table([1, 2, 3, 4, 5, 9, 9], ["a", "a", "b", "b", "c", "d", "e"])
    streamed, joined = _errors(dup, ok, on_mismatch="twinless")
    assert streamed == joined and streamed.startswith("'truth' has 1 duplicate record ids (e.g. 9)")
    # records of one side only, on both sides, under the default policy
    streamed, joined = _errors(_table([1, 2, 3, 4, 11], [1, 1, 2, 2, 3]), ok)
    assert streamed == joined
    assert streamed.startswith(
        "'truth' and 'pred' cover different records: 1 record(s) only in 'truth' (e.g. 11); "
        "1 record(s) only in 'pred' (e.g. 5). Pass on_mismatch='intersection'"
    )
    streamed, joined = _errors(ok, _table([8, 9], [1, 1]), on_mismatch="intersection")
    assert streamed == joined == "'truth' and 'pred' have no record in common"


#: Record keys of each kind: integers (their repeats found by flags over their span),
#: integers too far apart for flags (sorted), text (its hashes sorted; grouped by a
#: hash of it when on one side only) and keys of two columns (their parts, so too).
ID_KINDS = ["integer", "wide", "text", "two-columns"]


def _keyed(kind: str, ids: list[int], clusters: list[Any]) -> pa.Table:
    """The records ``ids`` of the clusters ``clusters`` keyed as ``kind`` says."""
    if kind == "integer":
        return _table(ids, clusters)
    if kind == "wide":
        return _table([k * 10**12 for k in ids], clusters)
    if kind == "text":
        return _table([f"r{k}" for k in ids], clusters)
    return pa.table({"src": [f"s{k % 2}" for k in ids], "record_id": ids, "cluster_id": clusters})


def _key_options(kind: str) -> dict[str, Any]:
    return {"record_col": ["src", "record_id"]} if kind == "two-columns" else {}


def _spied_reads(monkeypatch: pytest.MonkeyPatch, *, keys: bool) -> list[str]:
    """The second joins of the repeats of records of one side only, and the reads of
    the sides' keys in NumPy, as they are called; with ``keys`` false, the keys are
    never read (as where they would not fit), and each such record is grouped on
    its own."""
    from ereval.engines import _dialect, _repeats

    calls: list[str] = []
    alone_sql = _dialect.alone_sql
    monkeypatch.setattr(_dialect, "alone_sql", lambda *a: calls.append("alone") or alone_sql(*a))
    for name in ("_flagged", "_sorted"):
        read = getattr(_repeats, name)
        monkeypatch.setattr(
            _repeats, name, lambda *a, _r=read, _n=name: calls.append(_n[1:]) or _r(*a)
        )
    if not keys:
        monkeypatch.setattr(_repeats, "_way", lambda *a: None)
    return calls


@pytest.mark.parametrize("keys", [True, False], ids=["keys-read", "grouped"])
@pytest.mark.parametrize("kind", ID_KINDS)
@pytest.mark.parametrize("policy", ["twinless", "intersection"])
def test_the_repeats_of_records_of_one_side_only_without_a_second_join(
    monkeypatch: pytest.MonkeyPatch, policy: str, kind: str, keys: bool
) -> None:
    # sides of unequal rows hold records of one side only, whose repeats the rows'
    # counts do not show: integer keys over a narrow span are read in NumPy as flags,
    # on both ways of running the join (streamed, and into the table of cells); other
    # keys, and integers where their flags would not fit, the join groups each such
    # record on its own, so that a repeated one shows. With as many rows on both
    # sides, a record of one side only shows in the totals: each side's keys are then
    # read (flags, else the keys or their hashes sorted), else a second join looks.
    monkeypatch.setattr(duckdb_stats, "_BATCH", 2)
    calls = _spied_reads(monkeypatch, keys=keys)
    flagged = keys and kind == "integer"
    read = 4 * ["flagged"] if flagged else []
    keyed = functools.partial(_keyed, kind)
    options = {"on_mismatch": policy, **_key_options(kind)}
    ok = keyed([1, 2, 3, 4, 5], [1, 1, 2, 2, 3])
    cases = [
        # (truth, pred, what the error begins with): a repeat in one cluster, three
        # rows of one record, a repeat in two clusters
        (keyed([1, 2, 3, 4, 5, 9, 9], [1, 1, 2, 2, 3, 4, 4]), ok, "'truth' has 1 duplicate"),
        (ok, keyed([1, 2, 3, 4, 8, 8, 8, 6], [5, 5, 5, 6, 7, 7, 7, 6]), "'pred' has 2 duplicate"),
        (keyed([1, 2, 3, 4, 5, 9, 9, 7], [1, 1, 2, 2, 3, 4, 5, 6]), ok, "'truth' has 1 duplicate"),
    ]
    for truth, pred, begins in cases:
        calls.clear()
        streamed, joined = _errors(truth, pred, **options)
        assert streamed == joined and streamed.startswith(begins)
        assert calls == read
    # the same rows on both sides, a record of one side only on each
    t, p = keyed([1, 2, 3, 9, 9], [1, 1, 2, 2, 3]), keyed([1, 2, 3, 4, 5], [1, 2, 2, 3, 3])
    calls.clear()
    streamed, joined = _errors(t, p, **options)
    assert streamed == joined and streamed.startswith("'truth' has 1 duplicate record ids (e.g. ")
    assert calls == (4 * ["flagged" if flagged else "sorted"] if keys else ["alone", "alone"])
    # no repeat: the statistics of records of one side only
    calls.clear()
    _same_as_in_memory(*_lone_sides(kind), options)
    assert calls == read


def _lone_sides(kind: str) -> tuple[pa.Table, pa.Table]:
    """Two sides of unequal rows, each with records of its own, keyed as ``kind`` says."""
    t = _keyed(kind, list(range(40)), [k // 3 for k in range(40)])
    p = _keyed(kind, list(range(10, 60)), [k // 4 for k in range(10, 60)])
    return t, p


def _same_as_in_memory(t: pa.Table, p: pa.Table, options: dict[str, Any]) -> None:
    """The streamed statistics, and those of the table of cells (its records of one
    side only counted by cluster again), are NumPy's."""
    expected = compute_table(NumpyEngine(), t, p, **options)
    got, _ = _streamed(t, p, **options)
    _same(got, table_statistics(expected))
    cells = compute_statistics(DuckDBEngine(), t, p, cells="always", **options)
    assert cells.table is not None
    for name in ("counts", "true_sizes", "pred_sizes"):
        np.testing.assert_array_equal(getattr(cells.table, name), getattr(expected, name))
    _same(cells, table_statistics(expected))


@pytest.mark.parametrize("kind", ["text", "two-columns"])
def test_keys_of_one_hash_look_like_a_repeat_that_the_sides_do_not_hold(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # sides of as many rows, with records of one side only: the sorted hashes of text
    # and parts take two keys of one hash for a repeat. With half of the keys given
    # one hash and half another, the sides are then looked at for the repeat, which
    # they do not hold; the statistics are those in memory, and a real repeat is
    # still named
    from ereval.engines import _repeats
    from ereval.statistics import _cells

    calls = _spied_reads(monkeypatch, keys=True)
    monkeypatch.setattr(_repeats, "KEY_HASH", "hash(r) % 2")
    looked: list[str] = []
    unique = _cells.check_unique
    monkeypatch.setattr(_cells, "check_unique", lambda c, v, n: looked.append(n) or unique(c, v, n))
    t = _keyed(kind, list(range(40)), [k // 3 for k in range(40)])
    p = _keyed(kind, list(range(10, 50)), [k // 4 for k in range(10, 50)])
    for policy in ("twinless", "intersection"):
        calls.clear()
        looked.clear()
        _same_as_in_memory(t, p, {"on_mismatch": policy, **_key_options(kind)})
        assert calls == 4 * ["sorted"] and looked == 2 * ["truth", "pred"]
    t = _keyed(kind, [1, 2, 3, 4, 5, 9, 9], [1, 1, 2, 2, 3, 4, 4])
    p = _keyed(kind, [1, 2, 3, 4, 5, 6, 7], [1, 1, 2, 2, 3, 3, 3])
    streamed, joined = _errors(t, p, on_mismatch="twinless", **_key_options(kind))
    assert streamed == joined and streamed.startswith("'truth' has 1 duplicate")


@pytest.mark.parametrize("kind", ID_KINDS)
def test_keys_of_text_or_parts_of_one_side_only_are_grouped_by_their_hash(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # where the sides' keys are not read, text and keys of several columns group by a
    # 64-bit hash; when every record of one side only of a side is given one hash (a
    # collision on each side, which looks like a repeat), the join groups them again
    # by their keys: the statistics and the table of cells are still those in memory
    from ereval.engines import _dialect

    _spied_reads(monkeypatch, keys=False)
    grouped: list[bool] = []
    original = _dialect.cells_and_lone_records_sql

    def spy(*sides: str, hashed: bool = False) -> str:
        grouped.append(hashed)
        return original(*sides, hashed=hashed)

    monkeypatch.setattr(_dialect, "cells_and_lone_records_sql", spy)
    t, p = _lone_sides(kind)
    hashed = kind in ("text", "two-columns")
    one_hash = "CASE WHEN t.r IS NULL OR p.r IS NULL THEN CAST(t.r IS NULL AS UBIGINT) END"
    for collide in (False, True):
        if collide:
            monkeypatch.setattr(_dialect, "HASHED_ALONE_KEY", one_hash)
        for policy in ("twinless", "intersection"):
            grouped.clear()
            _same_as_in_memory(t, p, {"on_mismatch": policy, **_key_options(kind)})
            again = [False] if collide and hashed else []
            assert grouped == 2 * [hashed, *again]


def test_the_keys_grouped_by_their_hash_are_text_and_parts_of_text_and_integers() -> None:
    con = DuckDBDatabase(DuckDBEngine())
    kinds = {
        "'a'": True,
        "{'k0': 'a', 'k1': 3::BIGINT}": True,
        "{'k0': 3::UINTEGER, 'k1': 4::HUGEINT}": True,
        "3::BIGINT": False,  # as narrow as its hash, and exact
        "3.5::DOUBLE": False,  # grouped by themselves, as before
        "{'k0': 'a', 'k1': 3.5::DOUBLE}": False,
        "DATE '2020-01-01'": False,
        "['a']": False,
    }
    for value, hashed in kinds.items():
        assert hashed_keys(con, f"(SELECT {value} AS r)") is hashed, value


def test_text_keys_of_one_record_each_and_one_group() -> None:
    one = _table(["x"], ["a"])
    got, _ = _streamed(one, one)
    assert (got.n_cells, got.n_true_clusters, got.exact_matches, got.pairs_both) == (1, 1, 1, 0)


def test_an_error_met_while_streaming_is_duckdb_s(monkeypatch: pytest.MonkeyPatch) -> None:
    con = DuckDBDatabase(DuckDBEngine())
    query = "SELECT CAST(CASE WHEN range > 50000 THEN 'x' ELSE '1' END AS INT) FROM range(90000)"
    with pytest.raises(duckdb.Error, match=r"^Conversion Error: Could not convert string 'x'"):
        for _ in con.fetch_batches(query, 100):
            pass


def test_duckdb_s_memory_is_lent_to_numpy_and_set_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duckdb_engine, "LEND_FROM", 0)
    limits = []
    lend = DuckDBDatabase._lend_memory

    def spy(db: Any) -> Any:
        limits.append(db.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])
        return lend(db)

    monkeypatch.setattr(DuckDBDatabase, "_lend_memory", spy)
    t, p = _sides("dense", "error")

    def work(con: Any, policy: Any, n_t: int, n_p: int) -> tuple[Any, str]:
        stats = streamed_statistics(con, ("t", "p"), (n_t, n_p), policy)
        return stats, con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]

    stats, after = loaded_pair(DuckDBEngine(memory_limit="300MB"), t, p, {}, work)
    # lent once, then set back (DuckDB shows it to 0.1 MiB)
    assert len(limits) == 1 and limits[0].endswith(" MiB") and after.endswith(" MiB")
    assert abs(float(after[:-4]) - float(limits[0][:-4])) <= 0.11
    _same(stats, table_statistics(compute_table(NumpyEngine(), t, p)))


def test_running_out_of_memory_while_streaming_is_duckdb_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # DuckDB's error as Arrow gives it mid-stream: the engine's one-line error
    class Reader:
        def read_next_batch(self) -> Any:
            raise OSError("Out of Memory Error: could not allocate block of size 256.0 KiB")

    class Relation:
        def to_arrow_reader(self, size: int) -> Reader:
            return Reader()

    monkeypatch.setattr(duckdb.DuckDBPyConnection, "sql", lambda self, query: Relation())
    t = _table([1, 2], [1, 1])
    with pytest.raises(InputError) as err:
        compute_statistics(DuckDBEngine(memory_limit="64MB"), t, t)
    assert str(err.value).startswith(
        "'memory_limit' 64MB is too small for DuckDB to finish (Out of Memory Error: could not "
    )
