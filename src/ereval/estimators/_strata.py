"""Strata from a prediction's cluster sizes, and how many records to draw in each.

The ``"size-stratified"`` design (Binette et al. 2024, §4.2: "stratifying based
on the predicted cluster size corresponding to each record before sampling")
puts each record in a stratum by the size of its *predicted* cluster, draws
``n_h`` records uniformly within stratum ``h`` (of ``N_h`` records), and labels
the true cluster of each drawn record. Every estimator's totals are estimated
stratum by stratum (:mod:`ereval.estimators._stratified`).

Strata
    Size classes given by their lower bounds. The default is the powers of two,
    ``1, 2, 3-4, 5-8, 9-16, ...`` (lower bounds ``1, 2, 3, 5, 9, 17, ...``), up to
    the largest predicted cluster: within a class the records' numbers of
    predicted links differ by at most a factor of two, and the classes stay few
    (``log2`` of the largest size). Empty classes are dropped; the last class
    is open (``"65+"``).
Allocation
    ``"proportional"``: ``n_h`` proportional to ``N_h``. ``"neyman"``: ``n_h``
    proportional to ``N_h S_h`` (Neyman 1934; Cochran 1977, §5.5), which
    minimises the sum of the variances whose per-stratum standard deviations are
    ``S_h``. ``S_h`` comes from a labelled pilot sample (:func:`pilot_sd`) or,
    from the prediction alone, from the proxy :func:`proxy_sd`. Every stratum
    gets at least :data:`MIN_PER_STRATUM` draws (its variance needs two) and,
    without replacement, at most its ``N_h`` records; the rest is shared by
    largest remainders.

References: J. Neyman (1934), On the two different aspects of the
representative method, JRSS 97; W. G. Cochran (1977), Sampling Techniques,
ch. 5.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._errors import InputError, InputTypeError
from .._validation import check_choice, check_int, describe

__all__ = [
    "ALLOCATIONS",
    "MIN_PER_STRATUM",
    "NEYMAN_FLOOR",
    "Allocation",
    "SizeStrata",
    "allocate",
    "default_bounds",
    "proxy_sd",
    "size_strata",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

Allocation = Literal["proportional", "neyman"]
ALLOCATIONS: tuple[Allocation, ...] = ("proportional", "neyman")
#: Every stratum gets at least this many draws (fewer without replacement if it is smaller).
MIN_PER_STRATUM = 2
#: Neyman allocation keeps at least this share of each stratum's proportional draws.
NEYMAN_FLOOR = 0.9


@dataclass(frozen=True, eq=False)
class SizeStrata:
    """The size strata of a prediction's records.

    Attributes
    ----------
    codes : ndarray of int64
        Stratum of each record (in the order given to :func:`size_strata`).
    labels : ndarray of str
        Each stratum's name: ``"1"``, ``"3-4"``, ``"65+"``.
    sizes : ndarray of int64
        ``N_h``, the number of records of each stratum.
    record_sizes : ndarray of int64
        The predicted cluster size of each record.
    """

    codes: IntArray
    labels: npt.NDArray[Any]
    sizes: IntArray
    record_sizes: IntArray

    @property
    def n_strata(self) -> int:
        """Number of (non-empty) strata."""
        return int(self.sizes.shape[0])


def default_bounds(largest: int) -> list[int]:
    """Lower bounds ``1, 2, 3, 5, 9, ..., 2^k + 1`` up to ``largest``.

    >>> default_bounds(20)
    [1, 2, 3, 5, 9, 17]
    """
    out = [1, 2]
    k = 1
    while 2**k + 1 <= largest:
        out.append(2**k + 1)
        k += 1
    return [b for b in out if b <= max(largest, 1)]


def check_bounds(bounds: Any) -> list[int]:
    """User-given lower bounds: increasing integers >= 1, the first of them 1."""
    if isinstance(bounds, str):
        parts = [p.strip() for p in bounds.split(",") if p.strip()]
        try:
            values = [int(p) for p in parts]
        except ValueError:
            raise InputError(
                f"'strata' must be increasing cluster sizes separated by commas (e.g. "
                f"'1,2,3,5,9'); received {bounds!r}"
            ) from None
    elif isinstance(bounds, Sequence | np.ndarray):
        values = [check_int("strata", v, minimum=1) for v in list(bounds)]
    else:
        raise InputTypeError(
            f"'strata' must be a list of lower cluster sizes; received {describe(bounds)}"
        )
    if not values or values[0] != 1 or any(b <= a for a, b in itertools.pairwise(values)):
        raise InputError(
            "'strata' must be strictly increasing lower cluster sizes starting at 1 (e.g. "
            f"1,2,3,5,9); received {values}"
        )
    return values


def _label(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"{lo}+"
    return str(lo) if hi == lo else f"{lo}-{hi}"


def size_strata(record_sizes: npt.ArrayLike, *, bounds: Any = None) -> SizeStrata:
    """Put each record in the stratum of its predicted cluster's size.

    Parameters
    ----------
    record_sizes : array_like of int
        The size of each record's predicted cluster.
    bounds : list of int or str, optional
        Lower cluster sizes of the strata, starting at 1 (``[1, 2, 3, 5, 9]``, or
        ``"1,2,3,5,9"``); the last stratum is open. Default :func:`default_bounds`.

    Returns
    -------
    SizeStrata
        Empty strata are dropped.

    Examples
    --------
    >>> s = size_strata([1, 1, 2, 2, 3, 3, 3, 5, 5, 5, 5, 5])
    >>> s.labels.tolist(), s.sizes.tolist(), s.codes.tolist()
    (['1', '2', '3-4', '5'], [2, 2, 3, 5], [0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3])
    """
    sizes = np.asarray(record_sizes, dtype=np.int64)
    largest = int(sizes.max()) if sizes.size else 1
    lower = default_bounds(largest) if bounds is None else check_bounds(bounds)
    edges = np.asarray(lower, dtype=np.int64)
    raw = np.searchsorted(edges, sizes, side="right") - 1
    present = np.unique(raw)
    codes = np.searchsorted(present, raw).astype(np.int64)
    labels = []
    for i in present.tolist():
        lo = lower[i]
        hi = lower[i + 1] - 1 if i + 1 < len(lower) else None
        if hi is None and lo == largest:
            hi = lo
        if hi is not None and hi > largest and bounds is None:
            hi = largest if largest > lo else lo
        labels.append(_label(lo, hi))
    counts = np.bincount(codes, minlength=present.shape[0]).astype(np.int64)
    return SizeStrata(codes, np.asarray(labels, dtype=object), counts, sizes)


def proxy_sd(strata: SizeStrata) -> FloatArray:
    """The prediction-only proxy of each stratum's standard deviation: its mean cluster size.

    ``S_h`` is taken proportional to the mean predicted cluster size ``bbar_h`` of
    the stratum's records: a record in a predicted cluster of size ``b`` carries
    ``b - 1`` predicted links, any of which may be wrong, and may miss links the
    prediction did not make, so the spread of its pair counts grows about
    linearly with ``b`` and is not zero for singletons.

    >>> proxy_sd(size_strata([1, 1, 2, 2, 3, 3, 3])).tolist()
    [1.0, 2.0, 3.0]
    """
    totals = np.bincount(strata.codes, weights=strata.record_sizes, minlength=strata.n_strata)
    out: FloatArray = totals / strata.sizes
    return out


def allocate(
    n: int,
    sizes: npt.ArrayLike,
    *,
    sd: npt.ArrayLike | None = None,
    replace: bool = True,
    floor: float = 0.0,
) -> IntArray:
    """Draws per stratum: ``n_h`` proportional to ``N_h S_h`` (``S_h = 1`` if ``sd`` is None).

    Each stratum gets at least ``min(2, N_h)`` draws without replacement (2 with
    replacement), at least ``floor`` times its proportional share
    ``n N_h / N`` (rounded down) and, without replacement, at most ``N_h``;
    between these bounds ``n_h`` is proportional to ``N_h S_h`` (Neyman's
    allocation under bounds: strata at a bound keep it, the others share the
    rest), and the last draws go by largest remainders. With ``floor = f``
    every stratum has at least ``f`` times its proportional draws, so no
    estimator's stratified variance exceeds ``1/f`` times its variance under
    proportional allocation (``V = sum_h N_h^2 S_h^2 / n_h``).

    Examples
    --------
    >>> allocate(20, [50, 30, 20]).tolist()
    [10, 6, 4]
    >>> allocate(20, [50, 30, 20], sd=[1.0, 1.0, 8.0]).tolist()
    [4, 3, 13]
    """
    n = check_int("n", n, minimum=1)
    big = np.asarray(sizes, dtype=np.int64)
    k = big.shape[0]
    s = np.ones(k) if sd is None else np.asarray(sd, dtype=np.float64)
    if s.shape != (k,) or not np.isfinite(s).all() or (s < 0).any():
        raise InputError(
            f"the strata's standard deviations must be {k} finite values >= 0; received {s}"
        )
    if not 0.0 <= floor <= 1.0:
        raise InputError(f"'floor' must lie in [0, 1]; received {floor!r}")
    share = np.floor(floor * n * big / max(int(big.sum()), 1) + 1e-9).astype(np.int64)
    floor_h = np.maximum(np.full(k, MIN_PER_STRATUM, dtype=np.int64), share)
    cap = big.copy() if not replace else np.full(k, np.iinfo(np.int64).max // 4)
    floor_h = np.minimum(floor_h, cap)
    if not replace and n > int(big.sum()):
        raise InputError(
            f"cannot draw {n} records without replacement from a population of {int(big.sum())}"
        )
    if n < int(floor_h.sum()):
        raise InputError(
            f"'n' ({n}) is too small for {k} strata: each stratum needs {MIN_PER_STRATUM} draws "
            f"(at least {int(floor_h.sum())} in all); use fewer strata or more draws"
        )
    weight = big * s
    x = np.zeros(k)
    fixed = np.zeros(k, dtype=bool)
    while True:
        free = ~fixed
        w = np.where(free, weight, 0.0)
        if w.sum() <= 0:
            w = np.where(free, big.astype(np.float64), 0.0)
        x[free] = (w / w.sum() * (n - x[fixed].sum()))[free]
        low = free & (x < floor_h)
        high = free & (x > cap)
        if not (low.any() or high.any()):
            break
        x[low] = floor_h[low]
        x[high] = cap[high]
        fixed |= low | high
        if fixed.all():
            break
    out = np.minimum(np.floor(x + 1e-9).astype(np.int64), cap)
    out = np.maximum(out, floor_h)
    order = np.argsort(-(x - out), kind="stable")
    while int(out.sum()) < n:
        for i in order:
            if out[i] < cap[i] and int(out.sum()) < n:
                out[i] += 1
    return out


def stratum_sd(
    values: npt.ArrayLike, weights: npt.ArrayLike, codes: npt.ArrayLike, n_strata: int
) -> FloatArray:
    """Weighted standard deviation of ``values`` within each stratum (NaN where empty)."""
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    c = np.asarray(codes, dtype=np.int64)
    tot = np.bincount(c, weights=w, minlength=n_strata)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(c, weights=w * v, minlength=n_strata) / tot
        dev = v - mean[c]
        var = np.bincount(c, weights=w * dev * dev, minlength=n_strata) / tot
    out: FloatArray = np.where(tot > 0, np.sqrt(np.maximum(var, 0.0)), math.nan)
    return out


def check_allocation(allocation: Any) -> Allocation:
    """``allocation`` if it names an allocation, else an error naming the choices."""
    chosen: Allocation = check_choice("allocation", allocation, ALLOCATIONS)
    return chosen
