"""A sample written by ``draw_sample(...).to_frame()`` reads back as the same sample.

Its ``draws``, ``probability`` and ``unit_id`` columns are read by default, through
the API and the CLI alike; a column that contradicts the design given is an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError
from ereval._simulate import inject_errors
from ereval.cli import app
from ereval.estimators import as_sample, draw_sample, estimate

runner = CliRunner()


@pytest.fixture(scope="module")
def population() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(11)
    sizes = np.minimum(rng.zipf(2.0, size=120), 30)
    clusters = np.repeat(np.arange(sizes.size), sizes)
    records = [f"r{i}" for i in range(clusters.size)]
    truth = pd.DataFrame({"record_id": records, "cluster_id": [f"t{c}" for c in clusters]})
    pred_m = inject_errors(truth, rate=0.2, seed=1)
    pred = pd.DataFrame(
        {"record_id": pred_m.records, "cluster_id": [f"p{c}" for c in pred_m.clusters]}
    )
    return truth, pred


def _assert_same(got: dict, want: dict) -> None:  # type: ignore[type-arg]
    """Same keys, values and standard errors (up to the order of summation of the draws)."""
    assert list(got) == list(want)
    for key, e in want.items():
        assert got[key].value == pytest.approx(e.value, rel=1e-12, abs=1e-15), key
        assert got[key].std == pytest.approx(e.std, rel=1e-12, abs=1e-15), key
        assert got[key].n == e.n, key


def test_record_sample_reads_back_its_draws(
    population: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    truth, pred = population
    sample = draw_sample(truth, n=100, design="record", seed=4)
    assert sample.n_draws == 100 and sample.n_units < 100  # some clusters drawn again
    frame = sample.to_frame()
    path = tmp_path / "sample.csv"
    frame.to_csv(path, index=False)
    pred_path = tmp_path / "pred.csv"
    pred.to_csv(pred_path, index=False)

    direct = estimate(pred, sample, naive=False)
    for source in (frame, path):
        back = as_sample(source, design="record")
        assert back.n_draws == 100
        assert sorted(back.draws.tolist()) == sorted(sample.draws.tolist())
        _assert_same(estimate(pred, source, design="record", naive=False), direct)

    res = runner.invoke(
        app,
        [
            "estimate",
            "--pred",
            str(pred_path),
            "--sample",
            str(path),
            "--design",
            "record",
            "--no-naive",
            "-f",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key, e in direct.items():
        assert data[key]["n"] == 100
        assert data[key]["value"] == pytest.approx(e.value, rel=1e-12, abs=1e-15), key
        assert data[key]["std"] == pytest.approx(e.std, rel=1e-12, abs=1e-15), key


def test_cluster_and_block_samples_read_back_their_probabilities_and_units(
    population: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    truth, pred = population
    ids = truth["cluster_id"].unique()
    weights = {c: 1.0 + (i % 3) for i, c in enumerate(ids)}
    blocks = {c: f"b{i % 15}" for i, c in enumerate(ids)}
    for sample, design in (
        (draw_sample(truth, n=60, design="cluster", weights=weights, seed=2), "cluster"),
        (
            draw_sample(truth, n=20, design="block", weights="uniform", blocks=blocks, seed=2),
            "block",
        ),
    ):
        back = as_sample(sample.to_frame(), design=design)
        assert back.unit_labels.tolist() == sample.unit_labels.tolist()
        assert back.probabilities.tolist() == sample.probabilities.tolist()
        assert back.draws.tolist() == sorted(sample.draws.tolist())
        direct = estimate(pred, sample, naive=False)
        _assert_same(estimate(pred, back, naive=False), direct)


def test_written_columns_that_contradict_the_design_are_errors(
    population: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    truth, _ = population
    ids = truth["cluster_id"].unique()
    weights = {c: 1.0 + (i % 3) for i, c in enumerate(ids)}
    cluster_frame = draw_sample(truth, n=30, design="cluster", weights=weights, seed=0).to_frame()
    with pytest.raises(InputError, match="not proportional to the cluster sizes"):
        as_sample(cluster_frame, design="record")
    blocks = {c: f"b{i % 15}" for i, c in enumerate(ids)}
    block_frame = draw_sample(
        truth, n=10, design="block", weights="uniform", blocks=blocks, seed=0
    ).to_frame()
    with pytest.raises(InputError, match="it was drawn by blocks; use design='block'"):
        as_sample(block_frame, design="cluster", weights="uniform")
    with pytest.raises(InputError, match="design='single_block' has exactly one draw"):
        as_sample(block_frame.assign(unit_id="b0", draws=2), design="single_block")
    # an explicit option still wins over a written column
    uniform = as_sample(cluster_frame, design="cluster", weights="uniform")
    assert uniform.probabilities.tolist() == [1.0] * uniform.n_units


def test_estimate_takes_the_options_of_as_sample() -> None:
    """``draws=`` (and the other options of as_sample) as docs/estimation.md says."""
    from ereval.estimators import as_sample, estimate

    pred = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}
    sample = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 8: "c4"}
    draws = ["c1", "c2", "c1", "c4"]
    direct = estimate(pred, sample, design="cluster", weights="uniform", draws=draws)
    via = estimate(pred, as_sample(sample, design="cluster", weights="uniform", draws=draws))
    assert direct["pairwise_precision"] == via["pairwise_precision"]
    assert direct["pairwise_precision"].n == 4
    once = estimate(pred, sample, design="cluster", weights="uniform")
    assert once["pairwise_precision"].value != direct["pairwise_precision"].value
    fpc = estimate(
        pred, sample, design="cluster", weights="uniform", replace=False, population_size=3
    )
    assert fpc["pairwise_precision"].std == 0.0  # a census of 3 units
    with pytest.raises(ValueError, match="already a ClusterSample"):
        estimate(pred, as_sample(sample, design="cluster", weights="uniform"), draws=draws)
