"""Monitor a clustering across releases: summary statistics, estimates and change flags.

Binette et al. (2024, §3.1 and §4) track the summary statistics of every
release of a disambiguation (Figure 4), the same statistics on the fixed set of
records present in every release (Figure 5, which separates changes of the
algorithm from changes of the data), and estimates of the true values and of
performance from a labelled sample (Figures 4 and 6). Sudden changes should
trigger an investigation; :func:`monitor` flags them with a control chart.

The control rule (:class:`ControlRule`)
---------------------------------------
For an exact statistic ``x_1, x_2, ...`` over releases, release ``t`` is flagged

* ``shift`` when ``x_t`` lies outside the prediction limits
  ``m +- t_{1-alpha/2, n-1} s sqrt(1 + 1/n)`` of the ``n >= min_history`` earlier
  releases not flagged ``shift`` (mean ``m``, standard deviation ``s``): for
  independent normal values the chance of a false alarm is exactly ``alpha``
  per release (``alpha = 0.0027``, the rate of 3-sigma limits, by default); when
  ``s = 0`` any change beyond ``1e-9`` (relative) is flagged;
* ``trend`` when ``x_t`` ends a run of ``run_length`` releases (6 by default)
  each strictly above (or each strictly below) the previous one.

For an estimated statistic, release ``t`` is flagged ``interval`` when its
confidence interval does not overlap that of release ``t - 1`` (the point values
alone are not compared), and ``outside_estimate`` when the release's own exact
statistic lies outside the interval estimated for the true clustering. The
numbers counted by design (``n_records``, ``n_clusters``) are reported, not
monitored.
"""

from __future__ import annotations

import glob
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._errors import InputError, InputTypeError, RecordMismatchError
from ._monitor_scope import (
    ReleaseTables,
    check_selection_options,
    date_selection,
    describe_left_out,
    record_selection,
    release_dates,
    restrict_membership,
)
from ._monitor_sql import release_summaries
from ._validation import as_name_list, check_in_range, check_int, describe
from .engines import Database, Engine, EngineName, NumpyEngine, get_engine
from .estimators import ClusterSample, estimate
from .estimators._intervals import DEFAULT_INTERVAL, IntervalMethod, check_interval
from .estimators._registry import SPECS
from .estimators._restrict import restrict_sample
from .io import (
    Columns,
    Membership,
    encode,
    factorize,
    id_kind,
    read_membership,
    read_table,
    union,
)
from .results import Estimate, EstimateCurve, FrameRepr, json_ready
from .statistics._compute import in_memory_inputs
from .summary import DEFAULT_HILL_ORDERS, Summary, name_codes, summary_from_codes

