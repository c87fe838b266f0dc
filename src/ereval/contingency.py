"""The sparse contingency table shared by every clustering metric.

For a true clustering with clusters ``T_1..T_K`` and a predicted clustering with
clusters ``P_1..P_R``, the table holds the non-zero counts
``n_ij = |T_i ∩ P_j|`` (as coordinate lists sorted by ``(i, j)``) and the
marginals ``a_i = |T_i|`` and ``b_j = |P_j|``. Only non-zero cells are stored:
their number is at most the number of records, whatever ``K`` and ``R`` are.

When the two clusterings cover different record sets the caller chooses
(``on_mismatch``): raise an error (default), keep only the records in both
(``"intersection"``), keep every record (``"twinless"``, as the
coreference literature scores twinless mentions), or complete a prediction
that leaves out records of the truth with a singleton cluster for each
(``"singletons"``, as linkers that write no singleton mean it). In the twinless
case the marginals count each side's own records, so ``a_i`` may exceed
``sum_j n_ij``.
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal, TypedDict, Unpack

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ._errors import InputError, InputTypeError, RecordMismatchError
from ._packed import PackedSide, cells_of_sorted, pack_side, paired_cells
from ._validation import check_choice, describe, examples
from .ids import (
    IdArray,
    IdType,
    dense_int_span,
    encode,
    int_offsets,
    same_ids,
    same_text_set,
    take,
    to_numpy,
    union,
)
from .io import (
    Columns,
    Membership,
    comparable_ids,
    duplicate_error,
    duplicates_of,
    id_type_error,
    kinds_clash,
    read_membership,
)
from .link_only import SourcePairs, source_pairs

__all__ = [
    "AlignOptions",
    "Alignment",
    "ContingencyTable",
    "IdenticalColumnsWarning",
    "MISMATCH_POLICIES",
    "MismatchPolicy",
    "align",
    "check_link_only",
    "contingency_table",
    "count_cells",
    "id_type_error",
    "mismatch_error",
    "pair_count",
]

MismatchPolicy = Literal["error", "intersection", "twinless", "singletons"]
#: The accepted values of ``on_mismatch``.
MISMATCH_POLICIES: tuple[MismatchPolicy, ...] = ("error", "intersection", "twinless", "singletons")
_ID_TYPES: tuple[IdType, ...] = ("exact", "string")

IntArray = npt.NDArray[np.int64]


class AlignOptions(TypedDict, total=False):
    """The options of :func:`align`, accepted by every function that reads two clusterings."""

    on_mismatch: MismatchPolicy
    record_col: Columns
    cluster_col: Columns
    truth_record_col: Columns | None
    truth_cluster_col: Columns | None
    pred_record_col: Columns | None
    pred_cluster_col: Columns | None
    id_type: IdType
    link_only: bool
    source_col: Columns | None


class IdenticalColumnsWarning(UserWarning):
    """The prediction holds the very cluster ids of the truth, read from a column of the
    same name: it is probably the truth itself, read by mistake."""


@dataclass(frozen=True, eq=False)
class Alignment:
    """Two clusterings factorised over the union of their records.

    ``true_codes[k]`` / ``pred_codes[k]`` is the cluster code of record
    ``records[k]`` on each side, or ``-1`` where the record is absent from that
    side (only with ``on_mismatch="twinless"``). ``true_labels[c]`` is the
    original id of true cluster code ``c`` (likewise ``pred_labels``). Codes are
    small non-negative integers, but a code need not be used by any record
    (integer cluster ids are coded by offset from their minimum). Ids are
    :data:`ereval.ids.IdArray` columns (Arrow text or NumPy arrays). For a
    link-only evaluation, ``sources[k]`` is the data set (``0..n_sources-1``) of
    record ``k`` as the truth gives it (``-1`` for a record the truth lacks).
    """

    records: IdArray
    true_codes: IntArray
    pred_codes: IntArray
    true_labels: IdArray
    pred_labels: IdArray
    policy: MismatchPolicy = "error"
    sources: IntArray | None = None
    n_sources: int = 0

    @property
    def n_true_codes(self) -> int:
        """Number of true cluster codes (an upper bound on the number of clusters)."""
        return len(self.true_labels)

    @property
    def n_pred_codes(self) -> int:
        """Number of predicted cluster codes (an upper bound on the number of clusters)."""
        return len(self.pred_labels)

    def record_cells(self) -> tuple[ContingencyTable, IntArray, IntArray]:
        """The table, and each record's row and column in it (``-1`` where absent)."""
        tab = self.table()
        rows = _compacted(self.true_codes, self.n_true_codes)
        cols = _compacted(self.pred_codes, self.n_pred_codes)
        return tab, rows, cols

    def table(self) -> ContingencyTable:
        """Build the sparse contingency table of this alignment (with its pair counts
        within data sets, :class:`~ereval.link_only.SourcePairs`, when link-only)."""
        table = ContingencyTable.from_codes(
            self.true_codes,
            self.pred_codes,
            n_true_codes=self.n_true_codes,
            n_pred_codes=self.n_pred_codes,
            policy=self.policy,
        )
        if self.sources is None:
            return table
        within = source_pairs(self.true_codes, self.pred_codes, self.sources, self.n_sources)
        return replace(table, within_source=within, _cache={})


