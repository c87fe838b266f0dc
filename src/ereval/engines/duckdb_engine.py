"""Build the contingency table inside DuckDB, straight from CSV or Parquet files.

The files are never loaded into Python: DuckDB validates them, joins the two
clusterings on the record id and groups by the pair of cluster ids, out of core
when needed. Only the non-zero cells and the marginals (at most one row per
record, usually far fewer) come back, as a
:class:`~ereval.contingency.ContingencyTable`; every metric is then computed
from it exactly as with the in-memory engine, so both engines give identical
numbers.

Files are read by the rules of :mod:`ereval.files` (the same as the in-memory
engine): the id columns of a CSV file are text exactly as written, Parquet
keeps its types, and ids of different kinds on the two sides are an error
unless ``id_type="string"``.
"""

from __future__ import annotations

import os
import re
from typing import Any, Unpack

import numpy as np

from .._errors import InputError, RecordMismatchError
from .._optional import require
from .._validation import check_choice, examples
from ..contingency import (
    MISMATCH_POLICIES,
    AlignOptions,
    ContingencyTable,
    id_type_error,
)
from ..files import FileSpec, file_spec, header
from ..io import column_names

__all__ = ["duckdb_contingency_table"]

_MEMORY = re.compile(r"^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


def source_sql(spec: FileSpec) -> str:
    """The DuckDB table function reading ``spec`` by the rules of :mod:`ereval.files`."""
    path = _quote(str(spec.path))
    if spec.format == "parquet":
        return f"read_parquet({path})"
    columns = ", ".join(f"{_quote(c)}: 'VARCHAR'" for c in header(spec))
    compression = "gzip" if spec.gzip else "none"
    return (
        f"read_csv({path}, header = true, auto_detect = false, columns = {{{columns}}}, "
        f"delim = {_quote(spec.delimiter)}, quote = '\"', escape = '\"', nullstr = '', "
        f"compression = '{compression}')"
    )


def _kind(duck_type: str) -> str:
    t = duck_type.upper()
    if t == "VARCHAR":
        return "text"
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT") or t.startswith("U"):
        return "integer"
    if t in ("FLOAT", "DOUBLE") or t.startswith("DECIMAL"):
        return "float"
    if t == "BOOLEAN":
        return "boolean"
    return t.lower()


def _key_sql(cols: list[str], types: dict[str, str], *, name: str) -> tuple[str, str]:
    """SQL of the key of ``cols`` and its kind (a JSON array text for several columns)."""
    if len(cols) == 1:
        return _ident(cols[0]), _kind(types[cols[0]])
    parts = []
    for c in cols:
        kind = _kind(types[c])
        if kind == "text":
            escaped = f"replace(replace({_ident(c)}, '\\', '\\\\'), '\"', '\\\"')"
            parts.append(f"'\"' || {escaped} || '\"'")
        elif kind == "integer":
            parts.append(f"CAST({_ident(c)} AS VARCHAR)")
        else:
            raise InputError(
                f"'{name}': column '{c}' of a key made of several columns must hold integers "
                f"or text; it holds {kind} values"
            )
    return "'[' || " + " || ',' || ".join(parts) + " || ']'", "text"


def _examples(con: Any, sql: str) -> str:
    rows = con.execute(sql + " LIMIT 3").fetchall()
    return examples([r[0] for r in rows])


def _load(
    con: Any,
    view: str,
    path: str | os.PathLike[str],
    *,
    name: str,
    record_cols: list[str],
    cluster_cols: list[str],
    as_text: bool,
) -> str:
    """Create the temporary table ``view(r, c)`` and return the kind of its record ids."""
    spec = file_spec(path, name=name)
    source = source_sql(spec)
    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
    except Exception as exc:  # DuckDB raises its own error types for unreadable files
        raise InputError(
            f"'{name}': cannot read '{spec.path}' ({type(exc).__name__}: {exc})"
        ) from exc
    types = {str(r[0]): str(r[1]) for r in described}
    missing = [c for c in record_cols + cluster_cols if c not in types]
    if missing:
        cols = list(types)
        raise InputError(
            f"'{name}' has no column(s) {', '.join(repr(m) for m in missing)}; "
            f"its columns are {cols[:10]!r}{' ...' if len(cols) > 10 else ''} "
            "(set 'record_col' / 'cluster_col' to choose others)"
        )
    r_sql, r_kind = _key_sql(record_cols, types, name=name)
    c_sql, c_kind = _key_sql(cluster_cols, types, name=name)
    if as_text and r_kind != "text":
        if r_kind != "integer":
            raise InputError(
                f"'{name}': only integer and text ids can be compared as text; "
                f"received {r_kind} ids"
            )
        r_sql, r_kind = f"CAST({r_sql} AS VARCHAR)", "text"
    con.execute(f"CREATE TEMP TABLE {view} AS SELECT {r_sql} AS r, {c_sql} AS c FROM {source}")
    empty_r = " OR r = ''" if r_kind == "text" else ""
    empty_c = " OR c = ''" if c_kind == "text" else ""
    n, n_null_r, n_null_c = con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE r IS NULL{empty_r}), "
        f"count(*) FILTER (WHERE c IS NULL{empty_c}) FROM {view}"
    ).fetchone()
    if n == 0:
        raise InputError(f"'{name}' is empty; expected at least one record")
    if n_null_r:
        raise InputError(f"'{name}' has {n_null_r} missing record ids (empty, null or NaN)")
    if n_null_c:
        raise InputError(f"'{name}' has {n_null_c} missing cluster ids (empty, null or NaN)")
    return r_kind


