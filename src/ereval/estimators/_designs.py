"""Sampling designs for labelled true clusters, and a helper that draws such samples.

A labelled benchmark is a probability sample of *units* — true clusters, or
disjoint blocks of whole true clusters — each drawn with a probability ``p_u``
known up to a constant (Binette et al. 2024, §3.2.1; Binette et al. 2022, §2.3):

``"record"``
    Records drawn uniformly with replacement, and the true cluster of each
    recovered: clusters are drawn with ``p_c`` proportional to ``|c|``.
``"cluster"``
    True clusters drawn with ``p_c`` uniform (``"uniform"``), proportional to size
    (``"cluster_size"``) or given by the user per cluster.
``"block"``
    Disjoint blocks drawn with ``p_b`` uniform, proportional to the block's number
    of records, or given per block. Each block holds whole true clusters.
``"single_block"``
    One block (e.g. all the clusters of a region): estimates are ratios of sums
    and no variance can be estimated.
``"size_stratified"``
    Records drawn uniformly within strata of their *predicted* cluster's size
    (Binette et al. 2024, §4.2), ``n_h`` of the ``N_h`` records of stratum ``h``,
    and the true cluster of each recovered: a draw in stratum ``h`` of a
    cluster ``c`` has weight ``N_h / (n_h |c|)``
    (:mod:`ereval.estimators._strata`, :mod:`ereval.estimators._stratified`).
``"expected_error"``
    Records drawn with replacement with probabilities ``q_r`` from match
    probabilities (Binette et al. 2024, eqs. 7-8), the true cluster of each
    recovered: ``p_c = sum_{r in c} q_r``
    (:mod:`ereval.estimators._error_weights`, :mod:`ereval.estimators._unequal_designs`).
``"predicted_cluster"``
    Predicted clusters drawn and the entities inside each labelled (Binette et
    al. 2022, Remark 2); pairwise and B-cubed precision only
    (:mod:`ereval.estimators._unequal_designs`).

Draws with replacement are kept as separate rows: a cluster drawn twice counts
twice in every mean. Without replacement, a population size enables the
finite-population correction: ``1 - (n-1)/(T-1)`` for clusters and blocks
(:func:`ereval.estimators.fpc_theta`, Binette et al. 2022, eq. 7), and the
exact ``1 - n/N`` of a simple random sample for records drawn without
replacement (the record design, and each stratum of the size-stratified
design; :func:`ereval.estimators._stratified.fpc_fraction`). Records drawn
without replacement are drawn with equal probabilities (within a stratum), so
their inclusion probabilities ``n/N`` (``n_h/N_h``) are the Horvitz-Thompson
weights the estimators use (Binette et al. 2022, Remark 3).

Clusters or blocks drawn without replacement with *unequal* probabilities
(``weights="cluster_size"`` or custom) are drawn by randomised systematic
sampling with inclusion probabilities ``pi_u`` proportional to the weights;
the sample keeps each unit's exact ``pi_u`` (``weight_kind=
"inclusion_probability"``, column ``inclusion_probability``) and the estimators
take their Horvitz-Thompson form with Hájek's variance
(:mod:`ereval.estimators._inclusion`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import check_choice, check_int, check_rng, describe, examples
from ..io import Columns, Membership
from ..results import FrameRepr, json_ready
from ._ratio import fpc_theta
from ._sample_input import SampleTable, draw_codes, per_unit_values, sample_table, unit_codes
from ._stratified import fpc_fraction

__all__ = [
    "DESIGNS",
    "ClusterSample",
    "Design",
    "WeightKind",
    "as_sample",
    "draw_sample",
]

#: The columns :meth:`ClusterSample.to_frame` writes beside the record and cluster
#: ids; :func:`as_sample` reads them back when the matching option is not given.
UNIT_COL = "unit_id"
PROBABILITY_COL = "probability"
#: A without-replacement sample's per-unit first-order inclusion probability ``pi_u``.
INCLUSION_COL = "inclusion_probability"
DRAWS_COL = "draws"
#: The size-stratified design's per-record columns: the record's stratum, the stratum's
#: number of records in the population, and how often the record itself was drawn.
STRATUM_COL = "stratum"
STRATUM_RECORDS_COL = "stratum_records"
RECORD_DRAWS_COL = "record_draws"

Design = Literal[
    "record",
    "cluster",
    "block",
    "single_block",
    "size_stratified",
    "expected_error",
    "predicted_cluster",
]
WeightKind = Literal["probability", "inverse_probability", "inclusion_probability"]
_WEIGHT_KINDS: tuple[WeightKind, ...] = (
    "probability",
    "inverse_probability",
    "inclusion_probability",
)
DESIGNS: tuple[Design, ...] = (
    "record",
    "cluster",
    "block",
    "single_block",
    "size_stratified",
    "expected_error",
    "predicted_cluster",
)
_SCHEMES = ("uniform", "cluster_size")

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class ClusterSample(FrameRepr):
    """A validated probability sample of true clusters.

    Attributes
    ----------
    records, clusters : ndarray
        Each sampled record and the id of its true cluster (each cluster once).
    cluster_codes : ndarray of int64
        Dense code (``0..K_s-1``) of each record's cluster.
    cluster_labels : ndarray
        Cluster id of each code.
    unit_of_cluster : ndarray of int64
        Sampling unit of each cluster code: the cluster itself, or its block.
    unit_labels : ndarray
        Id of each unit (a cluster id, or a block id).
    probabilities : ndarray of float64
        ``p_u`` of each unit, up to a constant.
    draws : ndarray of int64
        The units in draw order; a unit drawn twice appears twice.
    design : {"record", "cluster", "block", "single_block"}
    weights : str
        ``"uniform"``, ``"cluster_size"`` or ``"custom"``.
    replace : bool
        Whether units were drawn with replacement.
    population_size : int or None
        Number of units in the population (finite-population correction); the
        number of records for the record design drawn without replacement.
    record_strata : ndarray of int64 or None
        Size-stratified design: the stratum code of each record (-1 for a record
        that was not drawn and whose stratum the sample does not give).
    draw_records : ndarray of int64 or None
        Size-stratified design: the record (position in ``records``) of each draw.
    stratum_labels : ndarray or None
        Size-stratified design: the name of each stratum code.
    stratum_sizes : ndarray of int64 or None
        Size-stratified design: ``N_h``, the population's records in each stratum.
    record_probabilities : ndarray of float64 or None
        Expected-error design: ``q_r``, each record's draw probability (the
        cluster's ``p_c`` is their sum over its records).
    inclusion : bool
        Whether ``probabilities`` are the exact first-order inclusion
        probabilities ``pi_u`` of a draw without replacement (not only
        proportional to them): the estimators then take their Horvitz-Thompson
        form (:mod:`ereval.estimators._inclusion`).
    """

    records: npt.NDArray[Any]
    clusters: npt.NDArray[Any]
    cluster_codes: IntArray
    cluster_labels: npt.NDArray[Any]
    unit_of_cluster: IntArray
    unit_labels: npt.NDArray[Any]
    probabilities: FloatArray
    draws: IntArray
    design: Design
    weights: str
    replace: bool = True
    population_size: int | None = None
    record_strata: IntArray | None = None
    draw_records: IntArray | None = None
    stratum_labels: npt.NDArray[Any] | None = None
    stratum_sizes: IntArray | None = None
    record_probabilities: FloatArray | None = None
    inclusion: bool = False

    @property
    def poisson(self) -> bool:
        """Whether the units were drawn independently (expected-error records drawn without
        replacement by Poisson sampling: each cluster in the sample with its own ``pi_c``)."""
        return self.inclusion and self.design == "expected_error"

    @property
    def stratified(self) -> bool:
        """Whether the draws are stratified (the size-stratified design)."""
        return self.draw_records is not None

    @property
    def draw_strata(self) -> IntArray:
        """The stratum code of each draw (all 0 for an unstratified design)."""
        if self.record_strata is None or self.draw_records is None:
            return np.zeros(self.n_draws, dtype=np.int64)
        out: IntArray = self.record_strata[self.draw_records]
        return out

    @property
    def stratum_draws(self) -> IntArray:
        """``n_h``, the number of draws in each stratum."""
        k = 1 if self.stratum_sizes is None else int(self.stratum_sizes.shape[0])
        return np.bincount(self.draw_strata, minlength=k).astype(np.int64)

    @property
    def draw_weights(self) -> FloatArray:
        """``N_h / n_h`` of each draw's stratum (1 for an unstratified design)."""
        if self.stratum_sizes is None:
            return np.ones(self.n_draws)
        n_h = np.maximum(self.stratum_draws, 1).astype(np.float64)
        out: FloatArray = (self.stratum_sizes / n_h)[self.draw_strata]
        return out

    def stratum_theta(self, *, fpc: bool = True) -> FloatArray:
        """Each stratum's finite-population correction (``1 - n_h/N_h`` without replacement)."""
        if self.stratum_sizes is None:
            return np.array([self.theta if fpc else 1.0])
        if self.replace or not fpc:
            return np.ones(self.stratum_sizes.shape[0])
        return fpc_fraction(self.stratum_draws, self.stratum_sizes)

    @property
    def n_draws(self) -> int:
        """Number of draws (rows of every estimator)."""
        return int(self.draws.shape[0])

    @property
    def n_clusters(self) -> int:
        """Number of distinct sampled true clusters."""
        return int(self.cluster_labels.shape[0])

    @property
    def n_units(self) -> int:
        """Number of distinct sampled units."""
        return int(self.unit_labels.shape[0])

    @property
    def cluster_sizes(self) -> IntArray:
        """Number of records of each sampled cluster (by cluster code)."""
        return np.bincount(self.cluster_codes, minlength=self.n_clusters).astype(np.int64)

    @property
    def theta(self) -> float:
        """Finite-population correction for this sample (1 with replacement).

        A sample with inclusion probabilities has one per estimate
        (:func:`ereval.estimators._inclusion.inclusion_theta`); this is then 1.
        """
        if self.replace or self.population_size is None or self.inclusion:
            return 1.0
        if self.design == "record":
            return float(fpc_fraction(self.n_draws, self.population_size))
        return fpc_theta(self.n_draws, self.population_size)

    def theta_for(
        self,
        numerator: npt.ArrayLike,
        denominator: npt.ArrayLike,
        draws: npt.ArrayLike | None = None,
    ) -> float:
        """The finite-population correction of one ratio estimate from this sample's rows.

        :attr:`theta`, except for a sample with inclusion probabilities, whose rows
        ``b_s = B_s / pi_s``, ``a_s = A_s / pi_s`` of the units ``draws`` (default
        :attr:`draws`) get Hájek's ratio
        (:func:`ereval.estimators._inclusion.inclusion_theta`).
        """
        if not self.inclusion:
            return self.theta
        from ._inclusion import inclusion_theta

        units = self.draws if draws is None else np.asarray(draws, dtype=np.int64)
        pi = self.probabilities[units]
        return float(inclusion_theta(numerator, denominator, pi, poisson=self.poisson))

    def membership(self) -> Membership:
        """The sampled true clusters as a :class:`~ereval.io.Membership`."""
        return Membership(self.records, self.clusters)

    def to_frame(self) -> pd.DataFrame:
        """One row per record: ``record_id, cluster_id, unit_id, probability, draws``.

        :func:`as_sample` reads the table back with the same units, probabilities
        and draws (give it the same ``design``).
        """
        unit = self.unit_of_cluster[self.cluster_codes]
        counts = np.bincount(self.draws, minlength=self.n_units)
        frame = pd.DataFrame(
            {
                "record_id": self.records,
                "cluster_id": self.clusters,
                UNIT_COL: self.unit_labels[unit],
                INCLUSION_COL if self.inclusion else PROBABILITY_COL: self.probabilities[unit],
                DRAWS_COL: counts[unit],
            }
        )
        if (
            self.record_strata is not None
            and self.draw_records is not None
            and self.stratum_labels is not None
            and self.stratum_sizes is not None
        ):
            known = self.record_strata >= 0
            code = np.where(known, self.record_strata, 0)
            labels = np.asarray(self.stratum_labels[code], dtype=object)
            labels[~known] = None
            frame[STRATUM_COL] = labels
            frame[STRATUM_RECORDS_COL] = pd.array(
                np.where(known, self.stratum_sizes[code], 0), dtype="Int64"
            )
            frame.loc[~known, STRATUM_RECORDS_COL] = pd.NA
            frame[RECORD_DRAWS_COL] = np.bincount(
                self.draw_records, minlength=self.records.shape[0]
            )
        if self.record_probabilities is not None:
            from ._unequal_designs import RECORD_INCLUSION_COL, RECORD_PROBABILITY_COL

            col = RECORD_INCLUSION_COL if self.inclusion else RECORD_PROBABILITY_COL
            frame[col] = self.record_probabilities
        return frame

    def to_dict(self) -> dict[str, Any]:
        """``design, weights, replace, population_size, n_draws, n_units, n_clusters`` and
        ``records`` (one dict per row of :meth:`to_frame`) in plain JSON types."""
        out: dict[str, Any] = json_ready(
            {
                "design": self.design,
                "weights": self.weights,
                "replace": self.replace,
                "population_size": self.population_size,
                "n_draws": self.n_draws,
                "n_units": self.n_units,
                "n_clusters": self.n_clusters,
                "records": self.to_frame().to_dict(orient="records"),
            }
        )
        return out


