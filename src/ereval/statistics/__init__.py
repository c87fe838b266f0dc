"""The sufficient statistics of a contingency table: what every metric formula reads.

Every clustering metric of :mod:`ereval.metrics` is a function of a few sums
over the cells ``n_ij`` of the contingency table and its marginals ``a_i``
(true cluster sizes) and ``b_j`` (predicted cluster sizes), of per-row and
per-column maxima, and of counts. An engine computes these where the data is
and returns them, not the cells; the formulas are written once over them.

Integer statistics are exact Python integers; the few irrational ones are
floats (sums of ``n^2 / a``, Jaccard maxima, entropies, CEAF's aligned total
of ``2 n / (a + b)``). Two engines agree exactly on the integers and to about
``1e-15`` relative on the floats (only the order of the float additions
differs).

=============================  =======================================================
statistic                      definition (cells ``n = n_ij``; ``r_i = sum_j n_ij``)
=============================  =======================================================
``n_true_records``             ``sum_i a_i``
``n_pred_records``             ``sum_j b_j``
``n_common``                   ``sum_ij n_ij`` (records on both sides)
``n_true_clusters``            ``K``, the rows
``n_pred_clusters``            ``R``, the columns
``n_cells``                    non-zero cells
``pairs_both``                 ``sum_ij C(n_ij, 2)``
``pairs_true``                 ``sum_i C(a_i, 2)``
``pairs_pred``                 ``sum_j C(b_j, 2)``
``pairs_row_common``           ``sum_i C(r_i, 2)``
``pairs_col_common``           ``sum_j C(c_j, 2)``, ``c_j = sum_i n_ij``
``exact_matches``              cells with ``n_ij = a_i = b_j``
``b3_recall_sum``              ``sum_ij n_ij^2 / a_i``
``b3_precision_sum``           ``sum_ij n_ij^2 / b_j``
``b3_entity_recall_sum``       ``sum_ij n_ij^2 / a_i^2``
``b3_entity_precision_sum``    ``sum_ij n_ij^2 / (a_i b_j)``
``closest_recall_sum``         ``sum_i max_j J_ij``, ``J = n / (a + b - n)``
``closest_precision_sum``      ``sum_j max_i J_ij``
``lea_recall_sum``             ``sum_i a_i res_i / link(a_i)`` (see :mod:`~ereval.metrics._lea`)
``lea_precision_sum``          the same over the columns
``entropy_true``               ``H(T)`` in nats, twinless records as singletons
``entropy_pred``               ``H(P)``
``entropy_true_given_pred``    ``H(T|P)``
``entropy_pred_given_true``    ``H(P|T)``
``ceafm_total``                CEAF's best one-to-one total of ``n_ij``
``ceafe_total``                the same of ``2 n_ij / (a_i + b_j)``
``twinless_pred_singletons``   ``s``, columns with ``b_j = 1`` and ``c_j = 0``
``ceaf_sys_precision_total``   ``|T+| + |U+| + max_M sum_M (n_ij - d_i - e_j)``
``ceaf_sys_recall_total``      ``|T+| + max_M sum_M (n_ij - d_i)``
``b3_twinless_recall_sum``     ``sum_i (a_i - r_i) / a_i``
``b3_twinless_precision_sum``  ``sum_j (b_j - c_j) / b_j``
``b3_common_precision_sum``    ``sum_ij n_ij^2 / c_j``
=============================  =======================================================

The last six serve the twinless-record variants (:mod:`ereval.metrics._bcubed`,
:mod:`ereval.metrics._ceaf`): ``d_i`` is 1 when row ``i`` holds a record of the
truth's side only (``T+`` those rows), ``e_j`` 1 when column ``j`` holds one of
the prediction's side only and is not such a lone record (``U+``), and ``M``
ranges over the one-to-one alignments (:mod:`ereval._algorithms._twinless`).
With every record on both sides they reduce to ``0``, ``ceafm_total``,
``ceafm_total``, ``0``, ``0`` and ``b3_precision_sum``.

:func:`statistics_of` gives the statistics of a table, each computed in
memory when first read; :class:`TableStatistics` holds them all, as an
engine returns them (with the cells in ``table`` only when asked for).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from ..contingency import ContingencyTable, SourcePairs, pair_count
from ..io import MismatchPolicy

__all__ = [
    "CELLS_WANTED",
    "CellsWanted",
    "FLOAT_STATISTICS",
    "INTEGER_STATISTICS",
    "LazyStatistics",
    "PairSpace",
    "Statistics",
    "TableStatistics",
    "compute_statistics",
    "compute_table",
    "pair_space",
    "statistics_of",
    "table_statistics",
]

CellsWanted = Literal["never", "twinless", "always"]
#: When an engine brings the cells back with the statistics: never, only when some
#: record is on one side only (the default metrics then need them), or always.
CELLS_WANTED: tuple[CellsWanted, ...] = ("never", "twinless", "always")

#: The integer statistics, exact whatever the engine.
INTEGER_STATISTICS: tuple[str, ...] = (
    "n_true_records",
    "n_pred_records",
    "n_common",
    "n_true_clusters",
    "n_pred_clusters",
    "n_cells",
    "pairs_both",
    "pairs_true",
    "pairs_pred",
    "pairs_row_common",
    "pairs_col_common",
    "exact_matches",
    "twinless_pred_singletons",
    "ceaf_sys_precision_total",
    "ceaf_sys_recall_total",
)
#: The floating-point statistics.
FLOAT_STATISTICS: tuple[str, ...] = (
    "b3_recall_sum",
    "b3_precision_sum",
    "b3_entity_recall_sum",
    "b3_entity_precision_sum",
    "closest_recall_sum",
    "closest_precision_sum",
    "lea_recall_sum",
    "lea_precision_sum",
    "entropy_true",
    "entropy_pred",
    "entropy_true_given_pred",
    "entropy_pred_given_true",
    "ceafm_total",
    "ceafe_total",
    "b3_twinless_recall_sum",
    "b3_twinless_precision_sum",
    "b3_common_precision_sum",
)


class Statistics(Protocol):
    """What every metric formula reads (see the module's table)."""

    @property
    def policy(self) -> MismatchPolicy: ...
    @property
    def table(self) -> ContingencyTable | None: ...
    @property
    def n_true_records(self) -> int: ...
    @property
    def n_pred_records(self) -> int: ...
    @property
    def n_common(self) -> int: ...
    @property
    def n_true_clusters(self) -> int: ...
    @property
    def n_pred_clusters(self) -> int: ...
    @property
    def n_cells(self) -> int: ...
    @property
    def pairs_both(self) -> int: ...
    @property
    def pairs_true(self) -> int: ...
    @property
    def pairs_pred(self) -> int: ...
    @property
    def pairs_row_common(self) -> int: ...
    @property
    def pairs_col_common(self) -> int: ...
    @property
    def exact_matches(self) -> int: ...
    @property
    def b3_recall_sum(self) -> float: ...
    @property
    def b3_precision_sum(self) -> float: ...
    @property
    def b3_entity_recall_sum(self) -> float: ...
    @property
    def b3_entity_precision_sum(self) -> float: ...
    @property
    def closest_recall_sum(self) -> float: ...
    @property
    def closest_precision_sum(self) -> float: ...
    @property
    def lea_recall_sum(self) -> float: ...
    @property
    def lea_precision_sum(self) -> float: ...
    @property
    def entropy_true(self) -> float: ...
    @property
    def entropy_pred(self) -> float: ...
    @property
    def entropy_true_given_pred(self) -> float: ...
    @property
    def entropy_pred_given_true(self) -> float: ...
    @property
    def ceafm_total(self) -> float: ...
    @property
    def ceafe_total(self) -> float: ...
    @property
    def twinless_pred_singletons(self) -> int: ...
    @property
    def ceaf_sys_precision_total(self) -> int: ...
    @property
    def ceaf_sys_recall_total(self) -> int: ...
    @property
    def b3_twinless_recall_sum(self) -> float: ...
    @property
    def b3_twinless_precision_sum(self) -> float: ...
    @property
    def b3_common_precision_sum(self) -> float: ...
    @property
    def n_records(self) -> int: ...
    @property
    def has_twinless(self) -> bool: ...
    @property
    def within_source(self) -> SourcePairs | None: ...


@dataclass(frozen=True, eq=False)
class TableStatistics:
    """Every statistic of a table, computed at once (by an engine, where the data is).

    ``table`` holds the cells only when they were asked for (metrics that need
    them, such as the twinless variants); see :data:`INTEGER_STATISTICS` and
    :data:`FLOAT_STATISTICS` for the rest.
    """

    policy: MismatchPolicy
    n_true_records: int
    n_pred_records: int
    n_common: int
    n_true_clusters: int
    n_pred_clusters: int
    n_cells: int
    pairs_both: int
    pairs_true: int
    pairs_pred: int
    pairs_row_common: int
    pairs_col_common: int
    exact_matches: int
    b3_recall_sum: float
    b3_precision_sum: float
    b3_entity_recall_sum: float
    b3_entity_precision_sum: float
    closest_recall_sum: float
    closest_precision_sum: float
    lea_recall_sum: float
    lea_precision_sum: float
    entropy_true: float
    entropy_pred: float
    entropy_true_given_pred: float
    entropy_pred_given_true: float
    ceafm_total: float
    ceafe_total: float
    twinless_pred_singletons: int
    ceaf_sys_precision_total: int
    ceaf_sys_recall_total: int
    b3_twinless_recall_sum: float
    b3_twinless_precision_sum: float
    b3_common_precision_sum: float
    table: ContingencyTable | None = None
    within_source: SourcePairs | None = None

    @property
    def n_records(self) -> int:
        """Number of distinct records over both sides."""
        return self.n_true_records + self.n_pred_records - self.n_common

    @property
    def has_twinless(self) -> bool:
        """True when some record is present on one side only."""
        return self.n_true_records != self.n_common or self.n_pred_records != self.n_common

    def as_dict(self) -> dict[str, int | float]:
        """The statistics by name (without the policy and the table)."""
        skip = ("policy", "table", "within_source")
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}


