"""Errors and warnings under the CLI name its options, never the Python parameters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.cli._common import cli_message
from ereval.paula import paula_plan

from ._example_data import EXAMPLES

runner = CliRunner()
T, P = str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_good.csv")

FLAGS = {
    "flip_probability": "--noise",
    "on_mismatch": "--on-mismatch",
    "beta": "--beta",
    "weights": "--weights",
    "design": "--design",
    "replace": "--without-replacement",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("'flip_probability' must lie in [0, 1]", "'--noise' must lie in [0, 1]"),
        (
            "Pass on_mismatch='intersection' to score the common records only",
            "Pass --on-mismatch intersection to score the common records only",
        ),
        (
            "design='record' implies weights='cluster_size'",
            "--design record implies --weights cluster-size",
        ),
        (
            "use replace=True, or replace=False",
            "use no --without-replacement, or --without-replacement",
        ),
        (
            "'weights' must be 'uniform', 'cluster_size'",
            "'--weights' must be 'uniform', 'cluster-size'",
        ),
        # data values and column names stay as they are
        ("'metrics' has unknown name(s) ['beta']", "'metrics' has unknown name(s) ['beta']"),
        ("the sample has no column 'beta'", "the sample has no column 'beta'"),
        (
            "cluster 'beta' has several groups (e.g. 'beta')",
            "cluster 'beta' has several groups (e.g. 'beta')",
        ),
        ("score_kind='probability'", "score_kind='probability'"),
    ],
)
def test_cli_message(text: str, expected: str) -> None:
    assert cli_message(text, FLAGS) == expected


def _err(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    err = " ".join(result.stderr.split())
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return err


def test_mismatch_names_the_option(tmp_path: Path) -> None:
    t, p = tmp_path / "t.csv", tmp_path / "p.csv"
    t.write_text("record_id,cluster_id\n1,a\n2,a\n3,b\n")
    p.write_text("record_id,cluster_id\n1,x\n2,x\n9,y\n")
    err = _err(["metrics", str(t), str(p)])
    assert "--on-mismatch intersection" in err and "--on-mismatch twinless" in err
    assert "on_mismatch" not in err
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("record_id_1,record_id_2\n1,9\n")
    err = _err(["metrics", str(t), str(pairs), "--pairs"])
    assert "pass --on-mismatch intersection" in err and "on_mismatch" not in err
    err = _err(["errors", str(t), str(p)])
    assert "--on-mismatch" in err and "on_mismatch" not in err


def test_simulate_options_are_named() -> None:
    base = ["simulate", "--truth", T, "-r", "5"]
    assert "'--error-rate' must lie in [0, 1]; received 2.0" in _err([*base, "--error-rate", "2"])
    assert "'--sample-size' must be an integer >= 2" in _err(
        [*base, "--error-rate", "0.1", "-n", "1"]
    )
    assert "'--level' must lie in (0, 1)" in _err([*base, "--error-rate", "0.1", "--level", "5"])
    err = _err([*base, "--error-rate", "0.1", "-m", "nope"])
    assert "nope" in err and "estimators" not in err
    err = _err([*base, "--error-rate", "0.1", "--strata", "1,2"])
    assert "'--strata' applies to --design size-stratified; design is 'record'" in err


def test_oasis_options_are_named(tmp_path: Path) -> None:
    pool = tmp_path / "pool.csv"
    pd.DataFrame(
        {
            "pair_id": range(4),
            "score": [0.9, 0.8, 0.2, 0.1],
            "prediction": [1, 1, 0, 0],
            "label": [1, 0, 0, 1],
        }
    ).to_csv(pool, index=False)
    base = ["oasis", "estimate", str(pool), "--budget", "2"]
    assert "'--noise' must lie in [0, 1]" in _err([*base, "--noise", "2"])
    assert "'--greediness' must lie in (0, 1]" in _err([*base, "--greediness", "2"])
    assert "'--strata' must be an integer >= 1" in _err([*base, "--strata", "0"])
    err = _err(["oasis", "estimate", str(pool), "--budget", "9"])
    assert "'--budget' must not exceed the pool size 4" in err


def test_paula_labels_of_another_plan(tmp_path: Path) -> None:
    n = 5000
    ranked = tmp_path / "ranked.csv"
    pd.DataFrame({"item_id": np.arange(n)}).to_csv(ranked, index=False)
    plan = paula_plan(n, epsilon=0.1, delta=10)
    labels = tmp_path / "labels.csv"
    pd.DataFrame({"rank": plan.ranks(), "label": 1}).to_csv(labels, index=False)
    args = ["paula", "bounds", str(ranked), str(labels)]
    err = _err([*args, "--epsilon", "0.05", "--delta", "10"])
    assert (
        "the labels' ranks are those of the plan for --epsilon 0.1 --delta 10, not of the "
        "plan for --epsilon 0.05 --delta 10 (N=5,000)" in err
    )
    err = _err([*args, "--epsilon", "0.1", "--delta", "20"])
    assert "plan for --epsilon 0.1 --delta 10, not of the plan for --epsilon 0.1 --delta 20" in err
    other = paula_plan(n, epsilon=0.1, delta=10, r_tilde=2000)
    pd.DataFrame({"rank": other.ranks(), "label": 1}).to_csv(labels, index=False)
    err = _err([*args, "--epsilon", "0.1", "--delta", "10"])
    assert "the labels' ranks are those of the plan for --epsilon 0.1 --delta 10 --r-tilde" in err
    # labels that fit no plan: say which plan they were checked against
    pd.DataFrame({"rank": np.arange(1, 301), "label": 1}).to_csv(labels, index=False)
    err = _err([*args, "--epsilon", "0.1", "--delta", "10"])
    assert "these ranks are not those of the plan for --epsilon 0.1 --delta 10" in err
    assert "planned rank(s) have no label" in err
    # the right options work
    pd.DataFrame({"rank": plan.ranks(), "label": 1}).to_csv(labels, index=False)
    ok = runner.invoke(app, [*args, "--epsilon", "0.1", "--delta", "10", "-f", "json"])
    assert ok.exit_code == 0, ok.output


def test_warnings_name_the_options_and_take_one_line(tmp_path: Path) -> None:
    sample = tmp_path / "sample.csv"
    first = pd.read_csv(T, dtype=str).record_id[:3].tolist()
    pd.DataFrame({"record_id": first, "cluster_id": [1, 1, 2]}).to_csv(sample, index=False)
    res = runner.invoke(
        app,
        [
            "estimate",
            "--pred",
            T,
            "--sample",
            str(sample),
            "--design",
            "single-block",
            "-m",
            "pairwise_precision",
            "-f",
            "json",
        ],
    )
    warnings = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.exit_code == 0 and warnings
    assert all(ln.startswith("warning: ") for ln in warnings)
    assert "--design single-block" in res.stderr and "design='single_block'" not in res.stderr


def test_unexpected_errors_have_no_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import ereval.cli._metrics as cli_metrics

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something broke")

    monkeypatch.setattr(cli_metrics, "engine_from_options", boom)
    res = runner.invoke(app, ["metrics", T, P])
    assert res.exit_code == 1
    assert res.stderr.strip() == (
        "error: unexpected RuntimeError: something broke (set EREVAL_DEBUG=1 to see the traceback)"
    )
    monkeypatch.setenv("EREVAL_DEBUG", "1")
    res = runner.invoke(app, ["metrics", T, P])
    assert isinstance(res.exception, RuntimeError)


@pytest.mark.parametrize(
    ("command", "flag", "new"),
    [
        (("oasis", "estimate", "POOL"), "--confidence", "'--level'"),
        (("oasis", "estimate", "POOL"), "--resume", "'--state FILE"),
        (("oasis", "experiment", "POOL"), "--pair-id-col", "'--id-col'"),
        (("simulate",), "--estimators", "'-m/--metrics'"),
        (("errors", "T", "P"), "--clusters-out", "'-o FILE"),
        (("errors", "T", "P"), "--records-out", "'--by record -o FILE'"),
        (("paula", "bounds", "R", "L"), "--out-plot", "'--plot FILE'"),
    ],
)
def test_a_renamed_option_names_its_new_spelling(
    command: tuple[str, ...], flag: str, new: str
) -> None:
    from ereval.cli._common import RENAMED_OPTIONS

    result = CliRunner().invoke(app, [*command, flag, "x"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    path = " ".join(c for c in command if not c.isupper())
    assert len(lines) == 1 and lines[0].startswith(f"error: '{flag}' is now {new}")
    assert f"(ereval {path})" in lines[0]
    assert (path, flag) in RENAMED_OPTIONS


def test_an_unknown_option_gets_one_line_and_the_closest_option() -> None:
    result = CliRunner().invoke(app, ["metrics", "t.csv", "p.csv", "--enigne", "duckdb"])
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: ereval metrics has no option '--enigne'; did you mean '--engine'?"
    )
    result = CliRunner().invoke(app, ["curve", "t.csv", "p.csv", "--zzz"])
    assert result.output.strip() == (
        "error: ereval curve has no option '--zzz'; see 'ereval curve --help'"
    )


def test_cells_beyond_the_memory_limit_name_the_metrics_flag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--metrics ace` under a memory limit too small for the table's cells: one line
    naming `--metrics`, and nothing on stdout."""
    from ereval.statistics import _compute

    monkeypatch.setattr(_compute, "TABLE_CELL_BYTES", 10**12)
    args = ["metrics", T, P, "--engine", "duckdb", "--memory-limit", "256MB"]
    result = runner.invoke(app, [*args, "--metrics", "ace", "-f", "json", "-q"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: '--metrics': those that read the cells")
    assert "leave them out, or raise the limit" in lines[0]
    # the metrics from the statistics alone are given under the same limit
    fine = runner.invoke(app, [*args, "--metrics", "ceaf_phi1,ceafm", "-f", "json", "-q"])
    assert fine.exit_code == 0, fine.output


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["metrics", T, P, "--on-mismatch", "twin"],
            "error: ereval metrics: invalid value for '--on-mismatch': 'twin' is not one of "
            "'error', 'intersection', 'twinless', 'singletons'; see 'ereval metrics --help'",
        ),
        (
            ["metrics", T, P, "--threads", "two"],
            "error: ereval metrics: invalid value for '--threads': input should be a valid "
            "integer, unable to parse string as an integer; received 'two'; "
            "see 'ereval metrics --help'",
        ),
        (  # the value as written, its case kept
            ["metrics", T, P, "--threads", "Two, Three"],
            "error: ereval metrics: invalid value for '--threads': input should be a valid "
            "integer, unable to parse string as an integer; received 'Two, Three'; "
            "see 'ereval metrics --help'",
        ),
        (
            ["metrics", T, P, "--engine=gpu"],
            "error: ereval metrics: invalid value for '--engine': 'gpu' is not one of 'auto', "
            "'numpy', 'duckdb', 'spark'; see 'ereval metrics --help'",
        ),
        (
            ["metrics", T],
            "error: ereval metrics: missing argument 'PRED'; see 'ereval metrics --help'",
        ),
        (
            ["metrics", T, P, "extra.csv"],
            "error: ereval metrics: got unexpected extra argument(s) (extra.csv); "
            "see 'ereval metrics --help'",
        ),
        (["metrcs"], "error: ereval: no such command 'metrcs'; did you mean 'metrics'?"),
        (
            ["oasis", "estimat"],
            "error: ereval oasis: no such command 'estimat'; did you mean 'estimate'?",
        ),
    ],
)
def test_command_lines_click_refuses_get_one_line(args: list[str], line: str) -> None:
    """A value of the wrong kind, a missing or extra argument, a misspelt command: one
    line naming the option and the value received, exit 2 (not click's boxed panel)."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [line]
    assert result.stdout == ""


@pytest.mark.parametrize("args", [[], ["oasis"], ["label"], ["paula"]])
def test_a_bare_group_prints_its_help(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Usage: {' '.join(['ereval', *args])} [OPTIONS] COMMAND")
    assert result.stderr == ""
