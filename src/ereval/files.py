"""The one reader of CSV, TSV and Parquet files, for every command and engine.

Rules (the same for clusterings, samples, pools, ranked lists and pairs, and
for the in-memory and DuckDB engines):

* The kind of file is told by its name: ``.csv``, ``.txt``, ``.tsv`` (each
  optionally ``.gz``), ``.parquet`` or ``.pq``.
* A CSV or TSV file has a header row. Its id columns (the ``text_columns`` a
  caller names: record, cluster, pair and item ids) are read as text, exactly
  as written: ``01``, ``1`` and ``001`` are three ids, and surrounding spaces
  are kept (``" 7"`` is not ``"7"``). Quotes follow the CSV convention and are
  not part of the id. An empty field is a missing value. Other columns are
  typed from their content (integers, floats, booleans, text).
* A Parquet file keeps the types it was written with: integer ids stay
  integers, text stays text.

Unreadable or malformed files raise :class:`~ereval.InputError` naming the
argument and the path.
"""

from __future__ import annotations

import csv
import gzip
import os
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import pyarrow as pa

from ._errors import InputError

__all__ = [
    "FileSpec",
    "count_rows",
    "file_spec",
    "header",
    "read_arrow",
    "read_table",
]

FileFormat = Literal["csv", "parquet"]

_KINDS: dict[str, tuple[FileFormat, str]] = {
    ".csv": ("csv", ","),
    ".txt": ("csv", ","),
    ".tsv": ("csv", "\t"),
    ".parquet": ("parquet", ""),
    ".pq": ("parquet", ""),
}


@dataclass(frozen=True)
class FileSpec:
    """How a file is read: its path, format, CSV delimiter and compression."""

    path: Path
    format: FileFormat
    delimiter: str = ","
    gzip: bool = False


def _suffix(path: Path) -> tuple[str, bool]:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes[-1:] == [".gz"] and len(suffixes) >= 2:
        return suffixes[-2], True
    return (suffixes[-1] if suffixes else ""), False


def file_spec(path: str | os.PathLike[str], *, name: str = "file") -> FileSpec:
    """Check that ``path`` is an existing file of a known kind and say how to read it."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"'{name}': file not found: '{p}'")
    if p.is_dir():
        raise InputError(f"'{name}': expected a CSV or Parquet file; received a directory '{p}'")
    suffix, gz = _suffix(p)
    if suffix not in _KINDS or (gz and _KINDS[suffix][0] == "parquet"):
        raise InputError(
            f"'{name}': expected a file ending in .csv, .csv.gz, .tsv, .txt or .parquet; "
            f"received '{p}'"
        )
    fmt, delimiter = _KINDS[suffix]
    return FileSpec(p, fmt, delimiter, gz)


def header(spec: FileSpec, *, name: str = "file") -> list[str]:
    """The column names of a file, without reading its data."""
    try:
        if spec.format == "parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(spec.path).names)
        opener = gzip.open if spec.gzip else open
        with opener(spec.path, "rt", encoding="utf-8", newline="") as fh:
            row = next(csv.reader(fh, delimiter=spec.delimiter), None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"'{name}': cannot read '{spec.path}' ({exc})") from exc
    except Exception as exc:  # pyarrow's own errors for a malformed Parquet file
        raise InputError(
            f"'{name}': cannot read '{spec.path}' ({type(exc).__name__}: {exc})"
        ) from exc
    if not row:
        raise InputError(f"'{name}': '{spec.path}' is empty; expected a header row")
    return row


def read_arrow(
    path: str | os.PathLike[str] | FileSpec,
    *,
    name: str = "file",
    text_columns: Collection[str] | Literal["all"] = (),
    columns: Collection[str] | None = None,
) -> pa.Table:
    """Read a file into a pyarrow Table by the rules of this module.

    Parameters
    ----------
    path : path or FileSpec
        The file.
    name : str
        The argument name used in error messages.
    text_columns : collection of str or "all"
        Columns of a CSV/TSV file read as text, exactly as written (ignored for
        Parquet, which keeps its types).
    columns : collection of str, optional
        Read only these columns (all when omitted). A missing one is an error.
    """
    spec = path if isinstance(path, FileSpec) else file_spec(path, name=name)
    names = header(spec, name=name)
    if columns is not None:
        absent = [c for c in columns if c not in names]
        if absent:
            raise InputError(
                f"'{name}' has no column(s) {', '.join(repr(c) for c in absent)}; "
                f"its columns are {names[:10]!r}{' ...' if len(names) > 10 else ''}"
            )
    with _read_errors(spec, name):
        if spec.format == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(spec.path, columns=None if columns is None else list(columns))
        import pyarrow.csv as pacsv

        text = names if text_columns == "all" else [c for c in text_columns if c in names]
        if len(set(names)) != len(names):
            dup = sorted({c for c in names if names.count(c) > 1})
            raise InputError(f"'{name}': '{spec.path}' repeats column name(s) {dup!r}")
        convert = pacsv.ConvertOptions(
            column_types={c: pa.string() for c in text},
            null_values=[""],
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
            include_columns=None if columns is None else list(columns),
        )
        return pacsv.read_csv(
            _source(spec),
            parse_options=pacsv.ParseOptions(delimiter=spec.delimiter),
            convert_options=convert,
        )


def _source(spec: FileSpec) -> Any:
    """What pyarrow's CSV reader reads: the path, or a decompressing stream."""
    if spec.gzip:
        return pa.CompressedInputStream(pa.OSFile(str(spec.path)), "gzip")
    return spec.path


@contextmanager
def _read_errors(spec: FileSpec, name: str) -> Iterator[None]:
    """Turn the readers' errors into one :class:`InputError` naming ``name`` and the file."""
    try:
        yield
    except InputError:
        raise
    except (OSError, ValueError, UnicodeDecodeError, pa.ArrowException) as exc:
        raise InputError(
            f"'{name}': cannot read '{spec.path}' as {spec.format} ({_first_line(exc)})"
        ) from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def read_table(
    path: str | os.PathLike[str] | FileSpec,
    *,
    name: str = "file",
    text_columns: Collection[str] | Literal["all"] = (),
    columns: Collection[str] | None = None,
) -> pd.DataFrame:
    """:func:`read_arrow` as a pandas DataFrame (text columns keep pandas' string dtype)."""
    table = read_arrow(path, name=name, text_columns=text_columns, columns=columns)
    return table.to_pandas()


def count_rows(path: str | os.PathLike[str] | FileSpec, *, name: str = "file") -> int:
    """The number of data rows of a file, without holding its data (CSV is streamed)."""
    spec = path if isinstance(path, FileSpec) else file_spec(path, name=name)
    with _read_errors(spec, name):
        if spec.format == "parquet":
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(spec.path).metadata.num_rows)
        import pyarrow.csv as pacsv

        reader = pacsv.open_csv(
            _source(spec),
            parse_options=pacsv.ParseOptions(delimiter=spec.delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in header(spec, name=name)}
            ),
        )
        return sum(batch.num_rows for batch in reader)
