"""A threshold curve computed where the data is (DuckDB, Spark): :class:`CurveJob`.

The pairs never come into Python whole. The engine loads the truth as the view
``t(r, c[, src])`` and the pairs as ``q(r, c, s)`` (the two record keys, read
exactly as everywhere else, and the score), then:

1. checks what :func:`ereval.io.read_scored_pairs` checks (numeric, finite
   scores; no self-pair; no pair given twice; records of the truth, or the others
   dropped; in a link-only evaluation no pair within one data set);
2. numbers the records ``0..N-1`` and the true clusters ``0..K-1`` (window
   functions) and joins both ends of every pair to them (the table ``qc(u, v, s,
   same)``);
3. counts per distinct score the pairs accepted down to it and the true pairs
   among them: a ``GROUP BY`` on the score and running sums over it in descending
   order (O(distinct scores) rows come back);
4. reads the true cluster of every record into NumPy (O(N)), once the statements
   above are done, then streams the pairs' record numbers in descending order of
   score, in Arrow batches, into :class:`~ereval._algorithms.StreamedForest`, whose
   state is a union-find over the records: only the merging pairs (at most
   ``N - 1``) are kept.

The curve is then made from these by :func:`curve_from_ranked`, as in memory.
Ties in score are taken in the order the engine gives them; every count is the
same as in memory and the floats agree to rounding (the merges within a tie may be
replayed in another order).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .._algorithms import StreamedForest
from .._errors import InputError, InputTypeError, RecordMismatchError, RepeatedPairsError
from .._validation import examples
from ..engines import Database
from ..engines._sources import SideSpec, check_unique
from ..io import CurveMismatchPolicy, column_names, file_spec, text_scores_held
from ._ranked import Merges, RankedPairs

__all__ = ["BATCH_ROWS", "ranked_in_sql", "score_ranges"]

IntArray = npt.NDArray[np.int64]

#: Rows of each Arrow batch of pairs streamed into the union-find.
BATCH_ROWS = 1 << 20
#: Rows of a batch the union-find takes at a time (:meth:`StreamedForest.add`).
STEP_ROWS = 1 << 17
#: Bytes per record of what NumPy holds while the pairs stream: the forest's parent
#: and size, its merges' two records and position (24), the records' true clusters
#: (8).
FOREST_BYTES = 32
#: Bytes per row of a batch (its two record numbers, in Arrow and in NumPy) and per
#: row of a step (:meth:`StreamedForest.add`'s temporaries: 180-250 measured).
BATCH_BYTES, STEP_BYTES = 32, 256
#: Bytes per distinct score held while the pairs stream: the score and the pairs and
#: true pairs accepted down to it.
SCORE_BYTES = 24
#: The largest finite double: ``abs(x) <= MAX`` is false for the infinities; NaN is
#: asked for by ``isnan`` (read from a file, under :meth:`Database.nan_seen`).
_MAX = "1.7976931348623157e308"


def _count(db: Database, query: str) -> int:
    value = db.fetch_all(query)[0][0]
    return 0 if value is None else int(value)


def _pair_text(pair: tuple[Any, ...]) -> str:
    return repr(tuple(pair[:2]))


def _typed(pairs: Any) -> bool:
    """Whether ``pairs`` has typed columns (Parquet, a table): a CSV file's are text."""
    return not isinstance(pairs, str | os.PathLike) or file_spec(pairs).format == "parquet"


