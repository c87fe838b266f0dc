"""Helpers shared by the sub-commands: error handling and output formats."""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any, Literal, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from .._errors import InputError, InputTypeError, MissingDependencyError

P = ParamSpec("P")
R = TypeVar("R")

OutputFormat = Literal["table", "json", "csv"]

#: Exit code for bad input (same as a usage error).
EXIT_BAD_INPUT = 2

_stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> typer.Exit:
    """Print ``message`` as an error and return the Exit to raise (code 2)."""
    _stderr.print(f"[bold red]error:[/bold red] {message}", markup=True, highlight=False)
    return typer.Exit(EXIT_BAD_INPUT)


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn input errors into a one-line message and exit code 2, with no traceback."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    return func(*args, **kwargs)
                finally:
                    for w in caught:
                        warn(cli_words(str(w.message)))
        except (InputError, InputTypeError, MissingDependencyError) as exc:
            raise fail(_escape(cli_words(str(exc)))) from None
        except FileNotFoundError as exc:
            raise fail(_escape(f"file not found: {exc.filename}")) from None
        except OSError as exc:
            raise fail(
                _escape(f"cannot read or write {exc.filename or ''}: {exc.strerror or exc}")
            ) from None

    return wrapper


#: Python spellings of options in messages, and the CLI flags that say the same.
_CLI_WORDS: tuple[tuple[str, str], ...] = (
    ("id_type='string'", "--id-type string"),
    ("on_mismatch='intersection'", "--on-mismatch intersection"),
    ("on_mismatch='twinless'", "--on-mismatch twinless"),
    ("set record_col / cluster_col", "set --record-col / --cluster-col"),
    ("set left_col / right_col", "set --left-col / --right-col"),
    ("with pred_cluster_col", "with --pred-cluster-col"),
)


def cli_words(message: str) -> str:
    """``message`` with the Python spelling of options replaced by their CLI flags."""
    for python, flag in _CLI_WORDS:
        message = message.replace(python, flag)
    return message


def warn(message: str) -> None:
    """Print ``message`` on stderr as a one-line warning."""
    _stderr.print(f"[bold yellow]warning:[/bold yellow] {_escape(message)}", markup=True)


def _escape(text: str) -> str:
    return text.replace("[", r"\[")


def json_ready(value: Any) -> Any:
    """Recursively replace NaN/inf floats by None and NumPy scalars by Python ones."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps_json(value: Any) -> str:
    """JSON text with NaN written as ``null`` (never the invalid token ``NaN``)."""
    return json.dumps(json_ready(value), indent=2, allow_nan=False)


def format_number(value: Any, digits: int = 6) -> str:
    """Render a cell of a human-readable table."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}g}"
    return str(value)


def emit_mapping(
    values: Mapping[str, Any],
    fmt: OutputFormat,
    *,
    title: str | None = None,
    key_header: str = "metric",
    value_header: str = "value",
) -> None:
    """Print a flat mapping of names to values as a table, JSON object or CSV."""
    if fmt == "json":
        sys.stdout.write(dumps_json(dict(values)) + "\n")
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow([key_header, value_header])
        for key, value in json_ready(dict(values)).items():
            writer.writerow([key, "" if value is None else value])
        sys.stdout.write(buf.getvalue())
    else:
        table = Table(title=title, show_header=True, header_style="bold")
        table.add_column(key_header)
        table.add_column(value_header, justify="right")
        for key, value in values.items():
            table.add_row(key, format_number(value))
        Console().print(table)


def emit_records(
    rows: list[Mapping[str, Any]],
    columns: list[str],
    fmt: OutputFormat,
    *,
    title: str | None = None,
) -> None:
    """Print rows (a list of mappings sharing ``columns``) as a table, JSON list or CSV."""
    if fmt == "json":
        sys.stdout.write(dumps_json([{c: r.get(c) for c in columns} for r in rows]) + "\n")
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        for row in json_ready(rows):
            writer.writerow(["" if row.get(c) is None else row.get(c) for c in columns])
        sys.stdout.write(buf.getvalue())
    else:
        table = Table(title=title, show_header=True, header_style="bold")
        for c in columns:
            table.add_column(c)
        for row in rows:
            table.add_row(*(format_number(row.get(c)) for c in columns))
        Console().print(table)


def check_key_column(frame: Any, column: str, key_col: str, *, option: str, source: str) -> None:
    """Check that ``frame`` (the file named ``source``) has ``column`` without gaps, and
    the key column ``key_col`` it is read per value of."""
    if column not in frame.columns:
        raise InputError(
            f"'{option}': {source} has no column '{column}'; its columns are "
            f"{[str(c) for c in frame.columns]}"
        )
    if key_col not in frame.columns:
        raise InputError(f"'{option}' needs {source}'s column '{key_col}'")
    if frame[column].isna().any():
        raise InputError(f"'{option}': column '{column}' has missing values")
