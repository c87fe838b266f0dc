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
* each one's block, the records a report shows around it: its predicted clusters
  (their number, the largest and the records they hold in all), those of them that
  hold records of another ranked cluster too, and its first :data:`BLOCK_ROWS`
  records (:func:`first_shown`). Only the records of a cluster's first
  :data:`BLOCK_ROWS` predicted clusters are read for them: when the cluster has
  more predicted clusters, each holds at least one of its records, and these come
  first. What comes back stays small however large the clusters and however many
  predicted clusters their records are spread over.

:class:`WorstRanking` holds them, whichever engine computed them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._errors import InputError
from ..engines import Database
from ..engines import _dialect as sql
from ..io import AlignOptions, check_options
from ._records_sql import _frame, cluster_errors_sql, load_cell_errors

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BLOCK_ROWS",
    "MISPLACED_COLUMNS",
    "WorstRanking",
    "engine_worst_clusters",
    "first_shown",
    "rank_worst",
]

#: Most records of a ranked cluster's block in :attr:`WorstRanking.shown` (those a
#: report shows of it).
BLOCK_ROWS = 12

#: The powers of ten a 64-bit integer's digits are counted and scaled with.
_POWERS = np.array([10**k for k in range(20)], dtype=np.uint64)
#: The columns of :attr:`WorstRanking.shown`.
SHOWN_COLUMNS = ("cluster_id", "record_id", "pred_cluster", "true_cluster")

#: The misplaced records of a true cluster, after the columns of
#: :func:`ereval.cluster_errors` in :attr:`WorstRanking.ranked`.
MISPLACED_COLUMNS = ("split_off", "foreign", "misplaced")


@dataclass(frozen=True, eq=False)
class WorstRanking:
    """One prediction's true clusters with errors: ``n_clusters`` true clusters with a
    record in the prediction, ``with_error`` of them with an error, ``over`` sharing
    a predicted cluster with other entities' records and ``under`` split; ``ranked``,
    the first true clusters with an error (:func:`rank_worst`'s order: the columns of
    :func:`ereval.cluster_errors`, then :data:`MISPLACED_COLUMNS`). Around each ranked
    cluster, its block: ``blocks`` has its predicted clusters' number (``pieces``),
    the records they hold in all (``records``) and the one holding most of its records
    (``main``; the first in order among equals); ``overlaps``, the pairs of a ranked
    cluster and one of its predicted clusters that holds records of another ranked
    cluster too (``true_cluster, pred_cluster``); ``shown``, the first records of each
    block (:func:`first_shown`)."""

    n_clusters: int
    with_error: int
    over: int
    under: int
    ranked: pd.DataFrame
    blocks: pd.DataFrame
    overlaps: pd.DataFrame
    shown: pd.DataFrame


def first_shown(near: pd.DataFrame) -> pd.DataFrame:
    """The first :data:`BLOCK_ROWS` rows of each ``cluster_id`` of ``near`` (columns
    :data:`SHOWN_COLUMNS`: records of that cluster's predicted clusters), in the order
    a report shows them: the cluster's own records first, then by predicted cluster,
    then by record id as text; ``near`` may hold a record twice."""
    frame = near.drop_duplicates(["cluster_id", "record_id"]).reset_index(drop=True)
    other = (frame["true_cluster"] != frame["cluster_id"]).to_numpy()  # missing: other
    text = np.empty(len(frame), dtype=np.int64)
    text[_text_order(frame["record_id"])] = np.arange(len(frame))
    frame = frame.assign(_other=other, _text=text).sort_values(
        ["cluster_id", "_other", "pred_cluster", "_text"], kind="stable"
    )
    first = frame.groupby("cluster_id", sort=False).head(BLOCK_ROWS)
    return first[list(SHOWN_COLUMNS)].reset_index(drop=True)


