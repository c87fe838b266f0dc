"""``ereval estimate`` and ``ereval simulate``, run in-process."""

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
    pred = pd.DataFrame(
        {
            "record_id": [1, 2, 3, 4, 5, 6, 7, 8],
            "cluster_id": [1, 1, 2, 3, 2, 4, 4, 4],
            "name": ["a", "b", "c", "a", "c", "d", "d", "e"],
        }
    )
    sample = pd.DataFrame(
        {
            "record_id": [1, 2, 3, 4, 5, 8],
            "cluster_id": ["c1", "c1", "c1", "c2", "c2", "c4"],
            "p": [0.5, 0.5, 0.5, 0.2, 0.2, 0.3],
            "grp": ["x", "x", "x", "x", "x", "y"],
            "k": [2, 2, 2, 1, 1, 1],
        }
    )
    out = {
        "pred": tmp_path / "pred.csv",
        "sample": tmp_path / "sample.csv",
        "pq": tmp_path / "sample.parquet",
    }
    pred.to_csv(out["pred"], index=False)
    sample.to_csv(out["sample"], index=False)
    # text ids, as the CSV prediction's ids are text
    sample.astype({"record_id": str}).to_parquet(out["pq"], index=False)
    return out


def _estimate(files: dict[str, Path], *args: str) -> tuple[int, str, str]:
    res = runner.invoke(
        app, ["estimate", "--pred", str(files["pred"]), "--sample", str(files["sample"]), *args]
    )
    return res.exit_code, res.stdout, res.stderr


def test_json_output_is_keyed_by_canonical_names(files: dict[str, Path]) -> None:
    code, out, _ = _estimate(
        files, "--design", "cluster", "--weights", "uniform", "--format", "json", "--names", "name"
    )
    assert code == 0
    data = json.loads(out)
    precision = data["pairwise_precision"]
    assert precision == {
        "value": 0.3888888888888889,
        "std": 0.2545875386086578,
        # the skew-corrected beta interval of the golden test (test_estimators_golden.py)
        "interval": [pytest.approx(0.00167692774), pytest.approx(0.98866178554)],
        "level": 0.95,
        "n": 3,
        "method": "ratio estimator (block form, cluster design, skew-corrected beta interval)",
        "warnings": precision["warnings"],
    }
    assert "the sample of 3 clusters is too small" in precision["warnings"][0]
    assert data["pairwise_recall"]["value"] == 0.296875
    for key in (
        "pairwise_f1",
        "cluster_precision",
        "cluster_recall",
        "b3_precision",
        "b3_entity_recall",
        "homogeneity",
        "completeness",
        "average_cluster_size",
        "matching_rate",
        "homonymy_rate",
        "name_variation_rate",
        "pairwise_precision_cluster",
        "pairwise_precision_naive",
    ):
        assert set(data[key]) == {
            "value",
            "std",
            "interval",
            "level",
            "n",
            "method",
            "warnings",
        }, key
    # naive values have no standard error: null in JSON, never the token NaN
    assert data["pairwise_precision_naive"]["std"] is None
    assert "pairwise_precision_record" not in data  # not a size-proportional design


def test_record_design_reports_the_record_form(files: dict[str, Path]) -> None:
    code, out, _ = _estimate(
        files,
        "--design",
        "record",
        "-f",
        "json",
        "-m",
        "pairwise_precision_record,pairwise_precision_cluster",
    )
    assert code == 0
    data = json.loads(out)
    record, cluster = data["pairwise_precision_record"], data["pairwise_precision_cluster"]
    for field in ("value", "std", "interval", "n"):
        assert record[field] == cluster[field]


