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
* One input may be several part files: a glob (``parts/*.parquet``) or a
  folder of parts as Spark and DuckDB write them (``_SUCCESS``, ``.crc`` and
  hidden files are skipped). The parts must be of one kind and have the same
  columns; they are read as one table, in the sorted order of their paths.

Unreadable or malformed files raise :class:`~ereval.InputError` naming the
argument and the path.
"""

from __future__ import annotations

import csv
import glob
import gzip
import os
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FileSpec",
    "count_rows",
    "file_spec",
    "header",
    "read_arrow",
    "read_table",
    "release_arrow_memory",
    "text_offsets",
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
    """How a file is read: its path, format, CSV delimiter and compression.

    ``path`` is what was given (a file, a folder or a glob); ``parts`` are the
    files read, in order (the file itself for one file).
    """

    path: Path
    format: FileFormat
    delimiter: str = ","
    gzip: bool = False
    parts: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        if not self.parts:
            object.__setattr__(self, "parts", (self.path,))


def _suffix(path: Path) -> tuple[str, bool]:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes[-1:] == [".gz"] and len(suffixes) >= 2:
        return suffixes[-2], True
    return (suffixes[-1] if suffixes else ""), False


def _kind(p: Path, name: str) -> tuple[FileFormat, str, bool]:
    suffix, gz = _suffix(p)
    if suffix not in _KINDS or (gz and _KINDS[suffix][0] == "parquet"):
        raise InputError(
            f"'{name}': expected a file ending in .csv, .csv.gz, .tsv, .txt or .parquet; "
            f"received '{p}'"
        )
    fmt, delimiter = _KINDS[suffix]
    return fmt, delimiter, gz


def _is_part(p: Path) -> bool:
    """False for the bookkeeping files that Spark, Hadoop and DuckDB write beside parts."""
    return not p.name.startswith((".", "_")) and not p.name.endswith(".crc") and p.is_file()


def _has_magic(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def file_spec(path: str | os.PathLike[str], *, name: str = "file") -> FileSpec:
    """Check that ``path`` is an existing file (or a glob or folder of part files) of a
    known kind and say how to read it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for part in ("part-0.csv", "part-1.csv", "_SUCCESS", ".part-0.csv.crc"):
    ...     _ = (folder / part).write_text("record_id,cluster_id\\n")
    >>> [p.name for p in file_spec(folder).parts]
    ['part-0.csv', 'part-1.csv']
    >>> [p.name for p in file_spec(folder / "part-*.csv").parts]
    ['part-0.csv', 'part-1.csv']
    """
    p = Path(path)
    if p.is_dir():
        parts = sorted(c for c in p.iterdir() if _is_part(c))
        if not parts:
            raise InputError(
                f"'{name}': the folder '{p}' has no CSV or Parquet part files; expected a "
                "file, a glob or a folder of parts"
            )
    elif p.exists():
        fmt, delimiter, gz = _kind(p, name)
        return FileSpec(p, fmt, delimiter, gz)
    elif _has_magic(str(path)):
        parts = sorted(Path(m) for m in glob.glob(str(path)) if _is_part(Path(m)))
        if not parts:
            raise InputError(f"'{name}': no file matches '{p}'")
    else:
        raise InputError(f"'{name}': file not found: '{p}'")
    for part in parts:
        if _suffix(part)[0] not in _KINDS:
            raise InputError(
                f"'{name}': '{p}' holds '{part.name}', which is not a CSV or Parquet part "
                "(expected files ending in .csv, .csv.gz, .tsv, .txt or .parquet)"
            )
    kinds = {_kind(part, name) for part in parts}
    if len(kinds) > 1:
        raise InputError(
            f"'{name}': the parts of '{p}' must be files of one kind; found "
            + ", ".join(sorted({part.name.split(".", 1)[-1] for part in parts}))
        )
    fmt, delimiter, gz = kinds.pop()
    return FileSpec(p, fmt, delimiter, gz, tuple(parts))


def header(spec: FileSpec, *, name: str = "file") -> list[str]:
    """The column names of a file, without reading its data (the parts of a multi-part
    input must all have the same)."""
    first = _part_header(spec, spec.parts[0], name)
    for part in spec.parts[1:]:
        other = _part_header(spec, part, name)
        if other != first:
            raise InputError(
                f"'{name}': the parts of '{spec.path}' have different columns: "
                f"'{spec.parts[0].name}' has {first[:10]!r}, '{part.name}' has {other[:10]!r}"
            )
    return first


def _part_header(spec: FileSpec, part: Path, name: str) -> list[str]:
    try:
        if spec.format == "parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(part).names)
        opener = gzip.open if spec.gzip else open
        with opener(part, "rt", encoding="utf-8-sig", newline="") as fh:
            row = next(csv.reader(fh, delimiter=spec.delimiter), None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"'{name}': cannot read '{part}' ({exc})") from exc
    except Exception as exc:  # pyarrow's own errors for a malformed Parquet file
        raise InputError(f"'{name}': cannot read '{part}' ({type(exc).__name__}: {exc})") from exc
    if not row:
        raise InputError(f"'{name}': '{part}' is empty; expected a header row")
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

            wanted = None if columns is None else list(columns)
            return _read_parquet(pq, spec.parts, wanted)
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
        return _concat(
            [
                pacsv.read_csv(
                    _source(spec, part),
                    parse_options=pacsv.ParseOptions(delimiter=spec.delimiter),
                    convert_options=convert,
                )
                for part in spec.parts
            ]
        )


def _read_parquet(pq: Any, parts: Sequence[Path], columns: list[str] | None) -> pa.Table:
    """Parquet files, one row group at a time, as a table of one chunk per column
    (read as files rather than through ``pyarrow.dataset``, as ``pq.read_table``
    does, which would import pandas).

    An integer, float or text column without nulls is copied into one array as each
    row group is decoded, so that the decoder's buffers are reused and the whole
    column is never copied again to join its pieces (10^7 text ids: 0.2 CPU s and
    0.2 GB less per side); any other column is joined at the end. The parts of one
    input are joined so when their columns are typed alike (ten parts of 10^6
    records: 0.25 CPU s less than joining them after), else each part is read so
    and the parts' types promoted (:func:`_concat`).

    Each file is decoded in the calling thread, without Arrow's thread pool: the two
    sides of a table are read at once in two threads, and the pool on top of them
    only contended for the cores (two files of 10^7 records: 0.53 CPU s without it,
    0.5 to 1.1 CPU s with it, from one run to the next)."""
    files: list[Any] = []
    try:
        for part in parts:
            files.append(pq.ParquetFile(part))
        names = list(files[0].schema_arrow.names) if columns is None else columns
        kinds = [[f.schema_arrow.field(name).type for name in names] for f in files]
        if any(k != kinds[0] for k in kinds[1:]):
            return _concat([_read_files(names, [f]) for f in files])
        return _read_files(names, files)
    finally:
        for parquet in files:
            parquet.close()


def _read_files(names: list[str], files: list[Any]) -> pa.Table:
    """The columns ``names`` (typed alike in every file) of open Parquet files, their
    row groups joined (:class:`_Joined`)."""
    if len(files) == 1 and files[0].metadata.num_row_groups < 2:
        table: pa.Table = files[0].read(columns=names, use_threads=False)
        return table.combine_chunks()
    schema = files[0].schema_arrow
    n_rows = sum(f.metadata.num_rows for f in files)
    joined = [
        _Joined(
            schema.field(name).type,
            n_rows,
            sum(_encoded_bytes(f.metadata, name) for f in files),
        )
        for name in names
    ]
    for parquet in files:
        for group in range(parquet.metadata.num_row_groups):
            piece = parquet.read_row_group(group, columns=names, use_threads=False)
            for k, column in enumerate(joined):
                column.add(piece.column(k))
            del piece
    return pa.Table.from_arrays([column.finish() for column in joined], names=names)


def _offsets_type(kind: pa.DataType) -> Any:
    """The NumPy type of the offsets of a column of strings (or binaries) of Arrow type
    ``kind``, or ``None`` for another type."""
    if pa.types.is_string(kind) or pa.types.is_binary(kind):
        return np.int32
    if pa.types.is_large_string(kind) or pa.types.is_large_binary(kind):
        return np.int64
    return None


def text_offsets(a: pa.Array) -> npt.NDArray[Any] | None:
    """The ``len(a) + 1`` offsets of a column of strings (or binaries), read from its
    buffer without a copy, or ``None`` for another layout."""
    kind = _offsets_type(a.type)
    if kind is None:
        return None
    buffers = a.buffers()
    if buffers[1] is None:
        return None
    return np.frombuffer(buffers[1], dtype=kind)[a.offset : a.offset + len(a) + 1]


def release_arrow_memory() -> None:
    """Give the memory Arrow's allocator holds but no longer uses back to the system
    (it keeps freed blocks for its own reuse, which NumPy's arrays never get)."""
    pa.default_memory_pool().release_unused()


#: The most bytes a text column of 32-bit offsets reaches (past it, the pieces are
#: kept and concatenated, as Arrow does).
NARROW_REACH = int(np.iinfo(np.int32).max)


def _encoded_bytes(metadata: Any, name: str) -> int:
    """The bytes of column ``name`` across a Parquet file's row groups, as encoded and
    before compression: at least its text's bytes when its pages are written plain
    (a dictionary's pages may hold fewer)."""
    groups = (metadata.row_group(g) for g in range(metadata.num_row_groups))
    return sum(
        int(group.column(k).total_uncompressed_size)
        for group in groups
        for k in range(group.num_columns)
        if group.column(k).path_in_schema == name
    )


class _Joined:
    """The pieces of one column, joined: copied into NumPy buffers while they are
    integers, floats or text without nulls, else kept as Arrow chunks and
    concatenated."""

    def __init__(self, kind: pa.DataType, size: int, encoded_bytes: int = 0) -> None:
        self.kind = kind
        self.buffer: Any = None
        self.text: _Text | None = None
        if pa.types.is_integer(kind) or kind in (pa.float32(), pa.float64()):
            self.buffer = np.empty(size, dtype=np.dtype(kind.to_pandas_dtype()))
        elif _offsets_type(kind) is not None:
            self.text = _Text(kind, size, encoded_bytes)
        self.at = 0
        self.chunks: list[pa.Array] = []

    def add(self, column: pa.ChunkedArray) -> None:
        for chunk in column.chunks:
            if self.text is not None and self.text.add(chunk):
                continue
            if self.text is not None:  # nulls, or more text than its offsets reach
                self.chunks.append(self.text.finish())
                self.text = None
            if self.buffer is not None and chunk.null_count == 0:
                self.buffer[self.at : self.at + len(chunk)] = np.from_dlpack(chunk)
                self.at += len(chunk)
                continue
            if self.buffer is not None:  # nulls: the pieces so far become a chunk
                self.chunks.append(self._wrap(self.buffer[: self.at]))
                self.buffer = None
            self.chunks.append(chunk)

    def _wrap(self, values: Any) -> pa.Array:
        return pa.Array.from_buffers(self.kind, len(values), [None, pa.py_buffer(values)])

    def finish(self) -> pa.Array:
        if self.text is not None:
            return self.text.finish()
        if self.buffer is not None:
            return self._wrap(self.buffer[: self.at])
        return pa.concat_arrays(self.chunks)


class _Text:
    """Pieces of a text (or binary) column without nulls, their offsets and bytes
    copied into two NumPy buffers. The bytes' buffer is sized from the column's
    encoded size (pages it never writes are never mapped) and grows when a
    dictionary's pages held less."""

    def __init__(self, kind: pa.DataType, size: int, encoded_bytes: int) -> None:
        self.kind = kind
        offsets = _offsets_type(kind)
        self.limit = NARROW_REACH if offsets is np.int32 else np.iinfo(np.int64).max
        self.offsets = np.zeros(size + 1, dtype=offsets)
        self.data = np.empty(max(encoded_bytes, 1 << 16), dtype=np.uint8)
        self.rows = 0

    def add(self, chunk: pa.Array) -> bool:
        """Copy ``chunk`` in; ``False`` (nothing copied) for a chunk with nulls, of
        another layout, or past the offsets' reach."""
        got = text_offsets(chunk) if chunk.null_count == 0 else None
        if got is None or self.rows + len(chunk) >= self.offsets.shape[0]:
            return False
        first, last = int(got[0]), int(got[-1])
        start = int(self.offsets[self.rows])
        stop = start + last - first
        if stop > self.limit:
            return False
        if stop > self.data.shape[0]:
            grown = np.empty(max(2 * self.data.shape[0], stop), dtype=np.uint8)
            grown[:start] = self.data[:start]
            self.data = grown
        if last > first:
            raw = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)
            self.data[start:stop] = raw[first:last]
        ends = self.offsets[self.rows + 1 : self.rows + len(chunk) + 1]
        np.subtract(got[1:], first - start, out=ends, casting="unsafe")
        self.rows += len(chunk)
        return True

    def finish(self) -> pa.Array:
        offsets = self.offsets[: self.rows + 1]
        data = self.data[: int(offsets[-1])]
        return pa.Array.from_buffers(
            self.kind, self.rows, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )


def _concat(tables: list[pa.Table]) -> pa.Table:
    """The parts as one table (a column typed differently in two parts is promoted, e.g.
    integers and floats to floats)."""
    if len(tables) == 1:
        return tables[0]
    return pa.concat_tables(tables, promote_options="permissive")


def _source(spec: FileSpec, part: Path) -> Any:
    """What pyarrow's CSV reader reads: the path, or a decompressing stream."""
    if spec.gzip:
        return pa.CompressedInputStream(pa.OSFile(str(part)), "gzip")
    return part


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

            return sum(int(pq.ParquetFile(part).metadata.num_rows) for part in spec.parts)
        import pyarrow.csv as pacsv

        names = header(spec, name=name)
        total = 0
        for part in spec.parts:
            reader = pacsv.open_csv(
                _source(spec, part),
                parse_options=pacsv.ParseOptions(delimiter=spec.delimiter),
                convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in names}),
            )
            total += sum(batch.num_rows for batch in reader)
        return total
