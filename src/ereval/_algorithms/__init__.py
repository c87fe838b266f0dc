"""The algorithms under the metrics: the maximum-weight alignment of a table's
cells (CEAF, ACE) and connected components (CEAF's solver, the curves' merges).

Private: the metrics, statistics, engines and curves import them from here.
"""

from __future__ import annotations

from ._assignment import (
    DOMINANCE_MARGIN,
    align_cells,
    aligned_totals,
    ceafe_weights,
    dominance_margin,
    fix_dominant,
    max_weight_alignment,
)
from ._components import (
    CrossSteps,
    IndexArray,
    MergeSteps,
    component_labels,
    cross_steps,
    forest_edges,
    index_dtype,
    merge_steps,
    replay_merges,
)
from ._forest import StreamedForest
from ._twinless import (
    PRECISION_BIT,
    RECALL_BIT,
    fix_twinless,
    twinless_totals,
    undecided_weights,
)

__all__ = [
    "PRECISION_BIT",
    "RECALL_BIT",
    "CrossSteps",
    "DOMINANCE_MARGIN",
    "IndexArray",
    "MergeSteps",
    "StreamedForest",
    "align_cells",
    "aligned_totals",
    "ceafe_weights",
    "component_labels",
    "cross_steps",
    "dominance_margin",
    "fix_dominant",
    "fix_twinless",
    "forest_edges",
    "index_dtype",
    "max_weight_alignment",
    "merge_steps",
    "replay_merges",
    "twinless_totals",
    "undecided_weights",
]
