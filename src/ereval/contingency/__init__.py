"""The sparse contingency table shared by every clustering metric.

:class:`ContingencyTable` holds the non-zero cells ``n_ij = |T_i ∩ P_j|`` of a
true and a predicted clustering and their marginals; :func:`contingency_table`
reads two clusterings (by the options of :func:`ereval.io.align`) and counts it.
For a link-only evaluation, :class:`SourcePairs` holds the table's pair counts
within data sets, which the pair-based metrics leave out.
"""

from __future__ import annotations

from ._link_only import SourcePairs, pairs_of_groups, source_pairs
from ._table import ContingencyTable, contingency_table, count_cells, pair_count, record_cells

__all__ = [
    "ContingencyTable",
    "SourcePairs",
    "contingency_table",
    "count_cells",
    "pair_count",
    "pairs_of_groups",
    "record_cells",
    "source_pairs",
]
