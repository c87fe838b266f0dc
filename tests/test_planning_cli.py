"""``ereval plan``, run in-process."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app

runner = CliRunner()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    sizes = np.minimum(rng.zipf(2.0, size=200), 15)
    clusters = np.repeat(np.arange(sizes.shape[0]), sizes)
    records = [f"r{i:04d}" for i in range(clusters.shape[0])]
    truth = pd.DataFrame({"record_id": records, "cluster_id": clusters})
    pred = truth.copy()
    moved = rng.choice(len(pred), size=len(pred) // 10, replace=False)
    pred.loc[moved, "cluster_id"] = rng.integers(0, sizes.shape[0], size=moved.shape[0])
    out = {"truth": tmp_path / "truth.csv", "pred": tmp_path / "pred.csv"}
    truth.to_csv(out["truth"], index=False)
    pred.to_csv(out["pred"], index=False)
    return out


def test_plan_json_csv_and_files(files: dict[str, Path], tmp_path: Path) -> None:
    curve = tmp_path / "curve.csv"
    res = runner.invoke(
        app,
        [
            "plan",
            "--pred",
            str(files["pred"]),
            "--truth",
            str(files["truth"]),
            "--half-width",
            "0.1",
            "--design",
            "record",
            "--design",
            "cluster",
            "-m",
            "pairwise_precision,b3_precision",
            "-r",
            "40",
            "--seed",
            "1",
            "-f",
            "json",
            "-o",
            str(curve),
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert {row["design"] for row in data["plan"]} == {"record", "cluster"}
    assert {row["metric"] for row in data["plan"]} == {"pairwise_precision", "b3_precision"}
    assert all(row["assured_half_width"] <= 0.1 for row in data["plan"])
    assert data["settings"]["basis"] == "truth"
    written = pd.read_csv(curve)
    assert list(written.columns) == [
        "design",
        "metric",
        "n",
        "expected_half_width",
        "assured_half_width",
    ]
    assert len(written) == len(data["curve"])
    res = runner.invoke(
        app,
        ["plan", "--pred", str(files["pred"]), "--half-width", "0.1", "-r", "30", "-f", "csv"],
    )
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == (
        "design,metric,n,design_n,sigma,expected_half_width,assured_half_width,basis"
    )


def test_plan_plot(files: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    figure = tmp_path / "plan.png"
    res = runner.invoke(
        app,
        [
            "plan",
            "--pred",
            str(files["pred"]),
            "--half-width",
            "0.1",
            "-r",
            "30",
            "--design",
            "all",
            "--plot",
            str(figure),
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    assert figure.read_bytes()[:4] == b"\x89PNG"
    assert "assumption (no labels)" in " ".join(res.stdout.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--half-width", "0"], "'--half-width' must be in (0, 1)"),
        (["--half-width", "0.1", "--design", "nope"], "'--design' must be 'all' or one of"),
        (["--half-width", "0.1", "--design", "all", "--design", "record"], "'--design all'"),
        (["--half-width", "0.1", "-m", "nope"], "'--metrics' has unknown name 'nope'"),
        (["--half-width", "0.1", "--assurance", "2"], "'--assurance'"),
        (["--half-width", "0.1", "--plot", "x.nope"], "'--plot'"),
        (["--half-width", "0.1", "-o", "x.nope"], "'--out'"),
        (["--half-width", "0.1", "--weights", "nope"], "'--weights'"),
        (["--half-width", "0.1", "--error-rate", "0.9"], "'--error-rate'"),
        (["--half-width", "0.1", "--pairs", "p.csv"], "'--pairs' is an option of --design"),
        (["--half-width", "0.1", "--design", "expected-error"], "needs '--pairs'"),
    ],
)
def test_plan_bad_options_name_the_flag(
    files: dict[str, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    res = runner.invoke(app, ["plan", "--pred", str(files["pred"]), *args])
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert message in text, text
    assert "Traceback" not in res.output
    assert not list(tmp_path.glob("x.*"))


def test_error_rate_with_truth_is_refused(files: dict[str, Path]) -> None:
    res = runner.invoke(
        app,
        [
            "plan",
            "--pred",
            str(files["pred"]),
            "--truth",
            str(files["truth"]),
            "--half-width",
            "0.1",
            "--error-rate",
            "0.1",
        ],
    )
    assert res.exit_code == 2
    assert "'--error-rate'" in res.output