def _text_order(ids: pd.Series) -> npt.NDArray[np.int64]:
    """The positions of ``ids`` in the order of their text (Python's ``str``).
    Signed integers are ordered without text: negatives first (``'-'`` comes before
    the digits), then by their digits as a 19-digit number, a shorter one first
    among equals (``'1' < '10' < '2'``). Other ids are sorted by Arrow, as their
    decimal text or their ``str``; text compares by code point, as Python's does."""
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
    check_options(options)
    return engine.run(_WorstJob(truth, pred, rank, in_memory, options))  # type: ignore[no-any-return]


def _blocks(db: Database) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """The ranked clusters' blocks from the table ``worst_cells`` (their cells): the
    frames ``blocks``, ``overlaps`` and the candidates for ``shown`` of a
    :class:`WorstRanking`."""
    dialect = db.dialect
    text = f"CAST(record_id AS {dialect.text_type})"
    db.execute(
        "CREATE TEMP TABLE worst_sizes AS SELECT p.c AS pc, count(*) AS b FROM p "
        "JOIN (SELECT DISTINCT pc FROM worst_cells) AS x ON p.c = x.pc GROUP BY p.c"
    )
    blocks = db.fetch_numpy(
        "SELECT w.tc AS cluster_id, count(*) AS pieces, sum(s.b) AS records, "
        "min(CASE WHEN w.n = m.top THEN w.pc END) AS main FROM worst_cells AS w "
        "JOIN worst_sizes AS s ON s.pc = w.pc "
        "JOIN (SELECT tc, max(n) AS top FROM worst_cells GROUP BY tc) AS m ON m.tc = w.tc "
        "GROUP BY w.tc"
    )
    overlaps = db.fetch_numpy(
        "SELECT w.tc AS true_cluster, w.pc AS pred_cluster FROM worst_cells AS w "
        "JOIN (SELECT pc FROM worst_cells GROUP BY pc HAVING count(*) > 1) AS x "
        "ON x.pc = w.pc"
    )
    # each cluster's first predicted clusters, and the first records of each there
    db.execute(
        "CREATE TEMP TABLE worst_first AS "
        + sql.first_rows_sql("worst_cells", "pc", "pc", "tc", BLOCK_ROWS, dialect)
    )
    db.execute(
        "CREATE TEMP TABLE worst_near AS SELECT k.tc AS cluster_id, p.r AS record_id, "
        "p.c AS pred_cluster, t.c AS true_cluster, "
        "CASE WHEN t.c = k.tc THEN 1 ELSE 0 END AS own "
        "FROM p JOIN worst_first AS k ON p.c = k.pc LEFT JOIN t ON t.r = p.r"
    )
    near = db.fetch_frame(
        sql.first_rows_sql(
            "worst_near",
            "record_id, true_cluster",
            text,
            "cluster_id, pred_cluster, own",
            BLOCK_ROWS,
            dialect,
        )
    )
    return blocks, overlaps, near


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
        # read as the other blocks below are (NumPy's fetch), so that their ids join
        errors = _frame(
            pa.table(db.fetch_numpy(cluster_errors_sql("worst_cells", dialect=dialect))), "cluster"
        )
        placed = db.fetch_numpy(
            f"SELECT tc AS cluster_id, split_off, outside AS {q('foreign')}, misplaced FROM worst_top"
        )
        try:
            blocks, overlaps, near = _blocks(db)
        except db.out_of_memory:
            raise InputError(
                "'worst': the records around the worst clusters do not fit the memory "
                "limit; leave the worst clusters out, or raise the limit"
            ) from None
        import pandas as pd

        misplaced = pd.DataFrame(
            {
                "cluster_id": np.asarray(placed["cluster_id"]),
                **{c: np.asarray(placed[c]).astype(np.int64) for c in MISPLACED_COLUMNS},
            }
        )
        ranked = rank_worst(errors.merge(misplaced, on="cluster_id"))
        counted = pd.DataFrame(dict(blocks))
        for c in ("pieces", "records"):
            counted[c] = counted[c].astype(np.int64)
        shown = first_shown(near[list(SHOWN_COLUMNS)])
        return WorstRanking(
            n_clusters,
            with_error,
            over,
            under,
            ranked,
            counted.sort_values("cluster_id", kind="stable").reset_index(drop=True),
            pd.DataFrame(dict(overlaps)),
            shown,
        )