def as_sample(
    sample: Any,
    *,
    design: Design | None = None,
    weights: Any = None,
    weight_kind: WeightKind = "probability",
    blocks: Any = None,
    draws: Any = None,
    replace: bool = True,
    population_size: int | None = None,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
) -> ClusterSample:
    """Validate a labelled sample of true clusters and its design.

    Parameters
    ----------
    sample : clustering or ClusterSample
        The sampled true clusters in any form of :func:`ereval.io.as_membership`
        (a table may carry extra per-record columns named by ``weights``,
        ``blocks`` or ``draws``). A :class:`ClusterSample` is returned unchanged
        (no other option may then be given). The columns that
        :meth:`ClusterSample.to_frame` writes are read back when the matching
        option is left unset: ``draws`` (the draw counts), ``probability`` (the
        weights of the cluster and block designs; for ``"record"`` it must be
        proportional to the cluster sizes) and ``unit_id`` (the blocks of the
        block designs; for ``"record"`` and ``"cluster"`` it must equal the
        cluster id).
    design : {"record", "cluster", "block", "single_block"}
        How the units were drawn (required; see the module docstring).
    weights : {"uniform", "cluster_size"}, str, mapping or Series, optional
        The sampling probabilities ``p_u`` up to a constant: a scheme name, a
        column of the sample table (constant within each unit), or a mapping from
        unit id (cluster id; block id for ``design="block"``) to value. Required
        for ``"cluster"`` and ``"block"``; ``"record"`` implies ``"cluster_size"``
        and ``"single_block"`` needs none. ``"cluster_size"`` for blocks means the
        block's number of records.
    weight_kind : {"probability", "inverse_probability", "inclusion_probability"}
        Whether custom values are probabilities ``p_u`` (default) or design
        weights ``1/p_u``, both up to a constant, or the exact first-order
        inclusion probabilities ``pi_u`` in ``(0, 1]`` of a draw without
        replacement (``replace=False``; the ``inclusion_probability`` column
        that :func:`draw_sample` writes is read as such when ``weights`` is
        unset): the estimators then take their Horvitz-Thompson form
        (:mod:`ereval.estimators._inclusion`).
    blocks : str or mapping, optional
        For ``design="block"``: a column of the sample table, or a mapping from
        cluster id to block id. Every true cluster must lie in one block.
    draws : str, mapping or sequence, optional
        Repeated draws (with replacement): a column of per-unit draw counts, a
        mapping unit id -> count, or the sequence of drawn unit ids in draw
        order. Default: each unit drawn once.
    replace : bool, default True
        Whether units were drawn with replacement.
    population_size : int, optional
        Number of units in the population, for the finite-population
        correction of a sample drawn without replacement.
    record_col, cluster_col : str
        Column names for tables and files.

    Returns
    -------
    ClusterSample

    Examples
    --------
    >>> s = as_sample({1: "c1", 2: "c1", 3: "c2"}, design="cluster", weights="uniform",
    ...               draws=["c1", "c2", "c1"])
    >>> s.n_draws, s.n_clusters, s.probabilities.tolist()
    (3, 2, [1.0, 1.0])
    """
    if isinstance(sample, ClusterSample):
        given = {
            "design": design,
            "weights": weights,
            "blocks": blocks,
            "draws": draws,
            "population_size": population_size,
        }
        extra = [k for k, v in given.items() if v is not None]
        if extra or not replace or weight_kind != "probability":
            raise InputError(
                "'sample' is already a ClusterSample; its design cannot be changed "
                f"(received {', '.join(extra) or 'replace/weight_kind'})"
            )
        return sample
    if design is None:
        raise InputError(
            "'design' is required: one of 'record', 'cluster', 'block', 'single_block', "
            "'size_stratified'"
        )
    design = check_choice("design", design, DESIGNS)
    if design == "size_stratified":
        given = {"weights": weights, "blocks": blocks, "draws": draws}
        extra = [k for k, v in given.items() if v is not None]
        if extra or weight_kind != "probability":
            raise InputError(
                "design='size_stratified' reads its draws and strata from the sample's "
                f"'{RECORD_DRAWS_COL}', '{STRATUM_COL}' and '{STRATUM_RECORDS_COL}' columns; "
                f"'weights', 'weight_kind', 'blocks' and 'draws' do not apply (received "
                f"{', '.join(extra) or 'weight_kind'})"
            )
        if not isinstance(replace, bool):
            raise InputError(f"'replace' must be True or False; received {describe(replace)}")
        if population_size is not None:
            raise InputError(
                "design='size_stratified' takes each stratum's population from the sample's "
                f"'{STRATUM_RECORDS_COL}' column; 'population_size' does not apply"
            )
        table = sample_table(sample, record_col=record_col, cluster_col=cluster_col)
        return stratified_sample(table, replace=replace)
    weight_kind = check_choice("weight_kind", weight_kind, _WEIGHT_KINDS)
    if not isinstance(replace, bool):
        raise InputError(f"'replace' must be True or False; received {describe(replace)}")
    if design in ("expected_error", "predicted_cluster"):
        from ._unequal_designs import expected_error_sample, predicted_cluster_sample

        table = sample_table(sample, record_col=record_col, cluster_col=cluster_col)
        if design == "predicted_cluster":
            return predicted_cluster_sample(
                table,
                weights=weights,
                weight_kind=weight_kind,
                blocks=blocks,
                draws=draws,
                replace=replace,
                population_size=population_size,
            )
        allowed_kind = "probability" if replace else "inclusion_probability"
        if blocks is not None or weight_kind not in ("probability", allowed_kind):
            raise InputError(
                "design='expected_error' samples true clusters through records; 'blocks' does "
                "not apply, and 'weight_kind' only as 'inclusion_probability' with replace=False"
            )
        return expected_error_sample(
            table, weights=weights, draws=draws, replace=replace, population_size=population_size
        )
    if design == "single_block" and (draws is not None or population_size is not None):
        raise InputError(
            "design='single_block' has exactly one draw of one block; 'draws' and "
            "'population_size' do not apply"
        )
    table = sample_table(sample, record_col=record_col, cluster_col=cluster_col)
    if table.frame is not None:
        weights, blocks, draws = _written_columns(
            table.frame, design, weights, weight_kind, blocks, draws, cluster_col
        )
        if INCLUSION_COL in table.frame.columns and weights is None:
            weights, weight_kind = INCLUSION_COL, "inclusion_probability"
    units, unit_labels = unit_codes(table, design=design, blocks=blocks)
    inclusion = weight_kind == "inclusion_probability"
    if inclusion:
        _check_inclusion_options(design, replace, population_size)
    probs, scheme = _probabilities(table, design, weights, weight_kind, units, unit_labels)
    drawn = draw_codes(table, draws, units, unit_labels)
    population_size = _check_replacement(design, replace, population_size, drawn, unit_labels)
    return ClusterSample(
        records=table.records,
        clusters=table.clusters,
        cluster_codes=table.codes,
        cluster_labels=table.labels,
        unit_of_cluster=units,
        unit_labels=unit_labels,
        probabilities=probs,
        draws=drawn,
        design=design,
        weights=scheme,
        replace=replace,
        population_size=population_size,
        inclusion=inclusion,
    )