def _max_by(index: npt.NDArray[np.int64], values: npt.NDArray[np.float64], size: int) -> float:
    best = np.zeros(size)
    np.maximum.at(best, index, values)
    return float(best.sum())


def _lea_side(
    own: npt.NDArray[np.int64],
    own_idx: npt.NDArray[np.int64],
    own_at: npt.NDArray[np.int64],
    other_at: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    n: npt.NDArray[np.float64],
) -> float:
    """LEA's sum on one side: ``own`` sizes, each cell's ``own`` index, the sizes of
    both sides at every cell, the counts and the counts as floats."""
    size = own.astype(np.float64)
    links = size * (size - 1) / 2
    pair_links = n * (counts - 1) / 2
    # singletons: resolved iff the record is also a singleton on the other side
    single_hit = (own_at == 1) & (other_at == 1) & (counts == 1)
    resolved = np.bincount(own_idx, weights=pair_links + single_hit, minlength=own.shape[0])
    links = np.where(own == 1, 1.0, links)
    return float((size * resolved / links).sum())


def _nonneg(h: float) -> float:
    # exact zeros when there is no uncertainty (no rounding noise below 0, and no -0.0)
    return max(h, 0.0) + 0.0


class LazyStatistics:
    """The statistics of an in-memory table, each computed with NumPy when first read.

    Several metric families may read them from several threads at once: a
    statistic is then at worst computed twice, with the same result.
    """

    def __init__(self, table: ContingencyTable) -> None:
        self.table: ContingencyTable | None = table
        self._t = table
        self._ceaf_lock = threading.Lock()
        self._ceaf_totals: tuple[float, float] | None = None

    def __repr__(self) -> str:
        return f"LazyStatistics(<{self._t.n_cells} cells>)"

    @property
    def policy(self) -> MismatchPolicy:
        return self._t.policy

    @property
    def n_true_records(self) -> int:
        return self._t.n_true_records

    @property
    def n_pred_records(self) -> int:
        return self._t.n_pred_records

    @property
    def n_common(self) -> int:
        return self._t.n_common

    @property
    def n_true_clusters(self) -> int:
        return self._t.n_true_clusters

    @property
    def n_pred_clusters(self) -> int:
        return self._t.n_pred_clusters

    @property
    def n_cells(self) -> int:
        return self._t.n_cells

    @property
    def n_records(self) -> int:
        return self._t.n_records

    @property
    def has_twinless(self) -> bool:
        return self._t.has_twinless

    @property
    def within_source(self) -> SourcePairs | None:
        return self._t.within_source

    @property
    def pairs_both(self) -> int:
        return self._t.pairs_both

    @property
    def pairs_true(self) -> int:
        return self._t.pairs_true

    @property
    def pairs_pred(self) -> int:
        return self._t.pairs_pred

    @cached_property
    def pairs_row_common(self) -> int:
        return pair_count(self._t.row_common)

    @cached_property
    def pairs_col_common(self) -> int:
        return pair_count(self._t.col_common)

    @cached_property
    def _n(self) -> npt.NDArray[np.float64]:
        """The cells' counts as floats (shared by the float statistics)."""
        return self._t.counts.astype(np.float64)

    @cached_property
    def _a(self) -> npt.NDArray[np.float64]:
        """``a_i`` at every cell, as floats."""
        return self._t.cell_true_sizes.astype(np.float64)

    @cached_property
    def _b(self) -> npt.NDArray[np.float64]:
        """``b_j`` at every cell, as floats."""
        return self._t.cell_pred_sizes.astype(np.float64)

    @cached_property
    def exact_matches(self) -> int:
        t = self._t
        return int(((t.counts == t.cell_true_sizes) & (t.counts == t.cell_pred_sizes)).sum())

    @cached_property
    def _b3(self) -> tuple[float, float]:
        n2 = self._n**2
        return float((n2 / self._a).sum()), float((n2 / self._b).sum())

    @property
    def b3_recall_sum(self) -> float:
        return self._b3[0]

    @property
    def b3_precision_sum(self) -> float:
        return self._b3[1]

    @cached_property
    def _b3_entity(self) -> tuple[float, float]:
        n, a, b = self._n, self._a, self._b
        return float((n * n / (a * a)).sum()), float((n * n / (a * b)).sum())

    @property
    def b3_entity_recall_sum(self) -> float:
        return self._b3_entity[0]

    @property
    def b3_entity_precision_sum(self) -> float:
        return self._b3_entity[1]

    @cached_property
    def _closest(self) -> tuple[float, float]:
        t = self._t
        n = self._n
        # a + b - n in floats: exact, as every term is an integer below 2**53
        jac = n / (self._a + self._b - n)
        return (
            _max_by(t.rows, jac, t.n_true_clusters),
            _max_by(t.cols, jac, t.n_pred_clusters),
        )

    @property
    def closest_recall_sum(self) -> float:
        return self._closest[0]

    @property
    def closest_precision_sum(self) -> float:
        return self._closest[1]

    @cached_property
    def lea_recall_sum(self) -> float:
        t = self._t
        return _lea_side(
            t.true_sizes, t.rows, t.cell_true_sizes, t.cell_pred_sizes, t.counts, self._n
        )

    @cached_property
    def lea_precision_sum(self) -> float:
        t = self._t
        return _lea_side(
            t.pred_sizes, t.cols, t.cell_pred_sizes, t.cell_true_sizes, t.counts, self._n
        )

    @cached_property
    def _entropies(self) -> tuple[float, float, float, float]:
        """The entropies of the table with each record of one side only in a singleton
        of its own on the other side, by their terms: the cells', the clusters' sizes',
        and the singletons' (as the SQL statistics sum them; no table is built)."""
        from ._sizes import size_entropy, twin_terms

        t = self._t
        only_t = t.n_true_records - t.n_common
        only_p = t.n_pred_records - t.n_common
        big_n = float(t.n_common + only_t + only_p)
        single = (1.0 / big_n) * float(np.log(1.0 / big_n)) if big_n else 0.0
        c = self._n
        twin_t = twin_p = 0.0
        if t.has_twinless:
            twin_t = twin_terms(t.true_sizes, t.row_common, big_n)[0]
            twin_p = twin_terms(t.pred_sizes, t.col_common, big_n)[0]
        h_t = -(size_entropy(t.true_sizes, big_n) + only_p * single)
        h_p = -(size_entropy(t.pred_sizes, big_n) + only_t * single)
        h_tp = -(float((c / big_n * np.log(c / self._b)).sum()) + twin_p)
        h_pt = -(float((c / big_n * np.log(c / self._a)).sum()) + twin_t)
        return _nonneg(h_t), _nonneg(h_p), _nonneg(h_tp), _nonneg(h_pt)

    @property
    def entropy_true(self) -> float:
        return self._entropies[0]

    @property
    def entropy_pred(self) -> float:
        return self._entropies[1]

    @property
    def entropy_true_given_pred(self) -> float:
        return self._entropies[2]

    @property
    def entropy_pred_given_true(self) -> float:
        return self._entropies[3]

    @property
    def ceafm_total(self) -> float:
        return self._ceaf()[0]

    @property
    def ceafe_total(self) -> float:
        return self._ceaf()[1]

    def _ceaf(self) -> tuple[float, float]:
        """CEAFm's and CEAFe's aligned totals, computed together, once (a family that
        wants them while another computes them waits)."""
        with self._ceaf_lock:
            if self._ceaf_totals is None:
                from .._algorithms import aligned_totals

                t = self._t
                common = (t.row_common, t.col_common)
                self._ceaf_totals = aligned_totals(
                    t.rows, t.cols, t.counts, t.true_sizes, t.pred_sizes, common=common
                )
            return self._ceaf_totals

    @cached_property
    def twinless_pred_singletons(self) -> int:
        t = self._t
        return int(((t.pred_sizes == 1) & (t.col_common == 0)).sum())

    @cached_property
    def _sys_totals(self) -> tuple[int, int]:
        t = self._t
        if not t.has_twinless:
            return round(self.ceafm_total), round(self.ceafm_total)
        from .._algorithms import twinless_totals

        row_extra = t.true_sizes > t.row_common
        col_extra = t.pred_sizes > t.col_common
        common = (t.row_common, t.col_common)
        got = twinless_totals(t.rows, t.cols, t.counts, common, (row_extra, col_extra))
        rows = int(row_extra.sum())
        cols = int(col_extra.sum()) - self.twinless_pred_singletons
        return rows + cols + got[0], rows + got[1]

    @property
    def ceaf_sys_precision_total(self) -> int:
        return self._sys_totals[0]

    @property
    def ceaf_sys_recall_total(self) -> int:
        return self._sys_totals[1]

    @cached_property
    def b3_twinless_recall_sum(self) -> float:
        t = self._t
        return float(((t.true_sizes - t.row_common) / t.true_sizes.astype(np.float64)).sum())

    @cached_property
    def b3_twinless_precision_sum(self) -> float:
        t = self._t
        return float(((t.pred_sizes - t.col_common) / t.pred_sizes.astype(np.float64)).sum())

    @cached_property
    def b3_common_precision_sum(self) -> float:
        t = self._t
        if not t.has_twinless:
            return self.b3_precision_sum
        return float((self._n**2 / t.col_common[t.cols].astype(np.float64)).sum())


