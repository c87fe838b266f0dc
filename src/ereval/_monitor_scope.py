"""Which records a release's estimates and its fixed subset cover (Binette et al. 2024, Figs. 5-6).

A labelled sample describes the population it was drawn from. A later release
that added records must be estimated over the records that population covers
— the release restricted to it, as Binette et al. (2024, Figure 6) do for the
disambiguations after their benchmark's cut-off date — or a perfect release
that grew looks imprecise: the new records join the sampled people's predicted
clusters, and nothing in the sample says they belong. A *record selection*
names such a set of records:

* a release label: the records of that release;
* record ids (a list, array, Series or Index), or a CSV/Parquet file of them
  (its record id column);
* with ``date_col``, a cut-off date (``population_until=``, ``subset_until=``):
  the records whose date in that column of the release tables is at most it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._errors import InputError, InputTypeError
from ._validation import describe
from .io import Columns, Membership, keyed_frame, read_table

__all__ = ["ReleaseTables", "date_selection", "record_selection", "restrict_membership"]


@dataclass(frozen=True)
class ReleaseTables:
    """The releases read: label, membership and (when a date column is asked for) dates."""

    labels: tuple[str, ...]
    members: tuple[Membership, ...]
    dates: tuple[npt.NDArray[Any] | None, ...]


def restrict_membership(m: Membership, records: npt.NDArray[Any]) -> tuple[Membership, int]:
    """``m`` restricted to ``records``, and how many of its records were left out."""
    keep = np.asarray(pd.Index(m.records).isin(pd.Index(records)))
    return Membership(m.records[keep], m.clusters[keep]), int((~keep).sum())


def record_selection(
    selection: Any,
    releases: ReleaseTables,
    *,
    name: str,
    record_col: Columns,
) -> tuple[npt.NDArray[Any], str]:
    """The record ids a selection names, and a short description of it."""
    if isinstance(selection, str) and selection in releases.labels:
        m = releases.members[releases.labels.index(selection)]
        return m.records, f"release {selection!r}"
    if isinstance(selection, str | os.PathLike):
        path = Path(selection)
        if not path.exists():
            raise InputError(
                f"'{name}' must be a release label ({', '.join(releases.labels)}), record ids "
                f"or a file of record ids; received {str(selection)!r}, which is neither a "
                "release nor a file"
            )
        key_cols = [record_col] if isinstance(record_col, str) else list(record_col)
        table = read_table(path, name=name, text_columns=tuple(key_cols))
        frame, key = keyed_frame(table, record_col, name=name)
        if key not in frame.columns:
            raise InputError(
                f"'{name}' file '{path}' has no record id column {key!r}; its columns are "
                f"{list(frame.columns)[:10]!r}"
            )
        ids = np.asarray(frame[key].to_numpy())
        return ids, f"the {len(np.unique(ids)):,} records of '{path.name}'"
    if isinstance(selection, Mapping) or not isinstance(selection, Iterable):
        raise InputTypeError(
            f"'{name}' must be a release label, record ids or a file of record ids; received "
            f"{describe(selection)}"
        )
    ids = np.asarray(pd.Index(list(selection)).to_numpy())
    if ids.size == 0:
        raise InputError(f"'{name}' holds no record id")
    return ids, f"{len(np.unique(ids)):,} chosen records"


def date_selection(
    releases: ReleaseTables, until: Any, *, name: str, date_col: str
) -> tuple[npt.NDArray[Any], str]:
    """The records dated at most ``until`` in the column ``date_col`` of any release."""
    try:
        cutoff = pd.Timestamp(until)
    except (TypeError, ValueError) as exc:
        raise InputError(f"'{name}' must be a date (e.g. 2021-12-31); received {until!r}") from exc
    picked: list[npt.NDArray[Any]] = []
    for label, m, dates in zip(releases.labels, releases.members, releases.dates, strict=True):
        if dates is None:
            raise InputError(
                f"'{name}' needs the date column {date_col!r} in every release; release "
                f"{label!r} is not a table with that column"
            )
        parsed = pd.to_datetime(pd.Series(dates), errors="coerce")
        bad = parsed.isna().to_numpy() & ~pd.isna(pd.Series(dates)).to_numpy()
        if bad.any():
            example = dates[np.flatnonzero(bad)[0]]
            raise InputError(
                f"column {date_col!r} of release {label!r} holds a value that is not a date "
                f"({example!r}); '{name}' compares dates"
            )
        picked.append(m.records[(parsed <= cutoff).to_numpy()])
    ids = np.unique(np.concatenate(picked)) if picked else np.array([])
    return ids, f"the records dated up to {cutoff.date()} ('{date_col}')"


def release_dates(data: Any, m: Membership, date_col: str | None, label: str) -> Any:
    """The values of ``date_col`` per record of ``m`` (None without a date column)."""
    if date_col is None:
        return None
    if not hasattr(data, "columns") or date_col not in data.columns:
        return None
    if len(data) != len(m):
        raise InputError(f"release {label!r}: its table and its records do not line up")
    return np.asarray(data[date_col].to_numpy())


def check_selection_options(selection: Any, until: Any, date_col: str | None, *, name: str) -> None:
    """One way of naming a selection, and ``until`` only with a date column."""
    if selection is not None and until is not None:
        raise InputError(f"give '{name}' or '{name}_until', not both")
    if until is not None and date_col is None:
        raise InputError(f"'{name}_until' needs 'date_col' (the release column holding dates)")


def describe_left_out(counts: Sequence[tuple[str, int]], what: str) -> list[str]:
    """Notes for the releases that had records left out of ``what``."""
    return [
        f"release {label!r}: {n:,} record(s) outside {what} were left out of its estimates"
        for label, n in counts
        if n
    ]