def _check_inclusion_options(design: Design, replace: bool, population_size: Any) -> None:
    """Inclusion probabilities describe cluster or block draws without replacement."""
    if design not in ("cluster", "block", "predicted_cluster"):
        raise InputError(
            "weight_kind='inclusion_probability' applies to design='cluster', 'block' and "
            f"'predicted_cluster' (units drawn without replacement); design is '{design}'"
        )
    if replace:
        raise InputError(
            "inclusion probabilities (weight_kind='inclusion_probability', or the sample's "
            f"'{INCLUSION_COL}' column) describe a draw without replacement; give replace=False"
        )
    if population_size is not None:
        raise InputError(
            "weight_kind='inclusion_probability' carries the finite-population correction in "
            "the inclusion probabilities; 'population_size' does not apply"
        )


def _written_columns(
    frame: pd.DataFrame,
    design: Design,
    weights: Any,
    weight_kind: WeightKind,
    blocks: Any,
    draws: Any,
    cluster_col: str,
) -> tuple[Any, Any, Any]:
    """Read back the columns :meth:`ClusterSample.to_frame` writes, where no option says
    otherwise; check those a design implies instead of ignoring them."""
    columns = set(frame.columns)
    if draws is None and DRAWS_COL in columns:
        if design != "single_block":
            draws = DRAWS_COL
        elif (pd.to_numeric(frame[DRAWS_COL], errors="coerce") != 1).any():
            raise InputError(
                f"design='single_block' has exactly one draw, but the sample's '{DRAWS_COL}' "
                "column counts more; use design='block'"
            )
    if UNIT_COL in columns:
        if blocks is None and design in ("block", "single_block"):
            blocks = UNIT_COL
        elif design in ("record", "cluster"):
            differs = frame[UNIT_COL].astype(str) != frame[cluster_col].astype(str)
            if differs.any():
                row = frame.loc[differs.to_numpy()].iloc[0]
                raise InputError(
                    f"design='{design}' samples clusters, but the sample's '{UNIT_COL}' column "
                    f"names other units (e.g. {row[UNIT_COL]!r} for cluster {row[cluster_col]!r}): "
                    "it was drawn by blocks; use design='block'"
                )
    if PROBABILITY_COL in columns and weights is None:
        if design in ("cluster", "block") and weight_kind == "probability":
            weights = PROBABILITY_COL
        elif design == "record":
            _check_size_proportional(frame, cluster_col)
    return weights, blocks, draws