def _check_unique(con: Any, view: str, name: str) -> None:
    n, n_distinct = con.execute(f"SELECT count(*), count(DISTINCT r) FROM {view}").fetchone()
    if n_distinct != n:
        ex = _examples(con, f"SELECT r FROM {view} GROUP BY r HAVING count(*) > 1 ORDER BY r")
        raise InputError(
            f"'{name}' has {n - n_distinct} duplicate record ids (e.g. {ex}); "
            "each record must belong to exactly one cluster"
        )


def duckdb_contingency_table(
    truth: str | os.PathLike[str],
    pred: str | os.PathLike[str],
    *,
    memory_limit: str | None = None,
    threads: int | None = None,
    **options: Unpack[AlignOptions],
) -> ContingencyTable:
    """The contingency table of two clustering files, computed by DuckDB.

    Parameters
    ----------
    truth, pred : path
        CSV (optionally gzipped), TSV or Parquet files.
    memory_limit : str, optional
        DuckDB memory limit (e.g. ``"4GB"``); beyond it DuckDB spills to disk.
    threads : int, optional
        Number of DuckDB threads (default: all cores).
    **options
        As in :func:`ereval.contingency.align` (``on_mismatch``, the column
        options, ``id_type``).

    Returns
    -------
    ContingencyTable
        Identical to the in-memory table.
    """
    duckdb = require("duckdb", feature="the DuckDB engine")
    policy = check_choice("on_mismatch", options.get("on_mismatch", "error"), MISMATCH_POLICIES)
    id_type = check_choice("id_type", options.get("id_type", "exact"), ("exact", "string"))
    if memory_limit is not None and not _MEMORY.match(str(memory_limit)):
        raise InputError(
            f"'memory_limit' must look like '4GB' or '512MB'; received {memory_limit!r}"
        )
    rc = options.get("record_col", "record_id")
    cc = options.get("cluster_col", "cluster_id")
    sides = {
        "truth": (
            column_names(options.get("truth_record_col") or rc, name="truth_record_col"),
            column_names(options.get("truth_cluster_col") or cc, name="truth_cluster_col"),
        ),
        "pred": (
            column_names(options.get("pred_record_col") or rc, name="pred_record_col"),
            column_names(options.get("pred_cluster_col") or cc, name="pred_cluster_col"),
        ),
    }
    con = duckdb.connect()
    try:
        if memory_limit is not None:
            con.execute(f"SET memory_limit = {_quote(str(memory_limit))}")
        if threads is not None:
            con.execute(f"SET threads = {int(threads)}")
        kt, kp = (
            _load(
                con,
                view,
                path,
                name=side,
                record_cols=sides[side][0],
                cluster_cols=sides[side][1],
                as_text=id_type == "string",
            )
            for view, path, side in (("t", truth, "truth"), ("p", pred, "pred"))
        )
        if kt != kp:
            ex_t = [r[0] for r in con.execute("SELECT r FROM t LIMIT 2").fetchall()]
            ex_p = [r[0] for r in con.execute("SELECT r FROM p LIMIT 2").fetchall()]
            raise id_type_error(kt, kp, ex_t, ex_p)
        _check_unique(con, "t", "truth")
        _check_unique(con, "p", "pred")
        only_t = con.execute("SELECT count(*) FROM t ANTI JOIN p USING (r)").fetchone()[0]
        only_p = con.execute("SELECT count(*) FROM p ANTI JOIN t USING (r)").fetchone()[0]
        if (only_t or only_p) and policy == "error":
            parts = []
            if only_t:
                ex = _examples(con, "SELECT r FROM t ANTI JOIN p USING (r) ORDER BY r")
                parts.append(f"{only_t} record(s) only in 'truth' (e.g. {ex})")
            if only_p:
                ex = _examples(con, "SELECT r FROM p ANTI JOIN t USING (r) ORDER BY r")
                parts.append(f"{only_p} record(s) only in 'pred' (e.g. {ex})")
            raise RecordMismatchError(
                "'truth' and 'pred' cover different records: "
                + "; ".join(parts)
                + ". Pass on_mismatch='intersection' to score the common records only, or "
                "on_mismatch='twinless' to score twinless records as coreference scorers do."
            )
        if (only_t or only_p) and policy == "intersection":
            con.execute("DELETE FROM t WHERE r NOT IN (SELECT r FROM p)")
            con.execute("DELETE FROM p WHERE r NOT IN (SELECT r FROM t)")
            if con.execute("SELECT count(*) FROM t").fetchone()[0] == 0:
                raise RecordMismatchError("'truth' and 'pred' have no record in common")
        for side in ("t", "p"):
            con.execute(
                f"CREATE TEMP TABLE {side}k AS SELECT c, (row_number() OVER (ORDER BY c)) - 1 "
                f"AS code, n FROM (SELECT c, count(*) AS n FROM {side} GROUP BY c)"
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
