"""The ``--help`` of every command, laid out as plain text for an 80-column terminal.

A command's help is its usage line, its description, its arguments and options
(one line each for the name and value, the help beside it in one column,
wrapped on words only: an option's name is never cut or hyphenated), and its
examples last, each command line as written. A group lists its commands with
their first sentence. Lines are at most the width of the terminal, 80 columns
at most (click's formatter width).

The help of the options is Typer's own record (name, value type, default and
"required"); only its layout is done here. Typer's rich panels truncate long
option names and fold value types inside a box at 80 columns.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["EXAMPLES_HEADING", "write_help"]

#: The heading of the examples that end a command's help (see ``examples``).
EXAMPLES_HEADING = "Examples:"
#: Widest first column (option name and value) before its help moves to the next line.
_NAME_MAX = 28
#: Spaces before a section's entries and between the two columns.
_INDENT, _GAP = 2, 2


def _plain(text: str) -> str:
    """Help text without the escapes of rich markup (``\\[default: x]``)."""
    return text.replace("\\[", "[")


def _wrap(text: str, width: int, indent: str = "", first: str | None = None) -> list[str]:
    """``text`` filled to ``width`` columns, broken at spaces only (never inside
    ``--an-option`` or a long word)."""
    return textwrap.wrap(
        text,
        width=max(width, len(indent) + 20),
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=False,
    ) or [(indent if first is None else first).rstrip()]


def _paragraphs(text: str) -> list[list[str]]:
    """Paragraphs of a docstring (split on blank lines), each as its lines."""
    out: list[list[str]] = []
    for block in re.split(r"\n\s*\n", inspect.cleandoc(text).partition("\f")[0]):
        lines = [ln for ln in block.splitlines() if ln.strip()]
        if lines:
            out.append(lines)
    return out


def _text(text: str, width: int) -> list[str]:
    """A description: paragraphs filled to ``width`` and indented; a paragraph whose
    lines are list items (``*``, ``-``) or marked ``\\b`` keeps its lines."""
    pad = " " * _INDENT
    out: list[str] = []
    for lines in _paragraphs(_plain(text)):
        if out:
            out.append("")
        if lines[0].strip() == "\b" or all(re.match(r"\s*([*-]|\d+\.)\s", ln) for ln in lines):
            for ln in lines:
                if ln.strip() == "\b":
                    continue
                lead = len(ln) - len(ln.lstrip())
                hang = pad + " " * (lead + 2)
                out += _wrap(ln.strip(), width, hang, first=pad + " " * lead)
            continue
        out += _wrap(" ".join(ln.strip() for ln in lines), width, pad)
    return out


def _entries(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """Two columns: names, and their help filled beside them. A name wider than
    :data:`_NAME_MAX` has its help on the lines below it."""
    if not rows:
        return []
    fitting = [len(name) for name, _ in rows if len(name) <= _NAME_MAX]
    column = _INDENT + (max(fitting) if fitting else _NAME_MAX) + _GAP
    pad = " " * column
    out: list[str] = []
    for name, help_text in rows:
        head = " " * _INDENT + name
        body = re.sub(r"\s+", " ", _plain(help_text)).strip()
        if not body:
            out.append(head)
        elif len(head) + _GAP <= column:
            out += _wrap(body, width, pad, first=head.ljust(column))
        else:
            out.append(head)
            out += _wrap(body, width, pad)
    return out


def _section(title: str, lines: Iterable[str]) -> list[str]:
    body = list(lines)
    return ["", title, *body] if body else []


def _usage(command: Any, ctx: Any, width: int) -> list[str]:
    # Typer writes an argument {NAME} and a variadic one {NAME...}...
    pieces = [
        re.sub(r"(\.\.\.)+", "...", re.sub(r"[{}]", "", p))
        for p in command.collect_usage_pieces(ctx)
    ]
    head = f"Usage: {ctx.command_path} "
    return _wrap(" ".join(pieces), width, " " * len(head), first=head)


def _epilog(text: str, width: int) -> list[str]:
    """The epilog: examples as written (one command line each), other text filled."""
    lines = text.strip("\n").splitlines()
    if lines and lines[0].strip() == EXAMPLES_HEADING:
        body = [ln for ln in lines[1:] if ln.strip()]
        return ["", EXAMPLES_HEADING, *(" " * _INDENT + ln.rstrip() for ln in body)]
    return ["", *_text(text, width)]


def _commands(group: Any, ctx: Any, width: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for name in group.list_commands(ctx):
        sub = group.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        text = sub.short_help or (_paragraphs(sub.help)[0] if sub.help else [""])
        first = " ".join(ln.strip() for ln in text) if isinstance(text, list) else text
        # the first sentence, never cut mid-way
        sentence = re.split(r"(?<=\.)\s+(?=[A-Z])", first, maxsplit=1)[0].rstrip(".")
        rows.append((name, sentence))
    return rows


def help_lines(command: Any, ctx: Any, width: int) -> list[str]:
    """The lines of ``command``'s help in ``ctx`` at ``width`` columns."""
    out = _usage(command, ctx, width)
    if command.help:
        out += ["", *_text(command.help, width)]
    args: list[tuple[str, str]] = []
    opts: list[tuple[str, str]] = []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:
            continue
        name, text = record
        if param.param_type_name == "argument":
            name = str(param.metavar or param.name.upper()).strip("{}")
            if param.nargs == -1 and not name.endswith("..."):
                name += "..."
            args.append((name, text))
        else:
            opts.append((name, text))
    out += _section("Arguments:", _entries(args, width))
    out += _section("Options:", _entries(opts, width))
    if hasattr(command, "list_commands"):
        out += _section("Commands:", _entries(_commands(command, ctx, width), width))
    if command.epilog:
        out += _epilog(command.epilog, width)
    return [ln.rstrip() for ln in out]


def write_help(command: Any, ctx: Any, formatter: Any) -> None:
    """Write ``command``'s help to click's ``formatter`` (at its width)."""
    width = int(formatter.width or 78)
    formatter.write("\n".join(help_lines(command, ctx, width)) + "\n")
