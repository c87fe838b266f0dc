"""Reading input: one owner for every kind of input ereval takes.

* files: CSV, TSV and Parquet, by one set of rules (:func:`read_table`,
  :func:`read_arrow`, :func:`count_rows`; see docs/input.md);
* clusterings (:func:`as_membership`, a :class:`Membership`) and true links
  (:func:`links_to_membership`);
* predicted pairs (:func:`as_pairs`, a :class:`PairList`) and scored pairs
  against a true clustering (:func:`read_scored_pairs`, :class:`ScoredPairs`);
* ranked lists (:func:`read_ranked`: item ids in rank order; :func:`ranks_of`);
* two clusterings over one record set (:func:`align`, an :class:`Alignment`).

Ids are read exactly as written: text stays text (``"01"`` and ``"1"`` are two
ids), integers stay integers; ids of kinds that can never be equal are an error.
"""

from __future__ import annotations

from ._align import (
    MISMATCH_POLICIES,
    Alignment,
    AlignOptions,
    IdenticalColumnsWarning,
    MismatchPolicy,
    align,
)
from ._files import count_rows, read_arrow, read_table
from ._ids import IdArray, IdType
from ._keys import Columns, KeyParts
from ._memberships import Membership, as_membership, links_to_membership
from ._pairs import PairList, as_pairs
from ._ranked import ranks_of, read_ranked
from ._scored_pairs import (
    CURVE_MISMATCH_POLICIES,
    CurveMismatchPolicy,
    ScoredPairs,
    read_scored_pairs,
)

__all__ = [
    "AlignOptions",
    "Alignment",
    "CURVE_MISMATCH_POLICIES",
    "Columns",
    "CurveMismatchPolicy",
    "IdArray",
    "IdType",
    "IdenticalColumnsWarning",
    "KeyParts",
    "MISMATCH_POLICIES",
    "Membership",
    "MismatchPolicy",
    "PairList",
    "ScoredPairs",
    "align",
    "as_membership",
    "as_pairs",
    "count_rows",
    "links_to_membership",
    "ranks_of",
    "read_arrow",
    "read_ranked",
    "read_scored_pairs",
    "read_table",
]
