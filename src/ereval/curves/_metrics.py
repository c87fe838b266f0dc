"""The metrics of a threshold curve, one value per reported threshold.

The incremental metrics come from the running sums of
:mod:`ereval._algorithms._components`, with the conventions of
:mod:`ereval.metrics` (the same formulas, vectorised over thresholds); the
others are computed from scratch with :func:`ereval.evaluate` on the
contingency table of the connected components at each threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from .._algorithms import CrossSteps, MergeSteps
from ..contingency import ContingencyTable, source_pairs
from ..metrics._registry import evaluate

__all__ = [
    "INCREMENTAL_METRICS",
    "fbeta",
    "from_scratch",
    "incremental",
    "ratio",
    "running_sums",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _prf(prefix: str) -> tuple[str, str, str]:
    return (f"{prefix}_precision", f"{prefix}_recall", f"{prefix}_f1")


#: Metrics of the connected-components clustering updated merge by merge (the
#: others are computed from scratch at each reported threshold).
INCREMENTAL_METRICS: tuple[str, ...] = (
    *_prf("pairwise"),
    *_prf("cluster"),
    *_prf("muc"),
    *_prf("b3"),
    *_prf("b3_entity"),
    "variation_of_information",
    "homogeneity",
    "completeness",
    "v_measure",
    "rand_index",
    "adjusted_rand_index",
    "fowlkes_mallows",
)


def ratio(num: Any, den: Any) -> FloatArray:
    """``num / den`` elementwise, NaN where ``den == 0``."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


#: Merges summed at a time by :func:`running_sums`.
CHUNK = 1 << 20


@overload
def running_sums(
    at: IntArray,
    deltas: npt.NDArray[np.floating[Any]],
    start: float,
    *,
    minus: None = None,
    sign: int = 1,
) -> FloatArray: ...


@overload
def running_sums(
    at: IntArray,
    deltas: npt.NDArray[np.integer[Any]],
    start: int,
    *,
    minus: npt.NDArray[np.integer[Any]] | None = None,
    sign: int = 1,
) -> IntArray: ...


def running_sums(
    at: IntArray,
    deltas: npt.NDArray[Any],
    start: float,
    *,
    minus: npt.NDArray[Any] | None = None,
    sign: int = 1,
) -> npt.NDArray[Any]:
    """``start`` plus the sum of the first ``at[r]`` changes, for each ``r``.

    The changes are ``sign * deltas`` (less ``minus``, for integers), summed
    :data:`CHUNK` at a time so that no array as long as ``deltas`` is made: exact
    ``int64`` sums for integer ``deltas``; for floats the same additions in the
    same order as ``start + np.cumsum(deltas)`` (the running sum is carried into
    each chunk as its first term), so the values are those, bit for bit.

    Examples
    --------
    >>> running_sums(np.array([3, 0, 1]), np.array([1, 2, 4]), 10).tolist()
    [17, 10, 11]
    """
    integer = deltas.dtype.kind in "iu"
    out = np.empty(at.shape[0], dtype=np.int64 if integer else np.float64)
    out[at == 0] = start
    order = np.argsort(at, kind="stable")
    wanted = at[order]
    first = int(np.searchsorted(wanted, 0, side="right"))
    carry: Any = 0 if integer else 0.0
    m = int(deltas.shape[0])
    for lo in range(0, m, CHUNK):
        if first == wanted.shape[0]:
            break
        hi = min(lo + CHUNK, m)
        if integer:
            d = deltas[lo:hi].astype(np.int64)
            if sign != 1:
                d *= sign
            if minus is not None:
                d -= minus[lo:hi]
            sums = carry + np.cumsum(d, dtype=np.int64)
        else:
            d = deltas[lo:hi] if sign == 1 else sign * deltas[lo:hi]
            sums = np.cumsum(np.r_[carry, d])[1:]
        last = int(np.searchsorted(wanted, hi, side="right"))
        out[order[first:last]] = start + sums[wanted[first:last] - lo - 1]
        first = last
        carry = sums[-1]
    return out


def fbeta(p: FloatArray, r: FloatArray, beta: float) -> FloatArray:
    """F-beta elementwise: NaN if either is NaN, 0 when both are 0."""
    b2 = beta * beta
    den = b2 * p + r
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (1 + b2) * p * r / den
    out[den == 0] = 0.0  # P = R = 0 (a NaN input leaves den NaN, so F stays NaN)
    return np.asarray(out, dtype=np.float64)


