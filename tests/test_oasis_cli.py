"""The ``ereval oasis`` commands, in process."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.oasis import synthetic_pool

from ._oasis_support import pool_path

runner = CliRunner()


@pytest.fixture(scope="module")
def abt() -> str:
    return str(pool_path("abt-buy-svm.csv.gz"))


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pool = synthetic_pool(3000, imbalance=30, seed=2)
    path = tmp_path_factory.mktemp("oasis") / "pool.csv"
    pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(pool.size)],
            "sim": pool.scores,
            "prob": pool.probabilities,
            "yhat": pool.predictions,
            "truth": pool.labels,
        }
    ).to_csv(path, index=False)
    return path


def test_estimate_json_on_a_paper_pool(abt: str) -> None:
    result = runner.invoke(
        app, ["oasis", "estimate", abt, "--budget", "300", "--seed", "1", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("f_measure", "precision", "recall"):
        e = data[key]
        assert set(e) == {"value", "std", "interval", "level", "n", "method", "warnings"}
        assert 0.0 <= e["interval"][0] <= e["value"] <= e["interval"][1] <= 1.0
    assert data["labels_used"] == 300
    assert data["iterations"] >= 300
    assert data["method"] == "oasis" and data["n_strata"] == 30 and data["stop_reason"] == "budget"


@pytest.mark.parametrize("method", ["oasis", "passive", "stratified", "importance"])
def test_estimate_renamed_columns_every_method(small_csv: Path, method: str) -> None:
    args = [
        "oasis",
        "estimate",
        str(small_csv),
        "--label-col",
        "truth",
        "--id-col",
        "id",
        "--score-col",
        "sim",
        "--prediction-col",
        "yhat",
        "--probability-col",
        "prob",
        "--budget",
        "200",
        "--method",
        method,
        "--strata",
        "10",
        "--seed",
        "3",
        "--format",
        "json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == method and data["labels_used"] == 200


def test_estimate_table_and_csv(small_csv: Path) -> None:
    base = [
        "oasis",
        "estimate",
        str(small_csv),
        "--label-col",
        "truth",
        "--id-col",
        "id",
        "--score-col",
        "sim",
        "--prediction-col",
        "yhat",
        "--budget",
        "100",
        "--seed",
        "0",
    ]
    table = runner.invoke(app, base)
    assert (
        table.exit_code == 0 and "f_measure" in table.stdout and "stopped by budget" in table.stdout
    )
    csv = runner.invoke(app, [*base, "--format", "csv"])
    assert csv.exit_code == 0
    assert csv.stdout.splitlines()[0] == "measure,value,std,lower,upper"


def test_estimate_save_and_resume(small_csv: Path, tmp_path: Path) -> None:
    base = [
        "oasis",
        "estimate",
        str(small_csv),
        "--label-col",
        "truth",
        "--id-col",
        "id",
        "--score-col",
        "sim",
        "--prediction-col",
        "yhat",
        "--seed",
        "4",
        "--format",
        "json",
    ]
    state = tmp_path / "state.txt"  # any name: the file named is the file written
    first = runner.invoke(app, [*base, "--budget", "100", "--state", str(state)])
    assert first.exit_code == 0, first.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.txt"]
    resumed = runner.invoke(app, [*base, "--budget", "250", "--state", str(state)])
    straight = runner.invoke(app, [*base, "--budget", "250"])
    assert resumed.exit_code == 0 and straight.exit_code == 0
    assert "continuing the oasis sampler" in resumed.stderr
    assert json.loads(resumed.stdout) == json.loads(straight.stdout)
    assert json.loads(resumed.stdout)["labels_used"] == 250
    quiet = runner.invoke(app, [*base, "--budget", "260", "--state", str(state), "-q"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    # a saved sampler fixes its method and options
    other = runner.invoke(
        app, [*base, "--budget", "300", "--state", str(state), "--method", "passive"]
    )
    assert other.exit_code == 2
    assert "'--state'" in other.stderr and "--method" in other.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--alpha", "1.5"], "'--alpha' must lie in [0, 1]; received 1.5"),
        (["--greediness", "0"], "'--greediness' must lie in (0, 1]; received 0.0"),
        (["--level", "1"], "'--level' must lie in (0, 1); received 1.0"),
        (["--budget", "10000"], "'--budget' must not exceed the pool size 3000; received 10000"),
        (["--budget", "0"], "'--budget' must be an integer >= 1"),
        (["--method", "magic"], "invalid value for '--method': 'magic' is not one of"),
        (["--format", "xml"], "invalid value for '--format'"),
        (["--label-col", "nope"], "column 'nope' not found"),
        (["--probability-col", "nope"], "column 'nope' not found"),
        (["--strata-method", "kmeans"], "invalid value for '--strata-method'"),
        (["--noise", "2"], "'--noise' must lie in [0, 1]"),
    ],
)
def test_estimate_bad_input_exits_2(small_csv: Path, extra: list[str], message: str) -> None:
    args = [
        "oasis",
        "estimate",
        str(small_csv),
        "--label-col",
        "truth",
        "--id-col",
        "id",
        "--score-col",
        "sim",
        "--prediction-col",
        "yhat",
        "--budget",
        "50",
    ]
    overrides = dict(zip(extra[::2], extra[1::2], strict=True))
    for i in range(len(args) - 1):
        if args[i] in overrides:
            args[i + 1] = overrides.pop(args[i])
    for k, v in overrides.items():
        args += [k, v]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_estimate_missing_file_and_bad_values(tmp_path: Path, abt: str) -> None:
    missing = runner.invoke(app, ["oasis", "estimate", str(tmp_path / "x.csv"), "--budget", "5"])
    assert missing.exit_code == 2 and "file not found" in missing.output
    bad = tmp_path / "bad.csv"
    pd.DataFrame(
        {"pair_id": [1, 2], "score": [np.nan, 0.2], "prediction": [1, 0], "label": [1, 0]}
    ).to_csv(bad, index=False)
    result = runner.invoke(app, ["oasis", "estimate", str(bad), "--budget", "1"])
    assert result.exit_code == 2 and "'scores' must be finite" in result.output
    bad2 = tmp_path / "bad2.csv"
    pd.DataFrame(
        {"pair_id": [1, 2], "score": [0.9, 0.2], "prediction": [1, 3], "label": [1, 0]}
    ).to_csv(bad2, index=False)
    result = runner.invoke(app, ["oasis", "estimate", str(bad2), "--budget", "1"])
    assert result.exit_code == 2 and "'predictions' must hold only 0 and 1" in result.output
    result = runner.invoke(app, ["oasis", "estimate", abt])
    assert result.exit_code == 2 and "give --budget, --target-ci-width or both" in result.output


def test_experiment_command(small_csv: Path, tmp_path: Path) -> None:
    plot = tmp_path / "fig.png"
    args = [
        "oasis",
        "experiment",
        str(small_csv),
        "--label-col",
        "truth",
        "--id-col",
        "id",
        "--score-col",
        "sim",
        "--prediction-col",
        "yhat",
        "--budgets",
        "50,100",
        "--repeats",
        "3",
        "--methods",
        "oasis,passive",
        "--strata",
        "10",
        "--format",
        "json",
        "--plot",
        str(plot),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["method"], r["budget"]) for r in rows] == [
        ("oasis", 50),
        ("oasis", 100),
        ("passive", 50),
        ("passive", 100),
    ]
    assert {"mae", "std", "coverage", "defined", "true_value"} <= set(rows[0])
    assert plot.exists() and plot.stat().st_size > 1000
    bad = runner.invoke(app, [*args[:-4], "--budgets", "50,x"])
    assert bad.exit_code == 2 and "'--budgets' must be comma-separated integers" in bad.output
    bad = runner.invoke(app, [*args[:-4], "--methods", "oasis,magic"])
    assert bad.exit_code == 2 and "'--methods' must be one of" in bad.output


def test_link_only_pool_is_the_pairs_across_data_sets(small_csv: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(small_csv)
    frame["source_dataset_l"] = "left"
    frame["source_dataset_r"] = "right"
    across = tmp_path / "across.csv"
    frame.to_csv(across, index=False)
    cols = ["--id-col", "id", "--score-col", "sim", "--prediction-col", "yhat"]
    cols += ["--probability-col", "prob", "--label-col", "truth"]
    base = ["oasis", "estimate", *cols, "--budget", "40", "--seed", "3", "-f", "json", "-q"]
    plain = runner.invoke(app, [*base[:2], str(across), *base[2:]])
    linked = runner.invoke(app, [*base[:2], str(across), *base[2:], "--link-only"])
    assert plain.exit_code == 0 and linked.exit_code == 0, linked.output
    # a pool of pairs across data sets only: the same estimate as without the option
    assert json.loads(linked.stdout) == json.loads(plain.stdout)
    # a pair within one data set is refused, naming it
    frame.loc[5, "source_dataset_r"] = "left"
    inside = tmp_path / "inside.csv"
    frame.to_csv(inside, index=False)
    res = runner.invoke(app, [*base[:2], str(inside), *base[2:], "--link-only"])
    assert res.exit_code == 2 and "row 5" in res.output and "one data set" in res.output
    # other column names, and the option checked before any work
    renamed = frame.rename(columns={"source_dataset_l": "ds_l", "source_dataset_r": "ds_r"})
    renamed.loc[5, "ds_r"] = "right"
    named = tmp_path / "named.csv"
    renamed.to_csv(named, index=False)
    res = runner.invoke(
        app, [*base[:2], str(named), *base[2:], "--link-only", "--source-col", "ds"]
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, [*base[:2], str(named), *base[2:], "--source-col", "ds"])
    assert res.exit_code == 2 and "--link-only" in res.output
    res = runner.invoke(app, [*base[:2], str(named), *base[2:], "--link-only"])
    assert res.exit_code == 2 and "source_dataset_l" in res.output


@pytest.mark.parametrize(
    ("flags", "options", "budget"),
    [
        (["--prior-scale", "per-stratum"], {"prior_scale": "per_stratum"}, 100),
        (["--completed-strata", "sampled"], {"completed_strata": "sampled"}, 280),
        ([], {"prior_scale": "split", "completed_strata": "exact"}, 280),
    ],
)
def test_estimate_switches_equal_the_sampler_options(
    tmp_path: Path, flags: list[str], options: dict[str, str], budget: int
) -> None:
    """``--prior-scale`` and ``--completed-strata`` run the sampler the API builds with the
    same options: the same estimate, to the last digit (at 280 labels of 300 pairs
    strata complete, where the two estimators differ)."""
    from ereval.oasis import LabelOracle, make_sampler, read_pool

    small = synthetic_pool(300, imbalance=4, seed=3)
    small_csv = tmp_path / "pool.csv"
    pd.DataFrame(
        {
            "id": np.arange(300),
            "sim": small.scores,
            "yhat": small.predictions,
            "truth": small.labels,
        }
    ).to_csv(small_csv, index=False)

    columns = ["--id-col", "id", "--score-col", "sim", "--prediction-col", "yhat"]
    args = ["oasis", "estimate", str(small_csv), "--budget", str(budget), "--seed", "5", *columns]
    result = runner.invoke(app, [*args, "--label-col", "truth", *flags, "--format", "json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    pool = read_pool(
        small_csv,
        pair_id_col="id",
        score_col="sim",
        prediction_col="yhat",
        label_col="truth",
        probability_col="probability",
        require_probability=False,
    )
    sampler = make_sampler("oasis", pool, alpha=0.5, seed=5, **options)
    want = sampler.run(LabelOracle(pool), budget=budget)
    assert got["f_measure"]["value"] == want.f_measure.value
    assert got["precision"]["std"] == want.precision.std


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--prior-scale", "per-stratum", "--method", "passive"], "'--prior-scale' is an option"),
        (["--completed-strata", "sampled", "--method", "stratified"], "'--completed-strata'"),
        (["--prior-scale", "even"], "'--prior-scale'"),
    ],
)
def test_estimate_switch_misuse_is_one_line(
    small_csv: Path, flags: list[str], expected: str
) -> None:
    args = ["oasis", "estimate", str(small_csv), "--budget", "50", "--id-col", "id"]
    result = runner.invoke(app, [*args, "--score-col", "sim", "--label-col", "truth", *flags])
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert "Traceback" not in result.output
