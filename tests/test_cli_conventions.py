"""One vocabulary across the commands: option names, help layout, examples, --quiet."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ereval.cli import app

runner = CliRunner()


def _commands() -> dict[str, Any]:
    """Every leaf command of the application, by its path ("oasis estimate")."""
    found: dict[str, Any] = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                walk(child, (*path, name))
        else:
            found[" ".join(path)] = command

    walk(typer.main.get_command(app), ())
    return found


COMMANDS = _commands()
#: commands that can run for long (file reads, sampling, simulation)
LONG = {
    "metrics",
    "summary",
    "compare",
    "monitor",
    "curve",
    "errors",
    "estimate",
    "simulate",
    "sample",
    "plan",
    "oasis estimate",
    "oasis experiment",
    "paula plan",
    "paula bounds",
    "report",
    "label init",
    "label export",
    "label import",
}
RETIRED = {
    "--confidence",
    "--estimators",
    "--pair-id-col",
    "--out-table",
    "--out-plot",
    "--records-out",
    "--clusters-out",
    "--save",
    "--resume",
}


def _options(command: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for param in command.params:
        for opt in [*param.opts, *param.secondary_opts]:
            if opt.startswith("-"):
                out[opt] = param
    return out


def test_the_command_list() -> None:
    assert set(COMMANDS) == {
        "metrics",
        "curve",
        "errors",
        "analyze",
        "estimate",
        "simulate",
        "sample",
        "plan",
        "oasis estimate",
        "oasis experiment",
        "paula plan",
        "paula bounds",
        "paula annotations",
        "example",
        "summary",
        "compare",
        "monitor",
        "report",
        "label init",
        "label status",
        "label export",
        "label import",
        "label pairs",
        "label reviewer-errors",
        "label serve",
    }


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_shared_option_names(path: str) -> None:
    opts = _options(COMMANDS[path])
    # example writes files and prints one line; label serve serves the app: no result to format
    if path not in ("example", "label serve"):
        # every command that prints a result prints it as a table, JSON or CSV
        assert "--format" in opts and "-f" in opts and opts["-f"] is opts["--format"]
        fmt = runner.invoke(app, [*path.split(), "--help"], env={"COLUMNS": "200"})
        # a report is a page or its numbers, not a table
        assert ("<html|json>" if path == "report" else "<table|json|csv>") in fmt.stdout
    assert not RETIRED & set(opts), RETIRED & set(opts)
    if path in LONG:
        assert "--quiet" in opts and opts["-q"] is opts["--quiet"]
    if "--out" in opts:
        assert opts["-o"] is opts["--out"]
    if "-m" in opts:
        assert opts["-m"] is opts["--metrics"]
    if path.startswith("oasis"):
        assert "--greediness" in opts and "--epsilon" not in opts
        assert "--id-col" in opts and "--level" in opts


@pytest.mark.parametrize("path", ["", *sorted(COMMANDS), "oasis", "paula", "label"])
def test_help_shows_no_value_type_for_flags(path: str) -> None:
    res = runner.invoke(app, [*path.split(), "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "<bool>" not in res.stdout
    assert re.search(r"--help\s+Show this message", res.stdout)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_help_ends_with_an_example(path: str) -> None:
    res = runner.invoke(app, [*path.split(), "--help"])  # 80 columns
    lines = [ln.strip() for ln in res.stdout.splitlines() if ln.strip()]
    assert "Examples:" in lines
    examples = lines[lines.index("Examples:") + 1 :]
    assert examples
    for before, line in zip(["", *examples], examples, strict=False):
        # a new example, or the continuation of one ending in a backslash: the
        # terminal (80 columns here) wrapped none of them
        assert line.startswith(f"ereval {path} ") or before.endswith("\\"), examples
    # the examples use options the command has
    opts = _options(COMMANDS[path])
    for line in examples:
        for flag in re.findall(r"(?<!\S)(--?[a-z][\w-]*)", line.split("#")[0]):
            assert flag in opts, (path, flag)


ENGINE_OPTIONS = {
    "--engine",
    "--memory-limit",
    "--threads",
    "--temp-dir",
    "--spark-master",
    "--spark-conf",
}
#: the commands that run on every engine take the engine options
RUNS_ON_ENGINES = {
    "metrics",
    "errors",
    "estimate",
    "summary",
    "compare",
    "monitor",
    "report",
    "curve",
}
#: the commands computed in memory take none
IN_MEMORY = {"simulate"}


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_engine_options_come_as_one_set(path: str) -> None:
    opts = set(_options(COMMANDS[path]))
    if path in RUNS_ON_ENGINES:
        assert ENGINE_OPTIONS <= opts
    if path in IN_MEMORY:
        assert not ENGINE_OPTIONS & opts
        res = runner.invoke(app, [*path.split(), "--help"], env={"COLUMNS": "200"})
        assert "in memory (NumPy) and takes no engine options: it draws" in " ".join(
            res.stdout.split()
        )
    assert not (ENGINE_OPTIONS & opts) or ENGINE_OPTIONS <= opts, ENGINE_OPTIONS - opts
    if "--engine" in opts:
        res = runner.invoke(app, [*path.split(), "--help"], env={"COLUMNS": "200"})
        assert "<auto|numpy|duckdb|spark>" in res.stdout