def _comparable(t: Membership, p: Membership, id_type: IdType) -> tuple[IdArray, IdArray]:
    rt, kt = comparable_ids(t.record_ids, t.key, id_type, name="truth")
    if len(p) == 0:  # an empty prediction: no id to compare, of whatever type it was read
        return rt, take(rt, np.zeros(0, dtype=np.int64))
    rp, kp = comparable_ids(p.record_ids, p.key, id_type, name="pred")
    if kinds_clash(kt, kp):
        raise id_type_error(kt, kp, to_numpy(rt[:2]), to_numpy(rp[:2]))
    return rt, rp


def _same_source(truth: Any, pred: Any) -> bool:
    if truth is pred:
        return True
    if isinstance(truth, str | os.PathLike) and isinstance(pred, str | os.PathLike):
        try:
            return os.path.samefile(truth, pred)
        except OSError:
            return False
    return False


def _warn_if_identical(
    t: Membership,
    p: Membership,
    t_cols: list[str] | None,
    p_cols: list[str] | None,
    stacklevel: int = 3,
) -> None:
    if t_cols is None or t_cols != p_cols or len(t) != len(p):
        return
    if same_ids(t.record_ids, p.record_ids) and same_ids(t.cluster_ids, p.cluster_ids):
        warnings.warn(
            f"'truth' and 'pred' read the cluster column {t_cols[0]!r} and hold the same "
            "cluster id for every record: the prediction is the truth itself. Name the "
            "prediction's own column with pred_cluster_col.",
            IdenticalColumnsWarning,
            stacklevel=stacklevel,
        )


def align(
    truth: Any,
    pred: Any,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    truth_record_col: Columns | None = None,
    truth_cluster_col: Columns | None = None,
    pred_record_col: Columns | None = None,
    pred_cluster_col: Columns | None = None,
    id_type: IdType = "exact",
    link_only: bool = False,
    source_col: Columns | None = None,
) -> Alignment:
    """Factorise two clusterings once over the union of their record ids.

    Parameters
    ----------
    truth, pred : clustering
        Any form accepted by :func:`ereval.io.as_membership`.
    on_mismatch : {"error", "intersection", "twinless", "singletons"}, default "error"
        What to do when the record sets differ: raise
        :class:`~ereval.RecordMismatchError` naming how many records are only on
        each side (with examples); keep only the common records; keep all
        records, each absent side coded ``-1``; or make each record of the truth
        that the prediction lacks a predicted cluster of its own (records of the
        prediction only are then still an error). Such a cluster has no id: its
        label is missing (``None``).
    record_col, cluster_col : str or list of str
        Column names for tables and files, on both sides (a list makes a key of
        several columns).
    truth_record_col, truth_cluster_col, pred_record_col, pred_cluster_col : str or list, optional
        The same for one side only, overriding ``record_col`` / ``cluster_col``.
    id_type : {"exact", "string"}, default "exact"
        ``"exact"`` compares record ids as typed (integer ids on one side and
        text on the other are an error); ``"string"`` compares integer ids as
        their decimal text.
    link_only : bool, default False
        A two-file linkage: only pairs of records from different data sets are
        compared, so every pair-based metric counts those pairs only (see
        :mod:`ereval.link_only`). Needs ``source_col``.
    source_col : str or list of str, optional
        The column(s) of the truth naming each record's data set (with
        ``link_only``). Every record of the prediction must be in the truth.

    Warns
    -----
    IdenticalColumnsWarning
        When both sides read a cluster column of the same name and hold the same
        cluster id for every record (the prediction is the truth itself).
    """
    sides = _read_sides(
        truth,
        pred,
        on_mismatch=on_mismatch,
        record_col=record_col,
        cluster_col=cluster_col,
        truth_record_col=truth_record_col,
        truth_cluster_col=truth_cluster_col,
        pred_record_col=pred_record_col,
        pred_cluster_col=pred_cluster_col,
        id_type=id_type,
        link_only=link_only,
        source_col=source_col,
    )
    return _aligned(sides)


@dataclass(eq=False)
class _Sides:
    """Both clusterings read, their cluster ids encoded (or packed with the record ids)."""

    truth: Any
    pred: Any
    t: Membership
    p: Membership
    t_cols: list[str] | None
    p_cols: list[str] | None
    t_codes: IntArray | None
    p_codes: IntArray | None
    t_labels: IdArray
    p_labels: IdArray
    t_packed: PackedSide | None
    p_packed: PackedSide | None
    policy: MismatchPolicy
    id_type: IdType


