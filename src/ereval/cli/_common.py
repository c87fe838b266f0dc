"""Helpers shared by the sub-commands.

* :class:`App`, :class:`Command`, :class:`Group`: the Typer application classes
  every command is built with (flags show no value type in ``--help``);
* :func:`handle_errors`: bad input becomes a one-line message naming the command-line
  option (``'--noise'``, not the Python parameter ``'flip_probability'``) and exit
  code 2, never a traceback;
* the options every command spells the same way (:data:`FormatOpt`,
  :data:`QuietOpt`, :data:`LevelOpt`, ...);
* printing of results as a table, JSON or CSV (:func:`emit_mapping`,
  :func:`emit_records`, :func:`emit_frame`). JSON and CSV are always complete; a
  table of rows longer than a screenful shows its head and tail, says how many
  rows it leaves out and how to get them (:func:`rows_shown`), and is built for
  the rows shown only, so that printing never takes longer than computing;
* :func:`note_written`: the line saying what a command wrote to ``-o FILE``.
"""

from __future__ import annotations

import contextvars
import csv
import functools
import io
import json
import math
import os
import re
import sys
import typing
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, ParamSpec, TypeVar

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from .._errors import Error, InputError
from ..results import bytes_text, json_ready

if TYPE_CHECKING:  # rich is imported when something is printed through it
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

P = ParamSpec("P")
R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])

OutputFormat = Literal["table", "json", "csv"]

#: Exit code for bad input (same as a usage error).
EXIT_BAD_INPUT = 2
#: Exit code for an unexpected failure (a bug, not bad input).
EXIT_FAILURE = 1
#: Exit code after Ctrl-C.
EXIT_INTERRUPTED = 130
#: Exit code when the reader of the output left before it was all written (``| head``),
#: the code of a command ended by SIGPIPE.
EXIT_READER_GONE = 141

#: Set this environment variable to see the traceback of unexpected errors.
DEBUG_ENV = "EREVAL_DEBUG"

# --------------------------------------------------------------------------- shared options
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format on stdout.")]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Show no progress bar (it goes to stderr only).")
]
LevelOpt = Annotated[
    float, typer.Option("--level", help="Confidence level of the intervals, in (0, 1).")
]
MetricsOpt = Annotated[
    str | None,
    typer.Option("--metrics", "-m", help="Comma-separated estimator keys (default: all)."),
]


# --------------------------------------------------------------------------- application
def _hide_flag_types(params: list[Any]) -> list[Any]:
    """Give flags an empty metavar: Typer's rich help shows ``<bool>`` for them otherwise,
    as if they took a value."""
    for param in params:
        if isinstance(param, TyperOption) and (param.is_flag or param.count):
            if param.metavar is None:
                param.metavar = ""
    return params


_ANALYZE = "ereval analyze --pred PRED --sample SAMPLE --design D (a labelled sample's errors)"
#: Options that earlier versions spelled otherwise: (command, old flag) -> what to write
#: now. An old spelling gets this hint instead of a bare "no such option".
RENAMED_OPTIONS: dict[tuple[str, str], str] = {
    ("oasis estimate", "--confidence"): "--level",
    ("oasis estimate", "--resume"): "--state FILE (it continues the sampler saved in FILE)",
    ("oasis estimate", "--save"): "--state FILE",
    ("oasis estimate", "--pair-id-col"): "--id-col",
    ("oasis estimate", "--epsilon"): "--greediness",
    ("oasis experiment", "--confidence"): "--level",
    ("oasis experiment", "--pair-id-col"): "--id-col",
    ("oasis experiment", "--epsilon"): "--greediness",
    ("simulate", "--estimators"): "-m/--metrics",
    ("errors", "--records-out"): "--by record -o FILE",
    ("errors", "--clusters-out"): "-o FILE (the cluster table is the default, --by cluster)",
    ("paula bounds", "--out-table"): "-o FILE",
    ("paula bounds", "--out-plot"): "--plot FILE",
}

