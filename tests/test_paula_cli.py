"""``ereval paula plan | bounds | annotations`` in-process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.paula import paula_bounds, paula_plan

from . import _paula_support as ref

runner = CliRunner()

N, EPS, DELTA = 3000, 0.2, 6
ARGS = ["--epsilon", str(EPS), "--delta", str(DELTA)]


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, object]:
    plan = paula_plan(N, epsilon=EPS, delta=DELTA)
    rng = np.random.default_rng(4)
    v = ref.monotone_list(N, delta=DELTA, m=plan.m, r_tilde=plan.r_tilde, rng=rng)
    ids = np.array([f"item{i:05d}" for i in range(N)])
    scores = np.linspace(1.0, 0.0, N)
    ranked = tmp_path / "ranked.csv"
    # shuffle the rows: --score-col restores the ranking; file order is not it
    perm = rng.permutation(N)
    pd.DataFrame({"item_id": ids[perm], "score": scores[perm]}).to_csv(ranked, index=False)
    in_order = tmp_path / "ranked.parquet"
    pd.DataFrame({"item_id": ids, "score": scores}).to_parquet(in_order, index=False)
    ranks = plan.ranks()
    by_rank = tmp_path / "labels.csv"
    pd.DataFrame({"rank": ranks, "label": v[ranks - 1]}).to_csv(by_rank, index=False)
    by_id = tmp_path / "labels_by_id.csv"
    pd.DataFrame({"item_id": ids[ranks - 1], "label": v[ranks - 1]}).to_csv(by_id, index=False)
    return {
        "plan": plan,
        "v": v,
        "ranked": ranked,
        "in_order": in_order,
        "by_rank": by_rank,
        "by_id": by_id,
        "tmp": tmp_path,
    }


def invoke(*args: object) -> object:
    return runner.invoke(app, [str(a) for a in args])


# --------------------------------------------------------------------------- plan


def test_plan_json_reproduces_the_paper() -> None:
    res = invoke(
        "paula", "plan", "--n", 217077, "--epsilon", 0.03, "--delta", 100, "--format", "json"
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["annotations"] == 17392
    assert (data["ell"], data["L"], data["m"], data["g_ell"], data["r_tilde"]) == (
        276,
        415,
        103,
        3492,
        3400,
    )
    assert data["ranges"][0] == [1, 3492] and data["ranges"][1] == [3498, 3597]
    assert sum(b - a + 1 for a, b in data["ranges"]) == 17392


def test_plan_table_and_csv() -> None:
    table = invoke("paula", "plan", "--n", 100, "--epsilon", 0.5, "--delta", 2)
    assert table.exit_code == 0 and "annotations" in table.stdout and "86" in table.stdout
    csv = invoke("paula", "plan", "--n", 100, "--epsilon", 0.5, "--delta", 2, "--format", "csv")
    assert csv.stdout.splitlines() == [
        "first,last,count",
        "1,12,12",
        "17,18,2",
        "25,26,2",
        "38,39,2",
        "57,58,2",
        "86,87,2",
    ]


def test_plan_writes_the_items_to_label(files: dict[str, object]) -> None:
    out = files["tmp"] / "todo.csv"  # type: ignore[operator]
    res = invoke(
        "paula",
        "plan",
        "--ranked",
        files["ranked"],
        "--score-col",
        "score",
        *ARGS,
        "--out",
        out,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    todo = pd.read_csv(out)
    plan = files["plan"]
    assert todo["rank"].tolist() == plan.ranks().tolist()  # type: ignore[attr-defined]
    # the best-scored item is item00000 even though the file is shuffled
    assert todo["item_id"].iloc[0] == "item00000"
    assert todo["item_id"].iloc[-1] == f"item{plan.ranks()[-1] - 1:05d}"  # type: ignore[attr-defined]
    assert json.loads(res.stdout)["out"] == str(out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--n", 1000, "--epsilon", 1.5, "--delta", 100],
            "'--epsilon' must lie in (0, 1]; received 1.5",
        ),
        (
            ["--n", 1000, "--epsilon", 0.03, "--delta", 0],
            "'--delta' must be an integer >= 1; received 0",
        ),
        (
            ["--n", 1000, "--epsilon", 0.03, "--delta", 100, "--r-tilde", 100],
            "'--r-tilde' must be at least ceil((delta + 2) / epsilon) = 3400",
        ),
        (["--n", 0, "--epsilon", 0.03, "--delta", 100], "'--n' must be an integer >= 1"),
        (["--epsilon", 0.03, "--delta", 100], "give the list length with '--n N'"),
    ],
)
def test_plan_bad_input(args: list[object], message: str) -> None:
    res = invoke("paula", "plan", *args)
    assert res.exit_code == 2
    assert message in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_plan_n_must_match_ranked(files: dict[str, object]) -> None:
    res = invoke("paula", "plan", "--ranked", files["ranked"], "--n", 5, *ARGS)
    assert res.exit_code == 2 and "differs from the number of items" in res.output


# --------------------------------------------------------------------------- bounds


def test_bounds_json_matches_the_python_api(files: dict[str, object]) -> None:
    res = invoke(
        "paula",
        "bounds",
        files["in_order"],
        files["by_rank"],
        *ARGS,
        "--at",
        100,
        "--at",
        1500,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"plan", "precision_at", "monotonicity", "out", "plot"}
    assert data["plan"]["annotations"] == files["plan"].annotations  # type: ignore[attr-defined]
    assert [row["k"] for row in data["precision_at"]] == [100, 1500, N]
    assert set(data["precision_at"][0]) >= {
        "k",
        "exact",
        "precision_lower",
        "precision_upper",
        "step_lower",
        "step_upper",
        "yield_lower",
        "yield_upper",
    }
    plan, v = files["plan"], files["v"]
    b = paula_bounds(plan, plan.ranks(), plan.select(v))  # type: ignore[attr-defined]
    for row in data["precision_at"]:
        iv = b.precision_at(row["k"])
        assert (row["precision_lower"], row["precision_upper"]) == pytest.approx(
            (iv.lower, iv.upper)
        )
        true_p = v[: row["k"]].mean()  # type: ignore[index]
        assert row["precision_lower"] <= true_p + 1e-12 <= row["precision_upper"] + 2e-12
    assert data["monotonicity"]["holds"] is True
    assert data["out"] is None and data["plot"] is None


def test_bounds_by_item_id_with_scores_and_files(files: dict[str, object]) -> None:
    tmp: Path = files["tmp"]  # type: ignore[assignment]
    table, plot = tmp / "bounds.parquet", tmp / "bounds.png"
    res = invoke(
        "paula",
        "bounds",
        files["ranked"],
        files["by_id"],
        *ARGS,
        "--score-col",
        "score",
        "-o",
        table,
        "--plot",
        plot,
        "--n-positives",
        "1200,1400",
        "--plot-kind",
        "pr",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    frame = pd.read_parquet(table)
    assert frame["rank"].iloc[-1] == N and frame["rank"].is_monotonic_increasing
    assert {"recall_lower", "recall_upper"} <= set(frame.columns)
    assert np.all(frame["precision_lower"] <= frame["precision_upper"] + 1e-12)
    assert plot.stat().st_size > 1000 and data["plot"] == str(plot)
    # the same numbers as labelling by rank
    by_rank = invoke(
        "paula", "bounds", files["in_order"], files["by_rank"], *ARGS, "--format", "json"
    )
    assert json.loads(by_rank.stdout)["precision_at"][0]["precision_lower"] == pytest.approx(
        data["precision_at"][0]["precision_lower"]
    )


def test_bounds_table_and_csv_outputs(files: dict[str, object]) -> None:
    out = files["tmp"] / "b.csv"  # type: ignore[operator]
    res = invoke("paula", "bounds", files["in_order"], files["by_rank"], *ARGS, "--out", out)
    assert res.exit_code == 0 and "precision at k" in res.stdout and "consistent" in res.stdout
    assert pd.read_csv(out)["rank"].iloc[0] == 1
    csv = invoke("paula", "bounds", files["in_order"], files["by_rank"], *ARGS, "-f", "csv")
    assert csv.stdout.splitlines()[0].startswith("k,exact,precision_lower,precision_upper")


def test_bounds_reports_violations(files: dict[str, object]) -> None:
    plan: object = files["plan"]
    ranks = plan.ranks()  # type: ignore[attr-defined]
    w = np.array(files["v"]).copy()
    last = int(plan.grid[-1])  # type: ignore[attr-defined]
    w[last - DELTA : last] = 1  # the last window all positive, after many negatives
    path = files["tmp"] / "bad_labels.csv"  # type: ignore[operator]
    pd.DataFrame({"rank": ranks, "label": w[ranks - 1]}).to_csv(path, index=False)
    warn = invoke("paula", "bounds", files["in_order"], path, *ARGS, "-f", "json")
    assert warn.exit_code == 0
    assert json.loads(warn.stdout)["monotonicity"]["holds"] is False
    assert "warning:" in warn.stderr and "violation" in warn.stderr
    strict = invoke("paula", "bounds", files["in_order"], path, *ARGS, "--strict")
    assert strict.exit_code == 2 and "contradict PAULA's assumptions" in strict.output
    tolerant = invoke(
        "paula", "bounds", files["in_order"], path, *ARGS, "--tolerance", 1, "--strict"
    )
    assert tolerant.exit_code == 0


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda f: f.iloc[:-3], "3 planned rank(s) have no label"),
        (
            lambda f: pd.concat([f, pd.DataFrame({"rank": [N], "label": [1]})]),
            "1 labelled rank(s) that are not in the plan (e.g. 3000)",
        ),
        (
            lambda f: f.iloc[:-3],
            "these ranks are not those of the plan for --epsilon 0.2 --delta 6 (N=3,000",
        ),
        (lambda f: pd.concat([f, f.iloc[:1]]), "rank(s) labelled more than once"),
        (lambda f: f.assign(label=f["label"] * 2), "'label' must hold only 0 and 1"),
        (lambda f: f.rename(columns={"rank": "position"}), "needs a 'rank' or an 'item_id' column"),
        (lambda f: f.rename(columns={"label": "y"}), "needs a 'label' column"),
    ],
)
def test_bounds_bad_labels(files: dict[str, object], edit: object, message: str) -> None:
    frame = edit(pd.read_csv(files["by_rank"]))  # type: ignore[operator]
    path = files["tmp"] / "edited.csv"  # type: ignore[operator]
    frame.to_csv(path, index=False)
    res = invoke("paula", "bounds", files["in_order"], path, *ARGS)
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_bounds_bad_options(files: dict[str, object]) -> None:
    base = ["paula", "bounds", files["in_order"], files["by_rank"], *ARGS]
    res = invoke(*base, "--n-positives", "many")
    assert res.exit_code == 2 and "'--n-positives' must be a number or 'low,high'" in res.output
    res = invoke(*base, "--out", files["tmp"] / "t.txt")  # type: ignore[operator]
    assert res.exit_code == 2 and "'--out'" in res.output and "must end in" in res.output
    res = invoke(*base, "--plot", files["tmp"] / "missing" / "p.png")  # type: ignore[operator]
    assert res.exit_code == 2 and "'--plot'" in res.output and "does not exist" in res.output
    res = invoke(*base, "--plot", files["tmp"] / "p.png", "--plot-kind", "pr")  # type: ignore[operator]
    assert res.exit_code == 2 and "'--plot-kind' pr needs '--n-positives'" in res.output
    res = invoke("paula", "bounds", files["tmp"] / "nope.csv", files["by_rank"], *ARGS)  # type: ignore[operator]
    assert res.exit_code == 2 and "file not found" in res.output
    res = invoke("paula", "bounds", files["ranked"], files["by_id"], *ARGS, "--score-col", "nope")
    assert res.exit_code == 2 and "no column 'nope'" in res.output


def test_plot_without_matplotlib(files: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    plot = files["tmp"] / "p.png"  # type: ignore[operator]
    res = invoke("paula", "bounds", files["in_order"], files["by_rank"], *ARGS, "--plot", plot)
    assert res.exit_code == 2
    assert "'--plot'" in res.output and "pip install 'ereval[plot]'" in res.output
    assert res.stdout == "" and not plot.exists()


# --------------------------------------------------------------------------- annotations


def test_annotations_command() -> None:
    res = invoke(
        "paula", "annotations", "--n", 217077, "--epsilon", 0.03, "--p-min", 0.7, "--format", "json"
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert rows == [
        {
            "epsilon": 0.03,
            "approximation": pytest.approx(1.0812),
            "paula": 17392,
            "stratified": rows[0]["stratified"],
            "random_sampling": 46336,
        }
    ]
    table = invoke("paula", "annotations", "--n", 10**7)
    assert table.exit_code == 0 and "random_sampling" in table.stdout
    bad = invoke("paula", "annotations", "--n", 1000, "--p-min", 0)
    assert bad.exit_code == 2 and "'--p-min' must lie in (0, 1]" in bad.output
