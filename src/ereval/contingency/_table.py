"""The sparse contingency table shared by every clustering metric.

For a true clustering with clusters ``T_1..T_K`` and a predicted clustering with
clusters ``P_1..P_R``, the table holds the non-zero counts
``n_ij = |T_i ∩ P_j|`` (as coordinate lists sorted by ``(i, j)``) and the
marginals ``a_i = |T_i|`` and ``b_j = |P_j|``. Only non-zero cells are stored:
their number is at most the number of records, whatever ``K`` and ``R`` are.

The two clusterings are read and aligned by :func:`ereval.io.align` (which says
what happens when they cover different record sets); the table counts the cells
of that alignment. In the twinless case the marginals count each side's own
records, so ``a_i`` may exceed ``sum_j n_ij``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Unpack

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._errors import InputError, InputTypeError
from .._threads import both
from .._validation import describe
from ..io import (
    Alignment,
    AlignOptions,
    KeyParts,
    Membership,
    MismatchPolicy,
    Sides,
    aligned,
    check_options,
    integer_keys,
    read_sides,
    release_arrow_memory,
    same_ids,
    same_source,
    take,
    warn_if_identical,
)
from ..io._hashed_keys import hashed_keys
from ..io._ids import same_id_set
from ._link_only import SourcePairs, source_pairs
from ._packed import (
    PackedCells,
    PackedSide,
    cells_of_sorted,
    pack_side,
    packed_cells,
)

__all__ = [
    "ContingencyTable",
    "contingency_table",
    "count_cells",
    "pair_count",
    "record_cells",
]

IntArray = npt.NDArray[np.int64]


def pair_count(x: IntArray) -> int:
    """Exact sum of C(x, 2) over an integer array."""
    if x.size == 0:
        return 0
    pairs = np.subtract(x, 1, dtype=np.int64)
    pairs *= x
    pairs >>= 1  # x (x - 1) is even and never negative: a shift, far cheaper than a division
    return int(pairs.sum(dtype=np.int64))


@dataclass(frozen=True, eq=False)
class ContingencyTable:
    """Sparse contingency table ``n_ij = |T_i ∩ P_j|`` with marginals.

    Attributes
    ----------
    rows, cols, counts : ndarray of int64
        Coordinates and values of the non-zero cells, sorted by ``(row, col)``.
    true_sizes : ndarray of int64, shape (K,)
        ``a_i``, the size of every true cluster (over the truth's own records).
    pred_sizes : ndarray of int64, shape (R,)
        ``b_j``, the size of every predicted cluster.
    policy : {"error", "intersection", "twinless", "singletons"}
        How a record-set mismatch was handled.
    within_source : SourcePairs, optional
        For a link-only evaluation, the table's pair counts within data sets
        (see :mod:`ereval.contingency._link_only`); the pair-based metrics then count
        the pairs across data sets only.
    """

    rows: IntArray
    cols: IntArray
    counts: IntArray
    true_sizes: IntArray
    pred_sizes: IntArray
    policy: MismatchPolicy = "error"
    within_source: SourcePairs | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("rows", "cols", "counts", "true_sizes", "pred_sizes"):
            value = getattr(self, name)
            arr = np.asarray(value)
            if arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise InputTypeError(
                    f"contingency '{name}' must be a 1-D array of integers; received "
                    f"{describe(value)} (floats are never truncated to counts)"
                )
            object.__setattr__(self, name, arr.astype(np.int64, copy=False))
        k, r = self.true_sizes.shape[0], self.pred_sizes.shape[0]
        if not (self.rows.shape == self.cols.shape == self.counts.shape):
            raise InputError("contingency cells: rows, cols and counts must have equal length")
        if (self.true_sizes < 0).any() or (self.pred_sizes < 0).any():
            raise InputError("contingency marginals must be non-negative")
        if self.counts.size and (self.counts.min() <= 0):
            raise InputError("contingency cells must hold positive counts")
        if self.rows.size and (
            self.rows.max() >= k
            or self.cols.max() >= r
            or self.rows.min() < 0
            or self.cols.min() < 0
        ):
            raise InputError("contingency cells refer to clusters outside the marginals")

    # -- construction -----------------------------------------------------------

    @classmethod
    def from_codes(
        cls,
        true_codes: IntArray,
        pred_codes: IntArray,
        *,
        n_true_codes: int,
        n_pred_codes: int,
        policy: MismatchPolicy = "error",
    ) -> ContingencyTable:
        """Count cells from per-record cluster codes (``-1`` = absent on that side).

        Codes in ``0..n_*_codes-1`` that no record uses are dropped, so the table
        has exactly one row per true cluster and one column per predicted cluster.
        """
        t = np.asarray(true_codes, dtype=np.int64)
        p = np.asarray(pred_codes, dtype=np.int64)
        present_t = t >= 0
        present_p = p >= 0
        if present_t.all() and present_p.all():
            true_sizes = np.bincount(t, minlength=n_true_codes).astype(np.int64, copy=False)
            pred_sizes = np.bincount(p, minlength=n_pred_codes).astype(np.int64, copy=False)
            tt, pp = t, p
        else:
            true_sizes = np.bincount(t[present_t], minlength=n_true_codes).astype(
                np.int64, copy=False
            )
            pred_sizes = np.bincount(p[present_p], minlength=n_pred_codes).astype(
                np.int64, copy=False
            )
            both = present_t & present_p
            tt, pp = t[both], p[both]
        rows, cols, counts = count_cells(tt, pp, n_pred_codes)
        rows, true_sizes = _compact(rows, true_sizes)
        cols, pred_sizes = _compact(cols, pred_sizes)
        return cls(rows, cols, counts, true_sizes, pred_sizes, policy)

    @classmethod
    def from_alignment(cls, alignment: Alignment) -> ContingencyTable:
        """The table of an alignment (:func:`ereval.io.align`), with its pair counts
        within data sets (:class:`SourcePairs`) when it is link-only."""
        al = alignment
        table = cls.from_codes(
            al.true_codes,
            al.pred_codes,
            n_true_codes=al.n_true_codes,
            n_pred_codes=al.n_pred_codes,
            policy=al.policy,
        )
        if al.sources is None:
            return table
        within = source_pairs(al.true_codes, al.pred_codes, al.sources, al.n_sources)
        return replace(table, within_source=within, _cache={})

    # -- sizes ------------------------------------------------------------------

    @property
    def n_true_clusters(self) -> int:
        """K, the number of true clusters."""
        return int(self.true_sizes.shape[0])

    @property
    def n_pred_clusters(self) -> int:
        """R, the number of predicted clusters."""
        return int(self.pred_sizes.shape[0])

    @property
    def n_cells(self) -> int:
        """Number of non-zero cells."""
        return int(self.counts.shape[0])

    @cached_property
    def n_common(self) -> int:
        """Number of records present in both clusterings (``sum n_ij``)."""
        return int(self.counts.sum())

    @cached_property
    def n_true_records(self) -> int:
        """Number of records in the true clustering (``sum a_i``)."""
        return int(self.true_sizes.sum())

    @cached_property
    def n_pred_records(self) -> int:
        """Number of records in the predicted clustering (``sum b_j``)."""
        return int(self.pred_sizes.sum())

    @property
    def n_records(self) -> int:
        """Number of distinct records over both sides."""
        return self.n_true_records + self.n_pred_records - self.n_common

    @property
    def has_twinless(self) -> bool:
        """True when some record is present on one side only."""
        return self.n_true_records != self.n_common or self.n_pred_records != self.n_common

    # -- derived sufficient statistics (exact integers) ----------------------------

    @cached_property
    def pairs_both(self) -> int:
        """Record pairs in the same true and the same predicted cluster: ``sum C(n_ij, 2)``."""
        return pair_count(self.counts)

    @cached_property
    def pairs_true(self) -> int:
        """True coreferent pairs: ``sum C(a_i, 2)``."""
        return pair_count(self.true_sizes)

    @cached_property
    def pairs_pred(self) -> int:
        """Predicted coreferent pairs: ``sum C(b_j, 2)``."""
        return pair_count(self.pred_sizes)

    @cached_property
    def row_common(self) -> IntArray:
        """``sum_j n_ij`` per true cluster (equals ``a_i`` without twinless records)."""
        if not self.has_twinless:
            return self.true_sizes
        return _sum_by(self.rows, self.counts, self.n_true_clusters)

    @cached_property
    def col_common(self) -> IntArray:
        """``sum_i n_ij`` per predicted cluster."""
        if not self.has_twinless:
            return self.pred_sizes
        return _sum_by(self.cols, self.counts, self.n_pred_clusters)

    @cached_property
    def cell_true_sizes(self) -> IntArray:
        """``a_i`` at every cell (``true_sizes[rows]``), gathered once for every metric."""
        return self.true_sizes[self.rows]

    @cached_property
    def cell_pred_sizes(self) -> IntArray:
        """``b_j`` at every cell (``pred_sizes[cols]``)."""
        return self.pred_sizes[self.cols]

    @cached_property
    def row_cells(self) -> IntArray:
        """Number of non-zero cells per true cluster (predicted clusters it meets)."""
        return np.bincount(self.rows, minlength=self.n_true_clusters).astype(np.int64)

    @cached_property
    def col_cells(self) -> IntArray:
        """Number of non-zero cells per predicted cluster."""
        return np.bincount(self.cols, minlength=self.n_pred_clusters).astype(np.int64)

    def cell_counts(self, rows: IntArray, cols: IntArray) -> IntArray:
        """``n_ij`` at each given ``(row, col)``; 0 for an empty cell. The cells are
        looked for in the order of their keys: a search in order reads memory in
        order, some three times faster than in the order given at 10^7 records."""
        width = np.int64(max(self.n_pred_clusters, 1))
        keys = self.rows * width + self.cols  # sorted, as cells are sorted by (row, col)
        wanted = np.asarray(rows, dtype=np.int64) * width + np.asarray(cols, dtype=np.int64)
        order = np.argsort(wanted)
        at = np.empty(wanted.shape[0], dtype=np.int64)
        at[order] = np.searchsorted(keys, wanted[order])
        del order
        np.minimum(at, max(keys.shape[0] - 1, 0), out=at)
        found = keys.shape[0] > 0
        hit = (keys[at] == wanted) if found else np.zeros(wanted.shape[0], dtype=bool)
        return np.where(hit, self.counts[at] if found else 0, 0).astype(np.int64)

    def extended_with_singletons(self) -> ContingencyTable:
        """The table over the union of records, each twinless record a singleton on the
        side where it is missing. Returns ``self`` when there are no twinless records."""
        if not self.has_twinless:
            return self
        miss_t = self.pred_sizes - self.col_common  # per pred cluster: records absent from truth
        miss_p = self.true_sizes - self.row_common  # per true cluster: records absent from pred
        k, r = self.n_true_clusters, self.n_pred_clusters
        n_new_t = int(miss_t.sum())
        n_new_p = int(miss_p.sum())
        # records only in pred: new true singleton rows k.., in their pred column
        rows_a = k + np.arange(n_new_t, dtype=np.int64)
        cols_a = np.repeat(np.arange(r, dtype=np.int64), miss_t)
        # records only in truth: new pred singleton columns r.., in their true row
        rows_b = np.repeat(np.arange(k, dtype=np.int64), miss_p)
        cols_b = r + np.arange(n_new_p, dtype=np.int64)
        rows = np.concatenate([self.rows, rows_a, rows_b])
        cols = np.concatenate([self.cols, cols_a, cols_b])
        counts = np.concatenate([self.counts, np.ones(n_new_t + n_new_p, dtype=np.int64)])
        order = np.lexsort((cols, rows))
        return ContingencyTable(
            rows[order],
            cols[order],
            counts[order],
            np.concatenate([self.true_sizes, np.ones(n_new_t, dtype=np.int64)]),
            np.concatenate([self.pred_sizes, np.ones(n_new_p, dtype=np.int64)]),
            "error",
        )


def _compact(index: IntArray, sizes: IntArray) -> tuple[IntArray, IntArray]:
    """Drop codes of size 0, renumbering the cell index accordingly."""
    used = sizes > 0
    if used.all():
        return index, sizes
    mapping = np.cumsum(used, dtype=np.int64) - 1
    return mapping[index], sizes[used]


def _compacted(codes: IntArray, n_codes: int) -> IntArray:
    """``codes`` renumbered as :meth:`ContingencyTable.from_codes` numbers rows and
    columns (unused codes dropped); ``-1`` stays ``-1``."""
    present = codes >= 0
    sizes = np.bincount(codes[present], minlength=n_codes)
    out = np.full(codes.shape[0], -1, dtype=np.int64)
    out[present], _ = _compact(codes[present], sizes)
    return out


def _sum_by(index: IntArray, values: IntArray, size: int) -> IntArray:
    # float64 sums are exact below 2**53, far beyond any record count
    return np.bincount(index, weights=values, minlength=size).astype(np.int64)


def count_cells(t: IntArray, p: IntArray, n_pred: int) -> tuple[IntArray, IntArray, IntArray]:
    """Non-zero cells ``(rows, cols, counts)`` of the co-occurrence counts of the code
    pairs ``(t[k], p[k])`` (codes ``>= 0``, ``p < n_pred``), sorted by ``(row, col)``.

    Examples
    --------
    >>> rows, cols, counts = count_cells(np.array([1, 0, 1, 1]), np.array([2, 0, 2, 0]), 3)
    >>> rows.tolist(), cols.tolist(), counts.tolist()
    ([0, 1, 1], [0, 0, 2], [1, 1, 2])
    """
    if t.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    width = max(int(n_pred), 1)
    n_true = int(t.max()) + 1
    if n_true * width >= 2**63:  # codes far apart: count the codes in use instead
        rows_used, t_dense = np.unique(t, return_inverse=True)
        cols_used, p_dense = np.unique(p, return_inverse=True)
        r, c, n = count_cells(t_dense.ravel(), p_dense.ravel(), cols_used.shape[0])
        return rows_used[r].astype(np.int64), cols_used[c].astype(np.int64), n
    keys = np.multiply(t, width, dtype=np.int64)
    keys += p
    keys.sort()  # sorting 64-bit keys is far cheaper than counting through a sparse matrix
    return cells_of_sorted(keys, width)


def contingency_table(truth: Any, pred: Any, **options: Unpack[AlignOptions]) -> ContingencyTable:
    """Build the sparse contingency table of two clusterings.

    Options are those of :func:`align`. An existing :class:`ContingencyTable`
    passed as ``truth`` (with ``pred=None``) is returned unchanged.

    Examples
    --------
    >>> tab = contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]])
    >>> tab.counts.tolist(), tab.true_sizes.tolist(), tab.pred_sizes.tolist()
    ([2, 1, 2], [3, 2], [2, 3])
    """
    if isinstance(truth, ContingencyTable):
        if pred is not None:
            raise InputError("'pred' must be None when 'truth' is already a ContingencyTable")
        return truth
    check_options(options)
    sides = read_sides(truth, pred, pack=_pack, **options)
    same_order = None  # whether both sides list the same records in the same order
    if sides.t_packed is None and sides.p_packed is None:
        sides, same_order = _packed_keys(sides)
    if sides.t_packed is not None and sides.p_packed is not None:
        cells = packed_cells(sides.t_packed, sides.p_packed, sides.policy)
        if cells is not None:  # each record once, the policy's records scored
            if not same_source(truth, pred) and (
                same_ids(sides.t.record_ids, sides.p.record_ids)
                if same_order is None
                else same_order
            ):
                warn_if_identical(sides.t, sides.p, sides.t_cols, sides.p_cols)
            n_codes, policy = (len(sides.t_labels), len(sides.p_labels)), sides.policy
            # the records, read into Arrow's memory: freed before the table is made
            del sides
            release_arrow_memory()
            return _table_of_cells(cells, n_codes, policy)
    alignment = aligned(sides)
    del sides
    # the records' ids are not counted: freed, and Arrow's memory given back, before
    # the cells are (text ids of 10^7 records: 0.4 GB)
    counted = replace(alignment, records=take(alignment.records, np.zeros(0, dtype=np.int64)))
    del alignment
    release_arrow_memory()
    return ContingencyTable.from_alignment(counted)


def _pack(side: Membership, codes: IntArray, n_codes: int) -> PackedSide | None:
    """Integer record ids packed with their cluster codes into sorted keys (see
    :mod:`ereval.contingency._packed`); ``None`` for other ids, and for keys of several
    columns (:func:`_packed_keys` packs those once both sides are read)."""
    if side.key is not None:
        return None
    return pack_side(side.record_ids, codes, n_codes)


def _packed_keys(sides: Sides) -> tuple[Sides, bool | None]:
    """Records keyed by several columns (numbered as integers over both sides by
    :func:`ereval.io.integer_keys`), or by ids of one column (text, or integers too
    far apart to pack) on sides that do not hold one set of records, two files
    (numbered from 0 over both sides by hashing), packed with their cluster codes,
    each side in its own thread; and whether both sides list the same keys in the
    same order. Sides of as many rows that hold one set in another order are left to
    the alignment, with where each predicted record is (``Sides.same_set``).
    Unchanged (and ``None``) where that does not apply: ids compared as text,
    link-only, parts of kinds that differ, or codes too wide."""
    t, p = sides.t, sides.p
    if (
        sides.id_type != "exact"
        or t.sources is not None
        or sides.t_codes is None
        or sides.p_codes is None
    ):
        return sides, None
    t_key, p_key = t.key, p.key
    number = integer_keys
    if t_key is None and p_key is None:
        rt, rp = t.record_ids, p.record_ids
        if same_ids(rt, rp):
            return sides, None  # one record list: aligned as it is
        # sides of as many rows are first compared as a set (which costs less than
        # numbering them), the answer kept for the alignment
        where = same_id_set(rt, rp) if len(rt) == len(rp) else None
        if where is not None:
            return replace(sides, same_set=where), None
        # ids of one column on sides of other records: numbered from 0 by hashing
        t_key, p_key, number = _id_key(t), _id_key(p), hashed_keys
    if t_key is None or p_key is None:
        return sides, None
    ids = number(t_key, p_key)
    if ids is None:
        return sides, None
    same = bool(np.array_equal(ids[0], ids[1]))
    t_packed, p_packed = both(
        lambda side: pack_side(*side),
        (ids[0], sides.t_codes, len(sides.t_labels)),
        (ids[1], sides.p_codes, len(sides.p_labels)),
        size=len(t),
    )
    # the codes, packed in place, are given up: if one side did not pack, the general
    # path encodes both again
    return replace(sides, t_codes=None, p_codes=None, t_packed=t_packed, p_packed=p_packed), same


def _id_key(side: Membership) -> KeyParts | None:
    """A side's text or integer record ids as a key of one part; ``None`` for other
    ids."""
    ids = side.record_ids
    if isinstance(ids, pa.Array) or ids.dtype.kind in "iu":
        return KeyParts(("record_id",), (ids,))
    return None


def _table_of_cells(
    cells: PackedCells, n_codes: tuple[int, int], policy: MismatchPolicy
) -> ContingencyTable:
    """The table of packed cells of sides of ``n_codes`` cluster codes, each cluster's
    size as the cells give it unless given (codes of size 0 dropped, as
    :meth:`ContingencyTable.from_codes` does)."""
    true_sizes = cells.true_sizes
    if true_sizes is None:
        true_sizes = _sum_by(cells.rows, cells.counts, n_codes[0])
    pred_sizes = cells.pred_sizes
    if pred_sizes is None:
        pred_sizes = _sum_by(cells.cols, cells.counts, n_codes[1])
    rows, true_sizes = _compact(cells.rows, true_sizes)
    cols, pred_sizes = _compact(cells.cols, pred_sizes)
    return ContingencyTable(rows, cols, cells.counts, true_sizes, pred_sizes, policy)


def record_cells(alignment: Alignment) -> tuple[ContingencyTable, IntArray, IntArray]:
    """The table of ``alignment``, and each record's row and column in it (``-1`` where
    the record is absent from that side)."""
    tab = ContingencyTable.from_alignment(alignment)
    rows = _compacted(alignment.true_codes, alignment.n_true_codes)
    cols = _compacted(alignment.pred_codes, alignment.n_pred_codes)
    return tab, rows, cols
