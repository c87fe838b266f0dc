"""Ranked lists: the items of a list in rank order, read by one set of rules.

A ranked list is a CSV/TSV/Parquet file (read by :func:`ereval.io.read_table`)
with one row per item, best first. With a score column the ranking is by
decreasing score instead, ties keeping file order (a stable sort). Item ids are
read exactly as written (``"01"`` is not ``"1"``); a missing id, an id listed
twice, a score that is not a finite number, and a missing column are errors.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import examples
from ._files import read_table

__all__ = ["ranks_of", "read_ranked"]


def read_ranked(
    path: str | os.PathLike[str],
    *,
    id_col: str,
    score_col: str | None = None,
    id_option: str = "id_col",
    score_option: str = "score_col",
) -> npt.NDArray[Any]:
    """The item ids of a ranked list, rank 1 first.

    Parameters
    ----------
    path : path
        The ranked list: one row per item, best first (file order) unless
        ``score_col`` is given.
    id_col : str
        The column of item ids, read as written (text stays text).
    score_col : str, optional
        A column of scores: items are ranked by decreasing score, ties keeping
        file order.
    id_option, score_option : str
        The names of the options that chose ``id_col`` and ``score_col``, used
        in the error naming a missing column (the CLI passes its flags).

    Returns
    -------
    numpy.ndarray
        The ids, ``ids[r - 1]`` being the item of rank ``r``.

    Raises
    ------
    InputError
        A column that is missing, a missing or repeated id, or a score that is
        not a finite number.
    """
    frame = read_table(path, name="ranked", text_columns=(id_col,))
    for col, option in ((id_col, id_option), (score_col, score_option)):
        if col is not None and col not in frame.columns:
            raise InputError(
                f"'{option}': no column '{col}' in the ranked list '{path}'; "
                f"found {list(map(str, frame.columns))}"
            )
    ids = frame[id_col]
    if ids.isna().any():
        raise InputError(
            f"'ranked': column '{id_col}' of '{path}' has {int(ids.isna().sum())} missing id(s)"
        )
    repeated = ids[ids.duplicated()].unique()
    if len(repeated):
        raise InputError(
            f"'ranked': item ids in column '{id_col}' of '{path}' must be unique; "
            f"{len(repeated)} repeat (e.g. {examples(list(repeated))})"
        )
    values: npt.NDArray[Any] = np.asarray(ids.to_numpy())
    if score_col is None:
        return values
    try:
        scores = frame[score_col].to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise InputError(
            f"'ranked': column '{score_col}' must hold numeric scores; received dtype "
            f"{frame[score_col].dtype}"
        ) from None
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        raise InputError(
            f"'ranked': column '{score_col}' must hold finite scores; received {bad.size} "
            f"missing or infinite score(s) (first in row {int(bad[0]) + 1})"
        )
    return values[np.argsort(-scores, kind="stable")]


def ranks_of(order: npt.NDArray[Any], ids: Any, *, name: str = "labels") -> npt.NDArray[np.int64]:
    """The 1-based rank of each of ``ids`` in ``order`` (as :func:`read_ranked` gives it).

    Raises
    ------
    InputError
        Ids that are not items of the list (the message names ``name``).
    """
    import pandas as pd

    pos: npt.NDArray[np.intp] = pd.Index(order).get_indexer(np.asarray(ids))
    unknown = pos < 0
    if unknown.any():
        missing = np.asarray(ids)[unknown]
        raise InputError(
            f"'{name}': {missing.size} item id(s) are not in the ranked list "
            f"(e.g. {examples(list(missing))})"
        )
    return pos.astype(np.int64) + 1
