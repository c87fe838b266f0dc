"""Performance disparities between subgroups of entities (Binette et al. 2024, Remark 3)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import check_int, describe, examples
from ..estimators import OVERALL, Estimate, estimate, estimate_by_group, estimate_differences
from ..results import FrameRepr, json_ready
from ._table import SampleErrors

__all__ = ["DEFAULT_METRICS", "MISSING", "Disparities", "disparities", "feature_values"]

#: The estimators :func:`disparities` reports by default.
DEFAULT_METRICS = ("pairwise_precision", "pairwise_recall", "pairwise_f1")
#: The category of a cluster whose categorical feature is missing.
MISSING = "(missing)"
#: A numeric feature with more distinct values than this cannot define groups.
MAX_GROUPS = 20


@dataclass(frozen=True, eq=False)
class Disparities(FrameRepr):
    """Estimates per subgroup of entities, and over all of them.

    Attributes
    ----------
    by : str
        The feature that defines the groups.
    groups : dict
        Group label -> estimator key -> :class:`~ereval.Estimate`, groups sorted.
    overall : dict
        Estimator key -> :class:`~ereval.Estimate` over the whole sample.
    clusters : dict
        Group label -> number of distinct sampled clusters in the group.
    differences : dict or None
        With ``versus``: group label -> estimator key -> the
        :class:`~ereval.Estimate` of the group's estimate minus the baseline's
        (:func:`ereval.estimators.estimate_differences`).
    versus : object
        The baseline of ``differences``: ``"overall"`` or a group label.
    """

    by: str
    groups: dict[Any, dict[str, Estimate]]
    overall: dict[str, Estimate]
    clusters: dict[Any, int]
    differences: dict[Any, dict[str, Estimate]] | None = None
    versus: Any = None

    def to_frame(self) -> pd.DataFrame:
        """One row per group (the overall row last) and estimator:
        ``group, estimator, value, std, lower, upper, n, clusters``."""
        rows: list[dict[str, Any]] = []
        total = sum(self.clusters.values())
        for label, ests, count in [
            *((g, e, self.clusters[g]) for g, e in self.groups.items()),
            ("(all)", self.overall, total),
        ]:
            for key, e in ests.items():
                rows.append(
                    {
                        "group": label,
                        "estimator": key,
                        "value": e.value,
                        "std": e.std,
                        "lower": e.lower,
                        "upper": e.upper,
                        "n": e.n,
                        "clusters": count,
                    }
                )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """``by``, ``groups`` (one per group: its label, sampled clusters and each
        estimator's :meth:`~ereval.Estimate.to_dict`) and ``overall``, in plain JSON
        types (NaN as ``None``)."""
        out: dict[str, Any] = json_ready(
            {
                "by": self.by,
                "groups": [
                    {
                        "group": _plain(label),
                        "clusters": self.clusters[label],
                        "estimates": {k: e.to_dict() for k, e in ests.items()},
                    }
                    for label, ests in self.groups.items()
                ],
                "overall": {k: e.to_dict() for k, e in self.overall.items()},
                **self._differences_dict(),
            }
        )
        return out

    def _differences_dict(self) -> dict[str, Any]:
        if self.differences is None:
            return {}
        return {
            "versus": _plain(self.versus),
            "differences": [
                {"group": _plain(label), "estimates": {k: e.to_dict() for k, e in ests.items()}}
                for label, ests in self.differences.items()
            ],
        }


def feature_values(errors: SampleErrors, name: str, *, option: str) -> pd.Series:
    """The feature ``name`` per sampled cluster; errors name ``option``."""
    if name not in errors.features:
        raise InputError(
            f"'{option}': there is no feature '{name}'; the features are {list(errors.features)}"
        )
    values: pd.Series = errors.table[name]
    return values


def _group_labels(values: pd.Series, name: str) -> pd.Series:
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        if values.isna().any():
            raise InputError(
                f"'by': feature '{name}' is missing for {int(values.isna().sum())} sampled "
                "cluster(s); fill it or group by another feature"
            )
        distinct = int(values.nunique())
        if distinct > MAX_GROUPS:
            raise InputError(
                f"'by': feature '{name}' has {distinct} distinct values; group by a categorical "
                f"feature or one with at most {MAX_GROUPS} values (bin it first)"
            )
        return values
    return values.astype(object).where(values.notna(), MISSING)


def _labels_of(errors: SampleErrors, by: Any) -> tuple[str, pd.Series]:
    if isinstance(by, str):
        return by, _group_labels(feature_values(errors, by, option="by"), by)
    if isinstance(by, Mapping | pd.Series):
        series = by if isinstance(by, pd.Series) else pd.Series(dict(by), dtype=object)
        ids = pd.Index(errors.table["cluster_id"], dtype=object)
        pos = pd.Index(series.index, dtype=object).get_indexer(ids)
        if (pos < 0).any():
            raise InputError(
                f"'by' has no group for {int((pos < 0).sum())} sampled cluster(s) (e.g. "
                f"{examples(np.asarray(ids)[pos < 0])})"
            )
        name = str(series.name) if series.name is not None else "group"
        values = pd.Series(series.to_numpy(dtype=object)[pos])
        return name, _group_labels(values.infer_objects(), name)
    raise InputTypeError(
        f"'by' must be a feature name or a mapping from cluster id to group; received "
        f"{describe(by)}"
    )


def _binned(errors: SampleErrors, by: Any, bins: int) -> tuple[str, pd.Series, list[Any]]:
    bins = check_int("bins", bins, minimum=2)
    if not isinstance(by, str):
        raise InputError("'bins' cuts a numeric feature: give 'by' as a feature name")
    values = feature_values(errors, by, option="by")
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise InputError(f"'bins' needs a numeric feature; '{by}' is not numeric")
    if values.isna().any():
        raise InputError(
            f"'by': feature '{by}' is missing for {int(values.isna().sum())} sampled "
            "cluster(s); fill it or group by another feature"
        )
    cut = pd.qcut(values.astype(float), q=bins, duplicates="drop")
    names = [str(c) for c in cut.cat.categories]
    labels = pd.Series([str(v) for v in cut], index=values.index, dtype=object)
    return by, labels, names


def disparities(
    errors: SampleErrors,
    by: str | Mapping[Any, Any] | pd.Series,
    *,
    metrics: str | Iterable[str] = DEFAULT_METRICS,
    beta: float = 1.0,
    level: float = 0.95,
    bins: int | None = None,
    versus: Any = None,
) -> Disparities:
    """Estimate performance within each subgroup of entities defined by a feature.

    The subgroup estimates of :func:`ereval.estimators.estimate_by_group`: the
    sample is restricted to the true clusters of the group while the prediction
    stays whole, so a predicted link from a group's record to any other record
    still counts (Binette et al. 2024, Remark 3). Restricting the prediction to
    the group's records as well would hide those links and inflate precision.

    Parameters
    ----------
    errors : SampleErrors
        From :func:`sample_errors`.
    by : str or mapping
        A feature of ``errors`` (categorical, or numeric with at most 20
        distinct values), or a mapping from cluster id to group (a Series is
        named by its name); a missing categorical value is the group ``"(missing)"``.
    metrics : str or list of str
        Estimator keys (see :func:`ereval.estimators.estimate`); default
        pairwise precision, recall and F1.
    beta, level
        As for :func:`ereval.estimators.estimate`.
    bins : int, optional
        Cut a numeric ``by`` into this many groups at the quantiles of its values
        over the sampled clusters (groups named by their interval, e.g.
        ``"(2024.5, 2030.0]"``; equal quantiles merge, so there may be fewer).
    versus : object, optional
        Also estimate each group's difference to the overall estimate
        (``"overall"``) or to this group's (matched as given, or by its text),
        with intervals that account for the covariance of the two estimates
        (:func:`ereval.estimators.estimate_differences`).

    Returns
    -------
    Disparities

    Warns
    -----
    EstimationWarning
        A group with one draw (no standard error), an undefined estimate.

    Examples
    --------
    >>> from ereval.analysis import sample_errors
    >>> pred = {1: "x", 2: "x", 3: "x", 4: "y", 5: "y", 6: "z"}
    >>> sample = {1: "a", 2: "a", 3: "b", 4: "c", 5: "c", 6: "d"}
    >>> feats = {"a": "u", "b": "u", "c": "v", "d": "v"}
    >>> s = sample_errors(pred, sample, design="cluster", weights="uniform",
    ...                   features=pd.DataFrame({"cluster_id": list(feats), "g": list(feats.values())}))
    >>> d = disparities(s, "g", metrics="pairwise_precision")
    >>> round(d.groups["v"]["pairwise_precision"].value, 6)
    1.0
    """
    if bins is None:
        name, labels = _labels_of(errors, by)
        binned: list[Any] | None = None
    else:
        name, labels, binned = _binned(errors, by, bins)
    groups = pd.Series(labels.to_numpy(), index=pd.Index(errors.table["cluster_id"], dtype=object))
    raw = estimate_by_group(
        errors.prediction,
        errors.sample,
        groups,
        metrics=metrics,
        beta=beta,
        level=level,
        naive=False,
    )
    order = sorted(raw, key=lambda g: (isinstance(g, str) and g == MISSING, str(g)))
    if binned is not None:
        order = [g for g in binned if g in raw]
    elif pd.api.types.is_numeric_dtype(labels):
        order = sorted(raw)
    counts = labels.value_counts()
    overall = estimate(
        errors.prediction, errors.sample, metrics=metrics, beta=beta, level=level, naive=False
    )
    differences = None
    if versus is not None:
        baseline = _baseline(versus, order)
        diff = estimate_differences(
            errors.prediction,
            errors.sample,
            groups,
            baseline=baseline,
            metrics=metrics,
            beta=beta,
            level=level,
        )
        differences = {_plain(g): diff[g] for g in order if g in diff}
        versus = _plain(baseline)
    return Disparities(
        name,
        {_plain(g): raw[g] for g in order},
        overall,
        {_plain(g): int(counts[g]) for g in order},
        differences,
        versus,
    )


def _baseline(versus: Any, order: list[Any]) -> Any:
    if isinstance(versus, str) and versus == OVERALL:
        return OVERALL
    for g in order:
        if g == versus or str(g) == str(versus):
            return g
    raise InputError(
        f"'versus' must be 'overall' or one of the groups ({', '.join(str(g) for g in order)}); "
        f"received {versus!r}"
    )


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
