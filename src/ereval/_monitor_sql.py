"""The summaries of a series of releases computed by an SQL engine, where the data is.

Each release is loaded as the view ``v<k>(r, c)`` of the engine's
:class:`~ereval.engines.Database` and checked as the in-memory reader checks it
(rows, missing and repeated ids, ids of one kind in every release). Two kinds of
aggregate come back, both of the size of the distinct cluster sizes:

* per release, its cluster-size distribution (:func:`ereval.engines._sources.size_distribution`),
  which gives its :class:`~ereval.summary.Summary`;
* per release, the size distribution of its clusters restricted to the records
  present in every release (Binette et al. 2024, Figure 5). The releases are
  stacked (``UNION ALL``, a release number ``rel`` per row); a record is in
  every one of the ``K`` releases when its key occurs ``K`` times (each release
  holds a record once), which a window over the record key counts; the common
  records are then grouped by ``(rel, c)`` and the groups' sizes counted.

Under a memory limit DuckDB does the second in the passes of
:mod:`ereval.engines._plan`: the stacked rows are hash-partitioned by record key
(a record falls in one pass, in every release), each pass adds the
``(rel, c, n)`` counts of its common records, and the counts are summed per
cluster in passes of ``hash(c)`` (a cluster falls in one merge pass):

.. math::  |C \\cap R_{common}| = \\sum_{k=0}^{P-1} |C \\cap R^{(k)}_{common}|.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._errors import IdKindError, InputTypeError, RecordMismatchError
from .engines import Database
from .engines._plan import Pass, in_passes, key_hash, run_split
from .engines._sources import SideSpec, check_unique, size_distribution
from .io import Columns, column_names
from .summary import Summary

__all__ = ["release_summaries", "stacked_sql", "common_sizes_sql"]

IntArray = npt.NDArray[np.int64]


def _summary(n_records: int, sizes: IntArray, counts: IntArray) -> Summary:
    """The summary of a clustering of ``n_records`` records from its size distribution
    (sizes ascending), as :func:`ereval.summary.summary_from_codes` counts it."""
    singles = int(counts[0]) if sizes.shape[0] and sizes[0] == 1 else 0
    return Summary(n_records, int(counts.sum()), n_records - singles, sizes, counts)


def stacked_sql(views: Sequence[str]) -> str:
    """Every release's rows with its number: ``(rel, r, c)``."""
    return " UNION ALL ".join(f"SELECT {k} AS rel, r, c FROM {v}" for k, v in enumerate(views))


def common_sizes_sql(stacked: str, n_releases: int, where: str = "true") -> str:
    """Per release and cluster, its records present in every release: ``(rel, c, n)``,
    over the rows of ``stacked`` (``rel, r, c``) that satisfy ``where``."""
    return (
        "SELECT rel, c, count(*) AS n FROM (SELECT rel, c, count(*) OVER (PARTITION BY r) AS m "
        f"FROM ({stacked}) AS s WHERE {where}) AS w WHERE m = {n_releases} GROUP BY rel, c"
    )


def _distribution_sql(groups: str) -> str:
    """``(rel, size, clusters)`` from groups ``(rel, c, n)``."""
    return f"SELECT rel, n AS size, count(*) AS clusters FROM ({groups}) AS g GROUP BY rel, n"


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


def _common_in_passes(db: Database, views: Sequence[str], planned: int) -> list[Summary | None]:
    """The common records' summaries, the join and the merge each in ``planned``
    passes (more when a pass runs out of memory; DuckDB)."""
    k = len(views)
    if planned <= 1:
        groups = common_sizes_sql(stacked_sql(views), k)
        return _fetch_distribution(db, _distribution_sql(groups), k)
    hashed = key_hash(db, views)
    db.execute(
        f"CREATE TEMP TABLE stacked AS SELECT {hashed} % {planned} AS q, {hashed} AS h, "
        f"rel, r, c FROM ({stacked_sql(views)}) AS s ORDER BY q"
    )  # sorted by pass, so that a pass reads only its own blocks (DuckDB's zone maps)
    parts = "SELECT rel, c, n, hash(rel, c) % {p} AS q, hash(rel, c) AS h FROM ({g}) AS g"
    first = common_sizes_sql("SELECT rel, r, c FROM stacked", k, "false")
    db.execute(f"CREATE TEMP TABLE common_parts AS {parts.format(p=planned, g=first)}")
    oom = db.out_of_memory

    def join(piece: Pass) -> None:
        where = piece.where("q", "h", planned)
        groups = common_sizes_sql(f"SELECT rel, r, c FROM stacked WHERE {where}", k)
        db.execute(f"INSERT INTO common_parts {parts.format(p=planned, g=groups)}")

    run_split(planned, join, oom)
    db.execute("DROP TABLE stacked")
    db.execute("CREATE TEMP TABLE common_sorted AS SELECT * FROM common_parts ORDER BY q")
    db.execute("DROP TABLE common_parts")
    merged = "SELECT rel, c, sum(n) AS n FROM common_sorted WHERE {w} GROUP BY rel, c"
    db.execute(f"CREATE TEMP TABLE common_sizes AS {_distribution_sql(merged.format(w='false'))}")

    def merge(piece: Pass) -> None:
        groups = merged.format(w=piece.where("q", "h", planned))
        db.execute(f"INSERT INTO common_sizes {_distribution_sql(groups)}")

    run_split(planned, merge, oom)
    db.execute("DROP TABLE common_sorted")
    query = (
        "SELECT rel, size, CAST(sum(clusters) AS BIGINT) AS clusters FROM common_sizes "
        "GROUP BY rel, size"
    )
    return _fetch_distribution(db, query, k)


def _common(db: Database, views: Sequence[str], rows: int) -> list[Summary | None]:
    """:func:`_common_in_passes` in the passes of the memory limit's plan
    (:func:`ereval.engines._plan.in_passes`)."""
    tables = ("stacked", "common_parts", "common_sorted", "common_sizes")
    return in_passes(db, rows, lambda passes: _common_in_passes(db, views, passes), leaves=tables)


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
    except IdKindError as exc:
        raise InputTypeError(
            "record ids of the releases are of different kinds "
            f"({'/'.join(exc.kinds[0])} and {'/'.join(exc.kinds[1])}); give every release "
            "the same id type"
        ) from None
    views = [spec.view for spec in specs]
    summaries = []
    say("counting the cluster sizes")
    for view, spec, n in zip(views, specs, rows, strict=True):
        check_unique(db, view, spec.name)
        summaries.append(_summary(int(n), *size_distribution(db, view)))
    say("joining the releases")
    common = _common(db, views, sum(rows))
    if all(s is None for s in common):
        raise RecordMismatchError("'releases' have no record in common")
    return summaries, common