#: Options that moved to another command: (command, flag) -> that command and what it does.
MOVED_OPTIONS: dict[tuple[str, str], str] = {
    ("errors", "--pred"): _ANALYZE,
    ("errors", "--sample"): _ANALYZE,
    ("errors", "--design"): _ANALYZE,
    ("errors", "--weights"): _ANALYZE,
    ("errors", "--weight-kind"): _ANALYZE,
    ("errors", "--blocks"): _ANALYZE,
    ("errors", "--draws"): _ANALYZE,
    ("errors", "--without-replacement"): _ANALYZE,
    ("errors", "--population-size"): _ANALYZE,
    ("errors", "--features"): _ANALYZE,
    ("errors", "--feature-cols"): _ANALYZE,
    ("errors", "--shares"): _ANALYZE,
    ("errors", "--group"): _ANALYZE,
    ("errors", "--bins"): _ANALYZE,
    ("errors", "--metrics"): _ANALYZE,
    ("errors", "--tree"): _ANALYZE,
    ("errors", "--target"): _ANALYZE,
    ("errors", "--max-depth"): _ANALYZE,
    ("errors", "--tags"): _ANALYZE,
    ("errors", "--among"): _ANALYZE,
    ("errors", "--level"): _ANALYZE,
    ("errors", "--plot"): _ANALYZE,
}


def unknown_option_message(command: str, flag: str, known: Sequence[str]) -> str:
    """The one-line error for an option ``command`` does not take: the option's new
    spelling when it was renamed, else the closest known options.

    Examples
    --------
    >>> unknown_option_message("oasis estimate", "--confidence", ["--level", "--budget"])
    "'--confidence' is now '--level' (ereval oasis estimate)"
    >>> unknown_option_message("metrics", "--levle", ["--level", "--beta"])
    "ereval metrics has no option '--levle'; did you mean '--level'?"
    """
    import difflib

    moved = MOVED_OPTIONS.get((command, flag))
    if moved is not None:
        return f"ereval {command} has no option '{flag}': it is an option of {moved}"
    renamed = RENAMED_OPTIONS.get((command, flag))
    if renamed is not None:
        return f"'{flag}' is now '{renamed}' (ereval {command})"
    candidates = [k for k in known if k.startswith("--") and k != "--help"]
    close = difflib.get_close_matches(flag, candidates, n=2, cutoff=0.6)
    hint = "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?" if close else ""
    see = "" if close else f"; see 'ereval {command} --help'"
    return f"ereval {command} has no option '{flag}'{hint}{see}"


class Command(TyperCommand):
    """A command whose help lists flags (``--pairs``, ``--help``) without a value type, in
    the plain layout of :mod:`ereval.cli._help`, and whose unknown options get a one-line
    error with the option meant."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _hide_flag_types(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from ._help import write_help

        write_help(self, ctx, formatter)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        given = list(args)  # click consumes the list it parses
        try:
            parsed: list[str] = super().parse_args(ctx, args)
        except Exception as exc:
            if not _is_usage_error(exc):
                raise
            name = _command_path(ctx) or str(self.name)
            flag = getattr(exc, "option_name", None)
            if type(exc).__name__ == "NoSuchOption" and isinstance(flag, str):
                known = [o for p in self.get_params(ctx) for o in (*p.opts, *p.secondary_opts)]
                raise fail(unknown_option_message(name, flag, known)) from None
            raise fail(usage_message(name, exc, given)) from None
        return parsed


class Group(TyperGroup):
    """A command group whose help lists flags without a value type, in the plain layout of
    :mod:`ereval.cli._help`."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _hide_flag_types(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from ._help import write_help

        write_help(self, ctx, formatter)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        given = list(args)  # click consumes the list it parses
        try:
            parsed: list[str] = super().parse_args(ctx, args)
        except Exception as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                # a group called bare: its help (Typer's error printer shows nothing)
                typer.echo(ctx.get_help())
                raise typer.Exit(0) from None
            if not _is_usage_error(exc):
                raise
            raise fail(usage_message(_command_path(ctx), exc, given)) from None
        return parsed

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except Exception as exc:
            if not _is_usage_error(exc):
                raise
            raise fail(usage_message(_command_path(ctx), exc, args)) from None


