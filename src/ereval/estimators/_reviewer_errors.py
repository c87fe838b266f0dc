"""How much reviewers' mistakes move the estimates: a seeded sensitivity study.

The estimators treat the labelled clusters as the truth (Binette et al. 2024,
§3.4; Binette et al. 2022, §4 discuss the labels' own errors). Reviewers err in
two ways:

* **over-clustering** -- a record put in the sampled entity does not belong to it;
* **under-clustering** -- a record of the entity was left out (split off).

Given the rates ``over`` and ``under`` *given the label* (of the records a
reviewer put with an entity, the share that does not belong; of the candidates
left out, the share that does), :func:`reviewer_sensitivity` simulates truths
consistent with the labels and re-estimates from each:

1. every record of a sampled cluster except its anchor (the record whose id is
   the cluster's id, as in a benchmark exported from the label store, else the
   cluster's first record) leaves the cluster with probability ``over``; a
   record that leaves belongs to an unsampled entity and drops out of the sample;
2. every candidate -- a record of a predicted cluster that meets the sampled
   cluster, outside every sampled cluster -- joins it with probability
   ``under`` (a candidate drawn by two clusters joins the first);
3. the sampling probabilities follow: a size-proportional design (record, or
   ``weights="cluster_size"``) draws the simulated entity with probability
   proportional to its new size; uniform and custom probabilities are kept;
4. every estimator is recomputed from the perturbed sample against the same
   prediction.

With ``repeats`` seeded repeats, each estimator's *shift* (perturbed minus
plain estimate) is summarised by its mean, standard deviation and central
``level`` range. ``over = under = 0`` reproduces the plain estimates exactly.
The rates can come from double-reviewed items
(:func:`ereval.estimators.reviewer_error_rate`).

The designs whose probabilities are defined per record (size-stratified,
expected-error) or per predicted cluster are not supported: moving a record
would change a stratum or a record probability the sample does not give.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import check_beta, check_int, describe
from ..io import Columns
from ..results import Estimate, FrameRepr, json_ready, normal_quantile
from ._designs import ClusterSample, Design, WeightKind, as_sample
from ._metrics import (
    _sample_options,
    available_estimators,
    estimate_from_terms,
    resolve_estimators,
)
from ._ratio import ratio_of_means
from ._registry import SPEC_BY_KEY
from ._terms import PreparedPrediction, cluster_terms, prepare_prediction

__all__ = [
    "ReviewerModel",
    "ReviewerSensitivity",
    "EstimateShift",
    "check_rate",
    "reviewer_model",
    "reviewer_sensitivity",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_UNSUPPORTED = ("size_stratified", "expected_error", "predicted_cluster", "single_block")


def check_rate(name: str, value: Any) -> float:
    """A rate in ``[0, 1]``, else an error naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise InputError(f"'{name}' must be a number in [0, 1]; received {describe(value)}")
    rate = float(value)
    if not 0.0 <= rate <= 1.0:
        raise InputError(f"'{name}' must lie in [0, 1]; received {rate!r}")
    return rate


@dataclass(frozen=True, eq=False)
class ReviewerModel:
    """A sample and prediction ready for perturbation.

    Attributes
    ----------
    sample : ClusterSample
    prepared : PreparedPrediction
    anchor : ndarray of bool
        Per sample record: the record that never leaves its cluster.
    candidates : ndarray of int64
        Positions in the prediction of the records that may join a cluster.
    candidate_cluster : ndarray of int64
        The sample cluster code each candidate may join (a record may appear
        once per cluster whose predicted clusters it shares).
    """

    sample: ClusterSample
    prepared: PreparedPrediction
    anchor: BoolArray
    candidates: IntArray
    candidate_cluster: IntArray

    def perturb(self, rng: np.random.Generator, *, over: float, under: float) -> ClusterSample:
        """One simulated truth consistent with the labels (see the module docstring)."""
        s = self.sample
        leave = (rng.random(s.records.shape[0]) < over) & ~self.anchor
        joins = rng.random(self.candidates.shape[0]) < under
        joined = np.flatnonzero(joins)
        _, first = np.unique(self.candidates[joined], return_index=True)
        joined = np.sort(joined[first])
        records = np.concatenate(
            [s.records[~leave], self.prepared.records[self.candidates[joined]]]
        )
        codes = np.concatenate([s.cluster_codes[~leave], self.candidate_cluster[joined]]).astype(
            np.int64
        )
        probabilities = s.probabilities
        if s.weights == "cluster_size":
            per_unit = s.unit_of_cluster[codes]
            probabilities = np.bincount(per_unit, minlength=s.n_units).astype(np.float64)
        return replace(
            s,
            records=records,
            clusters=s.cluster_labels[codes],
            cluster_codes=codes,
            probabilities=probabilities,
        )


