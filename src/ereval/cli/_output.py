"""Output files of the commands: checked before any work, written atomically.

Every path a command writes is checked first (:func:`check_table_path`,
:func:`check_figure_path`, :func:`check_output_path`): its folder exists and is
writable, it is not a folder, its suffix names a format that can be written, and
the packages the format needs are installed. The files are then written at the
end, all at once, by :class:`Outputs`: each goes to a temporary file in the
target's folder and replaces the target with :func:`os.replace` only when every
one of them was written, so a failure leaves no partial or stale file behind and
a file the user names is exactly the file written.

No command writes over one of its inputs: :func:`handle_errors
<ereval.cli._common.handle_errors>` records the files a command was given
(:func:`command_inputs`) and every output check refuses a path that names one
of them, as the same path or as the same file under another name (a hard or
symbolic link), before any work starts (:func:`check_not_input`).
"""

from __future__ import annotations

import contextlib
import contextvars
import glob
import gzip
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from .._optional import require

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "TABLE_SUFFIXES",
    "Outputs",
    "atomic_write",
    "check_figure_path",
    "check_not_input",
    "check_output_path",
    "check_table_path",
    "command_inputs",
    "write_figure",
    "write_table",
]

#: Suffixes of the table files the commands write.
TABLE_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".parquet", ".pq", ".json")


def _suffix(path: Path, allowed: Iterable[str]) -> str | None:
    """The longest of ``allowed`` that ``path``'s name ends with (case-insensitive)."""
    name = path.name.lower()
    hits = [s for s in allowed if name.endswith(s) and len(name) > len(s)]
    return max(hits, key=len) if hits else None


def _listing(suffixes: Iterable[str]) -> str:
    items = sorted(dict.fromkeys(suffixes))
    return ", ".join(items[:-1]) + f" or {items[-1]}" if len(items) > 1 else items[0]


#: The files given to the running command: (option or argument name, path).
_inputs_var: contextvars.ContextVar[tuple[tuple[str, Path], ...]] = contextvars.ContextVar(
    "ereval_cli_inputs", default=()
)


@contextlib.contextmanager
def command_inputs(given: Sequence[tuple[str, Path]]) -> Iterator[None]:
    """Record the files given to a command (``(flag or ARGUMENT, path)``) while it runs."""
    token = _inputs_var.set(tuple(given))
    try:
        yield
    finally:
        _inputs_var.reset(token)


def expand_input(value: str) -> list[Path]:
    """The files a text argument names: itself, a folder's files, or a glob's matches."""
    path = Path(value)
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file())
    if glob.has_magic(value):
        return [Path(p) for p in sorted(glob.glob(value)) if Path(p).is_file()]
    return [path]


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same path, or links to the same file."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.abspath(a) == os.path.abspath(b) or a.resolve() == b.resolve()


def check_not_input(path: Path, *, flag: str) -> Path:
    """Refuse ``path`` as the output of ``flag`` when it names one of the command's inputs.

    The inputs are those recorded by :func:`command_inputs` (every command records
    its file options and arguments), others than ``flag`` itself (a file an option
    both reads and rewrites, like ``--state``, is its own). The same path, and the
    same file under another name (a hard or symbolic link), are refused.

    Raises
    ------
    InputError
        One line naming ``flag``, the input and its option.
    """
    for other, given in _inputs_var.get():
        if other == flag:
            continue
        if _same_file(path, given):
            if os.path.abspath(given) == os.path.abspath(path):
                what = f"'{path}' is the file given to '{other}'"
            else:
                what = f"'{path}' is the same file as '{given}', given to '{other}'"
            raise InputError(
                f"'{flag}': {what}; a command never writes over its inputs: name another file"
            )
    return path


def check_output_path(path: Path, *, flag: str, suffixes: Iterable[str] | None = None) -> Path:
    """Check that ``path`` can be written: a writable existing folder, not a folder itself,
    and not one of the command's inputs (:func:`check_not_input`).

    Parameters
    ----------
    path : Path
        The file named with ``flag``.
    flag : str
        The option that named it, e.g. ``"--out"`` (used in the message).
    suffixes : iterable of str, optional
        Allowed endings (lower case, with the dot); any ending when omitted.

    Raises
    ------
    InputError
        One line naming ``flag`` and what is wrong.
    """
    if str(path) in ("", "-"):
        raise InputError(f"'{flag}' needs a file name; received {str(path)!r}")
    if suffixes is not None:
        allowed = tuple(suffixes)
        if _suffix(path, allowed) is None:
            raise InputError(f"'{flag}': '{path}' must end in {_listing(allowed)}")
    parent = path.parent
    if not parent.is_dir():
        # the folder is named with its slash, never mistaken for an option's name
        raise InputError(f"'{flag}': the folder of '{path}' does not exist ('{parent}/')")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"'{flag}': the folder of '{path}' is not writable ('{parent}/')")
    if path.is_dir():
        raise InputError(f"'{flag}': '{path}' is a folder, not a file")
    check_not_input(path, flag=flag)
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"'{flag}': '{path}' exists and is not writable")
    return path


