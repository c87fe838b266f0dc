"""Readable output (cells never cut) and progress bars (stderr, terminals only)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from typer.testing import CliRunner

import ereval.cli._progress as cli_progress
from ereval.cli import app
from ereval.cli._common import emit_records, format_number
from ereval.cli._progress import progress
from ereval.oasis import synthetic_pool

from ._example_data import EXAMPLES

runner = CliRunner()
T, P = str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_good.csv")


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = synthetic_pool(2000, imbalance=20, seed=3)
    path = tmp_path_factory.mktemp("display") / "pool.csv"
    pd.DataFrame(
        {
            "pair_id": np.arange(p.size),
            "score": p.scores,
            "prediction": p.predictions,
            "label": p.labels,
        }
    ).to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- tables
def test_wide_tables_are_printed_in_full_when_not_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    columns = [f"a_rather_long_column_name_{i}" for i in range(8)]
    row = {c: 0.123456789 * (i + 1) for i, c in enumerate(columns)}
    row[columns[0]] = "an-identifier-that-is-long-" * 3
    emit_records([row], columns, "table", title="wide")
    out = capsys.readouterr().out
    assert "…" not in out
    assert row[columns[0]] in out  # on one line, uncut
    for c in columns:
        assert c in out
    assert "0.987654" in out


def test_experiment_table_shows_every_value(pool: Path) -> None:
    args = ["oasis", "experiment", str(pool), "--budgets", "100,200", "--repeats", "3"]
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    assert "…" not in table.stdout
    rows = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)
    for row in rows:
        for key in ("mae", "std", "mean_iterations", "true_value"):
            if row[key] is not None:
                assert f"{row[key]:.6g}" in table.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["metrics", T, P],
        ["errors", T, P, "--by", "record"],
        ["estimate", "--pred", P, "--sample", T, "--design", "record"],
        ["paula", "annotations", "--n", "1000000000"],
    ],
)
def test_no_cell_is_cut(args: list[str]) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    # the only ellipses are those of a table cut by rows: a row of them, and its note
    for line in res.stdout.splitlines():
        if "…" in line:
            cells = {c.strip() for c in line.strip("│").split("│")}
            assert cells == {"…"} or line.startswith("… "), line


def test_errors_prints_a_table_by_default(tmp_path: Path) -> None:
    truth = pd.DataFrame({"record_id": range(30), "cluster_id": [i // 3 for i in range(30)]})
    # the first two true clusters merged, the third split
    pred = truth.assign(cluster_id=[0, 0, 0, 0, 0, 0, 2, 2, 99, *truth["cluster_id"][9:]])
    truth.to_csv(tmp_path / "t.csv", index=False)
    pred.to_csv(tmp_path / "p.csv", index=False)
    t, p = str(tmp_path / "t.csv"), str(tmp_path / "p.csv")
    table = runner.invoke(app, ["errors", t, p])
    csv = runner.invoke(app, ["errors", t, p, "-f", "csv"])
    assert table.stdout.lstrip().startswith("cluster errors")
    assert "not shown" not in table.stdout
    rows = [line.split(",") for line in csv.stdout.splitlines()[1:]]
    assert len(rows) == 10
    wrong = [r for r in rows if r[3] == "1.0"]  # clusters with errors: no zeros only
    assert len(wrong) == 3
    for row in wrong:
        line = next(ln for ln in table.stdout.splitlines() if ln.startswith(f"│ {row[0]} "))
        cells = [c.strip() for c in line.strip("│").split("│")]
        assert cells == [format_number(float(v)) if "." in v else v for v in row]


# --------------------------------------------------------------------------- progress
def test_progress_is_hidden_when_stderr_is_not_a_terminal() -> None:
    with progress("work", total=3) as bar:
        bar.advance()
        assert not bar.shown


def test_progress_draws_on_the_given_terminal_unless_quiet(
    capsys: pytest.CaptureFixture[str],
) -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=80)
    with progress("crunching", total=4, console=console) as bar:
        assert bar.shown
        for _ in range(4):
            bar.advance()
        bar.update(description="crunching more")
    assert "crunching" in screen.getvalue()
    assert capsys.readouterr().out == ""  # never on stdout
    quiet = io.StringIO()
    with progress("crunching", total=4, console=Console(file=quiet), quiet=True) as bar:
        assert not bar.shown
    assert quiet.getvalue() == ""


def _terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the commands believe stderr is a terminal (and draw on it)."""
    monkeypatch.setattr(cli_progress, "stderr_is_terminal", lambda: True)

    def console() -> Console:
        return Console(file=sys.stderr, force_terminal=True, width=100)

    monkeypatch.setattr(cli_progress, "stderr_console", console)


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--truth", T, "--error-rate", "0.1", "-n", "20", "-r", "200", "--seed", "1"],
        [
            "oasis",
            "experiment",
            "POOL",
            "--budgets",
            "50",
            "--repeats",
            "2",
            "--methods",
            "passive",
        ],
        ["oasis", "estimate", "POOL", "--budget", "50", "--seed", "1"],
        ["metrics", T, P],
    ],
)
def test_commands_show_progress_on_stderr_only(
    args: list[str], pool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [str(pool) if a == "POOL" else a for a in args]
    plain = runner.invoke(app, [*args, "-f", "json"])
    # not a terminal: no progress (the result's warnings, if any, are all there is)
    assert plain.exit_code == 0
    assert all(line.startswith("warning: ") for line in plain.stderr.splitlines())
    _terminal_stderr(monkeypatch)
    shown = runner.invoke(app, [*args, "-f", "json"])
    assert shown.exit_code == 0, shown.output
    assert shown.stderr.strip() != plain.stderr.strip()  # the bar was drawn ...
    assert json.loads(shown.stdout) == json.loads(plain.stdout)  # ... and never on stdout
    quiet = runner.invoke(app, [*args, "-f", "json", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == plain.stderr  # warnings stay
    assert quiet.stdout == plain.stdout
