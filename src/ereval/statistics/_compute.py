"""The contingency table and its statistics computed by any engine, as jobs.

:func:`compute_table` and :func:`compute_statistics` hand an engine a job
(:class:`~ereval.engines.Job`): the NumPy engine builds the table in memory
(:func:`ereval.contingency.contingency_table`); an SQL engine loads the two sides
as the views ``t`` and ``p`` of its :class:`~ereval.engines.Database` and runs
the statements of :mod:`ereval.statistics._cells` and :mod:`ereval.statistics._sql`
written against its dialect: per side one scan for missing ids, then one full
outer join on the record id grouped by the pair of cluster ids. When the backend
streams Arrow cheaply (``dialect.native_arrow``, DuckDB) and the cells are not
wanted, the join's groups stream straight into NumPy (:mod:`ereval.statistics._stream`);
otherwise the groups are written to a table ``cells`` first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Unpack

from .._errors import InputError
from .._validation import check_choice
from ..contingency import ContingencyTable, contingency_table
from ..engines import Database, Engine, EngineName, get_engine
from ..engines._duckdb import is_relation
from ..engines._plan import in_passes, over_limit
from ..engines._sources import is_link_only, side_specs
from ..engines._spark_session import is_spark_dataframe
from ..io import AlignOptions, MismatchPolicy
from . import CELLS_WANTED, CellsWanted, Statistics, TableStatistics, statistics_of
from ._cells import checked_cells, coded_table, completed_rows, keyed_table, within_source
from ._sql import duckdb_table_statistics
from ._stream import statistics_within, streamed_statistics

__all__ = [
    "TABLE_CELL_BYTES",
    "cells_fit",
    "cells_statistics",
    "compute_statistics",
    "compute_table",
    "in_memory_inputs",
    "joined_cells",
]


def compute_table(
    engine: EngineName | Engine, truth: Any, pred: Any, **options: Unpack[AlignOptions]
) -> ContingencyTable:
    """The contingency table of ``truth`` against ``pred`` built by ``engine`` (an
    engine or its name, :func:`ereval.engines.get_engine`); ``options`` are those of
    :func:`ereval.io.align`. Every engine gives the same table.

    Examples
    --------
    >>> from ereval.engines import NumpyEngine
    >>> compute_table(NumpyEngine(), [[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]]).n_records
    5
    """
    builder = get_engine(engine, truth=truth, pred=pred)
    table: ContingencyTable = builder.run(_TableJob(truth, pred, options))
    return table


def compute_statistics(
    engine: EngineName | Engine,
    truth: Any,
    pred: Any,
    *,
    cells: CellsWanted = "never",
    progress: Callable[[str], None] | None = None,
    **options: Unpack[AlignOptions],
) -> Statistics:
    """The :class:`~ereval.statistics.Statistics` of the table of ``truth`` against
    ``pred`` computed by ``engine`` where the data is; with the cells (``.table``)
    when ``cells`` is ``"always"``, or ``"twinless"`` and some record is on one side
    only. ``progress``, when given, is called with the name of each long phase.
    Two engines agree exactly on the integers and to about 1e-15 relative on the
    floats.

    Examples
    --------
    >>> from ereval.engines import NumpyEngine
    >>> s = compute_statistics(NumpyEngine(), [[1, 2, 3], [4, 5]], [[1, 2], [3, 4, 5]])
    >>> s.pairs_both, s.n_cells, s.ceafm_total
    (2, 3, 4.0)
    """
    wanted = check_choice("cells", cells, CELLS_WANTED)
    builder = get_engine(engine, truth=truth, pred=pred)
    stats: Statistics = builder.run(_StatisticsJob(truth, pred, wanted, progress, options))
    return stats


def in_memory_inputs(*inputs: Any) -> None:
    """Refuse, with the engine to use instead, a DuckDB relation or a Spark DataFrame
    given to the NumPy engine."""
    if any(is_relation(x) for x in inputs):
        raise InputError(
            "'engine': the NumPy engine does not read DuckDB relations; "
            "use engine='duckdb' (or 'auto')"
        )
    if any(is_spark_dataframe(x) for x in inputs):
        raise InputError(
            "'engine': the NumPy engine does not read Spark DataFrames; "
            "use engine='spark' (or 'auto')"
        )


def _in_memory_table(engine: Any, truth: Any, pred: Any, options: AlignOptions) -> ContingencyTable:
    """The table built in memory (a table given as ``truth``, with ``pred=None``, is
    returned as it is)."""
    in_memory_inputs(truth, pred)
    return contingency_table(truth, pred, **options)


#: Bytes a cell of the table takes in memory once brought back, with the arrays
#: the metrics that read it build (ACE, CONE CEAF and CEAF phi2 together, in
#: parallel: about 225 bytes a cell measured at 3.4 * 10^6 cells).
TABLE_CELL_BYTES = 256


def cells_fit(db: Database, n_cells: int) -> None:
    """Refuse, before they come back, ``n_cells`` cells that the engine's memory limit
    cannot hold (:data:`TABLE_CELL_BYTES` a cell)."""
    over = over_limit(db, n_cells * TABLE_CELL_BYTES)
    if over is not None:
        raise InputError(
            "'metrics': those that read the cells of the table (ace, cone_ceaf, ceaf_phi2) "
            f"hold its {n_cells:,} cells in memory, {over}; leave them out, or raise the limit"
        )


def joined_cells(
    db: Database, rows: tuple[int, int], policy: MismatchPolicy
) -> tuple[int, int, int]:
    """The views ``t`` and ``p`` (of ``rows`` rows) joined into the table ``cells`` by
    :func:`checked_cells` in the passes of the memory limit's plan
    (:func:`ereval.engines._plan.in_passes`); the records on both sides, the truth's
    only and the prediction's only."""

    def run(passes: int) -> tuple[int, int, int]:
        return checked_cells(db, ("t", "p"), rows, policy, db.dialect, passes=passes)

    return in_passes(db, sum(rows), run, leaves=("cells",))


