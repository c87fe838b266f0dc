"""The registry of every metric, and :func:`evaluate` to compute many at once.

Metrics come in families that share their work (precision, recall and F of one
kind are computed together). :data:`CANONICAL_METRICS` lists the names every
evaluation reports by default; :data:`EXTRA_METRICS` are available on request
(and the twinless variants are added by default when twinless records are
scored).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Unpack

from .._errors import InputError, InputTypeError
from .._optional import instance_of
from .._validation import as_name_list
from ..contingency import ContingencyTable
from ..io import AlignOptions, PairList
from ..statistics import CellsWanted, LazyStatistics, Statistics, TableStatistics, statistics_of
from ._bcubed import b3_entity_scores, b3_scores, b3_twinless_scores
from ._blanc import blanc_scores
from ._cluster import closest_cluster_scores, cluster_scores
from ._info import info_scores
from ._lea import lea_scores
from ._merge import bmd, bmd_normalized, gmd_pairwise
from ._muc import muc_scores
from ._pairwise import pairwise_scores
from ._rand import rand_scores
from ._util import check_beta

# The engines import this package (CEAF's totals): they are imported when first used.
if TYPE_CHECKING:
    from ..engines import Engine, EngineName

__all__ = [
    "CANONICAL_METRICS",
    "EXTRA_METRICS",
    "MetricFamily",
    "cells_wanted",
    "evaluate",
    "resolve_metrics",
]

Compute = Callable[[Any, float], dict[str, float]]


@dataclass(frozen=True)
class MetricFamily:
    """Metrics computed together.

    ``keys`` are the names it produces (without ``_fbeta`` variants);
    ``coreference`` marks CoNLL-convention metrics (empty denominators give 0).
    ``compute`` reads the table's :class:`~ereval.statistics.Statistics`, or,
    when ``needs_cells``, the :class:`~ereval.contingency.ContingencyTable`
    itself (an engine then brings the cells back).
    """

    name: str
    keys: tuple[str, ...]
    compute: Compute
    coreference: bool = False
    needs_cells: bool = False


def _prf(prefix: str) -> tuple[str, str, str]:
    return (f"{prefix}_precision", f"{prefix}_recall", f"{prefix}_f1")


# CEAF and ACE import their assignment solver (SciPy) when they are computed.
def _ceaf(phi: Literal[1, 2, 3, 4]) -> Compute:
    def compute(table: Any, beta: float) -> dict[str, float]:
        from ._ceaf import ceaf_scores

        return ceaf_scores(table, phi=phi, beta=beta)

    return compute


def _ceaf_rn(table: Any, beta: float) -> dict[str, float]:
    from ._ceaf import ceaf_rn_scores

    return ceaf_rn_scores(table, beta=beta)


def _cone_b3(table: Any, beta: float) -> dict[str, float]:
    from ._cone import cone_b3_scores

    return cone_b3_scores(table, beta=beta)


def _cone_ceaf(table: ContingencyTable, beta: float) -> dict[str, float]:
    from ._cone import cone_ceaf_scores

    return cone_ceaf_scores(table, beta=beta)


def _ace(table: Any, beta: float) -> dict[str, float]:
    from ._ace import ace_scores

    return ace_scores(table, beta=beta)


def _ceaf_sys(table: Any, beta: float) -> dict[str, float]:
    from ._ceaf import ceaf_sys_scores

    return ceaf_sys_scores(table, beta=beta)


FAMILIES: tuple[MetricFamily, ...] = (
    MetricFamily("pairwise", _prf("pairwise"), lambda t, b: pairwise_scores(t, beta=b)),
    MetricFamily("cluster", _prf("cluster"), lambda t, b: cluster_scores(t, beta=b)),
    MetricFamily(
        "closest_cluster", _prf("closest_cluster"), lambda t, b: closest_cluster_scores(t, beta=b)
    ),
    MetricFamily("muc", _prf("muc"), lambda t, b: muc_scores(t, beta=b), True),
    MetricFamily("b3", _prf("b3"), lambda t, b: b3_scores(t, beta=b), True),
    MetricFamily("b3_entity", _prf("b3_entity"), lambda t, b: b3_entity_scores(t, beta=b)),
    MetricFamily("ceafm", _prf("ceafm"), _ceaf(3), True),
    MetricFamily("ceafe", _prf("ceafe"), _ceaf(4), True),
    MetricFamily("blanc", _prf("blanc"), lambda t, b: blanc_scores(t, beta=b), True),
    MetricFamily("lea", _prf("lea"), lambda t, b: lea_scores(t, beta=b), True),
    MetricFamily("bmd", ("bmd",), lambda t, b: {"bmd": bmd(t)}),
    MetricFamily("gmd", ("gmd",), lambda t, b: {"gmd": gmd_pairwise(t)}),
    MetricFamily(
        "info",
        ("variation_of_information", "homogeneity", "completeness", "v_measure"),
        lambda t, b: info_scores(t, beta=b),
    ),
    MetricFamily(
        "rand",
        ("rand_index", "adjusted_rand_index", "fowlkes_mallows"),
        lambda t, b: rand_scores(t),
    ),
)

EXTRA_FAMILIES: tuple[MetricFamily, ...] = (
    MetricFamily("ceaf_phi1", _prf("ceaf_phi1"), _ceaf(1), True),
    MetricFamily("ceaf_phi2", _prf("ceaf_phi2"), _ceaf(2), True, True),
    MetricFamily(
        "b3_twinless",
        _prf("b3_all") + _prf("b3_0") + _prf("b3_rn") + _prf("b3_sys"),
        lambda t, b: b3_twinless_scores(t, beta=b),
        True,
    ),
    MetricFamily("ceaf_sys", _prf("ceaf_sys"), _ceaf_sys, True),
    MetricFamily("ceaf_rn", _prf("ceaf_rn"), _ceaf_rn, True),
    MetricFamily("ace", _prf("ace"), _ace, needs_cells=True),
    MetricFamily("cone_b3", _prf("cone_b3"), _cone_b3, True),
    MetricFamily("cone_ceaf", _prf("cone_ceafm") + _prf("cone_ceafe"), _cone_ceaf, True, True),
    MetricFamily(
        "bmd_normalized", ("bmd_normalized",), lambda t, b: {"bmd_normalized": bmd_normalized(t)}
    ),
)

#: The canonical metric names, in report order.
CANONICAL_METRICS: tuple[str, ...] = tuple(k for fam in FAMILIES for k in fam.keys)
#: Further metrics available by name.
EXTRA_METRICS: tuple[str, ...] = tuple(k for fam in EXTRA_FAMILIES for k in fam.keys)
_TWINLESS_DEFAULTS = tuple(
    k
    for fam in EXTRA_FAMILIES
    if fam.name in ("b3_twinless", "ceaf_sys", "ceaf_rn")
    for k in fam.keys
)

_FAMILY_OF: dict[str, MetricFamily] = {
    k: fam for fam in FAMILIES + EXTRA_FAMILIES for k in fam.keys
}


def resolve_metrics(metrics: str | Iterable[str] | None) -> tuple[str, ...]:
    """Validate metric names (a list, or a comma-separated string; ``None`` = canonical).

    A family name (``"pairwise"``, ``"ceafe"``, ``"info"``, ...) selects all of its
    metrics; ``"canonical"`` selects the canonical metrics and ``"all"`` every
    metric, the extra ones included.
    """
    if metrics is None:
        return CANONICAL_METRICS
    names = as_name_list("metrics", metrics, what="metric names")
    if "all" in names or "canonical" in names:
        chosen = CANONICAL_METRICS + (EXTRA_METRICS if "all" in names else ())
        rest = [n for n in names if n not in ("all", "canonical")]
        return tuple(dict.fromkeys(chosen + (resolve_metrics(rest) if rest else ())))
    by_family = {fam.name: fam.keys for fam in FAMILIES + EXTRA_FAMILIES}
    out: list[str] = []
    unknown = []
    for nm in names:
        if nm in _FAMILY_OF:
            out.append(nm)
        elif nm in by_family:
            out.extend(by_family[nm])
        else:
            unknown.append(nm)
    if unknown:
        known = ", ".join(CANONICAL_METRICS + EXTRA_METRICS)
        raise InputError(
            f"'metrics' has unknown name(s) {unknown!r}; known: all, canonical, the family "
            f"names and the metrics {known}"
        )
    return tuple(dict.fromkeys(out))


def cells_wanted(names: Sequence[str]) -> CellsWanted:
    """Whether an engine must bring the cells back for the metrics ``names``:
    ``"always"`` when one of them needs them, ``"never"`` otherwise (the twinless
    variants of the default selection are computed from the statistics)."""
    return "always" if any(_FAMILY_OF[nm].needs_cells for nm in names) else "never"


#: The environment variable giving the default of ``evaluate(workers=...)``.
WORKERS_ENV = "EREVAL_WORKERS"
#: Tables with fewer cells are computed in one thread (threads would cost more).
_PARALLEL_MIN_CELLS = 100_000
#: Families submitted first when running in parallel (the slowest first).
_SLOW_FIRST = (
    "b3_twinless",
    "ceaf_sys",
    "ceaf_rn",
    "ace",
    "cone_ceaf",
    "ceaf_phi1",
    "ceaf_phi2",
    "ceafm",
    "lea",
)
#: Families reading what another family computes (CEAFe's total comes with CEAFm's):
#: submitted last, so that no thread waits for it.
_SHARED_LAST = ("ceafe",)


def _n_workers(workers: int | None) -> int:
    """The number of families computed at once: ``workers``, else the environment
    variable :data:`WORKERS_ENV`, else the number of CPUs (at most 4)."""
    source = "workers"
    value: object = workers
    if workers is None:
        env = os.environ.get(WORKERS_ENV, "").strip()
        if not env:
            return max(1, min(4, os.cpu_count() or 1))
        source = WORKERS_ENV
        try:
            value = int(env)
        except ValueError:
            value = env
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"'{source}' must be a positive integer; received {value!r}")
    return value


def _compute_families(
    stats: Statistics,
    families: Sequence[MetricFamily],
    beta: float,
    progress: Callable[[str], None] | None,
    workers: int | None,
) -> dict[str, float]:
    """Every family's results, in the order of ``families``; computed by up to
    ``workers`` threads at once when the statistics are still to be computed from
    a large table in memory."""
    n = min(_n_workers(workers), len(families))
    results: dict[str, float] = {}

    def compute(fam: MetricFamily) -> dict[str, float]:
        return fam.compute(stats.table if fam.needs_cells else stats, beta)

    if n <= 1 or not isinstance(stats, LazyStatistics) or stats.n_cells < _PARALLEL_MIN_CELLS:
        for fam in families:
            if progress is not None:
                progress(fam.name)
            results.update(compute(fam))
        return results
    rank = {name: i for i, name in enumerate(_SLOW_FIRST)}
    rank.update(dict.fromkeys(_SHARED_LAST, len(_SLOW_FIRST) + 1))
    start = sorted(families, key=lambda fam: rank.get(fam.name, len(_SLOW_FIRST)))
    pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="ereval-metrics")
    try:
        pending = {fam.name: pool.submit(compute, fam) for fam in start}
        for fam in families:
            if progress is not None:
                progress(fam.name)
            results.update(pending[fam.name].result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return results


def evaluate(
    truth: Any,
    pred: Any = None,
    *,
    metrics: str | Sequence[str] | None = None,
    beta: float = 1.0,
    progress: Callable[[str], None] | None = None,
    engine: EngineName | Engine = "auto",
    workers: int | None = None,
    **options: Unpack[AlignOptions],
) -> dict[str, float]:
    """Compute many metrics from one contingency table.

    Parameters
    ----------
    truth, pred : clustering
        Any form accepted by :func:`ereval.io.as_membership`; or a
        :class:`~ereval.contingency.ContingencyTable`, or the
        :class:`~ereval.statistics.TableStatistics` an engine returned, as
        ``truth`` with ``pred=None``. Predicted pairs are not a clustering: score them
        with :func:`ereval.evaluate_pairs` (their own counts and the metrics of their
        connected components) or :func:`ereval.threshold_curve`.
    metrics : list of str or comma-separated str, optional
        Metric or family names; default all canonical metrics (plus the
        twinless variants when twinless records are scored).
    beta : float, default 1.0
        Weight of recall: when not 1, every family also reports ``*_fbeta`` (and
        ``v_measure_beta``).
    progress : callable, optional
        Called with each family's name, in report order and from the calling
        thread: before the family is computed or, when families run in
        parallel, before its result is awaited.
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        Who computes the table's statistics: in memory (NumPy), inside DuckDB
        from files or DuckDB relations, out of core, or with Apache Spark from
        files or Spark DataFrames; ``"auto"`` picks NumPy when the inputs fit
        comfortably in memory (see :func:`ereval.engines.get_engine`). Every
        engine gives the same numbers (integers exactly, floats to the last few
        bits).
    workers : int, optional
        How many metric families are computed at once, in threads (NumPy
        releases the GIL); default the ``EREVAL_WORKERS`` environment variable,
        else the number of CPUs (at most 4). ``1`` computes them one after another
        in the calling thread. Small tables are always computed in one thread. The
        results are the same, in the same order, whatever the number.
    **options
        How the two clusterings are read and matched (``on_mismatch``,
        ``record_col``, ``cluster_col``, the per-side ``truth_record_col``,
        ``pred_cluster_col``, ..., and ``id_type``): see
        :func:`ereval.io.align`.

    Returns
    -------
    dict
        Metric name to value (``float``; NaN where undefined). The default
        selection (``metrics=None``) also holds the counts ``ereval metrics``
        prints: ``n_records``, ``n_true_clusters``, ``n_pred_clusters`` (and
        ``n_twinless_true``, ``n_twinless_pred`` when twinless records are scored).

    Examples
    --------
    >>> s = evaluate([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]], metrics="pairwise")
    >>> s["pairwise_precision"], s["pairwise_recall"]
    (0.5, 0.5)
    """
    beta = check_beta(beta)
    if isinstance(pred, PairList) or instance_of(pred, "pandas", "MultiIndex"):
        raise InputTypeError(
            "'pred' must be a clustering; for predicted pairs use "
            "ereval.evaluate_pairs(truth, pairs), which scores the pairs and their clusters"
        )
    explicit = metrics is not None
    names = resolve_metrics(metrics)
    stats: Statistics
    if isinstance(truth, TableStatistics | LazyStatistics):
        if pred is not None:
            raise InputError("'pred' must be None when 'truth' is already a table's statistics")
        stats = truth
    elif isinstance(truth, ContingencyTable) and pred is None:
        stats = statistics_of(truth)
    else:
        from ..engines import get_engine
        from ..statistics import compute_statistics

        builder = get_engine(
            engine,
            truth=truth,
            pred=pred,
        )
        stats = compute_statistics(builder, truth, pred, cells=cells_wanted(names), **options)
    if not explicit and stats.has_twinless:
        names = names + _TWINLESS_DEFAULTS
    families = list({_FAMILY_OF[nm].name: _FAMILY_OF[nm] for nm in names}.values())
    if stats.table is None:
        lacking = [fam.name for fam in families if fam.needs_cells]
        if lacking:
            raise InputError(
                f"'metrics': {', '.join(lacking)} need the cells of the table, which these "
                "statistics do not hold (ask the engine for them with cells='always')"
            )
    results = _compute_families(stats, families, beta, progress, workers)
    wanted = set(names)
    if beta != 1.0:
        wanted |= {n.replace("_f1", "_fbeta") for n in names if n.endswith("_f1")}
        if "v_measure" in wanted:
            wanted.add("v_measure_beta")
    out = {k: float(v) for k, v in results.items() if k in wanted}
    if not explicit:  # the default selection: the counts `ereval metrics` prints too
        out |= {"n_records": stats.n_records, "n_true_clusters": stats.n_true_clusters}
        out["n_pred_clusters"] = stats.n_pred_clusters
        if stats.has_twinless:
            out["n_twinless_true"] = stats.n_true_records - stats.n_common
            out["n_twinless_pred"] = stats.n_pred_records - stats.n_common
    return out
