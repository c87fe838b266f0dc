"""Metric families computed in threads give the numbers, in the order, of one thread."""

from __future__ import annotations

import numpy as np
import pytest

from ereval import InputError
from ereval.contingency import ContingencyTable, contingency_table
from ereval.metrics import _registry as registry
from ereval.metrics import evaluate


@pytest.fixture(scope="module")
def large_table() -> ContingencyTable:
    rng = np.random.default_rng(7)
    n = 400_000
    truth = rng.integers(0, 60_000, n)
    pred = np.where(rng.random(n) < 0.8, truth, rng.integers(0, 60_000, n))
    table = contingency_table(truth, pred)
    assert table.rows.size >= registry._PARALLEL_MIN_CELLS
    return table


def bits(scores: dict[str, float]) -> list[tuple[str, str]]:
    return [(k, float(v).hex()) for k, v in scores.items()]


@pytest.mark.parametrize("metrics", [None, "all"])
def test_threads_give_the_same_bits_in_the_same_order(
    large_table: ContingencyTable, metrics: str | None
) -> None:
    if metrics == "all":
        metrics = "canonical,ceaf_phi1,ceaf_phi2,ace,bmd_normalized"
    one = evaluate(large_table, metrics=metrics, workers=1)
    for workers in (2, 3):
        assert bits(evaluate(large_table, metrics=metrics, workers=workers)) == bits(one)


def test_progress_reports_every_family_once_in_report_order(
    large_table: ContingencyTable,
) -> None:
    seen: list[str] = []
    evaluate(large_table, workers=2, progress=seen.append)
    assert seen == [fam.name for fam in registry.FAMILIES]


def test_an_error_in_progress_stops_the_evaluation(large_table: ContingencyTable) -> None:
    def stop(name: str) -> None:
        if name == "muc":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate(large_table, workers=2, progress=stop)


def test_workers_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(registry.WORKERS_ENV, "1")
    assert registry._n_workers(None) == 1
    assert registry._n_workers(3) == 3
    monkeypatch.setenv(registry.WORKERS_ENV, "two")
    with pytest.raises(InputError, match="EREVAL_WORKERS"):
        registry._n_workers(None)
    monkeypatch.delenv(registry.WORKERS_ENV)
    assert 1 <= registry._n_workers(None) <= 4


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_workers_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(InputError, match="'workers' must be a positive integer"):
        evaluate([[1, 2]], [[1], [2]], workers=bad)  # type: ignore[arg-type]
