"""Error analysis of a labelled sample: hand-worked tables, tag frequencies, subgroups, trees."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ereval._errors import InputError
from ereval.analysis import (
    MISSING,
    disparities,
    error_tree,
    parse_tags,
    sample_errors,
    tag_frequencies,
)
from ereval.estimators import EstimationWarning, estimate_by_group
from ereval.example import load

# Prediction of the whole population: x = {1, 2, 3}, y = {4, 5}, z = {6}.
PRED = pd.DataFrame({"record_id": [1, 2, 3, 4, 5, 6], "cluster_id": list("xxxyyz")})
# Sampled true clusters A = {1, 2} (record 3, linked to them, is another entity),
# B = {4, 5} drawn twice, C = {6}; probabilities up to a constant.
SAMPLE = pd.DataFrame(
    {
        "record_id": [1, 2, 4, 5, 6],
        "cluster_id": ["A", "A", "B", "B", "C"],
        "probability": [0.5, 0.5, 0.25, 0.25, 1.0],
        "draws": [1, 1, 2, 2, 1],
    }
)
FEATURES = pd.DataFrame(
    {
        "record_id": [1, 2, 3, 4, 5, 6],
        "source": ["census", "acs", "acs", "census", "census", "wic"],
        "year": [2020.0, 2030.0, 2000.0, 2020.0, math.nan, 2040.0],
    }
)


def _errors(**kwargs: object) -> object:
    return sample_errors(PRED, SAMPLE, design="cluster", weights="probability", **kwargs)


def test_error_table_by_hand() -> None:
    s = sample_errors(
        PRED, SAMPLE, design="cluster", weights="probability", features=FEATURES,
        shares=["source=census"],
    )  # fmt: skip
    t = s.table
    assert t["cluster_id"].tolist() == ["A", "B", "C"]
    # A: records 1 and 2 sit in x = {1, 2, 3}: each has OCE = 3 - 2 = 1, ROCE = 1/3,
    # SDE = 3 - 2 = 1, EI = 1; B and C are predicted exactly.
    assert t["size"].tolist() == [2, 2, 1]
    assert t["OCE"].tolist() == [1.0, 0.0, 0.0]
    assert t["UCE"].tolist() == [0.0, 0.0, 0.0]
    assert t["ROCE"].tolist() == pytest.approx([1 / 3, 0.0, 0.0])
    assert t["SDE"].tolist() == [1.0, 0.0, 0.0]
    assert t["EI"].tolist() == [1.0, 0.0, 0.0]
    # weight = draws / probability: A 1/0.5 = 2, B 2/0.25 = 8, C 1/1 = 1
    assert t["draws"].tolist() == [1, 2, 1]
    assert t["weight"].tolist() == [2.0, 8.0, 1.0]
    # numbers are averaged (missing ignored): A (2020 + 2030)/2, B 2020 alone, C 2040;
    # other values by mode, ties to the smallest: A has census and acs once each -> acs
    assert t["year"].tolist() == [2025.0, 2020.0, 2040.0]
    assert t["source"].tolist() == ["acs", "census", "wic"]
    # shares of each cluster's records: A 1/2, B 2/2, C 0/1
    assert t["source=census"].tolist() == [0.5, 1.0, 0.0]
    assert s.features == ("size", "source", "year", "source=census")


def test_cluster_level_features_and_missing_values() -> None:
    feats = pd.DataFrame({"cluster_id": ["C", "A", "B"], "region": ["n", None, "s"]})
    s = _errors(features=feats)
    assert s.table["region"].isna().tolist() == [True, False, False]
    assert s.table["region"].tolist()[1:] == ["s", "n"]
    assert s.features == ("size", "region")
    # a missing category is a group of its own
    with pytest.warns(EstimationWarning, match="1 draw"):  # groups n and (missing)
        d = disparities(s, "region", metrics="b3_precision")
    assert list(d.groups) == ["n", "s", MISSING]


def test_tag_frequencies_by_hand() -> None:
    tags = {"A": "same name", "B": "same name, typo", "C": ""}
    f = tag_frequencies(_errors(), tags, among="all")
    # One row per draw (A once, B twice, C once), values divided by p:
    #   base a = [2, 4, 4, 1]; 'same name' b = [2, 4, 4, 0]; 'typo' b = [0, 4, 4, 0].
    # Ratio estimator with n = 4, Abar = 11/4:
    #   E = R + sum A (B - R A) / (n (n-1) Abar^2), V = sum (B - R A)^2 / (n (n-1) Abar^2)
    a = np.array([2.0, 4.0, 4.0, 1.0])
    scale = 1 / (4 * 3 * (11 / 4) ** 2)
    for tag, b, r in [
        ("same name", np.array([2.0, 4.0, 4.0, 0.0]), 10 / 11),
        ("typo", np.array([0.0, 4.0, 4.0, 0.0]), 8 / 11),
    ]:
        resid = b - r * a  # same name: [2, 4, 4, -10]/11; typo: [-16, 12, 12, -8]/11
        assert f[tag].value == pytest.approx(r + scale * float((a * resid).sum()), abs=1e-12)
        assert f[tag].std == pytest.approx(math.sqrt(scale * float((resid**2).sum())), abs=1e-12)
        assert f[tag].n == 4
        assert 0.0 <= f[tag].lower <= f[tag].value <= f[tag].upper <= 1.0
    assert f["same name"].value == pytest.approx(10 / 11 + scale * 26 / 11)
    assert list(f) == ["same name", "typo"]


def test_tags_among_errors_leave_out_error_free_clusters() -> None:
    tags = {"A": "same name", "B": "typo"}
    # only A is in error: 'same name' is 1 of 1 draw; B's tag is left out with a warning
    with pytest.warns(EstimationWarning, match="1 tagged cluster"):
        f = tag_frequencies(_errors(), tags)
    assert list(f) == ["same name"]
    assert f["same name"].value == 1.0 and math.isnan(f["same name"].std)
    assert f["same name"].n == 1


def test_parse_tags() -> None:
    assert parse_tags(" a, b ,a,,") == ("a", "b")
    assert parse_tags(None) == () and parse_tags(math.nan) == () and parse_tags("") == ()
    assert parse_tags("a; b", sep=";") == ("a", "b")


def test_subgroup_estimate_keeps_links_leaving_the_group() -> None:
    feats = pd.DataFrame({"cluster_id": ["A", "B", "C"], "g": ["ac", "b", "ac"]})
    d = disparities(_errors(features=feats), "g", metrics="pairwise_precision")
    # Group ac = {A, C}. A: n = 2 records in x (b = 3): true pairs C(2,2) = 1, predicted
    # pairs in block form n (b-1)/2 = 2; C: 0 and 0. Per draw / p: A (2, 4), C (0, 0):
    # R = 2/4 = 1/2 with residuals 0, so 1/2 with std 0. Restricting the prediction to
    # the group's records (the naive way) would see only the pair (1, 2): precision 1.
    assert d.groups["ac"]["pairwise_precision"].value == pytest.approx(0.5)
    assert d.groups["b"]["pairwise_precision"].value == pytest.approx(1.0)
    assert d.clusters == {"ac": 2, "b": 1}
    frame = d.to_frame()
    assert frame["group"].tolist() == ["ac", "b", "(all)"]


def test_disparities_match_estimate_by_group_on_the_example() -> None:
    pred, sample = load("pred_poor.csv"), load("sample.csv")
    s = sample_errors(
        pred, sample, design="record", features=load("records.csv"), feature_columns=["sex"]
    )
    d = disparities(s, "sex")
    groups = dict(zip(s.table["cluster_id"], s.table["sex"], strict=True))
    ref = estimate_by_group(
        pred, sample, groups, design="record", naive=False,
        metrics="pairwise_precision,pairwise_recall,pairwise_f1",
    )  # fmt: skip
    for g, ests in ref.items():
        for key, e in ests.items():
            assert d.groups[g][key] == e


def _planted(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """400 true pairs; those with region 'b' are linked to an outside record 60% of the
    time, the others 5%; two noise features; unequal sampling probabilities."""
    rng = np.random.default_rng(seed)
    k = 400
    region = rng.choice(["a", "b", "c"], size=k)
    noise_cat = rng.choice(["p", "q"], size=k)
    noise_num = rng.uniform(0, 1, size=k)
    over = rng.random(k) < np.where(region == "b", 0.6, 0.05)
    prob = rng.uniform(0.5, 2.0, size=k)
    recs, pred_clusters = [], []
    for c in range(k):
        recs += [2 * c, 2 * c + 1]
        pred_clusters += [c, c]
        if over[c]:  # an unsampled record of another entity joins the predicted cluster
            recs.append(10_000 + c)
            pred_clusters.append(c)
    pred = pd.DataFrame({"record_id": recs, "cluster_id": pred_clusters})
    sample = pd.DataFrame(
        {
            "record_id": np.arange(2 * k),
            "cluster_id": np.repeat(np.arange(k), 2),
            "probability": np.repeat(prob, 2),
        }
    )
    feats = pd.DataFrame(
        {"cluster_id": np.arange(k), "region": region, "kind": noise_cat, "score": noise_num}
    )
    return pred, sample, feats


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_recovers_a_planted_feature(seed: int) -> None:
    pred, sample, feats = _planted(seed)
    s = sample_errors(pred, sample, design="cluster", weights="probability", features=feats)
    tree = error_tree(s, target="over", max_depth=2, min_clusters=20)
    assert tree.first_split == "region"
    assert max(tree.importances, key=lambda f: tree.importances[f]) == "region"
    assert "region = b" in tree.rules[0].conditions
    stump = error_tree(s, target="over", max_depth=1)
    b, rest = stump.rules  # 60% planted in region b, 5% elsewhere
    assert b.conditions == ("region = b",) and rest.conditions == ("region != b",)
    assert 0.45 < b.value < 0.75 and 0.0 < rest.value < 0.12
    assert sum(r.clusters for r in tree.rules) == 400
    assert sum(r.share for r in tree.rules) == pytest.approx(1.0)
    assert "region = b" in tree.text().splitlines()[0]
    # nothing is under-clustered: one leaf, no split
    flat = error_tree(s, target="under")
    assert flat.first_split is None and flat.rules[0].value == 0.0
    assert flat.text() == "all clusters -> under-clustered in 0% (weighted) of 400 clusters"


def test_tree_uses_the_weights() -> None:
    # Two clusters in error among four; the erroneous ones carry 9 times the weight.
    pred = {1: "x", 2: "x", 3: "y", 4: "z", 5: "w", 6: "w"}
    sample = pd.DataFrame(
        {
            "record_id": [1, 3, 4, 5],
            "cluster_id": ["a", "b", "c", "d"],
            "probability": [0.1, 0.1, 0.9, 0.9],
        }
    )
    s = sample_errors(pred, sample, design="cluster", weights="probability")
    tree = error_tree(s, target="over", min_clusters=1)
    # a: OCE 1 (record 2 joined), d: OCE 1 (record 6); weights 10, 10, 1/0.9, 1/0.9
    assert tree.overall == pytest.approx((10 + 1 / 0.9) / (20 + 2 / 0.9))


def test_bad_input_names_the_argument() -> None:
    with pytest.raises(InputError, match=r"'feature_columns'.*'nope'"):
        _errors(features=FEATURES, feature_columns=["nope"])
    s = _errors(features=FEATURES)
    with pytest.raises(InputError, match=r"'by': there is no feature 'nope'"):
        disparities(s, "nope")
    with pytest.raises(InputError, match=r"'tags': there is no column 'notes'"):
        tag_frequencies(s, "notes")
    with pytest.raises(InputError, match=r"'features': there is no feature 'nope'"):
        error_tree(s, features=["nope"])
    with pytest.raises(InputError, match=r"'features' has no row for 1 sampled record"):
        _errors(features=FEATURES[FEATURES["record_id"] != 6])
    with pytest.raises(InputError, match=r"'shares' items are 'column=value'"):
        _errors(features=FEATURES, shares=["source"])
    with pytest.raises(InputError, match="clash"):
        _errors(features=FEATURES.rename(columns={"year": "weight"}))


def test_missing_numeric_features() -> None:
    feats = pd.DataFrame({"cluster_id": ["A", "B", "C"], "age": [30.0, math.nan, 50.0]})
    s = _errors(features=feats)
    with pytest.raises(InputError, match=r"'features': feature 'age' is missing for 1"):
        error_tree(s)
    with pytest.raises(InputError, match=r"'by': feature 'age' is missing for 1"):
        disparities(s, "age")
    assert error_tree(s, features=["size"]).first_split in (None, "size")


def test_rules_read_as_ranges() -> None:
    from ereval.analysis._tree import _merge

    path = (
        ("last name", "!=", "Smith"),
        ("size", ">=", "2"),
        ("last name", "=", "Jones"),
        ("size", "<=", "5"),
        ("size", "<=", "3"),
        ("year", ">", "2020"),
        ("year", ">", "2024.5"),
    )
    # the deeper bound wins; two integer bounds make a range; '=' replaces '!='
    assert _merge(path) == ("2 <= size <= 3", "last name = Jones", "year > 2024.5")
    assert _merge((("size", ">=", "4"), ("size", "<=", "4"))) == ("size = 4",)


def test_sampled_records_must_be_predicted() -> None:
    with pytest.raises(InputError, match=r"1 record\(s\) of 'sample' are absent from 'pred'"):
        sample_errors({1: "x", 2: "x"}, {1: "a", 3: "a"}, design="cluster", weights="uniform")


@pytest.mark.slow
def test_tag_frequencies_monte_carlo() -> None:
    """Record samples over-represent large entities, which carry the tag more often: the
    weighted frequency is unbiased, its standard error right and its intervals cover,
    where the unweighted share of sampled entities is biased upwards."""
    from ereval.estimators import draw_sample, prepare_prediction

    rng = np.random.default_rng(3)
    k = 2000
    sizes = rng.integers(1, 6, size=k)
    truth = pd.DataFrame(
        {"record_id": np.arange(sizes.sum()), "cluster_id": np.repeat(np.arange(k), sizes)}
    )
    tag = np.where(rng.random(k) < np.where(sizes >= 3, 0.5, 0.1), "t", "")
    true = float((tag == "t").mean())
    tags = dict(enumerate(tag))
    pred = prepare_prediction(truth)
    repeats = 300
    values, stds, covered, naive = [], [], [], []
    for r in range(repeats):
        s = sample_errors(pred, draw_sample(truth, n=200, design="record", seed=r))
        e = tag_frequencies(s, tags, among="all")["t"]
        values.append(e.value)
        stds.append(e.std)
        covered.append(e.lower <= true <= e.upper)
        naive.append(
            float(np.mean(tag[s.sample.unit_labels[s.sample.draws].astype(np.int64)] == "t"))
        )
    spread = float(np.std(values, ddof=1))
    mc_error = spread / math.sqrt(repeats)
    assert abs(float(np.mean(values)) - true) < 4 * mc_error
    assert 0.85 < float(np.mean(stds)) / spread < 1.15
    # coverage of 95% intervals: Monte Carlo sd sqrt(0.95 * 0.05 / 300) = 0.0126
    assert 0.95 - 4 * 0.0126 < float(np.mean(covered)) <= 1.0
    assert float(np.mean(naive)) - true > 10 * mc_error


def test_quantile_bins_of_a_numeric_feature() -> None:
    feats = pd.DataFrame({"cluster_id": ["A", "B", "C"], "age": [20.0, 40.0, 60.0]})
    s = _errors(features=feats)
    # median 40: (19.999, 40] holds A and B, (40, 60] holds C
    with pytest.warns(EstimationWarning, match="1 draw"):
        d = disparities(s, "age", bins=2, metrics="b3_recall")
    assert list(d.groups) == ["(19.999, 40.0]", "(40.0, 60.0]"]
    assert d.clusters == {"(19.999, 40.0]": 2, "(40.0, 60.0]": 1}
    with pytest.raises(InputError, match="'bins' needs a numeric feature"):
        disparities(_errors(features=FEATURES), "source", bins=2)