def _read_sides(
    truth: Any,
    pred: Any,
    *,
    on_mismatch: MismatchPolicy = "error",
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    truth_record_col: Columns | None = None,
    truth_cluster_col: Columns | None = None,
    pred_record_col: Columns | None = None,
    pred_cluster_col: Columns | None = None,
    id_type: IdType = "exact",
    link_only: bool = False,
    source_col: Columns | None = None,
    pack: bool = False,
) -> _Sides:
    """Both sides read by the options of :func:`align`; with ``pack``, integer record ids
    are packed with their cluster codes into sorted keys (see :mod:`ereval._packed`)."""
    policy = check_choice("on_mismatch", on_mismatch, MISMATCH_POLICIES)
    id_type = check_choice("id_type", id_type, _ID_TYPES)
    t_rc = record_col if truth_record_col is None else truth_record_col
    t_cc = cluster_col if truth_cluster_col is None else truth_cluster_col
    p_rc = record_col if pred_record_col is None else pred_record_col
    p_cc = cluster_col if pred_cluster_col is None else pred_cluster_col
    source = check_link_only(link_only, source_col)
    pack = pack and id_type == "exact" and source is None
    if isinstance(truth, str | os.PathLike) and isinstance(pred, str | os.PathLike):
        # two files are read and their cluster ids encoded at once (the readers and
        # NumPy release the GIL); errors as below, the truth's first
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ereval-read") as pool:
            read_p = pool.submit(_read_side, pred, "pred", p_rc, p_cc, pack)
            t, t_cols, (t_codes, t_labels), t_packed = _read_side(
                truth, "truth", t_rc, t_cc, pack, source
            )
            p, p_cols, (p_codes, p_labels), p_packed = read_p.result()
    else:
        t, t_cols, (t_codes, t_labels), t_packed = _read_side(
            truth, "truth", t_rc, t_cc, pack, source
        )
        p, p_cols, (p_codes, p_labels), p_packed = _read_side(pred, "pred", p_rc, p_cc, pack)
    return _Sides(
        truth,
        pred,
        t,
        p,
        t_cols,
        p_cols,
        None if t_packed is not None else t_codes,
        None if p_packed is not None else p_codes,
        t_labels,
        p_labels,
        t_packed,
        p_packed,
        policy,
        id_type,
    )


def _aligned(sides: _Sides) -> Alignment:
    """The alignment of two sides read by :func:`_read_sides`."""
    t, p, policy = sides.t, sides.p, sides.policy
    t_labels, p_labels = sides.t_labels, sides.p_labels
    t_codes = encode(t.cluster_ids)[0] if sides.t_codes is None else sides.t_codes
    p_codes = encode(p.cluster_ids)[0] if sides.p_codes is None else sides.p_codes
    truth, pred, t_cols, p_cols = sides.truth, sides.pred, sides.t_cols, sides.p_cols
    id_type = sides.id_type
    rt, rp = _comparable(t, p, id_type)
    n_src = 0
    if t.sources is not None:  # each true code carries its record's data set along
        s_codes, s_labels = encode(t.sources)
        n_src = max(len(s_labels), 1)
        t_codes = t_codes * n_src + s_codes
    if same_ids(rt, rp):
        _check_unique(rt, "truth")
        if not _same_source(truth, pred):
            _warn_if_identical(t, p, t_cols, p_cols, stacklevel=4)
        return _alignment(rt, t_codes, p_codes, t_labels, p_labels, policy, n_src)
    where = same_text_set(rt, rp)
    if where is not None:  # the same records in another order (checked distinct)
        pred_of = np.empty(len(rt), dtype=np.int64)
        pred_of[where] = p_codes
        return _alignment(rt, t_codes, pred_of, t_labels, p_labels, policy, n_src)
    records, true_of, pred_of = _union(rt, rp, t_codes, p_codes)
    only_true = pred_of < 0
    only_pred = true_of < 0
    if not (only_true.any() or only_pred.any()):
        return _alignment(records, true_of, pred_of, t_labels, p_labels, policy, n_src)
    if policy == "error" or (policy == "singletons" and only_pred.any()):
        _raise_mismatch(records, only_true, only_pred, policy)
    if n_src and only_pred.any() and policy == "twinless":
        ex = examples(to_numpy(take(records, np.flatnonzero(only_pred)[:3])))
        raise RecordMismatchError(
            f"'link_only': {int(only_pred.sum())} record(s) of 'pred' are not in 'truth' "
            f"(e.g. {ex}), so their data set is unknown; pass on_mismatch='intersection' to "
            "score the common records only"
        )
    if policy == "singletons":  # each record the prediction left out: a cluster of its own
        added = np.flatnonzero(only_true)
        pred_of = pred_of.copy()
        pred_of[added] = len(p_labels) + np.arange(added.shape[0], dtype=np.int64)
        unnamed = _unnamed(p_labels, added.shape[0])
        return _alignment(records, true_of, pred_of, t_labels, unnamed, policy, n_src)
    if policy == "twinless":
        return _alignment(records, true_of, pred_of, t_labels, p_labels, policy, n_src)
    keep = ~(only_true | only_pred)
    if not keep.any():
        raise RecordMismatchError("'truth' and 'pred' have no record in common")
    kept, sources = _split(true_of[keep], n_src)
    tc, t_idx = encode(kept)
    pc_, p_idx = encode(pred_of[keep])
    return Alignment(
        take(records, keep),
        tc,
        pc_,
        take(t_labels, t_idx),
        take(p_labels, p_idx),
        policy,
        sources,
        n_src,
    )


