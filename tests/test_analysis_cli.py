"""``ereval analyze``, and the figures of the error analysis."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.analysis import disparities, sample_errors, tag_frequencies
from ereval.cli import app
from ereval.example import load
from ereval.plots import analysis_figure, disparities_figure, plot_analysis, tags_figure

from ._example_data import EXAMPLES

runner = CliRunner()
P, S, R = (str(EXAMPLES / n) for n in ("pred_poor.csv", "sample.csv", "records.csv"))
BASE = ["analyze", "--pred", P, "--sample", S, "--design", "record", "-q"]


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example sample with reviewer tags on every cluster in error."""
    s = sample_errors(load("pred_poor.csv"), load("sample.csv"), design="record")
    wrong = s.table.loc[s.table["EI"] > 0, "cluster_id"].tolist()
    tags = {
        c: ["same name", "relatives merged", "same name, typo"][i % 3] for i, c in enumerate(wrong)
    }
    frame = load("sample.csv")
    frame["tags"] = frame["cluster_id"].map(tags).fillna("")
    path = tmp_path_factory.mktemp("reviewed") / "reviewed.csv"
    frame.to_csv(path, index=False)
    return path


def _refused(args: list[str], flag: str) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert f"'{flag}'" in err, err
    assert res.stdout == ""
    return err


def test_the_error_table_of_the_sample(tmp_path: Path) -> None:
    out = tmp_path / "e.csv"
    args = [*BASE, "--features", R, "--feature-cols", "sex,year", "--shares", "source=census"]
    res = runner.invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out, dtype={"cluster_id": str})
    api = sample_errors(
        load("pred_poor.csv"), load("sample.csv"), design="record", features=load("records.csv"),
        feature_columns=["sex", "year"], shares=["source=census"],
    ).table  # fmt: skip
    assert table["cluster_id"].tolist() == api["cluster_id"].tolist()
    assert list(table.columns) == list(api.columns)
    np.testing.assert_allclose(table["weight"], api["weight"])
    np.testing.assert_allclose(table["OCE"], api["OCE"])
    np.testing.assert_allclose(table["source=census"], api["source=census"])
    printed = runner.invoke(app, [*args, "-f", "json"])
    assert printed.exit_code == 0
    assert len(json.loads(printed.stdout)) == len(api)


