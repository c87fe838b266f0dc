"""The computed results a report section shows when one library result is not enough.

Each is filled by :func:`ereval.report.collect_results` (which runs the maths)
and read by its section's renderer (which runs none). The other sections show a
library result as it is: a :class:`~ereval.curves.ThresholdCurve`, a
:class:`~ereval.monitor.Monitoring`, an OASIS
:class:`~ereval.oasis.Convergence`, a :class:`~ereval.paula.PaulaBounds`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ..analysis import Disparities, ErrorTree, SampleErrors
from ..compare import Comparison
from ..io import Membership
from ..results import Estimate
from ..summary import Summary

__all__ = [
    "ExactScores",
    "LabelSources",
    "ReleaseComparison",
    "SampleAnalysis",
    "SampleEstimates",
    "Summaries",
    "WorstClusters",
]


@dataclass(frozen=True, eq=False)
class ExactScores:
    """Every canonical metric and the counts of each prediction against the truth.

    ``pairs_across``: in a two-file linkage, the pairs of records from different
    data sets (the pair-based metrics count only those); None otherwise.
    """

    scores: Mapping[str, Mapping[str, float]]
    pairs_across: int | None = None


@dataclass(frozen=True, eq=False)
class Summaries:
    """The summary of each clustering by name (the truth first, named ``"truth"``,
    when ``with_truth``)."""

    summaries: Mapping[str, Summary]
    with_truth: bool = False


@dataclass(frozen=True, eq=False)
class WorstClusters:
    """Each prediction's cluster-wise errors (:func:`ereval.cluster_errors`) with the
    clusterings and record attributes their tables show."""

    truth: Membership
    preds: Mapping[str, Membership]
    errors: Mapping[str, pd.DataFrame]
    records: pd.DataFrame | None = None
    record_col: str = "record_id"


@dataclass(frozen=True, eq=False)
class ReleaseComparison:
    """The comparison of release ``new`` with release ``old``."""

    old: str
    new: str
    comparison: Comparison


@dataclass(frozen=True, eq=False)
class SampleEstimates:
    """Each prediction's estimates from one labelled sample.

    ``exact``: the metrics computed from the full truth, by prediction, when known.
    """

    estimates: Mapping[str, Mapping[str, Estimate]]
    design: str
    weights: str
    level: float
    exact: Mapping[str, Mapping[str, float]] | None = None


@dataclass(frozen=True, eq=False)
class SampleAnalysis:
    """The error analysis of one prediction on a labelled sample.

    ``over`` and ``under``: the weighted shares of sampled true clusters that are
    over- and under-clustered; ``disparities`` by ``group``, the error ``tree``
    and the ``tag_frequencies`` when asked for and available.
    """

    name: str
    errors: SampleErrors
    over: float
    under: float
    level: float
    group: str | None = None
    disparities: Disparities | None = None
    tree: ErrorTree | None = None
    tag_frequencies: Mapping[str, Estimate] | None = None


@dataclass(frozen=True, eq=False)
class LabelSources:
    """The labelled inputs of a report: description -> ``(frame, item column, label
    column)`` (``""``: every row is a labelled record), and the label store."""

    sources: Mapping[str, tuple[pd.DataFrame, str, str]]
    store: str | os.PathLike[str] | None = None
