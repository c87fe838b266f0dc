"""The command line of subgroup differences and reviewer errors: ``ereval estimate --versus``,
``--leaving``, ``--over-rate``/``--under-rate``, ``ereval label export --reviewer`` and
``ereval label reviewer-errors``."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.estimators import estimate_differences, reviewer_sensitivity
from ereval.labels import LabelStore, open_session

from ._example_data import EXAMPLES

runner = CliRunner()
RECORDS, PRED = (str(EXAMPLES / n) for n in ("records.csv", "pred_good.csv"))
IDS = {"record_id": str, "cluster_id": str, "unit_id": str}


def _ok(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def _refused(args: list[str], flag: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and flag in err, err
    assert "Traceback" not in result.output


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A cluster review of the example, every item labelled by ana (the truth) and bob (who
    accepts every predicted cluster), and ana's benchmark with a group column."""
    tmp = tmp_path_factory.mktemp("rev")
    db = str(tmp / "l.db")
    _ok(["label", "init", "--db", db, "--data", RECORDS, "--pred", PRED, "--n", "40",
         "--seed", "5", "--overlap", "1"])  # fmt: skip
    truth = pd.read_csv(EXAMPLES / "truth.csv", dtype=str)
    cluster = dict(zip(truth.record_id, truth.cluster_id, strict=True))
    with LabelStore(db) as store:
        review = open_session(store, "main")
        for item in store.items("main"):
            pred = set(review.predicted_cluster(item.key))  # type: ignore[union-attr]
            true = {r for r, c in cluster.items() if c == cluster[item.key]}
            review.save(item.key, reviewer="ana", remove=pred - true, add=true - pred)  # type: ignore[union-attr]
            review.save(item.key, reviewer="bob")  # type: ignore[union-attr]
    ana, bob = str(tmp / "ana.csv"), str(tmp / "bob.csv")
    _ok(["label", "export", "--db", db, "--kind", "benchmark", "--reviewer", "ana", "-o", ana])
    _ok(["label", "export", "--db", db, "--kind", "benchmark", "--reviewer", "bob", "-o", bob])
    frame = pd.read_csv(ana, dtype=IDS)
    frame["grp"] = [("even" if int(c[-1], 16) % 2 == 0 else "odd") for c in frame["cluster_id"]]
    grouped = str(tmp / "grouped.csv")
    frame.to_csv(grouped, index=False)
    return {"db": db, "ana": ana, "bob": bob, "grouped": grouped}


def test_per_reviewer_estimates_differ(reviewed: dict[str, str]) -> None:
    cmd = ["estimate", "--pred", PRED, "--design", "record", "-m", "pairwise_precision"]
    a = json.loads(_ok([*cmd, "--sample", reviewed["ana"], "-f", "json"]))
    b = json.loads(_ok([*cmd, "--sample", reviewed["bob"], "-f", "json"]))
    # bob accepted every predicted cluster: his benchmark sees no false link
    assert b["pairwise_precision"]["value"] == pytest.approx(1.0)
    assert a["pairwise_precision"]["value"] < 1.0


def test_differences_match_the_library(reviewed: dict[str, str]) -> None:
    base = ["estimate", "--pred", PRED, "--sample", reviewed["grouped"], "--design", "record"]
    out = json.loads(
        _ok([*base, "--group", "grp", "--versus", "overall", "-m", "pairwise_f1", "-f", "json"])
    )
    frame = pd.read_csv(reviewed["grouped"], dtype=IDS)
    want = estimate_differences(
        pd.read_csv(PRED, dtype=str),
        frame.drop(columns=["grp", "tags"]),
        dict(zip(frame.cluster_id, frame.grp, strict=True)),
        design="record",
        metrics="pairwise_f1",
    )
    for g, ests in want.items():
        assert out[g]["pairwise_f1"]["value"] == pytest.approx(ests["pairwise_f1"].value)
        assert out[g]["pairwise_f1"]["std"] == pytest.approx(ests["pairwise_f1"].std)
    vs = json.loads(_ok([*base, "--group", "grp", "--versus", "odd", "--leaving", "full",
                         "-m", "pairwise_precision", "-f", "json"]))  # fmt: skip
    assert set(vs) == {"even"}
    assert "group 'odd'" in vs["even"]["pairwise_precision"]["method"]
    _refused([*base, "--versus", "overall"], "'--versus'")
    _refused([*base, "--leaving", "full"], "'--leaving'")
    _refused([*base, "--group", "grp", "--versus", "nope"], "'--versus'")


