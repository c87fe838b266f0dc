"""The computed results a report section shows when one library result is not enough.

Each is filled by :func:`ereval.report.collect_results` (which runs the maths)
and read by its section's renderer (which runs none). The other sections show a
library result as it is: a :class:`~ereval.curves.ThresholdCurve`, a
:class:`~ereval.Monitoring`, an OASIS
:class:`~ereval.oasis.Convergence`, a :class:`~ereval.paula.PaulaBounds`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from .._compare import Comparison
from ..analysis import Disparities, ErrorTree, SampleErrors
from ..labels import Agreement
from ..metrics._worst_sql import WorstRanking
from ..results import Estimate
from ..summary import Summary

__all__ = [
    "MOVED_SHOWN",
    "RANKED",
    "SHOWN",
    "ExactScores",
    "LabelCount",
    "LabelSources",
    "ReleaseComparison",
    "SampleAnalysis",
    "SampleEstimates",
    "StoreSession",
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


#: True clusters shown per prediction in :class:`WorstClusters`, among the first
#: :data:`RANKED` with an error: those whose records an earlier block does not
#: already show.
SHOWN = 5
RANKED = 20 * SHOWN
#: Records that changed cluster listed by a :class:`ReleaseComparison`.
MOVED_SHOWN = 20


@dataclass(frozen=True, eq=False)
class WorstClusters:
    """Each prediction's true clusters with errors
    (:class:`~ereval.metrics._worst_sql.WorstRanking`: how many, the first ranked by
    misplaced records, and the records around them), with the record attributes
    their tables show."""

    rankings: Mapping[str, WorstRanking]
    records: pd.DataFrame | None = None
    record_col: str = "record_id"


@dataclass(frozen=True, eq=False)
class ReleaseComparison:
    """The comparison of release ``new`` with release ``old``: ``n_moved`` records
    changed cluster (:meth:`ereval.Comparison.moved`) rather than stayed in a cluster
    that gained or lost records, and ``moved`` holds the first :data:`MOVED_SHOWN` of
    them in the order of their ids."""

    old: str
    new: str
    comparison: Comparison
    n_moved: int
    moved: pd.DataFrame


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
    over- and under-clustered; ``misplaced``: the misplaced records of each sampled
    true cluster, by its id (:func:`ereval.report._misplaced.misplaced_records`);
    ``disparities`` by ``group``, the error ``tree`` and the ``tag_frequencies``
    when asked for and available.
    """

    name: str
    errors: SampleErrors
    over: float
    under: float
    level: float
    misplaced: pd.Series
    group: str | None = None
    disparities: Disparities | None = None
    tree: ErrorTree | None = None
    tag_frequencies: Mapping[str, Estimate] | None = None


@dataclass(frozen=True, eq=False)
class LabelCount:
    """The labels of one labelled input of a report.

    Attributes
    ----------
    what : str
        Its description (e.g. ``"labelled sample (sample.csv)"``).
    labels, items : int
        Labels, and distinct items (true clusters for a sample) they are on.
    clusters : bool
        Whether the rows are labelled records of true clusters (a sample) rather
        than labels on items.
    positives : int or None
        Positive labels (None for a sample).
    reviewers : dict of str to int, or None
        Labels per reviewer, by count; None when no column names the reviewer.
    repeated : int
        Items labelled more than once.
    agreement : float or None
        Share of those whose labels all agree (None when none was).
    """

    what: str
    labels: int
    items: int
    clusters: bool
    positives: int | None
    reviewers: Mapping[str, int] | None
    repeated: int
    agreement: float | None


@dataclass(frozen=True, eq=False)
class StoreSession:
    """One session of a label store: its items, labels per reviewer (in the order first
    seen), reviewers' agreement and adjudications (``disagreements`` of them on items
    whose reviewers' labels differ, "unsure" aside; the others were sent to
    adjudication by an "unsure" label)."""

    name: str
    kind: str
    created_at: str
    items: int
    items_labelled: int
    labels: int
    reviewers: Mapping[str, int]
    agreement: Agreement
    adjudicated: int
    disagreements: int = 0


@dataclass(frozen=True, eq=False)
class LabelSources:
    """The labelled inputs of a report and the sessions of its label store (``store``:
    the store's file name, None without one)."""

    sources: tuple[LabelCount, ...]
    store: str | None = None
    sessions: tuple[StoreSession, ...] = ()
