"""Repeated-sampling experiments: error of each method against the label budget.

This reruns the study of Marchant & Rubinstein (2017, §6, Figure 2) on any pool
with known labels: each method is run ``repeats`` times with independent seeds;
after ``b`` distinct labels, for each budget ``b``, the estimate of F-alpha is
compared with the pool's true value. The figure is
:func:`ereval.plots.plot_oasis_experiment`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import check_choice, check_in_range, check_int
from ..results import FrameRepr, json_ready
from ._oracles import LabelOracle, NoisyOracle
from ._pool import Pool
from ._samplers import METHODS, Method, make_sampler
from ._strata import Strata, StrataMethod, stratify

__all__ = ["ExperimentResult", "ExperimentRow", "run_experiment"]

DEFAULT_BUDGETS = (500, 1000, 2000, 5000)


@dataclass(frozen=True)
class ExperimentRow:
    """Summary of one method at one label budget.

    Attributes
    ----------
    method : str
    budget : int
        Distinct labels.
    mae : float
        Mean absolute error ``E|hat F - F|`` over the runs where the estimate is defined.
    std : float
        Standard deviation of the estimate over those runs.
    bias : float
        Mean of ``hat F - F``.
    rmse : float
    coverage : float
        Share of defined runs whose interval contains ``F``.
    mean_std_estimate : float
        Mean of the reported standard errors (compare with ``std``).
    defined : float
        Share of runs with a defined estimate (the denominator was not 0).
    mean_iterations : float
        Mean number of draws needed to reach the budget.
    """

    method: str
    budget: int
    mae: float
    std: float
    bias: float
    rmse: float
    coverage: float
    mean_std_estimate: float
    defined: float
    mean_iterations: float


@dataclass(frozen=True, eq=False)
class ExperimentResult(FrameRepr):
    """All runs of an experiment.

    Attributes
    ----------
    true_value : float
        F-alpha of the pool.
    alpha : float
    budgets : tuple of int
    methods : tuple of str
    repeats : int
    rows : tuple of ExperimentRow
        One per (method, budget).
    estimates : dict of str to ndarray, shape (repeats, len(budgets))
        The raw estimates of each method.
    """

    true_value: float
    alpha: float
    budgets: tuple[int, ...]
    methods: tuple[str, ...]
    repeats: int
    rows: tuple[ExperimentRow, ...]
    estimates: dict[str, npt.NDArray[np.float64]] = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per method and budget: the fields of :class:`ExperimentRow` and
        ``true_value``."""
        return pd.DataFrame(
            [{**dataclasses.asdict(row), "true_value": self.true_value} for row in self.rows],
            columns=[*(f.name for f in dataclasses.fields(ExperimentRow)), "true_value"],
        )

    def to_dict(self) -> dict[str, Any]:
        """``true_value, alpha, budgets, methods, repeats`` and ``rows`` (one per method and
        budget), in plain JSON types (NaN as ``None``); the raw estimates are left out."""
        out: dict[str, Any] = json_ready(
            {
                "true_value": self.true_value,
                "alpha": self.alpha,
                "budgets": list(self.budgets),
                "methods": list(self.methods),
                "repeats": self.repeats,
                "rows": [dataclasses.asdict(row) for row in self.rows],
            }
        )
        return out

    def row(self, method: str, budget: int) -> ExperimentRow:
        """The summary of ``method`` at ``budget``."""
        for r in self.rows:
            if r.method == method and r.budget == budget:
                return r
        raise KeyError((method, budget))


