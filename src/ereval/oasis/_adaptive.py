"""OASIS: optimal asymptotic sequential importance sampling (Marchant & Rubinstein 2017)."""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._errors import InputTypeError
from .._validation import check_choice, check_in_range, check_int, describe
from ._base import Sampler
from ._measures import CellTotals, uniform_draws
from ._model import initial_f_guess, posterior_mean, prior_pseudo_counts
from ._pool import Pool
from ._strata import Strata, StrataMethod, stratify

__all__ = ["CompletedStrata", "OASISSampler", "PriorScale", "resolve_strata"]

DEFAULT_EPSILON = 1e-3
DEFAULT_MAX_REDRAWS = 10_000

#: How a stratum whose every pair is labelled is estimated: see :class:`OASISSampler`.
CompletedStrata = Literal["exact", "sampled"]
#: How the prior's ``eta`` pseudo-labels are spread: see :class:`OASISSampler`.
PriorScale = Literal["split", "per_stratum"]
_COMPLETED_STRATA: tuple[CompletedStrata, ...] = ("exact", "sampled")
_PRIOR_SCALES: tuple[PriorScale, ...] = ("split", "per_stratum")


def resolve_strata(
    pool: Pool, strata: Strata | None, n_strata: int | None, strata_method: StrataMethod
) -> Strata:
    """Use ``strata`` if given, else stratify the pool's scores (see :func:`stratify`)."""
    if strata is None:
        k = None if n_strata is None else min(check_int("n_strata", n_strata, minimum=1), pool.size)
        return stratify(pool.scores, method=strata_method, n_strata=k)
    if not isinstance(strata, Strata):
        raise InputTypeError(
            f"'strata' must be an ereval.oasis.Strata; received {describe(strata)}"
        )
    return strata


