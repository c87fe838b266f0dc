"""The experiment harness and the figure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval import InputError
from ereval.oasis import run_experiment, synthetic_pool
from ereval.plots import oasis_experiment_figure, plot_oasis_experiment

POOL = synthetic_pool(5000, imbalance=50, seed=6)


def test_experiment_summaries_match_the_raw_estimates() -> None:
    res = run_experiment(POOL, methods=("oasis", "passive"), budgets=(100, 300), repeats=6, seed=1)
    assert res.true_value == pytest.approx(POOL.true_measure())
    assert res.budgets == (100, 300) and res.methods == ("oasis", "passive")
    for method in res.methods:
        est = res.estimates[method]
        assert est.shape == (6, 2)
        for j, b in enumerate(res.budgets):
            row = res.row(method, b)
            ok = np.isfinite(est[:, j])
            assert row.defined == pytest.approx(ok.mean())
            if ok.any():
                assert row.mae == pytest.approx(np.mean(np.abs(est[ok, j] - res.true_value)))
                assert row.bias == pytest.approx(np.mean(est[ok, j] - res.true_value))
            assert row.mean_iterations >= b
    # reproducible from the seed
    again = run_experiment(
        POOL, methods=("oasis", "passive"), budgets=(100, 300), repeats=6, seed=1
    )
    np.testing.assert_array_equal(again.estimates["oasis"], res.estimates["oasis"])
    frame = res.to_frame()
    assert len(frame) == 4 and frame["true_value"].eq(res.true_value).all()
    assert res.to_dict()["rows"][0]["method"] == frame["method"].iloc[0]


def test_oasis_beats_passive_on_a_rare_match_pool() -> None:
    res = run_experiment(POOL, methods=("oasis", "passive"), budgets=(400,), repeats=20, seed=2)
    assert res.row("oasis", 400).mae * 3 < res.row("passive", 400).mae


def test_experiment_noise_and_errors() -> None:
    res = run_experiment(
        POOL, methods=("stratified",), budgets=(200,), repeats=2, flip_probability=0.2
    )
    assert math.isfinite(res.row("stratified", 200).mae)
    with pytest.raises(
        InputError, match="'budgets' must not exceed the pool size 5000; received 6000"
    ):
        run_experiment(POOL, budgets=(6000,), repeats=1)
    with pytest.raises(InputError, match="'methods' must be one of"):
        run_experiment(POOL, methods=("oasis", "best"), repeats=1)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="'repeats' must be an integer >= 1"):
        run_experiment(POOL, repeats=0)
    unlabelled = synthetic_pool(100, seed=0)
    unlabelled = type(unlabelled).from_arrays(unlabelled.scores, unlabelled.predictions)
    with pytest.raises(InputError, match="needs a label column"):
        run_experiment(unlabelled, repeats=1)


def test_plot_has_two_panels(tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = run_experiment(POOL, methods=("oasis", "importance"), budgets=(100, 200), repeats=3)
    fig = plot_oasis_experiment(res, path=tmp_path / "f.png", title="test")
    assert len(fig.axes) == 2
    assert fig.axes[0].get_ylabel() == "abs. err." and fig.axes[1].get_ylabel() == "std. dev."
    assert len(fig.axes[0].lines) == 2
    assert (tmp_path / "f.png").exists()


def test_figure_data_keeps_budgets_with_enough_defined_runs() -> None:
    res = run_experiment(POOL, methods=("oasis", "passive"), budgets=(100, 200), repeats=3)
    err, sd = oasis_experiment_figure(res, min_defined=0.0)
    assert [line.label for line in err.lines] == ["oasis", "passive"]
    assert err.lines[0].x.tolist() == [100.0, 200.0]
    assert err.lines[0].y.tolist() == [res.row("oasis", 100).mae, res.row("oasis", 200).mae]
    assert sd.lines[1].y.tolist() == [res.row("passive", 100).std, res.row("passive", 200).std]
    assert (err.yscale, sd.xlabel) == ("log", "label budget")
    # the paper's rule: a point only where enough runs gave a defined estimate
    strict, _ = oasis_experiment_figure(res, min_defined=1.0)
    for line in strict.lines:
        rows = [res.row(line.label, int(b)) for b in line.x]
        assert all(r.defined >= 1.0 for r in rows)
