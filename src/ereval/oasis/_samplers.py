"""The baseline samplers (Passive, Stratified, static IS), the factory and resume.

Every sampler has the interface of :class:`~ereval.oasis._base.Sampler`:
``ask``/``tell`` for a person, ``run`` with an oracle, ``estimate``, ``save``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._errors import InputError, InputTypeError
from .._validation import check_choice, check_in_range, check_int, describe
from ._adaptive import DEFAULT_EPSILON, DEFAULT_MAX_REDRAWS, OASISSampler, resolve_strata
from ._base import Sampler
from ._measures import CellTotals, uniform_draws
from ._model import epsilon_greedy, initial_f_guess, optimal_item_weights
from ._pool import Pool
from ._strata import Strata, StrataMethod

__all__ = [
    "ImportanceSampler",
    "Method",
    "PassiveSampler",
    "StratifiedSampler",
    "load_sampler",
    "make_sampler",
]

Method = Literal["oasis", "passive", "stratified", "importance"]
METHODS: tuple[Method, ...] = ("oasis", "passive", "stratified", "importance")


def _single_stratum(pool: Pool) -> Strata:
    if not isinstance(pool, Pool):
        raise InputTypeError(f"'pool' must be an ereval.oasis.Pool; received {describe(pool)}")
    return Strata.from_allocations(np.zeros(pool.size, dtype=np.int32), method="single")


class PassiveSampler(Sampler):
    """Uniform sampling of pairs.

    With replacement (default) each draw has weight ``W = N`` and the estimate
    is the plain F-alpha of the labelled draws (paper eq. 1, §6.2); a pair drawn
    again reuses its label.  Without replacement every draw is a new pair and
    the estimate is the sample ratio (its interval with the finite-population correction).

    Parameters
    ----------
    pool : Pool
    alpha : float, default 0.5
    replace : bool, default True
    seed : int, numpy.random.Generator or None
    max_redraws : int, default 10000
        See :class:`~ereval.oasis.OASISSampler`.
    """

    method = "passive"
    _own_strata_model = False

    def __init__(
        self,
        pool: Pool,
        *,
        alpha: float = 0.5,
        replace: bool = True,
        seed: Any = None,
        max_redraws: int = DEFAULT_MAX_REDRAWS,
    ) -> None:
        super().__init__(
            pool, _single_stratum(pool), alpha=alpha, seed=seed, max_redraws=max_redraws
        )
        if not isinstance(replace, bool):
            raise InputTypeError(f"'replace' must be True or False; received {describe(replace)}")
        self._replace = replace
        self._estimator = "weighted" if replace else "stratified"
        self._n_float = float(pool.size)

    def _draw(self) -> tuple[int, float, int]:
        u = self._rng.random()
        if self._replace:
            return int(u * self._n_float), self._n_float, 0
        return self._draw_without_replacement(0, u), 1.0, 0

    def _options(self) -> dict[str, Any]:
        return {"alpha": self._alpha, "replace": self._replace, "max_redraws": self._max_redraws}


class StratifiedSampler(Sampler):
    """Stratified sampling with proportional allocation (Druck & McCallum 2011).

    After ``initial_per_stratum`` pairs from each stratum (highest scores first,
    so that every stratum can be estimated), each draw picks stratum ``k`` with
    probability ``N_k / N`` (among strata with unlabelled pairs) and an unlabelled
    pair uniformly within it.  The estimate is the stratified ratio
    ``sum_k N_k bar{TP}_k / (alpha sum_k N_k bar{PP}_k + (1 - alpha) sum_k N_k bar{P}_k)``
    (a stratum without labels takes the pooled mean) with the interval of
    :mod:`ereval.oasis._intervals`.

    Parameters
    ----------
    pool : Pool
    alpha : float, default 0.5
    strata : Strata, optional
    n_strata : int, optional
        Default :func:`~ereval.oasis._strata.default_n_strata`.
    strata_method : {"csf", "equal_size"}, default "csf"
    initial_per_stratum : int, default 2
    seed : int, numpy.random.Generator or None
    max_redraws : int, default 10000

    References
    ----------
    G. Druck and A. McCallum, "Toward interactive training and evaluation", CIKM 2011.
    """

    method = "stratified"
    _estimator = "stratified"

    def __init__(
        self,
        pool: Pool,
        *,
        alpha: float = 0.5,
        strata: Strata | None = None,
        n_strata: int | None = None,
        strata_method: StrataMethod = "csf",
        initial_per_stratum: int = 2,
        seed: Any = None,
        max_redraws: int = DEFAULT_MAX_REDRAWS,
    ) -> None:
        if not isinstance(pool, Pool):
            raise InputTypeError(f"'pool' must be an ereval.oasis.Pool; received {describe(pool)}")
        st = resolve_strata(pool, strata, n_strata, strata_method)
        super().__init__(pool, st, alpha=alpha, seed=seed, max_redraws=max_redraws)
        init = check_int("initial_per_stratum", initial_per_stratum, minimum=0)
        self._init = init
        self._n_strata_goal = n_strata
        self._strata_method = strata_method
        plan: list[int] = []
        for k in range(st.n_strata - 1, -1, -1):
            plan.extend([k] * min(init, int(st.sizes[k])))
        self._plan = plan
        self._plan_pos = 0
        self._weights = st.sizes.astype(np.float64)
        self._cum = np.cumsum(self._weights)

    def _draw(self) -> tuple[int, float, int]:
        u0, u1 = self._rng.random(2).tolist()
        if self._plan_pos < len(self._plan):
            k = self._plan[self._plan_pos]
            self._plan_pos += 1
        else:
            cum = self._cum
            k = min(int(np.searchsorted(cum, u0 * float(cum[-1]), side="right")), cum.size - 1)
            while self._weights[k] <= 0.0:
                k -= 1
        return self._draw_without_replacement(k, u1), 1.0, k

    def _on_exhausted(self, stratum: int) -> None:
        self._weights[stratum] = 0.0
        self._cum = np.cumsum(self._weights)

    def _expected_draws(
        self, model: Strata, accept: npt.NDArray[np.bool_], totals: CellTotals
    ) -> npt.NDArray[np.float64]:
        """The labels of each stratum (the model's strata are the sampler's), spread
        uniformly over its pairs."""
        cells = np.stack([totals.rejected, totals.accepted], axis=1)
        per_pair = (self._n_k / self._strata.sizes)[:, None] * np.ones((1, 2))
        return uniform_draws(cells, per_pair)

    def _options(self) -> dict[str, Any]:
        return {
            "alpha": self._alpha,
            "n_strata": self._n_strata_goal,
            "strata_method": self._strata_method,
            "initial_per_stratum": self._init,
            "max_redraws": self._max_redraws,
        }

    def _extra_meta(self) -> dict[str, Any]:
        return {"plan_pos": self._plan_pos}

    def _restore_extra(self, extra: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
        self._plan_pos = int(extra["plan_pos"])


class ImportanceSampler(Sampler):
    """Static importance sampling of pairs (Sawade, Landwehr & Scheffer 2010).

    Pairs are drawn with replacement from the fixed epsilon-greedy pmf
    ``q = epsilon / N + (1 - epsilon) q*`` where ``q*`` is eq. (5) of the OASIS paper
    with ``p(1|z)`` replaced by the pool's probabilities and F by their guess
    (:func:`~ereval.oasis._model.initial_f_guess` per pair).  A draw is a binary
    search in the cumulative pmf, O(log N); the weight is ``W = 1 / q(z)``.

    Parameters
    ----------
    pool : Pool
    alpha : float, default 0.5
    epsilon : float, default 1e-3
        In (0, 1].
    seed : int, numpy.random.Generator or None
    max_redraws : int, default 10000

    References
    ----------
    C. Sawade, N. Landwehr and T. Scheffer, "Active estimation of F-measures",
    NIPS 2010.
    """

    method = "importance"
    _estimator = "weighted"
    _own_strata_model = False

    def __init__(
        self,
        pool: Pool,
        *,
        alpha: float = 0.5,
        epsilon: float = DEFAULT_EPSILON,
        seed: Any = None,
        max_redraws: int = DEFAULT_MAX_REDRAWS,
    ) -> None:
        super().__init__(
            pool, _single_stratum(pool), alpha=alpha, seed=seed, max_redraws=max_redraws
        )
        self._epsilon = check_in_range("epsilon", epsilon, low=0.0, high=1.0, low_open=True)
        n = pool.size
        probs = pool.probabilities
        self._f0 = initial_f_guess(self._alpha, np.ones(n), probs, pool.predictions)
        q = epsilon_greedy(
            optimal_item_weights(self._alpha, self._f0, probs, pool.predictions),
            np.full(n, 1.0 / n),
            self._epsilon,
        )
        self._q = q
        self._cum = np.cumsum(q)

    @property
    def f_guess(self) -> float:
        """The F-alpha guess used in ``q*``."""
        return self._f0

    @property
    def instrumental(self) -> npt.NDArray[np.float64]:
        """The pmf ``q`` over pairs."""
        out: npt.NDArray[np.float64] = self._q / float(self._cum[-1])
        return out

    def _expected_draws(
        self, model: Strata, accept: npt.NDArray[np.bool_], totals: CellTotals
    ) -> npt.NDArray[np.float64]:
        """``T`` times the pmf's mass on each kind of pair of each cell of ``model``: the
        cell's pairs times their mean pmf, weighted by their probability of being of that
        kind (matches: the pool's match probability; non-matches: its complement)."""
        k = model.n_strata
        q = self.instrumental
        p = self._pool.probabilities
        alloc = model.allocations

        def mean_rate(weights: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            num = np.bincount(alloc, weights=q * weights, minlength=k)
            den = np.bincount(alloc, weights=weights, minlength=k)
            out: npt.NDArray[np.float64] = np.divide(num, den, out=np.zeros(k), where=den > 0)
            return out

        acc = accept.astype(np.float64)
        rates = np.stack(
            [mean_rate(acc * p), mean_rate(acc * (1.0 - p)), mean_rate((1.0 - acc) * p)], axis=1
        )
        cells = np.stack([totals.rejected, totals.accepted], axis=1)
        out: npt.NDArray[np.float64] = (
            float(self._iterations) * rates * uniform_draws(cells, np.ones_like(cells))
        )
        return out

    def _draw(self) -> tuple[int, float, int]:
        total = float(self._cum[-1])
        i = int(np.searchsorted(self._cum, self._rng.random() * total, side="right"))
        i = min(i, self._q.size - 1)
        return i, total / float(self._q[i]), 0

    def _options(self) -> dict[str, Any]:
        return {"alpha": self._alpha, "epsilon": self._epsilon, "max_redraws": self._max_redraws}


_CLASSES: dict[str, type[Sampler]] = {
    "oasis": OASISSampler,
    "passive": PassiveSampler,
    "stratified": StratifiedSampler,
    "importance": ImportanceSampler,
}


def make_sampler(method: Method, pool: Pool, **options: Any) -> Sampler:
    """Build the sampler called ``method`` with keyword ``options``.

    >>> from ereval.oasis import Pool
    >>> pool = Pool.from_arrays([0.9, 0.1, 0.2], [1, 0, 0])
    >>> type(make_sampler("passive", pool, seed=0)).__name__
    'PassiveSampler'
    """
    name = check_choice("method", method, METHODS)
    return _CLASSES[name](pool, **options)


def load_sampler(path: str | Path, pool: Pool) -> Sampler:
    """Resume a sampler saved with :meth:`Sampler.save` on the same ``pool``.

    The resumed sampler proposes the same pairs, in the same order, as the
    original would have.

    Raises
    ------
    InputError
        If the file is not a saved sampler or ``pool`` differs from the saved one.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(2, "No such file or directory", str(p))
    try:
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise InputError(f"'{p}' is not a saved sampler state: {exc}") from exc
    if "__meta__" not in arrays:
        raise InputError(f"'{p}' is not a saved sampler state (no metadata)")
    meta = json.loads(str(arrays.pop("__meta__")))
    if meta.get("version") != 1:
        raise InputError(f"unsupported sampler state version {meta.get('version')!r} in '{p}'")
    if meta["pool_size"] != pool.size or meta["pool_fingerprint"] != pool.fingerprint():
        raise InputError(
            f"the pool does not match the one the sampler in '{p}' was saved with "
            f"({meta['pool_size']} pairs); resume with the same scores, predictions and probabilities"
        )
    options = dict(meta["options"])
    options.pop("variance_prior", None)  # an option of earlier versions, no longer used
    method = meta["method"]
    if method in ("oasis", "stratified"):
        options["strata"] = Strata.from_allocations(
            arrays["allocations"], method=meta["strata_method"], boundaries=arrays["boundaries"]
        )
    sampler = _CLASSES[method](pool, **options)
    sampler._restore(meta, arrays)
    return sampler
