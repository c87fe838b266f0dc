"""Memory-bounded plans for the DuckDB engine: the join of two clusterings in passes.

A single DuckDB join + GROUP BY over every record may run out of memory under a
memory limit on some input shapes (keys ascending part by part, the two sides in
opposite orders), even though DuckDB spills. The plan therefore splits the work
so that each piece fits: both sides are hash-partitioned by record key into
``P`` passes, the partition ``q = hash(r) % P`` of every row computed once (a
temporary table, spilled to the temporary directory past the limit); pass ``k``
joins and groups the rows with ``q = k`` only. A record falls in exactly one
pass, on both sides, so a cell ``(tc, pc)`` of the contingency table is the sum
of its counts over the passes,

.. math::  n_{tc,pc} = \\sum_{k=0}^{P-1} n^{(k)}_{tc,pc},

and the passes' groups are merged by a GROUP BY over them, itself split by
``hash(tc, pc) % M`` (a cell falls in one merge pass; ``M`` from
:func:`merge_count`, fewer than ``P``). Every statistic is then
computed from the merged cells exactly as from a single join.

``P`` is chosen from the memory limit and the rows (:func:`pass_count`). A pass
that still runs out of memory is split in two (``hash % 2m`` in ``{k, k + m}``
for ``hash % m = k``) and run again, down to :data:`MAX_MODULUS` passes.

References
----------
Shapiro, L. D. (1986). Join processing in database systems with large main
memories. ACM TODS 11(3), 239-264 (the GRACE hash join: partition both sides by
a hash of the join key, then join partition by partition).
"""

from __future__ import annotations

import math
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .._errors import InputError
from . import _dialect as sql
from ._sources import hashed_keys

__all__ = [
    "FIRST_TRY",
    "MAX_MODULUS",
    "MERGE_ROW_BYTES",
    "ROW_BYTES",
    "Pass",
    "alone_repeats",
    "check_memory_size",
    "in_passes",
    "key_hash",
    "limit_bytes",
    "over_limit",
    "pass_count",
    "planned_cells",
    "run_split",
]

T = TypeVar("T")

#: Bytes of DuckDB memory a row of the join needs, both sides counted (its hash
#: table, the probe's buffers and the groups): measured at 1 GB on the shape
#: where a single join fails, with a margin.
ROW_BYTES = 160
#: Bytes of DuckDB memory a joined record takes in the merge of the passes' groups
#: (a GROUP BY, which DuckDB spills): the merge runs in fewer passes than the join,
#: each pass of the join writing one file per merge pass.
MERGE_ROW_BYTES = 16
#: The share of the memory limit a pass is planned to use.
SHARE = 0.5
#: The most passes a plan splits into before it gives up.
MAX_MODULUS = 1 << 12
#: A plan of at most this many passes first tries one (see :func:`in_passes`).
FIRST_TRY = 12

_UNITS = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


