"""Reading input: one owner for every kind of input ereval takes.

* files: CSV, TSV and Parquet, by one set of rules (:func:`read_table`,
  :func:`read_arrow`, :func:`count_rows`; see docs/input.md);
* clusterings (:func:`as_membership`, a :class:`Membership`) and true links
  (:func:`links_to_membership`);
* predicted pairs (:func:`as_pairs`, a :class:`PairList`) and scored pairs
  against a true clustering (:func:`read_scored_pairs`, :class:`ScoredPairs`);
* ranked lists (:func:`read_ranked`: item ids in rank order; :func:`ranks_of`);
* two clusterings over one record set (:func:`align`, an :class:`Alignment`;
  :func:`read_sides` and :func:`aligned` for a reader, such as the contingency
  table's, that counts some sides itself);
* the id and key helpers the engines and features share: encoding ids
  (:func:`encode`, :func:`factorize`, :func:`union`), their kinds (:func:`id_kind`,
  :func:`kinds_clash`), composite keys (:func:`key_ids`, :func:`keyed_frame`) and
  the one-line errors of ids that cannot match (:func:`id_type_error`,
  :func:`mismatch_error`), and sorted keys found among sorted keys
  (:func:`sorted_search`).

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
    Sides,
    align,
    aligned,
    check_link_only,
    check_options,
    id_type_error,
    locate_pairs,
    mismatch_error,
    read_sides,
    same_source,
    warn_if_identical,
)
from ._files import (
    FileSpec,
    count_rows,
    file_spec,
    header,
    read_arrow,
    read_table,
    release_arrow_memory,
)
from ._ids import (
    IdArray,
    IdType,
    arrow_to_numpy,
    dense_int_span,
    encode,
    factorize,
    frame_column,
    id_kind,
    in_id_order,
    int_offsets,
    missing_mask,
    same_ids,
    span_ids,
    take,
    to_arrow_ids,
    to_numpy,
    union,
    within_span,
)
from ._integer_keys import integer_keys
from ._keys import (
    Columns,
    KeyParts,
    column_ids,
    column_names,
    key_ids,
    keyed_frame,
    kinds_clash,
    missing_columns_error,
)
from ._memberships import Membership, as_membership, links_to_membership, read_membership
from ._pairs import PairList, as_pairs
from ._ranked import ranks_of, read_ranked
from ._scored_pairs import (
    CURVE_MISMATCH_POLICIES,
    CurveMismatchPolicy,
    ScoredPairs,
    read_scored_pairs,
    text_scores_held,
)
from ._search import sorted_search

__all__ = [
    "AlignOptions",
    "Alignment",
    "CURVE_MISMATCH_POLICIES",
    "Columns",
    "CurveMismatchPolicy",
    "FileSpec",
    "IdArray",
    "IdType",
    "IdenticalColumnsWarning",
    "KeyParts",
    "MISMATCH_POLICIES",
    "Membership",
    "MismatchPolicy",
    "PairList",
    "ScoredPairs",
    "Sides",
    "align",
    "aligned",
    "arrow_to_numpy",
    "as_membership",
    "as_pairs",
    "check_link_only",
    "check_options",
    "column_ids",
    "column_names",
    "count_rows",
    "dense_int_span",
    "encode",
    "factorize",
    "file_spec",
    "frame_column",
    "header",
    "id_kind",
    "id_type_error",
    "in_id_order",
    "int_offsets",
    "integer_keys",
    "key_ids",
    "keyed_frame",
    "kinds_clash",
    "links_to_membership",
    "locate_pairs",
    "mismatch_error",
    "missing_columns_error",
    "missing_mask",
    "ranks_of",
    "read_arrow",
    "read_membership",
    "read_ranked",
    "read_scored_pairs",
    "read_sides",
    "read_table",
    "release_arrow_memory",
    "same_ids",
    "same_source",
    "sorted_search",
    "span_ids",
    "take",
    "text_scores_held",
    "to_arrow_ids",
    "to_numpy",
    "union",
    "warn_if_identical",
    "within_span",
]
