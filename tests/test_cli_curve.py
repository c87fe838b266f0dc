"""``ereval curve``: the JSON contract, presets, options checked before work."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import evaluate
from ereval.cli import app
from ereval.curves import threshold_curve

from ._example_data import EXAMPLES

runner = CliRunner()
TRUTH, PAIRS = str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pairs.csv")


def test_json_is_one_row_per_threshold() -> None:
    res = runner.invoke(app, ["curve", TRUTH, PAIRS, "--score-col", "probability", "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    scores = pd.read_csv(PAIRS)["probability"]
    assert [r["threshold"] for r in rows] == sorted(set(scores))
    first = rows[0]
    for key in ("links_precision", "links_recall", "links_f1", "pairwise_f1", "b3_f1", "muc_f1"):
        assert key in first
    # the clustering at a threshold is the connected components of the accepted pairs
    row = rows[len(rows) // 2]
    pairs = pd.read_csv(PAIRS, dtype={"record_id_1": str, "record_id_2": str})
    acc = pairs[pairs["probability"] >= row["threshold"]]
    truth = pd.read_csv(TRUTH, dtype=str)
    index = {r: i for i, r in enumerate(truth["record_id"])}
    parent = list(range(len(index)))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for u, v in zip(acc["record_id_1"], acc["record_id_2"], strict=True):
        parent[find(index[u])] = find(index[v])
    pred = dict(zip(truth["record_id"], [find(i) for i in range(len(index))], strict=True))
    expected = evaluate(truth, pred, metrics="pairwise,b3")
    assert row["pairwise_f1"] == pytest.approx(expected["pairwise_f1"], abs=1e-12)
    assert row["b3_f1"] == pytest.approx(expected["b3_f1"], abs=1e-12)


def test_grid_metrics_csv_and_outputs(tmp_path: Path) -> None:
    out, plot = tmp_path / "curve.parquet", tmp_path / "curve.png"
    res = runner.invoke(
        app,
        [
            "curve", TRUTH, PAIRS, "--grid", "4", "-m", "canonical", "-f", "csv",
            "-o", str(out), "--plot", str(plot), "-q",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 5 and "ceafe_f1" in lines[0]
    assert pd.read_parquet(out).shape[0] == 4
    assert plot.stat().st_size > 0


def test_table_has_a_summary_and_the_best_threshold() -> None:
    res = runner.invoke(app, ["curve", TRUTH, PAIRS, "--grid", "3", "--precision-target", "0.9"])
    assert res.exit_code == 0, res.output
    for word in ("pairs_completeness", "roc_auc", "best_pairwise_f1_threshold"):
        assert word in res.stdout
    assert "precision_target_threshold" in res.stdout


def test_splink_preset(tmp_path: Path) -> None:
    truth = pd.DataFrame({"unique_id": [1, 2, 3, 4], "cluster": [1, 1, 2, 2]})
    preds = pd.DataFrame(
        {
            "unique_id_l": [1, 3, 1],
            "unique_id_r": [2, 4, 3],
            "match_weight": [5.0, 2.0, -1.0],
            "match_probability": [0.97, 0.8, 0.33],
        }
    )
    truth.to_parquet(tmp_path / "truth.parquet")
    preds.to_parquet(tmp_path / "preds.parquet")
    base = ["curve", str(tmp_path / "truth.parquet"), str(tmp_path / "preds.parquet")]
    opts = ["--preset", "splink", "--record-col", "unique_id", "--cluster-col", "cluster"]
    res = runner.invoke(app, [*base, *opts, "-f", "json"])
    assert res.exit_code == 0, res.output
    assert [r["threshold"] for r in json.loads(res.stdout)] == [-1.0, 2.0, 5.0]
    res = runner.invoke(app, [*base, *opts, "--score-col", "match_probability", "-f", "json"])
    assert [r["threshold"] for r in json.loads(res.stdout)] == [0.33, 0.8, 0.97]
    direct = threshold_curve(
        truth.rename(columns={"unique_id": "record_id", "cluster": "cluster_id"}),
        preds,
        left_col="unique_id_l",
        right_col="unique_id_r",
        score_col="match_weight",
    )
    assert np.array_equal(direct.frame["links_tp"], [2, 2, 1])


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--score-col", "nope"], "--score-col"),
        (["--grid", "0"], "--grid"),
        (["-m", "nope"], "--metrics"),
        (["--beta", "-1"], "--beta"),
        (["--maximize", "nope"], "--maximize"),
        (["--left-col", "x"], "--left-col"),
    ],
)
def test_bad_options_name_the_flag(args: list[str], flag: str) -> None:
    res = runner.invoke(app, ["curve", TRUTH, PAIRS, *args])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert f"'{flag}'" in err, err


def test_pairs_over_unknown_records(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("record_id,cluster_id\na,1\nb,1\n")
    (tmp_path / "p.csv").write_text("record_id_1,record_id_2,score\na,b,1\na,zz,2\n")
    base = ["curve", str(tmp_path / "t.csv"), str(tmp_path / "p.csv")]
    res = runner.invoke(app, base)
    assert res.exit_code == 2 and "--on-mismatch intersection" in res.stderr
    res = runner.invoke(app, [*base, "--on-mismatch", "intersection", "-f", "json"])
    assert res.exit_code == 0 and len(json.loads(res.stdout)) == 1


def test_splink_preset_of_a_link_job(tmp_path: Path) -> None:
    truth = pd.DataFrame(
        {"source_dataset": ["a", "a", "b"], "unique_id": [1, 2, 1], "cluster": [7, 8, 7]}
    )
    preds = pd.DataFrame(
        {
            "source_dataset_l": ["a", "a"],
            "unique_id_l": [1, 2],
            "source_dataset_r": ["b", "b"],
            "unique_id_r": [1, 1],
            "match_weight": [3.0, 1.0],
        }
    )
    truth.to_csv(tmp_path / "truth.csv", index=False)
    preds.to_csv(tmp_path / "preds.csv", index=False)
    res = runner.invoke(
        app,
        [
            "curve", str(tmp_path / "truth.csv"), str(tmp_path / "preds.csv"),
            "--preset", "splink", "--record-col", "source_dataset,unique_id",
            "--cluster-col", "cluster", "-f", "json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [(r["threshold"], r["links_tp"], r["links_fp"]) for r in rows] == [
        (1.0, 1, 1),
        (3.0, 1, 0),
    ]


def test_the_curve_is_written_a_block_of_rows_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a curve of many distinct scores is never held whole (10^7 distinct scores:
    # 4.5 GB under a 1 GB limit when it was): every output is made a block of rows at
    # a time, and is the text of the whole frame
    from ereval.cli._common import dumps_json
    from ereval.cli._csv_text import write_csv
    from ereval.curves import ThresholdCurve, _result

    base = ["curve", TRUTH, PAIRS, "--score-col", "probability"]
    frame = threshold_curve(
        pd.read_csv(TRUTH, dtype=str),
        pd.read_csv(PAIRS, dtype={"record_id_1": str, "record_id_2": str}),
        score_col="probability",
    ).frame
    assert len(frame) > 40
    expected_csv = io.StringIO()
    write_csv(frame, expected_csv)
    table = runner.invoke(app, [*base, "-f", "table"]).stdout

    def never(self: object) -> None:
        raise AssertionError("the whole frame was made")

    monkeypatch.setattr(ThresholdCurve, "frame", property(never))
    monkeypatch.setattr(_result, "CHUNK_ROWS", 7)
    for engine in ("numpy", "duckdb"):
        got = runner.invoke(app, [*base, "-f", "csv", "--engine", engine])
        assert got.exit_code == 0, got.output
        assert got.stdout == expected_csv.getvalue()
        got = runner.invoke(app, [*base, "-f", "json", "--engine", engine])
        assert got.stdout == dumps_json(frame.to_dict("records")) + "\n"
        got = runner.invoke(app, [*base, "-f", "table", "--engine", engine])
        assert got.stdout == table
        for name in ("c.csv", "c.json", "c.parquet", "c.csv.gz"):
            out = tmp_path / f"{engine}-{name}"
            got = runner.invoke(app, [*base, "-o", str(out), "--engine", engine])
            assert got.exit_code == 0, got.output
            if name.endswith("parquet"):
                back = pd.read_parquet(out)
            elif name.endswith("json"):
                back = pd.DataFrame(json.loads(out.read_text()))
            else:
                back = pd.read_csv(out)
            pd.testing.assert_frame_equal(back, frame, check_dtype=name.endswith("parquet"))
