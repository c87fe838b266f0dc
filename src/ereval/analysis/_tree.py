"""Which features go with errors: a weighted decision tree over the sampled clusters.

Binette et al. (2024, Remark 2) relate cluster-wise errors to cluster features
with decision trees, as SliceFinder does (Chung et al. 2019). The tree is fitted
with each sampled cluster's sampling weight (``draws / probability``), so its
leaves describe the population of entities, not the sample; each leaf becomes
one readable rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._optional import require
from .._validation import check_choice, check_int
from ..results import FrameRepr, json_ready
from ._subgroups import MISSING
from ._table import SampleErrors

__all__ = ["TARGETS", "ErrorTree", "Rule", "Target", "error_tree"]

Target = Literal["over", "under", "error", "ROCE", "RUCE"]
TARGETS: tuple[Target, ...] = ("over", "under", "error", "ROCE", "RUCE")

_WORDS = {
    "over": "over-clustered",
    "under": "under-clustered",
    "error": "in error",
    "ROCE": "mean ROCE",
    "RUCE": "mean RUCE",
}


@dataclass(frozen=True)
class Rule:
    """One leaf of the tree.

    Attributes
    ----------
    conditions : tuple of str
        The path from the root, e.g. ``("size >= 4", "source = census")``; empty
        for a tree with one leaf.
    value : float
        Weighted share of the leaf's clusters with the error (``over``,
        ``under``, ``error``) or weighted mean of ``ROCE`` / ``RUCE``.
    clusters : int
        Distinct sampled clusters in the leaf.
    share : float
        The leaf's share of the total sampling weight (its estimated share of
        the population's entities).
    """

    conditions: tuple[str, ...]
    value: float
    clusters: int
    share: float


@dataclass(frozen=True, eq=False)
class ErrorTree(FrameRepr):
    """A fitted tree as rules, and the fitted scikit-learn estimator.

    Attributes
    ----------
    target : str
        What was predicted (see :func:`error_tree`).
    rules : tuple of Rule
        One per leaf, highest ``value`` first.
    first_split : str or None
        The feature of the root's split; None when the tree has one leaf.
    importances : dict of str to float
        Weighted impurity decrease per feature (summed over its one-hot columns),
        normalised to sum to 1 (all 0 for a tree with one leaf).
    overall : float
        The weighted share (or mean) over all sampled clusters.
    model : object
        The fitted ``DecisionTreeClassifier`` or ``DecisionTreeRegressor``.
    """

    target: str
    rules: tuple[Rule, ...]
    first_split: str | None
    importances: dict[str, float]
    overall: float
    model: Any

    def to_frame(self) -> pd.DataFrame:
        """One row per leaf (:attr:`rules`): ``conditions`` (joined by ``" and "``),
        ``value``, ``clusters``, ``share``."""
        return pd.DataFrame(
            [(" and ".join(r.conditions), r.value, r.clusters, r.share) for r in self.rules],
            columns=["conditions", "value", "clusters", "share"],
        )

    def to_dict(self) -> dict[str, Any]:
        """``target, first_split, overall, importances`` and ``rules`` (each with its list
        of conditions) in plain JSON types (NaN as ``None``); the fitted model is left
        out."""
        out: dict[str, Any] = json_ready(
            {
                "target": self.target,
                "first_split": self.first_split,
                "overall": self.overall,
                "importances": dict(self.importances),
                "rules": [
                    {
                        "conditions": list(r.conditions),
                        "value": r.value,
                        "clusters": r.clusters,
                        "share": r.share,
                    }
                    for r in self.rules
                ],
            }
        )
        return out

    def text(self) -> str:
        """The rules, one line each: ``size >= 4 and source = census -> over-clustered in
        38% (weighted) of 120 clusters``."""
        lines = []
        for r in self.rules:
            where = " and ".join(r.conditions) if r.conditions else "all clusters"
            if self.target in ("ROCE", "RUCE"):
                what = f"{_WORDS[self.target]} {r.value:.3g}"
            else:
                what = f"{_WORDS[self.target]} in {r.value:.0%} (weighted)"
            lines.append(f"{where} -> {what} of {r.clusters} clusters")
        return "\n".join(lines)


def _target(table: pd.DataFrame, target: Target) -> npt.NDArray[np.float64]:
    column = {"over": "OCE", "under": "UCE", "error": "EI"}.get(target, target)
    values = np.asarray(table[column].to_numpy(dtype=np.float64), dtype=np.float64)
    if target in ("ROCE", "RUCE"):
        return values
    return np.asarray(values > 0, dtype=np.float64)


@dataclass(frozen=True)
class _Column:
    feature: str
    category: str | None  # one-hot column of a categorical feature
    integer: bool


def _design_matrix(
    table: pd.DataFrame, features: Sequence[str]
) -> tuple[npt.NDArray[np.float64], list[_Column]]:
    blocks: list[npt.NDArray[np.float64]] = []
    columns: list[_Column] = []
    for name in features:
        values = table[name]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            x = values.to_numpy(dtype=np.float64)
            if np.isnan(x).any():
                raise InputError(
                    f"'features': feature '{name}' is missing for {int(np.isnan(x).sum())} "
                    "sampled cluster(s); fill it or leave it out"
                )
            blocks.append(x[:, None])
            columns.append(_Column(name, None, bool(np.all(x == np.round(x)))))
            continue
        cats = values.astype(object).where(values.notna(), MISSING).astype(str)
        for level in sorted(cats.unique()):
            blocks.append((cats == level).to_numpy(dtype=np.float64)[:, None])
            columns.append(_Column(name, level, False))
    if not blocks:
        raise InputError("'features' is empty; give at least one feature")
    return np.hstack(blocks), columns


#: One condition of a path: (feature, operator, value as text).
Condition = tuple[str, str, str]


def _condition(col: _Column, threshold: float, left: bool) -> Condition:
    if col.category is not None:  # one-hot: <= 0.5 means "not this category"
        return (col.feature, "!=" if left else "=", col.category)
    if col.integer:
        bound = math.floor(threshold)
        return (col.feature, "<=", str(bound)) if left else (col.feature, ">=", str(bound + 1))
    return (col.feature, "<=" if left else ">", f"{threshold:.4g}")


def error_tree(
    errors: SampleErrors,
    *,
    target: Target = "over",
    features: Sequence[str] | None = None,
    max_depth: int = 3,
    min_clusters: int = 5,
    seed: int = 0,
) -> ErrorTree:
    """Fit a weighted decision tree relating errors to features, and read it as rules.

    Parameters
    ----------
    errors : SampleErrors
        From :func:`sample_errors`.
    target : {"over", "under", "error", "ROCE", "RUCE"}, default "over"
        Classify clusters with ``OCE > 0`` (over-clustered), ``UCE > 0``
        (under-clustered) or ``EI > 0`` (any error), or regress the relative
        errors ``ROCE`` / ``RUCE``.
    features : list of str, optional
        Features of ``errors`` to use (default: all). Categorical features are
        one-hot encoded, a missing value being the category ``"(missing)"``; a
        numeric feature with missing values is an error.
    max_depth : int, default 3
    min_clusters : int, default 5
        Fewest sampled clusters in a leaf.
    seed : int, default 0
        Seed of the tree's tie-breaking between equally good splits.

    Returns
    -------
    ErrorTree

    Notes
    -----
    Each cluster is weighted by ``draws / probability``, so a leaf's value is the
    Hájek (ratio) estimate of the error rate of the entities it describes.
    Needs scikit-learn (``pip install 'ereval[analysis]'``).
    """
    target = check_choice("target", target, TARGETS)
    max_depth = check_int("max_depth", max_depth, minimum=1)
    min_clusters = check_int("min_clusters", min_clusters, minimum=1)
    names = list(errors.features) if features is None else list(features)
    for name in names:
        if name not in errors.features:
            raise InputError(
                f"'features': there is no feature '{name}'; the features are "
                f"{list(errors.features)}"
            )
    tree_module = require("sklearn.tree", feature="fitting an error tree")
    table = errors.table
    y = _target(table, target)
    x, columns = _design_matrix(table, names)
    w = table["weight"].to_numpy(dtype=np.float64)
    kind = "DecisionTreeRegressor" if target in ("ROCE", "RUCE") else "DecisionTreeClassifier"
    model = getattr(tree_module, kind)(
        max_depth=max_depth, min_samples_leaf=min_clusters, random_state=seed
    )
    model.fit(x, y if kind.endswith("Regressor") else y.astype(np.int64), sample_weight=w)
    tree = model.tree_
    leaf_of = model.apply(x)
    total = float(w.sum())
    rules: list[Rule] = []

    def walk(node: int, path: tuple[Condition, ...]) -> None:
        left, right = int(tree.children_left[node]), int(tree.children_right[node])
        if left == -1:
            mask = leaf_of == node
            wl = w[mask]
            value = float((wl * y[mask]).sum() / wl.sum())
            rules.append(Rule(_merge(path), value, int(mask.sum()), float(wl.sum()) / total))
            return
        col = columns[int(tree.feature[node])]
        thr = float(tree.threshold[node])
        walk(left, (*path, _condition(col, thr, True)))
        walk(right, (*path, _condition(col, thr, False)))

    walk(0, ())
    rules.sort(key=lambda r: (-r.value, -r.share))
    first = None if tree.node_count == 1 else columns[int(tree.feature[0])].feature
    imp: dict[str, float] = dict.fromkeys(names, 0.0)
    for col, value in zip(columns, model.feature_importances_, strict=True):
        imp[col.feature] += float(value)
    overall = float((w * y).sum() / total)
    return ErrorTree(target, tuple(rules), first, imp, overall, model)


def _merge(path: tuple[Condition, ...]) -> tuple[str, ...]:
    """The path as text: the tightest bound per feature and side, ``a <= f <= b`` (or
    ``f = a``) for two integer bounds, no ``!=`` beside an ``=`` of the same feature."""
    kept: list[Condition] = []
    for cond in path:
        feature, op, _ = cond
        if op in ("<=", ">=", ">"):  # a deeper split is tighter
            kept = [c for c in kept if (c[0], c[1]) != (feature, op)]
        elif op == "!=" and (feature, "=") in {(c[0], c[1]) for c in kept}:
            continue
        elif op == "=":
            kept = [c for c in kept if (c[0], c[1]) != (feature, "!=")]
        kept.append(cond)
    out: list[str] = []
    for feature, op, value in kept:
        upper = [c[2] for c in kept if c[0] == feature and c[1] == "<="]
        lower = [c[2] for c in kept if c[0] == feature and c[1] == ">="]
        if op == ">=" and upper:
            out.append(
                f"{feature} = {value}"
                if upper[0] == value
                else f"{value} <= {feature} <= {upper[0]}"
            )
        elif not (op == "<=" and lower):
            out.append(f"{feature} {op} {value}")
    return tuple(out)
