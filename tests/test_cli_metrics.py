"""``ereval metrics`` and ``ereval errors`` in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.metrics import CANONICAL_METRICS, evaluate

from ._example_data import EXAMPLES

runner = CliRunner()


def test_json_has_every_canonical_name_and_counts() -> None:
    result = runner.invoke(
        app,
        [
            "metrics",
            str(EXAMPLES / "truth.csv"),
            str(EXAMPLES / "pred_good.csv"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(CANONICAL_METRICS) <= set(data)
    truth = pd.read_csv(EXAMPLES / "truth.csv")
    assert data["n_records"] == len(truth)
    assert data["n_true_clusters"] == truth["cluster_id"].nunique()
    assert (
        data["n_pred_clusters"] == pd.read_csv(EXAMPLES / "pred_good.csv")["cluster_id"].nunique()
    )
    expected = evaluate(EXAMPLES / "truth.csv", EXAMPLES / "pred_good.csv")
    for name in CANONICAL_METRICS:
        assert data[name] == pytest.approx(expected[name])


def test_nan_is_null_in_json(tmp_path: Path) -> None:
    t = tmp_path / "t.csv"
    t.write_text("record_id,cluster_id\n1,a\n2,b\n")
    result = runner.invoke(app, ["metrics", str(t), str(t), "-f", "json", "-m", "pairwise"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["pairwise_precision"] is None
    assert "NaN" not in result.stdout


def test_csv_table_and_selection(tmp_path: Path) -> None:
    args = ["metrics", str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_good.csv")]
    out = runner.invoke(app, [*args, "-f", "csv", "-m", "muc,bmd", "--beta", "2"])
    assert out.exit_code == 0
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "metric,value"
    assert [ln.split(",")[0] for ln in lines[1:6]] == [
        "muc_precision",
        "muc_recall",
        "muc_f1",
        "muc_fbeta",
        "bmd",
    ]
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "pairwise_precision" in table.stdout


def test_renamed_columns_and_parquet(tmp_path: Path) -> None:
    df = pd.read_csv(EXAMPLES / "truth.csv").rename(columns={"record_id": "m", "cluster_id": "e"})
    df.to_parquet(tmp_path / "t.parquet")
    pd.read_csv(EXAMPLES / "pred_good.csv").rename(
        columns={"record_id": "m", "cluster_id": "e"}
    ).to_csv(tmp_path / "p.csv", index=False)
    out = runner.invoke(
        app,
        [
            "metrics",
            str(tmp_path / "t.parquet"),
            str(tmp_path / "p.csv"),
            "--record-col",
            "m",
            "--cluster-col",
            "e",
            "-f",
            "json",
        ],
    )
    assert out.exit_code == 0, out.output


T = str(EXAMPLES / "truth.csv")
P = str(EXAMPLES / "pred_good.csv")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([T, "missing.csv"], "file not found"),
        ([T, P, "-m", "nope"], "unknown name(s) ['nope']"),
        ([T, P, "--record-col", "zzz"], "no column(s) 'zzz'"),
        ([T, P, "--beta", "-1"], "'--beta' must be > 0"),
    ],
)
def test_bad_input_exit_code_2_without_traceback(argv: list[str], message: str) -> None:
    result = runner.invoke(app, ["metrics", *argv])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_mismatched_records_and_policies(tmp_path: Path) -> None:
    t = tmp_path / "t.csv"
    p = tmp_path / "p.csv"
    t.write_text("record_id,cluster_id\n1,a\n2,a\n3,b\n")
    p.write_text("record_id,cluster_id\n1,x\n2,x\n9,y\n")
    bad = runner.invoke(app, ["metrics", str(t), str(p)])
    assert bad.exit_code == 2 and "1 record(s) only in 'truth'" in bad.output
    ok = runner.invoke(app, ["metrics", str(t), str(p), "--on-mismatch", "twinless", "-f", "json"])
    data = json.loads(ok.stdout)
    assert data["n_twinless_true"] == 1 and data["n_twinless_pred"] == 1 and "b3_sys_f1" in data


def test_pairs_mode(tmp_path: Path) -> None:
    t = tmp_path / "t.csv"
    t.write_text("record_id,cluster_id\n1,a\n2,a\n3,a\n4,b\n")
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("record_id_1,record_id_2\n1,2\n2,3\n1,4\n")
    out = runner.invoke(app, ["metrics", str(t), str(pairs), "--pairs", "-f", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["pairwise_precision"] == pytest.approx(2 / 3)
    bad = runner.invoke(app, ["metrics", str(t), str(pairs), "--pairs", "-m", "muc"])
    assert bad.exit_code == 2


def test_errors_command(tmp_path: Path) -> None:
    rec, clu = tmp_path / "r.csv", tmp_path / "c.parquet"
    args = ["errors", str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_good.csv")]
    out = runner.invoke(app, [*args, "--by", "record", "-o", str(rec)])
    assert out.exit_code == 0, out.output
    assert out.stdout == ""
    out = runner.invoke(app, [*args, "--out", str(clu)])
    assert out.exit_code == 0, out.output
    records = pd.read_csv(rec)
    clusters = pd.read_parquet(clu)
    assert list(records.columns[-7:]) == ["EI", "SDE", "OCE", "UCE", "ROCE", "RUCE", "H"]
    assert len(records) == len(pd.read_csv(EXAMPLES / "truth.csv"))
    assert clusters["size"].sum() == len(records)
    printed = runner.invoke(app, [*args, "--by", "record", "-f", "csv"])
    assert printed.exit_code == 0 and printed.stdout.startswith("record_id,true_cluster")
    as_table = runner.invoke(app, args)  # the default format is a table, as elsewhere
    assert as_table.exit_code == 0 and "cluster errors" in as_table.stdout
    as_json = tmp_path / "c.json"
    assert runner.invoke(app, [*args, "-o", str(as_json)]).exit_code == 0
    assert len(json.loads(as_json.read_text())) == len(clusters)
    bad = runner.invoke(app, [*args, "--out", str(tmp_path / "x.txt")])
    assert bad.exit_code == 2 and "'--out'" in bad.output and "must end in" in bad.output
    assert not (tmp_path / "x.txt").exists()


def test_module_entry_point() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "ereval", "--help"], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0 and "metrics" in out.stdout