def test_sensitivity_matches_the_library(reviewed: dict[str, str]) -> None:
    base = ["estimate", "--pred", PRED, "--sample", reviewed["ana"], "--design", "record"]
    args = ["--over-rate", "0.1", "--under-rate", "0.05", "--repeats", "30", "--seed", "4"]
    out = json.loads(_ok([*base, *args, "-m", "pairwise_precision", "-f", "json"]))
    frame = pd.read_csv(reviewed["ana"], dtype=IDS).drop(columns="tags")
    want = reviewer_sensitivity(
        pd.read_csv(PRED, dtype=str),
        frame,
        design="record",
        over=0.1,
        under=0.05,
        repeats=30,
        seed=4,
        metrics="pairwise_precision",
    )
    got = out["estimators"]["pairwise_precision"]
    assert got["shift_mean"] == pytest.approx(want.shifts["pairwise_precision"].mean)
    assert out["over"] == 0.1 and out["repeats"] == 30
    csv = _ok([*base, *args, "-m", "pairwise_precision,pairwise_recall", "-f", "csv"])
    assert csv.splitlines()[0].startswith("estimator,estimate,perturbed,shift_mean")
    assert len(csv.splitlines()) == 3
    _refused([*base, "--over-rate", "1.5"], "'--over-rate'")
    _refused([*base, "--under-rate", "-0.1"], "'--under-rate'")
    _refused([*base, "--over-rate", "0.1", "--repeats", "0"], "'--repeats'")
    _refused([*base, "--over-rate", "0.1", "--engine", "duckdb"], "'--engine'")


def test_label_reviewer_errors(reviewed: dict[str, str], tmp_path: Path) -> None:
    cmd = ["label", "reviewer-errors", "--db", reviewed["db"], "--repeats", "20", "--seed", "1"]
    out = json.loads(_ok([*cmd, "-m", "pairwise_precision", "-f", "json"]))
    assert out["session"] == "main" and out["rate"]["items"] >= 2
    err = out["rate"]["error"]
    assert 0 < err["value"] <= err["interval"][1]
    assert out["at_estimate"]["over"] == pytest.approx(out["rate"]["over"]["value"])
    table = _ok([*cmd, "-m", "pairwise_precision"])
    assert "double-reviewed items" in table and "shifts at the upper rates" in table
    csv = _ok([*cmd, "-m", "pairwise_precision", "-f", "csv"]).splitlines()
    assert csv[0].startswith("rates,over,under,estimator") and len(csv) == 3
    _refused([*cmd, "--repeats", "0"], "'--repeats'")
    _refused(["label", "export", "--db", reviewed["db"], "--kind", "spreadsheet", "--reviewer",
              "ana", "-o", str(tmp_path / "s.csv")], "'--reviewer'")  # fmt: skip
    _refused(["label", "export", "--db", reviewed["db"], "--kind", "benchmark", "--reviewer",
              "cy", "-o", str(tmp_path / "s.csv")], "'--reviewer' 'cy'")  # fmt: skip
    assert not (tmp_path / "s.csv").exists()


def test_analyze_reports_differences(reviewed: dict[str, str]) -> None:
    base = ["analyze", "--pred", PRED, "--sample", reviewed["grouped"], "--design", "record",
            "--group", "grp", "-m", "pairwise_precision"]  # fmt: skip
    out = json.loads(_ok([*base, "--versus", "overall", "-f", "json"]))["groups"]
    assert out["versus"] == "overall" and set(out["differences"]) == {"even", "odd"}
    table = _ok([*base, "--versus", "even"])
    assert "differences to even by grp" in table
    plain = json.loads(_ok([*base, "-f", "json"]))["groups"]
    assert "differences" not in plain
    _refused([*base[:-4], "--versus", "even"], "'--versus'")
    _refused([*base, "--versus", "nope"], "'--versus'")