class OASISSampler(Sampler):
    """Adaptive importance sampler of record pairs for F-alpha, precision and recall.

    Each iteration (paper Algorithm 3):

    1. compute the epsilon-greedy instrumental pmf over strata (eq. 12),
       ``v_k = epsilon omega_k + (1 - epsilon) v*_k`` with ``v*`` from the current
       F estimate and the posterior means ``pi_k``
       (:func:`~ereval.oasis._model.optimal_strata_weights`); strata whose pairs are
       all labelled get no mass (their counts are exact; see ``completed_strata``);
    2. draw a stratum ``k`` from ``v`` and a pair uniformly within it (with
       replacement); its weight is ``W = N_k / v_k`` (``N p(z) / q(z)``);
    3. get its label (a pair drawn again reuses its label);
    4. add the label to stratum ``k``'s Beta-Bernoulli posterior (eq. 10) and
       update the estimates (eq. 3, :mod:`~ereval.oasis._estimates`).

    The prior (Algorithm 2) centres each stratum on the mean match probability
    ``pi0_k`` of its pairs (:attr:`Pool.probabilities`) with ``eta / K``
    pseudo-labels (or ``eta``, see ``prior_scale``); with ``decaying_prior`` the
    prior weighs ``1 / n_k`` after ``n_k`` draws from the stratum (Remark 4).  The
    initial F guess is :func:`~ereval.oasis._model.initial_f_guess`.

    Two options choose between the paper and the authors' code (the ``oasis``
    package 0.1.3, ``oasis/oasis.py``) where they differ from this sampler's
    defaults:

    * ``completed_strata="sampled"`` keeps the paper's plain estimator (eq. 3,
      ``(1/T) sum_t W_t f(z_t)`` over every draw) once a stratum is fully
      labelled: the stratum stays in the instrumental distribution and its
      redraws reuse their labels and keep their weights, which is what the
      authors' code does (it never sets a stratum aside).  The default,
      ``"exact"``, counts such a stratum exactly instead and draws from it no more
      (see :mod:`ereval.oasis._base`).  The two agree until a stratum completes.
    * ``prior_scale="per_stratum"`` gives every stratum the paper's prior
      ``Gamma^(0) = eta [pi0; 1 - pi0]`` (Algorithm 3, line 1): ``eta``
      pseudo-labels in each stratum.  The default, ``"split"``, divides them
      among the strata, ``eta / K`` each, as the authors' code does
      (``weighted_strength = prior_strength / num_strata`` in
      ``OASISSampler._calc_BB_prior``); with the default ``eta = 2 K`` that is 2
      pseudo-labels per stratum against the paper's ``2 K``.

    Parameters
    ----------
    pool : Pool
        The pairs to sample.
    alpha : float, default 0.5
        Weight of the target F-measure (1: precision, 0: recall); the
        instrumental distribution is optimal for this one.
    epsilon : float, default 1e-3
        Greediness, in (0, 1]; 1 is passive stratified sampling.
    prior_strength : float, optional
        ``eta > 0``, the total pseudo-labels of the prior shared equally by the
        strata; default ``2 K`` (the paper's experiments), i.e. two per stratum.
    decaying_prior : bool, default True
        Remark 4 of the paper.
    prior_scale : {"split", "per_stratum"}, default "split"
        ``eta / K`` pseudo-labels per stratum (the authors' code) or ``eta``
        (the paper's formula).
    completed_strata : {"exact", "sampled"}, default "exact"
        A fully labelled stratum is counted exactly and drawn no more, or keeps
        being drawn and weighted as in the paper's estimator (eq. 3) and the
        authors' code.  With ``"sampled"`` a run may redraw labelled pairs many
        times; ``max_redraws`` consecutive redraws stop it as stalled.
    strata : Strata, optional
        Strata to use; default ``stratify(pool.scores, n_strata=n_strata,
        method=strata_method)``.
    n_strata : int, optional
        Goal number of strata when ``strata`` is not given; default
        :func:`~ereval.oasis._strata.default_n_strata` (30 up to 200,000 pairs).
    strata_method : {"csf", "equal_size"}, default "csf"
    seed : int, numpy.random.Generator or None
        Source of randomness.
    max_redraws : int, default 10000
        Consecutive draws of labelled pairs after which sampling stops as stalled.

    References
    ----------
    N. G. Marchant and B. I. P. Rubinstein, "In Search of an Entity Resolution
    OASIS: Optimal Asymptotic Sequential Importance Sampling", PVLDB 10(11), 2017.

    Examples
    --------
    >>> from ereval.oasis import Pool
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(5000) < 0.01).astype(int)
    >>> s = rng.normal(2.0 * y - 1.5, 1.0)
    >>> pool = Pool.from_arrays(s, (s > 0).astype(int), labels=y)
    >>> sampler = OASISSampler(pool, seed=1)
    >>> est = sampler.run(budget=300)
    >>> est.labels_used, abs(est.f_measure.value - pool.true_measure()) < 0.1
    (300, True)
    """

    method = "oasis"
    _estimator = "weighted"

    def __init__(
        self,
        pool: Pool,
        *,
        alpha: float = 0.5,
        epsilon: float = DEFAULT_EPSILON,
        prior_strength: float | None = None,
        decaying_prior: bool = True,
        prior_scale: PriorScale = "split",
        completed_strata: CompletedStrata = "exact",
        strata: Strata | None = None,
        n_strata: int | None = None,
        strata_method: StrataMethod = "csf",
        seed: Any = None,
        max_redraws: int = DEFAULT_MAX_REDRAWS,
    ) -> None:
        if not isinstance(pool, Pool):
            raise InputTypeError(f"'pool' must be an ereval.oasis.Pool; received {describe(pool)}")
        scale = check_choice("prior_scale", prior_scale, _PRIOR_SCALES)
        completed = check_choice("completed_strata", completed_strata, _COMPLETED_STRATA)
        st = resolve_strata(pool, strata, n_strata, strata_method)
        super().__init__(
            pool,
            st,
            alpha=alpha,
            seed=seed,
            max_redraws=max_redraws,
            census_completed=completed == "exact",
        )
        self._prior_scale = scale
        self._completed_strata = completed
        k = st.n_strata
        self._epsilon = check_in_range("epsilon", epsilon, low=0.0, high=1.0, low_open=True)
        eta = (
            2.0 * k
            if prior_strength is None
            else check_in_range("prior_strength", prior_strength, low=0.0, low_open=True)
        )
        if not isinstance(decaying_prior, bool):
            raise InputTypeError(
                f"'decaying_prior' must be True or False; received {describe(decaying_prior)}"
            )
        self._eta = eta
        self._decaying = decaying_prior
        self._n_strata_goal = n_strata
        self._strata_method = strata_method
        a = self._alpha
        omega = st.weights
        self._omega = omega
        self._lam = st.mean(pool.predictions)
        self._pi0 = st.mean(pool.probabilities)
        per_stratum = eta if scale == "per_stratum" else eta / k
        self._g1, self._g0 = prior_pseudo_counts(self._pi0, per_stratum)
        self._f0 = initial_f_guess(a, st.sizes, self._pi0, self._lam)
        self._k = k
        self._m_list = [0.0] * k
        self._n_list = [0.0] * k
        self._g1_list = self._g1.tolist()
        self._g0_list = self._g0.tolist()
        self._sizes_list = st.sizes.tolist()
        self._offsets_list = st.offsets.tolist()
        self._order = st.order
        self._coef_g = omega * (1.0 - a) * (1.0 - self._lam)
        self._coef_h = omega * self._lam
        self._active = np.ones(k)
        self._hr = [0.0] * k
        self._cum_g = np.empty(k)
        self._vbuf = np.empty(k)
        self._inv_v = np.zeros(k)
        # sum over the draws of each stratum's probability v_{k,t} (its expected draws)
        self._v_sums = np.zeros(k)
        self._refresh_model()
        self._refresh_active()

    @property
    def epsilon(self) -> float:
        """Greediness parameter."""
        return self._epsilon

    @property
    def prior_strength(self) -> float:
        """Total prior pseudo-labels ``eta``."""
        return self._eta

    @property
    def prior_scale(self) -> PriorScale:
        """How ``eta`` is spread over the strata (``"split"``: ``eta / K`` each)."""
        return self._prior_scale

    @property
    def completed_strata(self) -> CompletedStrata:
        """How a fully labelled stratum is estimated (``"exact"`` or ``"sampled"``)."""
        return self._completed_strata

    @property
    def f_guess(self) -> float:
        """Initial guess of F-alpha (Algorithm 2)."""
        return self._f0

    @property
    def pi(self) -> npt.NDArray[np.float64]:
        """Current posterior mean of each stratum's match probability."""
        return self._pi.copy()

    def instrumental(self) -> npt.NDArray[np.float64]:
        """The instrumental pmf over strata for the next draw (eq. 12)."""
        v = self._instrumental()
        out: npt.NDArray[np.float64] = v / v.sum()
        return out

    # ------------------------------------------------------------ internals
    def _refresh_model(self) -> None:
        m = np.asarray(self._m_list)
        n = np.asarray(self._n_list)
        self._pi = posterior_mean(m, n, self._g1, self._g0, decaying=self._decaying)
        self._pi_list = self._pi.tolist()
        self._coef_g_list = (self._coef_g * self._active).tolist()
        self._g = self._coef_g * self._active * np.sqrt(self._pi)

    def _refresh_active(self) -> None:
        om = self._omega * self._active
        total = float(om.sum())
        self._passive = om / total if total > 0 else om
        self._passive_list = self._passive.tolist()
        self._eps_passive = self._epsilon * self._passive
        self._eps_passive_list = self._eps_passive.tolist()
        self._inactive_inf = np.where(self._active > 0.0, 0.0, np.inf)
        self._offset = self._eps_passive + self._inactive_inf
        self._cum_passive = np.cumsum(self._passive)
        h = self._coef_h * self._active
        self._h_list = h.tolist()
        self._pset = [k for k in range(self._k) if h[k] > 0.0]

    def _instrumental(self) -> npt.NDArray[np.float64]:
        """Unnormalised epsilon-greedy pmf over strata (vectorised form of :meth:`_draw`)."""
        f = self._current_f()
        if not math.isfinite(f):
            f = self._f0
        pi = self._pi
        h = np.asarray(self._h_list)
        raw = self._g * f + h * np.sqrt((self._alpha * f) ** 2 * (1.0 - pi) + (1.0 - f) ** 2 * pi)
        total = float(raw.sum())
        if total > 0.0 and math.isfinite(total):
            out: npt.NDArray[np.float64] = (
                self._epsilon * self._passive + (1.0 - self._epsilon) * raw / total
            )
            return out
        return self._passive.copy()

    def _draw(self) -> tuple[int, float, int]:
        # v_k = eps omega_k + (1 - eps) (f g_k + h_k r_k) / total  (eq. 12), sampled as a
        # mixture: the passive part, the "f g" part (one cumulative sum) and the "h r"
        # part, which lives only on the few strata holding predicted matches.
        t = float(self._iterations)
        c, s = self._census, self._sums
        num = t * c[0] + s[0]
        den = self._alpha * (t * c[1] + s[1]) + (1.0 - self._alpha) * (t * c[2] + s[2])
        f = num / den if den > 0.0 else self._f0
        if not math.isfinite(f):
            f = self._f0
        a2f2 = (self._alpha * f) ** 2
        b2 = (1.0 - f) ** 2
        pi = self._pi_list
        h = self._h_list
        hr = self._hr
        big_h = 0.0
        for k in self._pset:
            p = pi[k]
            x = h[k] * math.sqrt(a2f2 * (1.0 - p) + b2 * p)
            hr[k] = x
            big_h += x
        cum_g = self._g.cumsum(out=self._cum_g)
        fg = f * float(cum_g[-1])
        total = fg + big_h
        u0, u1, u2 = self._rng.random(3).tolist()
        eps = self._epsilon
        valid = total > 0.0 and math.isfinite(total)
        last = self._k - 1
        if not valid or u0 < eps:
            cum = self._cum_passive
            k = min(int(cum.searchsorted(u1 * float(cum[-1]), side="right")), last)
            while self._passive_list[k] <= 0.0:
                k -= 1
        else:
            x = u1 * total
            if x < fg:
                k = min(int(cum_g.searchsorted(x / f, side="right")), last)
                while self._g[k] <= 0.0:
                    k -= 1
            else:
                x -= fg
                k = -1
                for j in self._pset:
                    if hr[j] > 0.0:
                        k = j
                        if x < hr[j]:
                            break
                        x -= hr[j]
        # 1 / v_t for every stratum, added to S_k when the draw is consumed
        # (exhausted strata have an infinite offset, so their 1 / v is 0)
        vfull = self._vbuf
        if valid:
            coef = (1.0 - eps) / total
            offset = self._offset
            epsp = self._eps_passive_list
            for j in self._pset:
                offset[j] = epsp[j] + hr[j] * coef
            np.multiply(self._g, f * coef, out=vfull)
            vfull += offset
        else:
            np.add(self._passive, self._inactive_inf, out=vfull)
        np.reciprocal(vfull, out=self._inv_v)
        if valid:
            gk = float(self._g[k])
            vk = (
                eps * self._passive_list[k]
                + (1.0 - eps) * (f * gk + (hr[k] if h[k] > 0.0 else 0.0)) / total
            )
        else:
            vk = self._passive_list[k]
        size = self._sizes_list[k]
        i = int(self._order[self._offsets_list[k] + int(u2 * size)])
        return i, size / vk, k

    def _observe(self, stratum: int, label: int) -> None:
        inv = self._inv_v
        self._v_sums += np.divide(1.0, inv, out=np.zeros_like(inv), where=inv > 0.0)
        k = stratum
        m = self._m_list[k] + label
        n = self._n_list[k] + 1.0
        self._m_list[k] = m
        self._n_list[k] = n
        c = 1.0 / n if self._decaying else 1.0
        g1 = self._g1_list[k]
        p = (m + c * g1) / (n + c * (g1 + self._g0_list[k]))
        self._pi_list[k] = p
        self._pi[k] = p
        self._g[k] = self._coef_g_list[k] * math.sqrt(p)

    def _on_exhausted(self, stratum: int) -> None:
        self._active[stratum] = 0.0
        self._g[stratum] = 0.0
        self._coef_g_list[stratum] = 0.0
        self._hr[stratum] = 0.0
        self._inv_v[stratum] = 0.0
        self._refresh_active()

    def _expected_draws(
        self, model: Strata, accept: npt.NDArray[np.bool_], totals: CellTotals
    ) -> npt.NDArray[np.float64]:
        """``sum_t v_{k,t} / N_k`` draws per pair of stratum ``k`` (the instrumental
        distributions' mass on it, spread uniformly over its pairs) for every kind."""
        cells = np.stack([totals.rejected, totals.accepted], axis=1)
        per_pair = (self._v_sums / self._strata.sizes)[:, None] * np.ones((1, 2))
        return uniform_draws(cells, per_pair)

    def _options(self) -> dict[str, Any]:
        return {
            "alpha": self._alpha,
            "epsilon": self._epsilon,
            "prior_strength": self._eta,
            "decaying_prior": self._decaying,
            "prior_scale": self._prior_scale,
            "completed_strata": self._completed_strata,
            "n_strata": self._n_strata_goal,
            "strata_method": self._strata_method,
            "max_redraws": self._max_redraws,
        }

    def _extra_arrays(self) -> dict[str, npt.NDArray[Any]]:
        return {
            "oasis_m": np.asarray(self._m_list),
            "oasis_n": np.asarray(self._n_list),
            "oasis_inv_v": self._inv_v,
            "oasis_v_sums": self._v_sums,
        }

    def _restore_extra(self, extra: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
        self._m_list = arrays["oasis_m"].astype(np.float64).tolist()
        self._n_list = arrays["oasis_n"].astype(np.float64).tolist()
        self._inv_v = arrays["oasis_inv_v"].astype(np.float64)
        if "oasis_v_sums" in arrays:
            self._v_sums = arrays["oasis_v_sums"].astype(np.float64)
        else:  # a state saved before v was summed: T^2 / sum_t 1 / v_t, the harmonic bound
            inv_sums = arrays["oasis_inv_v_sums"].astype(np.float64)
            t2 = float(self._iterations) ** 2
            self._v_sums = np.divide(t2, inv_sums, out=np.zeros_like(inv_sums), where=inv_sums > 0)
        self._refresh_model()