def _is_usage_error(exc: BaseException) -> bool:
    """Whether ``exc`` is click's error for a command line it cannot parse (matched by
    name: Typer may carry its own copy of click)."""
    return "UsageError" in {kind.__name__ for kind in type(exc).__mro__}


def _command_path(ctx: Any) -> str:
    """The command's words after the program (``oasis estimate``), empty for the
    program itself."""
    names, up = [], ctx
    while up is not None and up.parent is not None:  # the root is the program
        names.append(str(up.info_name))
        up = up.parent
    return " ".join(reversed(names))


def usage_message(command: str, exc: Any, args: Sequence[str]) -> str:
    """The one-line error for a command line click refuses (a bad option value, a
    missing or extra argument, an unknown command), with the value received when
    click's message leaves it out and a pointer to the command's help.

    Examples
    --------
    >>> class Bad(Exception):
    ...     param = type("P", (), {"opts": ["--threads"]})()
    ...     def format_message(self):
    ...         return "Invalid value for '--threads': Input should be a valid integer"
    >>> usage_message("metrics", Bad(), ["t.csv", "--threads", "x"])
    "ereval metrics: invalid value for '--threads': input should be a valid integer; received 'x'; see 'ereval metrics --help'"
    """
    text = " ".join(str(exc.format_message()).split()).replace("Value error, ", "")
    text = re.sub(r"\.$", "", text.replace(". Did you mean", "; did you mean"))
    received = _received(getattr(getattr(exc, "param", None), "opts", ()), args)
    if received is not None and repr(received) not in text:
        text += f"; received {received!r}"
    program = f"ereval {command}".strip()
    # click's sentence case, in the lower case of our messages: the first word, and the
    # first of the reason after "Invalid value for '--x': " (values, quoted, untouched)
    head, colon, reason = text.partition(": ")
    text = _lower_first(head) + colon + _lower_first(reason)
    see = "" if "did you mean" in text else f"; see '{program} --help'"
    return f"{program}: {text}{see}"


def _lower_first(text: str) -> str:
    """``text`` with its first letter in lower case when it starts a word in lower case
    (``Missing`` but not ``PRED``)."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _received(opts: Sequence[str], args: Sequence[str]) -> str | None:
    """The last value given to an option spelled ``opts`` in ``args``, if any."""
    value = None
    for k, arg in enumerate(args):
        for opt in opts:
            if arg == opt and k + 1 < len(args):
                value = args[k + 1]
            elif opt.startswith("--") and arg.startswith(opt + "="):
                value = arg[len(opt) + 1 :]
    return value


class App(typer.Typer):
    """The Typer application of ``ereval`` and its command groups.

    Builds every command with :class:`Command` and itself with :class:`Group`, so
    the whole application shares one help layout.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", Group)
        kwargs.setdefault("no_args_is_help", True)
        kwargs.setdefault("pretty_exceptions_enable", False)
        super().__init__(**kwargs)

    def command(self, name: str | None = None, **kwargs: Any) -> Callable[[F], F]:
        kwargs.setdefault("cls", Command)
        decorator: Callable[[F], F] = super().command(name, **kwargs)
        return decorator


def examples(*lines: str) -> str:
    """The epilog ending a command's help: one example command per line."""
    return "Examples:\n\n" + "\n".join(lines)


# --------------------------------------------------------------------------- errors
@functools.cache
def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


