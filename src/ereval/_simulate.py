"""Simulation studies: check the estimators on data like your own before trusting them.

Following Binette et al. (2022, §2.4) and Binette et al. (2024, §4.4): take a
clustering as the truth, derive a prediction from it (yours, or one with a
given share of records moved to other clusters), then draw many samples of
true clusters with a chosen design, estimate, and compare each estimator with
the metric's exact value: bias, RMSE, the spread of the estimates against the
reported standard deviations, and the coverage of the confidence intervals.

The ratio estimators are evaluated for all repeats at once (one array row per
repeat), so thousands of repeats take seconds; naive estimates are computed
per repeat.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._errors import InputError
from ._validation import check_beta, check_choice, check_in_range, check_int, check_rng
from .estimators import (
    ClusterSample,
    ClusterTerms,
    Design,
    as_sample,
    available_estimators,
    cluster_terms,
    naive_values,
    prepare_prediction,
    ratio_of_means,
)
from .estimators._inclusion import (
    cluster_inclusion,
    inclusion_probabilities,
    inclusion_theta,
    systematic_sample,
)
from .estimators._intervals import DEFAULT_INTERVAL, IntervalMethod, check_interval, ratio_interval
from .estimators._metrics import resolve_estimators
from .estimators._registry import SPEC_BY_KEY
from .estimators._size_design import prediction_strata, stratified_draws, stratum_allocation
from .estimators._strata import Allocation
from .estimators._stratified import fpc_fraction, stratified_ratio_of_means
from .io import Membership, as_membership, factorize
from .metrics import CANONICAL_METRICS, evaluate
from .results import FrameRepr, json_ready, normal_quantile

__all__ = [
    "SimulationDesign",
    "SimulationResult",
    "check_simulation_memory",
    "inject_errors",
    "simulate",
    "simulation_memory",
]

SimulationDesign = Literal[
    "record", "cluster", "block", "size_stratified", "expected_error", "predicted_cluster"
]
SIMULATION_DESIGNS: tuple[SimulationDesign, ...] = (
    "record",
    "cluster",
    "block",
    "size_stratified",
    "expected_error",
    "predicted_cluster",
)
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

SUMMARY_COLUMNS = (
    "estimator",
    "metric",
    "form",
    "true_value",
    "mean",
    "bias",
    "bias_se",
    "rmse",
    "empirical_std",
    "mean_std",
    "coverage",
    "coverage_se",
    "mean_width",
    "n_undefined",
)


def inject_errors(
    clustering: Any,
    *,
    rate: float,
    seed: Any = None,
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> Membership:
    """Move a share of records to other clusters (Binette et al. 2022, §2.4).

    ``round(rate * N)`` records are picked uniformly without replacement; each
    joins the (original) cluster of another record picked uniformly among the
    records of *other* clusters, so larger clusters receive and lose more
    records. Every picked record changes cluster, so ``rate`` is exactly the
    share of records moved.

    Parameters
    ----------
    clustering : clustering
        Any form of :func:`ereval.io.as_membership`.
    rate : float
        Share of records to move, in ``[0, 1]``.
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Membership
        The same records, with cluster ids taken from ``clustering``.

    Examples
    --------
    >>> m = inject_errors([[1, 2, 3], [4, 5], [6]], rate=0.5, seed=0)
    >>> len(m), len(set(m.clusters.tolist())) <= 3
    (6, True)
    """
    m = as_membership(clustering, name="clustering", record_col=record_col, cluster_col=cluster_col)
    rate = check_in_range("rate", rate, low=0.0, high=1.0)
    rng = check_rng(seed)
    codes, labels = factorize(m.clusters)
    n = len(m)
    k = int(np.rint(rate * n))
    if k == 0:
        return Membership(m.records.copy(), m.clusters.copy())
    if labels.shape[0] < 2:
        raise InputError("'clustering' has a single cluster; records cannot move to another one")
    movers = rng.choice(n, size=k, replace=False)
    targets = rng.integers(0, n, size=k)
    same = codes[targets] == codes[movers]
    while same.any():
        targets[same] = rng.integers(0, n, size=int(same.sum()))
        same = codes[targets] == codes[movers]
    new = codes.copy()
    new[movers] = codes[targets]
    return Membership(m.records.copy(), np.asarray(labels)[new])


@dataclass(frozen=True, eq=False)
class SimulationResult(FrameRepr):
    """Repeated-sampling behaviour of each estimator.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per estimator: ``estimator, metric, form, true_value, mean,
        bias, bias_se, rmse, empirical_std, mean_std, coverage, coverage_se,
        n_undefined``. ``bias_se`` and ``coverage_se`` are Monte Carlo standard
        errors; coverage is over repeats with a defined interval, of the
        intervals as :func:`ereval.estimators.estimate` reports them (clamped to
        the quantity's range, which cannot change whether they cover), and
        ``mean_width`` their mean width.
    estimates, stds : dict of str to ndarray
        The estimate and reported standard deviation of every repeat.
    intervals : dict of str to (ndarray, ndarray)
        The interval of every repeat, as :func:`ereval.estimators.estimate`
        reports it (NaN for the naive values).
    true_values : dict of str to float
        The exact value of each estimated quantity.
    settings : dict
        The simulation's parameters.
    """

    summary: pd.DataFrame
    estimates: dict[str, FloatArray]
    stds: dict[str, FloatArray]
    true_values: dict[str, float]
    settings: dict[str, Any] = field(default_factory=dict)
    intervals: dict[str, tuple[FloatArray, FloatArray]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per estimator: a copy of :attr:`summary`."""
        return self.summary.copy()

    def to_dict(self) -> dict[str, Any]:
        """``settings``, ``true_values`` and ``summary`` (one dict per estimator) in plain
        JSON types (NaN as ``None``); the per-repeat arrays are left out."""
        out: dict[str, Any] = json_ready(
            {
                "settings": dict(self.settings),
                "true_values": dict(self.true_values),
                "summary": self.summary.to_dict(orient="records"),
            }
        )
        return out


def simulation_memory(sample_size: int, repeats: int, n_estimators: int = 40) -> int:
    """Bytes of memory :func:`simulate` needs at its peak, approximately.

    The draws of all repeats are held at once (``repeats x sample_size`` cells of
    about 64 bytes over the arrays of one estimator), plus an estimate and a
    standard deviation per estimator and repeat.

    >>> simulation_memory(400, 200) // 2**20  # MiB
    5
    """
    n = check_int("sample_size", sample_size, minimum=1)
    r = check_int("repeats", repeats, minimum=1)
    return 64 * n * r + 24 * max(int(n_estimators), 1) * r


def _available_memory() -> int | None:
    """Bytes of memory available to this process (None when unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def check_simulation_memory(sample_size: int, repeats: int, n_estimators: int) -> None:
    """Refuse a simulation that cannot fit in the available memory."""
    need = simulation_memory(sample_size, repeats, n_estimators)
    have = _available_memory()
    if have is not None and need > have:
        raise InputError(
            f"'repeats' x 'sample_size' = {repeats:,} x {sample_size:,} draws need about "
            f"{_gigabytes(need)} of memory and about {_gigabytes(have)} is available; "
            "lower 'repeats' or 'sample_size'"
        )


def _gigabytes(n_bytes: int) -> str:
    gb = n_bytes / 2**30
    return f"{gb:.3g} GB" if gb >= 0.1 else f"{n_bytes / 2**20:.3g} MB"


def _draw_units(
    population: ClusterSample,
    design: SimulationDesign,
    n: int,
    repeats: int,
    replace: bool,
    rng: np.random.Generator,
) -> IntArray:
    """Unit codes drawn, shape ``(repeats, n)``."""
    if design == "record":
        record_units = population.unit_of_cluster[population.cluster_codes]
        return record_units[rng.integers(0, record_units.shape[0], size=(repeats, n))]
    p = population.probabilities / population.probabilities.sum()
    if replace:
        return rng.choice(population.n_units, size=(repeats, n), replace=True, p=p)
    if n > population.n_units:
        raise InputError(
            f"cannot draw {n} units without replacement from a population of {population.n_units}"
        )
    if not np.allclose(p, p[0], rtol=1e-12, atol=0.0):
        # unequal probabilities: randomised systematic draws, pi exact (estimators/_inclusion.py)
        pi = inclusion_probabilities(population.probabilities, n)
        return systematic_sample(pi, seed=rng, repeats=repeats)
    return np.stack(
        [rng.choice(population.n_units, size=n, replace=False, p=p) for _ in range(repeats)]
    ).astype(np.int64)


def _poisson_clusters(population: ClusterSample, n: int) -> FloatArray:
    """``pi_c`` of every cluster when records are drawn by Poisson sampling, ``n`` expected."""
    q = population.record_probabilities
    if q is None:
        raise InputError("design='expected_error' needs each record's draw probability")
    pi_r = inclusion_probabilities(q, n)
    return cluster_inclusion(pi_r, population.cluster_codes, population.n_units)


def _inclusion(population: ClusterSample, design: str, n: int, replace: bool) -> FloatArray | None:
    """The units' inclusion probabilities of an unequal-probability draw without replacement."""
    if replace or design in ("record", "size_stratified"):
        return None
    p = population.probabilities
    if np.allclose(p, p[0], rtol=1e-12, atol=0.0):
        return None
    return inclusion_probabilities(p, n)


def _unequal_population(
    truth: Membership,
    pred: Membership,
    design: SimulationDesign,
    weights: Any,
    blocks: Any,
    replace: bool,
) -> ClusterSample:
    """The whole population as one sample of the expected-error or predicted-cluster design."""
    if blocks is not None:
        raise InputError(f"'blocks' is used only by the block design; design is '{design}'")
    frame = pd.DataFrame({"record_id": truth.records, "cluster_id": truth.clusters})
    if design == "expected_error":
        if weights is None:
            raise InputError(
                "design='expected_error' needs 'weights': each record's draw probability "
                "(ereval.estimators.expected_error_probabilities)"
            )
        return as_sample(frame, design="expected_error", weights=weights)
    where = pd.Index(pred.records, dtype=object).get_indexer(pd.Index(truth.records, dtype=object))
    if (where < 0).any() or pred.records.shape[0] != truth.records.shape[0]:
        raise InputError("'truth' and 'pred' must hold the same records")
    frame["unit_id"] = pred.clusters[where]
    chosen = "cluster_size" if weights is None else weights
    return as_sample(frame, design="predicted_cluster", weights=chosen)


def _theta(design: str, n: int, population: ClusterSample, replace: bool, fpc: bool) -> float:
    """The finite-population correction of an unstratified design (1 with replacement)."""
    if replace or not fpc:
        return 1.0
    if design == "record":
        return float(fpc_fraction(n, population.records.shape[0]))
    if design == "size_stratified":
        return 1.0
    return 1.0 - (n - 1) / (population.n_units - 1)


def _draw_stratified(
    population: ClusterSample,
    pred: Membership,
    n: int,
    repeats: int,
    replace: bool,
    rng: np.random.Generator,
    strata: Any,
    allocation: Allocation | None,
    pilot: ClusterSample | None,
) -> tuple[IntArray, tuple[IntArray, FloatArray, FloatArray, list[int]]]:
    """Size-stratified draws ``(repeats, n)`` of population records, and the strata of the
    draws, their weights ``N_h / n_h``, each stratum's ``1 - n_h / N_h`` and ``n_h``."""
    prepared, st = prediction_strata(pred, strata=strata)
    pos = prepared.locate(population.records)
    if (pos < 0).any() or prepared.records.shape[0] != population.records.shape[0]:
        raise InputError("'truth' and 'pred' must hold the same records")
    pred_to_pop = np.empty(pos.shape[0], dtype=np.int64)
    pred_to_pop[pos] = np.arange(pos.shape[0], dtype=np.int64)
    n_h = stratum_allocation(st, prepared, n=n, allocation=allocation, pilot=pilot, replace=replace)
    positions = stratified_draws(st, n_h, replace=replace, seed=rng, repeats=repeats)
    records = pred_to_pop[positions]
    codes = np.repeat(np.arange(st.n_strata, dtype=np.int64), n_h)
    weights = (st.sizes / n_h)[codes].astype(np.float64)
    return records, (codes, weights, fpc_fraction(n_h, st.sizes), n_h.tolist())


def _true_values(
    keys: list[str], truth: Membership, pred: Membership, terms: ClusterTerms, beta: float
) -> dict[str, float]:
    wanted = set()
    for key in keys:
        metric = key[: -len("_naive")] if key.endswith("_naive") else SPEC_BY_KEY[key].metric
        metric = metric.replace("_fbeta", "_f1")
        if metric in CANONICAL_METRICS:
            wanted.add(metric)
    exact = evaluate(truth, pred, beta=beta, metrics=sorted(wanted)) if wanted else {}
    out: dict[str, float] = {}
    for key in keys:
        metric = key[: -len("_naive")] if key.endswith("_naive") else SPEC_BY_KEY[key].metric
        if metric in exact:
            out[key] = float(exact[metric])
            continue
        spec = SPEC_BY_KEY[metric]
        f, g = spec.terms(terms, beta)
        affine = spec.affine(terms)
        off, sc = (1.0, 0.0) if affine is None else affine
        out[key] = off + sc * float(f.sum()) / float(g.sum())
    return out


def simulate(
    truth: Any,
    pred: Any = None,
    *,
    error_rate: float | None = None,
    sample_size: int = 400,
    repeats: int = 200,
    design: SimulationDesign = "record",
    weights: Any = None,
    blocks: Any = None,
    replace: bool = True,
    strata: Any = None,
    allocation: Allocation | None = None,
    pilot: ClusterSample | None = None,
    fpc: bool = True,
    estimators: str | Iterable[str] | None = None,
    beta: float = 1.0,
    level: float = 0.95,
    interval: IntervalMethod = DEFAULT_INTERVAL,
    names: Any = None,
    naive: bool = True,
    seed: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Repeat sampling and estimation; report bias, RMSE and CI coverage per estimator.

    Parameters
    ----------
    truth : clustering
        The clustering taken as the truth (the population).
    pred : clustering, optional
        A prediction of the same records. Give either ``pred`` or ``error_rate``.
    error_rate : float, optional
        Build the prediction with :func:`inject_errors` at this rate.
    sample_size : int, default 400
        Draws per sample (records for ``"record"``, clusters, or blocks).
    repeats : int, default 200
        Number of samples.
    design : {"record", "cluster", "block", "size_stratified", "expected_error", \
"predicted_cluster"}, default "record"
        The sampling design (see :func:`ereval.estimators.as_sample`).
    weights, blocks
        As for :func:`ereval.estimators.draw_sample` (``blocks`` maps cluster id
        to block id). For ``"expected_error"``, ``weights`` maps each record id to
        its draw probability (:func:`ereval.estimators.expected_error_probabilities`);
        for ``"predicted_cluster"`` it is ``"cluster_size"`` (default) or
        ``"uniform"``, and ``pred`` is the clustering whose clusters are drawn.
    replace : bool, default True
        Draw with replacement; without it the finite-population correction is
        applied with the population's number of units (records for the record
        design, each stratum's records for the size-stratified one). Clusters,
        blocks or predicted clusters with unequal probabilities are then drawn by
        randomised systematic sampling and expected-error records by Poisson
        sampling (``sample_size`` draws expected), each with exact inclusion
        probabilities and the Horvitz-Thompson estimators
        (:mod:`ereval.estimators._inclusion`).
    strata, allocation, pilot
        The size-stratified design's strata (lower cluster sizes of the
        prediction), allocation (``"proportional"`` or ``"neyman"``) and labelled
        pilot sample, as for :func:`ereval.estimators.draw_sample`; the
        allocation is computed once and every repeat draws the same ``n_h``.
    fpc : bool, default True
        Apply the finite-population correction without replacement (as for
        :func:`ereval.estimators.estimate`).
    estimators : str or list of str, optional
        Estimator keys; default all that the design and data allow.
    beta, level, interval, names, naive
        As for :func:`ereval.estimators.estimate`.
    seed : None, int or numpy.random.Generator
        Source of randomness (error injection and sampling).
    progress : callable, optional
        Called as ``progress(done, total)`` while estimating, counting one step per
        estimator and repeat.

    Returns
    -------
    SimulationResult

    Raises
    ------
    InputError
        Bad options, or a simulation that needs more memory than is available
        (see :func:`simulation_memory`); it is refused before any draw.
    """
    rng = check_rng(seed)
    design = check_choice("design", design, SIMULATION_DESIGNS)
    n = check_int("sample_size", sample_size, minimum=2)
    if design != "size_stratified" and (
        strata is not None or allocation is not None or pilot is not None
    ):
        raise InputError(
            "'strata', 'allocation' and 'pilot' are options of design='size_stratified'; "
            f"design is '{design}'"
        )
    repeats = check_int("repeats", repeats, minimum=1)
    check_simulation_memory(n, repeats, 1)
    beta = check_beta(beta)
    normal_quantile(level)
    interval = check_interval(interval)
    t = as_membership(truth, name="truth")
    if (pred is None) == (error_rate is None):
        raise InputError("give exactly one of 'pred' and 'error_rate'")
    p = (
        inject_errors(t, rate=error_rate, seed=rng)
        if error_rate is not None
        else as_membership(pred, name="pred")
    )
    if design in ("record", "size_stratified"):
        if weights not in (None, "cluster_size"):
            raise InputError(f"design='{design}' implies weights='cluster_size'")
        if blocks is not None:
            raise InputError(f"'blocks' is used only by the block design; design is '{design}'")
        population = as_sample(t, design="cluster", weights="cluster_size")
        label_design: Design = design
    elif design in ("expected_error", "predicted_cluster"):
        population = _unequal_population(t, p, design, weights, blocks, replace)
        label_design = design
    else:
        population = as_sample(t, design=design, weights=weights, blocks=blocks)
        label_design = design
    terms = cluster_terms(prepare_prediction(p, names=names, index=False), population)
    shape = ClusterSample(
        population.records,
        population.clusters,
        population.cluster_codes,
        population.cluster_labels,
        population.unit_of_cluster,
        population.unit_labels,
        population.probabilities,
        population.draws,
        label_design,
        population.weights,
        replace,
    )
    keys = (
        available_estimators(shape, terms, beta=beta, naive=naive)
        if estimators is None
        else resolve_estimators(estimators, shape, terms, False)
    )
    poisson = design == "expected_error" and not replace
    check_simulation_memory(population.n_units if poisson else n, repeats, len(keys))
    total = len(keys) * repeats
    done = 0
    if progress is not None:
        progress(done, total)
    strat: tuple[IntArray, FloatArray, FloatArray, list[int]] | None = None
    drawn_records: IntArray | None = None
    pi: FloatArray | None = None
    included: npt.NDArray[np.bool_] | None = None
    if design == "size_stratified":
        drawn_records, strat = _draw_stratified(
            population, p, n, repeats, replace, rng, strata, allocation, pilot
        )
        drawn = population.unit_of_cluster[population.cluster_codes[drawn_records]]
        draw_weights = strat[1]
    elif poisson:
        # records drawn independently: each cluster independently with pi_c; one row per
        # cluster of the population, weight 0 where it was not drawn (_inclusion.py)
        pi = _poisson_clusters(population, n)
        included = rng.random((repeats, population.n_units)) < pi
        drawn = np.broadcast_to(np.arange(population.n_units, dtype=np.int64), included.shape)
        draw_weights = included.astype(np.float64)
    else:
        drawn = _draw_units(population, design, n, repeats, replace, rng)
        draw_weights = np.ones(n)
    if not poisson:
        pi = _inclusion(population, design, n, replace)
    theta = _theta(design, n, population, replace, fpc)
    inv_p = draw_weights / (population.probabilities if pi is None else pi)[drawn]
    estimates: dict[str, FloatArray] = {}
    stds: dict[str, FloatArray] = {}
    bands: dict[str, tuple[FloatArray, FloatArray]] = {}
    units = population.unit_of_cluster
    for key in keys:
        if key.endswith("_naive") and key not in SPEC_BY_KEY:
            continue
        spec = SPEC_BY_KEY[key]
        f, g = spec.terms(terms, beta)
        fu = np.bincount(units, weights=f, minlength=population.n_units)
        gu = np.bincount(units, weights=g, minlength=population.n_units)
        denominators = gu[drawn] * inv_p
        squares = np.bincount(units, weights=g * g, minlength=population.n_units)[drawn] * inv_p**2
        numerators = fu[drawn] * inv_p
        if strat is None:
            band_theta: float | FloatArray = theta
            if pi is not None and fpc:
                band_theta = inclusion_theta(numerators, denominators, pi[drawn], poisson=poisson)
            est, std = ratio_of_means(numerators, denominators, theta=band_theta)
        else:
            band_theta = strat[2] if fpc and not replace else np.ones_like(strat[2])
            est, std = stratified_ratio_of_means(
                numerators, denominators, strat[0], theta=band_theta
            )
        affine = spec.affine(terms)
        off, sc = (1.0, 0.0) if affine is None else affine
        estimates[key], stds[key] = off + sc * est, abs(sc) * std
        bands[key] = ratio_interval(
            estimates[key],
            stds[key],
            denominators,
            level=level,
            method=interval,
            numerator=numerators,
            scale=sc,
            bounds=spec.bounds,
            proportion=spec.proportion,
            theta=band_theta,
            squares=squares,
            strata=None if strat is None else strat[0],
        )
        done += repeats
        if progress is not None:
            progress(done, total)
    naive_keys = [k for k in keys if k.endswith("_naive") and k not in SPEC_BY_KEY]
    if naive_keys:

        def step(r: int) -> None:
            if progress is not None:
                progress(done + (r + 1) * len(naive_keys), total)

        _naive_repeats(
            naive_keys,
            terms,
            population,
            drawn,
            beta,
            estimates,
            stds,
            step,
            included=included,
        )
    true = _true_values(keys, t, p, terms, beta)
    summary = _summarise(keys, estimates, stds, bands, true)
    settings: dict[str, Any] = {
        "design": design,
        "sample_size": n,
        "repeats": repeats,
        "error_rate": error_rate,
        "level": level,
        "interval": interval,
        "beta": beta,
        "replace": replace,
        "weights": population.weights
        if design not in ("record", "size_stratified")
        else "cluster_size",
    }
    if strat is not None:
        settings["allocation"] = "neyman" if allocation is None else allocation
        settings["stratum_draws"] = strat[3]
    return SimulationResult(summary, estimates, stds, true, settings, bands)


def _naive_repeats(
    keys: list[str],
    terms: ClusterTerms,
    population: ClusterSample,
    drawn: IntArray,
    beta: float,
    estimates: dict[str, FloatArray],
    stds: dict[str, FloatArray],
    step: Callable[[int], None] | None = None,
    *,
    included: npt.NDArray[np.bool_] | None = None,
) -> None:
    repeats = drawn.shape[0]
    values = {k: np.full(repeats, math.nan) for k in keys}
    for r in range(repeats):
        kept_units = np.zeros(population.n_units, dtype=bool)
        kept_units[drawn[r] if included is None else drawn[r][included[r]]] = True
        nv = naive_values(terms, keep=kept_units[population.unit_of_cluster], beta=beta)
        for k in keys:
            values[k][r] = nv.get(k[: -len("_naive")], math.nan)
        if step is not None and (r % 64 == 63 or r == repeats - 1):
            step(r)
    for k in keys:
        estimates[k] = values[k]
        stds[k] = np.full(repeats, math.nan)


def _summarise(
    keys: list[str],
    estimates: dict[str, FloatArray],
    stds: dict[str, FloatArray],
    bands: dict[str, tuple[FloatArray, FloatArray]],
    true: dict[str, float],
) -> pd.DataFrame:
    rows = []
    for key in keys:
        e, s, t0 = estimates[key], stds[key], true[key]
        naive = key.endswith("_naive") and key not in SPEC_BY_KEY
        nan = np.full(e.shape, np.nan)
        lower, upper = (nan, nan) if naive else bands[key]
        ok = ~np.isnan(e)
        m = int(ok.sum())
        ev = e[ok]
        err = ev - t0
        sd = float(ev.std(ddof=1)) if m > 1 else math.nan
        # the intervals users get (within the quantity's range)
        with_ci = ok & ~np.isnan(lower) & ~np.isnan(upper)
        low, high = lower[with_ci], upper[with_ci]
        covered = (low <= t0) & (t0 <= high)
        cov = float(covered.mean()) if covered.size else math.nan
        rows.append(
            {
                "estimator": key,
                "metric": key[: -len("_naive")] if naive else SPEC_BY_KEY[key].metric,
                "form": "naive" if naive else SPEC_BY_KEY[key].form,
                "true_value": t0,
                "mean": float(ev.mean()) if m else math.nan,
                "bias": float(err.mean()) if m else math.nan,
                "bias_se": sd / math.sqrt(m) if m > 1 else math.nan,
                "rmse": float(np.sqrt((err * err).mean())) if m else math.nan,
                "empirical_std": sd,
                "mean_std": float(s[ok].mean()) if m and not naive else math.nan,
                "coverage": cov,
                "coverage_se": math.sqrt(cov * (1 - cov) / covered.size)
                if covered.size
                else math.nan,
                "mean_width": float((high - low).mean()) if covered.size else math.nan,
                "n_undefined": int(e.shape[0] - m),
            }
        )
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