def _split(codes: IntArray, n_src: int) -> tuple[IntArray, IntArray | None]:
    """True cluster codes that carry a data set (``code * n_src + source``, ``n_src > 0``)
    split into both; ``-1`` (absent) stays ``-1`` in both. Codes unchanged for 0."""
    if not n_src:
        return codes, None
    present = codes >= 0
    true_of = np.where(present, codes // n_src, -1)
    sources = np.where(present, codes % n_src, -1)
    return true_of, sources


def _alignment(
    records: IdArray,
    true_of: IntArray,
    pred_of: IntArray,
    t_labels: IdArray,
    p_labels: IdArray,
    policy: MismatchPolicy,
    n_src: int,
) -> Alignment:
    codes, sources = _split(true_of, n_src)
    return Alignment(records, codes, pred_of, t_labels, p_labels, policy, sources, n_src)


def check_link_only(link_only: bool, source_col: Columns | None) -> Columns | None:
    """The column(s) naming each record's data set for a link-only evaluation (``None``
    otherwise), the two options checked together."""
    if not isinstance(link_only, bool):
        raise InputTypeError(f"'link_only' must be True or False; received {describe(link_only)}")
    if link_only and source_col is None:
        raise InputError(
            "'link_only' needs 'source_col', the column of the truth naming each record's data set"
        )
    if source_col is not None and not link_only:
        raise InputError(
            "'source_col' names each record's data set for a link-only evaluation; pass "
            "link_only=True with it"
        )
    return source_col


def _read_side(
    data: Any,
    name: str,
    record_col: Columns,
    cluster_col: Columns,
    pack: bool = False,
    source_col: Columns | None = None,
) -> tuple[Membership, list[str] | None, tuple[IntArray, IdArray], PackedSide | None]:
    """One clustering read (record ids checked unique later, from both sides at once),
    the cluster column(s) read and its cluster ids encoded; with ``pack``, integer
    record ids packed with the codes into sorted keys (the codes then given up); with
    ``source_col``, each record's data set read too."""
    m, cols = read_membership(
        data,
        name=name,
        record_col=record_col,
        cluster_col=cluster_col,
        check_unique=False,
        source_col=source_col,
        allow_empty=name == "pred",
    )
    if isinstance(data, str | os.PathLike):
        _release_arrow_memory()  # the file's table, now read into the membership
    codes, labels = encode(m.cluster_ids)
    packed = pack_side(m.record_ids, codes, len(labels)) if pack else None
    return m, cols, (codes, labels), packed


def _release_arrow_memory() -> None:
    """Give the memory Arrow's allocator holds but no longer uses back to the system
    (it keeps freed blocks for its own reuse, which NumPy's arrays never get)."""
    pa.default_memory_pool().release_unused()


def _check_unique(records: IdArray, name: str) -> None:
    span = dense_int_span(records)
    if span is not None:
        _dense_duplicates(records, name, span)
        return
    codes, uniques = encode(records, sort=False)
    dup, surplus = duplicates_of(codes, uniques)
    if surplus:
        raise duplicate_error(name, dup, surplus)


def _dense_duplicates(
    records: npt.NDArray[Any],
    name: str,
    span: tuple[int, int],
    offsets: IntArray | None = None,
) -> None:
    """Raise naming ``name`` when integer ids within ``span = (min, width)`` repeat
    (``offsets``, when given, are ``records - min``)."""
    lo, width = span
    if offsets is None:
        offsets = int_offsets(records, lo)
    seen = np.zeros(width, dtype=bool)  # a byte per id: far cheaper to scatter than counts
    seen[offsets] = True
    if np.count_nonzero(seen) == records.shape[0]:
        return
    counts = np.bincount(offsets, minlength=width)
    dup = np.flatnonzero(counts > 1)
    raise duplicate_error(name, dup + lo, int((counts[dup] - 1).sum()))


def _union(
    t_rec: IdArray, p_rec: IdArray, t_codes: IntArray, p_codes: IntArray
) -> tuple[IdArray, IntArray, IntArray]:
    """The union of two record-id columns and each side's cluster code per union record.

    Also checks that neither side repeats a record (from the same pass).
    """
    dense = dense_int_span(t_rec, p_rec)
    if dense is not None:
        lo, span = dense
        if t_rec.shape[0] == p_rec.shape[0]:
            placed = _placed(t_rec, p_rec, p_codes, lo, span)
            if placed is not None:
                return t_rec, t_codes, placed
        off_t, off_p = int_offsets(t_rec, lo), int_offsets(p_rec, lo)
        _dense_duplicates(t_rec, "truth", dense, off_t)
        _dense_duplicates(p_rec, "pred", dense, off_p)
        true_of = np.full(span, -1, dtype=np.int64)
        pred_of = np.full(span, -1, dtype=np.int64)
        true_of[off_t] = t_codes
        pred_of[off_p] = p_codes
        present = np.flatnonzero((true_of >= 0) | (pred_of >= 0))
        dtype = np.result_type(t_rec.dtype, p_rec.dtype)
        return (present + lo).astype(dtype), true_of[present], pred_of[present]
    ids, pos_t, pos_p = union(t_rec, p_rec)
    n = len(ids)
    for pos, name in ((pos_t, "truth"), (pos_p, "pred")):
        dup, surplus = duplicates_of(pos, ids)
        if surplus:
            raise duplicate_error(name, dup, surplus)
    true_of = np.full(n, -1, dtype=np.int64)
    pred_of = np.full(n, -1, dtype=np.int64)
    true_of[pos_t] = t_codes
    pred_of[pos_p] = p_codes
    return ids, true_of, pred_of


def _placed(
    t_rec: npt.NDArray[Any], p_rec: npt.NDArray[Any], p_codes: IntArray, lo: int, span: int
) -> IntArray | None:
    """For two integer id columns of one length, within ``lo .. lo + span - 1``, and
    holding the same distinct ids in another order: each predicted record's cluster
    code at the truth's position of that record. ``None`` when they do not (another
    record set, or an id repeated on either side)."""
    nt = t_rec.shape[0]
    # int32 positions halve the memory traffic of this random scatter/gather
    small: type[np.signedinteger[Any]] = np.int32 if nt < 2**31 - 1 else np.int64
    position: npt.NDArray[np.signedinteger[Any]]
    if 0 <= lo <= span:
        # indexed by the ids themselves, without subtracting lo: the slots below lo
        # are never written nor read, so their memory is never touched
        position = np.empty(lo + span, dtype=small)
        position[lo:] = -1
        t_at, p_at = t_rec, p_rec
    else:
        position = np.full(span, -1, dtype=small)
        t_at, p_at = int_offsets(t_rec, lo), int_offsets(p_rec, lo)
    position[t_at] = np.arange(nt, dtype=small)
    where = position[p_at]
    del position, t_at, p_at
    if not (where >= 0).all():
        return None
    pred_of = np.full(nt, -1, dtype=np.int64)
    pred_of[where] = p_codes
    # nt predicted records fill all nt truth positions only if no id repeats on either
    # side (a repeated truth id leaves one of its positions unused)
    return pred_of if (pred_of >= 0).all() else None


def _unnamed(labels: IdArray, k: int) -> IdArray:
    """``labels`` followed by ``k`` missing labels (clusters with no id of their own)."""
    if isinstance(labels, pa.Array):
        return pa.concat_arrays([labels, pa.nulls(k, type=labels.type)])
    out = np.empty(len(labels) + k, dtype=object)
    out[: len(labels)] = labels
    out[len(labels) :] = None
    return out


def mismatch_error(
    n_only_true: int,
    ex_true: Any,
    n_only_pred: int,
    ex_pred: Any,
    policy: MismatchPolicy = "error",
) -> RecordMismatchError:
    """The error for two clusterings covering different records, with the remedies that
    apply: when only the prediction is short, first ``on_mismatch='singletons'`` (the
    records it left out are each their own cluster, as a linker that writes no
    singleton means)."""
    parts = []
    if n_only_true:
        parts.append(f"{n_only_true} record(s) only in 'truth' (e.g. {examples(list(ex_true))})")
    if n_only_pred:
        parts.append(f"{n_only_pred} record(s) only in 'pred' (e.g. {examples(list(ex_pred))})")
    remedies = []
    if n_only_true and not n_only_pred:
        remedies.append(
            "on_mismatch='singletons' if the prediction leaves out the records it puts in no "
            "cluster (each is then a cluster of its own)"
        )
    remedies.append("on_mismatch='intersection' to score the common records only")
    remedies.append(
        "on_mismatch='twinless' to score twinless records as coreference scorers do (a record "
        "missing from one side counts as an error on that side)"
    )
    done = (
        " 'singletons' completes a prediction that lacks records of the truth only."
        if (policy == "singletons")
        else ""
    )
    return RecordMismatchError(
        "'truth' and 'pred' cover different records: "
        + "; ".join(parts)
        + "."
        + done
        + " Pass "
        + ", or ".join([", ".join(remedies[:-1]), remedies[-1]] if len(remedies) > 1 else remedies)
        + ".",
        sides=("truth", "pred"),
        n_only=(n_only_true, n_only_pred),
    )


def _raise_mismatch(
    union_ids: IdArray,
    only_true: npt.NDArray[np.bool_],
    only_pred: npt.NDArray[np.bool_],
    policy: MismatchPolicy = "error",
) -> None:
    n_t, n_p = int(only_true.sum()), int(only_pred.sum())
    ex_t = to_numpy(take(union_ids, np.flatnonzero(only_true)[:3]))
    ex_p = to_numpy(take(union_ids, np.flatnonzero(only_pred)[:3]))
    raise mismatch_error(n_t, ex_t, n_p, ex_p, policy)


def pair_count(x: IntArray) -> int:
    """Exact sum of C(x, 2) over an integer array."""
    if x.size == 0:
        return 0
    pairs = np.subtract(x, 1, dtype=np.int64)
    pairs *= x
    pairs >>= 1  # x (x - 1) is even and never negative: a shift, far cheaper than a division
    return int(pairs.sum(dtype=np.int64))


@dataclass(frozen=True, eq=False)
class ContingencyTable:
    """Sparse contingency table ``n_ij = |T_i ∩ P_j|`` with marginals.

    Attributes
    ----------
    rows, cols, counts : ndarray of int64
        Coordinates and values of the non-zero cells, sorted by ``(row, col)``.
    true_sizes : ndarray of int64, shape (K,)
        ``a_i``, the size of every true cluster (over the truth's own records).
    pred_sizes : ndarray of int64, shape (R,)
        ``b_j``, the size of every predicted cluster.
    policy : {"error", "intersection", "twinless", "singletons"}
        How a record-set mismatch was handled.
    within_source : SourcePairs, optional
        For a link-only evaluation, the table's pair counts within data sets
        (see :mod:`ereval.link_only`); the pair-based metrics then count the pairs
        across data sets only.
    """

    rows: IntArray
    cols: IntArray
    counts: IntArray
    true_sizes: IntArray
    pred_sizes: IntArray
    policy: MismatchPolicy = "error"
    within_source: SourcePairs | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("rows", "cols", "counts", "true_sizes", "pred_sizes"):
            value = getattr(self, name)
            arr = np.asarray(value)
            if arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise InputTypeError(
                    f"contingency '{name}' must be a 1-D array of integers; received "
                    f"{describe(value)} (floats are never truncated to counts)"
                )
            object.__setattr__(self, name, arr.astype(np.int64, copy=False))
        k, r = self.true_sizes.shape[0], self.pred_sizes.shape[0]
        if not (self.rows.shape == self.cols.shape == self.counts.shape):
            raise InputError("contingency cells: rows, cols and counts must have equal length")
        if (self.true_sizes < 0).any() or (self.pred_sizes < 0).any():
            raise InputError("contingency marginals must be non-negative")
        if self.counts.size and (self.counts.min() <= 0):
            raise InputError("contingency cells must hold positive counts")
        if self.rows.size and (
            self.rows.max() >= k
            or self.cols.max() >= r
            or self.rows.min() < 0
            or self.cols.min() < 0
        ):
            raise InputError("contingency cells refer to clusters outside the marginals")

    # -- construction -----------------------------------------------------------

    @classmethod
    def from_codes(
        cls,
        true_codes: IntArray,
        pred_codes: IntArray,
        *,
        n_true_codes: int,
        n_pred_codes: int,
        policy: MismatchPolicy = "error",
    ) -> ContingencyTable:
        """Count cells from per-record cluster codes (``-1`` = absent on that side).

        Codes in ``0..n_*_codes-1`` that no record uses are dropped, so the table
        has exactly one row per true cluster and one column per predicted cluster.
        """
        t = np.asarray(true_codes, dtype=np.int64)
        p = np.asarray(pred_codes, dtype=np.int64)
        present_t = t >= 0
        present_p = p >= 0
        if present_t.all() and present_p.all():
            true_sizes = np.bincount(t, minlength=n_true_codes).astype(np.int64, copy=False)
            pred_sizes = np.bincount(p, minlength=n_pred_codes).astype(np.int64, copy=False)
            tt, pp = t, p
        else:
            true_sizes = np.bincount(t[present_t], minlength=n_true_codes).astype(
                np.int64, copy=False
            )
            pred_sizes = np.bincount(p[present_p], minlength=n_pred_codes).astype(
                np.int64, copy=False
            )
            both = present_t & present_p
            tt, pp = t[both], p[both]
        rows, cols, counts = count_cells(tt, pp, n_pred_codes)
        rows, true_sizes = _compact(rows, true_sizes)
        cols, pred_sizes = _compact(cols, pred_sizes)
        return cls(rows, cols, counts, true_sizes, pred_sizes, policy)

    # -- sizes ------------------------------------------------------------------

    @property
    def n_true_clusters(self) -> int:
        """K, the number of true clusters."""
        return int(self.true_sizes.shape[0])

    @property
    def n_pred_clusters(self) -> int:
        """R, the number of predicted clusters."""
        return int(self.pred_sizes.shape[0])

    @property
    def n_cells(self) -> int:
        """Number of non-zero cells."""
        return int(self.counts.shape[0])

    @cached_property
    def n_common(self) -> int:
        """Number of records present in both clusterings (``sum n_ij``)."""
        return int(self.counts.sum())

    @cached_property
    def n_true_records(self) -> int:
        """Number of records in the true clustering (``sum a_i``)."""
        return int(self.true_sizes.sum())

    @cached_property
    def n_pred_records(self) -> int:
        """Number of records in the predicted clustering (``sum b_j``)."""
        return int(self.pred_sizes.sum())

    @property
    def n_records(self) -> int:
        """Number of distinct records over both sides."""
        return self.n_true_records + self.n_pred_records - self.n_common

    @property
    def has_twinless(self) -> bool:
        """True when some record is present on one side only."""
        return self.n_true_records != self.n_common or self.n_pred_records != self.n_common

    # -- derived sufficient statistics (exact integers) ----------------------------

    @cached_property
    def pairs_both(self) -> int:
        """Record pairs in the same true and the same predicted cluster: ``sum C(n_ij, 2)``."""
        return pair_count(self.counts)

    @cached_property
    def pairs_true(self) -> int:
        """True coreferent pairs: ``sum C(a_i, 2)``."""
        return pair_count(self.true_sizes)

    @cached_property
    def pairs_pred(self) -> int:
        """Predicted coreferent pairs: ``sum C(b_j, 2)``."""
        return pair_count(self.pred_sizes)

    @cached_property
    def row_common(self) -> IntArray:
        """``sum_j n_ij`` per true cluster (equals ``a_i`` without twinless records)."""
        if not self.has_twinless:
            return self.true_sizes
        return _sum_by(self.rows, self.counts, self.n_true_clusters)

    @cached_property
    def col_common(self) -> IntArray:
        """``sum_i n_ij`` per predicted cluster."""
        if not self.has_twinless:
            return self.pred_sizes
        return _sum_by(self.cols, self.counts, self.n_pred_clusters)

    @cached_property
    def cell_true_sizes(self) -> IntArray:
        """``a_i`` at every cell (``true_sizes[rows]``), gathered once for every metric."""
        return self.true_sizes[self.rows]

    @cached_property
    def cell_pred_sizes(self) -> IntArray:
        """``b_j`` at every cell (``pred_sizes[cols]``)."""
        return self.pred_sizes[self.cols]

    @cached_property
    def row_cells(self) -> IntArray:
        """Number of non-zero cells per true cluster (predicted clusters it meets)."""
        return np.bincount(self.rows, minlength=self.n_true_clusters).astype(np.int64)

    @cached_property
    def col_cells(self) -> IntArray:
        """Number of non-zero cells per predicted cluster."""
        return np.bincount(self.cols, minlength=self.n_pred_clusters).astype(np.int64)

    def cell_counts(self, rows: IntArray, cols: IntArray) -> IntArray:
        """``n_ij`` at each given ``(row, col)``; 0 for an empty cell."""
        width = np.int64(max(self.n_pred_clusters, 1))
        keys = self.rows * width + self.cols  # sorted, as cells are sorted by (row, col)
        wanted = np.asarray(rows, dtype=np.int64) * width + np.asarray(cols, dtype=np.int64)
        at = np.minimum(np.searchsorted(keys, wanted), max(keys.shape[0] - 1, 0))
        found = keys.shape[0] > 0
        hit = (keys[at] == wanted) if found else np.zeros(wanted.shape[0], dtype=bool)
        return np.where(hit, self.counts[at] if found else 0, 0).astype(np.int64)

    def extended_with_singletons(self) -> ContingencyTable:
        """The table over the union of records, each twinless record a singleton on the
        side where it is missing. Returns ``self`` when there are no twinless records."""
        if not self.has_twinless:
            return self
        miss_t = self.pred_sizes - self.col_common  # per pred cluster: records absent from truth
        miss_p = self.true_sizes - self.row_common  # per true cluster: records absent from pred
        k, r = self.n_true_clusters, self.n_pred_clusters
        n_new_t = int(miss_t.sum())
        n_new_p = int(miss_p.sum())
        # records only in pred: new true singleton rows k.., in their pred column
        rows_a = k + np.arange(n_new_t, dtype=np.int64)
        cols_a = np.repeat(np.arange(r, dtype=np.int64), miss_t)
        # records only in truth: new pred singleton columns r.., in their true row
        rows_b = np.repeat(np.arange(k, dtype=np.int64), miss_p)
        cols_b = r + np.arange(n_new_p, dtype=np.int64)
        rows = np.concatenate([self.rows, rows_a, rows_b])
        cols = np.concatenate([self.cols, cols_a, cols_b])
        counts = np.concatenate([self.counts, np.ones(n_new_t + n_new_p, dtype=np.int64)])
        order = np.lexsort((cols, rows))
        return ContingencyTable(
            rows[order],
            cols[order],
            counts[order],
            np.concatenate([self.true_sizes, np.ones(n_new_t, dtype=np.int64)]),
            np.concatenate([self.pred_sizes, np.ones(n_new_p, dtype=np.int64)]),
            "error",
        )


def _compact(index: IntArray, sizes: IntArray) -> tuple[IntArray, IntArray]:
    """Drop codes of size 0, renumbering the cell index accordingly."""
    used = sizes > 0
    if used.all():
        return index, sizes
    mapping = np.cumsum(used, dtype=np.int64) - 1
    return mapping[index], sizes[used]


def _compacted(codes: IntArray, n_codes: int) -> IntArray:
    """``codes`` renumbered as :meth:`ContingencyTable.from_codes` numbers rows and
    columns (unused codes dropped); ``-1`` stays ``-1``."""
    present = codes >= 0
    sizes = np.bincount(codes[present], minlength=n_codes)
    out = np.full(codes.shape[0], -1, dtype=np.int64)
    out[present], _ = _compact(codes[present], sizes)
    return out


def _sum_by(index: IntArray, values: IntArray, size: int) -> IntArray:
    # float64 sums are exact below 2**53, far beyond any record count
    return np.bincount(index, weights=values, minlength=size).astype(np.int64)


def count_cells(t: IntArray, p: IntArray, n_pred: int) -> tuple[IntArray, IntArray, IntArray]:
    """Non-zero cells ``(rows, cols, counts)`` of the co-occurrence counts of the code
    pairs ``(t[k], p[k])`` (codes ``>= 0``, ``p < n_pred``), sorted by ``(row, col)``.

    Examples
    --------
    >>> rows, cols, counts = count_cells(np.array([1, 0, 1, 1]), np.array([2, 0, 2, 0]), 3)
    >>> rows.tolist(), cols.tolist(), counts.tolist()
    ([0, 1, 1], [0, 0, 2], [1, 1, 2])
    """
    if t.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    width = max(int(n_pred), 1)
    n_true = int(t.max()) + 1
    if n_true * width >= 2**63:  # codes far apart: count the codes in use instead
        rows_used, t_dense = np.unique(t, return_inverse=True)
        cols_used, p_dense = np.unique(p, return_inverse=True)
        r, c, n = count_cells(t_dense.ravel(), p_dense.ravel(), cols_used.shape[0])
        return rows_used[r].astype(np.int64), cols_used[c].astype(np.int64), n
    keys = np.multiply(t, width, dtype=np.int64)
    keys += p
    keys.sort()  # sorting 64-bit keys is far cheaper than counting through a sparse matrix
    return cells_of_sorted(keys, width)


def contingency_table(truth: Any, pred: Any, **options: Unpack[AlignOptions]) -> ContingencyTable:
    """Build the sparse contingency table of two clusterings.

    Options are those of :func:`align`. An existing :class:`ContingencyTable`
    passed as ``truth`` (with ``pred=None``) is returned unchanged.

    Examples
    --------
    >>> tab = contingency_table([[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]])
    >>> tab.counts.tolist(), tab.true_sizes.tolist(), tab.pred_sizes.tolist()
    ([2, 1, 2], [3, 2], [2, 3])
    """
    if isinstance(truth, ContingencyTable):
        if pred is not None:
            raise InputError("'pred' must be None when 'truth' is already a ContingencyTable")
        return truth
    sides = _read_sides(truth, pred, pack=True, **options)
    if sides.t_packed is not None and sides.p_packed is not None:
        cells = paired_cells(sides.t_packed, sides.p_packed)
        if cells is not None:  # the same records on both sides, each once
            if not _same_source(truth, pred) and same_ids(sides.t.record_ids, sides.p.record_ids):
                _warn_if_identical(sides.t, sides.p, sides.t_cols, sides.p_cols)
            table = _table_of_cells(*cells, sides)
            del sides, cells  # the records, read into Arrow's memory: freed before the metrics
            _release_arrow_memory()
            return table
    return _aligned(sides).table()


def _table_of_cells(
    rows: IntArray, cols: IntArray, counts: IntArray, sides: _Sides
) -> ContingencyTable:
    """The table of cells counted over every record of both sides (codes not used by
    any record dropped, as :meth:`ContingencyTable.from_codes` does)."""
    rows, true_sizes = _compact(rows, _sum_by(rows, counts, len(sides.t_labels)))
    cols, pred_sizes = _compact(cols, _sum_by(cols, counts, len(sides.p_labels)))
    return ContingencyTable(rows, cols, counts, true_sizes, pred_sizes, sides.policy)