def check_table_path(path: Path, *, flag: str) -> Path:
    """:func:`check_output_path` for a table (CSV, gzipped CSV, Parquet or JSON)."""
    return check_output_path(path, flag=flag, suffixes=TABLE_SUFFIXES)


def figure_suffixes() -> tuple[str, ...]:
    """The figure formats matplotlib can write here (``.png``, ``.pdf``, ``.svg``, ...)."""
    require("matplotlib", feature="writing a figure")
    from matplotlib.backend_bases import FigureCanvasBase

    return tuple(f".{ext}" for ext in FigureCanvasBase.get_supported_filetypes())


def check_figure_path(path: Path, *, flag: str) -> Path:
    """Check a figure's path: matplotlib is installed and knows the format of the suffix."""
    try:
        allowed = figure_suffixes()
    except ImportError as exc:  # MissingDependencyError: name the option
        raise InputError(f"'{flag}': {exc}") from None
    return check_output_path(path, flag=flag, suffixes=allowed)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _temporary(path: Path) -> Path:
    """A new empty file beside ``path`` with the same ending (formats follow suffixes)."""
    ending = "".join(path.suffixes[-2:]) if path.suffix else ""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=ending)
    os.close(fd)
    os.chmod(name, 0o666 & ~_umask())
    return Path(name)


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then move it onto ``path``."""
    with Outputs() as outputs:
        outputs.add(path, write)


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` in the format of its suffix (see :data:`TABLE_SUFFIXES`)."""
    write_table_chunks([frame], path)


def write_table_chunks(frames: Iterable[pd.DataFrame], path: Path) -> None:
    """Write the rows of the frames (one at least, of the same columns, one after the
    other) to ``path`` as one table in the format of its suffix, one frame in memory
    at a time (a Parquet file gets a row group or more of each)."""
    kind = _suffix(path, TABLE_SUFFIXES)
    if kind in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        writer = None
        try:
            for frame in frames:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(path, table.schema)
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
    elif kind == ".json":
        from ._json_text import write_json_chunks

        with path.open("w", encoding="utf-8") as handle:
            write_json_chunks(frames, handle)
    elif kind in (".csv", ".csv.gz"):
        from ._csv_text import write_csv_chunks

        opener = gzip.open if kind == ".csv.gz" else open
        with opener(path, "wt", encoding="utf-8", newline="") as handle:
            write_csv_chunks(frames, handle)
    else:  # checked beforehand by check_table_path
        raise InputError(f"'{path}' must end in {_listing(TABLE_SUFFIXES)}")


def parquet_frames(path: Path) -> Iterator[pd.DataFrame]:
    """The rows of a Parquet file a row group at a time, as frames of the types an
    engine's fetch gives (:meth:`ereval.engines.Database.fetch_frame`: an integer
    column with nulls keeps its integers)."""
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as file:
        for k in range(file.metadata.num_row_groups):
            yield file.read_row_group(k).to_pandas(integer_object_nulls=True)


def write_figure(figure: Any, path: Path, target: Path | None = None) -> None:
    """Save a matplotlib ``figure`` to ``path`` in the format of ``target``'s suffix."""
    fmt = (target or path).suffix.lstrip(".").lower()
    figure.savefig(path, format=fmt, dpi=150, bbox_inches="tight")


class Outputs:
    """Files to write together at the end of a command, all or none.

    Use as a context manager: :meth:`add` records a target and a writer; leaving
    the block without an exception writes every file to a temporary file in the
    target's folder and then moves them all into place. When a writer fails, the
    temporary files are removed and no target is touched.

    >>> from pathlib import Path
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with Outputs() as out:
    ...     out.add(folder / "a.txt", lambda p: p.write_text("a"))
    >>> (folder / "a.txt").read_text()
    'a'
    """

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Callable[[Path], None]]] = []

    def add(self, path: Path, write: Callable[[Path], None]) -> None:
        """Write ``path`` with ``write(tmp_path)`` when the block ends without error."""
        self._pending.append((path, write))

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        pending, self._pending = self._pending, []
        if exc_type is None:
            self.commit(pending)

    @staticmethod
    def commit(pending: list[tuple[Path, Callable[[Path], None]]]) -> None:
        """Write every pending file, then move all of them into place."""
        written: list[tuple[Path, Path]] = []
        try:
            for target, write in pending:
                tmp = _temporary(target)
                written.append((tmp, target))
                write(tmp)
        except BaseException:
            for tmp, _ in written:
                with contextlib.suppress(OSError):
                    tmp.unlink()
            raise
        for tmp, target in written:
            os.replace(tmp, target)