def _check_size_proportional(frame: pd.DataFrame, cluster_col: str) -> None:
    """The ``probability`` column of a record sample must be proportional to cluster size."""
    prob = pd.to_numeric(frame[PROBABILITY_COL], errors="coerce")
    sizes = frame.groupby(cluster_col, sort=False)[cluster_col].transform("size")
    ratio = (prob / sizes).to_numpy(dtype=np.float64)
    if not np.isfinite(ratio).all() or not np.allclose(ratio, ratio[0], rtol=1e-9, atol=0.0):
        raise InputError(
            f"design='record' draws clusters with probability proportional to their size, but "
            f"the sample's '{PROBABILITY_COL}' column is not proportional to the cluster sizes; "
            "give the design the sample was drawn with (e.g. design='cluster')"
        )


def _probabilities(
    table: SampleTable,
    design: Design,
    weights: Any,
    weight_kind: WeightKind,
    units: IntArray,
    unit_labels: npt.NDArray[Any],
) -> tuple[FloatArray, str]:
    n_units = unit_labels.shape[0]
    if design == "record":
        if weights not in (None, "cluster_size"):
            raise InputError(
                "design='record' draws clusters with probability proportional to their size; "
                f"'weights' must be left unset or 'cluster_size'; received {describe(weights)} "
                "(use design='cluster' for other probabilities)"
            )
        weights = "cluster_size"
    elif design == "single_block":
        if weights not in (None, "uniform"):
            raise InputError(
                "design='single_block' has one unit, so sampling probabilities play no role; "
                f"'weights' must be left unset; received {describe(weights)}"
            )
        return np.ones(n_units), "uniform"
    elif weights is None:
        raise InputError(
            f"design='{design}' needs 'weights': 'uniform', 'cluster_size', a column of the "
            "sample or a mapping from unit id to sampling probability"
        )
    if isinstance(weights, str) and weights in _SCHEMES:
        if weight_kind != "probability":
            raise InputError(
                f"'weight_kind' applies to custom weights only; weights='{weights}' is a scheme"
            )
        if weights == "uniform":
            return np.ones(n_units), "uniform"
        record_units = units[table.codes]
        sizes = np.bincount(record_units, minlength=n_units).astype(np.float64)
        return sizes, "cluster_size"
    what = "block" if design == "block" else "cluster"
    values = per_unit_values(table, weights, units, unit_labels, name="weights", what=what)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        idx = np.flatnonzero(bad)
        raise InputError(
            f"'weights' must be finite and > 0 for every sampled {what}; received "
            f"{examples(values[idx])} for {what}(s) {examples(unit_labels[idx])}"
        )
    if weight_kind == "inverse_probability":
        values = 1.0 / values
    if weight_kind == "inclusion_probability":
        over = values > 1.0
        if over.any():
            idx = np.flatnonzero(over)
            raise InputError(
                f"inclusion probabilities must lie in (0, 1]; received {examples(values[idx])} "
                f"for {what}(s) {examples(unit_labels[idx])}"
            )
        return values, "inclusion"
    return values, "custom"


