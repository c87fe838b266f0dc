"""Reading scored pairs against a true clustering into dense integer arrays.

Pairs are read by :func:`ereval.io.as_pairs` (found by column names; self-pairs,
missing ids and pairs repeated in either order are errors) and their record ids
are matched to the truth's exactly as everywhere else (:func:`ereval.io.align`).
The curves (:mod:`ereval.curves`) and the metrics of scored pairs read them here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._errors import InputError, InputTypeError, RecordMismatchError, RepeatedPairsError
from .._validation import check_choice, describe, examples
from ._align import check_link_only, locate_pairs
from ._files import file_spec, header, read_arrow
from ._ids import IdType, factorize, in_id_order, take, to_numpy, union
from ._keys import Columns, column_names, key_ids
from ._memberships import read_membership
from ._pairs import as_pairs, pairs_frame

__all__ = ["CURVE_MISMATCH_POLICIES", "CurveMismatchPolicy", "ScoredPairs", "read_scored_pairs"]

CurveMismatchPolicy = Literal["error", "intersection"]
#: The accepted values of ``on_mismatch`` for scored pairs.
CURVE_MISMATCH_POLICIES: tuple[CurveMismatchPolicy, ...] = ("error", "intersection")

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class ScoredPairs:
    """Scored pairs over the records of a true clustering, as dense codes.

    ``true_of[r]`` is the true cluster (``0..K-1``) of record ``r`` (``0..N-1``,
    in the truth's order); pair ``k`` joins records ``left[k]`` and ``right[k]``
    with score ``scores[k]``. ``n_dropped`` pairs naming records absent from the
    truth were left out (``on_mismatch="intersection"``). For a link-only
    evaluation, ``source_of[r]`` is the data set of record ``r`` (``0..S-1``).
    """

    true_of: IntArray
    left: IntArray
    right: IntArray
    scores: npt.NDArray[np.float64]
    n_dropped: int = 0
    source_of: IntArray | None = None

    @property
    def n_records(self) -> int:
        """N, the number of records of the truth."""
        return int(self.true_of.shape[0])

    @property
    def n_pairs(self) -> int:
        """The number of scored pairs kept."""
        return int(self.scores.shape[0])


def _table(data: Any, cols: list[str], id_cols: list[str]) -> Any:
    """A pyarrow table of a pairs file (id columns as text), or ``data`` itself."""
    if isinstance(data, str | os.PathLike):
        spec = file_spec(data, name="pairs")
        present = header(spec, name="pairs")
        absent = [c for c in cols if c not in present and c not in id_cols]
        if absent:  # the score column: named with the file's own columns
            raise InputError(
                f"'pairs' has no score column {absent[0]!r}; its columns are "
                f"{present[:10]!r} (set 'score_col' to choose another)"
            )
        wanted = [c for c in dict.fromkeys(cols) if c in present]
        return read_arrow(spec, name="pairs", text_columns=id_cols, columns=wanted)
    return data


def _scores(
    table: Any, score_col: str, lcols: list[str], rcols: list[str]
) -> npt.NDArray[np.float64]:
    names = getattr(table, "column_names", None)
    if names is None:
        names = [str(c) for c in getattr(table, "columns", [])]
    if score_col not in names:
        raise InputError(
            f"'pairs' has no score column {score_col!r}; its columns are "
            f"{list(names)[:10]!r} (set 'score_col' to choose another)"
        )
    column = table[score_col]
    if len(column) == 0:  # no pair: no score, of whatever type the column was read
        return np.zeros(0)
    if isinstance(column, pa.ChunkedArray | pa.Array):
        if not (
            pa.types.is_integer(column.type)
            or pa.types.is_floating(column.type)
            or pa.types.is_decimal(column.type)  # as the nearest double, as the engines do
            or pa.types.is_boolean(column.type)
        ):
            held = str(column.type)
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                held = text_scores_held(column.drop_null().slice(0, 1000).to_pylist())
            raise InputTypeError(
                f"'score_col': column {score_col!r} of 'pairs' must hold numbers; it holds {held}"
            )
        values = np.asarray(
            column.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64
        )
    else:
        raw = column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)
        if raw.dtype.kind not in "biuf" and not (
            raw.dtype == object and all(isinstance(v, int | float) for v in raw[:1000])
        ):
            text = [v for v in raw[:1000] if isinstance(v, str)]
            held = text_scores_held(text) if text else describe(raw)
            raise InputTypeError(
                f"'score_col': column {score_col!r} of 'pairs' must hold numbers; it holds {held}"
            )
        values = np.asarray(raw, dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        pos = np.flatnonzero(bad)
        raise InputError(
            f"'score_col': column {score_col!r} of 'pairs' has {pos.size} missing, NaN or "
            f"infinite score(s) (e.g. the pair {_least_pair(table, lcols, rcols, pos)}); every "
            "pair needs a finite score"
        )
    # -0.0 and 0.0 are one score (equal, so tied): written 0.0 whichever comes first
    return values + 0.0


def _least_pair(table: Any, lcols: list[str], rcols: list[str], rows: IntArray) -> str:
    """The least of the pairs at ``rows``, in the order of its ids (missing ids last),
    as the SQL engines name it."""
    left, right = (to_numpy(take(key_ids(table, c, name="pairs"), rows)) for c in (lcols, rcols))
    pairs = zip(left.tolist(), right.tolist(), strict=True)
    least = min(pairs, key=lambda pair: tuple((v is None, v) for v in pair))
    return repr(least)


def _repeated_error(
    table: Any, lcols: list[str], rcols: list[str], scores: npt.NDArray[np.float64]
) -> RepeatedPairsError:
    """The error for pairs given more than once, naming the least of them in the order
    of the ids (as the SQL engines name it), its two ids in that order, and its scores
    in the order of its rows."""
    left = key_ids(table, lcols, name="pairs")
    right = key_ids(table, rcols, name="pairs")
    ids, a, b = union(left, right)
    n = max(len(ids), 1)
    order_of_ids = in_id_order(ids, np.arange(len(ids), dtype=np.int64))  # as SQL orders them
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order_of_ids] = np.arange(len(ids), dtype=np.int64)
    ra, rb = rank[a], rank[b]
    key = np.minimum(ra, rb) * np.int64(n) + np.maximum(ra, rb)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    dup = np.flatnonzero(ks[1:] == ks[:-1])
    n_surplus = int(dup.size)
    least = int(ks[dup[0]])  # the keys are in order: the first repeated is the least
    rows = order[ks == least]
    ends = order_of_ids[[least // n, least % n]]
    pair = tuple(to_numpy(take(ids, ends)).tolist())
    given = ", ".join(f"{scores[r]:g} (row {int(r)})" for r in rows[:4])
    return RepeatedPairsError(
        f"'pairs' has {n_surplus} repeated pair(s) (in either order), e.g. {pair!r} scored "
        f"{given}; give each pair once, with one score",
        name="pairs",
        n_repeated=n_surplus,
    )


def read_scored_pairs(
    truth: Any,
    pairs: Any,
    *,
    score_col: str | None = "score",
    left_col: Columns = "record_id_1",
    right_col: Columns = "record_id_2",
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    on_mismatch: CurveMismatchPolicy = "error",
    id_type: IdType = "exact",
    link_only: bool = False,
    source_col: Columns | None = None,
    allow_empty: bool = False,
) -> ScoredPairs:
    """Validate a true clustering and scored pairs and code both densely.

    Parameters
    ----------
    truth : clustering
        Any form of :func:`ereval.io.as_membership`.
    pairs : table or path
        A pandas, polars or pyarrow table, or a CSV / Parquet file, with the two
        record id columns and the score column.
    score_col : str or None, default "score"
        The score column: pairs with a score ``>= t`` are accepted at threshold ``t``.
        ``None`` reads unscored pairs (every pair gets the score 1).
    left_col, right_col : str or list of str
        The record id columns of a pair (a list makes a key of several columns).
    record_col, cluster_col : str or list of str
        The columns of the truth.
    on_mismatch : {"error", "intersection"}, default "error"
        Pairs naming records absent from the truth: raise, or drop those pairs.
    id_type : {"exact", "string"}, default "exact"
        As in :func:`ereval.io.align`.
    link_only, source_col
        As in :func:`ereval.io.align`: ``source_col`` is the column of the
        truth naming each record's data set. A pair of two records of one data set
        is then an error.
    allow_empty : bool, default False
        Accept no pair at all (a prediction of no link) rather than raise.
    """
    policy = check_choice("on_mismatch", on_mismatch, CURVE_MISMATCH_POLICIES)
    source = check_link_only(link_only, source_col)
    id_type = check_choice("id_type", id_type, ("exact", "string"))
    if score_col is not None and (not isinstance(score_col, str) or not score_col):
        raise InputTypeError(f"'score_col' must be a column name; received {describe(score_col)}")
    lcols = column_names(left_col, name="left_col")
    rcols = column_names(right_col, name="right_col")
    t = read_membership(
        truth, name="truth", record_col=record_col, cluster_col=cluster_col, source_col=source
    )[0]
    extra = [] if score_col is None else [score_col]
    pairs = pairs_frame(pairs, left_col=lcols, right_col=rcols)
    table = _table(pairs, [*lcols, *rcols, *extra], [*lcols, *rcols])
    if isinstance(table, list | tuple | np.ndarray):
        raise InputTypeError(
            "'pairs' must be a table or a CSV/Parquet file with a score column; "
            f"received {describe(table)}"
        )
    scores = None if score_col is None else _scores(table, score_col, lcols, rcols)
    try:
        pl = as_pairs(table, name="pairs", left_col=left_col, right_col=right_col)
    except RepeatedPairsError:
        if scores is not None:
            raise _repeated_error(table, lcols, rcols, scores) from None
        raise
    if scores is None:
        scores = np.ones(len(pl))
    if len(pl) == 0:
        if not allow_empty:
            raise InputError("'pairs' is empty; expected at least one scored pair")
        none = np.zeros(0, dtype=np.int64)
        true_of, _ = factorize(t.cluster_ids)
        sources = None if t.sources is None else factorize(t.sources)[0]
        return ScoredPairs(true_of, none, none.copy(), np.zeros(0), 0, sources)
    lrec, rrec, left, right = locate_pairs(t, pl, id_type=id_type)
    unknown = (lrec < 0) | (rrec < 0)
    n_dropped = 0
    if unknown.any():
        if policy == "error":
            first = np.flatnonzero(unknown)[:3]
            bad = [to_numpy(take(left if lrec[k] < 0 else right, np.array([k])))[0] for k in first]
            raise RecordMismatchError(
                f"'pairs' has {int(unknown.sum())} pair(s) naming records absent from 'truth' "
                f"(e.g. {examples(bad)}); pass on_mismatch='intersection' to drop them"
            )
        keep = ~unknown
        n_dropped = int(unknown.sum())
        if not keep.any():
            raise RecordMismatchError("no pair of 'pairs' joins two records of 'truth'")
        lrec, rrec, scores = lrec[keep], rrec[keep], scores[keep]
    true_of, _ = factorize(t.cluster_ids)
    source_of = None
    if t.sources is not None:
        source_of, labels = factorize(t.sources)
        inside = source_of[lrec] == source_of[rrec]
        if inside.any():
            k = int(np.flatnonzero(inside)[0])
            pair = (
                to_numpy(take(t.record_ids, lrec[k : k + 1]))[0],
                to_numpy(take(t.record_ids, rrec[k : k + 1]))[0],
            )
            raise InputError(
                f"'pairs' has {int(inside.sum())} pair(s) of two records of one data set "
                f"(e.g. {pair!r}, both of {labels[source_of[lrec[k]]]!r}); a link-only "
                "evaluation scores pairs across data sets only: leave those pairs out, or "
                "evaluate without link_only"
            )
    return ScoredPairs(true_of, lrec, rrec, scores, n_dropped, source_of)


def text_scores_held(values: list[str]) -> str:
    """What a column of text scores holding ``values`` (some of them) holds, as every
    engine says it: the values that are not numbers, else the numbers written as text.

    Examples
    --------
    >>> text_scores_held(["0.5", "high"]), text_scores_held(["0.5"]), text_scores_held([])
    ("text such as 'high'", "text such as '0.5'", 'text, every value missing')
    """

    def number(v: str) -> bool:
        try:
            float(v)
        except ValueError:
            return False
        return True

    bad = [v for v in values if not number(v)] or values
    return f"text such as {examples(bad)}" if bad else "text, every value missing"
