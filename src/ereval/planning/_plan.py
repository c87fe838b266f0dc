"""How many draws each sampling design needs for a target interval half-width.

For every design the per-draw variance ``sigma^2`` of each estimator is taken
from the intervals the estimators report, on a *working population*: the true
clustering when it is known, otherwise one made from the prediction under a
stated error model (:func:`ereval._simulate.inject_errors` with an assumed share
of misplaced records, taken from a labelled pilot sample's upper confidence
bound when there is one). Samples of ``n_ref`` draws of that population are
drawn by :func:`ereval._simulate.simulate` (so every design it draws can be
planned); an interval of half-width ``w`` counts as ``sigma_r^2 = n_ref (w /
z)^2 / theta(n_ref)`` — the linearised variance for a normal interval, more for
the beta intervals near 0 and 1 — and ``sigma^2`` is their mean over the repeats,
the spread giving the margin of the assured half-width
(:mod:`ereval.planning._formulas`). ``n_ref`` is moved until the planned ``n`` is
one at which samples were measured. The plan is checked by :func:`check_plan`:
samples of the planned size drawn from a known truth, and the share whose
interval half-width meets the target.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._simulate import SimulationDesign, inject_errors, simulate
from .._validation import as_name_list, check_in_range, check_int, check_rng
from ..estimators import ClusterSample, as_sample, estimate
from ..estimators._intervals import DEFAULT_INTERVAL, IntervalMethod, check_interval
from ..estimators._registry import SPEC_BY_KEY
from ..io import Membership, as_membership, factorize
from ..results import FrameRepr, json_ready, normal_quantile
from ._formulas import (
    PopulationKind,
    assured_half_width,
    expected_half_width,
    fpc,
    required_draws,
    smallest_draws,
)

__all__ = [
    "DEFAULT_METRICS",
    "PLAN_COLUMNS",
    "PlanResult",
    "check_metrics",
    "check_plan",
    "plan",
    "plan_designs",
]

FloatArray = npt.NDArray[np.float64]

DEFAULT_METRICS = ("pairwise_precision", "pairwise_recall", "pairwise_f1")
#: The assumed share of misplaced records when there is neither truth nor pilot.
DEFAULT_ERROR_RATE = 0.1
PLAN_COLUMNS = (
    "design",
    "metric",
    "n",
    "design_n",
    "sigma",
    "expected_half_width",
    "assured_half_width",
    "basis",
)
CURVE_COLUMNS = ("design", "metric", "n", "expected_half_width", "assured_half_width")
_MAX_REFERENCE = 20_000


def plan_designs() -> tuple[str, ...]:
    """The designs :func:`ereval._simulate.simulate` can draw, hence that can be planned."""
    return tuple(typing.get_args(SimulationDesign))


@dataclass(frozen=True, eq=False)
class PlanResult(FrameRepr):
    """Draws each design needs, and the expected half-width as a function of ``n``.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per design and metric (:data:`PLAN_COLUMNS`): ``n`` the draws that
        metric needs, ``design_n`` the draws for every planned metric of the
        design (their maximum), ``sigma`` the per-draw standard deviation, the
        expected and assured half-widths at ``n``, and ``basis`` (where ``sigma``
        comes from).
    curve : pandas.DataFrame
        Expected and assured half-width at a grid of ``n`` per design and metric.
    notes : tuple of str
        The assumptions behind the plan, and the designs or metrics left out.
    settings : dict
        Target, level, assurance, the working population's origin.
    """

    table: pd.DataFrame
    curve: pd.DataFrame
    notes: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def draws(self, design: str) -> int:
        """The planned draws of ``design`` (for all its metrics)."""
        rows = self.table[self.table["design"] == design]
        if rows.empty:
            raise InputError(f"'design' {design!r} is not in the plan")
        return int(rows["design_n"].iloc[0])

    def to_frame(self) -> pd.DataFrame:
        """One row per design and metric: a copy of :attr:`table`."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """``settings``, ``notes``, ``plan`` (rows of :attr:`table`) and ``curve`` in plain
        JSON types."""
        out: dict[str, Any] = json_ready(
            {
                "settings": dict(self.settings),
                "notes": list(self.notes),
                "plan": self.table.to_dict(orient="records"),
                "curve": self.curve.to_dict(orient="records"),
            }
        )
        return out


@dataclass(frozen=True)
class _Variance:
    sigma2: float
    excess: float
    reference_n: int


def _kind(design: str) -> PopulationKind | None:
    if design in ("record", "size_stratified"):
        return "records"
    if design in ("cluster", "block", "predicted_cluster"):
        return "units"
    return None  # any other design: planned as drawn with replacement (more draws)


def _population_size(
    design: str, truth: Membership, pred: Membership, options: Mapping[str, Any]
) -> int:
    if _kind(design) == "records":
        return len(truth)
    if design == "predicted_cluster":
        return int(factorize(pred.clusters)[1].shape[0])
    if design == "block":
        blocks = options.get("blocks")
        if isinstance(blocks, Mapping):
            return len(set(blocks.values()))
        if isinstance(blocks, pd.Series):
            return int(blocks.nunique())
    return int(factorize(truth.clusters)[1].shape[0])


def _simulated_variances(
    truth: Membership,
    pred: Membership,
    design: str,
    metrics: list[str],
    *,
    n: int,
    repeats: int,
    replace: bool,
    population: int | None,
    level: float,
    interval: IntervalMethod,
    beta: float,
    assurance: float,
    options: Mapping[str, Any],
    rng: np.random.Generator,
) -> dict[str, _Variance]:
    """``sigma^2`` and the excess of its ``assurance``-quantile, per metric, at ``n`` draws."""
    kind = _kind(design) if not replace else None
    result = simulate(
        truth,
        pred,
        sample_size=n,
        repeats=repeats,
        design=typing.cast(SimulationDesign, design),
        replace=replace,
        naive=False,
        level=level,
        interval=interval,
        beta=beta,
        seed=rng,
        **options,
    )
    theta = fpc(n, population, kind)
    z = normal_quantile(level)
    out: dict[str, _Variance] = {}
    for key in metrics:
        if key not in result.intervals:
            continue
        low, up = result.intervals[key]
        # the interval's half-width in units of z / sqrt(n): sigma for a normal interval,
        # more for the beta intervals near 0 and 1 (undefined intervals count as the widest)
        w = (up - low) / 2.0
        if theta <= 0:  # a census: every interval is a point
            out[key] = _Variance(0.0, 0.0, n)
            continue
        if not np.isfinite(w).any():
            continue
        w = np.where(np.isfinite(w), w, np.nanmax(w))
        v = (w / z) ** 2 * n / theta
        mean = float(v.mean())
        # an upper confidence bound on the assurance-quantile (its order statistic's error)
        za = normal_quantile(2 * assurance - 1)
        upper = min(assurance + za * math.sqrt(assurance * (1 - assurance) / v.size), 0.999)
        excess = float(np.quantile(v, upper)) / mean - 1.0 if mean > 0 else 0.0
        out[key] = _Variance(mean, max(excess, 0.0), n)
    return out


def _pilot_error_rate(pred: Membership, pilot: ClusterSample, level: float) -> float:
    """An upper bound on the share of misplaced records: ``1 - min`` of the lower
    interval ends of the B-cubed precision and recall estimated from the pilot."""
    est = estimate(pred, pilot, metrics=["b3_precision", "b3_recall"], level=level, naive=False)
    lows = [e.interval[0] for e in est.values() if math.isfinite(e.interval[0])]
    if not lows:
        raise InputError("'pilot' gives no interval for B-cubed precision and recall")
    return min(max(1.0 - min(lows), 0.01), 0.5)


def _pilot_variances(
    pred: Membership,
    pilot: ClusterSample,
    metrics: list[str],
    level: float,
    interval: IntervalMethod,
    beta: float,
) -> dict[str, float]:
    """``n (w / z)^2 / theta`` (``w`` the interval's half-width) of each metric the
    pilot's own design estimates."""
    est = estimate(
        pred, pilot, metrics=None, level=level, interval=interval, beta=beta, naive=False
    )
    theta = pilot.theta
    z = normal_quantile(level)
    out: dict[str, float] = {}
    for key in metrics:
        e = est.get(key)
        if e is None or theta <= 0:
            continue
        w = (e.interval[1] - e.interval[0]) / 2.0
        if math.isfinite(w):
            out[key] = (w / z) ** 2 * pilot.n_draws / theta
    return out


def _calibration(
    pilot: ClusterSample,
    pilot_sigma2: Mapping[str, float],
    worlds: list[tuple[Membership, Membership]],
    keys: list[str],
    *,
    options: Mapping[str, Mapping[str, Any]],
    level: float,
    interval: IntervalMethod,
    beta: float,
    assurance: float,
    repeats: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Per metric, the pilot's per-draw variance over the working populations' (the
    larger) for the pilot's own design and size: how far the error model understates
    the variance where it can be checked (1 where it does not, or cannot be checked)."""
    design = pilot.design
    opts = dict(options.get(design, {}))
    if design == "cluster":
        if pilot.weights not in ("uniform", "cluster_size"):
            return {}
        opts["weights"] = pilot.weights
    elif design not in ("record", "size_stratified"):
        return {}
    n = pilot.n_draws
    if n < 2:
        return {}
    model: dict[str, float] = {}
    for t, pred in worlds:
        population = _population_size(design, t, pred, opts)
        got = _simulated_variances(
            t,
            pred,
            design,
            keys,
            n=n,
            repeats=repeats,
            replace=pilot.replace,
            population=None if pilot.replace else population,
            level=level,
            interval=interval,
            beta=beta,
            assurance=assurance,
            options=opts,
            rng=rng,
        )
        for key, var in got.items():
            model[key] = max(model.get(key, 0.0), var.sigma2)
    return {
        key: max(1.0, pilot_sigma2[key] / model[key])
        for key in keys
        if key in pilot_sigma2 and model.get(key, 0.0) > 0
    }


def check_metrics(metrics: str | Iterable[str] | None) -> list[str]:
    names = (
        list(DEFAULT_METRICS)
        if metrics is None
        else as_name_list("metrics", metrics, what="estimator names")
    )
    for name in names:
        if name not in SPEC_BY_KEY:
            raise InputError(
                f"'metrics' has unknown name {name!r}; known: {', '.join(SPEC_BY_KEY)}"
            )
    return list(dict.fromkeys(names))


def _check_designs(designs: str | Iterable[str]) -> tuple[list[str], bool]:
    known = plan_designs()
    if isinstance(designs, str) and designs == "all":
        return list(known), True
    names = as_name_list("design", designs, what="designs")
    for name in names:
        if name not in known:
            raise InputError(
                f"'design' must be 'all' or one of {', '.join(known)}; received {name!r}"
            )
    return list(dict.fromkeys(names)), False


def plan(
    pred: Any,
    *,
    half_width: float,
    design: str | Iterable[str] = "record",
    metrics: str | Iterable[str] | None = None,
    truth: Any = None,
    pilot: ClusterSample | None = None,
    error_rate: float | None = None,
    replace: bool = True,
    design_options: Mapping[str, Mapping[str, Any]] | None = None,
    level: float = 0.95,
    assurance: float = 0.9,
    interval: IntervalMethod = DEFAULT_INTERVAL,
    beta: float = 1.0,
    repeats: int = 400,
    grid: Iterable[int] | None = None,
    seed: Any = None,
) -> PlanResult:
    """Draws each design needs for intervals of half-width at most ``half_width``.

    ``n = ceil((z sigma / h)^2)`` (finite-population corrected without
    replacement) gives the expected half-width ``h``; the plan reports the
    smallest ``n`` whose *assured* half-width — allowing for the sampling error
    of the estimated variance, at probability ``assurance`` — is at most ``h``
    (formulas in :mod:`ereval.planning._formulas` and ``docs/planning.md``).

    Parameters
    ----------
    pred : clustering
        The prediction of the whole population.
    half_width : float
        Target half-width of the intervals, in ``(0, 1)``.
    design : str or list of str, default "record"
        Designs to plan (:func:`plan_designs`), or ``"all"`` (those the inputs
        allow; the others are named in :attr:`PlanResult.notes`).
    metrics : str or list of str, optional
        Estimator keys (default pairwise precision, recall and F1).
    truth : clustering, optional
        The true clustering, when known: ``sigma`` is then exact for it.
    pilot : ClusterSample, optional
        A labelled pilot sample (:func:`ereval.estimators.as_sample`). Without
        ``truth``, the working population moves the share of records given by
        the pilot's upper bound on ``1 - B-cubed`` precision or recall, and where
        the pilot's own intervals (record, cluster or size-stratified design) are
        wider than the model's at the pilot's size, every design's variance of
        that metric is raised by the ratio.
    error_rate : float, optional
        Without truth or pilot: the assumed share of misplaced records (default
        0.1). The variance is taken as the larger at this rate and at twice it.
    replace : bool, default True
        Whether the sample will be drawn with replacement (without: the
        finite-population correction).
    design_options : mapping, optional
        Per design, options of :func:`ereval._simulate.simulate` (``weights``,
        ``blocks``, ``strata``, ``allocation``); the cluster design's
        ``weights`` default to ``"uniform"``.
    level : float, default 0.95
        Confidence level of the intervals.
    assurance : float, default 0.9
        Probability with which the planned ``n`` should meet the target.
    interval, beta
        As for :func:`ereval.estimators.estimate`.
    repeats : int, default 400
        Samples drawn from the working population to measure the variance.
    grid : iterable of int, optional
        The ``n`` at which :attr:`PlanResult.curve` is reported (default: a
        geometric grid around the planned ``n``).
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    PlanResult
    """
    h = check_in_range("half_width", half_width, low=0.0, high=1.0)
    if h <= 0 or h >= 1:
        raise InputError(f"'half_width' must be in (0, 1); received {half_width!r}")
    z = normal_quantile(level)
    assurance = check_in_range("assurance", assurance, low=0.5, high=0.999)
    interval = check_interval(interval)
    repeats = check_int("repeats", repeats, minimum=20)
    keys = check_metrics(metrics)
    designs, optional = _check_designs(design)
    if not isinstance(replace, bool):
        raise InputError(f"'replace' must be True or False; received {replace!r}")
    if error_rate is not None and (truth is not None or pilot is not None):
        raise InputError("'error_rate' is the assumption used without 'truth' or 'pilot'")
    if error_rate is not None:
        check_in_range("error_rate", error_rate, low=0.0, high=0.5)
    options = {str(k): dict(v) for k, v in (design_options or {}).items()}
    unknown = sorted(set(options) - set(plan_designs()))
    if unknown:
        raise InputError(f"'design_options' has unknown design(s) {', '.join(unknown)}")
    grid_values = None
    if grid is not None:
        grid_values = sorted({check_int("grid", g, minimum=2) for g in grid})
    rng = check_rng(seed)
    p = as_membership(pred, name="pred")
    notes: list[str] = []
    worlds: list[tuple[Membership, Membership]]  # (truth, prediction) to sample from
    pilot_sigma2: dict[str, float] = {}
    calibration: dict[str, float] = {}
    if truth is not None:
        worlds = [(as_membership(truth, name="truth"), p)]
        basis = "truth"
        notes.append("sigma is computed on the given true clustering")
    else:
        if pilot is not None:
            if not isinstance(pilot, ClusterSample):
                pilot = as_sample(pilot)
            rate = _pilot_error_rate(p, pilot, level)
            basis = "pilot"
            notes.append(
                f"assumption: {rate:.3g} of records misplaced (upper {level:.0%} bound from the "
                f"pilot of {pilot.n_draws} draws), and twice that"
            )
            pilot_sigma2 = _pilot_variances(p, pilot, keys, level, interval, beta)
        else:
            rate = DEFAULT_ERROR_RATE if error_rate is None else error_rate
            basis = "assumed"
            notes.append(
                f"assumption (no labels): {rate:.3g} of records misplaced, and twice that; "
                "label a pilot sample to replace this guess"
            )
        # the prediction's errors may be records it split off or records it merged in:
        # the truth is the prediction with records moved, or the prediction is
        rates = [r for r in sorted({rate, min(2 * rate, 0.5)}) if r > 0]
        worlds = [(inject_errors(p, rate=r, seed=rng), p) for r in rates]
        worlds += [(p, inject_errors(p, rate=r, seed=rng)) for r in rates]
        if not worlds:
            worlds = [(Membership(p.records.copy(), p.clusters.copy()), p)]
    if pilot is not None and truth is None:
        calibration = _calibration(
            pilot,
            pilot_sigma2,
            worlds,
            keys,
            options=options,
            level=level,
            interval=interval,
            beta=beta,
            assurance=assurance,
            repeats=repeats,
            rng=rng,
        )
        raised = sorted(k for k, c in calibration.items() if c > 1.0)
        if raised:
            notes.append(
                "the pilot's own intervals are wider than the model's for "
                + ", ".join(f"{k} (variance x{calibration[k]:.2f})" for k in raised)
                + "; every design's variance is raised by that factor"
            )
    rows: list[dict[str, Any]] = []
    curves: list[dict[str, Any]] = []
    for d in designs:
        opts = dict(options.get(d, {}))
        if d == "cluster":
            opts.setdefault("weights", "uniform")
        try:
            result, design_n = _plan_design(
                d,
                keys,
                worlds,
                h=h,
                z=z,
                replace=replace,
                level=level,
                interval=interval,
                beta=beta,
                assurance=assurance,
                repeats=repeats,
                options=opts,
                rng=rng,
                truth_known=truth is not None,
                calibration=calibration,
            )
        except InputError as exc:
            if not optional:
                raise
            notes.append(f"design '{d}' left out: {exc}")
            continue
        missing = [k for k in keys if k not in result]
        if missing:
            notes.append(f"design '{d}' does not estimate {', '.join(missing)}")
        for key, (n_key, width, population, kind, var, src) in result.items():
            rows.append(
                {
                    "design": d,
                    "metric": key,
                    "n": n_key,
                    "design_n": design_n,
                    "sigma": math.sqrt(var.sigma2),
                    "expected_half_width": expected_half_width(
                        n_key, math.sqrt(var.sigma2), z, population=population, kind=kind
                    ),
                    "assured_half_width": width,
                    "basis": src,
                }
            )
            for g in grid_values or _default_grid(design_n, population if kind else None):
                sigma = math.sqrt(var.sigma2)
                curves.append(
                    {
                        "design": d,
                        "metric": key,
                        "n": g,
                        "expected_half_width": expected_half_width(
                            g, sigma, z, population=population, kind=kind
                        ),
                        "assured_half_width": assured_half_width(
                            g,
                            sigma,
                            z,
                            excess=var.excess,
                            reference_n=var.reference_n,
                            population=population,
                            kind=kind,
                        ),
                    }
                )
    if not rows:
        raise InputError(
            "no design could be planned for these metrics: " + "; ".join(notes[1:] or notes)
        )
    settings = {
        "half_width": h,
        "level": level,
        "assurance": assurance,
        "interval": interval,
        "replace": replace,
        "basis": basis,
        "repeats": repeats,
    }
    return PlanResult(
        pd.DataFrame(rows, columns=list(PLAN_COLUMNS)),
        pd.DataFrame(curves, columns=list(CURVE_COLUMNS)),
        tuple(notes),
        settings,
    )


def _default_grid(n: int, limit: int | None) -> list[int]:
    """``n`` times powers of 2 from 1/8 to 4, and 2 (within the population)."""
    values = {max(2, round(n * f)) for f in (0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0)}
    values.add(n)
    if limit is not None:
        values = {min(v, limit) for v in values}
    return sorted(values)


_Planned = dict[str, tuple[int, float, int | None, PopulationKind | None, _Variance, str]]


def _plan_design(
    design: str,
    keys: list[str],
    worlds: list[tuple[Membership, Membership]],
    *,
    h: float,
    z: float,
    replace: bool,
    level: float,
    interval: IntervalMethod,
    beta: float,
    assurance: float,
    repeats: int,
    options: Mapping[str, Any],
    rng: np.random.Generator,
    truth_known: bool,
    calibration: Mapping[str, float],
) -> tuple[_Planned, int]:
    """Per metric: planned n, assured half-width there, population, kind, variance,
    basis; and the draws of the design.

    The half-widths are measured on samples of ``n_ref`` draws and scaled to
    other ``n``; since the beta intervals' half-widths shrink faster than
    ``1/sqrt(n)`` near 0 and 1, ``n_ref`` is moved (by bisection between a size
    too small and one large enough) until the design's ``n`` is one at which the
    samples themselves were measured, within 10%.
    """
    kind = None if replace else _kind(design)
    sizes = [_population_size(design, t, pred, options) for t, pred in worlds]
    population = min(sizes) if kind is not None else None
    limit = min(population, _MAX_REFERENCE) if population is not None else _MAX_REFERENCE
    n_ref = min(200, limit)
    low: int | None = None  # measured, and needing more draws
    high: tuple[int, _Planned] | None = None  # measured, and enough
    last: tuple[int, _Planned] | None = None
    for _ in range(10):
        planned = _measure(
            design,
            keys,
            worlds,
            n_ref=n_ref,
            h=h,
            z=z,
            replace=replace,
            population=population,
            kind=kind,
            level=level,
            interval=interval,
            beta=beta,
            assurance=assurance,
            repeats=repeats,
            options=options,
            rng=rng,
            truth_known=truth_known,
            calibration=calibration,
        )
        top = max(v[0] for v in planned.values())
        last = (max(top, n_ref), planned)
        if top <= n_ref:
            high = (n_ref, planned)
        else:
            low = n_ref
        if high is not None and low is not None:
            if high[0] <= 1.1 * low or high[0] - low <= 1:
                break
            n_ref = round(math.sqrt(low * high[0]))
        elif high is not None:  # enough already: try the smaller size the scaling suggests
            if n_ref <= 2:
                break
            n_ref = max(min(top, n_ref - 1), 2)
        else:  # too few: measure where the scaling (from below, on the wide side) points
            if n_ref >= limit:
                break
            n_ref = min(top, limit)
    if high is not None:
        return high[1], high[0]
    if last is None:
        raise InputError(f"design '{design}' estimates none of {', '.join(keys)}")
    return last[1], last[0]


def _measure(
    design: str,
    keys: list[str],
    worlds: list[tuple[Membership, Membership]],
    *,
    n_ref: int,
    h: float,
    z: float,
    replace: bool,
    population: int | None,
    kind: PopulationKind | None,
    level: float,
    interval: IntervalMethod,
    beta: float,
    assurance: float,
    repeats: int,
    options: Mapping[str, Any],
    rng: np.random.Generator,
    truth_known: bool,
    calibration: Mapping[str, float],
) -> _Planned:
    """The plan from samples of ``n_ref`` draws of every working population."""
    variances: dict[str, _Variance] = {}
    for t, pred in worlds:
        got = _simulated_variances(
            t,
            pred,
            design,
            keys,
            n=n_ref,
            repeats=repeats,
            replace=replace,
            population=population,
            level=level,
            interval=interval,
            beta=beta,
            assurance=assurance,
            options=options,
            rng=rng,
        )
        for key, var in got.items():
            old = variances.get(key)
            variances[key] = var if old is None else max(old, var, key=lambda v: v.sigma2)
    if not variances:
        raise InputError(f"design '{design}' estimates none of {', '.join(keys)}")
    planned: _Planned = {}
    for key, var in variances.items():
        src = "truth" if truth_known else "model"
        if calibration.get(key, 1.0) > 1.0:
            var = _Variance(var.sigma2 * calibration[key], var.excess, var.reference_n)
            src = "pilot"
        if fpc(n_ref, population, kind) <= 0:  # measured on a census: nothing to scale
            planned[key] = (n_ref, 0.0, population, kind, var, src)
            continue
        sigma = math.sqrt(var.sigma2)
        n_exp = required_draws(sigma, h, z, population=population, kind=kind)
        width = _assured(var, z, population, kind)
        n_key = max(n_exp, smallest_draws(width, h, limit=population))
        planned[key] = (n_key, width(n_key), population, kind, var, src)
    return planned


def _assured(
    var: _Variance, z: float, population: int | None, kind: PopulationKind | None
) -> typing.Callable[[int], float]:
    sigma = math.sqrt(var.sigma2)

    def width(n: int) -> float:
        return assured_half_width(
            n,
            sigma,
            z,
            excess=var.excess,
            reference_n=var.reference_n,
            population=population,
            kind=kind,
        )

    return width


def check_plan(
    truth: Any,
    pred: Any,
    result: PlanResult,
    *,
    repeats: int = 200,
    design_options: Mapping[str, Mapping[str, Any]] | None = None,
    seed: Any = None,
) -> pd.DataFrame:
    """Draw samples of each design's planned size from ``truth``; share meeting the target.

    Returns one row per design and metric: ``design, metric, n, share`` (of the
    ``repeats`` samples whose interval half-width ``(upper - lower) / 2`` is at
    most the target; an undefined interval counts as a miss), ``share_se`` and
    ``mean_half_width``, sorted worst first.
    """
    repeats = check_int("repeats", repeats, minimum=1)
    rng = check_rng(seed)
    t = as_membership(truth, name="truth")
    p = as_membership(pred, name="pred")
    s = result.settings
    options = {str(k): dict(v) for k, v in (design_options or {}).items()}
    rows = []
    for d in dict.fromkeys(result.table["design"].tolist()):
        n = result.draws(d)
        keys = result.table.loc[result.table["design"] == d, "metric"].tolist()
        opts = dict(options.get(d, {}))
        if d == "cluster":
            opts.setdefault("weights", "uniform")
        sim = simulate(
            t,
            p,
            sample_size=n,
            repeats=repeats,
            design=typing.cast(SimulationDesign, d),
            replace=s["replace"],
            estimators=keys,
            naive=False,
            level=s["level"],
            interval=s["interval"],
            seed=rng,
            **opts,
        )
        for key in keys:
            low, up = sim.intervals[key]
            hw = (up - low) / 2.0
            met = np.where(np.isfinite(hw), hw <= s["half_width"] + 1e-12, False)
            share = float(met.mean())
            rows.append(
                {
                    "design": d,
                    "metric": key,
                    "n": n,
                    "share": share,
                    "share_se": math.sqrt(share * (1 - share) / repeats),
                    "mean_half_width": float(np.nanmean(hw)) if np.isfinite(hw).any() else math.nan,
                }
            )
    frame = pd.DataFrame(rows)
    return frame.sort_values(["share", "design", "metric"], kind="stable").reset_index(drop=True)