def _anchors(sample: ClusterSample) -> BoolArray:
    k = sample.n_clusters
    codes = sample.cluster_codes
    same = np.asarray(
        pd.Series(sample.records, dtype=object).to_numpy()
        == pd.Series(sample.cluster_labels[codes], dtype=object).to_numpy()
    ).astype(bool)
    has_named = np.bincount(codes, weights=same, minlength=k) > 0
    first = np.zeros(codes.shape[0], dtype=bool)
    _, idx = np.unique(codes, return_index=True)
    first[idx] = True
    named_first = np.zeros(codes.shape[0], dtype=bool)
    hits = np.flatnonzero(same)
    _, idx2 = np.unique(codes[hits], return_index=True)
    named_first[hits[idx2]] = True
    out: BoolArray = np.where(has_named[codes], named_first, first)
    return out


def reviewer_model(prepared: PreparedPrediction, sample: ClusterSample) -> ReviewerModel:
    """Find each sample cluster's anchor and its candidates in the prediction once."""
    if sample.design in _UNSUPPORTED:
        raise InputError(
            f"the reviewer-error study does not support design='{sample.design}' (its "
            "probabilities are per record, per predicted cluster, or it has no variance); use "
            "the record, cluster or block design"
        )
    terms = cluster_terms(prepared, sample)  # checks that every sampled record is predicted
    pos = prepared.locate(sample.records)
    cells = pd.DataFrame({"pred": terms.cols, "cluster": terms.rows}).drop_duplicates()
    touched = np.unique(terms.cols)
    in_touched = np.isin(prepared.codes, touched)
    in_touched[pos] = False
    free = np.flatnonzero(in_touched)
    pairs = pd.DataFrame({"position": free, "pred": prepared.codes[free]}).merge(
        cells, on="pred", how="inner", sort=True
    )
    return ReviewerModel(
        sample,
        prepared,
        _anchors(sample),
        pairs["position"].to_numpy(dtype=np.int64),
        pairs["cluster"].to_numpy(dtype=np.int64),
    )


@dataclass(frozen=True)
class EstimateShift:
    """How one estimator moves under the simulated reviewer errors.

    Attributes
    ----------
    estimate : Estimate
        The plain estimate (labels taken as the truth).
    mean, std : float
        Mean and standard deviation of the shift (perturbed minus plain) over
        the repeats.
    lower, upper : float
        The central ``level`` range of the shifts (empirical quantiles).
    perturbed : float
        Mean perturbed estimate (``estimate.value + mean``).
    """

    estimate: Estimate
    mean: float
    std: float
    lower: float
    upper: float
    perturbed: float


@dataclass(frozen=True, eq=False)
class ReviewerSensitivity(FrameRepr):
    """The sensitivity table of :func:`reviewer_sensitivity`.

    Attributes
    ----------
    over, under : float
        The assumed rates given the label.
    repeats : int
    seed : int or None
    level : float
        Level of the shifts' central range.
    shifts : dict
        Estimator key -> :class:`EstimateShift`.
    """

    over: float
    under: float
    repeats: int
    seed: int | None
    level: float
    shifts: dict[str, EstimateShift]

    def to_frame(self) -> pd.DataFrame:
        """One row per estimator: ``estimator, estimate, perturbed, shift_mean, shift_std,
        shift_lower, shift_upper``."""
        return pd.DataFrame(
            [
                {
                    "estimator": k,
                    "estimate": s.estimate.value,
                    "perturbed": s.perturbed,
                    "shift_mean": s.mean,
                    "shift_std": s.std,
                    "shift_lower": s.lower,
                    "shift_upper": s.upper,
                }
                for k, s in self.shifts.items()
            ],
            columns=[
                "estimator",
                "estimate",
                "perturbed",
                "shift_mean",
                "shift_std",
                "shift_lower",
                "shift_upper",
            ],
        )

    def to_dict(self) -> dict[str, Any]:
        """The rates, repeats, seed, level and per estimator its estimate and shift."""
        out: dict[str, Any] = json_ready(
            {
                "over": self.over,
                "under": self.under,
                "repeats": self.repeats,
                "seed": self.seed,
                "level": self.level,
                "estimators": {
                    k: {
                        "estimate": s.estimate.to_dict(),
                        "perturbed": s.perturbed,
                        "shift_mean": s.mean,
                        "shift_std": s.std,
                        "shift_interval": [s.lower, s.upper],
                    }
                    for k, s in self.shifts.items()
                },
            }
        )
        return out


