"""The engine interface, the in-memory engine and the choice of an engine.

An engine runs jobs (:class:`~ereval.engines.Job`): the NumPy engine calls a
job's ``in_memory(engine)``, an SQL engine its ``in_sql(db)`` with a
:class:`~ereval.engines.Database`. The features own the jobs (the table and its
statistics are :func:`ereval.statistics.compute_statistics`); an engine knows
nothing of them.

``get_engine("auto", truth=..., pred=...)`` picks NumPy when the inputs fit
comfortably in memory and DuckDB otherwise:

* a Spark DataFrame on either side picks Spark; a DuckDB relation picks DuckDB;
  in-memory inputs (DataFrames, Arrow tables, dicts, lists, a contingency
  table) pick NumPy;
* for files, the NumPy engine is estimated to need :data:`BYTES_PER_RECORD`
  bytes per record of both files together (the number of rows of a Parquet
  file is read from its metadata; a CSV file is counted as one record per
  :data:`CSV_BYTES_PER_RECORD` bytes, after gzip's usual four-fold
  compression); NumPy is picked when that estimate is at most half the memory
  available now (``MemAvailable`` of ``/proc/meminfo``, or the free pages the
  system reports), DuckDB otherwise.
"""

from __future__ import annotations

import os
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from .._errors import InputError
from .._validation import check_choice
from ..io import file_spec
from ._database import Job
from ._duckdb import DuckDBEngine, is_relation
from ._spark import SparkEngine
from ._spark_session import is_spark_dataframe

__all__ = [
    "BYTES_PER_RECORD",
    "CSV_BYTES_PER_RECORD",
    "ENGINE_NAMES",
    "Engine",
    "EngineName",
    "NumpyEngine",
    "available_memory",
    "get_engine",
    "numpy_bytes",
]

T = TypeVar("T")
EngineName = Literal["auto", "numpy", "duckdb", "spark"]
#: The accepted engine names.
ENGINE_NAMES: tuple[EngineName, ...] = ("auto", "numpy", "duckdb", "spark")
#: Peak memory of the NumPy engine per record of the two inputs together (bytes),
#: measured on text and integer ids with ``benchmarks/bench_engines.py``, rounded up.
BYTES_PER_RECORD = 200
#: Bytes of a CSV file counted as one record by the ``"auto"`` rule (a short row).
CSV_BYTES_PER_RECORD = 10


@runtime_checkable
class Engine(Protocol):
    """Runs jobs (:class:`~ereval.engines.Job`): in memory, or in SQL with a
    :class:`~ereval.engines.Database`; builds the contingency table of two clusterings.
    ``name`` is for display only."""

    name: str
    #: Whether the engine writes a query's rows to a file itself.
    writes_files: bool

    def run(self, job: Job[T]) -> T:
        """The result of ``job`` computed by this engine."""
        ...


class NumpyEngine:
    """The in-memory engine: :func:`ereval.io.align` then its table.

    Reads every input form (files, DataFrames, Arrow and polars tables, dicts,
    lists of clusters); takes no option.
    """

    name = "numpy"
    writes_files = False

    def __repr__(self) -> str:
        return "NumpyEngine()"

    def run(self, job: Job[T]) -> T:
        """``job.in_memory(self)``."""
        return job.in_memory(self)


def available_memory() -> int | None:
    """Bytes of memory available now, or None when the system does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _records(data: Any, name: str) -> int:
    """Estimated number of records of a file (exact for Parquet)."""
    spec = file_spec(data, name=name)
    if spec.format == "parquet":
        import pyarrow.parquet as pq

        try:
            return sum(int(pq.ParquetFile(part).metadata.num_rows) for part in spec.parts)
        except Exception as exc:  # pyarrow's own errors for a malformed file
            raise InputError(
                f"'{name}': cannot read '{spec.path}' ({type(exc).__name__}: {exc})"
            ) from exc
    size = sum(part.stat().st_size for part in spec.parts) * (4 if spec.gzip else 1)
    return size // CSV_BYTES_PER_RECORD + 1


def numpy_bytes(truth: Any, pred: Any = None) -> int | None:
    """Estimated peak memory of the NumPy engine on its files (None unless every input
    given is a file; ``pred`` may be left out for a command reading one clustering)."""
    given = [(x, name) for x, name in ((truth, "truth"), (pred, "pred")) if x is not None]
    if not given or not all(isinstance(x, str | os.PathLike) for x, _ in given):
        return None
    return BYTES_PER_RECORD * sum(_records(x, name) for x, name in given)


def _fits(truth: Any, pred: Any) -> bool:
    need = numpy_bytes(truth, pred)
    if need is None:
        return True
    free = available_memory()
    return free is None or need <= free // 2


def get_engine(
    engine: EngineName | Engine = "auto",
    *,
    truth: Any = None,
    pred: Any = None,
) -> Engine:
    """The engine named ``engine``, checked before any work.

    Parameters
    ----------
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        ``"auto"`` picks by the rule of this module from ``truth`` and ``pred``
        (Spark for a Spark DataFrame input); an :class:`Engine` is returned as it
        is. A name gives the engine with its default options: the options live on
        the engine objects, ``DuckDBEngine(memory_limit=..., threads=...,
        temp_dir=...)`` and ``SparkEngine(master=..., conf=...)``.
    truth, pred : optional
        The inputs, for ``"auto"``.

    Examples
    --------
    >>> get_engine("duckdb")
    DuckDBEngine(memory_limit=None, threads=None, temp_dir=None, passes=None)
    >>> get_engine(DuckDBEngine(threads=2))
    DuckDBEngine(memory_limit=None, threads=2, temp_dir=None, passes=None)
    >>> get_engine("auto", truth={1: "a"}, pred={1: "b"})
    NumpyEngine()
    """
    if isinstance(engine, Engine):
        return engine
    name = check_choice("engine", engine, ENGINE_NAMES)
    if name == "spark" or (
        name == "auto" and (is_spark_dataframe(truth) or is_spark_dataframe(pred))
    ):
        return SparkEngine()
    if name == "numpy":
        return NumpyEngine()
    if name == "duckdb" or is_relation(truth) or is_relation(pred):
        return DuckDBEngine()
    return NumpyEngine() if _fits(truth, pred) else DuckDBEngine()
