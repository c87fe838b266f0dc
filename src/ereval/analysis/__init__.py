"""Error analysis of a labelled sample of true clusters (Binette et al. 2024, §3.3).

A labelled sample does more than estimate performance: it shows *where* a
prediction fails. Given the prediction of the whole population and a probability
sample of true clusters (as for :mod:`ereval.estimators`):

==========================  =========================================================
:func:`sample_errors`       the cluster-wise error table of the sampled entities
                            (OCE, UCE, ROCE, RUCE, ... against the whole prediction),
                            with each entity's sampling weight and features
:func:`disparities`         performance per subgroup of entities, estimated the
                            right way (Remark 3), as :class:`~ereval.Estimate` values
:func:`error_tree`          a weighted decision tree of which features go with over-
                            or under-clustering, read as rules (Remark 2)
:func:`tag_frequencies`     reviewers' error tags and their weighted relative
                            frequencies with intervals (Figure 7)
==========================  =========================================================

>>> from ereval.analysis import sample_errors, tag_frequencies
>>> pred = {1: "x", 2: "x", 3: "y", 4: "z", 5: "w"}
>>> s = sample_errors(pred, {1: "a", 2: "b", 3: "c", 4: "c", 5: "d"},
...                   design="cluster", weights="uniform")
>>> s.table[["cluster_id", "OCE", "UCE"]].values.tolist()
[['a', 1.0, 0.0], ['b', 1.0, 0.0], ['c', 0.0, 1.0], ['d', 0.0, 0.0]]

See ``docs/analysis.md``.
"""

from __future__ import annotations

from ._subgroups import DEFAULT_METRICS, MISSING, Disparities, disparities
from ._table import FeatureKey, SampleErrors, sample_errors
from ._tags import BASES, Base, parse_tags, tag_frequencies
from ._tree import TARGETS, ErrorTree, Rule, Target, error_tree

__all__ = [
    "BASES",
    "Base",
    "DEFAULT_METRICS",
    "Disparities",
    "ErrorTree",
    "FeatureKey",
    "MISSING",
    "Rule",
    "SampleErrors",
    "TARGETS",
    "Target",
    "disparities",
    "error_tree",
    "parse_tags",
    "sample_errors",
    "tag_frequencies",
]
