"""Label store and review sessions (Binette et al. 2024, §3.2; OASIS; PAULA).

* :class:`LabelStore` -- SQLite, an append-only log of every action, undo/redo
  to any depth, several writers, a server lease;
* :class:`ClusterReview` -- review drawn records' predicted clusters, fuzzy
  search, the quality checks of §3.2.2, the true clusters as a benchmark;
* :class:`PairLabelling` -- pairs asked by an OASIS sampler, labels implied by
  transitivity recorded automatically, a live estimate;
* :class:`ItemLabelling` -- the items of a PAULA plan, bounds when complete;
* agreement between reviewers, adjudication, export and import.

See ``docs/labelling.md``.
"""

from __future__ import annotations

from ._agreement import Agreement, cohen_kappa, krippendorff_alpha, session_agreement
from ._common import PAIR_LABELS, Resolution
from ._exports import (
    EXPORT_KINDS,
    Exported,
    ExportKind,
    export_labels,
    import_labels,
    open_session,
)
from ._items import ItemLabelling, create_item_labelling
from ._pairs import PairLabelling, PairTask, create_pair_labelling
from ._qc import QualityReport, check_review
from ._replay import estimate_from_export, is_pairs_export
from ._review import REVIEW_DESIGNS, ClusterReview, ClusterTask, ReviewDesign, create_cluster_review
from ._reviewer_errors import ReviewerErrorStudy, double_review_counts, reviewer_error_study
from ._search import SearchHit, SearchIndex
from ._store import (
    ACTIONS,
    KINDS,
    Event,
    Item,
    LabelStore,
    ServerLease,
    SessionInfo,
    SessionKind,
    StaleAnswer,
    check_reviewer,
    is_reserved,
)

__all__ = [
    "ACTIONS",
    "Agreement",
    "ClusterReview",
    "ClusterTask",
    "EXPORT_KINDS",
    "Event",
    "ExportKind",
    "Exported",
    "Item",
    "ItemLabelling",
    "KINDS",
    "LabelStore",
    "PAIR_LABELS",
    "PairLabelling",
    "PairTask",
    "QualityReport",
    "REVIEW_DESIGNS",
    "Resolution",
    "ReviewDesign",
    "ReviewerErrorStudy",
    "SearchHit",
    "SearchIndex",
    "ServerLease",
    "SessionInfo",
    "SessionKind",
    "StaleAnswer",
    "check_review",
    "check_reviewer",
    "cohen_kappa",
    "create_cluster_review",
    "create_item_labelling",
    "create_pair_labelling",
    "double_review_counts",
    "estimate_from_export",
    "export_labels",
    "import_labels",
    "is_pairs_export",
    "is_reserved",
    "krippendorff_alpha",
    "open_session",
    "reviewer_error_study",
    "session_agreement",
]