def _check_pairs(db: Database, score_col: str, *, typed: bool) -> None:
    """Every score a finite number and no self-pair, as
    :func:`ereval.io.read_scored_pairs` requires: one pass over the pairs (another
    for an example, on error only). A CSV file's text is read as numbers; a typed
    column of text is not numbers, whatever it holds."""
    cast = "TRY_CAST" if db.dialect.name == "duckdb" else "try_cast"
    db.execute(
        f"CREATE TEMP VIEW qs AS SELECT r, c, s AS given, {cast}(s AS DOUBLE) + 0.0 AS s FROM q"
    )
    text = "given IS NOT NULL AND s IS NULL"
    infinite = f"s IS NULL OR isnan(s) OR NOT abs(s) <= {_MAX}"
    with db.nan_seen():
        n_text, n_bad, n_self = db.fetch_all(
            f"SELECT sum(CASE WHEN {text} THEN 1 ELSE 0 END), "
            f"sum(CASE WHEN {infinite} THEN 1 ELSE 0 END), "
            "sum(CASE WHEN r = c THEN 1 ELSE 0 END) FROM qs"
        )[0]
    held = db.fetch_all("SELECT typeof(given) FROM qs LIMIT 1") if typed else []
    if n_text or (held and str(held[0][0]).lower() in ("varchar", "string")):
        shown = text if n_text else "given IS NOT NULL"  # else numbers as text: the first
        bad = db.fetch_all(f"SELECT given FROM qs WHERE {shown} LIMIT 3")
        raise InputTypeError(
            f"'score_col': column {score_col!r} of 'pairs' must hold numbers; it holds "
            + text_scores_held([str(row[0]) for row in bad])
        )
    if n_bad:
        with db.nan_seen():
            first = db.fetch_all(f"SELECT r, c FROM qs WHERE {infinite} ORDER BY r, c LIMIT 1")[0]
        raise InputError(
            f"'score_col': column {score_col!r} of 'pairs' has {int(n_bad)} missing, NaN or "
            f"infinite score(s) (e.g. the pair {_pair_text(first)}); every pair needs a "
            "finite score"
        )
    if n_self:
        first = db.fetch_all("SELECT r FROM qs WHERE r = c LIMIT 1")[0]
        raise InputError(f"'pairs' pairs a record with itself (e.g. {first[0]!r})")


def _check_repeated(db: Database, n_records: int, n_kept: int, n_given: int) -> None:
    """No pair given twice (in either order): among the pairs of known records by
    their numbers, among the others by their ids (a repeat is always in one set). The
    error names the least repeated pair in the order of the ids (the records are
    numbered in that order), as the in-memory reader does, and its scores."""
    key = f"CAST(least(u, v) AS BIGINT) * {max(n_records, 1)} + greatest(u, v)"
    # a GROUP BY, which DuckDB spills to disk, where count(DISTINCT) holds every key
    surplus = (
        _count(
            db,
            f"SELECT sum(n - 1) FROM (SELECT count(*) AS n FROM qc GROUP BY {key} "
            "HAVING count(*) > 1) AS x",
        )
        if n_kept
        else 0
    )
    pair: tuple[Any, ...] | None = None
    scores: list[float] = []
    if surplus:
        row = db.fetch_all(
            "SELECT a.r, b.r, x.k FROM (SELECT min(least(u, v)) AS lo, "
            f"min(greatest(u, v)) AS hi, {key} AS k FROM qc GROUP BY {key} "
            "HAVING count(*) > 1 ORDER BY lo, hi LIMIT 1) AS x "
            "JOIN tc AS a ON a.code = x.lo JOIN tc AS b ON b.code = x.hi"
        )[0]
        pair = (row[0], row[1])
        scores = [
            float(r[0])
            for r in db.fetch_all(
                f"SELECT s FROM qc WHERE {key} = {int(row[2])} ORDER BY s LIMIT 4"
            )
        ]
    if n_given > n_kept:
        unknown = _count(
            db,
            "SELECT sum(n - 1) FROM (SELECT count(*) AS n FROM qu "
            "GROUP BY least(r, c), greatest(r, c)) AS x",
        )
        if unknown:
            surplus += unknown
            if pair is None:
                row = db.fetch_all(
                    "SELECT least(r, c), greatest(r, c) FROM qu GROUP BY least(r, c), "
                    "greatest(r, c) HAVING count(*) > 1 ORDER BY 1, 2 LIMIT 1"
                )[0]
                pair = (row[0], row[1])
    if surplus and pair is not None:
        given = f" scored {', '.join(f'{v:g}' for v in scores)}" if scores else ""
        raise RepeatedPairsError(
            f"'pairs' has {surplus} repeated pair(s) (in either order), e.g. "
            f"{_pair_text(pair)}{given}; give each pair once, with one score",
            name="pairs",
            n_repeated=surplus,
        )