def reviewer_sensitivity(
    pred: Any,
    sample: Any,
    *,
    over: float = 0.0,
    under: float = 0.0,
    repeats: int = 200,
    seed: int | None = None,
    design: Design | None = None,
    weights: Any = None,
    weight_kind: WeightKind = "probability",
    blocks: Any = None,
    draws: Any = None,
    replace: bool = True,
    population_size: int | None = None,
    metrics: str | Iterable[str] | None = None,
    beta: float = 1.0,
    level: float = 0.95,
    names: Any = None,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
) -> ReviewerSensitivity:
    """Estimates under an assumed rate of reviewer mistakes: the sensitivity table.

    Parameters
    ----------
    pred : clustering or PreparedPrediction
        The prediction over the whole population (read in memory: the
        candidates for under-clustering are its records).
    sample, design, weights, weight_kind, blocks, draws, replace, population_size, metrics, beta, level, names, record_col, cluster_col
        As for :func:`ereval.estimators.estimate` (record, cluster and block
        designs; no naive values).
    over : float, default 0.0
        Over-clustering rate given the label: the chance that a record a
        reviewer put in a sampled cluster does not belong there.
    under : float, default 0.0
        Under-clustering rate given the label: the chance that a candidate
        record (in a predicted cluster meeting the sampled cluster, outside the
        sample) that was left out does belong.
    repeats : int, default 200
        Simulated truths.
    seed : int, optional
        Seed of the simulation (``numpy.random.default_rng``).

    Returns
    -------
    ReviewerSensitivity
        Per estimator the plain estimate and the shift's mean, standard
        deviation and central ``level`` range.

    Notes
    -----
    See :mod:`ereval.estimators._reviewer_errors`. Each repeat's estimate is the
    bias-corrected ratio estimator (Binette et al. 2022, eq. 7) of the
    perturbed sample.

    Examples
    --------
    >>> pred = {1: "x", 2: "x", 3: "x", 4: "y", 5: "y", 6: "z"}
    >>> sample = {1: "a", 2: "a", 4: "b", 5: "b", 6: "c"}
    >>> t = reviewer_sensitivity(pred, sample, design="cluster", weights="uniform",
    ...                          metrics="pairwise_precision", over=0.0, under=0.0,
    ...                          repeats=5, seed=1)
    >>> s = t.shifts["pairwise_precision"]
    >>> s.mean, s.std
    (0.0, 0.0)
    """
    over = check_rate("over", over)
    under = check_rate("under", under)
    repeats = check_int("repeats", repeats, minimum=1)
    beta = check_beta(beta)
    normal_quantile(level)
    if seed is not None:
        seed = check_int("seed", seed, minimum=0)
    prepared = prepare_prediction(pred, names=names, record_col=record_col, cluster_col=cluster_col)
    if isinstance(sample, ClusterSample):
        s = as_sample(sample, design=design, weights=weights)
    else:
        s = as_sample(
            sample,
            design=design,
            weights=weights,
            record_col=record_col,
            cluster_col=cluster_col,
            **_sample_options(weight_kind, blocks, draws, replace, population_size),
        )
    model = reviewer_model(prepared, s)
    if s.n_draws < 2:
        raise InputError(f"the sample has {s.n_draws} draw(s); the estimators need at least 2")
    terms = cluster_terms(prepared, s)
    keys = (
        available_estimators(s, terms, beta=beta, naive=False)
        if metrics is None
        else resolve_estimators(metrics, s, terms, False)
    )
    keys = [k for k in keys if k in SPEC_BY_KEY]
    if not keys:
        raise InputError("'metrics' names no estimator the study can perturb (naive values)")
    plain = estimate_from_terms(terms, s, keys, beta=beta, level=level)
    rng = np.random.default_rng(seed)
    rows: dict[str, tuple[list[FloatArray], list[FloatArray]]] = {k: ([], []) for k in keys}
    for _ in range(repeats):
        ps = model.perturb(rng, over=over, under=under)
        t = cluster_terms(prepared, ps)
        inv_p = 1.0 / ps.probabilities[ps.draws]
        units = ps.unit_of_cluster
        for key in keys:
            f, g = SPEC_BY_KEY[key].terms(t, beta)
            rows[key][0].append(
                np.bincount(units, weights=f, minlength=ps.n_units)[ps.draws] * inv_p
            )
            rows[key][1].append(
                np.bincount(units, weights=g, minlength=ps.n_units)[ps.draws] * inv_p
            )
    shifts: dict[str, EstimateShift] = {}
    tail = (1.0 - level) / 2.0
    for key in keys:
        spec = SPEC_BY_KEY[key]
        affine = spec.affine(terms)
        offset, scale = (1.0, 0.0) if affine is None else affine
        est, _ = ratio_of_means(np.vstack(rows[key][0]), np.vstack(rows[key][1]), theta=s.theta)
        values = offset + scale * est
        diff = values - plain[key].value
        finite = diff[np.isfinite(diff)]
        if finite.size == 0:
            shifts[key] = EstimateShift(
                plain[key], math.nan, math.nan, math.nan, math.nan, math.nan
            )
            continue
        mean = float(finite.mean())
        std = float(finite.std(ddof=1)) if finite.size > 1 else math.nan
        lo, hi = (float(x) for x in np.quantile(finite, [tail, 1.0 - tail]))
        shifts[key] = EstimateShift(plain[key], mean, std, lo, hi, plain[key].value + mean)
    return ReviewerSensitivity(over, under, repeats, seed, float(level), shifts)
