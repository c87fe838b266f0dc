"""Build the contingency table inside DuckDB, straight from CSV or Parquet files.

The files are never loaded into Python: DuckDB validates them, joins the two
clusterings on the record id and groups by the pair of cluster ids, out of core
when needed. Only the non-zero cells and the marginals (at most one row per
record, usually far fewer) come back, as a
:class:`~ereval.contingency.ContingencyTable`; every metric is then computed
from it exactly as with the in-memory engine, so both engines give identical
numbers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import InputError, RecordMismatchError
from .._optional import require
from .._validation import check_choice
from ..contingency import _POLICIES, ContingencyTable, MismatchPolicy
from ..io import _suffix

__all__ = ["duckdb_contingency_table"]


def _reader(path: Path, name: str) -> str:
    if not path.exists():
        raise InputError(f"'{name}': file not found: '{path}'")
    kind = _suffix(path)
    quoted = "'" + str(path).replace("'", "''") + "'"
    if kind in (".parquet", ".pq"):
        return f"read_parquet({quoted})"
    if kind in (".csv", ".csv.gz", ".txt", ".txt.gz"):
        return f"read_csv({quoted}, header = true)"
    if kind in (".tsv", ".tsv.gz"):
        return f"read_csv({quoted}, header = true, delim = '\\t')"
    raise InputError(
        f"'{name}': expected a file ending in .csv, .csv.gz, .tsv or .parquet; received '{path}'"
    )


def _ident(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


def _examples(con: Any, sql: str) -> str:
    rows = con.execute(sql + " LIMIT 3").fetchall()
    return ", ".join(repr(r[0]) for r in rows)


def _load(con: Any, view: str, path: Path, name: str, record_col: str, cluster_col: str) -> None:
    source = _reader(path, name)
    try:
        columns = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]
    except Exception as exc:  # DuckDB raises its own error types for unreadable files
        raise InputError(f"'{name}': cannot read '{path}' ({type(exc).__name__}: {exc})") from exc
    missing = [c for c in (record_col, cluster_col) if c not in columns]
    if missing:
        raise InputError(
            f"'{name}' has no column(s) {', '.join(repr(m) for m in missing)}; its columns are {columns[:10]!r}"
        )
    con.execute(
        f"CREATE TEMP TABLE {view} AS SELECT {_ident(record_col)} AS r, {_ident(cluster_col)} AS c FROM {source}"
    )
    n, n_null_r, n_null_c, n_distinct = con.execute(
        f"SELECT count(*), count(*) - count(r), count(*) - count(c), count(DISTINCT r) FROM {view}"
    ).fetchone()
    if n == 0:
        raise InputError(f"'{name}' is empty; expected at least one record")
    if n_null_r:
        raise InputError(f"'{name}' has {n_null_r} missing record ids")
    if n_null_c:
        raise InputError(f"'{name}' has {n_null_c} missing cluster ids")
    if n_distinct != n:
        ex = _examples(con, f"SELECT r FROM {view} GROUP BY r HAVING count(*) > 1")
        raise InputError(
            f"'{name}' has {n - n_distinct} duplicate record ids (e.g. {ex}); "
            "each record must belong to exactly one cluster"
        )


def duckdb_contingency_table(
    truth: str | os.PathLike[str],
    pred: str | os.PathLike[str],
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
    memory_limit: str | None = None,
    threads: int | None = None,
) -> ContingencyTable:
    """The contingency table of two clustering files, computed by DuckDB.

    Parameters
    ----------
    truth, pred : path
        CSV (optionally gzipped), TSV or Parquet files with columns
        ``record_col`` and ``cluster_col``.
    on_mismatch : {"error", "intersection", "twinless"}, default "error"
        As in :func:`ereval.contingency.align`.
    memory_limit : str, optional
        DuckDB memory limit (e.g. ``"4GB"``); beyond it DuckDB spills to disk.
    threads : int, optional
        Number of DuckDB threads (default: all cores).

    Returns
    -------
    ContingencyTable
        Identical (up to the order of cluster codes) to the in-memory table.
    """
    duckdb = require("duckdb", feature="the DuckDB engine")
    policy = check_choice("on_mismatch", on_mismatch, _POLICIES)
    con = duckdb.connect()
    try:
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'")
        if threads is not None:
            con.execute(f"SET threads = {int(threads)}")
        _load(con, "t", Path(truth), "truth", record_col, cluster_col)
        _load(con, "p", Path(pred), "pred", record_col, cluster_col)
        only_t = con.execute("SELECT count(*) FROM t ANTI JOIN p USING (r)").fetchone()[0]
        only_p = con.execute("SELECT count(*) FROM p ANTI JOIN t USING (r)").fetchone()[0]
        if (only_t or only_p) and policy == "error":
            parts = []
            if only_t:
                parts.append(
                    f"{only_t} record(s) only in 'truth' (e.g. {_examples(con, 'SELECT r FROM t ANTI JOIN p USING (r)')})"
                )
            if only_p:
                parts.append(
                    f"{only_p} record(s) only in 'pred' (e.g. {_examples(con, 'SELECT r FROM p ANTI JOIN t USING (r)')})"
                )
            raise RecordMismatchError(
                "'truth' and 'pred' cover different records: "
                + "; ".join(parts)
                + ". Pass on_mismatch='intersection' or 'twinless'."
            )
        if (only_t or only_p) and policy == "intersection":
            con.execute("DELETE FROM t WHERE r NOT IN (SELECT r FROM p)")
            con.execute("DELETE FROM p WHERE r NOT IN (SELECT r FROM t)")
            if con.execute("SELECT count(*) FROM t").fetchone()[0] == 0:
                raise RecordMismatchError("'truth' and 'pred' have no record in common")
        for side in ("t", "p"):
            con.execute(
                f"CREATE TEMP TABLE {side}k AS SELECT c, (row_number() OVER (ORDER BY c)) - 1 AS code, n "
                f"FROM (SELECT c, count(*) AS n FROM {side} GROUP BY c)"
            )
        true_sizes = con.execute("SELECT n FROM tk ORDER BY code").fetchnumpy()["n"]
        pred_sizes = con.execute("SELECT n FROM pk ORDER BY code").fetchnumpy()["n"]
        cells = con.execute(
            "SELECT tk.code AS i, pk.code AS j, count(*) AS n FROM t JOIN p USING (r) "
            "JOIN tk ON t.c = tk.c JOIN pk ON p.c = pk.c GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchnumpy()
    finally:
        con.close()
    return ContingencyTable(
        np.asarray(cells["i"], dtype=np.int64),
        np.asarray(cells["j"], dtype=np.int64),
        np.asarray(cells["n"], dtype=np.int64),
        np.asarray(true_sizes, dtype=np.int64),
        np.asarray(pred_sizes, dtype=np.int64),
        policy,
    )
