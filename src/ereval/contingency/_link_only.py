"""Two-file linkage: the pairs of records within one data set, which a link-only
evaluation leaves out.

A link job (recordlinkage's link index, Splink's ``link_only``) compares the
records of one data set with those of another, never two records of the same
data set. Its universe of record pairs is then the pairs *across* data sets:
``sum_{s<t} N_s N_t`` of them, not ``C(N, 2)``. Every pair count of the
pair-based metrics is restricted the same way. With ``n_ijs`` the records of
data set ``s`` in true cluster ``i`` and predicted cluster ``j``, the pairs of
cell ``(i, j)`` across data sets number

    sum_{s<t} n_ijs n_ijt = (n_ij^2 - sum_s n_ijs^2) / 2 = C(n_ij, 2) - sum_s C(n_ijs, 2),

and the same holds for the marginals ``a_i``, ``b_j`` and the record counts. So a
cross-source count is the ordinary count minus the same count within data sets:
:class:`SourcePairs` holds the within-data-set counts of a table, which every
engine computes where its data is, and :func:`ereval.statistics.pair_space` takes
the differences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["SourcePairs", "pairs_of_groups", "source_pairs"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class SourcePairs:
    """The pair counts of a contingency table within data sets (exact integers).

    With ``s`` running over the data sets, ``n_ijs`` the records of data set ``s``
    in cell ``(i, j)``, ``a_is`` / ``b_js`` those of cluster ``i`` / ``j``, ``r_is`` /
    ``c_js`` those also on the other side, and ``N_s`` the records of data set ``s``:

    =====================  ============================================
    ``both``               ``sum_ijs C(n_ijs, 2)``
    ``true``               ``sum_is C(a_is, 2)``
    ``pred``               ``sum_js C(b_js, 2)``
    ``row_common``         ``sum_is C(r_is, 2)``
    ``col_common``         ``sum_js C(c_js, 2)``
    ``records``            ``sum_s C(N_s, 2)`` over every record
    ``true_records``       the same over the truth's records
    ``pred_records``       the same over the prediction's records
    ``common_records``     the same over the records on both sides
    =====================  ============================================
    """

    n_sources: int
    both: int
    true: int
    pred: int
    row_common: int
    col_common: int
    records: int
    true_records: int
    pred_records: int
    common_records: int


def pairs_of_groups(columns: list[IntArray]) -> int:
    """``sum_g C(size_g, 2)`` over the groups of equal rows of the non-negative integer
    ``columns``."""
    if columns[0].shape[0] < 2:
        return 0
    key = columns[0]
    for col in columns[1:]:
        if int(key.max()) >= key.shape[0]:  # keep the keys dense, so that products fit
            key = np.unique(key, return_inverse=True)[1].astype(np.int64).ravel()
        key = key * (int(col.max()) + 1) + col
    if int(key.max()) < 4 * key.shape[0] + 1024:
        sizes = np.bincount(key)
    else:
        sizes = np.unique(key, return_counts=True)[1]
    sizes = sizes.astype(np.int64)
    return int((sizes * (sizes - 1) // 2).sum())


def source_pairs(
    true_codes: IntArray, pred_codes: IntArray, sources: IntArray, n_sources: int
) -> SourcePairs:
    """The :class:`SourcePairs` of records given by their cluster codes on each side
    (``-1`` where absent) and their data sets (``0..n_sources-1``; every record on the
    truth's side has one).

    Examples
    --------
    >>> s = source_pairs(np.array([0, 0, 0, 0]), np.array([0, 0, 0, 1]),
    ...                  np.array([0, 0, 1, 1]), 2)
    >>> s.both, s.true, s.pred, s.records
    (1, 2, 1, 2)
    """
    t = np.asarray(true_codes, dtype=np.int64)
    p = np.asarray(pred_codes, dtype=np.int64)
    s = np.asarray(sources, dtype=np.int64)
    on_t, on_p, known = t >= 0, p >= 0, s >= 0
    both = on_t & on_p

    def pairs(mask: npt.NDArray[np.bool_], *cols: IntArray) -> int:
        return pairs_of_groups([c[mask] for c in cols])

    return SourcePairs(
        n_sources=int(n_sources),
        both=pairs(both, t, p, s),
        true=pairs(on_t, t, s),
        pred=pairs(on_p & known, p, s),
        row_common=pairs(both, t, s),
        col_common=pairs(both, p, s),
        records=pairs(known, s),
        true_records=pairs(on_t, s),
        pred_records=pairs(on_p & known, s),
        common_records=pairs(both, s),
    )
