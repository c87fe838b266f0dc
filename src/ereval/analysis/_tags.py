"""Reviewer error tags and their weighted relative frequencies (Binette et al. 2024, Figure 7).

Reviewers note a cause for each error they see ("same name", "name variation",
"unknown", ...), as a comma-separated list of tags per sampled true cluster.
A tag's relative frequency among the entities of a base (those in error, by
default) is the ratio of two population sums, estimated from the sample with the
ratio estimator of :mod:`ereval.estimators`::

    F(t) = sum_c 1[t tags c] 1[c in base] / sum_c 1[c in base]

with each draw's unit values divided by its sampling probability, draws whose
unit holds no cluster of the base left out (as subgroup estimates do).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import check_choice, describe, examples
from ..estimators import Estimate, EstimationWarning, ratio_estimate
from ..estimators._ratio import method_name, size_warning
from ..results import UNIT_RANGE
from ._table import SampleErrors

__all__ = ["BASES", "Base", "parse_tags", "tag_frequencies"]

Base = Literal["errors", "tagged", "all"]
BASES: tuple[Base, ...] = ("errors", "tagged", "all")


def parse_tags(value: Any, *, sep: str = ",") -> tuple[str, ...]:
    """The distinct tags of one cell, stripped, in order; none for an empty or missing cell.

    Examples
    --------
    >>> parse_tags(" same name, unknown ,same name")
    ('same name', 'unknown')
    """
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ()
    parts = (p.strip() for p in str(value).split(sep))
    return tuple(dict.fromkeys(p for p in parts if p))


def _cells(errors: SampleErrors, tags: Any) -> list[Any]:
    labels = np.asarray(errors.table["cluster_id"], dtype=object)
    if isinstance(tags, str):
        if tags not in errors.table.columns:
            raise InputError(
                f"'tags': there is no column '{tags}'; the columns are "
                f"{[str(c) for c in errors.table.columns]}"
            )
        return list(errors.table[tags].astype(object))
    if isinstance(tags, Mapping | pd.Series):
        series = tags if isinstance(tags, pd.Series) else pd.Series(dict(tags), dtype=object)
        pos = pd.Index(series.index, dtype=object).get_indexer(pd.Index(labels))
        values = series.to_numpy(dtype=object)
        return [values[p] if p >= 0 else None for p in pos]
    raise InputTypeError(
        f"'tags' must be a column name or a mapping from cluster id to tags; received "
        f"{describe(tags)}"
    )


def tag_frequencies(
    errors: SampleErrors,
    tags: Any,
    *,
    among: Base = "errors",
    sep: str = ",",
    level: float = 0.95,
) -> dict[str, Estimate]:
    """Weighted relative frequency of each reviewer tag, with confidence intervals.

    Parameters
    ----------
    errors : SampleErrors
        From :func:`sample_errors`.
    tags : str or mapping
        A column of ``errors.table`` (a feature) or a mapping from cluster id to
        the cluster's tags, each a ``sep``-separated list; an empty or missing
        value means no tag.
    among : {"errors", "tagged", "all"}, default "errors"
        The base: entities with an error (``EI > 0``), entities with at least
        one tag, or all entities. Under ``"errors"``, tags on error-free
        clusters are left out with a warning.
    sep : str, default ","
    level : float, default 0.95

    Returns
    -------
    dict of str to Estimate
        Tag -> its relative frequency, most frequent first (ties by tag). The
        frequencies of several tags of one entity can sum to more than 1.

    Examples
    --------
    >>> from ereval.analysis import sample_errors
    >>> pred = {1: "x", 2: "x", 3: "y", 4: "z", 5: "w"}
    >>> sample = {1: "a", 2: "b", 3: "c", 4: "c", 5: "d"}
    >>> s = sample_errors(pred, sample, design="cluster", weights="uniform")
    >>> f = tag_frequencies(s, {"a": "same name", "b": "same name, typo", "c": "typo"})
    >>> {t: round(e.value, 4) for t, e in f.items()}
    {'same name': 0.6667, 'typo': 0.6667}
    """
    among = check_choice("among", among, BASES)
    if not isinstance(sep, str) or not sep:
        raise InputError(f"'sep' must be a non-empty string; received {describe(sep)}")
    parsed = [parse_tags(v, sep=sep) for v in _cells(errors, tags)]
    in_error = errors.table["EI"].to_numpy(dtype=np.float64) > 0
    tagged = np.array([bool(t) for t in parsed])
    base = {"errors": in_error, "tagged": tagged, "all": np.ones_like(tagged)}[among]
    outside = tagged & ~base
    if outside.any():
        labels = np.asarray(errors.table["cluster_id"], dtype=object)[outside]
        warnings.warn(
            f"{int(outside.sum())} tagged cluster(s) have no error and are left out of the "
            f"frequencies among errors (e.g. {examples(labels)}); pass among='tagged' or "
            "among='all' to count them",
            EstimationWarning,
            stacklevel=2,
        )
    if not base.any():
        raise InputError(
            f"no sampled cluster is in the base among={among!r} (no "
            f"{'error' if among == 'errors' else 'tag'}); there is nothing to count"
        )
    s = errors.sample
    units = s.unit_of_cluster
    g = np.bincount(units, weights=base.astype(np.float64), minlength=s.n_units)
    kept = g[s.draws] > 0
    draws = s.draws[kept]
    inv_p = 1.0 / s.probabilities[draws]
    a = g[draws] * inv_p
    names = sorted({t for ts, b in zip(parsed, base, strict=True) if b for t in ts})
    out: dict[str, Estimate] = {}
    for tag in names:
        hit = np.array([tag in ts for ts in parsed]) & base
        f = np.bincount(units, weights=hit.astype(np.float64), minlength=s.n_units)
        b = f[draws] * inv_p
        out[tag] = _frequency(tag, b, a, s.design, s.theta_for(b, a, draws), level)
    return dict(sorted(out.items(), key=lambda kv: (-kv[1].value, kv[0])))


def _frequency(
    tag: str, b: np.ndarray, a: np.ndarray, design: str, theta: float, level: float
) -> Estimate:
    name = f"tag {tag!r}"
    if design != "single_block" and b.shape[0] >= 2:
        return ratio_estimate(
            b,
            a,
            theta=theta,
            level=level,
            design=design,
            name=name,
            form="relative frequency",
            bounds=UNIT_RANGE,
        )
    n = int(b.shape[0])
    value = float(b.sum()) / float(a.sum())
    note = (
        "design='single_block': no standard error can be estimated from one block"
        if design == "single_block"
        else f"'{name}' rests on a single draw, so it has no standard error"
    )
    notes = tuple(w for w in (note, size_warning(n, design)) if w)
    method = method_name("relative frequency", design, kind="ratio of sums")
    return Estimate(value, math.nan, (math.nan, math.nan), level, n, method, notes)
