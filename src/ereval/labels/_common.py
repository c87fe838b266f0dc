"""What the three kinds of session share: loading records, overlap, resolution of labels."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .._errors import InputError
from .._validation import check_in_range, examples
from .store import LabelStore

__all__ = [
    "ANSWER_COLUMNS",
    "PAIR_LABELS",
    "Records",
    "Resolution",
    "canonical",
    "double_review",
    "load_records",
    "resolve",
    "shown_columns",
]

#: Labels of a pair or a ranked item.
PAIR_LABELS: tuple[str, ...] = ("match", "non-match", "unsure")


@dataclass(frozen=True)
class Records:
    """The record file of a project: attributes by record id (ids as text)."""

    frame: pd.DataFrame
    id_col: str
    path: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "_row", {rid: i for i, rid in enumerate(self.ids)})

    @property
    def ids(self) -> list[str]:
        return [str(v) for v in self.frame[self.id_col].tolist()]

    def row(self, record_id: Any) -> dict[str, Any]:
        """The attributes of one record (as plain values; missing -> ``None``)."""
        pos = self.position(record_id)
        if pos is None:
            raise InputError(f"record {record_id!r} is not in the data file '{self.path}'")
        values = self.frame.iloc[pos].to_dict()
        return {str(k): (None if pd.isna(v) else v) for k, v in values.items()}

    def position(self, record_id: Any) -> int | None:
        found: dict[str, int] = self._row  # type: ignore[attr-defined]
        return found.get(str(record_id))

    def __contains__(self, record_id: object) -> bool:
        return self.position(record_id) is not None


_CACHE: dict[tuple[str, str, float, int], Records] = {}


def load_records(path: str | os.PathLike[str], *, id_col: str) -> Records:
    """Read a record file (CSV/Parquet) keyed by ``id_col`` (cached per process)."""
    from ..io import header, read_table

    full = str(Path(path).resolve())
    stat = Path(full).stat() if Path(full).is_file() else None
    key = (full, id_col, stat.st_mtime if stat else 0.0, stat.st_size if stat else 0)
    if key in _CACHE:
        return _CACHE[key]
    columns = header_of(full, header)
    if id_col not in columns:
        shown = ", ".join(repr(c) for c in columns[:10])
        raise InputError(
            f"'id_col': the data file '{path}' has no column '{id_col}'; columns are {shown}"
        )
    frame = read_table(full, name="data", text_columns=(id_col,))
    ids = frame[id_col]
    if ids.isna().any():
        raise InputError(f"'data': column '{id_col}' has {int(ids.isna().sum())} missing id(s)")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise InputError(
            f"'data': column '{id_col}' has {dup.nunique()} duplicate id(s) "
            f"(e.g. {examples(dup.astype(str).unique())})"
        )
    frame[id_col] = ids.astype(str)
    records = Records(frame.reset_index(drop=True), id_col, str(path))
    _CACHE.clear()
    _CACHE[key] = records
    return records


def header_of(path: str, header: Any) -> list[str]:
    from ..io import file_spec

    return [str(c) for c in header(file_spec(path, name="data"), name="data")]


def check_columns(records: Records, columns: Sequence[str], *, option: str) -> list[str]:
    """Check that ``columns`` are columns of the data; return them as a list."""
    out = [str(c) for c in columns]
    missing = [c for c in out if c not in records.frame.columns]
    if missing:
        shown = ", ".join(repr(str(c)) for c in list(records.frame.columns)[:10])
        raise InputError(
            f"'{option}' names {', '.join(repr(m) for m in missing)}, not a column of the data "
            f"file '{records.path}'; columns are {shown}"
        )
    return out


#: Columns hidden from reviewers unless a session shows them by name: they give the
#: answer away (a true or predicted cluster, an entity id, a label, a model's score).
#: Compared without case.
ANSWER_COLUMNS: frozenset[str] = frozenset(
    {
        "entity_id",
        "entity",
        "cluster_id",
        "cluster",
        "true_cluster",
        "true_id",
        "truth",
        "gold",
        "gold_id",
        "label",
        "labels",
        "is_match",
        "match",
        "clerical_match_score",
        "score",
        "probability",
        "prediction",
        "predicted",
        "match_probability",
        "match_weight",
    }
)


def check_show_hide(
    columns: Sequence[str], show: Sequence[str], hide: Sequence[str], *, where: str
) -> tuple[list[str], list[str]]:
    """Check the ``show_columns`` and ``hide_columns`` of a session against a file's columns."""
    present = [str(c) for c in columns]
    for option, chosen in (("show_columns", show), ("hide_columns", hide)):
        missing = [c for c in chosen if c not in present]
        if missing:
            listed = ", ".join(repr(c) for c in present[:10])
            raise InputError(
                f"'{option}' names {', '.join(repr(m) for m in missing)}, not a column of "
                f"{where}; columns are {listed}"
            )
    both = [c for c in show if c in hide]
    if both:
        raise InputError(
            f"'hide_columns' names {both[0]!r}, which 'show_columns' shows; choose one"
        )
    return [str(c) for c in show], [str(c) for c in hide]