def _number(db: Database, link_only: bool) -> None:
    """Number the records and the true clusters (and data sets): the table ``tc``."""
    extra = ", src, dense_rank() OVER (ORDER BY src) - 1 AS g" if link_only else ""
    db.execute(
        "CREATE TEMP TABLE tc AS SELECT r, row_number() OVER (ORDER BY r) - 1 AS code, "
        f"dense_rank() OVER (ORDER BY c) - 1 AS k{extra} FROM t"
    )


def _codes(db: Database, n: int, link_only: bool) -> tuple[IntArray, IntArray | None]:
    """Each record's true cluster (and data set) by record number, from ``tc``."""
    true_of = np.zeros(n, dtype=np.int64)
    source_of = np.zeros(n, dtype=np.int64) if link_only else None
    cols = "code, k, g" if link_only else "code, k"
    for batch in db.fetch_batches(f"SELECT {cols} FROM tc", BATCH_ROWS):
        code = np.asarray(batch.column(0).to_numpy(zero_copy_only=False), dtype=np.int64)
        true_of[code] = np.asarray(batch.column(1).to_numpy(zero_copy_only=False))
        if source_of is not None:
            source_of[code] = np.asarray(batch.column(2).to_numpy(zero_copy_only=False))
    return true_of, source_of


def _check_sources(db: Database) -> None:
    """In a link-only evaluation, no pair of two records of one data set."""
    n_inside = _count(db, "SELECT sum(CASE WHEN gu = gv THEN 1 ELSE 0 END) FROM qc")
    if n_inside:
        row = db.fetch_all(
            "SELECT a.r, b.r, a.src FROM (SELECT u, v FROM qc WHERE gu = gv LIMIT 1) AS x "
            "JOIN tc AS a ON a.code = x.u JOIN tc AS b ON b.code = x.v"
        )[0]
        raise InputError(
            f"'pairs' has {n_inside} pair(s) of two records of one data set (e.g. "
            f"{_pair_text(row)}, both of {row[2]!r}); a link-only evaluation scores pairs "
            "across data sets only: leave those pairs out, or evaluate without link_only"
        )


def _held(n_records: int, n_scores: int, batch_rows: int) -> int:
    """The bytes held in memory while the engine sorts the pairs and streams them: the
    union-find over ``n_records`` records and its merges, a batch at work and the
    counts of ``n_scores`` distinct scores."""
    step = min(STEP_ROWS, batch_rows)
    return (
        FOREST_BYTES * n_records
        + BATCH_BYTES * batch_rows
        + STEP_BYTES * step
        + SCORE_BYTES * n_scores
    )


def _check_room(db: Database, n_records: int, n_scores: int, batch_rows: int) -> None:
    """An error, before the pairs are sorted, when what the curve holds in memory
    (:func:`_held`) is more than the engine's limit leaves for the work."""
    room = db.memory_bytes()
    held = _held(n_records, n_scores, batch_rows)
    if room is not None and held > room:
        raise InputError(
            f"'memory_limit' leaves {room >> 20:,} MiB for the work; a curve of "
            f"{n_records:,} records and {n_scores:,} distinct scores holds {held >> 20:,} "
            "MiB in memory while the pairs are sorted (the union-find of the records and "
            "the counts of each score): raise 'memory_limit'"
        )


