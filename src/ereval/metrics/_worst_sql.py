"""The true clusters with the most misplaced records, ranked where the data is.

A report shows, for each prediction, how many true clusters have an error, and the
few with the most records in the wrong place with the records around them. With
the clusterings in memory these come from the whole tables of
:func:`ereval.cluster_errors` and of misplaced records; at scale an SQL engine
(DuckDB, Spark) computes them from the table of each cell's errors of
:mod:`ereval.metrics._records_sql` and sends back only:

* the counts: true clusters with a record in the prediction, those with an error,
  those sharing a predicted cluster with other entities' records (over-clustered)
  and those split (under-clustered);
* the first ``rank`` true clusters with an error, in decreasing order of misplaced
  records (split off their largest piece, ``a - max n``, plus other entities'
  records in their predicted clusters, ``sum (b - n)``), then of size, then in
  increasing order of id, with their row of :func:`ereval.cluster_errors` (floats
  to the bit, as that table's) and their misplaced counts;
* the records of the predicted clusters that hold their records: how many each
  pair of a predicted and a true cluster holds, and the first
  :data:`BLOCK_ROWS` of each pair in the order of their ids as text (a report
  shows at most that many records of a cluster), so that what comes back stays
  small however large the clusters.

:class:`WorstRanking` holds them, whichever engine computed them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from ..engines import Database
from ..engines import _dialect as sql
from ..io import AlignOptions
from ._records_sql import _frame, cluster_errors_sql, load_cell_errors

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BLOCK_ROWS",
    "MISPLACED_COLUMNS",
    "WorstRanking",
    "bounded_records",
    "engine_worst_clusters",
    "rank_worst",
]

#: Most records kept of each pair of a predicted and a true cluster in
#: :attr:`WorstRanking.shown` (and shown per true cluster by a report).
BLOCK_ROWS = 12

#: The powers of ten a 64-bit integer's digits are counted and scaled with.
_POWERS = np.array([10**k for k in range(20)], dtype=np.uint64)
#: The columns naming a pair of a predicted and a true cluster.
_PAIR = ("pred_cluster", "true_cluster")

#: The misplaced records of a true cluster, after the columns of
#: :func:`ereval.cluster_errors` in :attr:`WorstRanking.ranked`.
MISPLACED_COLUMNS = ("split_off", "foreign", "misplaced")


@dataclass(frozen=True, eq=False)
class WorstRanking:
    """One prediction's true clusters with errors: ``n_clusters`` true clusters with a
    record in the prediction, ``with_error`` of them with an error, ``over`` sharing
    a predicted cluster with other entities' records and ``under`` split; ``ranked``,
    the first true clusters with an error (:func:`rank_worst`'s order: the columns of
    :func:`ereval.cluster_errors`, then :data:`MISPLACED_COLUMNS`); ``groups``, the
    records of each pair of a predicted and a true cluster among the predicted
    clusters holding their records (``pred_cluster, true_cluster, records``); and
    ``shown``, the first :data:`BLOCK_ROWS` records of each pair in the order of their
    ids as text (``record_id, pred_cluster, true_cluster``)."""

    n_clusters: int
    with_error: int
    over: int
    under: int
    ranked: pd.DataFrame
    groups: pd.DataFrame
    shown: pd.DataFrame


def bounded_records(records: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``groups`` and ``shown`` of a :class:`WorstRanking` from every record
    (``record_id, pred_cluster, true_cluster``) of the predicted clusters concerned
    (a true cluster missing for the prediction's records absent from the truth)."""
    import pandas as pd

    # each record's pair, numbered (a missing true cluster is a pair of its own)
    codes = [pd.factorize(records[c], use_na_sentinel=False)[0] for c in _PAIR]
    joint = codes[0].astype(np.int64) * (int(codes[1].max(initial=-1)) + 1) + codes[1]
    _, heads, pair = np.unique(joint, return_index=True, return_inverse=True)
    del joint
    count = np.bincount(pair)
    groups = records.iloc[heads][list(_PAIR)].reset_index(drop=True)
    groups["records"] = count.astype(np.int64)
    # every record of a pair of at most BLOCK_ROWS; of larger pairs, the first by text
    large = count[pair] > BLOCK_ROWS
    keep = ~large
    if large.any():
        at = np.flatnonzero(large)
        order = at[_text_order(records["record_id"].iloc[at])]
        order = order[np.argsort(pair[order], kind="stable")]  # by pair, then by text
        runs = np.flatnonzero(np.r_[True, pair[order][1:] != pair[order][:-1]])
        rank = np.arange(order.size) - np.repeat(runs, np.diff(np.r_[runs, order.size]))
        keep[order[rank < BLOCK_ROWS]] = True
    return groups, records[keep].reset_index(drop=True)