def _streamed(
    db: Database, rows: tuple[int, int], policy: MismatchPolicy, checked: Callable[[], None]
) -> TableStatistics:
    """:func:`streamed_statistics` in the passes of the memory limit's plan
    (:func:`ereval.engines._plan.in_passes`)."""

    def run(passes: int) -> TableStatistics:
        return streamed_statistics(db, ("t", "p"), rows, policy, checked=checked, passes=passes)

    return in_passes(db, sum(rows), run, leaves=("cells",))


class _PairJob:
    """Load ``truth`` and ``pred`` as the views ``t`` and ``p``, then :meth:`work`;
    with the pairs within data sets when the truth carries them."""

    def __init__(self, truth: Any, pred: Any, options: AlignOptions) -> None:
        self.truth, self.pred, self.options = truth, pred, options

    def work(self, db: Database, policy: MismatchPolicy, rows: tuple[int, int]) -> Any:
        """The result from the loaded views."""
        raise InputError(f"'engine': {db.name} cannot compute this")

    def in_sql(self, db: Database) -> Any:
        sides = (("t", self.truth, "truth"), ("p", self.pred, "pred"))
        policy, id_type, specs = side_specs(self.options, sides)
        self.loading(db)
        loaded = db.load(specs, id_type=id_type)
        n_t, n_p = completed_rows(db, specs, loaded, policy, db.dialect)
        result = self.work(db, policy, (n_t, n_p))
        if is_link_only(specs):  # a table or its statistics, with the pairs within
            result = replace(result, within_source=within_source(db, policy, db.dialect))
        return result

    def loading(self, db: Database) -> None:
        """Called before the inputs are read."""


class _TableJob(_PairJob):
    def in_memory(self, engine: Any) -> ContingencyTable:
        return _in_memory_table(engine, self.truth, self.pred, self.options)

    def work(self, db: Database, policy: MismatchPolicy, rows: tuple[int, int]) -> Any:
        joined_cells(db, rows, policy)
        return coded_table(db, policy) if db.dialect.native_arrow else keyed_table(db, policy)


class _StatisticsJob(_PairJob):
    def __init__(
        self,
        truth: Any,
        pred: Any,
        wanted: CellsWanted,
        progress: Callable[[str], None] | None,
        options: AlignOptions,
    ) -> None:
        super().__init__(truth, pred, options)
        self.wanted, self.progress = wanted, progress

    def say(self, what: str, db: Any) -> None:
        if self.progress is not None:
            self.progress(f"{what} ({db.name})")

    def in_memory(self, engine: Any) -> Statistics:
        self.say("reading the clusterings", engine)
        return statistics_of(_in_memory_table(engine, self.truth, self.pred, self.options))

    def loading(self, db: Database) -> None:
        self.say("reading the clusterings", db)

    def work(self, db: Database, policy: MismatchPolicy, rows: tuple[int, int]) -> Any:
        wanted = self.wanted
        self.say("joining the records", db)
        # only under policy="twinless" may a record be on one side only
        no_cells = wanted == "never" or (wanted == "twinless" and policy != "twinless")
        if no_cells and db.dialect.native_arrow:
            # the groups stream out of the join into NumPy, no table is written
            return _streamed(db, rows, policy, lambda: self.say("computing the statistics", db))
        both, only_t, only_p = joined_cells(db, rows, policy)
        if policy == "intersection":
            only_t = only_p = 0
        self.say("computing the statistics", db)
        return cells_statistics(
            db, policy, (both, only_t, only_p), wanted, lambda: self.say("fetching the cells", db)
        )


def cells_statistics(
    db: Database,
    policy: MismatchPolicy,
    records: tuple[int, int, int],
    wanted: CellsWanted,
    fetching: Callable[[], None] | None = None,
) -> TableStatistics:
    """The statistics of the table ``cells`` (``records`` on both sides, on the truth's
    only and on the prediction's only), with the cells themselves when ``wanted``
    (after checking that they fit the memory limit; ``fetching`` is called first).
    Without the cells, DuckDB keeps within its memory limit (sweeps over the groups
    when their arrays would not fit)."""
    if wanted == "never" and db.dialect.native_arrow:
        return statistics_within(db, "cells", policy, records, db.memory_bytes())
    stats = duckdb_table_statistics(db, "cells", policy, *records, db.dialect)
    if wanted == "always" or (wanted == "twinless" and stats.has_twinless):
        cells_fit(db, stats.n_cells)
        if fetching is not None:
            fetching()
        table = coded_table(db, policy) if db.dialect.native_arrow else keyed_table(db, policy)
        stats = replace(stats, table=table)
    return stats