def test_weights_column_draws_and_level(files: dict[str, Path]) -> None:
    code, out, _ = _estimate(
        files,
        "--design",
        "cluster",
        "--weights",
        "p",
        "--draws",
        "k",
        "--level",
        "0.9",
        "-f",
        "json",
        "-m",
        "pairwise_precision",
        "--interval",
        "normal",
    )
    assert code == 0
    e = json.loads(out)["pairwise_precision"]
    assert e["n"] == 4
    assert e["interval"][1] - e["value"] == pytest.approx(1.6448536269514722 * e["std"])
    assert e["method"] == "ratio estimator (block form, cluster design)"


def test_table_and_csv_output(files: dict[str, Path]) -> None:
    code, out, _ = _estimate(
        files,
        "--design",
        "cluster",
        "--weights",
        "cluster-size",
        "-m",
        "pairwise_precision,pairwise_recall",
    )
    assert code == 0 and "pairwise_precision" in out and "pairwise_recall" in out
    code, out, _ = _estimate(
        files,
        "--design",
        "cluster",
        "--weights",
        "uniform",
        "-f",
        "csv",
        "-m",
        "pairwise_precision",
    )
    assert code == 0
    assert out.splitlines()[0] == "estimator,value,std,lower,upper,n"
    assert out.splitlines()[1].startswith("pairwise_precision,0.3888888888888889,")


def test_groups_and_warnings(files: dict[str, Path]) -> None:
    code, out, err = _estimate(
        files,
        "--design",
        "cluster",
        "--weights",
        "uniform",
        "--group",
        "grp",
        "-f",
        "json",
        "-m",
        "pairwise_recall",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"x", "y"}
    assert data["y"]["pairwise_recall"]["value"] is None
    assert "warning:" in err and "group 'y' has 1 draw(s)" in err


def test_single_block_and_parquet(files: dict[str, Path]) -> None:
    res = runner.invoke(
        app,
        [
            "estimate",
            "--pred",
            str(files["pred"]),
            "--sample",
            str(files["pq"]),
            "--design",
            "single-block",
            "-f",
            "json",
            "-m",
            "pairwise_precision",
        ],
    )
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["pairwise_precision"]["value"] == pytest.approx(1 / 3)
    assert data["pairwise_precision"]["std"] is None
    assert "--design single-block" in res.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--design", "record", "--weights", "uniform"], "--design record draws clusters"),
        (["--design", "cluster"], "--design cluster needs '--weights': 'uniform', 'cluster-size'"),
        (["--design", "cluster", "--weights", "nope"], "the sample has no column 'nope'"),
        (["--design", "block", "--weights", "uniform", "--blocks", "grp"], None),
        (
            ["--design", "cluster", "--weights", "uniform", "--population-size", "9"],
            "'--population-size' is used only",
        ),
        (["--design", "cluster", "--weights", "uniform", "-m", "nope"], "unknown name 'nope'"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    files: dict[str, Path], args: list[str], message: str | None
) -> None:
    code, _, err = _estimate(files, *args)
    if message is None:  # blocks made of whole clusters are fine
        assert code == 0
        return
    assert code == 2
    assert message in " ".join(err.split())
    assert "Traceback" not in err


def test_missing_records_exit_2(files: dict[str, Path], tmp_path: Path) -> None:
    small = tmp_path / "small.csv"
    pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": [1, 1, 2]}).to_csv(small, index=False)
    res = runner.invoke(
        app,
        [
            "estimate",
            "--pred",
            str(small),
            "--sample",
            str(files["sample"]),
            "--design",
            "cluster",
            "--weights",
            "uniform",
        ],
    )
    assert res.exit_code == 2
    assert "absent from '--pred'" in " ".join(res.stderr.split())