def _check_replacement(
    design: Design,
    replace: bool,
    population_size: int | None,
    drawn: IntArray,
    unit_labels: npt.NDArray[Any],
) -> int | None:
    if replace:
        if population_size is not None:
            raise InputError(
                "'population_size' is used only for samples drawn without replacement "
                "(replace=False); a sample drawn with replacement needs no finite-population "
                "correction"
            )
        return None
    if design == "record":
        # distinct records may share a true cluster: a cluster may be drawn several times
        if population_size is None:
            return None
        t = check_int("population_size", population_size, minimum=1)
        if t < drawn.shape[0]:
            raise InputError(
                f"'population_size' ({t}) is smaller than the number of records drawn "
                f"without replacement ({drawn.shape[0]})"
            )
        return t
    counts = np.bincount(drawn, minlength=unit_labels.shape[0])
    if (counts > 1).any():
        raise InputError(
            "replace=False but some units were drawn more than once "
            f"(e.g. {examples(unit_labels[counts > 1])})"
        )
    if population_size is None:
        return None
    t = check_int("population_size", population_size, minimum=2)
    if t < drawn.shape[0]:
        raise InputError(
            f"'population_size' ({t}) is smaller than the number of units drawn "
            f"without replacement ({drawn.shape[0]})"
        )
    return t


