"""``--help`` of every command and group reads at 80 columns: every option in full, no
line wider than the terminal, the examples last and as written."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ereval.cli import app
from ereval.cli._help import EXAMPLES_HEADING, help_lines

runner = CliRunner()


def _walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    if hasattr(command, "commands"):
        for name, sub in sorted(command.commands.items()):
            yield from _walk(sub, (*path, name))


PATHS = dict(_walk(typer.main.get_command(app)))


def _help(path: tuple[str, ...], columns: int = 80) -> str:
    res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)}, prog_name="ereval")
    assert res.exit_code == 0, res.output
    return res.stdout


def test_every_command_is_walked() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"", "curve", "metrics", "estimate", "report", "label", "label pairs"} <= names
    assert {"oasis estimate", "paula bounds", "label serve", "label export"} <= names
    assert len(names) > 20


@pytest.mark.parametrize("path", sorted(PATHS), ids=lambda p: " ".join(p) or "ereval")
def test_help_reads_at_80_columns(path: tuple[str, ...]) -> None:
    text = _help(path)
    lines = text.splitlines()
    assert "…" not in text
    wide = [ln for ln in lines if len(ln) > 80]
    assert not wide, wide
    assert not any(set(ln) & set("╭╰│─") for ln in lines), "no boxes: they cut option names"
    command = PATHS[path]
    words = set(text.replace(",", " ").split())
    for param in command.params:
        for opt in (*param.opts, *param.secondary_opts):
            if opt.startswith("-"):
                # the name whole, as one word, never hyphenated at a line's end
                assert opt in words, (path, opt)
    assert "--help" in words
    if hasattr(command, "commands"):
        listed = {ln.split()[0] for ln in lines[lines.index("Commands:") + 1 :] if ln[2:3] != " "}
        assert listed == {n for n, c in command.commands.items() if not c.hidden}


@pytest.mark.parametrize(
    "path", sorted(p for p, c in PATHS.items() if c.epilog), ids=lambda p: " ".join(p)
)
def test_examples_come_last_as_written(path: tuple[str, ...]) -> None:
    lines = _help(path).rstrip("\n").splitlines()
    assert EXAMPLES_HEADING in lines
    start = lines.index(EXAMPLES_HEADING)
    # nothing but examples after the heading: no other section follows
    assert all(ln.startswith("  ") for ln in lines[start + 1 :]), lines[start:]
    written = [ln for ln in PATHS[path].epilog.splitlines()[1:] if ln.strip()]
    assert [ln[2:] for ln in lines[start + 1 :]] == written
    # the option list comes before the examples
    assert lines.index("Options:") < start


@pytest.mark.parametrize("columns", [80, 100, 200])
def test_width_follows_the_terminal_up_to_80(columns: int) -> None:
    lines = _help(("metrics",), columns).splitlines()
    assert max(len(ln) for ln in lines) <= 80
    # options with long values keep name and value on one line, help below
    assert "  --engine <auto|numpy|duckdb|spark>" in lines
    assert "  --without-replacement" in _help(("estimate",), columns)


def test_layout_of_an_option() -> None:
    # the help of an option sits in one column beside its name, wrapped on words only
    lines = help_lines(_Command(), _Ctx(), 40)
    assert lines == [
        "Usage: ereval demo [OPTIONS] FILE",
        "",
        "  Do it.",
        "",
        "Arguments:",
        "  FILE  The input [required]",
        "",
        "Options:",
        "  --a-very-long-option-name <str>",
        "               Uses --another-option and",
        "               keeps it [default: x].",
        "  -q, --quiet  Quiet.",
        "",
        "Examples:",
        "  ereval demo f.csv \\",
        "      --quiet",
    ]


class _Param:
    def __init__(self, kind: str, record: tuple[str, str], metavar: str | None = None) -> None:
        self.param_type_name, self._record, self.metavar = kind, record, metavar
        self.name, self.nargs = "file", 1

    def get_help_record(self, ctx: Any) -> tuple[str, str]:
        return self._record


class _Command:
    help = "Do it."
    epilog = "Examples:\n\nereval demo f.csv \\\n    --quiet"

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return ["[OPTIONS]", "{FILE}"]

    def get_params(self, ctx: Any) -> list[_Param]:
        return [
            _Param("argument", ("FILE <path>", "The input  [required]"), "FILE"),
            _Param(
                "option",
                (
                    "--a-very-long-option-name <str>",
                    "Uses --another-option and keeps it \\[default: x].",
                ),
            ),
            _Param("option", ("-q, --quiet", "Quiet.")),
        ]


class _Ctx:
    command_path = "ereval demo"
