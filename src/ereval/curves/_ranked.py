"""Scored pairs reduced to what a threshold curve reads: :class:`RankedPairs`.

A curve needs, per distinct score (descending), the number of pairs accepted
there and how many of them are true pairs, and the pairs that merge two
components as the threshold falls (at most ``N - 1``). Both are computed in
memory from :class:`ereval.io.ScoredPairs` by :func:`ranked_in_memory`, or where
the data is by an SQL engine (:mod:`ereval.curves._sql`); the curve is then
made from them by one function whatever computed them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._algorithms import IndexArray, forest_edges
from ..io import ScoredPairs

__all__ = ["Merges", "RankedPairs", "ranked_in_memory"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: The merging pairs in order: their two records (``int32`` or ``int64``) and their
#: positions (the number of pairs accepted when each merges).
Merges = tuple[IndexArray, IndexArray, IntArray]


@dataclass(frozen=True, eq=False)
class RankedPairs:
    """Scored pairs over the records of a true clustering, as a curve reads them.

    ``true_of[r]`` is the true cluster (``0..K-1``) of record ``r`` (``0..N-1``);
    ``scores`` holds the distinct scores, descending; ``accepted[j]`` pairs have a
    score ``>= scores[j]``, ``true_accepted[j]`` of them join two records of one
    true cluster. ``merges()`` gives the pairs that join two components when the
    pairs are accepted in descending order of score (computed when first needed).
    ``n_dropped`` pairs naming records absent from the truth were left out; for a
    link-only evaluation ``source_of[r]`` is the data set of record ``r``.
    """

    true_of: IntArray
    scores: FloatArray
    accepted: IntArray
    true_accepted: IntArray
    merges: Callable[[], Merges]
    n_dropped: int = 0
    source_of: IntArray | None = None

    @property
    def n_records(self) -> int:
        """N, the number of records of the truth."""
        return int(self.true_of.shape[0])

    @property
    def n_pairs(self) -> int:
        """The number of scored pairs kept."""
        return int(self.accepted[-1]) if self.accepted.shape[0] else 0


def ranked_in_memory(data: ScoredPairs) -> RankedPairs:
    """The :class:`RankedPairs` of pairs held in memory (ties in the order given)."""
    order = np.argsort(-data.scores, kind="stable")
    s = data.scores[order]
    true_of = data.true_of
    is_true = true_of[data.left[order]] == true_of[data.right[order]]
    if s.shape[0]:
        # the last pair of each run of equal scores
        ends = np.flatnonzero(np.r_[s[1:] != s[:-1], True])
    else:
        ends = np.zeros(0, dtype=np.int64)
    cum_true = np.cumsum(is_true, dtype=np.int64)

    def merges() -> Merges:
        m = int(order.shape[0])
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(m, dtype=np.int64)
        ranks = forest_edges(data.n_records, data.left, data.right, rank)
        edges = order[ranks]
        return data.left[edges], data.right[edges], ranks + 1

    return RankedPairs(
        true_of=true_of,
        scores=s[ends],
        accepted=(ends + 1).astype(np.int64),
        true_accepted=cum_true[ends],
        merges=merges,
        n_dropped=data.n_dropped,
        source_of=data.source_of,
    )