__all__ = [
    "ControlRule",
    "DEFAULT_ESTIMATORS",
    "DEFAULT_MONITORED",
    "Monitoring",
    "control_flags",
    "monitor",
    "release_sources",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The statistics the control chart watches by default.
DEFAULT_MONITORED: tuple[str, ...] = (
    "average_cluster_size",
    "matching_rate",
    "hill_1",
    "hill_2",
    "homonymy_rate",
    "name_variation_rate",
)
#: Estimated statistics compared with the release's exact value (``outside_estimate``).
_SUMMARY_KEYS = ("average_cluster_size", "matching_rate", "homonymy_rate", "name_variation_rate")
FLAG_COLUMNS = ("release", "scope", "statistic", "rule", "value", "center", "lower", "upper")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class ControlRule:
    """The change rule of :func:`monitor` (see the module docstring).

    Attributes
    ----------
    alpha : float, default 0.0027
        False-alarm probability per release of the ``shift`` rule (that of
        3-sigma limits for a normal variable).
    min_history : int, default 3
        Earlier unflagged releases needed before ``shift`` is judged.
    run_length : int, default 6
        Releases in a strictly monotone run that raise ``trend`` (0 disables it).
    """

    alpha: float = 0.0027
    min_history: int = 3
    run_length: int = 6

    def __post_init__(self) -> None:
        check_in_range("alpha", self.alpha, low=0.0, high=1.0, low_open=True, high_open=True)
        check_int("min_history", self.min_history, minimum=2)
        if self.run_length != 0:
            check_int("run_length", self.run_length, minimum=3)

    def limits(self, history: Sequence[float]) -> tuple[float, float, float]:
        """``(center, lower, upper)`` from earlier values (NaN when too few)."""
        x = np.asarray(history, dtype=np.float64)
        n = x.shape[0]
        if n < self.min_history:
            return math.nan, math.nan, math.nan
        m = float(x.mean())
        s = float(x.std(ddof=1))
        from scipy import stats  # imported when needed: slow to import

        half = float(stats.t.ppf(1.0 - self.alpha / 2.0, n - 1)) * s * math.sqrt(1.0 + 1.0 / n)
        half = max(half, 1e-9 * max(1.0, abs(m)))
        return m, m - half, m + half

    def to_dict(self) -> dict[str, Any]:
        """The thresholds, as reported with the flags."""
        return {
            "alpha": self.alpha,
            "min_history": self.min_history,
            "run_length": self.run_length,
            "shift": "outside m +- t(1 - alpha/2, n - 1) s sqrt(1 + 1/n) of the earlier "
            "releases not flagged shift",
            "trend": f"{self.run_length} releases in a strictly monotone run",
            "interval": "confidence intervals of consecutive releases do not overlap",
            "outside_estimate": "exact statistic outside the interval estimated for the truth",
        }


def control_flags(values: Sequence[float], rule: ControlRule | None = None) -> list[dict[str, Any]]:
    """Apply ``rule`` to one series; one dict per flag: ``index, rule, value, center,
    lower, upper``. NaN values are never flagged and never enter a baseline.

    Examples
    --------
    >>> [f["index"] for f in control_flags([1.0, 1.1, 0.9, 1.0, 1.05, 3.0])]
    [5]
    """
    rule = ControlRule() if rule is None else rule
    x = [float(v) for v in values]
    baseline: list[float] = []
    out: list[dict[str, Any]] = []
    up = down = 1
    for t, v in enumerate(x):
        if t > 0 and math.isfinite(v) and math.isfinite(x[t - 1]):
            up = up + 1 if v > x[t - 1] else 1
            down = down + 1 if v < x[t - 1] else 1
        else:
            up = down = 1
        if not math.isfinite(v):
            continue
        center, lower, upper = rule.limits(baseline)
        shifted = math.isfinite(center) and not lower <= v <= upper
        if shifted:
            out.append(
                {"index": t, "rule": "shift", "value": v, "center": center}
                | {"lower": lower, "upper": upper}
            )
        else:
            baseline.append(v)
        if rule.run_length and (up == rule.run_length or down == rule.run_length):
            nan = math.nan
            out.append(
                {"index": t, "rule": "trend", "value": v, "center": nan}
                | {"lower": nan, "upper": nan}
            )
    return out


# --------------------------------------------------------------------------- inputs
def _date_of(label: str) -> str | None:
    found = _DATE.findall(label)
    return found[-1] if found else None


def release_sources(releases: Any) -> list[tuple[str, Any]]:
    """``(label, clustering)`` per release, in monitoring order.

    ``releases`` is a mapping from label to clustering (kept in its order), a
    folder (its CSV and Parquet files), a glob pattern, or a list of paths. Files
    are ordered by the ISO date (``YYYY-MM-DD``) in their names when every name
    has one, otherwise kept in the given order (a folder or glob: by name); a
    file's label is its date, or else its name without suffix.
    """
    if isinstance(releases, Mapping):
        return [(str(k), v) for k, v in releases.items()]
    if isinstance(releases, str | os.PathLike):
        path = Path(releases)
        if path.is_dir():
            paths = sorted(
                p
                for p in path.iterdir()
                if p.is_file() and p.name.lower().endswith((".csv", ".csv.gz", ".parquet", ".pq"))
            )
            if not paths:
                raise InputError(f"'releases': folder '{path}' holds no CSV or Parquet file")
        else:
            paths = [Path(p) for p in sorted(glob.glob(str(releases)))]
            if not paths:
                if any(ch in str(releases) for ch in "*?["):
                    raise InputError(f"'releases': no file matches {str(releases)!r}")
                raise FileNotFoundError(2, "No such file or directory", str(releases))
    elif isinstance(releases, Iterable):
        paths = [Path(p) if isinstance(p, str | os.PathLike) else p for p in releases]
        if not all(isinstance(p, Path) for p in paths):
            raise InputTypeError(
                "'releases' must be a mapping from label to clustering, a folder, a glob "
                "pattern or a list of paths"
            )
    else:
        raise InputTypeError(
            f"'releases' must be a mapping, a folder, a glob or a list of paths; received "
            f"{describe(releases)}"
        )
    dates = [_date_of(p.name) for p in paths]
    stems = [p.name.split(".")[0] for p in paths]
    if all(d is not None for d in dates):
        order = sorted(range(len(paths)), key=lambda i: str(dates[i]))
        labels = [str(dates[i]) for i in range(len(paths))]
    else:
        order = list(range(len(paths)))
        labels = stems
    out = [(labels[i], paths[i]) for i in order]
    seen: set[str] = set()
    for label, p in out:
        if label in seen:
            raise InputError(f"'releases' has two releases labelled {label!r} (e.g. '{p}')")
        seen.add(label)
    return out


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class Monitoring(FrameRepr):
    """Summary statistics, estimates and change flags over releases.

    Attributes
    ----------
    releases : tuple of str
        Release labels in order.
    statistics : DataFrame
        One row per release (index: label), one column per statistic, all records.
    common : DataFrame
        The same on the records present in every release (Figure 5).
    n_common : int
        Number of those records.
    estimates : dict
        Release -> estimator key -> :class:`~ereval.Estimate` (empty without a
        sample; a release missing sampled records has none), over the release
        restricted to the sample's population (see ``population``).
    flags : DataFrame
        One row per flag: ``release, scope ("all", "common", "estimate" or
        "common_estimate"), statistic, rule, value, center, lower, upper``.
    rule : ControlRule
    notes : tuple of str
        Why some estimates are missing, and how many records of each release
        were left out of its estimates.
    common_estimates : dict
        With a chosen fixed subset and a sample: per release, the estimates over
        the release restricted to the subset (within the sample's population),
        from the sample restricted likewise (Figure 5).
    population : str
        The records the sample's population covers, in words ("" without a sample).
    subset : str
        The fixed subset of ``common``, in words.
    """

    releases: tuple[str, ...]
    statistics: pd.DataFrame
    common: pd.DataFrame
    n_common: int
    estimates: dict[str, dict[str, Estimate]]
    flags: pd.DataFrame
    rule: ControlRule
    monitored: tuple[str, ...]
    summaries: dict[str, Summary] = field(repr=False)
    notes: tuple[str, ...] = ()
    common_estimates: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    population: str = ""
    subset: str = ""

    @property
    def changed(self) -> bool:
        """Whether any change was flagged."""
        return not self.flags.empty

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (NaN as ``None``): statistics and common (one mapping per
        release), estimates, flags, rule, monitored statistics and notes."""
        out: dict[str, Any] = json_ready(
            {
                "releases": list(self.releases),
                "n_common": self.n_common,
                "statistics": {
                    r: self.statistics.astype(object).loc[r].to_dict() for r in self.releases
                },
                "common": {r: self.common.astype(object).loc[r].to_dict() for r in self.releases},
                "estimates": {
                    r: {k: e.to_dict() for k, e in est.items()} for r, est in self.estimates.items()
                },
                "flags": self.flags.to_dict(orient="records"),
                "rule": self.rule.to_dict(),
                "monitored": list(self.monitored),
                "notes": list(self.notes),
                "common_estimates": {
                    r: {k: e.to_dict() for k, e in est.items()}
                    for r, est in self.common_estimates.items()
                },
                "population": self.population,
                "subset": self.subset,
            }
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per release, scope and statistic: ``release, scope, statistic, value,
        lower, upper`` (scopes as in :attr:`flags`; the interval only for estimates)."""
        rows: list[dict[str, Any]] = []
        nan = math.nan
        for r in self.releases:
            for scope, frame in (("all", self.statistics), ("common", self.common)):
                if r not in frame.index:
                    continue
                for stat in frame.columns:
                    value = float(frame.loc[r, stat])
                    rows.append(
                        {"release": r, "scope": scope, "statistic": stat, "value": value}
                        | {"lower": nan, "upper": nan}
                    )
            for scope, ests in (
                ("estimate", self.estimates),
                ("common_estimate", self.common_estimates),
            ):
                for key, e in ests.get(r, {}).items():
                    rows.append(
                        {"release": r, "scope": scope, "statistic": key, "value": e.value}
                        | {"lower": e.lower, "upper": e.upper}
                    )
        columns = ["release", "scope", "statistic", "value", "lower", "upper"]
        return pd.DataFrame(rows, columns=columns)

    def curve(self, key: str, *, subset: bool = False) -> EstimateCurve:
        """The estimates of ``key`` over the releases (:attr:`estimates`, or with
        ``subset`` :attr:`common_estimates`), as an :class:`~ereval.results.EstimateCurve`
        on the axis ``"release"`` (NaN at a release without an estimate).

        Raises
        ------
        KeyError
            ``key`` is estimated in no release.
        """
        source = self.common_estimates if subset else self.estimates
        ests = [source.get(r, {}).get(key) for r in self.releases]
        if all(e is None for e in ests):
            raise KeyError(f"{key!r} is estimated in no release")
        return EstimateCurve.from_estimates("release", list(self.releases), {key: ests})


# --------------------------------------------------------------------------- monitor
def _names_series(names: Any) -> pd.Series | None:
    if names is None:
        return None
    if isinstance(names, pd.Series):
        series = names
    elif isinstance(names, Mapping):
        series = pd.Series(dict(names), dtype=object)
    else:
        raise InputTypeError(
            "'names' must be a mapping (or Series) from record id to name covering every "
            f"record of every release; received {describe(names)}"
        )
    if not series.index.is_unique:
        raise InputError("'names' has repeated record ids")
    return series


def _release_names(series: pd.Series, m: Membership, label: str) -> pd.Series:
    pos = series.index.get_indexer(m.records)
    if (pos < 0).any():
        raise InputError(
            f"'names' has no name for {int((pos < 0).sum())} record(s) of release {label!r} "
            f"(e.g. {m.records[pos < 0][:3].tolist()})"
        )
    return series.iloc[pos]


def _common_mask(members: list[Membership]) -> list[npt.NDArray[np.bool_]]:
    """Which records of each release are in every release: the ids of all releases
    numbered together (:func:`ereval.io.union`, text on its Arrow buffers), each
    counted once per release that holds it (a release's ids are distinct)."""
    ids = members[0].record_ids
    positions = [np.arange(len(ids), dtype=np.int64)]
    for m in members[1:]:
        ids, before, new = union(ids, m.record_ids)
        positions = [before[p] for p in positions] + [new]
    held = np.zeros(len(ids), dtype=np.int64)
    for p in positions:
        held += np.bincount(p, minlength=len(ids))
    return [held[p] == len(members) for p in positions]


def _table(summaries: Mapping[str, Summary], orders: Sequence[float]) -> pd.DataFrame:
    rows = {label: s.statistics(orders) for label, s in summaries.items()}
    return pd.DataFrame.from_dict(rows, orient="index")


def _flag_rows(
    frame: pd.DataFrame, scope: str, monitored: Sequence[str], rule: ControlRule
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    labels = list(frame.index)
    for stat in monitored:
        if stat not in frame.columns:
            continue
        for f in control_flags(frame[stat].astype(float).tolist(), rule):
            out.append({"release": labels[f.pop("index")], "scope": scope, "statistic": stat} | f)
    return out


def _estimate_flags(
    estimates: Mapping[str, Mapping[str, Estimate]],
    statistics: pd.DataFrame,
    scope: str = "estimate",
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    labels = [r for r in statistics.index if r in estimates]
    keys = list(dict.fromkeys(k for r in labels for k in estimates[r]))
    for key in keys:
        previous: Estimate | None = None
        for r in labels:
            e = estimates[r].get(key)
            if e is None:
                continue
            if key in _SUMMARY_KEYS and key in statistics.columns and r in statistics.index:
                v = float(statistics.loc[r, key])
                if math.isfinite(v) and math.isfinite(e.lower) and not e.lower <= v <= e.upper:
                    out.append(
                        {"release": r, "scope": scope, "statistic": key}
                        | {"rule": "outside_estimate", "value": v, "center": e.value}
                        | {"lower": e.lower, "upper": e.upper}
                    )
            if previous is not None and all(
                math.isfinite(x) for x in (e.lower, e.upper, previous.lower, previous.upper)
            ):
                if e.lower > previous.upper or e.upper < previous.lower:
                    out.append(
                        {"release": r, "scope": scope, "statistic": key}
                        | {"rule": "interval", "value": e.value, "center": previous.value}
                        | {"lower": previous.lower, "upper": previous.upper}
                    )
            previous = e
    return out


def monitor(
    releases: Any,
    *,
    names: Any = None,
    sample: ClusterSample | None = None,
    metrics: str | Iterable[str] | None = None,
    level: float = 0.95,
    rule: ControlRule | None = None,
    monitored: Sequence[str] = DEFAULT_MONITORED,
    hill_orders: Sequence[float] = DEFAULT_HILL_ORDERS,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    progress: Callable[[str], None] | None = None,
    interval: IntervalMethod = DEFAULT_INTERVAL,
    population: Any = None,
    population_until: Any = None,
    subset: Any = None,
    subset_until: Any = None,
    date_col: str | None = None,
    engine: EngineName | Engine = "auto",
) -> Monitoring:
    """Summary statistics, estimates and change flags for a series of releases.

    Parameters
    ----------
    releases : mapping, folder, glob or list of paths
        The releases, in monitoring order (see :func:`release_sources`); at least two.
    names : mapping or Series, optional
        A name per record (covering every record of every release), for the
        homonymy and name-variation rates.
    sample : ClusterSample, optional
        A labelled sample of true clusters (:func:`ereval.estimators.as_sample`):
        each release covering its records gets estimates with intervals.
    metrics : str or list, optional
        Estimator keys (default: pairwise and B-cubed precision, recall and F1,
        and the summary statistics the data allow).
    level : float, default 0.95
        Confidence level of the intervals.
    rule : ControlRule, optional
        The change rule (default :class:`ControlRule()`).
    monitored : sequence of str
        The statistics the control chart watches.
    hill_orders : sequence of float
        Orders of the Hill numbers reported (``hill_<q>`` columns).
    record_col, cluster_col : str or list of str
        Column names of the release files.
    progress : callable, optional
        Called with a short description before each release is read.
    interval : {"skew_beta", "wilson", "normal"}, default "skew_beta"
        The intervals of the estimates (see :func:`ereval.estimators.estimate`).
    population : str, record ids or path, optional
        The records the sample's population covers: a release label, record
        ids, or a CSV/Parquet file of them. Each release is estimated over its
        records in the population (a note says how many others were left out).
        Default: the records of the first release that holds every sampled
        record (the release the sample was drawn from, when releases only grow).
    population_until : date, optional
        Instead: the records dated at most this in column ``date_col``.
    subset, subset_until : optional
        A fixed subset for the ``common`` statistics (Figure 5), named like
        ``population``; default the records present in every release. With a
        sample, its estimates per release go to ``common_estimates``.
    date_col : str, optional
        The column of the release tables holding each record's date.
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        Who reads the releases (:func:`ereval.engines.get_engine`; ``"auto"`` looks at
        the first and last release). NumPy reads them into memory; DuckDB and
        Spark compute the statistics of ``statistics`` and ``common`` where the data
        is (the records in every release by a join on the record id, in the passes
        DuckDB's memory limit plans) and bring back only cluster-size
        distributions. ``names``, ``sample``, ``subset`` and dates are computed in
        memory: with them ``"auto"`` picks NumPy, and another engine is an error.

    Returns
    -------
    Monitoring
    """
    rule = ControlRule() if rule is None else rule
    check_in_range("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    interval = check_interval(interval)
    check_selection_options(population, population_until, date_col, name="population")
    check_selection_options(subset, subset_until, date_col, name="subset")
    if sample is None and (population is not None or population_until is not None):
        raise InputError("'population' says which records a sample covers: it needs 'sample'")
    if metrics is not None:
        known = [spec.key for spec in SPECS]
        for key in as_name_list("metrics", metrics, what="estimator names"):
            if key not in known:
                raise InputError(f"'metrics' has unknown name {key!r}; known: {', '.join(known)}")
    sources = release_sources(releases)
    if len(sources) < 2:
        raise InputError(
            f"'releases' holds {len(sources)} release(s); monitoring compares at least 2 "
            "(one clustering is summarised by summarize(), `ereval summary` on the command line)"
        )
    request = _Request(
        names, sample, metrics, level, rule, monitored, hill_orders, record_col, cluster_col,
        progress, interval, population, population_until, subset, subset_until, date_col,
    )  # fmt: skip
    given = [
        name
        for name, value in zip(
            IN_MEMORY_OPTIONS, (names, sample, subset, subset_until, date_col), strict=True
        )
        if value is not None
    ]
    builder = _monitor_engine(engine, sources, given)
    result: Monitoring = builder.run(_MonitorJob(sources, request))
    return result


def _monitoring(
    sources: list[tuple[str, Any]],
    statistics: pd.DataFrame,
    common: pd.DataFrame,
    *,
    n_common: int,
    rule: ControlRule,
    monitored: Sequence[str],
    flags_input: list[dict[str, Any]],
    summaries: dict[str, Summary],
    notes: list[str],
    estimates: dict[str, dict[str, Estimate]],
    common_estimates: dict[str, dict[str, Estimate]],
    population: str,
    subset: str,
) -> Monitoring:
    """The :class:`Monitoring` of the statistics, with the control chart's flags."""
    flags = [
        *_flag_rows(statistics, "all", monitored, rule),
        *_flag_rows(common, "common", monitored, rule),
        *flags_input,
    ]
    order = {label: k for k, (label, _) in enumerate(sources)}
    flag_frame = pd.DataFrame(flags, columns=list(FLAG_COLUMNS))
    if not flag_frame.empty:
        flag_frame = flag_frame.sort_values(
            "release", key=lambda s: s.map(order), kind="stable"
        ).reset_index(drop=True)
    return Monitoring(
        releases=tuple(order),
        statistics=statistics,
        common=common,
        n_common=n_common,
        estimates=estimates,
        flags=flag_frame,
        rule=rule,
        monitored=tuple(monitored),
        summaries=summaries,
        notes=tuple(notes),
        common_estimates=common_estimates,
        population=population,
        subset=subset or "the records in every release",
    )


@dataclass(frozen=True)
class _Request:
    """The options of :func:`monitor`, checked."""

    names: Any
    sample: ClusterSample | None
    metrics: str | Iterable[str] | None
    level: float
    rule: ControlRule
    monitored: Sequence[str]
    hill_orders: Sequence[float]
    record_col: Columns
    cluster_col: Columns
    progress: Callable[[str], None] | None
    interval: IntervalMethod
    population: Any
    population_until: Any
    subset: Any
    subset_until: Any
    date_col: str | None


class _MonitorJob:
    """The monitoring of the releases: read in memory, or summarised by an SQL engine
    where the data is (:mod:`ereval._monitor_sql`)."""

    def __init__(self, sources: list[tuple[str, Any]], request: _Request) -> None:
        self.sources, self.request = sources, request

    def in_memory(self, engine: Any) -> Monitoring:
        in_memory_inputs(*(data for _, data in self.sources))
        return _monitor_in_memory(self.sources, self.request)

    def in_sql(self, db: Database) -> Monitoring:
        q = self.request
        every, common = release_summaries(
            db,
            self.sources,
            record_col=q.record_col,
            cluster_col=q.cluster_col,
            progress=q.progress,
        )
        labels = [label for label, _ in self.sources]
        all_summaries = dict(zip(labels, every, strict=True))
        common_summaries = {
            label: s for label, s in zip(labels, common, strict=True) if s is not None
        }
        first = common[0]
        return _monitoring(
            self.sources,
            _table(all_summaries, q.hill_orders),
            _table(common_summaries, q.hill_orders),
            n_common=0 if first is None else first.n_records,
            rule=q.rule,
            monitored=q.monitored,
            flags_input=[],
            summaries=all_summaries,
            notes=[],
            estimates={},
            common_estimates={},
            population="",
            subset="",
        )


#: The options :func:`monitor` computes in memory only, as named in its errors.
IN_MEMORY_OPTIONS = ("names", "sample", "subset", "subset_until", "date_col")


def _monitor_engine(
    engine: EngineName | Engine, sources: list[tuple[str, Any]], given: list[str]
) -> Engine:
    """The engine of :func:`monitor`: ``"auto"`` picks NumPy when an option computed in
    memory only is given; another engine with such an option is an error."""
    if given and engine == "auto":
        return NumpyEngine()
    builder = get_engine(engine, truth=sources[0][1], pred=sources[-1][1])
    if given and builder.name != "numpy":
        raise InputError(
            f"'{given[0]}': names, samples, subsets and dates are monitored in memory; "
            f"use engine='numpy' (or 'auto') with it, not {builder.name!r}"
        )
    return builder


def _monitor_in_memory(sources: list[tuple[str, Any]], q: _Request) -> Monitoring:
    """:func:`monitor` in memory: every release read, its summaries, estimates and flags."""
    names, sample, metrics, level = q.names, q.sample, q.metrics, q.level
    rule, monitored, hill_orders = q.rule, q.monitored, q.hill_orders
    record_col, cluster_col, progress, interval = (
        q.record_col,
        q.cluster_col,
        q.progress,
        q.interval,
    )
    population, population_until = q.population, q.population_until
    subset, subset_until, date_col = q.subset, q.subset_until, q.date_col
    series = _names_series(names)
    members: list[Membership] = []
    name_arrays: list[pd.Series | None] = []
    kinds: list[str] = []
    dates: list[Any] = []
    for label, source in sources:
        if progress is not None:
            progress(f"reading release {label}")
        data = (
            read_table(source, name=f"release {label}", text_columns="all")
            if isinstance(source, Path)
            else source
        )
        m, _ = read_membership(
            data, name=f"release {label}", record_col=record_col, cluster_col=cluster_col
        )
        kinds.append(id_kind(m.record_ids))
        if kinds[-1] != kinds[0]:
            raise InputTypeError(
                f"record ids of release {label!r} are {kinds[-1]} but those of release "
                f"{sources[0][0]!r} are {kinds[0]}; give every release the same id type"
            )
        members.append(m)
        name_arrays.append(None if series is None else _release_names(series, m, label))
        dates.append(release_dates(data, m, date_col, label))
    tables = ReleaseTables(tuple(label for label, _ in sources), tuple(members), tuple(dates))
    notes: list[str] = []
    masks = _common_mask(members)
    subset_text = ""
    subset_ids = _selection(subset, subset_until, tables, "subset", date_col, record_col)
    if subset_ids is not None:
        ids, subset_text = subset_ids
        chosen = [
            mask & np.asarray(pd.Index(m.records).isin(pd.Index(ids)))
            for m, mask in zip(members, masks, strict=True)
        ]
        missing = len(np.unique(ids)) - int(chosen[0].sum())
        if missing > 0:
            notes.append(
                f"{missing:,} record(s) of {subset_text} are not in every release and were "
                "left out of the fixed subset"
            )
        masks = chosen
    all_summaries: dict[str, Summary] = {}
    common_summaries: dict[str, Summary] = {}
    for (label, _), m, nm, mask in zip(sources, members, name_arrays, masks, strict=True):
        codes, _ = encode(m.cluster_ids, sort=False)
        ncodes = None if nm is None else name_codes(nm, m, source=f"release {label}")
        all_summaries[label] = summary_from_codes(codes, ncodes)
        if mask.any():
            sub_names = None if ncodes is None else factorize(ncodes[mask])[0]
            common_summaries[label] = summary_from_codes(codes[mask], sub_names)
    if not common_summaries:
        if subset_ids is not None:
            raise RecordMismatchError(f"'subset': no record of {subset_text} is in every release")
        raise RecordMismatchError("'releases' have no record in common")
    statistics = _table(all_summaries, hill_orders)
    common = _table(common_summaries, hill_orders)
    labels = list(tables.labels)
    estimates: dict[str, dict[str, Estimate]] = {}
    common_estimates: dict[str, dict[str, Estimate]] = {}
    population_text = ""
    flags_input: list[dict[str, Any]] = []
    if sample is not None:
        keys = _estimator_keys(metrics, series is not None)
        pop = _selection(population, population_until, tables, "population", date_col, record_col)
        if pop is None:
            pop = _default_population(sample, tables)
        population_ids, population_text = pop if pop is not None else (None, "")
        scoped = _Scoped(sample, keys, level, interval, name_arrays, progress)
        estimates, scope_stats = scoped.run(
            tables, population_ids, "the sample's population", notes
        )
        flags_input += _estimate_flags(
            estimates, _table(scope_stats, hill_orders).reindex(labels), "estimate"
        )
        if subset_ids is not None:
            fixed = members[0].records[masks[0]]
            if population_ids is not None:
                fixed = fixed[np.asarray(pd.Index(fixed).isin(pd.Index(population_ids)))]
            if np.asarray(pd.Index(sample.records).isin(pd.Index(fixed))).any():
                common_estimates, _ = _Scoped(
                    restrict_sample(sample, fixed), keys, level, interval, name_arrays, progress
                ).run(tables, fixed, "the fixed subset", [], word="fixed subset")
                flags_input += _estimate_flags(common_estimates, common, "common_estimate")
            else:
                notes.append(
                    f"no sampled record lies in {subset_text} within the sample's population: "
                    "no estimates for the fixed subset"
                )
    return _monitoring(
        sources,
        statistics,
        common,
        n_common=int(masks[0].sum()),
        rule=rule,
        monitored=monitored,
        flags_input=flags_input,
        summaries=all_summaries,
        notes=notes,
        estimates=estimates,
        common_estimates=common_estimates,
        population=population_text,
        subset=subset_text,
    )


def _selection(
    selection: Any,
    until: Any,
    tables: ReleaseTables,
    name: str,
    date_col: str | None,
    record_col: Columns,
) -> tuple[npt.NDArray[Any], str] | None:
    if until is not None and date_col is not None:
        return date_selection(tables, until, name=f"{name}_until", date_col=date_col)
    if selection is None:
        return None
    return record_selection(selection, tables, name=name, record_col=record_col)


def _default_population(
    sample: ClusterSample, tables: ReleaseTables
) -> tuple[npt.NDArray[Any], str] | None:
    """The records of the first release that holds every sampled record."""
    for label, m in zip(tables.labels, tables.members, strict=True):
        if np.asarray(pd.Index(sample.records).isin(pd.Index(m.records))).all():
            return m.records, f"release {label!r} (the first holding every sampled record)"
    return None


@dataclass(frozen=True, eq=False)
class _Scoped:
    """Estimates of each release restricted to a set of records, from one sample."""

    sample: ClusterSample
    keys: str | Iterable[str]
    level: float
    interval: IntervalMethod
    names: list[pd.Series | None]
    progress: Callable[[str], None] | None

    def run(
        self,
        tables: ReleaseTables,
        records: npt.NDArray[Any] | None,
        what: str,
        notes: list[str],
        *,
        word: str = "",
    ) -> tuple[dict[str, dict[str, Estimate]], dict[str, Summary]]:
        out: dict[str, dict[str, Estimate]] = {}
        stats: dict[str, Summary] = {}
        left_out: list[tuple[str, int]] = []
        for label, m, nm in zip(tables.labels, tables.members, self.names, strict=True):
            if self.progress is not None:
                self.progress(f"estimating release {label}" + (f" ({word})" if word else ""))
            pred, n_out = (m, 0) if records is None else restrict_membership(m, records)
            names = None if nm is None else nm[nm.index.isin(pd.Index(pred.records))]
            try:
                out[label] = estimate(
                    pred,
                    self.sample,
                    names=names,
                    metrics=self.keys,
                    level=self.level,
                    interval=self.interval,
                    naive=False,
                )
            except RecordMismatchError:
                notes.append(f"release {label!r} does not cover every sampled record: no estimates")
                continue
            left_out.append((label, n_out))
            codes, _ = encode(pred.cluster_ids, sort=False)
            ncodes = None if names is None else name_codes(names, pred, source=f"release {label}")
            stats[label] = summary_from_codes(codes, ncodes)
        notes.extend(describe_left_out(left_out, what))
        return out, stats


#: Estimators reported per release by default.
DEFAULT_ESTIMATORS: tuple[str, ...] = (
    "pairwise_precision",
    "pairwise_recall",
    "pairwise_f1",
    "b3_precision",
    "b3_recall",
    "average_cluster_size",
    "matching_rate",
)


def _estimator_keys(metrics: str | Iterable[str] | None, has_names: bool) -> str | Iterable[str]:
    if metrics is not None:
        return metrics
    extra = ["homonymy_rate", "name_variation_rate"] if has_names else []
    return [*DEFAULT_ESTIMATORS, *extra]
