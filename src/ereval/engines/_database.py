"""What an SQL engine hands a job: a connection with its dialect (:class:`Database`).

A job is an object with two methods (:class:`Job`): ``in_memory(engine)``, run by
the NumPy engine, and ``in_sql(db)``, run by an SQL engine with a
:class:`Database` open for the job and closed after it. The job loads its inputs
as views with :meth:`Database.load`, runs its statements with
:meth:`Database.execute` (or the ``fetch_*`` methods) written against
:attr:`Database.dialect`, and pushes small Arrow tables in with
:meth:`Database.push`. The engine turns its backend's errors into one line
(:class:`~ereval.InputError`); the job never looks at which engine runs it.
"""

from __future__ import annotations

import contextlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import numpy as np

from .._errors import InputError
from ._dialect import Dialect

if TYPE_CHECKING:
    from ._sources import SideSpec

__all__ = ["Database", "Job", "LoadAndRun"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Job(Protocol[T_co]):
    """Work an engine runs: in memory (NumPy) or in SQL (DuckDB, Spark)."""

    def in_memory(self, engine: Any) -> T_co:
        """The result computed in memory by ``engine``."""
        ...

    def in_sql(self, db: Database) -> T_co:
        """The result computed with the SQL connection ``db``."""
        ...


class Database(ABC):
    """The connection of an SQL engine, open for one job.

    ``execute(query)`` returns the statement's result, read with ``fetchall()``,
    ``fetchnumpy()`` or ``fetch_arrow_table()`` (DuckDB's names; the Spark
    engine's results answer to them too).
    """

    #: The engine's name, for messages (``"reading the records (duckdb)"``).
    name: str
    #: The SQL dialect the job's statements are written in.
    dialect: Dialect
    #: The kinds of the record keys of the sides :meth:`load` read last, one tuple a
    #: side (a kind per column of the key), named as :func:`ereval.io.id_kind` names them.
    kinds: list[tuple[str, ...]]

    @abstractmethod
    def execute(self, query: str) -> Any:
        """Run ``query``; its result (see the class)."""

    def fetch_all(self, query: str) -> list[tuple[Any, ...]]:
        """The rows of ``query``."""
        return [tuple(row) for row in self.execute(query).fetchall()]

    def fetch_numpy(self, query: str) -> dict[str, np.ndarray]:
        """The columns of ``query`` as NumPy arrays."""
        return dict(self.execute(query).fetchnumpy())

    def fetch_arrow(self, query: str) -> Any:
        """The rows of ``query`` as one Arrow table."""
        return self.execute(query).fetch_arrow_table()

    def fetch_frame(self, query: str) -> Any:
        """The rows of ``query`` as a pandas frame, ids as written: an integer column
        with NULLs keeps its integers (Python ints, ``None`` where missing), never
        floats that round ids beyond 2^53."""
        return self.fetch_arrow(query).to_pandas(integer_object_nulls=True)

    def fetch_batches(self, query: str, rows: int = 1 << 20) -> Iterator[Any]:
        """The rows of ``query`` as Arrow record batches of about ``rows`` rows."""
        yield from self.fetch_arrow(query).to_batches(max_chunksize=rows)

    @property
    def out_of_memory(self) -> tuple[type[BaseException], ...]:
        """The backend's errors of a statement that ran out of memory (none by default)."""
        return ()

    def planned_passes(self, rows: int) -> int:
        """The passes over the records a join of ``rows`` rows is split into (one by
        default)."""
        return 1

    def pass_plan(self, rows: int) -> tuple[int, int]:
        """The passes a join of ``rows`` rows is tried in first, and those it is run in
        again if that runs out of memory (one, then two, by default)."""
        planned = self.planned_passes(rows)
        return planned, max(2, planned)

    def memory_bytes(self) -> int | None:
        """The bytes the job may use (the engine's memory limit), ``None`` when it has
        none (the default)."""
        return None

    def hold_memory(self, size: int) -> contextlib.AbstractContextManager[None]:
        """A context in which the backend keeps ``size`` bytes of its memory limit free,
        for NumPy arrays held while it works (nothing by default)."""
        return contextlib.nullcontext()

    def nan_seen(self) -> contextlib.AbstractContextManager[None]:
        """A context in which a float read from a file is NaN by its value, whatever the
        file's statistics say (which leave NaN out of a column's range); nothing by
        default."""
        return contextlib.nullcontext()

    def lend_memory(self, records: int) -> contextlib.AbstractContextManager[None]:
        """A context in which the backend gives back the memory it keeps, for NumPy
        arrays of about ``records`` rows built from its results (nothing by default)."""
        return contextlib.nullcontext()

    @abstractmethod
    def push(self, name: str, table: Any) -> None:
        """Make the Arrow table ``table`` the view ``name``."""

    @abstractmethod
    def load(self, sides: Sequence[SideSpec], *, id_type: str = "exact") -> list[int]:
        """Make each side the view ``spec.view(r, c, ...)`` by the rules of
        :mod:`ereval.io`; the number of rows of each (and their kinds in
        :attr:`kinds`). Every side is checked for rows and missing ids; record ids of
        different kinds on two sides are an error unless ``id_type="string"``."""

    def copy_to(self, query: str, path: str | os.PathLike[str], fmt: str) -> int:
        """Write the rows of ``query`` to the file ``path`` (``fmt``: ``"csv"``,
        ``"csv.gz"`` or ``"parquet"``), when the engine writes files itself
        (see ``Engine.writes_files``); the number of rows written."""
        raise InputError(
            f"'out': only the DuckDB engine writes the table itself; the {self.name} "
            "engine returns it (write the DataFrame)"
        )


class LoadAndRun(Generic[T]):
    """A job that loads ``sides`` (:meth:`Database.load`) then returns ``work(db,
    rows)``; in memory it returns ``in_memory()``, or raises ``InputError(refusal)``
    when no in-memory way is given."""

    def __init__(
        self,
        sides: Sequence[SideSpec],
        work: Callable[[Database, list[int]], T],
        *,
        id_type: str = "exact",
        in_memory: Callable[[], T] | None = None,
        refusal: str = "'engine': this work needs an SQL engine ('duckdb' or 'spark')",
    ) -> None:
        self.sides, self.work, self.id_type = sides, work, id_type
        self.memory, self.refusal = in_memory, refusal

    def in_memory(self, engine: Any) -> T:
        """``in_memory()``, or the refusal."""
        if self.memory is None:
            raise InputError(self.refusal)
        return self.memory()

    def in_sql(self, db: Database) -> T:
        """Load the sides, then run the work."""
        return self.work(db, db.load(self.sides, id_type=self.id_type))