def draw_sample(
    truth: Any,
    *,
    n: int,
    design: Design,
    weights: Any = None,
    blocks: Any = None,
    replace: bool = True,
    seed: Any = None,
    pred: Any = None,
    strata: Any = None,
    allocation: Any = None,
    pilot: Any = None,
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> ClusterSample:
    """Draw a sample of true clusters from a (fully known) clustering.

    Useful to plan a labelling campaign on a predicted clustering, and for
    simulation studies.

    Parameters
    ----------
    truth : clustering
        The population clustering (any form of :func:`ereval.io.as_membership`).
    n : int
        Number of draws (records for ``"record"``, clusters for ``"cluster"``,
        blocks for ``"block"``; ignored by ``"single_block"``, which draws one).
    design : {"record", "cluster", "block", "single_block"}
    weights : {"uniform", "cluster_size"} or mapping, optional
        As for :func:`as_sample`; a mapping is keyed by cluster id (block id for
        block designs) and holds probabilities up to a constant.
    blocks : mapping, optional
        Cluster id -> block id, for the block designs.
    replace : bool, default True
        Draw with replacement; without it, the sample records the population size
        so that the finite-population correction applies (for ``"record"``:
        distinct records, a cluster may still be drawn through several). Clusters
        or blocks with unequal weights are then drawn by randomised systematic
        sampling with inclusion probabilities ``pi_u = min(1, c p_u)``, exactly
        realised, which the sample keeps (the Horvitz-Thompson estimators of
        :mod:`ereval.estimators._inclusion`).
    seed : None, int or numpy.random.Generator
        Source of randomness.
    pred, strata, allocation, pilot
        For ``"size_stratified"`` (see
        :func:`ereval.estimators._size_design.draw_size_stratified`): the
        prediction whose cluster sizes define the strata, their lower bounds,
        ``"neyman"`` (default) or ``"proportional"``, and a labelled pilot sample
        for Neyman allocation.

    Returns
    -------
    ClusterSample

    Examples
    --------
    >>> s = draw_sample([[1, 2, 3], [4], [5, 6]], n=5, design="record", seed=0)
    >>> s.n_draws, s.design, s.weights
    (5, 'record', 'cluster_size')
    """
    rng = check_rng(seed)
    design = check_choice("design", design, DESIGNS)
    n = check_int("n", n, minimum=1)
    if design == "size_stratified":
        from ._size_design import draw_size_stratified

        if weights is not None or blocks is not None:
            raise InputError(
                "design='size_stratified' draws records uniformly within strata of the "
                "prediction's cluster sizes; 'weights' and 'blocks' do not apply"
            )
        if pred is None:
            raise InputError(
                "design='size_stratified' needs 'pred': its strata are the predicted "
                "clusters' sizes"
            )
        return draw_size_stratified(
            truth,
            pred,
            n=n,
            strata=strata,
            allocation=allocation,
            pilot=pilot,
            replace=replace,
            seed=rng,
            record_col=record_col,
            cluster_col=cluster_col,
        )
    if design == "expected_error":
        from ._unequal_designs import draw_expected_error

        if weights is None or pred is not None or blocks is not None:
            raise InputError(
                "design='expected_error' draws records with the probabilities given as "
                "'weights' (record id -> probability, from expected_error_probabilities); "
                "'pred' and 'blocks' do not apply"
            )
        return draw_expected_error(truth, weights, n=n, seed=rng, replace=replace)
    if design == "predicted_cluster":
        from ._unequal_designs import draw_predicted_cluster

        if pred is None:
            raise InputError("design='predicted_cluster' needs 'pred': its clusters are drawn")
        if strata is not None or pilot is not None or allocation is not None or blocks is not None:
            raise InputError(
                "design='predicted_cluster' draws predicted clusters; 'strata', 'allocation', "
                "'pilot' and 'blocks' do not apply"
            )
        return draw_predicted_cluster(
            truth,
            pred,
            n=n,
            weights="cluster_size" if weights is None else weights,
            replace=replace,
            seed=rng,
        )
    if pred is not None or strata is not None or pilot is not None or allocation is not None:
        raise InputError(
            "'pred', 'strata', 'allocation' and 'pilot' are options of "
            f"design='size_stratified'; design is '{design}'"
        )
    population_design: Design = (
        "cluster" if design == "record" else "block" if design == "single_block" else design
    )
    if design == "record":
        if weights not in (None, "cluster_size"):
            raise InputError(
                "design='record' draws clusters with probability proportional to their size; "
                f"'weights' must be left unset or 'cluster_size'; received {describe(weights)}"
            )
        weights = "cluster_size"
    elif design == "single_block" and weights is None:
        weights = "uniform"
    population = as_sample(
        truth,
        design=population_design,
        weights=weights,
        blocks=blocks,
        record_col=record_col,
        cluster_col=cluster_col,
    )
    n_units = population.n_units
    p = population.probabilities / population.probabilities.sum()
    if design == "single_block":
        chosen = rng.choice(n_units, size=1, p=p).astype(np.int64)
    elif design == "record":
        record_units = population.unit_of_cluster[population.cluster_codes]
        n_records = record_units.shape[0]
        if replace:
            chosen = record_units[rng.integers(0, n_records, size=n)]
        else:
            if n > n_records:
                raise InputError(
                    f"cannot draw {n} records without replacement from a population of {n_records}"
                )
            chosen = record_units[rng.choice(n_records, size=n, replace=False)]
            return replace_population(
                _subsample(population, chosen, design=design, replace=False), n_records
            )
    else:
        if not replace and n > n_units:
            raise InputError(
                f"cannot draw {n} units without replacement from a population of {n_units}"
            )
        if not replace and not np.allclose(p, p[0], rtol=1e-12, atol=0.0):
            return _draw_inclusion(population, n, design=design, rng=rng)
        chosen = rng.choice(n_units, size=n, replace=replace, p=p).astype(np.int64)
    return _subsample(population, chosen, design=design, replace=replace)


def _draw_inclusion(
    population: ClusterSample, n: int, *, design: Design, rng: np.random.Generator
) -> ClusterSample:
    """``n`` distinct units by randomised systematic sampling, ``pi_u`` ∝ ``p_u`` (exact)."""
    from ._inclusion import inclusion_probabilities, systematic_sample

    pi = inclusion_probabilities(population.probabilities, n)
    chosen = systematic_sample(pi, seed=rng)
    with_pi = dataclasses.replace(population, probabilities=pi, weights="inclusion")
    sample = _subsample(with_pi, chosen, design=design, replace=False)
    return dataclasses.replace(sample, inclusion=True, population_size=None)


def replace_population(sample: ClusterSample, population_size: int) -> ClusterSample:
    """``sample`` with its population size set (records drawn without replacement)."""
    return dataclasses.replace(sample, population_size=population_size)


def _subsample(
    population: ClusterSample, chosen: IntArray, *, design: Design, replace: bool
) -> ClusterSample:
    kept_units, draws = np.unique(chosen, return_inverse=True)
    keep_cluster = np.isin(population.unit_of_cluster, kept_units)
    new_cluster_code = np.cumsum(keep_cluster) - 1
    keep_record = keep_cluster[population.cluster_codes]
    unit_map = np.full(population.n_units, -1, dtype=np.int64)
    unit_map[kept_units] = np.arange(kept_units.shape[0], dtype=np.int64)
    return ClusterSample(
        records=population.records[keep_record],
        clusters=population.clusters[keep_record],
        cluster_codes=new_cluster_code[population.cluster_codes[keep_record]].astype(np.int64),
        cluster_labels=population.cluster_labels[keep_cluster],
        unit_of_cluster=unit_map[population.unit_of_cluster[keep_cluster]],
        unit_labels=population.unit_labels[kept_units],
        probabilities=population.probabilities[kept_units],
        draws=draws.astype(np.int64).ravel(),
        design=design,
        weights=population.weights,
        replace=replace,
        population_size=None if replace or design == "single_block" else population.n_units,
    )


def stratified_sample(table: SampleTable, *, replace: bool) -> ClusterSample:
    """A size-stratified sample from its table: every record's stratum, the stratum's
    population size and the record's draws (the columns :meth:`ClusterSample.to_frame`
    writes)."""
    labels_raw = table.column(STRATUM_COL, name=STRATUM_COL)
    sizes_raw = table.column(STRATUM_RECORDS_COL, name=STRATUM_RECORDS_COL)
    record_draws = _whole_numbers(
        table.column(RECORD_DRAWS_COL, name=RECORD_DRAWS_COL), RECORD_DRAWS_COL, minimum=0
    )
    drawn = record_draws > 0
    for col, values in ((STRATUM_COL, labels_raw), (STRATUM_RECORDS_COL, sizes_raw)):
        missing = np.asarray(pd.isna(values)) & drawn
        if missing.any():
            raise InputError(
                f"design='size_stratified': the sample's '{col}' column is missing for "
                f"{int(missing.sum())} drawn record(s) (e.g. "
                f"{examples(table.records[missing])}); every drawn record needs its stratum"
            )
    stratum_n = _whole_numbers(sizes_raw[drawn], STRATUM_RECORDS_COL, minimum=1)
    drawn_codes, stratum_labels = pd.factorize(
        pd.Series(labels_raw[drawn], dtype=object).astype(str)
    )
    k = int(stratum_labels.shape[0])
    per = pd.Series(stratum_n).groupby(drawn_codes).agg(["nunique", "first"])
    if (per["nunique"] > 1).any():
        bad = stratum_labels[int(per.index[per["nunique"].to_numpy() > 1][0])]
        raise InputError(
            f"design='size_stratified': '{STRATUM_RECORDS_COL}' must be constant within each "
            f"stratum; stratum {bad!r} has several values"
        )
    sizes = per["first"].to_numpy(dtype=np.int64)
    # records that were not drawn play no role in the strata (their stratum may be blank)
    record_strata = np.full(table.records.shape[0], -1, dtype=np.int64)
    record_strata[drawn] = drawn_codes
    drawn_per_cluster = np.bincount(table.codes, weights=record_draws, minlength=table.n_clusters)
    if (drawn_per_cluster == 0).any():
        lost = table.labels[drawn_per_cluster == 0]
        raise InputError(
            f"design='size_stratified': {lost.shape[0]} sampled cluster(s) have no drawn record "
            f"in '{RECORD_DRAWS_COL}' (e.g. {examples(lost)}); every labelled cluster was "
            "reached through a drawn record"
        )
    if not replace and (record_draws > 1).any():
        raise InputError(
            "replace=False but some records were drawn more than once (e.g. "
            f"{examples(table.records[record_draws > 1])})"
        )
    draw_records = np.repeat(np.arange(table.records.shape[0], dtype=np.int64), record_draws)
    n_h = np.bincount(record_strata[draw_records], minlength=k)
    _check_strata(n_h, sizes, np.asarray(stratum_labels, dtype=object), replace)
    k_clusters = table.n_clusters
    cluster_sizes = np.bincount(table.codes, minlength=k_clusters).astype(np.float64)
    return ClusterSample(
        records=table.records,
        clusters=table.clusters,
        cluster_codes=table.codes,
        cluster_labels=table.labels,
        unit_of_cluster=np.arange(k_clusters, dtype=np.int64),
        unit_labels=table.labels,
        probabilities=cluster_sizes,
        draws=table.codes[draw_records],
        design="size_stratified",
        weights="cluster_size",
        replace=replace,
        record_strata=record_strata,
        draw_records=draw_records,
        stratum_labels=np.asarray(stratum_labels, dtype=object),
        stratum_sizes=sizes,
    )


def _check_strata(n_h: IntArray, sizes: IntArray, labels: npt.NDArray[Any], replace: bool) -> None:
    """Each stratum needs two draws (or, without replacement, all of its records)."""
    for h in range(sizes.shape[0]):
        # a stratum drawn whole, or of one record, has no variance to estimate
        census = (not replace and n_h[h] == sizes[h]) or (sizes[h] == 1 and n_h[h] >= 1)
        if n_h[h] < 2 and not census:
            raise InputError(
                f"design='size_stratified': stratum {labels[h]!r} has {int(n_h[h])} draw(s) of "
                f"its {int(sizes[h])} records; its variance needs at least 2 (draw more records "
                "there, or merge it with a neighbouring stratum)"
            )
        if not replace and n_h[h] > sizes[h]:
            raise InputError(
                f"design='size_stratified': stratum {labels[h]!r} has {int(n_h[h])} records "
                f"drawn without replacement but only {int(sizes[h])} in the population"
            )


def _whole_numbers(values: npt.NDArray[Any], col: str, *, minimum: int) -> IntArray:
    numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(
        dtype=np.float64
    )
    bad = ~np.isfinite(numbers) | (numbers != np.round(numbers)) | (numbers < minimum)
    if bad.any():
        raise InputError(
            f"design='size_stratified': the sample's '{col}' column must hold whole numbers "
            f">= {minimum}; received {examples(values[bad])}"
        )
    out: IntArray = numbers.astype(np.int64)
    return out
