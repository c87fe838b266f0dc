"""Pools: validation of every input, score mapping, readers, the paper's pools."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from ereval import InputError, InputTypeError
from ereval.oasis import Pool, pool_from_frame, read_pool, scores_to_probabilities

from ._oasis_support import POOLS, paper_pool


def test_probability_scores_are_kept() -> None:
    pool = Pool.from_arrays([0.9, 0.2, 0.7], [1, 0, 1], labels=[1, 0, 0])
    assert pool.score_kind == "probability"
    assert pool.threshold == 0.5
    np.testing.assert_array_equal(pool.probabilities, [0.9, 0.2, 0.7])
    np.testing.assert_array_equal(pool.pair_ids, [0, 1, 2])


def test_real_scores_threshold_is_inferred_and_maps_to_one_half() -> None:
    # highest score predicted 0 is -1, lowest predicted 1 is 1: tau = 0
    pool = Pool.from_arrays([3.0, 1.0, -1.0, -5.0], [1, 1, 0, 0])
    assert pool.score_kind == "real"
    assert pool.threshold == 0.0
    # k = logit(0.99) / (3 - 0); p(1) = expit(logit(0.99) / 3)
    k = math.log(99.0) / 3.0
    expected = [0.99, 1 / (1 + math.exp(-k)), 1 / (1 + math.exp(k)), 1 / (1 + math.exp(5 * k))]
    np.testing.assert_allclose(pool.probabilities, expected, rtol=1e-12)


def test_explicit_threshold_and_probabilities() -> None:
    # tau = -1: spread max(s) - tau = 3, so s = -4 (3 below tau) gets 0.01
    pool = Pool.from_arrays([2.0, 0.0, -4.0], [1, 1, 0], threshold=-1.0)
    assert pool.threshold == -1.0
    assert pool.probabilities[0] == pytest.approx(0.99)
    assert pool.probabilities[2] == pytest.approx(0.01)
    given = Pool.from_arrays([2.0, 0.0, -2.0], [1, 1, 0], probabilities=[0.8, 0.6, 0.1])
    np.testing.assert_array_equal(given.probabilities, [0.8, 0.6, 0.1])


def test_mapping_when_nothing_is_above_threshold() -> None:
    p = scores_to_probabilities([-1.0, -3.0], kind="real", threshold=0.0)
    # spread falls back to max |s - tau| = 3: the lowest pair gets 0.01
    assert p[1] == pytest.approx(0.01)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"scores": [0.1, float("nan")], "predictions": [0, 1]},
            InputError,
            "'scores' must be finite",
        ),
        (
            {"scores": [0.1, float("inf")], "predictions": [0, 1]},
            InputError,
            "'scores' must be finite",
        ),
        ({"scores": [], "predictions": []}, InputError, "must not be empty"),
        (
            {"scores": [0.1, 0.2], "predictions": [0, 2]},
            InputError,
            "'predictions' must hold only 0 and 1",
        ),
        (
            {"scores": [0.1, 0.2], "predictions": [0]},
            InputError,
            "'predictions' must have one value per pair (2)",
        ),
        (
            {"scores": [0.1, 0.2], "predictions": [0, 1], "labels": [1, -1]},
            InputError,
            "'labels' must hold only 0 and 1",
        ),
        (
            {"scores": [0.1, 0.2], "predictions": ["a", "b"]},
            InputTypeError,
            "'predictions' must hold 0/1 values",
        ),
        ({"scores": "abc", "predictions": [0]}, InputTypeError, "'scores' must be a 1-D sequence"),
        (
            {"scores": [0.1, 0.2], "predictions": [0, 1], "pair_ids": ["a", "a"]},
            InputError,
            "duplicate id",
        ),
        (
            {"scores": [0.1, 0.2], "predictions": [0, 1], "probabilities": [0.5, 1.5]},
            InputError,
            "'probabilities' must lie in [0, 1]",
        ),
        (
            {"scores": [2.0, 0.2], "predictions": [0, 1], "score_kind": "probability"},
            InputError,
            "score_kind='probability'",
        ),
        (
            {"scores": [0.1, 0.2], "predictions": [0, 1], "score_kind": "logit"},
            InputError,
            "'score_kind' must be one of",
        ),
        (
            {"scores": [3.0, -2.0, 1.0], "predictions": [0, 1, 1]},
            InputError,
            "cannot infer the decision threshold",
        ),
    ],
)
def test_bad_input(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    scores = kwargs.pop("scores")
    predictions = kwargs.pop("predictions")
    with pytest.raises(error, match=None) as info:
        Pool.from_arrays(scores, predictions, **kwargs)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_true_measure_by_hand() -> None:
    # TP = 2, FP = 1, FN = 1
    pool = Pool.from_arrays([0.9, 0.8, 0.7, 0.1, 0.2], [1, 1, 1, 0, 0], labels=[1, 1, 0, 1, 0])
    assert pool.true_measure(0.5) == pytest.approx(2 / 3)
    assert pool.true_measure(1.0) == pytest.approx(2 / 3)
    assert pool.true_measure(0.0) == pytest.approx(2 / 3)
    with pytest.raises(InputError, match=r"'alpha' must lie in \[0, 1\]; received 1.5"):
        pool.true_measure(1.5)
    unlabelled = Pool.from_arrays([0.9], [1])
    with pytest.raises(InputError, match="no labels"):
        unlabelled.true_measure()


def test_frames_of_every_kind_give_the_same_pool(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = {
        "pair_id": ["a", "b", "c"],
        "score": [1.5, -0.5, -2.0],
        "prediction": [1, 0, 0],
        "label": [1, 1, 0],
    }
    pools = [
        pool_from_frame(pd.DataFrame(data)),
        pool_from_frame(pl.DataFrame(data)),
        pool_from_frame(pa.table(data)),
    ]
    pd.DataFrame(data).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame(data).to_parquet(tmp_path / "p.parquet")
    pools.append(read_pool(tmp_path / "p.csv"))
    pools.append(read_pool(tmp_path / "p.parquet"))
    for pool in pools:
        assert list(pool.pair_ids) == ["a", "b", "c"]
        np.testing.assert_array_equal(pool.labels, [1, 1, 0])  # type: ignore[arg-type]
        assert pool.threshold == pytest.approx(0.5)
        assert pool.fingerprint() == pools[0].fingerprint()


def test_frame_columns_and_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    df = pd.DataFrame({"id": [1, 2], "s": [0.9, 0.1], "yhat": [1, 0]})
    pool = pool_from_frame(df, pair_id_col="id", score_col="s", prediction_col="yhat")
    assert pool.labels is None
    with pytest.raises(InputError, match="column 'label' not found"):
        pool_from_frame(
            df, pair_id_col="id", score_col="s", prediction_col="yhat", require_label=True
        )
    with pytest.raises(InputTypeError, match="'frame' must be a pandas or polars DataFrame"):
        pool_from_frame({"score": [1.0]})
    with pytest.raises(InputError, match="'pool': file not found"):
        read_pool(tmp_path / "missing.csv")


@pytest.mark.parametrize("name", sorted(POOLS))
def test_paper_pools_match_table_2(name: str) -> None:
    size, matches, precision, recall, f1 = POOLS[name]
    pool = paper_pool(name)
    assert pool.size == size
    assert int(pool.labels.sum()) == matches  # type: ignore[union-attr]
    assert pool.true_measure(1.0) == pytest.approx(precision, abs=5e-4)
    assert pool.true_measure(0.0) == pytest.approx(recall, abs=5e-4)
    assert pool.true_measure(0.5) == pytest.approx(f1, abs=5e-4)
    assert pool.score_kind == "real"
