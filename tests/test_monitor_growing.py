"""Monitoring releases that grow: estimates over the sample's population, and a fixed subset."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval._monitor import monitor
from ereval.cli import app
from ereval.estimators import as_sample, draw_sample, estimate
from ereval.estimators._restrict import restrict_sample
from ereval.metrics import evaluate

runner = CliRunner()

# hand-built: people a = {1, 2, 3}, b = {4, 5}, c = {6}; release 2 adds 7 to a and 8 to b,
# and a new person d = {9, 10}: still perfect
R1 = {1: "a", 2: "a", 3: "a", 4: "b", 5: "b", 6: "c"}
R2 = R1 | {7: "a", 8: "b", 9: "d", 10: "d"}
SAMPLE = {1: "a", 2: "a", 3: "a", 6: "c"}


def test_a_perfect_release_that_grew_is_estimated_perfect_and_not_flagged() -> None:
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    m = monitor({"r1": R1, "r2": R2}, sample=s, metrics="pairwise_precision,b3_precision")
    for release in ("r1", "r2"):
        assert m.estimates[release]["pairwise_precision"].value == 1.0
        assert m.estimates[release]["b3_precision"].value == 1.0
    assert m.flags.empty
    assert m.population == "release 'r1' (the first holding every sampled record)"
    assert m.notes == (
        "release 'r2': 4 record(s) outside the sample's population were left out of its estimates",
    )
    # by hand, without the restriction: a's predicted cluster holds 7, which the sample
    # says nothing of, so pairwise precision is 3 true pairs over 3 + 3 predicted = 0.5
    # for cluster a (block form: C(3,2) over sum n(b-1)/2 = 3 * 3 / 2)
    whole = estimate(R2, s, metrics="pairwise_precision")["pairwise_precision"]
    assert whole.value < 1.0


def test_population_given_as_a_release_ids_or_a_file(tmp_path: Path) -> None:
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    path = tmp_path / "population.csv"
    pd.DataFrame({"record_id": list(R1)}).to_csv(path, index=False)
    by_label = monitor({"r1": R1, "r2": R2}, sample=s, population="r1")
    by_ids = monitor({"r1": R1, "r2": R2}, sample=s, population=list(R1))
    assert by_label.estimates["r2"]["pairwise_precision"].value == 1.0
    assert by_ids.estimates["r2"]["pairwise_precision"].value == 1.0
    whole = monitor({"r1": R1, "r2": R2}, sample=s, population="r2")
    assert whole.estimates["r2"]["pairwise_precision"].value < 1.0
    assert whole.notes == ()
    with pytest.raises(ValueError, match="'population' must be a release label"):
        monitor({"r1": R1, "r2": R2}, sample=s, population=str(tmp_path / "nope.csv"))


def test_population_by_date_column() -> None:
    t1 = pd.DataFrame(
        {"record_id": list(R1), "cluster_id": list(R1.values()), "date": ["2020-01-01"] * 6}
    )
    extra = pd.DataFrame(
        {"record_id": [7, 8, 9, 10], "cluster_id": ["a", "b", "d", "d"], "date": ["2021-05-01"] * 4}
    )
    t2 = pd.concat([t1, extra], ignore_index=True)
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    m = monitor({"r1": t1, "r2": t2}, sample=s, population_until="2020-12-31", date_col="date")
    assert m.estimates["r2"]["pairwise_precision"].value == 1.0
    assert "dated up to 2020-12-31" in m.population
    with pytest.raises(ValueError, match="needs 'date_col'"):
        monitor({"r1": t1, "r2": t2}, sample=s, population_until="2020-12-31")
    with pytest.raises(ValueError, match="'population_until' must be a date"):
        monitor({"r1": t1, "r2": t2}, sample=s, population_until="soon", date_col="date")


def test_fixed_subset_statistics_and_estimates() -> None:
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    # release 3 wrongly merges c into a
    r3 = R2 | {6: "a"}
    m = monitor({"r1": R1, "r2": R2, "r3": r3}, sample=s, subset=[1, 2, 3, 6])
    assert m.n_common == 4
    assert m.common["n_clusters"].tolist() == [2, 2, 1]
    assert set(m.common_estimates) == {"r1", "r2", "r3"}
    # the subset's true clusters {1,2,3} and {6}; release 3 links 6 to 1, 2, 3:
    # sampled units (a: 3 true pairs of 6 predicted incl. 3 to record 6; c: 0 of 3)
    p3 = m.common_estimates["r3"]["pairwise_precision"]
    assert p3.value < 1.0
    assert m.common_estimates["r1"]["pairwise_precision"].value == 1.0
    # the subset estimates are those of the restricted sample against the restricted release
    sub = restrict_sample(s, [1, 2, 3, 6])
    direct = estimate({1: "a", 2: "a", 3: "a", 6: "a"}, sub, metrics="pairwise_precision")
    assert p3.value == direct["pairwise_precision"].value
    assert p3.interval == direct["pairwise_precision"].interval


def test_restricted_sample_keeps_the_draw_probabilities() -> None:
    s = as_sample(
        {1: "a", 2: "a", 3: "b", 4: "c", 5: "c"}, design="record", draws=["a", "c", "a", "b"]
    )
    r = restrict_sample(s, [1, 4, 5])
    # b keeps no record: its draw goes (a unit with 0 in every term); a and c keep the
    # probabilities of their original sizes, 2 and 2, not 1 and 2
    assert r.records.tolist() == [1, 4, 5]
    assert r.probabilities.tolist() == [2.0, 2.0]
    assert [r.unit_labels[u] for u in r.draws] == ["a", "c", "a"]
    assert r.design == "cluster" and r.weights == "custom"
    with pytest.raises(ValueError, match="no sampled record lies in the subset"):
        restrict_sample(s, [99])


def test_seeded_simulation_of_growing_releases() -> None:
    """Releases that add people and records to a perfect disambiguation: estimates of the
    precision stay at 1 with intervals that cover it; a release that adds wrong links
    within the population is seen, with its interval covering its true precision."""
    rng = np.random.default_rng(4)
    sizes = np.minimum(rng.zipf(2.0, 4000), 30)
    truth = np.repeat(np.arange(sizes.size), sizes)
    base = {i: int(c) for i, c in enumerate(truth)}
    releases = {"r0": base}
    current = dict(base)
    next_id = len(base)
    for k in range(1, 4):
        for _ in range(1500):
            current[next_id] = (
                int(rng.integers(0, sizes.size)) if rng.random() < 0.6 else 10**7 + next_id
            )
            next_id += 1
        releases[f"r{k}"] = dict(current)
    # r4: the same records as r3, some people of the population merged pairwise
    bad = dict(current)
    people = rng.choice(sizes.size, size=600, replace=False)
    for a, b in people.reshape(-1, 2):
        for r in np.flatnonzero(truth == b):
            bad[int(r)] = int(a)
    releases["r4"] = bad
    sample = draw_sample(base, n=300, design="record", seed=9)
    m = monitor(releases, sample=sample, metrics="pairwise_precision,pairwise_recall")
    for r in ("r0", "r1", "r2", "r3"):
        e = m.estimates[r]["pairwise_precision"]
        assert e.value == 1.0 and e.lower > 0.98, r
    assert not ((m.flags["scope"] == "estimate") & (m.flags["release"] != "r4")).any()
    true_p = evaluate(base, {r: bad[r] for r in base}, metrics="pairwise")["pairwise_precision"]
    e = m.estimates["r4"]["pairwise_precision"]
    assert e.lower <= true_p <= e.upper and true_p < 0.98
    flagged = m.flags[(m.flags["release"] == "r4") & (m.flags["scope"] == "estimate")]
    assert "pairwise_precision" in set(flagged["statistic"])
    assert len(m.notes) == 4 and all("outside the sample's population" in n for n in m.notes)
    assert math.isfinite(e.std)


def test_cli_population_and_subset(tmp_path: Path) -> None:
    for label, rel in (("2024-01-01", R1), ("2024-06-01", R2)):
        pd.DataFrame({"record_id": list(rel), "cluster_id": list(rel.values())}).to_csv(
            tmp_path / f"{label}.csv", index=False
        )
    pd.DataFrame({"record_id": list(SAMPLE), "cluster_id": list(SAMPLE.values())}).to_csv(
        tmp_path / "sample.csv", index=False
    )
    pd.DataFrame({"record_id": [1, 2, 3, 6]}).to_csv(tmp_path / "subset.csv", index=False)
    base = [
        "monitor",
        str(tmp_path / "2024-01-01.csv"),
        str(tmp_path / "2024-06-01.csv"),
        "--sample",
        str(tmp_path / "sample.csv"),
        "--design",
        "cluster",
        "--weights",
        "uniform",
        "-m",
        "pairwise_precision",
    ]
    res = runner.invoke(app, [*base, "--subset", str(tmp_path / "subset.csv"), "-f", "json"])
    assert res.exit_code == 0, res.output
    import json

    data = json.loads(res.stdout)
    assert data["estimates"]["2024-06-01"]["pairwise_precision"]["value"] == 1.0
    assert data["common_estimates"]["2024-06-01"]["pairwise_precision"]["value"] == 1.0
    assert data["n_common"] == 4 and data["flags"] == []
    assert "4 record(s) outside the sample's population" in res.stderr
    res = runner.invoke(app, [*base, "--population-until", "2020-01-01"])
    assert res.exit_code == 2 and "'--population-until' needs '--date-col'" in res.stderr
    res = runner.invoke(app, [*base, "--population", "2024-06-01", "-f", "json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["estimates"]["2024-06-01"]["pairwise_precision"]["value"] < 1


def test_figure_draws_the_fixed_subset_estimates() -> None:
    from ereval.plots import monitoring_figure

    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    m = monitor({"r1": R1, "r2": R2}, sample=s, subset=[1, 2, 3, 6], metrics="pairwise_precision")
    panel = next(p for p in monitoring_figure(m) if p.panel.title == "pairwise_precision")
    assert [b.label for b in panel.bands] == ["95% interval", "interval, fixed subset"]
    assert panel.bands[1].lower.tolist() == [
        m.common_estimates[r]["pairwise_precision"].lower for r in ("r1", "r2")
    ]