#: Python parameters of the library whose command-line option has another name
#: (API name -> name of the command's parameter). Used only when the running
#: command has that parameter.
API_NAMES: dict[str, str] = {
    "flip_probability": "noise",
    "n_strata": "strata",
    "estimators": "metrics",
    "confidence": "level",
    "pair_id_col": "id_col",
    "epsilon": "greediness",
    "rate": "error_rate",
    "kind": "plot_kind",
    "replace": "without_replacement",
    "feature_columns": "feature_cols",
    "preds": "pred",
    "oasis_budget": "budget",
    "master": "spark_master",
    "conf": "spark_conf",
}
#: Python parameters that are the negation of their flag (``replace`` vs
#: ``--without-replacement``).
_NEGATED = {"replace"}
#: Values spelled differently on the command line.
CLI_VALUES: dict[str, str] = {
    "cluster_size": "cluster-size",
    "single_block": "single-block",
    "size_stratified": "size-stratified",
    "expected_error": "expected-error",
    "predicted_cluster": "predicted-cluster",
    "inverse_probability": "inverse-probability",
    "precision_yield": "precision-yield",
}

_flags_var: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "ereval_cli_flags", default=None
)


def _option_flags(func: Callable[..., Any]) -> dict[str, str]:
    """Python parameter name -> long flag, for every option of a command function."""
    hints = typing.get_type_hints(func, include_extras=True)
    flags: dict[str, str] = {}
    for name, hint in hints.items():
        for meta in getattr(hint, "__metadata__", ()):
            if not isinstance(meta, typer.models.OptionInfo):
                continue
            decls = [meta.default] if isinstance(meta.default, str) else []
            decls += list(meta.param_decls or ())
            longs = [d.split("/")[0] for d in decls if d.startswith("--")]
            flags[name] = longs[0] if longs else "--" + name.replace("_", "-")
    for api, cli in API_NAMES.items():
        if cli in flags and api not in flags:
            flags[api] = flags[cli]
    return {**flags, **{k.replace("_", "-"): v for k, v in flags.items()}}


def _file_params(func: Callable[..., Any]) -> dict[str, tuple[str, bool]]:
    """The parameters of a command that may name input files: name -> (its option or
    ARGUMENT, whether its value is text to expand as a folder or glob).

    Those typed ``Path`` (or a list of them), every text argument and every list of
    texts (``RELEASES...``, ``--releases``); never a single text option, which names a
    column or a choice.
    """
    hints = typing.get_type_hints(func, include_extras=True)
    flags = _option_flags(func)
    out: dict[str, tuple[str, bool]] = {}
    for name, hint in hints.items():
        metas = getattr(hint, "__metadata__", ())
        base = typing.get_args(hint)[0] if metas else hint
        kinds = set(typing.get_args(base)) | {base}
        for kind in list(kinds):
            kinds |= set(typing.get_args(kind))
        argument = any(isinstance(m, typer.models.ArgumentInfo) for m in metas)
        option = any(isinstance(m, typer.models.OptionInfo) for m in metas)
        if not (argument or option):
            continue
        is_path = Path in kinds
        is_list = any(typing.get_origin(k) is list for k in kinds)
        is_text = str in kinds
        if not (is_path or (is_text and (argument or is_list))):
            continue
        if argument:
            meta = next(m for m in metas if isinstance(m, typer.models.ArgumentInfo))
            shown = str(meta.metavar or name.upper()).rstrip(".")
        else:
            shown = flags.get(name, "--" + name.replace("_", "-"))
        out[name] = (shown, is_text and not is_path)
    return out


def _given_files(
    params: Mapping[str, tuple[str, bool]], values: Mapping[str, Any]
) -> list[tuple[str, Path]]:
    """(option, path) of every file named by the command's arguments ``values``."""
    from ._output import expand_input

    given: list[tuple[str, Path]] = []
    for name, (shown, text) in params.items():
        value = values.get(name)
        if value is None:
            continue
        for one in value if isinstance(value, list | tuple) else [value]:
            if text:
                given.extend((shown, p) for p in expand_input(str(one)))
            elif isinstance(one, str | os.PathLike):
                given.append((shown, Path(one)))
    return given


_VALUE = r"""('[^']*'|"[^"]*"|[\w.+-]+)"""
# a quoted word that names a column, not a parameter or a value
_NOT_A_COLUMN = r"(?<!column )(?<!columns )(?<!\(s\) )"
# ... or that is a data value (in a list, an example, what was received, after a noun)
_NOT_A_NAME = (
    _NOT_A_COLUMN
    + r"(?<!\[)(?<!, )(?<!e\.g\. )(?<!received )"
    + "".join(
        rf"(?<!{noun} )" for noun in ("cluster", "record", "block", "group", "item", "id", "name")
    )
)


