"""Bad input gives a clear error or an explicit warning, never a silent NaN or ignored argument."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ereval import InputError, InputTypeError, RecordMismatchError
from ereval.estimators import (
    EstimationWarning,
    as_sample,
    estimate,
    estimate_by_group,
    prepare_prediction,
)

PRED = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}
SAMPLE = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 8: "c4"}


def _frame(**extra: list[object]) -> pd.DataFrame:
    data: dict[str, list[object]] = {"record_id": list(SAMPLE), "cluster_id": list(SAMPLE.values())}
    data.update(extra)
    return pd.DataFrame(data)


def test_sample_records_missing_from_prediction() -> None:
    sample = {**SAMPLE, 99: "c9", 98: "c9"}
    with pytest.raises(RecordMismatchError, match=r"2 sampled record\(s\) are absent from 'pred'"):
        estimate(PRED, sample, design="cluster", weights="uniform")


def test_record_in_two_sample_clusters() -> None:
    frame = pd.DataFrame({"record_id": [1, 2, 2, 3], "cluster_id": ["a", "a", "b", "b"]})
    with pytest.raises(InputError, match=r"record 2 is in clusters \['a', 'b'\]"):
        as_sample(frame, design="cluster", weights="uniform")


def test_repeated_rows_point_to_draws() -> None:
    frame = pd.DataFrame({"record_id": [1, 2, 1, 2], "cluster_id": ["a", "a", "a", "a"]})
    with pytest.raises(InputError, match="give repeated draws with 'draws'"):
        as_sample(frame, design="cluster", weights="uniform")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0.0, "must be finite and > 0 for every sampled cluster"),
        (-1.0, "must be finite and > 0"),
        (float("inf"), "must be finite and > 0"),
    ],
)
def test_bad_weight_values(value: float, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        as_sample(SAMPLE, design="cluster", weights={"c1": 1.0, "c2": value, "c4": 1.0})
    assert "'c2'" in str(info.value)


def test_nan_weight_in_a_column() -> None:
    frame = _frame(p=[0.5, 0.5, 0.5, None, None, 0.3])
    with pytest.raises(InputError, match=r"'weights' is missing \(None/NaN\).*'c2'"):
        as_sample(frame, design="cluster", weights="p")


def test_missing_weight_in_a_mapping() -> None:
    with pytest.raises(
        InputError, match=r"'weights' has no value for 1 sampled cluster\(s\).*'c4'"
    ):
        as_sample(SAMPLE, design="cluster", weights={"c1": 1.0, "c2": 1.0})


def test_weight_column_not_constant_within_a_cluster() -> None:
    frame = _frame(p=[0.5, 0.4, 0.5, 0.2, 0.2, 0.3])
    with pytest.raises(InputError, match=r"constant within each sampled cluster.*'c1'"):
        as_sample(frame, design="cluster", weights="p")


def test_non_numeric_weights() -> None:
    frame = _frame(p=["a", "a", "a", "b", "b", "c"])
    with pytest.raises(InputTypeError, match="'weights' must hold numbers"):
        as_sample(frame, design="cluster", weights="p")


def test_unknown_weight_column() -> None:
    with pytest.raises(InputError, match="the sample has no column 'prob'"):
        as_sample(_frame(), design="cluster", weights="prob")


def test_weights_column_needs_a_table() -> None:
    with pytest.raises(InputError, match="'sample' is not a table"):
        as_sample(SAMPLE, design="cluster", weights="p")


def test_block_that_cuts_a_true_cluster() -> None:
    frame = _frame(block=["A", "A", "B", "A", "A", "B"])
    with pytest.raises(InputError, match=r"cut by the blocks \(e.g. cluster 'c1' lies in blocks"):
        as_sample(frame, design="block", weights="uniform", blocks="block")


def test_design_and_weights_that_do_not_fit() -> None:
    with pytest.raises(InputError, match="'design' is required"):
        as_sample(SAMPLE)
    with pytest.raises(InputError, match="'design' must be one of"):
        as_sample(SAMPLE, design="records")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="design='cluster' needs 'weights'"):
        as_sample(SAMPLE, design="cluster")
    with pytest.raises(InputError, match="design='record' draws clusters with probability"):
        as_sample(SAMPLE, design="record", weights="uniform")
    with pytest.raises(InputError, match="design='block' needs 'blocks'"):
        as_sample(SAMPLE, design="block", weights="uniform")
    with pytest.raises(InputError, match="'blocks' is used only by the block designs"):
        as_sample(SAMPLE, design="cluster", weights="uniform", blocks={"c1": 1})
    with pytest.raises(InputError, match="design='single_block' but the sample spans 2 blocks"):
        as_sample(SAMPLE, design="single_block", blocks={"c1": 1, "c2": 1, "c4": 2})
    with pytest.raises(InputError, match="sampling probabilities play no role"):
        as_sample(SAMPLE, design="single_block", weights="cluster_size")
    with pytest.raises(InputError, match="'weight_kind' applies to custom weights only"):
        as_sample(SAMPLE, design="cluster", weights="uniform", weight_kind="inverse_probability")


def test_replacement_options_that_would_be_ignored() -> None:
    with pytest.raises(InputError, match="'population_size' is used only for samples drawn"):
        as_sample(SAMPLE, design="cluster", weights="uniform", population_size=100)
    with pytest.raises(InputError, match="some units were drawn more than once"):
        as_sample(
            SAMPLE,
            design="cluster",
            weights="uniform",
            replace=False,
            draws=["c1", "c1", "c2", "c4"],
        )
    with pytest.raises(InputError, match="smaller than the number of units drawn"):
        as_sample(SAMPLE, design="cluster", weights="uniform", replace=False, population_size=2)
    with pytest.raises(InputError, match="smaller than the number of records drawn"):
        as_sample(SAMPLE, design="record", replace=False, population_size=2)
    with pytest.raises(InputError, match="'draws' and 'population_size' do not apply"):
        as_sample(SAMPLE, design="single_block", draws={"single block": 2})


def test_bad_draws() -> None:
    with pytest.raises(InputError, match="'draws' holds 1 id"):
        as_sample(SAMPLE, design="cluster", weights="uniform", draws=["c1", "c2", "c4", "zz"])
    with pytest.raises(InputError, match="'draws' never draws 1 sampled unit"):
        as_sample(SAMPLE, design="cluster", weights="uniform", draws=["c1", "c2"])
    with pytest.raises(InputError, match="'draws' counts must be >= 1"):
        as_sample(SAMPLE, design="cluster", weights="uniform", draws={"c1": 0, "c2": 1, "c4": 1})
    with pytest.raises(InputTypeError, match="'draws' counts must be integers"):
        as_sample(SAMPLE, design="cluster", weights="uniform", draws={"c1": 1.5, "c2": 1, "c4": 1})
    with pytest.raises(InputError, match="names 1 unit"):
        as_sample(
            SAMPLE, design="cluster", weights="uniform", draws={"c1": 1, "c2": 1, "c4": 1, "c7": 2}
        )


def test_a_sample_cannot_be_redesigned() -> None:
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    with pytest.raises(InputError, match="already a ClusterSample"):
        as_sample(s, design="record")
    with pytest.raises(InputError, match="already a ClusterSample"):
        estimate(PRED, s, weights="cluster_size")


def test_fewer_than_two_draws_for_a_variance() -> None:
    with pytest.raises(InputError, match=r"the sample has 1 draw\(s\); ratio estimators need"):
        estimate(PRED, {1: "c1", 2: "c1"}, design="cluster", weights="uniform")
    with pytest.raises(InputError, match=r"1 draw\(s\) in the subgroup"):
        estimate(PRED, SAMPLE, design="cluster", weights="uniform", subgroup=["c1"])


def test_small_group_warns() -> None:
    with pytest.warns(EstimationWarning, match=r"group 'y' has 1 draw\(s\)"):
        out = estimate_by_group(
            PRED,
            SAMPLE,
            {"c1": "x", "c2": "x", "c4": "y"},
            design="cluster",
            weights="uniform",
            metrics="b3_precision",
        )
    assert math.isnan(out["y"]["b3_precision"].std)


def test_undefined_estimate_warns() -> None:
    # singletons only: no true pair, so pairwise recall is 0/0
    sample = {4: "a", 8: "b"}
    with pytest.warns(EstimationWarning, match="'pairwise_recall' is undefined"):
        out = estimate(PRED, sample, design="cluster", weights="uniform", metrics="pairwise_recall")
    assert math.isnan(out["pairwise_recall"].value)


def test_unknown_or_unavailable_estimators() -> None:
    with pytest.raises(InputError, match="unknown name 'pairwise_precison'"):
        estimate(PRED, SAMPLE, design="cluster", weights="uniform", metrics="pairwise_precison")
    with pytest.raises(InputError, match="'pairwise_precision_record' here: it needs clusters"):
        estimate(
            PRED, SAMPLE, design="cluster", weights="uniform", metrics="pairwise_precision_record"
        )
    with pytest.raises(InputError, match="'homonymy_rate' here: it needs a name per record"):
        estimate(PRED, SAMPLE, design="cluster", weights="uniform", metrics="homonymy_rate")
    with pytest.raises(InputError, match="'homogeneity' here: its target involves"):
        estimate(
            PRED,
            SAMPLE,
            design="cluster",
            weights="uniform",
            metrics="homogeneity",
            subgroup=["c1", "c2"],
        )


def test_subgroup_without_sampled_clusters() -> None:
    with pytest.raises(InputError, match="no sampled cluster belongs to 'subgroup'"):
        estimate(PRED, SAMPLE, design="cluster", weights="uniform", subgroup=["zz"])
    with pytest.raises(InputTypeError, match="'subgroup' must be a collection"):
        estimate(PRED, SAMPLE, design="cluster", weights="uniform", subgroup="c1")


def test_groups_must_cover_every_sampled_cluster() -> None:
    with pytest.raises(InputError, match=r"'groups' has no group for 1 sampled cluster\(s\)"):
        estimate_by_group(PRED, SAMPLE, {"c1": "x", "c2": "y"}, design="cluster", weights="uniform")


def test_names_must_cover_the_prediction() -> None:
    with pytest.raises(InputError, match=r"'names' has no name for 2 record\(s\) of 'pred'"):
        prepare_prediction(PRED, names={r: "n" for r in range(1, 7)})
    with pytest.raises(InputError, match=r"covers 1 record\(s\) that are not in 'pred'"):
        prepare_prediction(PRED, names={r: "n" for r in range(1, 10)})
    with pytest.raises(InputError, match="'names' is missing"):
        prepare_prediction(PRED, names={r: (None if r == 3 else "n") for r in range(1, 9)})
    with pytest.raises(InputError, match="'pred' is not a table"):
        prepare_prediction(PRED, names="name")
    with pytest.raises(InputError, match="must be given when the prediction is prepared"):
        prepare_prediction(prepare_prediction(PRED), names={})


def test_bad_level_and_beta() -> None:
    with pytest.raises(InputError, match="'level' must lie in"):
        estimate(PRED, SAMPLE, design="cluster", weights="uniform", level=95)
    with pytest.raises(InputError, match="'beta' must be > 0"):
        estimate(PRED, SAMPLE, design="cluster", weights="uniform", beta=0)
