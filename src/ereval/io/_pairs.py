"""Predicted pairs of records: :func:`as_pairs` reads them into a :class:`PairList`.

Pairs are found by column names, never by position; self-pairs, missing ids and
pairs repeated in either order are errors (:class:`~ereval.RepeatedPairsError`
for the last). A pandas MultiIndex of record pairs (as recordlinkage gives its
links) is read as two columns.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError, InputTypeError, RepeatedPairsError
from .._optional import instance_of
from .._validation import describe
from ._files import read_arrow
from ._ids import IdArray, check_no_missing, object_array, take, to_arrow_ids, to_numpy, union
from ._keys import (
    Columns,
    KeyParts,
    column_names,
    describe_kinds,
    id_kinds,
    kinds_clash,
    read_key,
    table_columns,
)

__all__ = ["PairList", "as_pairs", "pairs_frame"]


class PairList:
    """Predicted matching record pairs, not necessarily transitive.

    ``left[k]`` and ``right[k]`` are predicted to refer to the same entity.
    Self-pairs and repeated pairs (in either order) are rejected on input.
    """

    __slots__ = ("left_ids", "left_key", "right_ids", "right_key")

    def __init__(
        self,
        left: Any,
        right: Any,
        *,
        left_key: KeyParts | None = None,
        right_key: KeyParts | None = None,
    ) -> None:
        self.left_ids: IdArray = to_arrow_ids(left)
        self.right_ids: IdArray = to_arrow_ids(right)
        #: The parts of keys of several columns (``None`` for one column per side).
        self.left_key = left_key
        self.right_key = right_key

    def __len__(self) -> int:
        return len(self.left_ids)

    @property
    def left(self) -> npt.NDArray[Any]:
        """First record of every pair, as a NumPy array."""
        return to_numpy(self.left_ids)

    @property
    def right(self) -> npt.NDArray[Any]:
        """Second record of every pair, as a NumPy array."""
        return to_numpy(self.right_ids)


def pairs_frame(data: Any, *, left_col: Columns, right_col: Columns) -> Any:
    """Pairs held in a pandas MultiIndex of two levels, as recordlinkage gives them, as
    a table with the columns ``left_col`` and ``right_col``; anything else unchanged.

    A MultiIndex becomes the two columns; a Series or DataFrame indexed by one
    keeps its values as columns (a Series under its name, or ``"score"``).
    """
    index = data if instance_of(data, "pandas", "MultiIndex") else getattr(data, "index", None)
    if (
        index is None
        or not instance_of(index, "pandas", "MultiIndex")
        or not instance_of(data, "pandas", "Index", "Series", "DataFrame")
    ):
        return data
    import pandas as pd  # already imported: ``data`` is a pandas object

    if index.nlevels != 2:
        raise InputError(
            f"'pairs': a MultiIndex of pairs needs 2 levels (one per record); it has {index.nlevels}"
        )
    lcols = column_names(left_col, name="left_col")
    rcols = column_names(right_col, name="right_col")
    if len(lcols) != 1 or len(rcols) != 1:
        raise InputError("'pairs': a MultiIndex of pairs holds one record id column per side")
    frame = pd.DataFrame({lcols[0]: index.get_level_values(0), rcols[0]: index.get_level_values(1)})
    if isinstance(data, pd.Series):
        frame[data.name if isinstance(data.name, str) else "score"] = data.to_numpy()
    elif isinstance(data, pd.DataFrame):
        for col in data.columns:
            frame[str(col)] = data[col].to_numpy()
    return frame


def as_pairs(
    data: Any,
    *,
    name: str = "pairs",
    left_col: Columns = "record_id_1",
    right_col: Columns = "record_id_2",
) -> PairList:
    """Validate predicted matching pairs.

    Accepts a :class:`PairList`, a table (pandas, polars, pyarrow) with the
    columns ``left_col`` and ``right_col``, a CSV or Parquet path, a list of
    2-tuples, or an ``(n, 2)`` array. The two columns are found by name, never
    by position. Self-pairs, missing ids and pairs repeated in either order are
    errors.
    """
    if isinstance(data, PairList):
        return data
    left_cols = column_names(left_col, name="left_col")
    right_cols = column_names(right_col, name="right_col")
    data = pairs_frame(data, left_col=left_cols, right_col=right_cols)
    if isinstance(data, str | os.PathLike):
        data = read_arrow(data, name=name, text_columns="all")
    module = type(data).__module__
    if instance_of(data, "pandas", "DataFrame") or module.startswith(("polars", "pyarrow")):
        cols = table_columns(data, name=name)
        missing = [c for c in left_cols + right_cols if c not in cols]
        if missing:
            hint = ""
            if "record_id" in cols and "cluster_id" in cols:
                hint = "; it looks like a clustering (record_id, cluster_id), not a list of pairs"
            raise InputError(
                f"'{name}' has no column(s) {', '.join(repr(m) for m in missing)}; "
                f"its columns are {cols[:10]!r}{' ...' if len(cols) > 10 else ''} "
                f"(set 'left_col' / 'right_col' to choose others){hint}"
            )
        lv, lkey = read_key(data, left_cols, name=name)
        rv, rkey = read_key(data, right_cols, name=name)
    elif isinstance(data, np.ndarray | list | tuple):
        items = list(data)
        if any(not isinstance(p, tuple | list | np.ndarray) or len(p) != 2 for p in items):
            raise InputTypeError(f"'{name}' must hold pairs (2-tuples) of record ids")
        lv = to_arrow_ids(object_array(p[0] for p in items))
        rv = to_arrow_ids(object_array(p[1] for p in items))
        lkey = rkey = None
    else:
        raise InputTypeError(
            f"'{name}' must be a table of pairs, a list of 2-tuples or a CSV/Parquet path; "
            f"received {describe(data)}"
        )
    check_no_missing(lv, name=name, what="record ids (first column)")
    check_no_missing(rv, name=name, what="record ids (second column)")
    if len(lv) == 0:
        return PairList(lv, rv, left_key=lkey, right_key=rkey)  # no pair: nothing predicted
    kl, kr = id_kinds(lv, lkey), id_kinds(rv, rkey)
    if kinds_clash(kl, kr):
        raise InputTypeError(
            f"'{name}': the first column holds {describe_kinds(kl)} ids and the second "
            f"{describe_kinds(kr)} ids; give both columns the same type"
        )
    _ids, a, b = union(lv, rv)
    n = len(lv)
    if (a == b).any():
        k = int(np.flatnonzero(a == b)[0])
        raise InputError(
            f"'{name}' pairs a record with itself (e.g. {to_numpy(take(lv, np.array([k])))[0]!r} "
            f"at row {k})"
        )
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = lo * np.int64(len(_ids)) + hi
    uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
    if uniq.shape[0] != n:
        k = int(first[np.flatnonzero(counts > 1)[0]])
        pair = (to_numpy(take(lv, np.array([k])))[0], to_numpy(take(rv, np.array([k])))[0])
        raise RepeatedPairsError(
            f"'{name}' has {n - uniq.shape[0]} repeated pair(s) (in either order), "
            f"e.g. {pair!r}; give each predicted pair once",
            name=name,
            n_repeated=n - int(uniq.shape[0]),
        )
    return PairList(lv, rv, left_key=lkey, right_key=rkey)
