"""Drawing records by the size of their predicted cluster (the ``"size_stratified"`` design).

:func:`plan_size_stratified` draws the records to label from the prediction
alone (what a labelling campaign starts from); :func:`draw_size_stratified`
does the same on a known truth and returns the labelled sample a campaign
would bring back (for simulations and planning). Both go through
:func:`stratified_draws`. :func:`pilot_sd` turns a labelled pilot sample into
the strata's standard deviations for Neyman allocation.

Neyman allocation from a pilot minimises the sum of the chosen estimators'
squared coefficients of variation: with ``d_i = (y_B,i - R y_A,i) / ybar_A``
each record's linearised, relative term for estimator ``m`` (``y_i = f(c)/|c|``
the record's share of its true cluster's numerator or denominator), ``S_h^2 =
sum_m S_hm^2`` and ``n_h ∝ N_h S_h`` (Cochran 1977, §5.5 and §5A.3). ``S_hm`` is
the pilot's weighted standard deviation of ``d`` among its records of stratum
``h`` (each record weighted by its cluster's design weight); a stratum the pilot
does not reach gets the largest ``S_h`` seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import as_name_list, check_rng
from ..io import Columns
from . import _strata as strata_module
from ._designs import (
    RECORD_DRAWS_COL,
    STRATUM_COL,
    STRATUM_RECORDS_COL,
    ClusterSample,
    _subsample,
    as_sample,
)
from ._registry import SPEC_BY_KEY
from ._strata import (
    Allocation,
    SizeStrata,
    allocate,
    check_allocation,
    proxy_sd,
    size_strata,
    stratum_sd,
)
from ._terms import PreparedPrediction, absent_error, check_id_kinds, cluster_terms
from ._terms import prepare_prediction as _prepare

__all__ = [
    "PILOT_METRICS",
    "draw_size_stratified",
    "pilot_sd",
    "plan_size_stratified",
    "prediction_strata",
    "stratified_draws",
    "stratum_allocation",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: The estimators whose variances a pilot's Neyman allocation minimises by default.
PILOT_METRICS = ("pairwise_precision", "pairwise_recall")


def prediction_strata(
    pred: Any,
    *,
    strata: Any = None,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
) -> tuple[PreparedPrediction, SizeStrata]:
    """The prediction factorised, and the size stratum of each of its records."""
    prepared = _prepare(pred, index=False, record_col=record_col, cluster_col=cluster_col)
    return prepared, size_strata(prepared.sizes[prepared.codes], bounds=strata)


def _record_strata(prepared: PreparedPrediction, st: SizeStrata, records: Any) -> IntArray:
    check_id_kinds(np.asarray(records), prepared.records)
    pos = prepared.locate(np.asarray(records))
    if (pos < 0).any():
        raise absent_error(int((pos < 0).sum()), np.asarray(records)[pos < 0][:3])
    out: IntArray = st.codes[pos]
    return out


def pilot_sd(
    pilot: ClusterSample,
    prepared: PreparedPrediction,
    st: SizeStrata,
    *,
    metrics: str | Iterable[str] = PILOT_METRICS,
) -> FloatArray:
    """Each stratum's standard deviation ``S_h`` from a labelled pilot sample (module docstring).

    Parameters
    ----------
    pilot : ClusterSample
        A labelled sample of any design, of the same population as ``prepared``.
    prepared : PreparedPrediction
        The prediction.
    st : SizeStrata
        The strata of the prediction's records.
    metrics : str or list of str, default ("pairwise_precision", "pairwise_recall")
        The estimators whose summed squared coefficients of variation the
        allocation minimises.
    """
    if not isinstance(pilot, ClusterSample):
        raise InputError(
            "'pilot' must be a labelled sample (a ClusterSample from as_sample or draw_sample); "
            f"received {type(pilot).__name__}"
        )
    keys = as_name_list("metrics", metrics, what="estimator names")
    unknown = [k for k in keys if k not in SPEC_BY_KEY]
    if unknown:
        raise InputError(f"'metrics' has unknown estimator name(s) {unknown}")
    terms = cluster_terms(prepared, pilot)
    inv = pilot.draw_weights / pilot.probabilities[pilot.draws]
    unit_w = np.bincount(pilot.draws, weights=inv, minlength=pilot.n_units)
    record_w = unit_w[pilot.unit_of_cluster][pilot.cluster_codes]
    size = pilot.cluster_sizes.astype(np.float64)[pilot.cluster_codes]
    codes = _record_strata(prepared, st, pilot.records)
    total = np.zeros(st.n_strata)
    for key in keys:
        f, g = SPEC_BY_KEY[key].terms(terms, 1.0)
        y_b = f[pilot.cluster_codes] / size
        y_a = g[pilot.cluster_codes] / size
        a_mean = float((record_w * y_a).sum() / record_w.sum())
        if a_mean == 0:
            continue
        r = float((record_w * y_b).sum() / (record_w * y_a).sum())
        d = (y_b - r * y_a) / a_mean
        var = stratum_sd(d, record_w, codes, st.n_strata) ** 2
        total += np.nan_to_num(var, nan=0.0)
    seen = np.bincount(codes, minlength=st.n_strata) > 0
    out = np.sqrt(total)
    if not seen.all():
        out[~seen] = out[seen].max() if seen.any() else 1.0
    if not (out > 0).any():
        return proxy_sd(st)
    return out


def stratum_allocation(
    st: SizeStrata,
    prepared: PreparedPrediction,
    *,
    n: int,
    allocation: Allocation | None = None,
    pilot: ClusterSample | None = None,
    replace: bool = True,
    floor: float | None = None,
) -> IntArray:
    """``n_h``: Neyman (default) from ``pilot`` or the proxy, each stratum
    keeping at least ``floor`` (default :data:`~ereval.estimators._strata.NEYMAN_FLOOR`) of
    its proportional draws; or proportional."""
    chosen = check_allocation("neyman" if allocation is None else allocation)
    if pilot is not None and chosen != "neyman":
        raise InputError("'pilot' is used by allocation='neyman' only")
    if chosen != "neyman":
        return allocate(n, st.sizes, replace=replace)
    sd = proxy_sd(st) if pilot is None else pilot_sd(pilot, prepared, st)
    share = strata_module.NEYMAN_FLOOR if floor is None else floor
    return allocate(n, st.sizes, sd=sd, replace=replace, floor=share)


def stratified_draws(
    st: SizeStrata,
    n_h: npt.ArrayLike,
    *,
    replace: bool = True,
    seed: Any = None,
    repeats: int | None = None,
) -> IntArray:
    """Positions of the drawn records, stratum by stratum: ``n_h[h]`` uniform draws among
    the records of stratum ``h``; shape ``(n,)``, or ``(repeats, n)`` for many samples."""
    rng = check_rng(seed)
    counts = np.asarray(n_h, dtype=np.int64)
    order = np.argsort(st.codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(st.sizes)])
    rows = 1 if repeats is None else repeats
    parts = []
    for h in range(st.n_strata):
        members = order[starts[h] : starts[h + 1]]
        k = int(counts[h])
        if replace:
            parts.append(members[rng.integers(0, members.shape[0], size=(rows, k))])
        else:
            parts.append(
                np.stack([rng.choice(members, size=k, replace=False) for _ in range(rows)])
            )
    out: IntArray = np.concatenate(parts, axis=1).astype(np.int64)
    return out[0] if repeats is None else out


def plan_size_stratified(
    pred: Any,
    *,
    n: int,
    strata: Any = None,
    allocation: Allocation | None = None,
    pilot: ClusterSample | None = None,
    replace: bool = True,
    seed: Any = None,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
) -> pd.DataFrame:
    """The records to label for a size-stratified sample, drawn from the prediction alone.

    Parameters
    ----------
    pred : clustering
        The predicted clustering of the whole population.
    n : int
        Number of record draws.
    strata : list of int or str, optional
        Lower cluster sizes of the strata (default ``1, 2, 3, 5, 9, ...``;
        :func:`ereval.estimators._strata.size_strata`).
    allocation : {"neyman", "proportional"}, default "neyman"
        Draws per stratum (:func:`ereval.estimators._strata.allocate`): ``"neyman"``
        uses ``pilot`` (:func:`pilot_sd`) or, without one, the prediction-only
        proxy (:func:`ereval.estimators._strata.proxy_sd`), each stratum keeping
        at least :data:`~ereval.estimators._strata.NEYMAN_FLOOR` of its
        proportional draws.
    pilot : ClusterSample, optional
        A labelled pilot sample for Neyman allocation.
    replace : bool, default True
        Draw records with replacement within each stratum.
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    DataFrame
        One row per drawn record: ``record_id, stratum, stratum_records, record_draws``.
        Label the true cluster of each; the labelled table (every record of each
        true cluster with these columns, ``record_draws`` 0 for records not drawn)
        is read by ``as_sample(..., design="size_stratified")``.

    Examples
    --------
    >>> plan = plan_size_stratified({1: "a", 2: "a", 3: "b", 4: "c", 5: "c", 6: "c"}, n=4,
    ...                             strata=[1, 3], seed=0)
    >>> sorted(plan.columns.tolist()), plan["stratum_records"].tolist()
    (['record_draws', 'record_id', 'stratum', 'stratum_records'], [3, 3, 3, 3])
    """
    prepared, st = prediction_strata(
        pred, strata=strata, record_col=record_col, cluster_col=cluster_col
    )
    n_h = stratum_allocation(st, prepared, n=n, allocation=allocation, pilot=pilot, replace=replace)
    pos = stratified_draws(st, n_h, replace=replace, seed=seed)
    uniq, counts = np.unique(pos, return_counts=True)
    return pd.DataFrame(
        {
            "record_id": prepared.records[uniq],
            STRATUM_COL: st.labels[st.codes[uniq]],
            STRATUM_RECORDS_COL: st.sizes[st.codes[uniq]],
            RECORD_DRAWS_COL: counts,
        }
    )


def draw_size_stratified(
    truth: Any,
    pred: Any,
    *,
    n: int,
    strata: Any = None,
    allocation: Allocation | None = None,
    pilot: ClusterSample | None = None,
    replace: bool = True,
    seed: Any = None,
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> ClusterSample:
    """A size-stratified sample of a known truth: the labelled sample a campaign brings back.

    Records are drawn as by :func:`plan_size_stratified` and each drawn record's
    true cluster is recovered. ``truth`` and ``pred`` must hold the same records.

    Examples
    --------
    >>> truth = {1: "A", 2: "A", 3: "A", 4: "B", 5: "B", 6: "C"}
    >>> pred = {1: "a", 2: "a", 3: "b", 4: "c", 5: "c", 6: "c"}
    >>> s = draw_size_stratified(truth, pred, n=4, strata=[1, 3], seed=0)
    >>> s.design, s.n_draws, s.stratum_labels.tolist(), s.stratum_sizes.tolist()
    ('size_stratified', 4, ['1-2', '3'], [3, 3])
    """
    rng = check_rng(seed)
    population = as_sample(
        truth,
        design="cluster",
        weights="cluster_size",
        record_col=record_col,
        cluster_col=cluster_col,
    )
    prepared, st = prediction_strata(
        pred, strata=strata, record_col=record_col, cluster_col=cluster_col
    )
    n_pred = int(prepared.records.shape[0])
    if n_pred != population.records.shape[0]:
        raise InputError(
            f"'truth' has {population.records.shape[0]} records but 'pred' has {n_pred}; "
            "they must hold the same records"
        )
    in_pred = _record_strata(prepared, st, population.records)
    pos = prepared.locate(population.records)
    pred_to_pop = np.empty(n_pred, dtype=np.int64)
    pred_to_pop[pos] = np.arange(n_pred, dtype=np.int64)
    n_h = stratum_allocation(st, prepared, n=n, allocation=allocation, pilot=pilot, replace=replace)
    drawn = pred_to_pop[stratified_draws(st, n_h, replace=replace, seed=rng)]
    chosen = population.unit_of_cluster[population.cluster_codes[drawn]]
    base = _subsample(population, chosen, design="size_stratified", replace=replace)
    keep_record = np.isin(population.unit_of_cluster[population.cluster_codes], np.unique(chosen))
    new_pos = np.cumsum(keep_record) - 1
    return ClusterSample(
        records=base.records,
        clusters=base.clusters,
        cluster_codes=base.cluster_codes,
        cluster_labels=base.cluster_labels,
        unit_of_cluster=base.unit_of_cluster,
        unit_labels=base.unit_labels,
        probabilities=base.probabilities,
        draws=base.draws,
        design="size_stratified",
        weights="cluster_size",
        replace=replace,
        population_size=None,
        record_strata=in_pred[keep_record],
        draw_records=new_pos[drawn].astype(np.int64),
        stratum_labels=st.labels,
        stratum_sizes=st.sizes,
    )