def _counts(
    db: Database, n_records: int, batch_rows: int
) -> tuple[npt.NDArray[np.float64], IntArray, IntArray]:
    """The distinct scores (descending), the pairs accepted down to each and the true
    pairs among them: running sums over the scores' groups. The groups are counted
    first, so that the arrays they fill (:data:`SCORE_BYTES` a score) are held within
    the engine's memory limit while it computes the sums and sends them in batches."""
    db.execute(
        "CREATE TEMP TABLE score_groups AS SELECT s, count(*) AS n, sum(same) AS tp "
        "FROM qc GROUP BY s"
    )
    k = _count(db, "SELECT count(*) FROM score_groups")
    _check_room(db, n_records, k, batch_rows)
    scores = np.empty(k, dtype=np.float64)
    accepted = np.empty(k, dtype=np.int64)
    true_accepted = np.empty(k, dtype=np.int64)
    run = "ORDER BY s DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    at = 0
    with db.hold_memory(SCORE_BYTES * k):
        for batch in db.fetch_batches(
            f"SELECT s, CAST(sum(n) OVER ({run}) AS BIGINT) AS accepted, "
            f"CAST(sum(tp) OVER ({run}) AS BIGINT) AS true_accepted "
            "FROM score_groups ORDER BY s DESC",
            batch_rows,
        ):
            stop = at + batch.num_rows
            for out, column in zip((scores, accepted, true_accepted), batch.columns, strict=True):
                out[at:stop] = column.to_numpy(zero_copy_only=False)
            at = stop
    db.execute("DROP TABLE score_groups")
    return scores, accepted, true_accepted


def score_ranges(
    scores: npt.NDArray[np.float64], accepted: IntArray, rows: int
) -> list[tuple[float, float]]:
    """Consecutive ranges ``(high, low)`` of the distinct ``scores`` (descending; the
    pairs accepted down to each: ``accepted``) covering every score, each of at most
    ``rows`` pairs unless one score alone has more (that score is then a range alone).

    Examples
    --------
    >>> score_ranges(np.array([0.9, 0.5, 0.2, 0.1]), np.array([2, 3, 7, 8]), 3)
    [(0.9, 0.5), (0.2, 0.2), (0.1, 0.1)]
    """
    out: list[tuple[float, float]] = []
    start, done = 0, 0
    for j in range(scores.shape[0]):
        last = j + 1 == scores.shape[0]
        if last or int(accepted[j + 1]) - done > rows:
            out.append((float(scores[start]), float(scores[j])))
            start, done = j + 1, int(accepted[j])
    return out