_SIZE = re.compile(r"^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)


def check_memory_size(name: str, value: str | None, *, minimum: str, why: str) -> str | None:
    """``value`` if it is a memory size such as ``"2GB"`` or ``"512MiB"`` of at least
    ``minimum`` (``why``: the reason for the minimum, said when it is not met).

    Examples
    --------
    >>> check_memory_size("memory_limit", " 2GB", minimum="32MB", why="buffers")
    '2GB'
    """
    if value is None:
        return None
    if not isinstance(value, str) or not _SIZE.match(value):
        raise InputError(f"'{name}' must be a size such as '2GB' or '512MB'; received {value!r}")
    if limit_bytes(value) < limit_bytes(minimum):
        raise InputError(f"'{name}' must be at least {minimum} ({why}); received {value.strip()!r}")
    return value.strip()


def limit_bytes(limit: str) -> int:
    """The bytes of a DuckDB memory size such as ``"2GB"`` or ``"512MiB"``.

    Examples
    --------
    >>> limit_bytes("1GB"), limit_bytes("1.5 KiB")
    (1000000000, 1536)
    """
    got = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$", limit)
    if got is None or got.group(2).lower() not in _UNITS:
        raise ValueError(f"not a memory size: {limit!r}")
    return int(float(got.group(1)) * _UNITS[got.group(2).lower()])


def over_limit(db: Any, need: int) -> str | None:
    """How far ``need`` bytes held in memory outrun what the memory limit of ``db`` (a
    :class:`~ereval.engines.Database`) leaves, as words for an error
    (``"some 879 MB, more than the 150 MB the memory limit leaves"``); ``None`` when
    they fit, or without a limit."""
    budget = db.memory_bytes()
    if budget is None or need <= budget:
        return None
    return f"some {_mb(need)}, more than the {_mb(budget)} the memory limit leaves"


def _mb(size: int) -> str:
    return f"{-(-size // 10**6):,} MB"


def pass_count(rows: int, limit: int | None, *, row_bytes: int = ROW_BYTES) -> int:
    """The passes for a join of ``rows`` rows (both sides) under ``limit`` bytes:
    ``ceil(rows * row_bytes / (SHARE * limit))``, 1 without a limit.

    Examples
    --------
    >>> pass_count(10**8, 10**9), pass_count(10**6, 10**9), pass_count(10**6, None)
    (32, 1, 1)
    """
    if limit is None or rows <= 0:
        return 1
    return max(1, min(MAX_MODULUS, math.ceil(rows * row_bytes / (SHARE * limit))))


@dataclass(frozen=True)
class Pass:
    """The rows with ``hash % modulus = residue`` (``modulus`` a multiple of the
    plan's pass count, the partition column ``q`` being ``hash % P``)."""

    modulus: int
    residue: int

    def where(self, column: str, hashed: str, planned: int) -> str:
        """The SQL predicate of this pass over the partition ``column`` (``hash %
        planned``), with the finer one on ``hashed`` (the hash itself) once split."""
        own = f"{column} = {self.residue % planned}"
        if self.modulus == planned:
            return own
        return f"{own} AND {hashed} % {self.modulus} = {self.residue}"

    def split(self) -> tuple[Pass, Pass]:
        """The two halves of this pass."""
        m = 2 * self.modulus
        return Pass(m, self.residue), Pass(m, self.residue + self.modulus)


def run_split(
    planned: int,
    run: Callable[[Pass], None],
    out_of_memory: type[BaseException] | tuple[type[BaseException], ...],
    *,
    after: Callable[[int], None] | None = None,
) -> int:
    """``run(piece)`` for each of the ``planned`` passes, a piece that raises
    ``out_of_memory`` split in two and run again (up to :data:`MAX_MODULUS`),
    then ``after(k)`` once every piece of pass ``k`` has run; the number of
    pieces run."""
    done = 0
    for k in range(planned):
        todo = [Pass(planned, k)]
        while todo:
            piece = todo.pop()
            try:
                run(piece)
            except out_of_memory:
                if piece.modulus * 2 > MAX_MODULUS:
                    raise
                todo.extend(reversed(piece.split()))
                continue
            done += 1
        if after is not None:
            after(k)
    return done


def in_passes(db: Any, rows: int, run: Callable[[int], T], *, leaves: Sequence[str]) -> T:
    """``run(passes)`` in the passes of ``db.pass_plan(rows)``: the first try, then, if
    a single pass runs out of memory, the tables it ``leaves`` dropped and the
    fallback's passes (each pass split further as needed by :func:`run_split`).

    At 10^7 records per side under 1 GB (7 planned passes) one pass fits on every
    shape of ``benchmarks/bench_shapes.py`` and costs some 25% less CPU than
    writing and reading the partitions; the plan stays the answer when it does not
    fit."""
    first, fallback = db.pass_plan(rows)
    try:
        return run(first)
    except db.out_of_memory:
        if first > 1:
            raise
    for table in leaves:
        db.execute(f"DROP TABLE IF EXISTS {table}")
    return run(fallback)


_FLOATS = ("FLOAT", "DOUBLE", "DECIMAL", "REAL")
#: A struct of the parts of a key (:func:`ereval.engines._dialect.parts_sql`): its fields.
_STRUCT = re.compile(r"^STRUCT\((.*)\)$")
_FIELD = re.compile(r"^k(\d+) (.+)$")


def _part_types(duck_type: str) -> list[str] | None:
    """The types of the fields ``k0, k1, ...`` of a struct of a key's parts, in order;
    ``None`` for any other type."""
    struct = _STRUCT.match(duck_type)
    if struct is None:
        return None
    fields = [_FIELD.match(field) for field in struct.group(1).split(", ")]
    if not all(f is not None and f.group(1) == str(k) for k, f in enumerate(fields)):
        return None
    return [f.group(2) for f in fields if f is not None]


def key_hash(con: Any, sides: Sequence[str]) -> str:
    """The SQL hash of the record key ``r`` of ``sides`` (views or queries in
    parentheses) that puts equal keys in the same pass, whatever type each side reads
    them as. DuckDB hashes a negative integer differently in each width (``-1`` as an
    INTEGER and as a BIGINT): where the sides' types differ, integers are hashed as
    HUGEINTs (every 64-bit value, exactly), floats as doubles, and a struct of a key's
    parts field by field so."""
    types = [str(con.execute(f"DESCRIBE SELECT r FROM {side}").fetchall()[0][1]) for side in sides]
    if any(t.startswith(_FLOATS) for t in types):
        return "hash(CAST(r AS DOUBLE))"
    if len(set(types)) == 1:
        return "hash(r)"
    parts = [_part_types(t) for t in types]
    if all(p is not None for p in parts):
        typed = zip(*(p for p in parts if p is not None), strict=True)  # a part's type per side
        return "hash(" + ", ".join(_common(f"r.k{k}", t) for k, t in enumerate(typed)) + ")"
    return f"hash({_common('r', types)})"


def _common(value: str, types: Sequence[str]) -> str:
    """The SQL hash argument of ``value``, read as ``types`` on the sides: integers of
    several types as HUGEINTs, ``value`` itself otherwise."""
    if len(set(types)) > 1 and all(sql.NUMPY_INTEGER.fullmatch(t) for t in types):
        return f"CAST({value} AS HUGEINT)"
    return value


#: DuckDB types that a Parquet file gives back as they were written (a HUGEINT,
#: say, would come back as a DOUBLE): the plan writes its partitions as files
#: only for sides of these types, and keeps them in DuckDB's tables otherwise.
_EXACT_IN_PARQUET = re.compile(
    r"^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|"
    r"FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|VARCHAR|BLOB|DATE)$"
)


def _exact_in_parquet(duck_type: str) -> bool:
    """Whether a Parquet file gives back values of ``duck_type`` as they were written:
    one of :data:`_EXACT_IN_PARQUET`, or a struct of the parts of a key whose
    fields all are."""
    parts = _part_types(duck_type)
    if parts is None:
        return _EXACT_IN_PARQUET.match(duck_type) is not None
    return all(_EXACT_IN_PARQUET.match(t) for t in parts)


#: Bytes of DuckDB memory a row of a partition being written takes (its buffers).
_WRITE_ROW_BYTES = 64
#: The share of the memory limit the buffers of the partitions being written take.
_WRITE_SHARE = 0.25


def planned_cells(con: Any, sides: tuple[str, str], planned: int) -> tuple[str, tuple[int, int]]:
    """The groups of :func:`ereval.engines._dialect.cells_sql` over ``sides`` (views or
    queries in parentheses with the columns ``r`` and ``c``), computed in
    ``planned`` passes (more when a pass runs out of memory) into the temporary
    table ``cells``; its name, and the surplus rows of the records repeated among
    those of the truth's only and of the prediction's only (each pass keeps the
    key of such a record, or its 64-bit hash where the key is text or parts, so that
    two keys of one hash count as a repeat, and a GROUP BY counts the repeats, as
    :func:`ereval.engines._dialect.alone_repeats_sql`: over each pass's rows when
    the passes are files, over all of them when tables).

    Each side is read once and written as ``planned`` partitions by
    ``hash(r) % planned`` (Parquet files in a folder of the engine's temporary
    directory, removed afterwards; DuckDB tables sorted by partition for keys of a
    type Parquet does not give back exactly). Pass ``k`` joins partition ``k`` of
    both sides and writes each joined record's ``(tc, pc)`` partitioned by
    ``hash(tc, pc) % M`` (:func:`merge_count`); merge pass ``k`` counts the
    records of partition ``k``, every cell being in one merge partition. No pass
    reads more than its own partition, and a partition's files are removed once it
    is joined (the disk holds at most the two sides' records and the joined records
    once). Keys of floats are hashed as doubles (so that equal keys of two float
    types fall in the same pass).
    """
    import duckdb

    oom = duckdb.OutOfMemoryException
    types = [
        [str(row[1]) for row in con.execute(f"DESCRIBE SELECT r, c FROM {side}").fetchall()]
        for side in sides
    ]
    hashed = key_hash(con, sides)
    # the key of a record of one side only, kept for its repeats: by a hash of it where
    # it is text or parts (two keys of one hash look like a repeat, which the checks
    # then look for in the sides themselves; the cells do not read it)
    alone = sql.HASHED_ALONE_KEY if hashed_keys(con, sides[0]) else sql.ALONE_KEY
    con.execute(f"CREATE TEMP TABLE cells (tc {types[0][1]}, pc {types[1][1]}, n BIGINT)")
    counts = (planned, merge_count(planned))
    if not all(_exact_in_parquet(t) for side in types for t in side):
        return "cells", _cells_in_tables(con, sides, counts, (hashed, alone), oom)
    with con.scratch() as folder:
        return "cells", _cells_in_files(con, sides, counts, (hashed, alone), oom, Path(folder))


def alone_repeats(con: Any, alone: str) -> tuple[int, int]:
    """The surplus rows of the records repeated among those of the truth's only and of
    the prediction's only, from ``alone(tc, ra)`` (a table, or a query in
    parentheses; :func:`ereval.engines._dialect.alone_repeats_sql`)."""
    got = dict(con.execute(sql.alone_repeats_sql(alone)).fetchall())
    return int(got.get(False) or 0), int(got.get(True) or 0)


def merge_count(planned: int) -> int:
    """The merge passes of a join in ``planned`` passes: as many as the joined records
    need at :data:`MERGE_ROW_BYTES` each where the join's passes were planned at
    :data:`ROW_BYTES` a row. Writing a file per merge pass from each join pass, a
    merge in as many passes as the join would write ``planned ** 2`` files (13,225
    at 10^8 records under 1 GB), which cost more than the join itself.

    Examples
    --------
    >>> merge_count(115), merge_count(12), merge_count(1)
    (12, 2, 1)
    """
    return max(1, math.ceil(planned * MERGE_ROW_BYTES / ROW_BYTES))


def _cells_in_files(
    con: Any,
    sides: tuple[str, str],
    counts: tuple[int, int],
    keys: tuple[str, str],
    oom: type[Exception],
    root: Path,
) -> tuple[int, int]:
    """:func:`planned_cells` with the partitions written as Parquet files under ``root``,
    in ``counts`` passes of the join and of the merge; the repeats of the records
    of one side only. ``keys``: the SQL of the hash of a record's key, and of the key
    of a record of one side only (NULL for the others)."""
    planned, merges = counts
    hashed, alone = keys
    limit = limit_bytes(
        str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]).replace(" ", "")
    )
    flush = max(2048, int(_WRITE_SHARE * limit / (planned * _WRITE_ROW_BYTES)))
    con.execute(f"SET partitioned_write_flush_threshold = {flush}")
    options = "FORMAT parquet, PARTITION_BY (q), COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 0"
    for name, side in zip(("t", "p"), sides, strict=True):
        query = f"SELECT {hashed} % {planned} AS q, r, c FROM {side}"
        con.execute(f"COPY ({query}) TO {sql.quote(str(root / name))} ({options})")

    def part(name: str, side: str, q: int) -> str:
        files = list((root / name / f"q={q}").glob("*.parquet"))
        if not files:  # no record of this side in the partition
            return f"(SELECT r, c FROM {side} LIMIT 0)"
        return _parquet_files(files)

    repeats = [0, 0]

    def join(piece: Pass) -> None:
        q = piece.residue % planned
        finer = (
            ""
            if piece.modulus == planned
            else f" WHERE {hashed} % {piece.modulus} = {piece.residue}"
        )
        t, p = (
            f"(SELECT r, c FROM {part(n, s, q)}{finer})" for n, s in zip("tp", sides, strict=True)
        )
        out = root / f"j{piece.modulus}_{piece.residue}"
        joined = (
            f"SELECT hash(t.c, p.c) % {merges} AS q, t.c AS tc, p.c AS pc, {alone} AS ra "
            f"FROM {t} AS t FULL OUTER JOIN {p} AS p ON t.r = p.r"
        )
        try:
            con.execute(f"COPY ({joined}) TO {sql.quote(str(out))} ({options})")
            # every row of a record is in this pass: its repeats are counted here, over
            # the pass's rows only (one GROUP BY over every pass's rows spilled, and
            # cost 5.5 CPU s against 3.2 at 10^8 records in two files under 1 GB)
            written = list(out.glob("q=*/*.parquet"))
            found = alone_repeats(con, _parquet_files(written)) if written else (0, 0)
        except oom:
            shutil.rmtree(out, ignore_errors=True)
            raise
        repeats[0] += found[0]
        repeats[1] += found[1]

    def drop(q: int) -> None:  # the partition is joined: its files go
        for name in ("t", "p"):
            shutil.rmtree(root / name / f"q={q}", ignore_errors=True)

    run_split(planned, join, oom, after=drop)

    def merge(piece: Pass) -> None:
        q = piece.residue % merges
        files = list(root.glob(f"j*/q={q}/*.parquet"))
        if not files:
            return
        finer = (
            ""
            if piece.modulus == merges
            else f" WHERE hash(tc, pc) % {piece.modulus} = {piece.residue}"
        )
        con.execute(
            f"INSERT INTO cells SELECT tc, pc, count(*) FROM {_parquet_files(files)}{finer} "
            "GROUP BY ALL"
        )

    run_split(merges, merge, oom)
    return repeats[0], repeats[1]


