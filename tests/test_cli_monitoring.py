"""``ereval summary``, ``compare`` and ``monitor`` on the bundled example releases."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval._compare import compare
from ereval.cli import app
from ereval.summary import summarize

from ._example_data import EXAMPLES

runner = CliRunner()
RELEASES = EXAMPLES / "releases"
R1, R2 = str(RELEASES / "2024-01-01.csv"), str(RELEASES / "2024-04-01.csv")


def _names_file(folder: Path) -> Path:
    records = pd.read_csv(EXAMPLES / "records.csv", dtype=str, keep_default_na=False)
    path = folder / "names.csv"
    # an unknown name is a name of its own (never shared)
    unknown = records["last_name"] == ""
    records.loc[unknown, "last_name"] = "unknown " + records.loc[unknown, "record_id"]
    records[["record_id", "last_name"]].to_csv(path, index=False)
    return path


def test_summary_json(tmp_path: Path) -> None:
    names = _names_file(tmp_path)
    res = runner.invoke(
        app, ["summary", R1, "--names", "last_name", "--names-from", str(names), "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    mapping = pd.read_csv(names, dtype=str, keep_default_na=False).set_index("record_id")
    exact = summarize(R1, names=mapping["last_name"]).statistics()
    for key in ("n_records", "matching_rate", "hill_1", "homonymy_rate", "name_variation_rate"):
        assert out[key] == pytest.approx(exact[key], rel=1e-12), key
    assert sum(out["size_distribution"].values()) == out["n_clusters"]


def test_summary_errors_name_flags(tmp_path: Path) -> None:
    res = runner.invoke(app, ["summary", R1, "--hill", "-1"])
    assert res.exit_code == 2 and "'--hill'" in res.stderr
    res = runner.invoke(app, ["summary", R1, "--names-from", str(EXAMPLES / "records.csv")])
    assert res.exit_code == 2 and "'--names-from' needs '--names'" in res.stderr
    res = runner.invoke(
        app,
        ["summary", R1, "--names", "first_name", "--names-from", str(EXAMPLES / "records.csv")],
    )
    assert res.exit_code == 2 and "missing values" in res.stderr


def test_compare_writes_records(tmp_path: Path) -> None:
    out = tmp_path / "records.csv"
    res = runner.invoke(app, ["compare", R1, R2, "-o", str(out), "--changed-only", "-f", "json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["categories"] == compare(R1, R2).counts
    frame = pd.read_csv(out, dtype=str)
    assert list(frame.columns) == ["record_id", "old_cluster", "new_cluster", "category"]
    assert "kept" not in set(frame["category"])
    res = runner.invoke(app, ["compare", R1, R2, "--changed-only"])
    assert res.exit_code == 2 and "'--out'" in res.stderr


def test_monitor_bundled_releases(tmp_path: Path) -> None:
    out = tmp_path / "long.csv"
    res = runner.invoke(
        app,
        [
            "monitor",
            str(RELEASES),
            "--sample",
            str(EXAMPLES / "sample.csv"),
            "--design",
            "record",
            "-o",
            str(out),
            "-f",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["releases"] == ["2024-01-01", "2024-04-01", "2024-07-01", "2024-10-01"]
    assert data["rule"]["alpha"] == 0.0027 and data["rule"]["run_length"] == 6
    assert set(data["estimates"]) == set(data["releases"])
    long = pd.read_csv(out)
    assert set(long["scope"]) == {"all", "common", "estimate"}
    # the releases change a lot: --fail-on-change exits 3 after printing
    res = runner.invoke(
        app,
        [
            "monitor",
            str(RELEASES),
            "--sample",
            str(EXAMPLES / "sample.csv"),
            "--design",
            "record",
            "--fail-on-change",
            "-f",
            "csv",
        ],
    )
    assert res.exit_code == 3, res.output
    assert res.stdout.startswith("release,scope,statistic,value,lower,upper,flags")


def test_monitor_stable_releases_pass(tmp_path: Path) -> None:
    paths = []
    for k in range(4):
        path = tmp_path / f"r_2024-0{k + 1}-01.csv"
        path.write_text((RELEASES / "2024-01-01.csv").read_text())
        paths.append(str(path))
    res = runner.invoke(app, ["monitor", *reversed(paths), "--fail-on-change", "-q"])
    assert res.exit_code == 0, res.output
    assert "2024-01-01" in res.stdout


def test_monitor_with_names(tmp_path: Path) -> None:
    names = _names_file(tmp_path)
    res = runner.invoke(
        app,
        ["monitor", R1, R2, "--names", "last_name", "--names-from", str(names), "-f", "json"],
    )
    assert res.exit_code == 0, res.output
    stats = json.loads(res.stdout)["statistics"]
    mapping = pd.read_csv(names, dtype=str, keep_default_na=False).set_index("record_id")
    exact = summarize(R2, names=mapping["last_name"])
    assert stats["2024-04-01"]["homonymy_rate"] == pytest.approx(exact.homonymy_rate)
    assert stats["2024-04-01"]["name_variation_rate"] == pytest.approx(exact.name_variation_rate)


def test_monitor_bad_options() -> None:
    res = runner.invoke(app, ["monitor", R1])
    assert res.exit_code == 2 and "at least 2" in res.stderr
    res = runner.invoke(app, ["monitor", R1, R2, "--sample", str(EXAMPLES / "sample.csv")])
    assert res.exit_code == 2 and "'--design'" in res.stderr
    res = runner.invoke(app, ["monitor", R1, R2, "--alpha", "2"])
    assert res.exit_code == 2 and "'--alpha'" in res.stderr
    res = runner.invoke(app, ["monitor", R1, R2, "--names", "last_name"])
    assert res.exit_code == 2 and "'--names-from'" in res.stderr