def ranked_in_sql(
    db: Database,
    truth: Any,
    pairs: Any,
    *,
    score_col: str,
    left_col: Any,
    right_col: Any,
    record_col: Any,
    cluster_col: Any,
    on_mismatch: CurveMismatchPolicy,
    id_type: str,
    source_col: Any,
    batch_rows: int = BATCH_ROWS,
    progress: Callable[[str], None] | None = None,
) -> RankedPairs:
    """The :class:`RankedPairs` of ``pairs`` against ``truth`` computed by the engine
    of ``db`` (see the module docstring); the merges stream in batches of
    ``batch_rows`` pairs when first asked for."""

    def say(what: str) -> None:
        if progress is not None:
            progress(f"{what} ({db.name})")

    link_only = source_col is not None
    say("reading")
    t_spec = SideSpec(
        "t",
        truth,
        "truth",
        column_names(record_col, name="record_col"),
        column_names(cluster_col, name="cluster_col"),
    )
    if link_only:
        cols = tuple(column_names(source_col, name="source_col"))
        t_spec = SideSpec(
            t_spec.view,
            truth,
            "truth",
            t_spec.records,
            t_spec.clusters,
            extra=(("src", cols),),
            extra_option="source_col",
        )
    q_spec = SideSpec(
        "q",
        pairs,
        "pairs",
        column_names(left_col, name="left_col"),
        column_names(right_col, name="right_col"),
        extra=(("s", (score_col,)),),
        extra_option="score_col",
        allow_empty=True,
        pair=True,
    )
    n_records, n_given = db.load([t_spec, q_spec], id_type=id_type)
    check_unique(db, "t", "truth")
    _check_pairs(db, score_col, typed=_typed(pairs))
    say("numbering the records")
    _number(db, link_only)
    more = ", a.g AS gu, b.g AS gv" if link_only else ""
    db.execute(
        "CREATE TEMP TABLE qc AS SELECT a.code AS u, b.code AS v, q.s AS s, "
        f"CASE WHEN a.k = b.k THEN 1 ELSE 0 END AS same{more} "
        "FROM qs AS q JOIN tc AS a ON q.r = a.r JOIN tc AS b ON q.c = b.r"
    )
    say("counting the pairs by score")
    scores, accepted, true_accepted = _counts(db, n_records, batch_rows)
    n_kept = int(accepted[-1]) if accepted.shape[0] else 0
    if n_given > n_kept:  # pairs naming a record absent from the truth
        anti = db.dialect.anti_join
        db.execute(
            "CREATE TEMP VIEW qu AS SELECT q.r, q.c FROM qs AS q "
            f"{anti} (SELECT x.r, x.c FROM qs AS x JOIN tc AS a ON x.r = a.r "
            "JOIN tc AS b ON x.c = b.r) AS k ON q.r = k.r AND q.c = k.c"
        )
    _check_repeated(db, n_records, n_kept, n_given)
    n_dropped = n_given - n_kept
    if n_dropped and on_mismatch == "error":
        anti = db.dialect.anti_join
        bad = [
            row[0]
            for row in db.fetch_all(
                f"SELECT x.id FROM (SELECT r AS id FROM qu UNION ALL SELECT c AS id FROM qu) "
                f"AS x {anti} tc ON x.id = tc.r LIMIT 3"
            )
        ]
        raise RecordMismatchError(
            f"'pairs' has {n_dropped} pair(s) naming records absent from 'truth' "
            f"(e.g. {examples(bad)}); pass on_mismatch='intersection' to drop them"
        )
    if n_dropped and not n_kept:
        raise RecordMismatchError("no pair of 'pairs' joins two records of 'truth'")
    if link_only:
        _check_sources(db)
    # read only now: DuckDB has had the whole limit for the statements above
    true_of, source_of = _codes(db, n_records, link_only)

    def merges() -> Merges:
        say("streaming the pairs in order of score")
        forest = StreamedForest(int(true_of.shape[0]))
        if db.dialect.native_arrow:  # one sorted stream, read batch by batch
            queries = ["SELECT u, v FROM qc ORDER BY s DESC"]
        else:  # a query per range of scores, each of about batch_rows pairs
            queries = [
                f"SELECT u, v FROM qc WHERE s <= {hi!r} AND s >= {lo!r} ORDER BY s DESC"
                for hi, lo in score_ranges(scores, accepted, batch_rows)
            ]
        # the forest, the arrays of its merges, a batch at work and the counts per
        # distinct score, held while the database sorts
        step = min(STEP_ROWS, batch_rows)
        with db.hold_memory(_held(int(true_of.shape[0]), int(scores.shape[0]), batch_rows)):
            for query in queries:
                for batch in db.fetch_batches(query, batch_rows):
                    u = np.asarray(batch.column(0).to_numpy(zero_copy_only=False), np.int64)
                    v = np.asarray(batch.column(1).to_numpy(zero_copy_only=False), np.int64)
                    del batch
                    for at in range(0, u.shape[0], step):
                        forest.add(u[at : at + step], v[at : at + step])
        return forest.merges()

    return RankedPairs(
        true_of=true_of,
        scores=scores,
        accepted=accepted,
        true_accepted=true_accepted,
        merges=merges,
        n_dropped=n_dropped,
        source_of=source_of,
    )