def _parquet_files(files: Sequence[Path]) -> str:
    """DuckDB's reading of the Parquet files ``files`` (in the order of their names)."""
    listed = ", ".join(sql.quote(str(f)) for f in sorted(files))
    return f"read_parquet([{listed}], hive_partitioning = false)"


def _cells_in_tables(
    con: Any,
    sides: tuple[str, str],
    counts: tuple[int, int],
    keys: tuple[str, str],
    oom: type[Exception],
) -> tuple[int, int]:
    """:func:`planned_cells` with the partitions kept in DuckDB tables sorted by
    partition (so that a pass reads the blocks of its own partition only), in
    ``counts`` passes of the join and of the merge; the repeats of the records of
    one side only (``keys`` as in :func:`_cells_in_files`)."""
    planned, merges = counts
    hashed, alone = keys
    for view, side in zip(("tq", "pq"), sides, strict=True):
        con.execute(
            f"CREATE TEMP TABLE {view} AS SELECT {hashed} % {planned} AS q, {hashed} AS h, "
            f"r, c FROM {side} ORDER BY q"
        )
    joined = (
        "SELECT hash(t.c, p.c) % {m} AS q, hash(t.c, p.c) AS h, t.c AS tc, p.c AS pc, "
        f"{alone} AS ra FROM (SELECT r, c FROM tq WHERE {{w}}) AS t FULL OUTER JOIN "
        "(SELECT r, c FROM pq WHERE {w}) AS p ON t.r = p.r"
    )
    con.execute(f"CREATE TEMP TABLE joined AS {joined.format(m=merges, w='false')}")

    def join(piece: Pass) -> None:
        con.execute(
            "INSERT INTO joined " + joined.format(m=merges, w=piece.where("q", "h", planned))
        )

    run_split(planned, join, oom)
    con.execute("DROP TABLE tq")
    con.execute("DROP TABLE pq")
    repeats = alone_repeats(con, "joined")
    con.execute("CREATE TEMP TABLE joined_sorted AS SELECT * FROM joined ORDER BY q")
    con.execute("DROP TABLE joined")
    merged = "SELECT tc, pc, count(*) FROM joined_sorted WHERE {w} GROUP BY ALL"

    def merge(piece: Pass) -> None:
        con.execute("INSERT INTO cells " + merged.format(w=piece.where("q", "h", merges)))

    run_split(merges, merge, oom)
    con.execute("DROP TABLE joined_sorted")
    return repeats
