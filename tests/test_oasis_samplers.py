"""Samplers: ask/tell, oracle loop, budgets, errors, exactness, consistency, resume."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval import InputError, InputTypeError
from ereval.oasis import (
    ImportanceSampler,
    LabelOracle,
    NoisyOracle,
    OASISSampler,
    PassiveSampler,
    Pool,
    StratifiedSampler,
    load_sampler,
    make_sampler,
    synthetic_pool,
)

from ._oasis_support import POOLS, paper_pool

SMALL = synthetic_pool(3000, imbalance=30, seed=11)
CONFIGS = [
    ("oasis", {}),
    ("passive", {"replace": True}),
    ("passive", {"replace": False}),
    ("stratified", {}),
    ("importance", {}),
]


def _make(method: str, pool: Pool, seed: int = 0, **extra: object):  # type: ignore[no-untyped-def]
    options = dict(extra)
    if method in ("oasis", "stratified"):
        options.setdefault("n_strata", 10)
    return make_sampler(method, pool, seed=seed, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(("method", "options"), CONFIGS)
def test_labelling_the_whole_pool_gives_the_exact_measures(
    method: str, options: dict[str, object]
) -> None:
    pool = synthetic_pool(400, imbalance=20, seed=4)
    if method == "importance":  # with epsilon = 1e-3 the last pairs take ~N / epsilon draws
        options = {**options, "epsilon": 0.3}
    sampler = _make(method, pool, **options)
    oracle = LabelOracle(pool)
    est = sampler.run(oracle, budget=pool.size)
    assert sampler.exhausted and sampler.labels_used == pool.size
    assert oracle.queries == pool.size  # each pair asked once, redraws reuse labels
    for alpha, measure in ((0.5, est.f_measure), (1.0, est.precision), (0.0, est.recall)):
        assert measure.value == pytest.approx(pool.true_measure(alpha), abs=1e-9)
    # once everything is known the census carries the estimate: no more sampling
    assert sampler.ask() is None and sampler.stop_reason == "exhausted"


@pytest.mark.parametrize(("method", "options"), CONFIGS)
def test_budget_counts_distinct_pairs(method: str, options: dict[str, object]) -> None:
    sampler = _make(method, SMALL, **options)
    oracle = LabelOracle(SMALL)
    est = sampler.run(oracle, budget=200)
    assert est.labels_used == 200 == oracle.queries
    assert est.iterations == sampler.iterations >= 200
    idx, labels = sampler.labelled
    assert len(set(idx.tolist())) == 200
    np.testing.assert_array_equal(labels, SMALL.labels[idx])  # type: ignore[index]
    # a second run continues up to the new total
    est2 = sampler.run(oracle, budget=300)
    assert est2.labels_used == 300 == oracle.queries
    assert sampler.stop_reason == "budget"
    if method in ("stratified",) or options.get("replace") is False:
        assert est2.iterations == 300  # without replacement: no redraws


def test_ask_tell_protocol() -> None:
    pool = Pool.from_arrays(
        [0.9, 0.8, 0.3, 0.2, 0.1, 0.05], [1, 1, 0, 0, 0, 0], pair_ids=["a", "b", "c", "d", "e", "f"]
    )
    sampler = OASISSampler(pool, n_strata=2, seed=0)
    with pytest.raises(InputError, match=r"no pair is waiting for a label: call ask\(\) first"):
        sampler.tell(1)
    q = sampler.ask()
    assert q is not None
    assert sampler.ask() == q  # same proposal until told
    assert q.pair_id == ["a", "b", "c", "d", "e", "f"][q.index]
    assert q.prediction == int(pool.predictions[q.index])
    with pytest.raises(InputError, match=f"'index' must be the proposed pair's index {q.index}"):
        sampler.tell(1, index=q.index + 1)
    with pytest.raises(InputError, match=r"the label from tell\(\) must be 0 or 1; received 2"):
        sampler.tell(2)
    with pytest.raises(InputTypeError, match=r"must be the integer 0 or 1; received '1'"):
        sampler.tell("1")
    with pytest.raises(InputTypeError, match=r"received 0\.5"):
        sampler.tell(0.5)
    sampler.tell(np.int64(1), index=q.index)
    assert sampler.labels_used == 1
    q2 = sampler.ask()
    assert q2 is not None and q2.index != q.index  # a labelled pair is never proposed again


def test_bad_oracle_label_keeps_the_proposal() -> None:
    sampler = OASISSampler(SMALL, seed=2)
    with pytest.raises(InputError, match="the label from the oracle must be 0 or 1; received 7"):
        sampler.run(lambda i: 7, budget=10)
    pending = sampler.ask()
    assert pending is not None and sampler.labels_used == 0
    sampler.run(LabelOracle(SMALL), budget=10)
    assert sampler.labels_used == 10


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: OASISSampler(SMALL, epsilon=0.0),
            InputError,
            "'epsilon' must lie in (0, 1]; received 0.0",
        ),
        (
            lambda: OASISSampler(SMALL, epsilon=1.5),
            InputError,
            "'epsilon' must lie in (0, 1]; received 1.5",
        ),
        (lambda: ImportanceSampler(SMALL, epsilon=-1), InputError, "'epsilon' must lie in (0, 1]"),
        (
            lambda: OASISSampler(SMALL, alpha=1.5),
            InputError,
            "'alpha' must lie in [0, 1]; received 1.5",
        ),
        (lambda: PassiveSampler(SMALL, alpha=-0.1), InputError, "'alpha' must lie in [0, 1]"),
        (
            lambda: OASISSampler(SMALL, prior_strength=0),
            InputError,
            "'prior_strength' must lie in (0, inf]",
        ),
        (
            lambda: OASISSampler(SMALL, decaying_prior=1),
            InputTypeError,
            "'decaying_prior' must be True or False",
        ),
        (
            lambda: PassiveSampler(SMALL, replace="yes"),
            InputTypeError,
            "'replace' must be True or False",
        ),
        (lambda: OASISSampler(SMALL, seed="x"), InputTypeError, "'seed' must be None"),
        (lambda: OASISSampler([1, 2]), InputTypeError, "'pool' must be an ereval.oasis.Pool"),
        (
            lambda: StratifiedSampler(SMALL, strata="csf"),
            InputTypeError,
            "'strata' must be an ereval.oasis.Strata",
        ),
        (lambda: make_sampler("bandit", SMALL), InputError, "'method' must be one of"),
        (
            lambda: OASISSampler(SMALL).run(budget=SMALL.size + 1),
            InputError,
            f"'budget' must not exceed the pool size {SMALL.size}; received {SMALL.size + 1}",
        ),
        (lambda: OASISSampler(SMALL).run(budget=0), InputError, "'budget' must be an integer >= 1"),
        (
            lambda: OASISSampler(SMALL).run(),
            InputError,
            "give a 'budget', a 'target_ci_width' or both",
        ),
        (
            lambda: OASISSampler(SMALL).run(target_ci_width=-0.1),
            InputError,
            "'target_ci_width' must lie in (0, inf]",
        ),
        (
            lambda: OASISSampler(Pool.from_arrays([0.1, 0.9], [0, 1])).run(budget=1),
            InputError,
            "'oracle' is required",
        ),
        (
            lambda: NoisyOracle(SMALL, flip_probability=1.2),
            InputError,
            "'flip_probability' must lie in [0, 1]",
        ),
        (lambda: LabelOracle([0, 3]), InputError, "'labels' must hold only 0 and 1"),
    ],
)
def test_bad_input(call, error: type[Exception], message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_target_ci_width_stops_early() -> None:
    sampler = OASISSampler(SMALL, seed=3)
    est = sampler.run(target_ci_width=0.2, min_labels=50)
    assert sampler.stop_reason == "ci_width"
    assert est.f_measure.upper - est.f_measure.lower <= 0.2
    assert 50 <= est.labels_used < SMALL.size


def test_stall_guard_stops_endless_redraws() -> None:
    # Passive with replacement on two pairs: after one label, a draw of the
    # labelled pair is a redraw; with max_redraws=1 the first redraw stalls.
    pool = Pool.from_arrays([0.9, 0.1], [1, 0], labels=[1, 0])
    stalled = 0
    for seed in range(20):
        sampler = PassiveSampler(pool, seed=seed, max_redraws=1)
        sampler.run(budget=1)
        if sampler.ask() is None:
            assert sampler.stop_reason == "stalled" and sampler.iterations == 2
            stalled += 1
            # the guard is per call: labelling goes on once the other pair comes up
            while (q := sampler.ask()) is None:
                pass
            assert q.index != sampler.labelled[0][0]
    assert 3 <= stalled <= 17


def test_oasis_needs_far_fewer_draws_than_the_reference_failure_mode() -> None:
    # dblp-acm: the reference needed ~150,000 draws to reach 2,000 labels; the
    # exhausted-stratum rule keeps the draws within a small multiple of the labels.
    pool = paper_pool("dblp-acm-svm-small.csv.gz")
    sampler = OASISSampler(pool, seed=0)
    sampler.run(budget=2000)
    assert sampler.iterations < 10 * 2000


@pytest.mark.parametrize("name", sorted(POOLS))
def test_oasis_converges_on_the_paper_pools(name: str) -> None:
    pool = paper_pool(name)
    truth = pool.true_measure(0.5)
    errors = {250: [], 4000: []}  # type: dict[int, list[float]]
    for seed in range(3):
        sampler = OASISSampler(pool, seed=seed)
        for budget in errors:
            errors[budget].append(abs(sampler.run(budget=budget).f_measure.value - truth))
    assert max(errors[4000]) < 0.05
    assert np.mean(errors[4000]) < np.mean(errors[250]) + 1e-9


@pytest.mark.parametrize(("method", "options"), CONFIGS)
def test_consistency_on_a_synthetic_pool(method: str, options: dict[str, object]) -> None:
    pool = synthetic_pool(2000, imbalance=20, seed=8)
    truth = pool.true_measure(0.5)
    errs = []
    for budget in (100, 600, 1900):
        sampler = _make(method, pool, seed=1, **options)
        errs.append(abs(sampler.run(budget=budget).f_measure.value - truth))
    assert errs[-1] < 0.03
    assert errs[-1] <= max(errs[0], 0.01)


@pytest.mark.parametrize(("method", "options"), CONFIGS)
def test_save_and_resume_continue_identically(
    tmp_path, method: str, options: dict[str, object]
) -> None:  # type: ignore[no-untyped-def]
    straight = _make(method, SMALL, seed=21, **options)
    straight.run(budget=150)
    first = straight.ask()
    straight.tell(int(SMALL.labels[first.index]))  # type: ignore[index, union-attr]
    straight.run(budget=300)

    part = _make(method, SMALL, seed=21, **options)
    part.run(budget=150)
    pending = part.ask()  # save with a proposal waiting for its label
    part.save(tmp_path / "state.npz")
    resumed = load_sampler(tmp_path / "state.npz", SMALL)
    assert resumed.ask() == pending
    resumed.tell(int(SMALL.labels[pending.index]))  # type: ignore[index, union-attr]
    resumed.run(budget=300)

    a, b = straight.history, resumed.history
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert straight.estimate() == resumed.estimate()
    assert type(resumed) is type(straight)


def test_resume_checks_the_pool_and_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    sampler = OASISSampler(SMALL, seed=0)
    sampler.run(budget=20)
    sampler.save(tmp_path / "s.npz")
    other = synthetic_pool(3000, imbalance=30, seed=12)
    with pytest.raises(InputError, match="the pool does not match"):
        load_sampler(tmp_path / "s.npz", other)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="is not a saved sampler state"):
        load_sampler(tmp_path / "junk.npz", SMALL)
    with pytest.raises(FileNotFoundError):
        load_sampler(tmp_path / "none.npz", SMALL)


def test_stratified_visits_every_stratum_first() -> None:
    sampler = StratifiedSampler(SMALL, n_strata=10, seed=0)
    k = sampler.strata.n_strata
    sampler.run(budget=2 * k)
    counts = np.bincount(sampler.strata.allocations[sampler.labelled[0]], minlength=k)
    np.testing.assert_array_equal(counts, np.minimum(2, sampler.strata.sizes))


def test_importance_weights_and_pmf() -> None:
    sampler = ImportanceSampler(SMALL, seed=0)
    q = sampler.instrumental
    assert q.sum() == pytest.approx(1.0)
    assert q.min() >= 1e-3 / SMALL.size * (1 - 1e-12)
    sampler.run(budget=50)
    idx, w = sampler.history
    np.testing.assert_allclose(w, 1.0 / q[idx], rtol=1e-9)


def test_noisy_oracle_flip_rate() -> None:
    labels = np.zeros(10_000, dtype=int)
    oracle = NoisyOracle(labels, flip_probability=0.1, seed=0)
    answers = [oracle(i) for i in range(labels.size)]
    # 1000 expected flips, sd 30
    assert abs(sum(answers) - 1000) < 4 * 30
    assert oracle.flips == sum(answers)
    always = NoisyOracle([0, 1], flip_probability=1.0, seed=1)
    assert (always(0), always(1)) == (1, 0)


def test_noisy_oracle_in_a_run_targets_the_noisy_labels() -> None:
    oracle = NoisyOracle(SMALL, flip_probability=0.05, seed=5)
    sampler = PassiveSampler(SMALL, replace=False, seed=0)
    sampler.run(oracle, budget=SMALL.size)
    idx, got = sampler.labelled
    noisy = Pool.from_arrays(SMALL.scores, SMALL.predictions, labels=got[np.argsort(idx)])
    assert sampler.estimate().f_measure.value == pytest.approx(noisy.true_measure())
    assert oracle.flips > 0


def test_estimates_to_dict_has_the_documented_keys() -> None:
    est = OASISSampler(SMALL, seed=0).run(budget=50)
    d = est.to_dict()
    for key in ("f_measure", "precision", "recall"):
        assert set(d[key]) == {"value", "std", "interval", "level", "n", "method", "warnings"}
        assert d[key]["n"] == 50 and d[key]["method"] == "oasis"
    assert d["labels_used"] == 50 and d["iterations"] >= 50
    assert est.measure(1.0) == est.precision and est.measure(0.0) == est.recall
    assert not math.isnan(est.f_measure.value)


def test_save_writes_exactly_the_named_file_and_reports_progress(tmp_path) -> None:  # type: ignore[no-untyped-def]
    sampler = OASISSampler(SMALL, seed=0)
    seen: list[int] = []
    sampler.run(budget=30, progress=seen.append)
    assert seen == list(range(1, 31))
    sampler.save(tmp_path / "state.txt")  # no .npz appended
    assert [p.name for p in tmp_path.iterdir()] == ["state.txt"]
    resumed = load_sampler(tmp_path / "state.txt", SMALL)
    assert resumed.labels_used == 30
