"""Error injection and the simulation harness (small, fast cases)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ereval import InputError
from ereval._simulate import SimulationResult, inject_errors, simulate
from ereval.metrics import evaluate


def _zipf_truth(n: int, seed: int, cap: int = 50) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(2.0, size=n), cap)
    return np.repeat(np.arange(sizes.size), sizes)[:n]


class TestInjectErrors:
    def test_moves_exactly_the_requested_share_to_other_clusters(self) -> None:
        truth = _zipf_truth(2000, 0)
        moved = inject_errors(truth, rate=0.1, seed=1)
        changed = moved.clusters != truth
        assert int(changed.sum()) == 200
        # records only join clusters that exist in the truth
        assert set(moved.clusters[changed].tolist()) <= set(truth.tolist())
        assert moved.records.tolist() == list(range(2000))

    def test_reproducible_and_seed_dependent(self) -> None:
        truth = _zipf_truth(500, 0)
        a = inject_errors(truth, rate=0.2, seed=5).clusters
        b = inject_errors(truth, rate=0.2, seed=5).clusters
        c = inject_errors(truth, rate=0.2, seed=6).clusters
        assert (a == b).all() and not (a == c).all()

    def test_larger_clusters_receive_more_records(self) -> None:
        truth = np.repeat([0, 1], [900, 100])
        truth = np.concatenate([truth, np.arange(2, 1002)])  # plus 1000 singletons
        moved = inject_errors(truth, rate=0.3, seed=2)
        joined = pd.Series(moved.clusters[moved.clusters != truth]).value_counts()
        # expected: about 330 * 900/2000 = 149 records join cluster 0, and about
        # 570 * 100/2000 + 270 * 100/1100 = 53 join cluster 1
        assert 120 < joined.get(0, 0) < 180
        assert 30 < joined.get(1, 0) < 80

    def test_rate_zero_and_bad_rates(self) -> None:
        truth = _zipf_truth(100, 3)
        assert (inject_errors(truth, rate=0.0, seed=0).clusters == truth).all()
        with pytest.raises(InputError, match="'rate' must lie in"):
            inject_errors(truth, rate=1.5)
        with pytest.raises(InputError, match="single cluster"):
            inject_errors([0, 0, 0], rate=0.5)


class TestSimulate:
    def test_result_shape_and_true_values(self) -> None:
        truth = _zipf_truth(3000, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = simulate(truth, error_rate=0.1, sample_size=50, repeats=40, seed=7)
        assert isinstance(res, SimulationResult)
        assert list(res.summary.columns)[:4] == ["estimator", "metric", "form", "true_value"]
        assert res.estimates["pairwise_precision"].shape == (40,)
        pred = inject_errors(truth, rate=0.1, seed=np.random.default_rng(7))
        exact = evaluate(truth, pred)
        assert res.true_values["pairwise_precision"] == pytest.approx(exact["pairwise_precision"])
        assert res.true_values["b3_entity_recall_naive"] == pytest.approx(exact["b3_entity_recall"])
        # record sampling: the record form equals the cluster form
        assert np.allclose(
            res.estimates["pairwise_precision_record"], res.estimates["pairwise_precision_cluster"]
        )
        assert res.summary.set_index("estimator").loc["pairwise_precision_naive", "form"] == "naive"
        assert res.settings["design"] == "record" and res.settings["repeats"] == 40

    def test_vectorised_repeats_match_single_estimates(self) -> None:
        # each repeat of the vectorised harness equals estimate() on the same draws
        from ereval.estimators import as_sample, estimate

        truth = _zipf_truth(800, 8)
        pred = inject_errors(truth, rate=0.2, seed=1)
        res = simulate(
            truth,
            pred,
            sample_size=30,
            repeats=3,
            design="cluster",
            weights="uniform",
            estimators="pairwise_precision,b3_recall",
            seed=11,
        )
        rng = np.random.default_rng(11)
        k = len(np.unique(truth))
        drawn = rng.choice(k, size=(3, 30), replace=True, p=np.full(k, 1 / k))
        labels = pd.unique(truth)
        for r in range(3):
            chosen = labels[drawn[r]]
            keep = np.isin(truth, chosen)
            sample = as_sample(
                dict(zip(np.flatnonzero(keep).tolist(), truth[keep].tolist(), strict=True)),
                design="cluster",
                weights="uniform",
                draws=chosen.tolist(),
            )
            one = estimate(pred, sample, metrics="pairwise_precision,b3_recall")
            assert res.estimates["pairwise_precision"][r] == pytest.approx(
                one["pairwise_precision"].value, rel=1e-12
            )
            assert res.stds["b3_recall"][r] == pytest.approx(one["b3_recall"].std, rel=1e-12)

    def test_without_replacement_uses_the_fpc(self) -> None:
        truth = _zipf_truth(400, 9)
        k = len(np.unique(truth))
        res = simulate(
            truth,
            error_rate=0.1,
            sample_size=k,
            repeats=5,
            design="cluster",
            weights="uniform",
            replace=False,
            naive=False,
            seed=0,
        )
        # a census without replacement: every repeat is exact, with zero variance
        summary = res.summary.set_index("estimator")
        assert summary.loc["pairwise_recall", "rmse"] == pytest.approx(0.0, abs=1e-12)
        assert np.allclose(res.stds["pairwise_precision"], 0.0)

    def test_names_and_blocks(self) -> None:
        truth = _zipf_truth(1000, 10)
        rng = np.random.default_rng(0)
        names = {i: f"n{rng.integers(0, 200)}" for i in range(1000)}
        blocks = {c: c % 11 for c in np.unique(truth).tolist()}
        res = simulate(
            truth,
            error_rate=0.1,
            sample_size=5,
            repeats=20,
            design="block",
            weights="cluster_size",
            blocks=blocks,
            names=names,
            seed=1,
        )
        assert "homonymy_rate" in res.true_values and "name_variation_rate_naive" in res.estimates

    def test_bad_arguments(self) -> None:
        truth = _zipf_truth(200, 11)
        with pytest.raises(InputError, match="exactly one of 'pred' and 'error_rate'"):
            simulate(truth, truth, error_rate=0.1)
        with pytest.raises(InputError, match="exactly one of 'pred' and 'error_rate'"):
            simulate(truth)
        with pytest.raises(InputError, match="'design' must be one of"):
            simulate(truth, error_rate=0.1, design="single_block")  # type: ignore[arg-type]
        with pytest.raises(InputError, match="'sample_size' must be an integer >= 2"):
            simulate(truth, error_rate=0.1, sample_size=1)
        with pytest.raises(InputError, match="implies weights='cluster_size'"):
            simulate(truth, error_rate=0.1, weights="uniform")
        with pytest.raises(InputError, match="are options of design='size_stratified'"):
            simulate(truth, error_rate=0.1, strata=[1, 2])


class TestSimulateMemoryAndProgress:
    def test_refuses_runs_larger_than_the_available_memory(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import ereval._simulate as sim

        monkeypatch.setattr(sim, "_available_memory", lambda: 16 * 2**30)
        truth = _zipf_truth(500, 1)
        with pytest.raises(InputError, match=r"'repeats' x 'sample_size' = 100,000,000 x 50"):
            simulate(truth, error_rate=0.1, sample_size=50, repeats=100_000_000, seed=0)
        assert sim.simulation_memory(50, 100_000_000) > 16 * 2**30

    def test_progress_counts_every_estimator_and_repeat(self) -> None:
        truth = _zipf_truth(500, 1)
        calls: list[tuple[int, int]] = []
        res = simulate(
            truth,
            error_rate=0.1,
            sample_size=30,
            repeats=70,
            seed=0,
            progress=lambda done, total: calls.append((done, total)),
        )
        total = len(res.estimates) * 70
        assert calls[0] == (0, total) and calls[-1] == (total, total)
        assert [d for d, _ in calls] == sorted(d for d, _ in calls)