def _text_order(ids: pd.Series) -> npt.NDArray[np.int64]:
    """The positions of ``ids`` in the order of their text (Python's ``str``).
    Signed integers are ordered without text: negatives first (``'-'`` comes before
    the digits), then by their digits as a 19-digit number, a shorter one first
    among equals (``'1' < '10' < '2'``). Other ids are sorted by Arrow, as their
    decimal text or their ``str``; text compares by code point, as Python's does."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = ids.to_numpy()
    if values.dtype.kind == "i":  # no text at all: sign, digits scaled to 19, length
        neg = values < 0
        mag = np.where(neg, -(values + 1), values).astype(np.uint64) + neg
        digits = np.maximum(np.searchsorted(_POWERS, mag, side="right"), 1)
        scaled = mag * _POWERS[19 - digits]  # below 10^19: fits 64 bits unsigned
        return np.lexsort((digits, scaled, ~neg)).astype(np.int64)
    if values.dtype.kind == "u":
        text = pa.array(values).cast(pa.string())
    else:
        text = pa.array(ids.astype(str).to_numpy(dtype=object), type=pa.large_string())
    return np.asarray(pc.sort_indices(text), dtype=np.int64)


def rank_worst(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame`` (true clusters with ``misplaced`` and ``size``) in
    decreasing order of misplaced records, then of size, then in increasing order of
    ``cluster_id``, indexed ``0..``."""
    ordered = frame.sort_values(
        ["misplaced", "size", "cluster_id"], ascending=[False, False, True], kind="stable"
    )
    return ordered.reset_index(drop=True)


def engine_worst_clusters(
    engine: Any,
    truth: Any,
    pred: Any,
    *,
    rank: int,
    in_memory: Callable[[], WorstRanking],
    **options: Unpack[AlignOptions],
) -> WorstRanking:
    """The :class:`WorstRanking` of ``pred`` against ``truth`` with the first ``rank``
    true clusters with an error, computed by ``engine`` (``in_memory`` is called for
    the NumPy engine); ``options`` as for :func:`ereval.io.align`."""
    return engine.run(_WorstJob(truth, pred, rank, in_memory, options))  # type: ignore[no-any-return]


def _around(db: Database) -> tuple[dict[str, Any], dict[str, Any]]:
    """The records of the predicted clusters holding the ranked clusters' records: the
    count of each pair of a predicted and a true cluster, and its first records."""
    db.execute(
        "CREATE TEMP TABLE worst_records AS "
        "SELECT p.r AS record_id, p.c AS pred_cluster, t.c AS true_cluster FROM p "
        "JOIN (SELECT DISTINCT pc FROM worst_cells) AS x ON p.c = x.pc "
        "LEFT JOIN t ON t.r = p.r"
    )
    groups = db.fetch_numpy(
        "SELECT pred_cluster, true_cluster, count(*) AS records FROM worst_records "
        "GROUP BY pred_cluster, true_cluster"
    )
    shown = db.fetch_numpy(
        sql.first_records_sql("worst_records", "pred_cluster, true_cluster", BLOCK_ROWS, db.dialect)
    )
    return groups, shown


class _WorstJob:
    def __init__(
        self,
        truth: Any,
        pred: Any,
        rank: int,
        in_memory: Callable[[], WorstRanking],
        options: AlignOptions,
    ) -> None:
        self.truth, self.pred, self.rank = truth, pred, rank
        self.memory, self.options = in_memory, options

    def in_memory(self, engine: Any) -> WorstRanking:
        return self.memory()

    def in_sql(self, db: Database) -> WorstRanking:
        dialect = db.dialect
        q = dialect.ident
        load_cell_errors(db, self.truth, self.pred, self.options)
        # per true cluster: whether it has an error, is over- or under-clustered, and
        # its misplaced records
        db.execute(
            "CREATE TEMP TABLE worst_each AS SELECT tc, a, "
            f"max({q('EI')}) AS ei, max({q('OCE')}) AS oce, max({q('UCE')}) AS uce, "
            f"a - max(n) AS split_off, sum({q('OCE')}) AS outside "
            "FROM cell_errors GROUP BY tc, a"
        )
        counts = db.fetch_all(
            "SELECT count(*), sum(CASE WHEN ei > 0 THEN 1 ELSE 0 END), "
            "sum(CASE WHEN oce > 0 THEN 1 ELSE 0 END), "
            "sum(CASE WHEN uce > 0 THEN 1 ELSE 0 END) FROM worst_each"
        )[0]
        n_clusters, with_error, over, under = (0 if v is None else int(v) for v in counts)
        db.execute(
            "CREATE TEMP TABLE worst_top AS SELECT tc, split_off, outside, "
            "split_off + outside AS misplaced, a FROM worst_each WHERE ei > 0 "
            f"ORDER BY split_off + outside DESC, a DESC, tc LIMIT {int(self.rank)}"
        )
        db.execute(
            "CREATE TEMP TABLE worst_cells AS SELECT * FROM cell_errors "
            "WHERE tc IN (SELECT tc FROM worst_top)"
        )
        errors = _frame(
            db.fetch_numpy(cluster_errors_sql("worst_cells", dialect=dialect)), "cluster"
        )
        placed = db.fetch_numpy(
            f"SELECT tc AS cluster_id, split_off, outside AS {q('foreign')}, misplaced FROM worst_top"
        )
        try:
            groups, shown = _around(db)
        except db.out_of_memory:
            raise InputError(
                "'worst': the records around the worst clusters do not fit the memory "
                "limit (their predicted clusters hold too many records and pairs of "
                "clusters); leave the worst clusters out, or raise the limit"
            ) from None
        import pandas as pd

        misplaced = pd.DataFrame(
            {
                "cluster_id": np.asarray(placed["cluster_id"]),
                **{c: np.asarray(placed[c]).astype(np.int64) for c in MISPLACED_COLUMNS},
            }
        )
        ranked = rank_worst(errors.merge(misplaced, on="cluster_id"))
        counted = pd.DataFrame(dict(groups))
        counted["records"] = counted["records"].astype(np.int64)
        return WorstRanking(
            n_clusters, with_error, over, under, ranked, counted, pd.DataFrame(dict(shown))
        )