def cli_message(text: str, flags: Mapping[str, str] | None = None) -> str:
    """Rewrite the library's parameter names in ``text`` as the command's options.

    ``'flip_probability' must lie in [0, 1]`` becomes ``'--noise' must lie in
    [0, 1]`` and ``pass on_mismatch='twinless'`` becomes ``pass --on-mismatch
    twinless``, for the options of the running command (by default) or ``flags``
    (Python parameter name -> flag).
    """
    table = _flags_var.get() if flags is None else flags
    if table is None or not table:
        return text
    names = "|".join(re.escape(n) for n in sorted(table, key=len, reverse=True))

    def assignment(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2).strip("'\"")
        flag = table[name]
        if name in _NEGATED or name.replace("-", "_") in _NEGATED:
            return flag if value == "False" else f"no {flag}"
        return f"{flag} {CLI_VALUES.get(value, value)}"

    text = re.sub(rf"(?<![\w.'-])({names})={_VALUE}", assignment, text)
    text = re.sub(rf"{_NOT_A_NAME}'({names})'", lambda m: f"'{table[m.group(1)]}'", text)
    values = "|".join(re.escape(v) for v in CLI_VALUES)
    return re.sub(rf"{_NOT_A_COLUMN}'({values})'", lambda m: f"'{CLI_VALUES[m.group(1)]}'", text)