def test_subgroups_tree_and_tags_in_json(reviewed: Path) -> None:
    args = ["analyze", "--pred", P, "--sample", str(reviewed), "--design", "record", "-q"]
    args += ["--features", R, "--feature-cols", "sex,source", "--group", "sex", "--tree"]
    res = runner.invoke(app, [*args, "--tags", "tags", "-f", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    s = sample_errors(
        load("pred_poor.csv"), load("sample.csv"), design="record", features=load("records.csv"),
        feature_columns=["sex", "source"],
    )  # fmt: skip
    d = disparities(s, "sex")
    assert data["groups"]["by"] == "sex"
    female = data["groups"]["estimates"]["Female"]["pairwise_precision"]
    assert female["value"] == pytest.approx(d.groups["Female"]["pairwise_precision"].value)
    assert data["groups"]["clusters"] == {"Female": 111, "Male": 79}
    assert data["tree"]["target"] == "over" and data["tree"]["rules"]
    tags = dict(
        zip(pd.read_csv(reviewed)["cluster_id"], pd.read_csv(reviewed)["tags"], strict=False)
    )
    f = tag_frequencies(s, tags)
    assert data["tags"]["same name"]["value"] == pytest.approx(f["same name"].value)
    assert data["tags"]["same name"]["interval"][0] == pytest.approx(f["same name"].lower)
    # every cluster in error is tagged, 'same name' on two thirds of them
    assert set(data["tags"]) == {"same name", "relatives merged", "typo"}


def test_numeric_groups_in_quantile_bins() -> None:
    args = [*BASE, "--features", R, "--feature-cols", "year", "--group", "year", "--bins", "2"]
    res = runner.invoke(app, [*args, "-m", "pairwise_recall", "-f", "csv"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    groups = [r["group"] for r in rows]
    # two groups split at the median mean year of the sampled entities, then all of them
    assert len(groups) == 3 and groups[-1] == "(all)"
    assert groups[0].startswith("(") and groups[0].endswith("]")
    assert sum(int(r["clusters"]) for r in rows[:2]) == int(rows[2]["clusters"]) == 190
    _refused([*BASE, "--bins", "2"], "--bins")
    _refused([*args[:-1], "1"], "--bins")


def test_tree_is_printed_as_rules() -> None:
    res = runner.invoke(app, [*BASE, "--features", R, "--feature-cols", "sex,source", "--tree"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("error tree (over; overall")
    assert all("-> over-clustered in" in ln and "(weighted) of" in ln for ln in lines[1:])


def test_plot_is_written(reviewed: Path, tmp_path: Path) -> None:
    fig = tmp_path / "f.png"
    args = ["analyze", "--pred", P, "--sample", str(reviewed), "--design", "record", "-q"]
    res = runner.invoke(app, [*args, "--tags", "tags", "--plot", str(fig)])
    assert res.exit_code == 0, res.output
    assert fig.read_bytes()[:4] == b"\x89PNG"


def test_bad_input_names_the_flag(reviewed: Path) -> None:
    err = _refused([*BASE, "--features", R, "--group", "nope"], "--group")
    assert "no feature or sample column 'nope'" in err
    _refused([*BASE, "--tags", "tags"], "--tags")
    _refused([*BASE, "--features", R, "--feature-cols", "nope"], "--feature-cols")
    _refused(["analyze", "--pred", P, "--sample", S], "--design")
    _refused(["analyze", "--pred", P, "--design", "record"], "--sample")
    _refused(["errors", P, P, "--pred", P, "--sample", S, "--design", "record"], "--pred")
    _refused(["errors", str(EXAMPLES / "truth.csv"), P, "--tree"], "--tree")
    _refused([*BASE, "--group", "sex", "--tree", "-f", "csv"], "--format")
    _refused([*BASE, "--plot", "x.png"], "--plot")
    _refused([*BASE, "--by", "record"], "--by")
    _refused([*BASE, "--id-type", "string"], "--id-type")
    _refused(["errors", str(EXAMPLES / "truth.csv"), P, "--among", "all"], "--among")
    res = runner.invoke(app, ["errors"])
    assert res.exit_code == 2 and "give TRUTH PRED" in res.stderr


def test_missing_numeric_feature_is_refused_by_the_tree(tmp_path: Path) -> None:
    clusters = load("sample.csv")["cluster_id"].unique()
    feats = pd.DataFrame({"cluster_id": clusters, "age": 30.0})
    feats.loc[0, "age"] = math.nan  # features keyed by cluster, one of them unknown
    path = tmp_path / "feats.csv"
    feats.to_csv(path, index=False)
    err = _refused([*BASE, "--features", str(path), "--tree"], "--features")
    assert "feature 'age' is missing for 1 sampled cluster" in err


def test_figure_data() -> None:
    s = sample_errors(
        load("pred_poor.csv"), load("sample.csv"), design="record", features=load("records.csv"),
        feature_columns=["sex"],
    )  # fmt: skip
    d = disparities(s, "sex", metrics="pairwise_precision")
    (bars,) = disparities_figure(d)
    assert bars.labels == ("Female (111)", "Male (79)")
    e = d.groups["Male"]["pairwise_precision"]
    assert (bars.values[1], bars.lower[1], bars.upper[1]) == (e.value, e.lower, e.upper)
    assert bars.reference == d.overall["pairwise_precision"].value
    wrong = s.table.loc[s.table["EI"] > 0, "cluster_id"]
    f = tag_frequencies(s, dict.fromkeys(wrong, "same name"))
    t = tags_figure(f)
    assert t.labels == ("same name",) and t.values[0] == 1.0
    assert len(analysis_figure(d, f)) == 2
    fig = plot_analysis(d, f)
    assert len(fig.axes) == 2


def test_the_worked_example_of_the_docs() -> None:
    """docs/analysis.md shows these numbers."""
    args = [*BASE, "--features", R, "--feature-cols", "source,year,sex"]
    args += ["--shares", "source=census", "--group", "sex", "--tree", "--max-depth", "2"]
    res = runner.invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    est = data["groups"]["estimates"]
    assert round(est["Female"]["pairwise_precision"]["value"], 6) == 0.652639
    assert round(est["Male"]["pairwise_precision"]["interval"][1], 6) == 0.936699
    assert data["tree"]["text"].splitlines() == [
        "year > 2024 and size >= 5 -> over-clustered in 38% (weighted) of 8 clusters",
        "year > 2024 and size <= 4 -> over-clustered in 13% (weighted) of 171 clusters",
        "year <= 2024 -> over-clustered in 0% (weighted) of 11 clusters",
    ]
    assert len(res.stderr.strip().splitlines()) == 2  # the two warnings the docs mention
    docs = (Path(__file__).resolve().parents[1] / "docs" / "analysis.md").read_text()
    for line in data["tree"]["text"].splitlines():
        assert line in docs