def run_experiment(
    pool: Pool,
    *,
    methods: Sequence[Method] = METHODS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    repeats: int = 100,
    alpha: float = 0.5,
    seed: int = 0,
    strata: Strata | None = None,
    n_strata: int | None = None,
    strata_method: StrataMethod = "csf",
    epsilon: float = 1e-3,
    flip_probability: float = 0.0,
    confidence: float = 0.95,
    progress: Callable[[str, int], None] | None = None,
) -> ExperimentResult:
    """Run every method ``repeats`` times and summarise the error against the budget.

    Parameters
    ----------
    pool : Pool
        Must have labels (they answer as the oracle and give the true value).
    methods : sequence of {"oasis", "passive", "stratified", "importance"}
    budgets : sequence of int
        Label budgets at which the estimate is recorded (each at most the pool size).
    repeats : int, default 100
    alpha : float, default 0.5
    seed : int, default 0
        Run ``r`` of every method uses the ``r``-th child of ``SeedSequence(seed)``.
    strata : Strata, optional
        Strata shared by OASIS and Stratified; default
        ``stratify(pool.scores, method=strata_method, n_strata=n_strata)``.
    n_strata, strata_method
        See :func:`~ereval.oasis.stratify`.
    epsilon : float, default 1e-3
        Greediness of OASIS and IS.
    flip_probability : float, default 0
        Label noise of the oracle (:class:`~ereval.oasis.NoisyOracle`); the error is
        still measured against the noise-free labels.
    confidence : float, default 0.95
        Level of the intervals whose coverage is reported.
    progress : callable, optional
        Called as ``progress(method, run)`` after each run.

    Returns
    -------
    ExperimentResult
    """
    if pool.labels is None:
        raise InputError("the pool needs a label column for an experiment")
    meths = tuple(check_choice("methods", m, METHODS) for m in methods)
    if not meths:
        raise InputError("'methods' must name at least one method")
    budget_list = sorted({check_int("budgets", b, minimum=1) for b in budgets})
    if not budget_list:
        raise InputError("'budgets' must hold at least one budget")
    if budget_list[-1] > pool.size:
        raise InputError(
            f"'budgets' must not exceed the pool size {pool.size}; received {budget_list[-1]}"
        )
    n_rep = check_int("repeats", repeats, minimum=1)
    a = check_in_range("alpha", alpha, low=0.0, high=1.0)
    flip = check_in_range("flip_probability", flip_probability, low=0.0, high=1.0)
    check_in_range("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
    base_seed = check_int("seed", seed, minimum=0)
    truth = pool.true_measure(a)
    k = None if n_strata is None else min(check_int("n_strata", n_strata, minimum=1), pool.size)
    st = strata if strata is not None else stratify(pool.scores, method=strata_method, n_strata=k)
    children = np.random.SeedSequence(base_seed).spawn(n_rep)
    shape = (n_rep, len(budget_list))
    estimates: dict[str, npt.NDArray[np.float64]] = {}
    rows: list[ExperimentRow] = []
    for method in meths:
        est = np.full(shape, math.nan)
        sd = np.full(shape, math.nan)
        covered = np.zeros(shape, dtype=bool)
        iters = np.zeros(shape)
        for r, child in enumerate(children):
            sampler_seed, oracle_seed = child.spawn(2)
            options: dict[str, Any] = {"alpha": a, "seed": np.random.default_rng(sampler_seed)}
            if method in ("oasis", "stratified"):
                options["strata"] = st
            if method in ("oasis", "importance"):
                options["epsilon"] = epsilon
            sampler = make_sampler(method, pool, **options)
            oracle: Any = (
                NoisyOracle(pool, flip_probability=flip, seed=np.random.default_rng(oracle_seed))
                if flip > 0
                else LabelOracle(pool)
            )
            for j, b in enumerate(budget_list):
                e = sampler.run(oracle, budget=b, confidence=confidence).f_measure
                est[r, j] = e.value
                sd[r, j] = e.std
                covered[r, j] = e.lower <= truth <= e.upper
                iters[r, j] = sampler.iterations
                if sampler.stop_reason != "budget":
                    est[r, j + 1 :] = e.value
                    sd[r, j + 1 :] = e.std
                    covered[r, j + 1 :] = covered[r, j]
                    iters[r, j + 1 :] = sampler.iterations
                    break
            if progress is not None:
                progress(method, r)
        estimates[method] = est
        for j, b in enumerate(budget_list):
            rows.append(
                _summarise(method, b, est[:, j], sd[:, j], covered[:, j], iters[:, j], truth)
            )
    return ExperimentResult(
        true_value=truth,
        alpha=a,
        budgets=tuple(budget_list),
        methods=meths,
        repeats=n_rep,
        rows=tuple(rows),
        estimates=estimates,
    )


def _summarise(
    method: str,
    budget: int,
    est: npt.NDArray[np.float64],
    sd: npt.NDArray[np.float64],
    covered: npt.NDArray[np.bool_],
    iters: npt.NDArray[np.float64],
    truth: float,
) -> ExperimentRow:
    ok = np.isfinite(est)
    n_ok = int(ok.sum())
    if n_ok == 0:
        nan = math.nan
        return ExperimentRow(method, budget, nan, nan, nan, nan, nan, nan, 0.0, float(iters.mean()))
    err = est[ok] - truth
    return ExperimentRow(
        method=method,
        budget=budget,
        mae=float(np.mean(np.abs(err))),
        std=float(np.std(est[ok], ddof=1)) if n_ok > 1 else math.nan,
        bias=float(np.mean(err)),
        rmse=float(np.sqrt(np.mean(err**2))),
        coverage=float(np.mean(covered[ok])),
        mean_std_estimate=float(np.mean(sd[ok])),
        defined=n_ok / est.size,
        mean_iterations=float(iters.mean()),
    )