def shown_columns(
    columns: Sequence[str],
    *,
    id_col: str | None,
    show: Sequence[str] = (),
    hide: Sequence[str] = (),
    named: Sequence[str | None] = (),
) -> list[str]:
    """The columns a reviewer is shown, in file order (the id column apart).

    ``show`` names them (and then only they are shown, hidden ones included if
    named); otherwise every column but ``hide``, the columns the session names as
    answers (``named``: a cluster, score or prediction column) and those of
    :data:`ANSWER_COLUMNS`.

    Examples
    --------
    >>> shown_columns(["record_id", "name", "entity_id", "city"], id_col="record_id")
    ['name', 'city']
    >>> shown_columns(["record_id", "name", "entity_id"], id_col="record_id", show=["entity_id"])
    ['entity_id']
    """
    if show:
        return [c for c in show if c != id_col]
    hidden = {str(c) for c in (*hide, *named) if c is not None}
    return [
        str(c)
        for c in columns
        if c != id_col and str(c) not in hidden and str(c).lower() not in ANSWER_COLUMNS
    ]


def check_overlap(overlap: Any) -> float:
    """The fraction of items given to two reviewers, in [0, 1]."""
    return check_in_range("overlap", overlap, low=0.0, high=1.0)


def double_review(seed: int, key: str, overlap: float) -> bool:
    """Whether item ``key`` goes to two reviewers: a seeded hash below ``overlap``.

    The choice depends only on the seed and the item id, so every process agrees
    and items added later (pairs asked by OASIS) are chosen the same way.
    """
    if overlap <= 0.0:
        return False
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64 < overlap


def canonical(value: Any) -> Any:
    """The category of a label for agreement: a cluster label by its true cluster."""
    if isinstance(value, Mapping):
        return tuple(sorted(str(r) for r in value.get("true_cluster", ())))
    return value


@dataclass(frozen=True)
class Resolution:
    """Where each item of a session stands.

    Attributes
    ----------
    resolved : dict
        item -> the label in force (an adjudication, or the reviewers' agreed label).
    pending : list of str
        Items labelled by fewer reviewers than they need.
    queue : list of str
        Items waiting for an adjudicator: reviewers disagree, or the label is "unsure".
    by_reviewer : dict
        item -> {reviewer: label}, the current labels.
    """

    resolved: dict[str, Any]
    pending: list[str]
    queue: list[str]
    by_reviewer: dict[str, dict[str, Any]]


def resolve(store: LabelStore, session: str, required: Mapping[str, int]) -> Resolution:
    """Resolve the current labels of a session (``required``: reviewers needed per item).

    An adjudication decides. Otherwise the reviewers' labels decide once as many
    reviewers as the item needs agree and none is "unsure"; a disagreement or an
    "unsure" sends the item to the adjudication queue. Only labels given by
    people count (a pair label implied by transitivity is recomputed from them
    by the pair session, never stored as a label).
    """
    labels = store.labels(session)
    adjudicated = store.adjudications(session)
    resolved: dict[str, Any] = {}
    pending: list[str] = []
    queue: list[str] = []
    for item, given in labels.items():
        if item in adjudicated:
            resolved[item] = adjudicated[item][1]
            continue
        categories = {_hashable(canonical(v)) for v in given.values()}
        unsure = any(v == "unsure" for v in given.values())
        if len(categories) > 1 or unsure:
            queue.append(item)
        elif len(given) < required.get(item, 1):
            pending.append(item)
        else:
            resolved[item] = next(iter(given.values()))
    for item, (_, value) in adjudicated.items():
        resolved.setdefault(item, value)
    return Resolution(resolved, pending, queue, labels)


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(value)
    return value
