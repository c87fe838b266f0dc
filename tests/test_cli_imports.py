"""The console script imports only what the command it runs needs.

``ereval metrics`` is timed as a whole process against a bare DuckDB script, so
its start-up counts: it must import neither pandas nor SciPy when the data does
not need them, nor rich when it prints nothing through it, and no sub-command
module but its own. Each check runs the
entry point in a fresh interpreter and reads ``sys.modules`` afterwards.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from click.testing import CliRunner

from ereval.cli import app
from ereval.cli._app import _COMMAND_MODULES, build_app, command_of

runner = CliRunner()

# Runs the console script's entry point with the given arguments, then prints
# (as JSON on the last line of stdout) the exit code, the heavy packages and the
# ereval.cli modules imported before the work started and at the end.
_SCRIPT = textwrap.dedent(
    """
    import json, sys
    argv = json.loads(sys.argv[1])
    sys.argv = ["ereval", *argv]
    from ereval.cli._app import build_app, main

    def seen():
        heavy = sorted({m.split(".")[0] for m in sys.modules} & {"pandas", "scipy", "rich"})
        cli = sorted(m for m in sys.modules if m.startswith("ereval.cli."))
        return {"heavy": heavy, "cli": cli}

    build_app(argv[0])  # what main() imports before it reads any file
    before = seen()
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    print()
    print(json.dumps({"code": code, "before": before, "after": seen()}))
    """
)


def _run(*argv: str) -> tuple[dict[str, Any], str]:
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(list(argv))],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    *printed, last = proc.stdout.rstrip("\n").split("\n")
    report: dict[str, Any] = json.loads(last)
    assert report["code"] == 0, proc.stderr[-2000:]
    return report, "\n".join(printed)


def _command_modules(modules: list[str]) -> set[str]:
    """The sub-command modules (not the shared helpers) among ``modules``."""
    return set(modules) & set(_COMMAND_MODULES)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("imports")
    truth = {"record_id": [1, 2, 3, 4, 5], "cluster_id": [1, 1, 2, 2, 2]}
    pred = {"record_id": [1, 2, 3, 4, 5], "cluster_id": [7, 8, 8, 8, 9]}
    out = {}
    for name, data in (("truth", truth), ("pred", pred)):
        pq.write_table(pa.table(data), root / f"{name}.parquet")
        lines = ["record_id,cluster_id"] + [f"{r},{c}" for r, c in zip(*data.values(), strict=True)]
        (root / f"{name}.csv").write_text("\n".join(lines) + "\n")
        out[f"{name}.parquet"] = root / f"{name}.parquet"
        out[f"{name}.csv"] = root / f"{name}.csv"
    return out


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_metrics_without_ceaf_imports_neither_pandas_nor_scipy(
    files: dict[str, Path], kind: str
) -> None:
    report, printed = _run(
        "metrics",
        str(files[f"truth.{kind}"]),
        str(files[f"pred.{kind}"]),
        "-m",
        "pairwise,cluster,b3,muc,blanc,lea,info,rand,bmd,gmd",
        "-f",
        "json",
        "-q",
    )
    scores = json.loads(printed)
    # true pairs 12 34 35 45, predicted 23 24 34: one of three is right
    assert scores["n_records"] == 5 and scores["pairwise_precision"] == pytest.approx(1 / 3)
    assert report["after"]["heavy"] == []
    assert _command_modules(report["after"]["cli"]) == {"ereval.cli._metrics"}


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_metrics_imports_no_pandas_scipy_or_other_command(
    files: dict[str, Path], kind: str
) -> None:
    report, printed = _run(
        "metrics", str(files[f"truth.{kind}"]), str(files[f"pred.{kind}"]), "-f", "json", "-q"
    )
    scores = json.loads(printed)
    assert scores["n_records"] == 5 and "ceafe_f1" in scores
    assert report["before"]["heavy"] == []
    # CEAF's few small components are aligned without SciPy; pandas has no part in it
    assert report["after"]["heavy"] == []
    assert _command_modules(report["after"]["cli"]) == {"ereval.cli._metrics"}


def test_metrics_on_duckdb_imports_only_its_command(files: dict[str, Path]) -> None:
    report, printed = _run(
        "metrics",
        str(files["truth.parquet"]),
        str(files["pred.parquet"]),
        "--engine",
        "duckdb",
        "-f",
        "json",
        "-q",
    )
    assert json.loads(printed)["n_records"] == 5
    # the engine's own fetch of the cells (pyarrow's to_numpy) may still import pandas
    assert report["before"]["heavy"] == []
    assert "scipy" not in report["after"]["heavy"]
    assert _command_modules(report["after"]["cli"]) == {"ereval.cli._metrics"}


def test_every_command_maps_to_the_modules_that_add_it() -> None:
    full = typer.main.get_group(app)
    for name in full.commands:
        assert command_of([name, "--help"]) == name
        alone = typer.main.get_group(build_app(name))
        assert name in alone.commands and set(alone.commands) <= set(full.commands)
        # a group has all its commands, 'label serve' (another module) included
        whole = getattr(full.commands[name], "commands", {})
        assert set(getattr(alone.commands[name], "commands", {})) == set(whole)


def test_command_of_falls_back_to_the_whole_application() -> None:
    assert command_of([]) is None
    assert command_of(["--help"]) is None
    assert command_of(["nope", "metrics"]) is None
    assert command_of(["label", "serve", "--help"]) == "label"


@pytest.mark.parametrize(
    "argv",
    [
        ["metrics", "--help"],
        ["example", "--help"],
        ["label", "--help"],
        ["label", "serve", "--help"],
        ["oasis", "--help"],
        ["errors", "--help"],
    ],
)
def test_one_command_application_reads_as_the_whole(argv: list[str]) -> None:
    alone = typer.main.get_group(build_app(argv[0]))
    got = runner.invoke(alone, argv, prog_name="ereval")
    want = runner.invoke(typer.main.get_group(app), argv, prog_name="ereval")
    assert got.exit_code == want.exit_code == 0
    assert got.output == want.output


def _console(*argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m ereval ARGV`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "ereval", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_console_script_runs_a_one_command_module(files: dict[str, Path], tmp_path: Path) -> None:
    # 'example' is the only command of its module: it must not become the top level
    proc = _console("example", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage: python -m ereval example" in proc.stdout
    wrong = _console("metricz")
    assert wrong.returncode == 2
    assert wrong.stderr.strip().splitlines() == [
        "error: ereval: no such command 'metricz'; did you mean 'metrics'?"
    ]


def test_version_is_printed_by_the_console_script_and_the_whole_application() -> None:
    from ereval import __version__

    proc = _console("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"ereval {__version__}\n", "")
    assert __version__ == importlib.metadata.version("ereval")  # the installed package's
    from typer.testing import CliRunner

    from ereval.cli import app

    listed = CliRunner().invoke(app, ["--help"])
    assert "--version  Print the version of ereval and exit." in listed.stdout
    # a command runs as before: the option belongs to ereval itself
    assert "--version" not in CliRunner().invoke(app, ["summary", "--help"]).stdout


@pytest.mark.parametrize(
    "module", ["ereval.engines", "ereval.metrics", "ereval.metrics._records", "ereval.cli._metrics"]
)
def test_a_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    # the package's names load on first use, so any module may be the first imported;
    # the engines and the metrics import each other and must not meet half-initialised
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