_LOCK = threading.Lock()


def statistics_of(source: ContingencyTable | Statistics) -> Statistics:
    """The statistics of ``source``: those of a table (each computed when first read,
    kept with the table) or ``source`` itself.

    Examples
    --------
    >>> from ereval.contingency import contingency_table
    >>> s = statistics_of(contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]]))
    >>> s.pairs_both, s.pairs_true, s.pairs_pred, s.exact_matches
    (2, 4, 4, 0)
    """
    if not isinstance(source, ContingencyTable):
        return source
    with _LOCK:
        got = source._cache.get("statistics")
        if got is None:
            got = source._cache["statistics"] = LazyStatistics(source)
    stats: Statistics = got
    return stats


def table_statistics(table: ContingencyTable, *, keep_table: bool = True) -> TableStatistics:
    """Every statistic of an in-memory table, computed with NumPy.

    Examples
    --------
    >>> from ereval.contingency import contingency_table
    >>> s = table_statistics(contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]]))
    >>> s.n_cells, s.ceafm_total, s.b3_recall_sum
    (3, 4.0, 3.6666666666666665)
    """
    lazy = statistics_of(table)
    values: dict[str, Any] = {
        name: getattr(lazy, name) for name in INTEGER_STATISTICS + FLOAT_STATISTICS
    }
    return TableStatistics(
        policy=table.policy,
        table=table if keep_table else None,
        within_source=table.within_source,
        **values,
    )


