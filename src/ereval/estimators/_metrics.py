"""Estimate a prediction's true performance from a weighted sample of labelled true clusters.

:func:`estimate` computes every estimator the sample and data allow, keyed by
the canonical metric names of :mod:`ereval.metrics` (the recommended form under
the plain name) plus the summary statistics of Binette et al. (2024, §3.1):

==========================  ===================================================
key                         estimator
==========================  ===================================================
``pairwise_precision``      block form, sum C(n,2) over sum n(b-1)/2; in [0, 1]
                            before bias correction (Binette 2022, eq. 14)
``pairwise_precision_       generic cluster form N f(c)/|P| over |c|
cluster``                   (Binette 2022, eq. 12); can exceed 1
``pairwise_precision_       record form (Binette 2022, eqs. 9-10); only for
record``                    size-proportional designs, where it equals the
                            cluster form
``pairwise_recall``         sum C(n,2) over C(|c|,2) (all forms coincide)
``pairwise_f1``             Binette 2024, Lemma 2 (``pairwise_fbeta`` if beta≠1)
``cluster_precision``       exact-match clusters over the predicted clusters,
                            each counted as sum_j n_cj/b_j over the true clusters
                            it meets; in [0, 1] before bias correction
``cluster_precision_        Binette 2024, Lemma 3: N 1[c predicted] over |Ĉ||c|
cluster``
``cluster_recall``          Lemma 3; ``cluster_f1`` and ``cluster_f1_cluster``
                            the matching F forms
``b3_precision``, ...       record-weighted B-cubed (ratio of cluster sums)
``b3_entity_precision``     entity-weighted B-cubed (Binette 2024, Lemma 4)
``homogeneity``             Binette 2024, Lemma 5; ``completeness`` likewise
``average_cluster_size``,   Binette 2024, eq. 4; ``homonymy_rate`` and
``matching_rate``           ``name_variation_rate`` (eqs. 2-3) need names
``<metric>_naive``          the benchmark scored alone (biased; no std)
==========================  ===================================================

Subgroup estimates (:func:`estimate_by_group`, or ``subgroup=``) keep the whole
prediction and restrict the sampled units to the subgroup's true clusters
(Binette et al. 2024, Remark 3). Forms whose target involves whole-population
constants (``N``, ``|Ĉ|``, ``|P|``, ``H(Ĉ)``) have no subgroup meaning and are
left out there.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import as_name_list, check_beta, describe, examples
from ..engines import Engine, EngineName
from ..io import Columns, factorize
from ..results import Estimate, normal_quantile, problem_warning, range_problems
from ._designs import ClusterSample, Design, WeightKind, as_sample
from ._intervals import DEFAULT_INTERVAL, IntervalMethod, check_interval
from ._leaving import Leaving, check_leaving, spec_terms
from ._naive import NAIVE_METRICS, naive_values
from ._ratio import (
    EstimationWarning,
    method_name,
    ratio_estimate,
    sample_advice,
    size_warning,
    undefined_warning,
)
from ._registry import SPEC_BY_KEY, SPECS, EstimatorSpec
from ._sample_input import plain, sample_table
from ._terms import (
    ClusterTerms,
    cluster_terms,
    prediction_engine,
    prepare_prediction,
)
from ._unequal_designs import PREDICTED_CLUSTER_ESTIMATORS, check_predicted_units

__all__ = [
    "GroupSetup",
    "available_estimators",
    "estimate",
    "estimate_by_group",
    "estimate_from_terms",
    "group_setup",
    "resolve_estimators",
]

NAIVE_METHOD = "naive (the labelled benchmark scored alone)"
NAIVE_NOTE = (
    "the *_naive values score the labelled benchmark alone, ignoring the sampling design and "
    "every predicted link that leaves it: they are biased and have no standard error; compare "
    "them, do not report them"
)
SINGLE_NOTE = (
    "design='single_block': standard errors and confidence intervals cannot be estimated "
    "from one block and are NaN"
)


def _size_proportional(sample: ClusterSample) -> bool:
    if sample.design == "size_stratified":
        return True
    return sample.weights == "cluster_size" and sample.design in ("record", "cluster")


def _unavailable(
    spec: EstimatorSpec, sample: ClusterSample, terms: ClusterTerms, subgroup: bool
) -> str | None:
    if sample.design == "predicted_cluster" and spec.key not in PREDICTED_CLUSTER_ESTIMATORS:
        return (
            "design='predicted_cluster' sees only the entities inside each sampled predicted "
            f"cluster, which identify {' and '.join(PREDICTED_CLUSTER_ESTIMATORS)} only "
            "(Binette et al. 2022, Remark 2)"
        )
    if spec.requires == "names" and not terms.has_names:
        return "it needs a name per record: pass 'names' (a column of the prediction or a mapping)"
    if spec.requires == "size_proportional" and not _size_proportional(sample):
        return (
            "it needs clusters drawn with probability proportional to size (design='record' "
            "or 'size_stratified', or design='cluster' with weights='cluster_size')"
        )
    if subgroup and not spec.subgroups:
        return (
            "its target involves whole-population constants and has no subgroup meaning "
            "(Binette et al. 2024, Remark 3)"
        )
    return None


def available_estimators(
    sample: ClusterSample,
    terms: ClusterTerms,
    *,
    beta: float = 1.0,
    subgroup: bool = False,
    naive: bool = True,
) -> list[str]:
    """The estimator keys :func:`estimate` reports by default for this sample and data."""
    keys: list[str] = []
    for i, spec in enumerate(SPECS):
        skip = spec.beta_only and beta == 1.0
        if not skip and _unavailable(spec, sample, terms, subgroup) is None:
            keys.append(spec.key)
        last_of_metric = i + 1 == len(SPECS) or SPECS[i + 1].metric != spec.metric
        predicted = sample.design == "predicted_cluster"
        if naive and not skip and not predicted and last_of_metric and spec.metric in NAIVE_METRICS:
            if spec.requires != "names" or terms.has_names:
                keys.append(f"{spec.metric}_naive")
    return keys


def resolve_estimators(
    metrics: str | Iterable[str], sample: ClusterSample, terms: ClusterTerms, subgroup: bool
) -> list[str]:
    names = as_name_list("metrics", metrics, what="estimator names")
    known = [s.key for s in SPECS] + [f"{m}_naive" for m in NAIVE_METRICS]
    out: list[str] = []
    for name in names:
        if name.endswith("_naive") and name[: -len("_naive")] in NAIVE_METRICS:
            base = name[: -len("_naive")]
            if sample.design == "predicted_cluster":
                raise InputError(
                    f"cannot compute '{name}' here: design='predicted_cluster' labels pieces of "
                    "entities, whose naive metrics mean nothing"
                )
            if base in ("homonymy_rate", "name_variation_rate") and not terms.has_names:
                raise InputError(f"cannot compute '{name}': it needs a name per record ('names')")
        elif name in SPEC_BY_KEY:
            why = _unavailable(SPEC_BY_KEY[name], sample, terms, subgroup)
            if why:
                raise InputError(f"cannot compute '{name}' here: {why}")
        else:
            raise InputError(f"'metrics' has unknown name {name!r}; known: {', '.join(known)}")
        out.append(name)
    return list(dict.fromkeys(out))


def _warn_undefined(key: str) -> None:
    warnings.warn(undefined_warning(key), EstimationWarning, stacklevel=3)


def estimate_from_terms(
    terms: ClusterTerms,
    sample: ClusterSample,
    keys: Iterable[str],
    *,
    keep: npt.NDArray[np.bool_] | None = None,
    beta: float = 1.0,
    level: float = 0.95,
    interval: IntervalMethod = DEFAULT_INTERVAL,
    fpc: bool = True,
    leaving: Leaving = "half",
) -> dict[str, Estimate]:
    """Evaluate the estimators ``keys`` from precomputed per-cluster statistics.

    ``keep`` restricts the sample to some clusters (a subgroup): units without a
    kept cluster are dropped and kept units sum over their kept clusters only
    (for the size-stratified design they stay as draws of value 0, so that each
    stratum keeps its ``n_h``: a domain estimate). ``fpc=False`` leaves out the
    finite-population correction of a sample drawn without replacement.
    ``leaving="full"`` counts each predicted link leaving a kept cluster whole
    (meant for subgroups; see :mod:`ereval.estimators._leaving`).
    """
    normal_quantile(level)
    leaving = check_leaving(leaving)
    mask = np.ones(terms.n_clusters, dtype=bool) if keep is None else keep
    units = sample.unit_of_cluster
    kept_unit = np.bincount(units, weights=mask, minlength=sample.n_units) > 0
    strata: npt.NDArray[np.int64] | None = None
    stratum_theta: npt.NDArray[np.float64] | None = None
    if sample.stratified:
        draws = sample.draws
        inv_p = sample.draw_weights / sample.probabilities[draws]
        strata = sample.draw_strata
        stratum_theta = sample.stratum_theta(fpc=fpc)
    else:
        draws = sample.draws[kept_unit[sample.draws]]
        inv_p = 1.0 / sample.probabilities[draws]
    theta = sample.theta if fpc else 1.0
    n = int(draws.shape[0])
    design = sample.design
    keys = list(keys)
    naive = (
        naive_values(terms, keep=mask, beta=beta) if any(k.endswith("_naive") for k in keys) else {}
    )
    n_clusters = int(mask.sum())
    out: dict[str, Estimate] = {}
    for key in keys:
        if key.endswith("_naive") and key not in SPEC_BY_KEY:
            metric = key[: -len("_naive")]
            value = naive.get(metric, math.nan)
            notes = (NAIVE_NOTE,) if math.isfinite(value) else (NAIVE_NOTE, undefined_warning(key))
            nan_pair = (math.nan, math.nan)
            out[key] = Estimate(value, math.nan, nan_pair, level, n_clusters, NAIVE_METHOD, notes)
            if math.isnan(value):
                _warn_undefined(key)
            continue
        spec = SPEC_BY_KEY[key]
        affine = spec.affine(terms)
        if affine is None:
            out[key] = Estimate(
                1.0,
                0.0,
                (1.0, 1.0),
                level,
                n,
                "fixed by convention",
                (f"'{key}' is 1 by convention: the prediction has a single cluster",),
            )
            continue
        f, g = spec_terms(spec, leaving)(terms, beta)
        b = np.bincount(units, weights=f * mask, minlength=sample.n_units)[draws] * inv_p
        a = np.bincount(units, weights=g * mask, minlength=sample.n_units)[draws] * inv_p
        gm = g * mask
        squares = np.bincount(units, weights=gm * gm, minlength=sample.n_units)[draws] * inv_p**2
        offset, scale = affine
        if sample.inclusion and fpc:
            # Horvitz-Thompson rows b = B/pi, a = A/pi; Hajek's variance (_inclusion.py)
            theta = sample.theta_for(b, a, draws)
        if design == "single_block" or n < 2:
            out[key] = _ratio_of_sums(key, spec, b, a, offset, scale, design, level)
        else:
            out[key] = ratio_estimate(
                b,
                a,
                theta=theta,
                level=level,
                design=design,
                name=key,
                form=spec.form,
                offset=offset,
                scale=scale,
                bounds=spec.bounds,
                interval=interval,
                proportion=spec.proportion,
                squares=squares,
                strata=strata,
                stratum_theta=stratum_theta,
            )
        if math.isnan(out[key].value):
            _warn_undefined(key)
    return out


def _ratio_of_sums(
    key: str,
    spec: EstimatorSpec,
    b: npt.NDArray[np.float64],
    a: npt.NDArray[np.float64],
    offset: float,
    scale: float,
    design: str,
    level: float,
) -> Estimate:
    """A single block, or a subgroup with one draw: the ratio of sums, without a variance."""
    n = int(a.shape[0])
    total = float(a.sum())
    value = offset + scale * float(b.sum()) / total if total != 0 else math.nan
    notes: list[str | None] = []
    problems = range_problems(value, math.nan, level=level, bounds=spec.bounds)
    if math.isnan(value):
        notes.append(undefined_warning(key))
    elif design == "single_block":
        notes.append(SINGLE_NOTE)
    else:
        notes.append(size_warning(n, design))
        problems.insert(0, "rests on a single draw, so it has no standard error")
    notes.append(problem_warning(f"'{key}'", problems, sample_advice(n, design)))
    method = method_name(spec.form, design, kind="ratio of sums")
    kept = tuple(w for w in notes if w)
    return Estimate(value, math.nan, (math.nan, math.nan), level, n, method, kept)


def _sample_and_terms(
    pred: Any,
    sample: Any,
    design: Design | None,
    weights: Any,
    names: Any,
    record_col: Columns,
    cluster_col: str,
    engine: Any,
    options: Mapping[str, Any],
) -> tuple[ClusterSample, ClusterTerms]:
    if isinstance(sample, ClusterSample):
        s = as_sample(sample, design=design, weights=weights, **options)
    else:
        s = as_sample(
            sample,
            design=design,
            weights=weights,
            record_col=record_col,
            cluster_col=cluster_col,
            **options,
        )
    # the engine picks the path: in memory the records are not needed, an SQL engine
    # brings back only what the sample touches
    prepared = prepare_prediction(
        pred,
        names=names,
        index=False,
        record_col=record_col,
        cluster_col=cluster_col,
        records=s.records,
        engine=engine,
    )
    terms = cluster_terms(prepared, s)
    if s.design == "predicted_cluster":
        check_predicted_units(s, terms)
    return s, terms


def _sample_options(
    weight_kind: WeightKind,
    blocks: Any,
    draws: Any,
    replace: bool,
    population_size: int | None,
) -> dict[str, Any]:
    """The options of :func:`as_sample` that were given (a ClusterSample refuses any)."""
    given: dict[str, Any] = {"blocks": blocks, "draws": draws, "population_size": population_size}
    out = {k: v for k, v in given.items() if v is not None}
    if weight_kind != "probability":
        out["weight_kind"] = weight_kind
    if replace is not True:
        out["replace"] = replace
    return out


def estimate(
    pred: Any,
    sample: Any,
    *,
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
    interval: IntervalMethod = DEFAULT_INTERVAL,
    fpc: bool = True,
    names: Any = None,
    subgroup: Iterable[Any] | None = None,
    leaving: Leaving = "half",
    naive: bool = True,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
    engine: EngineName | Engine = "auto",
) -> dict[str, Estimate]:
    """Estimate performance metrics and summary statistics of ``pred`` from a labelled sample.

    Parameters
    ----------
    pred : clustering or PreparedPrediction
        The predicted clustering of the *whole* population (any form of
        :func:`ereval.io.as_membership`, or :func:`prepare_prediction`'s result).
    sample : ClusterSample or clustering
        The labelled true clusters: a :class:`ClusterSample` from
        :func:`as_sample` / :func:`draw_sample`, or a clustering together with
        ``design`` and ``weights`` (use :func:`as_sample` for blocks, repeated
        draws or sampling without replacement).
    design, weights, weight_kind, blocks, draws, replace, population_size
        How the sample was drawn, as for :func:`as_sample` (``draws``: a column
        of per-unit draw counts, a mapping unit id -> count, or the sequence of
        drawn unit ids); only with a plain clustering as ``sample``.
    metrics : str or list of str, optional
        Estimator keys to compute (comma-separated or a list); default every
        estimator the sample and data allow (see the module docstring).
    beta : float, default 1.0
        Weight of recall in F-beta; when not 1, ``*_fbeta`` keys are added.
    level : float, default 0.95
        Confidence level of the intervals.
    interval : {"skew_beta", "wilson", "normal"}, default "skew_beta"
        The intervals (see :mod:`ereval.estimators._intervals`). For the scores
        and rates: the beta (Clopper-Pearson) interval with the design's
        effective sample size, widened on the long side of a skewed estimate,
        which holds its level near 0 and 1 and under rare large errors; the
        equal-tailed Wilson score interval with the same effective sample size;
        or the normal interval clamped to ``[0, 1]``. The ``*_cluster`` forms
        and the average cluster size get the clamped normal interval, widened
        on the long side under ``"skew_beta"``.
    fpc : bool, default True
        Apply the finite-population correction to a sample drawn without
        replacement whose population size is known (``population_size``; for
        the size-stratified design each stratum's ``N_h``): ``1 - n/N`` for
        records, ``1 - (n-1)/(T-1)`` for clusters and blocks. It is exact for
        records, so it is applied whatever the sampled share; below a 2% share
        it moves the standard error by less than 1%. A sample with inclusion
        probabilities (clusters or blocks drawn without replacement with
        unequal probabilities) gets Hájek's variance instead, 0 for a census
        (:mod:`ereval.estimators._inclusion`); ``False`` forces it off (the
        with-replacement approximation).
    names : str or mapping, optional
        Record names for the homonymy and name-variation rates (see
        :func:`prepare_prediction`).
    subgroup : iterable of cluster ids, optional
        Restrict the estimates to these true clusters (ids that were not sampled
        are allowed and play no role), keeping the whole prediction.
    leaving : {"half", "full"}, default "half"
        With ``subgroup``: how a predicted link from a subgroup cluster to a
        record outside it counts in the denominators of pairwise precision and
        F and of the block forms of cluster precision and F: 1/2 (shared with
        the other cluster, so that the groups add up to the whole), or 1 (the
        wording of Binette et al. 2024, Remark 3: every link touching the
        subgroup's entities). See :mod:`ereval.estimators._leaving`.
    naive : bool, default True
        Include the ``*_naive`` values in the default selection.
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        Who reads ``pred``: in memory (NumPy), or DuckDB / Spark, which read a
        big prediction where it is (a file, a glob or a folder of parts, a DuckDB
        relation, a Spark DataFrame), push the sample's record ids into it and
        bring back only the clusters the sample touches (see
        :mod:`ereval.estimators._sql`; ``names`` must then be column(s) of
        ``pred``). ``"auto"`` picks NumPy unless ``pred`` is too big for memory,
        a DuckDB relation or a Spark DataFrame (:func:`ereval.engines.get_engine`).
        Every engine gives the same estimates (to the last bits of the floats).

    Returns
    -------
    dict of str to Estimate
        In a fixed order: each metric's recommended form, its other forms, then
        its naive value.

    Raises
    ------
    InputError
        Sample records absent from the prediction, invalid weights, a design
        that does not fit the data, fewer than 2 draws (except ``single_block``).

    Warns
    -----
    EstimationWarning
        An estimate is undefined for this sample (NaN), or the design is
        ``single_block`` (no standard errors).

    Examples
    --------
    >>> pred = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}
    >>> sample = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 8: "c4"}
    >>> est = estimate(pred, sample, design="cluster", weights="uniform",
    ...                metrics="pairwise_precision, pairwise_recall")
    >>> round(est["pairwise_precision"].value, 6), round(est["pairwise_recall"].std, 6)
    (0.388889, 0.108253)
    """
    beta = check_beta(beta)
    normal_quantile(level)
    interval = check_interval(interval)
    leaving = check_leaving(leaving)
    if leaving == "full" and subgroup is None:
        raise InputError(
            "'leaving' = 'full' counts the links leaving a subgroup; it needs 'subgroup' (over "
            "the whole population every link is shared by two true clusters)"
        )
    chosen = prediction_engine(
        pred,
        engine,
    )
    s, terms = _sample_and_terms(
        pred,
        sample,
        design,
        weights,
        names,
        record_col,
        cluster_col,
        chosen,
        _sample_options(weight_kind, blocks, draws, replace, population_size),
    )
    keep = None if subgroup is None else _subgroup_mask(s, subgroup)
    n_draws = s.n_draws if keep is None else _kept_draws(s, keep)
    if s.design != "single_block" and n_draws < 2:
        raise InputError(
            f"the sample has {n_draws} draw(s){' in the subgroup' if keep is not None else ''}; "
            "ratio estimators need at least 2 for their bias correction and variance "
            "(use design='single_block' for one block)"
        )
    keys = (
        available_estimators(s, terms, beta=beta, subgroup=keep is not None, naive=naive)
        if metrics is None
        else resolve_estimators(metrics, s, terms, keep is not None)
    )
    if s.design == "single_block":
        warnings.warn(SINGLE_NOTE, EstimationWarning, stacklevel=2)
    if not isinstance(fpc, bool):
        raise InputError(f"'fpc' must be True or False; received {describe(fpc)}")
    return estimate_from_terms(
        terms,
        s,
        keys,
        keep=keep,
        beta=beta,
        level=level,
        interval=interval,
        fpc=fpc,
        leaving=leaving,
    )


def _kept_draws(sample: ClusterSample, keep: npt.NDArray[np.bool_]) -> int:
    kept_unit = np.bincount(sample.unit_of_cluster, weights=keep, minlength=sample.n_units) > 0
    return int(kept_unit[sample.draws].sum())


def _subgroup_mask(sample: ClusterSample, subgroup: Iterable[Any]) -> npt.NDArray[np.bool_]:
    if isinstance(subgroup, str | bytes) or not isinstance(subgroup, Iterable):
        raise InputTypeError(
            f"'subgroup' must be a collection of true cluster ids; received {describe(subgroup)}"
        )
    ids = pd.Index(list(subgroup), dtype=object)
    mask = ids.get_indexer(pd.Index(sample.cluster_labels, dtype=object)) >= 0
    if not mask.any():
        raise InputError(
            f"no sampled cluster belongs to 'subgroup' (sampled ids are e.g. "
            f"{examples(sample.cluster_labels)}; the subgroup has e.g. {examples(np.asarray(ids))})"
        )
    return np.asarray(mask, dtype=bool)


def estimate_by_group(
    pred: Any,
    sample: Any,
    groups: Any,
    *,
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
    interval: IntervalMethod = DEFAULT_INTERVAL,
    leaving: Leaving = "half",
    names: Any = None,
    naive: bool = True,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
    engine: EngineName | Engine = "auto",
) -> dict[Any, dict[str, Estimate]]:
    """Estimates per subgroup of true clusters (Binette et al. 2024, Remark 3).

    Parameters
    ----------
    groups : str or mapping
        The group of each sampled true cluster: a mapping from cluster id to
        group label, or a column of the sample table (constant within each
        cluster). Every sampled cluster needs a group.
    leaving : {"half", "full"}, default "half"
        How a predicted link leaving a group's clusters counts (see
        :func:`estimate` and :mod:`ereval.estimators._leaving`).
    pred, sample, design, weights, weight_kind, blocks, draws, replace, population_size, metrics, beta, level, interval, names, naive, record_col, cluster_col, engine
        As for :func:`estimate`.

    Returns
    -------
    dict
        Group label -> estimates, groups in order of first appearance. A group
        with fewer than 2 draws gets point estimates without standard errors,
        with an :class:`EstimationWarning`.
    """
    beta = check_beta(beta)
    setup = group_setup(
        pred,
        sample,
        groups,
        design=design,
        weights=weights,
        names=names,
        record_col=record_col,
        cluster_col=cluster_col,
        engine=engine,
        options=_sample_options(weight_kind, blocks, draws, replace, population_size),
        beta=beta,
        level=level,
        interval=interval,
        leaving=leaving,
    )
    s, terms = setup.sample, setup.terms
    out: dict[Any, dict[str, Estimate]] = {}
    for label, keep in setup.masks.items():
        keys = (
            available_estimators(s, terms, beta=beta, subgroup=True, naive=naive)
            if metrics is None
            else resolve_estimators(metrics, s, terms, True)
        )
        n_draws = _kept_draws(s, keep)
        if n_draws < 2 and s.design != "single_block":
            warnings.warn(
                f"group {plain(label)!r} has {n_draws} draw(s): no standard error can be estimated",
                EstimationWarning,
                stacklevel=2,
            )
        out[label] = estimate_from_terms(
            terms,
            s,
            keys,
            keep=keep,
            beta=beta,
            level=level,
            interval=interval,
            leaving=setup.leaving,
        )
    return out


@dataclass(frozen=True, eq=False)
class GroupSetup:
    """A sample, its per-cluster statistics and the cluster mask of each group."""

    sample: ClusterSample
    terms: ClusterTerms
    masks: dict[Any, npt.NDArray[np.bool_]]
    leaving: Leaving


def group_setup(
    pred: Any,
    sample: Any,
    groups: Any,
    *,
    design: Design | None,
    weights: Any,
    names: Any,
    record_col: Columns,
    cluster_col: str,
    engine: EngineName | Engine,
    options: Mapping[str, Any],
    beta: float,
    level: float,
    interval: IntervalMethod,
    leaving: Leaving,
) -> GroupSetup:
    """Check the options, read the sample and the prediction, and mask each group."""
    check_beta(beta)
    normal_quantile(level)
    check_interval(interval)
    checked = check_leaving(leaving)
    chosen = prediction_engine(
        pred,
        engine,
    )
    s, terms = _sample_and_terms(
        pred, sample, design, weights, names, record_col, cluster_col, chosen, options
    )
    labels = _group_labels(sample, s, groups, record_col, cluster_col)
    codes, uniq = factorize(labels)
    masks = {label: codes == g for g, label in enumerate(np.asarray(uniq).tolist())}
    return GroupSetup(s, terms, masks, checked)


def _group_labels(
    raw: Any, sample: ClusterSample, groups: Any, record_col: Columns, cluster_col: str
) -> npt.NDArray[Any]:
    if isinstance(groups, str):
        if isinstance(raw, ClusterSample):
            raise InputError(
                "'groups' names a column but 'sample' is a ClusterSample; give a mapping from "
                "cluster id to group"
            )
        table = sample_table(raw, record_col=record_col, cluster_col=cluster_col)
        values = table.column(groups, name="groups")
        missing = np.asarray(pd.isna(values))
        if missing.any():
            raise InputError(f"'groups' is missing for {int(missing.sum())} sampled record(s)")
        per = pd.Series(values).groupby(table.codes).agg(["nunique", "first"])
        if (per["nunique"] > 1).any():
            bad = table.labels[int(per.index[per["nunique"].to_numpy() > 1][0])]
            raise InputError(
                f"'groups' must be constant within each cluster; cluster {plain(bad)!r} "
                "has several groups"
            )
        by_label = pd.Series(per["first"].to_numpy(), index=pd.Index(table.labels, dtype=object))
        return np.asarray(by_label.reindex(pd.Index(sample.cluster_labels, dtype=object)))
    if isinstance(groups, Mapping | pd.Series):
        series = groups if isinstance(groups, pd.Series) else pd.Series(dict(groups), dtype=object)
        pos = series.index.get_indexer(pd.Index(sample.cluster_labels, dtype=object))
        if (pos < 0).any():
            raise InputError(
                f"'groups' has no group for {int((pos < 0).sum())} sampled cluster(s) (e.g. "
                f"{examples(sample.cluster_labels[pos < 0])})"
            )
        values = np.asarray(series.to_numpy(dtype=object))[pos]
        if np.asarray(pd.isna(values)).any():
            raise InputError("'groups' is missing (None/NaN) for some sampled cluster(s)")
        out: npt.NDArray[Any] = values
        return out
    raise InputTypeError(
        f"'groups' must be a column name or a mapping from cluster id to group; received "
        f"{describe(groups)}"
    )