def test_simulate_command(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    sizes = np.minimum(rng.zipf(2.0, size=2000), 30)
    labels = np.repeat(np.arange(sizes.size), sizes)[:2000]
    truth = tmp_path / "truth.csv"
    pd.DataFrame(
        {
            "record_id": np.arange(2000),
            "cluster_id": labels,
            "name": rng.integers(0, 300, size=2000),
        }
    ).to_csv(truth, index=False)
    res = runner.invoke(
        app,
        [
            "simulate",
            "--truth",
            str(truth),
            "--error-rate",
            "0.1",
            "-n",
            "40",
            "-r",
            "30",
            "--seed",
            "1",
            "--names",
            "name",
            "-f",
            "json",
        ],
    )
    assert res.exit_code == 0, res.stderr
    rows = {r["estimator"]: r for r in json.loads(res.stdout)}
    assert {"pairwise_precision", "homonymy_rate", "pairwise_precision_naive"} <= set(rows)
    assert 0.0 <= rows["pairwise_precision"]["coverage"] <= 1.0
    again = runner.invoke(
        app,
        [
            "simulate",
            "--truth",
            str(truth),
            "--error-rate",
            "0.1",
            "-n",
            "40",
            "-r",
            "30",
            "--seed",
            "1",
            "--names",
            "name",
            "-f",
            "json",
        ],
    )
    assert again.stdout == res.stdout
    bad = runner.invoke(app, ["simulate", "--truth", str(truth)])
    assert bad.exit_code == 2 and "exactly one of '--pred' and '--error-rate'" in bad.stderr


def test_per_side_columns(files: dict[str, Path], tmp_path: Path) -> None:
    """--pred-record-col / --sample-record-col (alias --truth-record-col) and the cluster
    columns name each side's columns; the estimates equal those of renamed files."""
    pred = pd.read_csv(files["pred"], dtype=str).rename(
        columns={"record_id": "rid", "cluster_id": "cid"}
    )
    sample = pd.read_csv(files["sample"], dtype=str).rename(
        columns={"record_id": "r", "cluster_id": "c"}
    )
    pred.to_csv(tmp_path / "p.csv", index=False)
    sample.to_csv(tmp_path / "s.csv", index=False)
    args = ["--design", "cluster", "--weights", "uniform", "-f", "json", "-m", "pairwise_f1"]
    code, plain, _ = _estimate(files, *args)
    assert code == 0
    res = runner.invoke(
        app,
        [
            "estimate",
            "--pred",
            str(tmp_path / "p.csv"),
            "--sample",
            str(tmp_path / "s.csv"),
            *args,
            "--pred-record-col",
            "rid",
            "--pred-cluster-col",
            "cid",
            "--sample-record-col",
            "r",
            "--truth-cluster-col",
            "c",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == json.loads(plain)
    res = runner.invoke(
        app,
        [
            "estimate",
            "--pred",
            str(tmp_path / "p.csv"),
            "--sample",
            str(tmp_path / "s.csv"),
            *args,
            "--pred-record-col",
            "rid,cid",
            "--sample-record-col",
            "r",
        ],
    )
    assert res.exit_code == 2 and "--sample-record-col, --pred-record-col" in res.stderr


def test_evaluate_returns_the_counts_metrics_prints(tmp_path: Path) -> None:
    from ereval import evaluate

    truth = pd.DataFrame({"record_id": ["a", "b", "c", "d"], "cluster_id": [1, 1, 2, 3]})
    pred = pd.DataFrame({"record_id": ["a", "b", "c", "d"], "cluster_id": [1, 1, 1, 2]})
    truth.to_csv(tmp_path / "t.csv", index=False)
    pred.to_csv(tmp_path / "p.csv", index=False)
    res = runner.invoke(
        app, ["metrics", str(tmp_path / "t.csv"), str(tmp_path / "p.csv"), "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    printed = json.loads(res.stdout)
    scores = evaluate(tmp_path / "t.csv", tmp_path / "p.csv")
    assert (scores["n_records"], scores["n_true_clusters"], scores["n_pred_clusters"]) == (4, 3, 2)
    assert set(scores) == set(printed)
    for key, value in printed.items():
        assert scores[key] == pytest.approx(value, nan_ok=True), key
    # an explicit selection holds the metrics asked for
    assert set(evaluate(truth, pred, metrics="pairwise")) == {
        "pairwise_precision",
        "pairwise_recall",
        "pairwise_f1",
    }