def _reader_gone(stream: Any) -> bool:
    """Whether ``stream`` is a pipe whose reader has closed it (a poll of its end reports
    an error); ``False`` where that cannot be told (not a file, no ``poll``)."""
    import select

    try:
        poller = select.poll()
        poller.register(stream.fileno(), select.POLLOUT)
        return any(event & select.POLLERR for _, event in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print ``message`` as an error and return the Exit to raise (code 2 by default)."""
    _stderr().print(f"[bold red]error:[/bold red] {_escape(message)}", markup=True, highlight=False)
    return typer.Exit(code)


def warn(message: str) -> None:
    """Print ``message`` as a one-line warning on stderr, in the command's option names."""
    _stderr().print(f"[yellow]warning:[/yellow] {_escape(cli_message(message))}", markup=True)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    warn(str(message))


def note(message: str) -> None:
    """Print an informative line on stderr (commands skip it under ``--quiet``)."""
    _stderr().print(message, markup=False, style="dim")


def note_written(path: Path, *, rows: int | None = None, quiet: bool = False) -> None:
    """Say on stderr that ``path`` was written, with its number of rows when known
    (nothing under ``--quiet``)."""
    if not quiet:
        count = "" if rows is None else f"{rows:,} {'row' if rows == 1 else 'rows'} to "
        note(f"wrote {count}{path}")


def positional(*names: str) -> None:
    """In the running command's current mode, ``names`` are positional arguments (``ereval
    errors TRUTH PRED``), not its options of the same name (``--pred`` of its sample
    mode): its messages leave them as they are."""
    table = _flags_var.get()
    if table is not None:
        drop = set(names) | {n.replace("_", "-") for n in names}
        drop |= {api for api, cli in API_NAMES.items() if cli in names}
        _flags_var.set({k: v for k, v in table.items() if k not in drop})


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn input errors into a one-line message naming the option, and exit code 2.

    Errors of the library name its Python parameters; the message is rewritten
    with the options of the command (:func:`cli_message`), and so are warnings,
    printed as one line each on stderr. Unexpected errors give one line and exit
    code 1 (the traceback with ``EREVAL_DEBUG=1``).
    """
    flags = _option_flags(func)
    files = _file_params(func)

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from ._output import command_inputs

        token = _flags_var.set(flags)
        try:
            with warnings.catch_warnings(), command_inputs(_given_files(files, kwargs)):
                # warnings are one line each, in the command's option names
                warnings.simplefilter("default")
                warnings.showwarning = _show_warning
                return func(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except Error as exc:
            # the table of the running command, as its mode left it (see positional)
            raise fail(cli_message(str(exc), _flags_var.get() or flags)) from None
        except FileNotFoundError as exc:
            raise fail(f"file not found: {exc.filename}") from None
        except IsADirectoryError as exc:
            raise fail(f"'{exc.filename}' is a folder, not a file") from None
        except PermissionError as exc:
            raise fail(f"permission denied: {exc.filename}") from None
        except OSError as exc:
            if isinstance(exc, BrokenPipeError) and _reader_gone(sys.stdout):
                # the reader chose to stop (``| head``): nothing to report, nothing to flush
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                raise typer.Exit(EXIT_READER_GONE) from None
            raise fail(
                f"cannot read or write {exc.filename or ''}: {exc.strerror or exc}"
            ) from None
        except MemoryError:
            raise fail(
                "not enough memory for this input and these options; try smaller ones"
            ) from None
        except KeyboardInterrupt:
            raise fail("interrupted", EXIT_INTERRUPTED) from None
        except Exception as exc:
            if os.environ.get(DEBUG_ENV):
                raise
            raise fail(
                f"unexpected {type(exc).__name__}: {exc} (set {DEBUG_ENV}=1 to see the traceback)",
                EXIT_FAILURE,
            ) from None
        finally:
            _flags_var.reset(token)

    return wrapper


def _escape(text: str) -> str:
    return text.replace("[", r"\[")


# --------------------------------------------------------------------------- printing
def dumps_json(value: Any) -> str:
    """JSON text with NaN written as ``null`` (never the invalid token ``NaN``)."""
    return json.dumps(json_ready(value), indent=2, allow_nan=False)


def format_number(value: Any, digits: int = 6) -> str:
    """Render a cell of a human-readable table."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}g}"
    if isinstance(value, bytes):  # as in CSV and JSON
        return bytes_text(value)
    return str(value)


def print_table(table: Table) -> None:
    """Print a rich table on stdout with every value in full.

    On a terminal, cells too wide for it fold onto several lines; elsewhere (a
    pipe, a file) the table is printed at its natural width, however wide.
    """
    stream: Any = sys.stdout
    try:
        terminal = bool(stream.isatty())
    except (AttributeError, ValueError):
        terminal = False
    from rich.console import Console

    for column in table.columns:
        column.overflow = "fold"
    if terminal:
        Console().print(table)
        return
    probe = Console(file=io.StringIO(), width=1_000_000, color_system=None)
    width = max(probe.measure(table).maximum, len(table.title or "") if table.title else 0, 20)
    Console(file=stream, width=width, color_system=None, highlight=False).print(table)


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
        from rich.table import Table

        table = Table(title=title, show_header=True, header_style="bold")
        table.add_column(key_header)
        table.add_column(value_header, justify="right")
        for key, value in values.items():
            table.add_row(key, format_number(value))
        print_table(table)


#: Rows a table of rows shows at most when stdout is not a terminal; on a terminal,
#: a screenful (and never fewer than this).
MAX_TABLE_ROWS = 40
#: Lines of a terminal a cut table leaves to its title, header, borders and note.
_TABLE_CHROME = 8


def _stdout_is_terminal() -> bool:
    try:
        return bool(sys.stdout.isatty())
    except (AttributeError, ValueError):
        return False


def rows_shown(n_rows: int) -> tuple[int, int]:
    """How many of ``n_rows`` rows a table shows from its head and from its tail.

    All of them when they fit: :data:`MAX_TABLE_ROWS`, or a screenful on a
    terminal taller than that. A longer table shows its first and last rows,
    half each.

    Examples
    --------
    >>> rows_shown(12), rows_shown(60_919)
    ((12, 0), (20, 20))
    """
    limit = MAX_TABLE_ROWS
    if _stdout_is_terminal():
        import shutil

        limit = max(limit, shutil.get_terminal_size().lines - _TABLE_CHROME)
    if n_rows <= limit:
        return n_rows, 0
    return (limit + 1) // 2, limit // 2


def _full_output_hint() -> str:
    """How the running command prints or writes every row, in its own options."""
    flags = _flags_var.get() or {}
    csv_format = f"{flags.get('fmt', '--format')} csv"
    if "out" in flags:
        return f"write them all with {flags['out']} FILE or {csv_format}"
    return f"print them all with {csv_format}"


def _print_rows(
    head: list[Mapping[str, Any]],
    tail: list[Mapping[str, Any]],
    columns: list[str],
    hidden: int,
    title: str | None,
) -> None:
    """Print ``head`` and ``tail`` as one table, with a line for the ``hidden`` rows
    between them."""
    from rich.table import Table

    table = Table(title=title, show_header=True, header_style="bold")
    for c in columns:
        table.add_column(c)
    for row in head:
        table.add_row(*(format_number(row.get(c)) for c in columns))
    if hidden:
        table.add_row(*("…" for _ in columns))
        for row in tail:
            table.add_row(*(format_number(row.get(c)) for c in columns))
    print_table(table)
    if hidden:
        rows = "row" if hidden == 1 else "rows"
        sys.stdout.write(f"… {hidden:,} {rows} not shown; {_full_output_hint()}\n")


def emit_frame(
    frame: pd.DataFrame,
    fmt: OutputFormat,
    *,
    columns: list[str] | None = None,
    title: str | None = None,
) -> None:
    """Print a data frame's ``columns`` (all by default) as :func:`emit_records` does,
    converting only the rows a table shows."""
    shown = [str(c) for c in frame.columns] if columns is None else columns
    if fmt in ("csv", "json"):
        emit_chunks([frame.loc[:, shown] if columns is not None else frame], fmt)
        return
    part = frame.loc[:, shown]
    emit_rows_of(len(frame), lambda start, stop: part.iloc[start:stop], shown, title=title)


def emit_chunks(frames: Iterable[pd.DataFrame], fmt: Literal["csv", "json"]) -> None:
    """Print the rows of the frames (one at least, of the same columns, one after the
    other) as one CSV or JSON table: the text a file written with ``--out`` holds."""
    if fmt == "csv":
        from ._csv_text import write_csv_chunks

        write_csv_chunks(frames, sys.stdout)
    else:
        from ._json_text import write_json_chunks

        write_json_chunks(frames, sys.stdout)


def emit_rows_of(
    n_rows: int,
    rows: Callable[[int, int], pd.DataFrame],
    columns: list[str],
    *,
    title: str | None = None,
) -> None:
    """Print the table of ``n_rows`` rows whose rows ``start .. stop - 1`` are
    ``rows(start, stop)``, as :func:`emit_frame` prints a table: only the rows shown
    are read."""
    n_head, n_tail = rows_shown(n_rows)
    head = rows(0, n_head).loc[:, columns].to_dict("records")
    tail = rows(n_rows - n_tail, n_rows).loc[:, columns].to_dict("records") if n_tail else []
    _print_rows(head, tail, columns, n_rows - n_head - n_tail, title)


def emit_records(
    rows: Sequence[Mapping[str, Any]],
    columns: list[str],
    fmt: OutputFormat,
    *,
    title: str | None = None,
) -> None:
    """Print rows (mappings sharing ``columns``) as a table, JSON list or CSV.

    JSON and CSV hold every row; a table longer than :func:`rows_shown` allows shows
    its head and tail and a line with the number of rows left out.
    """
    if fmt == "json":
        sys.stdout.write(dumps_json([{c: r.get(c) for c in columns} for r in rows]) + "\n")
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        for row in json_ready(list(rows)):
            writer.writerow(["" if row.get(c) is None else row.get(c) for c in columns])
        sys.stdout.write(buf.getvalue())
    else:
        n_head, n_tail = rows_shown(len(rows))
        tail = list(rows[len(rows) - n_tail :]) if n_tail else []
        _print_rows(list(rows[:n_head]), tail, columns, len(rows) - n_head - n_tail, title)


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
