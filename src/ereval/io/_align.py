"""Do the ids of two inputs line up: reading two clusterings over one record set.

:func:`align` reads a true and a predicted clustering and factorises them once
over the union of their record ids (an :class:`Alignment`). Ids are compared
exactly (``id_type``); ids of kinds that can never be equal are an error naming
both kinds and the remedy. When the two clusterings cover different record sets
the caller chooses (``on_mismatch``): raise an error (default), keep only the
records in both (``"intersection"``), keep every record (``"twinless"``, as the
coreference literature scores twinless mentions), or complete a prediction that
leaves out records of the truth with a singleton cluster for each
(``"singletons"``, as linkers that write no singleton mean it). A link-only
evaluation (``link_only``, ``source_col``) also reads each record's data set.

:func:`locate_pairs` does the same for pairs against a truth.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._errors import IdKindError, InputError, InputTypeError, RecordMismatchError
from .._validation import check_choice, describe, examples
from ._files import release_arrow_memory
from ._ids import (
    IdArray,
    IdType,
    dense_int_span,
    duplicates_of,
    encode,
    int_offsets,
    same_id_set,
    same_ids,
    smallest,
    span_ids,
    take,
    to_numpy,
    union,
)
from ._keys import Columns, comparable_ids, describe_kinds, kinds_clash, text_would_match
from ._memberships import Membership, duplicate_error, read_membership
from ._pairs import PairList

__all__ = [
    "AlignOptions",
    "Alignment",
    "IdenticalColumnsWarning",
    "MISMATCH_POLICIES",
    "MismatchPolicy",
    "Packer",
    "Sides",
    "align",
    "aligned",
    "check_link_only",
    "check_options",
    "id_type_error",
    "locate_pairs",
    "mismatch_error",
    "read_sides",
    "same_source",
    "warn_if_identical",
]

MismatchPolicy = Literal["error", "intersection", "twinless", "singletons"]
#: The accepted values of ``on_mismatch``.
MISMATCH_POLICIES: tuple[MismatchPolicy, ...] = ("error", "intersection", "twinless", "singletons")
_ID_TYPES: tuple[IdType, ...] = ("exact", "string")

IntArray = npt.NDArray[np.int64]

#: What :func:`read_sides` may make of a side read: its membership, cluster codes and
#: number of codes in, anything (or ``None`` to keep the codes) out.
Packer = Callable[[Membership, IntArray, int], Any]


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


#: Options of an engine, given with the options of reading by mistake.
_ENGINE_OPTIONS = ("memory_limit", "threads", "temp_dir", "passes", "master", "conf")


def check_options(options: Mapping[str, object]) -> None:
    """Refuse an option that is not one of :class:`AlignOptions`, which an engine
    reading the sides where they are would otherwise pass over.

    Examples
    --------
    >>> check_options({"on_mismatch": "twinless"})
    >>> try:
    ...     check_options({"memory_limit": "1GB"})
    ... except TypeError as e:
    ...     print(str(e).replace(": ", ":\\n", 1))
    unexpected option 'memory_limit':
    an engine's options are given to the engine, e.g. engine=DuckDBEngine(memory_limit='1GB')
    """
    known = AlignOptions.__optional_keys__
    for name in options:
        if name in known:
            continue
        if name in _ENGINE_OPTIONS:
            engine = "SparkEngine" if name in ("master", "conf") else "DuckDBEngine"
            raise InputTypeError(
                f"unexpected option {name!r}: an engine's options are given to the engine, "
                f"e.g. engine={engine}({name}={options[name]!r})"
            )
        raise InputTypeError(
            f"unexpected option {name!r}; the options of reading two clusterings are "
            + ", ".join(sorted(known))
        )


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
    :data:`ereval.io.IdArray` columns (Arrow text or NumPy arrays). For a
    link-only evaluation, ``sources[k]`` is the data set (``0..n_sources-1``) of
    record ``k`` as the truth gives it (``-1`` for a record the truth lacks).
    :meth:`ereval.contingency.ContingencyTable.from_alignment` counts its table.
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


def _comparable(t: Membership, p: Membership, id_type: IdType) -> tuple[IdArray, IdArray]:
    rt, kt = comparable_ids(t.record_ids, t.key, id_type, name="truth")
    if len(p) == 0:  # an empty prediction: no id to compare, of whatever type it was read
        return rt, take(rt, np.zeros(0, dtype=np.int64))
    rp, kp = comparable_ids(p.record_ids, p.key, id_type, name="pred")
    if kinds_clash(kt, kp):
        raise id_type_error(kt, kp, to_numpy(rt[:2]), to_numpy(rp[:2]))
    return rt, rp


def same_source(truth: Any, pred: Any) -> bool:
    if truth is pred:
        return True
    if isinstance(truth, str | os.PathLike) and isinstance(pred, str | os.PathLike):
        try:
            return os.path.samefile(truth, pred)
        except OSError:
            return False
    return False


def warn_if_identical(
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
        :class:`ereval.contingency.SourcePairs`). Needs ``source_col``.
    source_col : str or list of str, optional
        The column(s) of the truth naming each record's data set (with
        ``link_only``). Every record of the prediction must be in the truth.

    Warns
    -----
    IdenticalColumnsWarning
        When both sides read a cluster column of the same name and hold the same
        cluster id for every record (the prediction is the truth itself).
    """
    sides = read_sides(
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
    return aligned(sides)


@dataclass(eq=False)
class Sides:
    """Both clusterings read by :func:`read_sides`, their cluster ids encoded (or, when
    ``pack`` gave something for a side, packed with its record ids: its codes are
    then given up). ``same_set``, where a caller found the two sides to hold one set
    of records in another order: where each predicted record is in the truth (see
    :func:`~._ids.same_id_set`), which :func:`aligned` then takes as it is."""

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
    t_packed: Any
    p_packed: Any
    policy: MismatchPolicy
    id_type: IdType
    same_set: IntArray | None = None


def read_sides(
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
    pack: Packer | None = None,
) -> Sides:
    """Both sides read by the options of :func:`align`, each in the thread that read it.

    ``pack``, called on each side's membership, cluster codes and number of codes
    when ids are compared exactly and not link-only, may pack them for the caller
    (the contingency table packs integer record ids with their cluster codes into
    sorted keys); what it returns is kept in :attr:`Sides.t_packed` /
    :attr:`Sides.p_packed`, and a side it packs gives up its codes."""
    policy = check_choice("on_mismatch", on_mismatch, MISMATCH_POLICIES)
    id_type = check_choice("id_type", id_type, _ID_TYPES)
    t_rc = record_col if truth_record_col is None else truth_record_col
    t_cc = cluster_col if truth_cluster_col is None else truth_cluster_col
    p_rc = record_col if pred_record_col is None else pred_record_col
    p_cc = cluster_col if pred_cluster_col is None else pred_cluster_col
    source = check_link_only(link_only, source_col)
    if id_type != "exact" or source is not None:
        pack = None
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
    return Sides(
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


def aligned(sides: Sides) -> Alignment:
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
        if not same_source(truth, pred):
            warn_if_identical(t, p, t_cols, p_cols, stacklevel=4)
        return _alignment(rt, t_codes, p_codes, t_labels, p_labels, policy, n_src)
    where = same_id_set(rt, rp) if sides.same_set is None else sides.same_set
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
        # under "singletons" the truth's own records are not at fault (they are completed)
        at_fault = only_true if policy == "error" else np.zeros_like(only_true)
        _raise_mismatch(records, at_fault, only_pred, policy)
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
    pack: Packer | None = None,
    source_col: Columns | None = None,
) -> tuple[Membership, list[str] | None, tuple[IntArray, IdArray], Any]:
    """One clustering read (record ids checked unique later, from both sides at once),
    the cluster column(s) read and its cluster ids encoded; with ``pack``, what it makes
    of them (see :func:`read_sides`); with ``source_col``, each record's data set read
    too."""
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
        release_arrow_memory()  # the file's table, now read into the membership
    codes, labels = encode(m.cluster_ids)
    packed = None if pack is None else pack(m, codes, len(labels))
    return m, cols, (codes, labels), packed


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
    raise duplicate_error(name, span_ids(dup, lo, records.dtype), int((counts[dup] - 1).sum()))


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
        return span_ids(present, lo, t_rec.dtype, p_rec.dtype), true_of[present], pred_of[present]
    ids, pos_t, pos_p = union(t_rec, p_rec, same_set=False)  # not one set: looked at before
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
    # the smallest, as every engine shows them
    ex_t = to_numpy(smallest(take(union_ids, np.flatnonzero(only_true))))
    ex_p = to_numpy(smallest(take(union_ids, np.flatnonzero(only_pred))))
    raise mismatch_error(n_t, ex_t, n_p, ex_p, policy)


def _id_kind_remedy(kt: tuple[str, ...], ko: tuple[str, ...], other: str) -> str:
    if text_would_match(kt, ko):
        return "pass id_type='string' to compare integer ids as their decimal text"
    if len(kt) != len(ko):
        columns = "left_col and right_col" if other == "pairs" else f"{other}_record_col"
        return (
            "name record keys of the same columns on both sides (record_col, or "
            f"truth_record_col and {columns})"
        )
    return "give both sides ids of one kind"


def id_type_error(
    kind_truth: str | tuple[str, ...],
    kind_other: str | tuple[str, ...],
    ex_truth: Any,
    ex_other: Any,
    *,
    other: str = "pred",
    truth: str = "truth",
    remedy: str | None = None,
) -> IdKindError:
    """The error for record ids of different kinds on the two sides (named ``truth``
    and ``other``), with the remedy that makes them comparable: ``id_type='string'``
    only when comparing integers as their decimal text would (see
    :func:`text_would_match`); a caller may give its own ``remedy``."""
    kt = (kind_truth,) if isinstance(kind_truth, str) else kind_truth
    ko = (kind_other,) if isinstance(kind_other, str) else kind_other
    if remedy is None:
        remedy = _id_kind_remedy(kt, ko, other)
    shown = (tuple(ex_truth), tuple(ex_other))
    return IdKindError(
        f"record ids of '{truth}' are {describe_kinds(kt)} (e.g. {examples(list(shown[0]))}) "
        f"but those of '{other}' are {describe_kinds(ko)} (e.g. {examples(list(shown[1]))}), "
        f"so no record can match; {remedy}",
        sides=(truth, other),
        kinds=(kt, ko),
        examples=shown,
    )


def locate_pairs(
    truth: Membership, pairs: PairList, *, id_type: IdType = "exact"
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], IdArray, IdArray]:
    """Where the two records of every pair stand in ``truth`` (``-1`` where absent).

    Returns ``(left_index, right_index, left_ids, right_ids)``: positions in
    ``truth``'s records, and the pairs' ids as compared (after ``id_type``).
    Record ids of a different kind from the truth's are an error naming both.
    """
    t_ids, kt = comparable_ids(truth.record_ids, truth.key, id_type, name="truth")
    left, kl = comparable_ids(pairs.left_ids, pairs.left_key, id_type, name="pairs")
    right, _ = comparable_ids(pairs.right_ids, pairs.right_key, id_type, name="pairs")
    if kinds_clash(kt, kl):
        raise id_type_error(kt, kl, to_numpy(t_ids[:2]), to_numpy(left[:2]), other="pairs")
    pair_ids, a, b = union(left, right)
    ids, pos_t, pos_pairs = union(t_ids, pair_ids)
    record_of = np.full(len(ids), -1, dtype=np.int64)
    record_of[pos_t] = np.arange(len(t_ids), dtype=np.int64)
    of_pair_id = record_of[pos_pairs]
    return of_pair_id[a], of_pair_id[b], left, right
