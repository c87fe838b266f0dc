"""Labels of the planned ranks: validation against a plan and loading from files."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import as_1d_array, check_binary_array, describe, examples
from ..io import count_rows, ranks_of, read_ranked, read_table
from ._plan import PaulaPlan

__all__ = ["PlanLabels", "align_labels", "labels_by_rank", "load_labels"]


@dataclass(frozen=True, eq=False)
class PlanLabels:
    """The labels of a plan's ranks, split into the prefix and the windows.

    Attributes
    ----------
    prefix : numpy.ndarray
        Labels of ranks ``1..plan.prefix_end`` (int8, 0/1).
    windows : numpy.ndarray
        Labels of the windows, shape ``(len(plan.window_ends), plan.delta)``; row
        ``i`` holds ranks ``window_ends[i] - delta + 1 .. window_ends[i]``.
    """

    prefix: npt.NDArray[np.int8]
    windows: npt.NDArray[np.int8]


def _integer_ranks(name: str, ranks: Any) -> npt.NDArray[np.int64]:
    arr = as_1d_array(name, ranks)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iu":
        hint = ""
        if arr.dtype.kind == "f":
            hint = " (floating-point ranks are not converted; cast them to integers first)"
        raise InputTypeError(f"'{name}' must hold integer ranks; received dtype {arr.dtype}{hint}")
    return arr.astype(np.int64)


def _range_text(values: npt.NDArray[np.int64], *, k: int = 3) -> str:
    """Render sorted integers as compact ranges, e.g. ``3-7, 12 and 4 more ranges``."""
    if values.size == 0:
        return ""
    breaks = np.flatnonzero(np.diff(values) != 1) + 1
    starts = np.concatenate([[0], breaks])
    stops = np.concatenate([breaks, [values.size]]) - 1
    parts = []
    for a, b in zip(starts[:k], stops[:k], strict=False):
        lo, hi = int(values[a]), int(values[b])
        parts.append(str(lo) if lo == hi else f"{lo}-{hi}")
    more = starts.size - len(parts)
    return ", ".join(parts) + (f" and {more} more range(s)" if more > 0 else "")


def align_labels(plan: PaulaPlan, ranks: Any, labels: Any) -> PlanLabels:
    """Check that ``ranks`` are exactly the plan's ranks and arrange ``labels`` by rank.

    Parameters
    ----------
    plan : PaulaPlan
        The plan the labels were collected for.
    ranks : array-like of int
        1-based ranks, one per label, in any order.
    labels : array-like of {0, 1} or bool
        The true label of each rank.

    Returns
    -------
    PlanLabels

    Raises
    ------
    InputError
        Labels and ranks of different lengths, duplicate ranks, ranks outside
        ``1..n``, ranks that are not in the plan, planned ranks without a label, or
        labels other than 0 and 1.
    """
    r = _integer_ranks("ranks", ranks)
    v = check_binary_array("labels", labels)
    if r.size != v.size:
        raise InputError(
            f"'ranks' and 'labels' must have the same length; received {r.size} ranks "
            f"and {v.size} labels"
        )
    order = np.argsort(r, kind="stable")
    r = r[order]
    v = v[order]
    dup = r[1:][r[1:] == r[:-1]]
    if dup.size:
        uniq = np.unique(dup)
        raise InputError(
            f"'ranks' has {uniq.size} rank(s) labelled more than once (e.g. {examples(uniq)})"
        )
    outside = r[(r < 1) | (r > plan.n)]
    if outside.size:
        raise InputError(
            f"'ranks' must lie in 1..{plan.n} (the length of the list); received "
            f"{outside.size} rank(s) outside it (e.g. {examples(outside)})"
        )
    extra = r[~plan.contains(r)]
    if extra.size:
        raise InputError(
            f"'ranks' has {extra.size} rank(s) that are not in the plan: "
            f"{_range_text(extra)}; label exactly the planned ranks "
            f"(plan.ranks(); drop others with plan.contains(ranks))"
        )
    expected = plan.ranks()
    if r.size != expected.size:
        missing = np.setdiff1d(expected, r, assume_unique=True)
        raise InputError(
            f"{missing.size} planned rank(s) have no label: {_range_text(missing)} "
            f"(the plan needs {expected.size} labels; received {r.size})"
        )
    prefix = v[: plan.prefix_end].copy()
    windows = v[plan.prefix_end :].reshape(plan.window_ends.size, plan.delta).copy()
    return PlanLabels(prefix=prefix, windows=windows)


def load_labels(
    source: Any,
    *,
    rank_column: str = "rank",
    label_column: str = "label",
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int8]]:
    """Read ``(rank, label)`` pairs for :func:`paula_bounds`.

    Parameters
    ----------
    source : path, DataFrame, mapping or iterable of pairs
        A CSV or Parquet file (read by :func:`ereval.io.read_table`) or a pandas
        DataFrame with columns ``rank_column`` and ``label_column``; a mapping
        ``{rank: label}``; or an iterable of ``(rank, label)`` pairs.
    rank_column, label_column : str
        Column names, ``"rank"`` and ``"label"`` by default.

    Returns
    -------
    ranks : numpy.ndarray of int64
    labels : numpy.ndarray of int8 (0/1)

    Raises
    ------
    InputError
        Missing columns, missing values, non-integer ranks or labels other than 0/1.

    References
    ----------
    Sabharwal and Sedghi (2017), Algorithm 2: the labels :math:`v(t_i)` of the
    planned ranks.

    Examples
    --------
    >>> from ereval.paula import load_labels
    >>> ranks, labels = load_labels([(1, 1), (2, 0), (3, True)])
    >>> ranks.tolist(), labels.tolist()
    ([1, 2, 3], [1, 0, 1])
    """
    if isinstance(source, str | os.PathLike):
        frame = read_table(source, name="labels")
        where = f" in '{source}'"
    elif isinstance(source, pd.DataFrame):
        frame = source
        where = ""
    elif isinstance(source, Mapping):
        return _pairs(list(source.items()))
    elif isinstance(source, Iterable):
        return _pairs(list(source))
    else:
        raise InputTypeError(
            "'labels' must be a CSV/Parquet path, a DataFrame, a mapping rank -> label or "
            f"(rank, label) pairs; received {describe(source)}"
        )
    for col in (rank_column, label_column):
        if col not in frame.columns:
            raise InputError(
                f"labels{where} need a '{col}' column; found columns {list(map(str, frame.columns))}"
            )
    for col in (rank_column, label_column):
        if frame[col].isna().any():
            raise InputError(
                f"column '{col}'{where} has {int(frame[col].isna().sum())} missing value(s)"
            )
    ranks = _integer_ranks(rank_column, frame[rank_column].to_numpy())
    labels = check_binary_array(label_column, frame[label_column].to_numpy())
    return ranks, labels


def _pairs(items: list[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int8]]:
    for i, item in enumerate(items):
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise InputTypeError(
                f"'labels' must hold (rank, label) pairs; item {i} is {describe(item)}"
            )
    ranks = _integer_ranks("rank", [p[0] for p in items]) if items else np.empty(0, np.int64)
    labels = check_binary_array("label", [p[1] for p in items]) if items else np.empty(0, np.int8)
    return ranks, labels


def labels_by_rank(
    labels: str | os.PathLike[str],
    ranked: str | os.PathLike[str],
    *,
    rank_col: str = "rank",
    label_col: str = "label",
    id_col: str = "item_id",
    score_col: str | None = None,
    id_option: str = "id_col",
    score_option: str = "score_col",
) -> tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int8]]:
    """The length of a ranked list and the ``(rank, label)`` pairs of its labels.

    The labels name their items by rank (column ``rank_col``) or by item id
    (column ``id_col``, matched to the list read by :func:`ereval.io.read_ranked`).
    With ``score_col`` the ranks come from the scores of ``ranked``, so the labels
    must name their items by id. Without it, and with a rank column, only the
    list's length is read.

    Parameters
    ----------
    labels, ranked : path
        The labels (CSV/Parquet, columns ``label_col`` and ``rank_col`` or
        ``id_col``) and the ranked list, best first (or by ``score_col``).
    rank_col, label_col, id_col, score_col : str
        Column names.
    id_option, score_option : str
        The names of the options choosing ``id_col`` and ``score_col``, used in
        errors (the CLI passes its flags).

    Returns
    -------
    n : int
        The number of items of the list.
    ranks : numpy.ndarray of int64
    labels : numpy.ndarray of int8 (0/1)

    Raises
    ------
    InputError
        A missing column, an id of the labels not in the list, or any error of
        :func:`ereval.io.read_ranked` and :func:`load_labels`.

    References
    ----------
    Sabharwal and Sedghi (2017), Algorithm 2: the labels :math:`v(t_i)` of the
    planned ranks :math:`t_i` of the list.
    """
    frame = read_table(labels, name="labels", text_columns=(id_col,))
    found = list(map(str, frame.columns))
    if label_col not in frame.columns:
        raise InputError(f"'labels': '{labels}' needs a '{label_col}' column; found {found}")
    if rank_col in frame.columns and score_col is None:
        ranks, values = load_labels(frame, rank_column=rank_col, label_column=label_col)
        return count_rows(ranked, name="ranked"), ranks, values
    if id_col not in frame.columns:
        why = (
            f"a '{id_col}' column (with {score_option} the ranks come from the ranked list)"
            if rank_col in frame.columns
            else f"a '{rank_col}' or an '{id_col}' column"
        )
        raise InputError(f"'labels': '{labels}' needs {why}; found {found}")
    order = read_ranked(
        ranked, id_col=id_col, score_col=score_col, id_option=id_option, score_option=score_option
    )
    ranks = ranks_of(order, frame[id_col].to_numpy(), name="labels")
    ranks, values = load_labels(pd.DataFrame({"rank": ranks, "label": frame[label_col]}))
    return int(order.size), ranks, values
