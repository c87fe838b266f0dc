"""The machinery shared by every sampler: label cache, ask/tell, oracle loop, state.

A sampler repeatedly *draws* a pair; a pair whose label is already known is
consumed at once (a redraw costs no label), otherwise it is *proposed* and waits
for its label.  The label budget counts distinct pairs labelled.

Redraws of labelled pairs are kept in check in two ways.  (1) A stratum whose
every pair is labelled is *exhausted*: its counts are then known exactly, the
instrumental distribution gives it no more mass, and the estimator counts it
exactly in place of its sampled terms (see :mod:`ereval.oasis._estimates`); this
removes the usual cause of long runs of redraws, a small high-score stratum that
the sampler keeps returning to.  (A sampler built with ``census_completed=False``
skips this: the stratum is drawn and weighted like any other, as in the plain
estimator of the OASIS paper.)  (2) More than ``max_redraws`` consecutive redraws stop the
sampler with ``stop_reason == "stalled"``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt

from .._errors import InputError, InputTypeError
from .._validation import check_in_range, check_int, check_rng, describe
from ..results import UNIT_RANGE, Estimate, problem_warning, range_problems
from ._estimates import Estimates
from ._measures import CellTotals, cell_totals, measure_estimates, uniform_draws
from ._pool import Pool
from ._strata import Strata, stratify

__all__ = ["MIN_LABELS", "Oracle", "Query", "Sampler", "StopReason", "check_label"]

#: An oracle maps the index of a pair in the pool to its 0/1 label.
Oracle = Callable[[int], int]

StopReason = Literal["budget", "ci_width", "exhausted", "stalled", "max_iterations"]

_STATE_VERSION = 1

#: Labels below which an estimate carries a warning that its interval rests mostly on the
#: pool's match probabilities (the size below which the cluster-sample estimators warn too).
MIN_LABELS = 30


@dataclass(frozen=True)
class Query:
    """A pair proposed for labelling.

    Attributes
    ----------
    index : int
        Position of the pair in the pool.
    pair_id : Any
        Its identifier.
    score : float
        Its similarity score.
    prediction : int
        The system's 0/1 prediction.
    stratum : int
        Its stratum (0 for samplers without strata).
    """

    index: int
    pair_id: Any
    score: float
    prediction: int
    stratum: int


def check_label(label: Any, *, source: str) -> int:
    """Return ``label`` as 0 or 1; reject anything else with a clear message."""
    if type(label) is int and (label == 0 or label == 1):
        return label
    if isinstance(label, bool | np.bool_):
        return int(label)
    if isinstance(label, numbers.Integral) and int(label) in (0, 1):
        return int(label)
    if isinstance(label, numbers.Integral):
        raise InputError(f"the label from {source} must be 0 or 1; received {int(label)}")
    raise InputTypeError(
        f"the label from {source} must be the integer 0 or 1; received {describe(label)}"
    )


class Sampler(ABC):
    """Base class of the samplers (see :class:`~ereval.oasis.OASISSampler`)."""

    method: ClassVar[str]
    _estimator: Literal["weighted", "stratified"]
    #: Whether the sampler's own strata are the strata of the model of the unlabelled
    #: pairs (else the pool's default strata are).
    _own_strata_model: ClassVar[bool] = True

    def __init__(
        self,
        pool: Pool,
        strata: Strata,
        *,
        alpha: float,
        seed: Any,
        max_redraws: int,
        census_completed: bool = True,
    ) -> None:
        if not isinstance(pool, Pool):
            raise InputTypeError(f"'pool' must be an ereval.oasis.Pool; received {describe(pool)}")
        if strata.n_items != pool.size:
            raise InputError(f"'strata' cover {strata.n_items} pairs but the pool has {pool.size}")
        self._pool = pool
        self._strata = strata
        self._alpha = check_in_range("alpha", alpha, low=0.0, high=1.0)
        self._rng = check_rng(seed)
        self._max_redraws = check_int("max_redraws", max_redraws, minimum=1)
        k = strata.n_strata
        self._pred = pool.predictions
        self._labels = np.full(pool.size, -1, dtype=np.int8)
        self._label_order: list[int] = []
        self._unlabelled = strata.sizes.copy()
        # distinct-label counts per stratum: labelled, TP, PP, P
        self._n_k = np.zeros(k, dtype=np.int64)
        self._tp_k = np.zeros(k, dtype=np.int64)
        self._pp_k = np.zeros(k, dtype=np.int64)
        self._pos_k = np.zeros(k, dtype=np.int64)
        # weighted estimator (for the sampler's running F): sums of x_t = W_t f(z_t)
        # (TP, PP, P) over the draws from strata still open, the same sums per stratum,
        # and the exact counts of the strata whose every pair is labelled
        self._sums = [0.0, 0.0, 0.0]
        self._ssum = [0.0] * (3 * k)
        self._census = [0.0, 0.0, 0.0]
        self._to_exhaust: list[int] = []
        # iterations completed when each stratum became fully labelled (-1: not yet)
        self._exhausted_at = np.full(k, -1, dtype=np.int64)
        # whether a fully labelled stratum is counted exactly (else its draws keep
        # counting in the weighted sums and it stays in the instrumental distribution)
        self._census_completed = census_completed
        self._iterations = 0
        self._hist_index: list[int] = []
        self._hist_weight: list[float] = []
        self._pending: tuple[int, float, int] | None = None
        self._drawn_wo = np.zeros(k, dtype=np.int64)
        self._perm: npt.NDArray[np.int64] | None = None
        self._model_cache: Strata | None = None
        self._totals_cache: CellTotals | None = None
        self.stop_reason: StopReason | None = None

    # ------------------------------------------------------------------ API
    @property
    def pool(self) -> Pool:
        """The pool being sampled."""
        return self._pool

    @property
    def strata(self) -> Strata:
        """The strata (a single stratum for Passive and IS)."""
        return self._strata

    @property
    def alpha(self) -> float:
        """Weight of the target F-measure."""
        return self._alpha

    @property
    def labels_used(self) -> int:
        """Distinct pairs labelled so far."""
        return len(self._label_order)

    @property
    def iterations(self) -> int:
        """Draws consumed so far (a redraw of a labelled pair counts, a label does not)."""
        return self._iterations

    @property
    def labelled(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int8]]:
        """Indices of the labelled pairs in labelling order, and their labels."""
        idx = np.asarray(self._label_order, dtype=np.int64)
        return idx, self._labels[idx]

    @property
    def history(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Index and weight ``W_t = N p(z_t) / q_t(z_t)`` of every draw."""
        return np.asarray(self._hist_index, dtype=np.int64), np.asarray(self._hist_weight)

    @property
    def exhausted(self) -> bool:
        """Whether every pair of the pool is labelled."""
        return len(self._label_order) == self._pool.size

    def ask(self) -> Query | None:
        """Propose the next pair to label, or ``None`` when sampling cannot go on.

        Draws whose pair is already labelled are consumed on the way.  Calling
        ``ask`` again before :meth:`tell` returns the same pair.  ``None`` comes
        with :attr:`stop_reason` ``"exhausted"`` (all labelled) or ``"stalled"``
        (``max_redraws`` consecutive redraws).
        """
        if self._pending is None:
            self._pending = self._next_draw()
        return None if self._pending is None else self._query(self._pending)

    def _next_draw(self) -> tuple[int, float, int] | None:
        """Draw until a pair without a label comes up; consume the redraws on the way."""
        labels = self._labels
        redraws = 0
        while True:
            if len(self._label_order) == self._pool.size:
                self.stop_reason = "exhausted"
                return None
            draw = self._draw()
            label = int(labels[draw[0]])
            if label < 0:
                return draw
            self._consume(draw, label)
            redraws += 1
            if redraws >= self._max_redraws:
                self.stop_reason = "stalled"
                return None

    def tell(self, label: Any, *, index: int | None = None) -> None:
        """Record the label (0 or 1) of the pair proposed by :meth:`ask`.

        ``index``, when given, must be the proposed pair's index (a guard for
        applications that keep the query elsewhere).
        """
        if self._pending is None:
            raise InputError("no pair is waiting for a label: call ask() first")
        if index is not None and index != self._pending[0]:
            raise InputError(
                f"'index' must be the proposed pair's index {self._pending[0]}; received {index!r}"
            )
        value = check_label(label, source="tell()")
        draw = self._pending
        self._pending = None
        self._add_label(draw[0], draw[2], value)
        self._consume(draw, value)

    def run(
        self,
        oracle: Oracle | None = None,
        *,
        budget: int | None = None,
        target_ci_width: float | None = None,
        min_labels: int = 100,
        max_iterations: int | None = None,
        confidence: float = 0.95,
        progress: Callable[[int], None] | None = None,
    ) -> Estimates:
        """Label pairs with ``oracle`` until a stopping rule holds; return the estimates.

        Parameters
        ----------
        oracle : callable, optional
            ``oracle(index) -> 0 or 1``; default: the pool's label column.
        budget : int, optional
            Stop once this many distinct pairs are labelled in total (counting
            earlier runs of this sampler); at most the pool size.
        target_ci_width : float, optional
            Stop once the interval of the target F-alpha is at most this wide
            (checked after each new label, from ``min_labels`` labels on).
        min_labels : int, default 100
            Labels needed before the width rule may stop the run.
        max_iterations : int, optional
            Stop after this many draws in total.
        confidence : float, default 0.95
            Interval level, for the width rule and the returned estimates.
        progress : callable, optional
            Called as ``progress(labels_used)`` after each new label.

        Notes
        -----
        At least one of ``budget`` and ``target_ci_width`` is required.  Sampling
        also stops when every pair is labelled or it stalls; see
        :attr:`stop_reason`.
        """
        if oracle is None:
            if self._pool.labels is None:
                raise InputError("'oracle' is required: the pool has no label column")
            labels = self._pool.labels
            oracle = labels.item
        if budget is None and target_ci_width is None:
            raise InputError("give a 'budget', a 'target_ci_width' or both")
        cap = math.inf
        if budget is not None:
            cap = check_int("budget", budget, minimum=1)
            if cap > self._pool.size:
                raise InputError(
                    f"'budget' must not exceed the pool size {self._pool.size}; received {budget}"
                )
        width = None
        if target_ci_width is not None:
            width = check_in_range("target_ci_width", target_ci_width, low=0.0, low_open=True)
        floor = check_int("min_labels", min_labels, minimum=1)
        max_it = (
            math.inf
            if max_iterations is None
            else check_int("max_iterations", max_iterations, minimum=1)
        )
        check_in_range("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
        self.stop_reason = None
        while True:
            if self.labels_used >= cap:
                self.stop_reason = "budget"
                break
            if self._iterations >= max_it:
                self.stop_reason = "max_iterations"
                break
            if self._pending is None:
                self._pending = self._next_draw()
            draw = self._pending
            if draw is None:
                break
            label = check_label(oracle(draw[0]), source="the oracle")
            self._pending = None
            self._add_label(draw[0], draw[2], label)
            self._consume(draw, label)
            if progress is not None:
                progress(self.labels_used)
            if width is not None and self.labels_used >= floor:
                est = self._measure(self._alpha, confidence)
                if math.isfinite(est.std) and est.width <= width:
                    self.stop_reason = "ci_width"
                    break
        return self.estimate(confidence=confidence)

    def estimate(self, *, confidence: float = 0.95) -> Estimates:
        """Current estimates of F-alpha, precision and recall.

        Each is an :class:`ereval.Estimate` with the interval of
        :mod:`ereval.oasis._intervals`, ``n`` the distinct labels, ``method`` the
        sampler's name and ``warnings`` when it is undefined, rests on fewer than
        :data:`MIN_LABELS` labels, or its interval is as wide as [0, 1].
        """
        level = check_in_range(
            "confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True
        )
        f, p, r = self._measures((self._alpha, 1.0, 0.0), level)
        return Estimates(
            f_measure=self._result(f, self._alpha),
            precision=self._result(p, 1.0),
            recall=self._result(r, 0.0),
            alpha=self._alpha,
            confidence=float(level),
            labels_used=self.labels_used,
            iterations=self._iterations,
            method=self.method,
        )

    def save(self, path: str | Path) -> None:
        """Save the whole sampler state to ``path`` (NumPy ``.npz`` format, no pickle).

        The file is written at exactly ``path``, whatever its suffix.
        :func:`~ereval.oasis.load_sampler` with the same pool continues exactly
        where this left off: same proposals, same estimates.
        """
        meta, arrays = self._state()
        payload: dict[str, Any] = {"__meta__": np.array(json.dumps(meta)), **arrays}
        with open(Path(path), "wb") as fh:
            np.savez_compressed(fh, **payload)

    # ------------------------------------------------------------ internals
    @abstractmethod
    def _draw(self) -> tuple[int, float, int]:
        """Draw (index, weight W_t, stratum) from the current instrumental distribution."""

    def _observe(self, stratum: int, label: int) -> None:  # noqa: B027
        """Update the sampler's model after a draw (default: nothing)."""

    @abstractmethod
    def _options(self) -> dict[str, Any]:
        """Constructor options needed to rebuild the sampler."""

    def _query(self, draw: tuple[int, float, int]) -> Query:
        i = draw[0]
        return Query(
            index=i,
            pair_id=self._pool.pair_ids[i].item()
            if hasattr(self._pool.pair_ids[i], "item")
            else self._pool.pair_ids[i],
            score=float(self._pool.scores[i]),
            prediction=int(self._pred[i]),
            stratum=draw[2],
        )

    def _add_label(self, index: int, stratum: int, label: int) -> None:
        self._labels[index] = label
        self._label_order.append(index)
        pred = int(self._pred[index])
        self._n_k[stratum] += 1
        self._tp_k[stratum] += label & pred
        self._pp_k[stratum] += pred
        self._pos_k[stratum] += label
        self._unlabelled[stratum] -= 1
        if self._unlabelled[stratum] == 0 and self._census_completed:
            # The stratum leaves the instrumental distribution from the next draw on;
            # the draw that labelled its last pair was made while it was still in.
            self._to_exhaust.append(stratum)

    def _flush_exhausted(self) -> None:
        for k in self._to_exhaust:
            self._census[0] += float(self._tp_k[k])
            self._census[1] += float(self._pp_k[k])
            self._census[2] += float(self._pos_k[k])
            self._exhausted_at[k] = self._iterations
            self._on_exhausted(k)
        self._to_exhaust.clear()
        # the draws from completed strata leave the sums (their counts are exact)
        open_k = np.flatnonzero(self._exhausted_at < 0).tolist()
        ss = self._ssum
        self._sums = [math.fsum(ss[3 * j + c] for j in open_k) for c in range(3)]

    def _on_exhausted(self, stratum: int) -> None:  # noqa: B027
        """Hook: stratum ``stratum`` has just become fully labelled."""

    def _consume(self, draw: tuple[int, float, int], label: int) -> None:
        index, w, k = draw
        pred = int(self._pred[index])
        x0 = w * (label & pred)
        x1 = w * pred
        x2 = w * label
        s = self._sums
        s[0] += x0
        s[1] += x1
        s[2] += x2
        ss = self._ssum
        ss[3 * k] += x0
        ss[3 * k + 1] += x1
        ss[3 * k + 2] += x2
        self._iterations += 1
        self._hist_index.append(index)
        self._hist_weight.append(w)
        self._observe(k, label)
        if self._to_exhaust:
            self._flush_exhausted()

    def _totals(self) -> list[float]:
        """``T`` times the estimated counts (TP, PP, P): ``T C + sum_t x_t``."""
        t = float(self._iterations)
        c, s = self._census, self._sums
        return [t * c[0] + s[0], t * c[1] + s[1], t * c[2] + s[2]]

    def _current_f(self) -> float:
        s = self._totals()
        den = self._alpha * s[1] + (1.0 - self._alpha) * s[2]
        return s[0] / den if den > 0.0 else math.nan

    def _result(self, est: Estimate, alpha: float) -> Estimate:
        """``est`` with ``n``, ``method`` and the warnings of :func:`labelled_warnings`."""
        name = _measure_name(alpha)
        used = self.labels_used
        advice = f"{used} labels are too few to pin it down; label more pairs (a larger budget)"
        if alpha != self._alpha:
            advice += (
                f", or sample for it (alpha = {alpha:g}): the sampler is tuned for "
                f"F-alpha with alpha = {self._alpha:g}"
            )
        notes = labelled_warnings(est, name, used, advice, exact=self.exhausted)
        return dataclasses.replace(est, n=used, method=self.method, warnings=notes)

    def _measure(self, alpha: float, confidence: float) -> Estimate:
        """The estimate of F-alpha for one ``alpha`` (see :meth:`estimate`)."""
        return self._result(self._measures((alpha,), confidence)[0], alpha)

    def _measures(self, alphas: tuple[float, ...], level: float) -> list[Estimate]:
        if self._totals_cache is None:
            self._totals_cache = cell_totals(
                self._model_strata(), self._pred.astype(bool), self._pool.probabilities
            )
        return measure_estimates(
            self, self._pred.astype(bool), alphas, level=level, totals=self._totals_cache
        )

    def _model_strata(self) -> Strata:
        """Strata of the model of the unlabelled pairs (:mod:`ereval.oasis._intervals`)."""
        if self._own_strata_model:
            return self._strata
        if self._model_cache is None:
            self._model_cache = stratify(self._pool.scores)
        return self._model_cache

    def _expected_draws(
        self, model: Strata, accept: npt.NDArray[np.bool_], totals: CellTotals
    ) -> npt.NDArray[np.float64]:
        """Draws expected so far of each kind of pair (true positive, false positive, false
        negative) in each stratum of ``model`` at the rate pairs of that kind are drawn,
        shape (K, 3); for a sampler without replacement, expected labels.

        Uniform sampling by default: ``T N_c / N`` in each cell ``c`` of a stratum
        (below and above the rule ``accept``).
        """
        total = self._iterations if self._estimator == "weighted" else self.labels_used
        cells = np.stack([totals.rejected, totals.accepted], axis=1)
        return uniform_draws(cells, np.full_like(cells, float(total) / float(self._pool.size)))

    def _draw_without_replacement(self, k: int, u: float) -> int:
        """Uniform unlabelled pair of stratum ``k`` (partial Fisher-Yates shuffle)."""
        if self._perm is None:
            self._perm = self._strata.order.copy()
        start = int(self._strata.offsets[k])
        m = int(self._drawn_wo[k])
        j = start + m + int(u * (int(self._strata.sizes[k]) - m))
        perm = self._perm
        perm[start + m], perm[j] = perm[j], perm[start + m]
        self._drawn_wo[k] = m + 1
        return int(perm[start + m])

    # ------------------------------------------------------------ state
    def _state(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        bit_gen = self._rng.bit_generator
        meta: dict[str, Any] = {
            "version": _STATE_VERSION,
            "method": self.method,
            "options": self._options(),
            "pool_fingerprint": self._pool.fingerprint(),
            "pool_size": self._pool.size,
            "strata_method": self._strata.method,
            "bit_generator": type(bit_gen).__name__,
            "rng_state": _jsonable(bit_gen.state),
            "sums": self._sums,
            "stratum_sums": self._ssum,
            "census": self._census,
            "iterations": self._iterations,
            "pending": list(self._pending) if self._pending is not None else None,
            "stop_reason": self.stop_reason,
            "extra": self._extra_meta(),
        }
        arrays: dict[str, npt.NDArray[Any]] = {
            "allocations": self._strata.allocations,
            "boundaries": self._strata.boundaries,
            "label_order": np.asarray(self._label_order, dtype=np.int64),
            "label_values": self._labels[np.asarray(self._label_order, dtype=np.int64)],
            "hist_index": np.asarray(self._hist_index, dtype=np.int64),
            "hist_weight": np.asarray(self._hist_weight, dtype=np.float64),
            "drawn_wo": self._drawn_wo,
            "exhausted_at": self._exhausted_at,
        }
        if self._perm is not None:
            arrays["perm"] = self._perm
        arrays.update(self._extra_arrays())
        return meta, arrays

    def _extra_meta(self) -> dict[str, Any]:
        return {}

    def _extra_arrays(self) -> dict[str, npt.NDArray[Any]]:
        return {}

    def _restore(self, meta: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
        """Load the dynamic state saved by :meth:`_state` into a freshly built sampler."""
        bit_gen = self._rng.bit_generator
        if type(bit_gen).__name__ != meta["bit_generator"]:
            bit_cls = getattr(np.random, meta["bit_generator"])
            self._rng = np.random.Generator(bit_cls())
            bit_gen = self._rng.bit_generator
        bit_gen.state = _from_jsonable(meta["rng_state"])
        order = arrays["label_order"]
        values = arrays["label_values"]
        for i, v in zip(order.tolist(), values.tolist(), strict=True):
            self._add_label(i, int(self._strata.allocations[i]), int(v))
        self._flush_exhausted()
        self._exhausted_at = arrays["exhausted_at"].astype(np.int64)
        self._sums = [float(v) for v in meta["sums"]]
        self._ssum = [float(v) for v in meta["stratum_sums"]]
        self._census = [float(v) for v in meta["census"]]
        self._iterations = int(meta["iterations"])
        self._hist_index = arrays["hist_index"].tolist()
        self._hist_weight = arrays["hist_weight"].tolist()
        pending = meta["pending"]
        self._pending = (int(pending[0]), float(pending[1]), int(pending[2])) if pending else None
        self._drawn_wo = arrays["drawn_wo"].astype(np.int64)
        self._perm = arrays["perm"].astype(np.int64) if "perm" in arrays else None
        self.stop_reason = meta["stop_reason"]
        self._restore_extra(meta["extra"], arrays)

    def _restore_extra(  # noqa: B027
        self, extra: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]
    ) -> None:
        """Hook: restore the subclass's own state."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _from_jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        if "__ndarray__" in value:
            return np.asarray(value["__ndarray__"], dtype=value["dtype"])
        return {k: _from_jsonable(v) for k, v in value.items()}
    return value


def labelled_warnings(
    est: Estimate, name: str, used: int, advice: str, *, exact: bool
) -> tuple[str, ...]:
    """The warnings of an estimate from ``used`` labelled pairs.

    It is undefined; it rests on fewer than :data:`MIN_LABELS` labels (its interval
    then comes mostly from the pool's match probabilities; the only warning then);
    its interval is wider than [0, 1] before clamping, or has width 0 although it is
    not known exactly.
    """
    notes: list[str] = []
    if math.isnan(est.value):
        notes.append(
            f"{name} is undefined: none of the {used} labelled pairs counts in its "
            "denominator yet; label more pairs"
        )
        return tuple(notes)
    if used < MIN_LABELS and not exact:
        # the one warning of a handful of labels (a wide interval is then no news)
        return (
            f"{name} rests on only {used} labelled pairs: its interval comes mostly from the "
            f"pool's match probabilities, not from labels (about {MIN_LABELS} labels or more "
            "are needed); label more pairs",
        )
    if est.width == 0.0 and not exact:
        notes.append(
            f"{name} = {est.value:g} with an interval of width 0: no labelled pair says "
            "otherwise, but unlabelled pairs could, so the interval understates the "
            "uncertainty; label more pairs"
        )
    problems = range_problems(est.value, est.std, level=est.level, bounds=UNIT_RANGE)
    found = problem_warning(name, problems, advice)
    if found is not None:
        notes.append(found)
    return tuple(notes)


def _measure_name(alpha: float) -> str:
    """``"recall"``, ``"precision"`` or ``"F-alpha (alpha = 0.5)"``, for messages."""
    return {0.0: "recall", 1.0: "precision"}.get(alpha, f"F-alpha (alpha = {alpha:g})")