def _coref(
    num_r: FloatArray, den_r: Any, num_p: FloatArray, den_p: Any, beta: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Recall, precision and F with the CoNLL scorer's conventions (empty denominator: 0)."""
    den_r = np.broadcast_to(np.asarray(den_r, dtype=np.float64), num_r.shape)
    den_p = np.broadcast_to(np.asarray(den_p, dtype=np.float64), num_p.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num_r / den_r
        p = num_p / den_p
        r[den_r <= 0] = 0.0
        p[den_p <= 0] = 0.0
        b2 = beta * beta
        den = b2 * p + r
        f = (1 + b2) * p * r / den
    f[(den <= 0) | (den_r <= 0) | (den_p <= 0)] = 0.0
    return r, p, f


def incremental(
    steps: MergeSteps,
    n_merges: IntArray,
    a_sizes: IntArray,
    n: int,
    names: list[str],
    beta: float,
    cross: tuple[CrossSteps, int, int] | None = None,
) -> dict[str, Any]:
    """The incremental metrics after ``n_merges`` merges, one value per row.

    ``cross``, for a link-only evaluation, holds what the merges add within data sets
    and the true pairs and all pairs across data sets: the pair-based metrics
    (pairwise, Rand) then count the pairs across data sets only."""
    init = steps.initial

    def cum_int(name: str, deltas: Any, minus: Any = None, sign: int = 1) -> IntArray:
        return running_sums(n_merges, deltas, int(init[name]), minus=minus, sign=sign)

    def cum_float(name: str, deltas: FloatArray) -> FloatArray:
        return running_sums(n_merges, deltas, init[name])

    k_true = int(a_sizes.shape[0])
    n_true_pairs = int((a_sizes * (a_sizes - 1) // 2).sum())
    total = n * (n - 1) // 2
    r_pred = n - n_merges
    if cross is None:
        both = cum_int("pairs_both", steps.pairs_both)
        pred = cum_int("pairs_pred", steps.pairs_pred)
    else:
        within, n_true_pairs, total = cross
        both = cum_int("pairs_both", steps.pairs_both, minus=within.within_both)
        pred = cum_int("pairs_pred", steps.pairs_pred, minus=within.within_pred)
    out: dict[str, Any] = {}
    families: dict[str, Callable[[], dict[str, Any]]] = {}

    def prf(prefix: str, p: FloatArray, r: FloatArray) -> dict[str, Any]:
        got = {f"{prefix}_precision": p, f"{prefix}_recall": r, f"{prefix}_f1": fbeta(p, r, 1.0)}
        if beta != 1.0:
            got[f"{prefix}_fbeta"] = fbeta(p, r, beta)
        return got

    def coref(prefix: str, nr: FloatArray, dr: Any, np_: FloatArray, dp: Any) -> dict[str, Any]:
        r, p, f = _coref(nr, dr, np_, dp, 1.0)
        got = {f"{prefix}_precision": p, f"{prefix}_recall": r, f"{prefix}_f1": f}
        if beta != 1.0:
            got[f"{prefix}_fbeta"] = _coref(nr, dr, np_, dp, beta)[2]
        return got

    families["pairwise"] = lambda: prf("pairwise", ratio(both, pred), ratio(both, n_true_pairs))

    def cluster() -> dict[str, Any]:
        exact = cum_int("exact", steps.exact)
        return prf("cluster", ratio(exact, r_pred), ratio(exact, k_true))

    def muc() -> dict[str, Any]:
        cells = cum_int("cells", steps.cells_lost, sign=-1)
        correct = (n - cells).astype(np.float64)
        return coref("muc", correct, n - k_true, correct, n - r_pred)

    def b3() -> dict[str, Any]:
        nr = cum_float("b3_recall", steps.b3_recall)
        np_ = cum_float("b3_precision", steps.b3_precision)
        return coref("b3", nr, n, np_, n)

    def b3_entity() -> dict[str, Any]:
        r = cum_float("b3e_recall", steps.b3e_recall) / k_true
        p = cum_float("b3e_precision", steps.b3e_precision) / k_true
        return prf("b3_entity", p, r)

    def info() -> dict[str, Any]:
        x = cum_float("nlogn_cells", steps.nlogn_cells)
        y = cum_float("nlogn_pred", steps.nlogn_pred)
        a = a_sizes.astype(np.float64)
        h_t = max(float(-(a / n * np.log(a / n)).sum()), 0.0) + 0.0
        z = float((a * np.log(a)).sum())
        h_p = np.where(r_pred == 1, 0.0, np.maximum(math.log(n) - y / n, 0.0))
        h_tp = np.maximum(-(x - y) / n, 0.0) + 0.0
        h_pt = np.maximum(-(x - z) / n, 0.0) + 0.0
        hom = np.ones_like(h_tp) if h_t == 0 else 1.0 - h_tp / h_t
        com = np.where(h_p == 0, 1.0, 1.0 - h_pt / np.where(h_p == 0, 1.0, h_p))

        def v(bb: float) -> FloatArray:
            den = bb * hom + com
            return np.where(den == 0, 0.0, (1 + bb) * hom * com / np.where(den == 0, 1.0, den))

        got = {
            "variation_of_information": h_tp + h_pt,
            "homogeneity": hom,
            "completeness": com,
            "v_measure": v(1.0),
        }
        if beta != 1.0:
            got["v_measure_beta"] = v(beta)
        return got

    def rand() -> dict[str, Any]:
        fp = pred - both
        fn = n_true_pairs - both
        tn = total - both - fp - fn
        num: npt.NDArray[Any]
        den: npt.NDArray[Any]
        fmi_den: npt.NDArray[Any]
        if total < 2**30:  # every product below fits int64: exact until the division
            num = 2 * (both * tn - fn * fp)
            den = (both + fn) * (fn + tn) + (both + fp) * (fp + tn)
            fmi_den = (both + fp) * (both + fn)
        else:  # the same formulas in float64 from the exact counts
            bf, fpf, fnf, tnf = (v.astype(np.float64) for v in (both, fp, fn, tn))
            num = 2 * (bf * tnf - fnf * fpf)
            den = (bf + fnf) * (fnf + tnf) + (bf + fpf) * (fpf + tnf)
            fmi_den = (bf + fpf) * (bf + fnf)
        fmi_den_f = np.asarray(fmi_den, dtype=np.float64)
        fmi = np.full(both.shape, np.nan)
        np.divide(both, np.sqrt(fmi_den_f), out=fmi, where=fmi_den_f != 0)
        return {
            "rand_index": ratio(both + tn, total),
            "adjusted_rand_index": ratio(num, den),
            "fowlkes_mallows": fmi,
        }

    families.update(cluster=cluster, muc=muc, b3=b3, b3_entity=b3_entity, info=info, rand=rand)
    family_of = {
        **{x: "pairwise" for x in _prf("pairwise")},
        **{x: "cluster" for x in _prf("cluster")},
        **{x: "muc" for x in _prf("muc")},
        **{x: "b3" for x in _prf("b3")},
        **{x: "b3_entity" for x in _prf("b3_entity")},
        **{
            x: "info"
            for x in ("variation_of_information", "homogeneity", "completeness", "v_measure")
        },
        **{x: "rand" for x in ("rand_index", "adjusted_rand_index", "fowlkes_mallows")},
    }
    computed: dict[str, Any] = {}
    for name in names:
        fam = family_of[name]
        if fam not in computed:
            computed[fam] = families[fam]()
        out[name] = computed[fam][name]
    if beta != 1.0:
        for name in names:
            extra = "v_measure_beta" if name == "v_measure" else name.replace("_f1", "_fbeta")
            if extra != name and extra in computed[family_of[name]]:
                out[extra] = computed[family_of[name]][extra]
    return out


def from_scratch(
    true_of: IntArray,
    source_of: IntArray | None,
    steps: MergeSteps,
    n_merges: IntArray,
    names: tuple[str, ...],
    beta: float,
    progress: Callable[[str], None] | None,
) -> dict[str, Any]:
    """Metrics without an incremental form, from the contingency table at each row.

    The components after ``n_merges[k]`` merges are those of the first merging pairs
    of ``steps``: at most ``N - 1`` edges, whatever the number of pairs.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = int(true_of.shape[0])
    n_true = int(true_of.max()) + 1
    rows: list[dict[str, float]] = []
    for step, at in enumerate(n_merges.tolist()):
        if progress is not None and step % 10 == 0:
            progress(f"from scratch at threshold {step + 1} of {n_merges.shape[0]}")
        graph = csr_matrix(
            (np.ones(at, dtype=np.int8), (steps.left[:at], steps.right[:at])), shape=(n, n)
        )
        _, labels = connected_components(graph, directed=False)
        table = ContingencyTable.from_codes(
            true_of,
            labels.astype(np.int64),
            n_true_codes=n_true,
            n_pred_codes=int(labels.max()) + 1,
        )
        if source_of is not None:  # link-only: the pairs within data sets, left out
            n_src = int(source_of.max()) + 1
            within = source_pairs(true_of, labels.astype(np.int64), source_of, n_src)
            table = replace(table, within_source=within, _cache={})
        rows.append(evaluate(table, metrics=list(names), beta=beta))
    if not rows:  # no row: the keys of the metrics (with their F-beta), of any table
        one = np.zeros(1, dtype=np.int64)
        table = ContingencyTable.from_codes(one, one, n_true_codes=1, n_pred_codes=1)
        keys = list(evaluate(table, metrics=list(names), beta=beta))
    else:
        keys = list(rows[0])
    return {key: np.asarray([r[key] for r in rows], dtype=np.float64) for key in keys}
