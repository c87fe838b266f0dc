"""The summaries of a series of releases computed by an SQL engine, where the data is.

Each release is loaded as the view ``v<k>(r, c)`` of the engine's
:class:`~ereval.engines.Database` and checked as the in-memory reader checks it
(rows, missing and repeated ids, ids of one kind in every release). Two kinds of
aggregate come back, both of the size of the distinct cluster sizes:

* per release, its cluster-size distribution (:func:`ereval.engines._sources.size_distribution`),
  which gives its :class:`~ereval.summary.Summary`;
* per release, the size distribution of its clusters restricted to the records
  present in every release (Binette et al. 2024, Figure 5). The releases are
  stacked (``UNION ALL``, a release number ``rel`` per row) and grouped by record
  key: a record is in every one of the ``K`` releases when its group holds ``K``
  rows (each release holds a record once), and the group keeps the record's
  cluster in each release (``c0 ... c{K-1}``, :func:`common_records_sql`). Each
  release's common clusters are then grouped and their sizes counted.

Every step is a ``GROUP BY``, which DuckDB spills under a memory limit: no window
and no sort over the records (a window per pass of a partition sorted by record
key took 2.5 times the CPU at 10^8 records a release).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._errors import IdKindError, InputTypeError, RecordMismatchError
from .engines import Database
from .engines._sources import SideSpec, check_unique, size_distribution
from .io import Columns, column_names
from .summary import Summary

__all__ = ["common_distribution_sql", "common_records_sql", "release_summaries", "stacked_sql"]

IntArray = npt.NDArray[np.int64]


def _summary(n_records: int, sizes: IntArray, counts: IntArray) -> Summary:
    """The summary of a clustering of ``n_records`` records from its size distribution
    (sizes ascending), as :func:`ereval.summary.summary_from_codes` counts it."""
    singles = int(counts[0]) if sizes.shape[0] and sizes[0] == 1 else 0
    return Summary(n_records, int(counts.sum()), n_records - singles, sizes, counts)


def stacked_sql(views: Sequence[str]) -> str:
    """Every release's rows with its number: ``(rel, r, c)``."""
    return " UNION ALL ".join(f"SELECT {k} AS rel, r, c FROM {v}" for k, v in enumerate(views))


def common_records_sql(views: Sequence[str]) -> str:
    """One row per record present in every release of ``views``: its cluster in
    each, ``c0 ... c{K-1}``."""
    picks = ", ".join(f"min(CASE WHEN rel = {k} THEN c END) AS c{k}" for k in range(len(views)))
    return (
        f"SELECT {picks} FROM ({stacked_sql(views)}) AS s GROUP BY r HAVING count(*) = {len(views)}"
    )


def common_distribution_sql(common: str, n_releases: int) -> str:
    """``(rel, size, clusters)``: per release, the size distribution of its clusters
    over the records of the table ``common`` (:func:`common_records_sql`)."""
    return " UNION ALL ".join(
        f"SELECT {k} AS rel, n AS size, count(*) AS clusters FROM "
        f"(SELECT c{k}, count(*) AS n FROM {common} GROUP BY c{k}) AS g{k} GROUP BY n"
        for k in range(n_releases)
    )


def _split(rel: IntArray, size: IntArray, clusters: IntArray, k: int) -> list[Summary | None]:
    """One summary per release from the rows ``(rel, size, clusters)`` (None for a
    release without a common record)."""
    out: list[Summary | None] = []
    for q in range(k):
        mine = rel == q
        order = np.argsort(size[mine])
        sizes, counts = size[mine][order], clusters[mine][order]
        n = int((sizes * counts).sum())
        out.append(_summary(n, sizes, counts) if n else None)
    return out


def _fetch_distribution(db: Database, query: str, k: int) -> list[Summary | None]:
    got = db.fetch_numpy(query)
    rel, size, clusters = (np.asarray(got[c], dtype=np.int64) for c in ("rel", "size", "clusters"))
    return _split(rel, size, clusters, k)


def _common(db: Database, views: Sequence[str]) -> list[Summary | None]:
    """The summaries of every release over the records present in every release."""
    db.execute(f"CREATE TEMP TABLE common_records AS {common_records_sql(views)}")
    return _fetch_distribution(
        db, common_distribution_sql("common_records", len(views)), len(views)
    )


def release_summaries(
    db: Database,
    sources: Sequence[tuple[str, Any]],
    *,
    record_col: Columns,
    cluster_col: Columns,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Summary], list[Summary | None]]:
    """The summary of every release, and of every release restricted to the records
    present in every release (``None`` for each when there is none).

    Raises
    ------
    InputTypeError
        The releases' record ids are not of one kind.
    RecordMismatchError
        No record is in every release.
    """

    def say(what: str) -> None:
        if progress is not None:
            progress(f"{what} ({db.name})")

    records = column_names(record_col, name="record_col")
    clusters = column_names(cluster_col, name="cluster_col")
    specs = [
        SideSpec(f"v{k}", data, f"release {label}", records, clusters)
        for k, (label, data) in enumerate(sources)
    ]
    say("reading the releases")
    try:
        rows = db.load(specs, id_type="exact")
    except IdKindError as exc:  # the first release of another kind than the first's
        label = {spec.name: label for spec, (label, _) in zip(specs, sources, strict=True)}
        raise InputTypeError(
            f"record ids of release {label[exc.sides[1]]!r} are {'/'.join(exc.kinds[1])} but "
            f"those of release {sources[0][0]!r} are {'/'.join(exc.kinds[0])}; give every "
            "release the same id type"
        ) from None
    views = [spec.view for spec in specs]
    summaries = []
    say("counting the cluster sizes")
    for view, spec, n in zip(views, specs, rows, strict=True):
        check_unique(db, view, spec.name)
        summaries.append(_summary(int(n), *size_distribution(db, view)))
    say("joining the releases")
    common = _common(db, views)
    if all(s is None for s in common):
        raise RecordMismatchError("'releases' have no record in common")
    return summaries, common