@dataclass(frozen=True)
class PairSpace:
    """The pair counts the pair-based metrics read: over every pair of records, or, for
    a link-only evaluation, over the pairs across data sets only (see
    :mod:`ereval.contingency._link_only`).

    ``both``, ``true``, ``pred``: pairs together on both sides, in the truth, in the
    prediction; ``row_common``, ``col_common``: pairs of records on both sides that
    share a true (predicted) cluster; ``records``, ``true_records``,
    ``pred_records``, ``common_records``: every pair of records of the union, of the
    truth, of the prediction, of both sides.
    """

    both: int
    true: int
    pred: int
    row_common: int
    col_common: int
    records: int
    true_records: int
    pred_records: int
    common_records: int
    link_only: bool = False


def _c2(n: int) -> int:
    return n * (n - 1) // 2


def pair_space(source: ContingencyTable | Statistics) -> PairSpace:
    """The :class:`PairSpace` of a table or its statistics: the ordinary pair counts, or
    those across data sets when the statistics carry their counts within data sets
    (``within_source``), each the ordinary count minus the within count.

    Examples
    --------
    >>> from ereval.contingency import contingency_table
    >>> s = pair_space(contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]]))
    >>> s.both, s.true, s.pred, s.records
    (2, 4, 4, 10)
    """
    s = statistics_of(source)
    space = PairSpace(
        both=s.pairs_both,
        true=s.pairs_true,
        pred=s.pairs_pred,
        row_common=s.pairs_row_common,
        col_common=s.pairs_col_common,
        records=_c2(s.n_records),
        true_records=_c2(s.n_true_records),
        pred_records=_c2(s.n_pred_records),
        common_records=_c2(s.n_common),
    )
    w = s.within_source
    if w is None:
        return space
    return PairSpace(
        both=space.both - w.both,
        true=space.true - w.true,
        pred=space.pred - w.pred,
        row_common=space.row_common - w.row_common,
        col_common=space.col_common - w.col_common,
        records=space.records - w.records,
        true_records=space.true_records - w.true_records,
        pred_records=space.pred_records - w.pred_records,
        common_records=space.common_records - w.common_records,
        link_only=True,
    )


# computed by an engine, from the types above (the jobs import them from here)
from ._compute import compute_statistics, compute_table  # noqa: E402
