"""OASIS: estimate pairwise F-measure, precision and recall from a few hundred labels.

Adaptive importance sampling of record pairs (Marchant & Rubinstein, PVLDB 2017)
and the baselines it is compared with, behind one interface:

>>> from ereval.oasis import OASISSampler, synthetic_pool
>>> pool = synthetic_pool(20_000, imbalance=300, seed=0)
>>> est = OASISSampler(pool, seed=0).run(budget=500)
>>> est.labels_used, type(est.f_measure).__name__
(500, 'Estimate')

See ``docs/oasis.md`` for a guide.
"""

from __future__ import annotations

from ._adaptive import CompletedStrata, OASISSampler, PriorScale
from ._base import Oracle, Query, Sampler, StopReason
from ._convergence import Convergence, budget_steps, convergence
from ._curve import estimated_curve
from ._estimates import Estimates
from ._experiment import ExperimentResult, ExperimentRow, run_experiment
from ._model import (
    epsilon_greedy,
    initial_f_guess,
    optimal_item_weights,
    optimal_strata_weights,
    posterior_mean,
    prior_pseudo_counts,
)
from ._oracles import LabelOracle, NoisyOracle
from ._pool import Pool, ScoreKind, pool_from_frame, read_pool, scores_to_probabilities
from ._samplers import (
    ImportanceSampler,
    Method,
    PassiveSampler,
    StratifiedSampler,
    load_sampler,
    make_sampler,
)
from ._strata import Strata, StrataMethod, csf_boundaries, stratify
from ._synthetic import synthetic_pool

__all__ = [
    "CompletedStrata",
    "Convergence",
    "Estimates",
    "ExperimentResult",
    "ExperimentRow",
    "ImportanceSampler",
    "LabelOracle",
    "Method",
    "NoisyOracle",
    "OASISSampler",
    "Oracle",
    "PassiveSampler",
    "Pool",
    "PriorScale",
    "Query",
    "Sampler",
    "ScoreKind",
    "StopReason",
    "Strata",
    "StrataMethod",
    "StratifiedSampler",
    "budget_steps",
    "convergence",
    "csf_boundaries",
    "epsilon_greedy",
    "estimated_curve",
    "initial_f_guess",
    "load_sampler",
    "make_sampler",
    "optimal_item_weights",
    "optimal_strata_weights",
    "pool_from_frame",
    "posterior_mean",
    "prior_pseudo_counts",
    "read_pool",
    "run_experiment",
    "scores_to_probabilities",
    "stratify",
    "synthetic_pool",
]
