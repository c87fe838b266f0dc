"""Subgroup differences and the weighting of links leaving a subgroup (Binette et al. 2024,
Fig. 8 and Remark 3)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ereval import InputError
from ereval._simulate import inject_errors
from ereval.estimators import (
    as_sample,
    cluster_terms,
    draw_sample,
    estimate,
    estimate_by_group,
    estimate_differences,
    prepare_prediction,
)
from ereval.estimators._differences import difference_std, draw_rows
from ereval.estimators._registry import SPEC_BY_KEY

PRED = {1: "x", 2: "x", 3: "x", 4: "y", 5: "y", 6: "z", 7: "w", 8: "w"}
SAMPLE = {1: "a", 2: "a", 3: "b", 4: "c", 5: "c", 6: "d", 7: "e", 8: "f"}
GROUPS = {"a": "u", "b": "u", "c": "v", "d": "v", "e": "u", "f": "v"}


def _pair_rows(pred: dict[int, str], sample: dict[int, str]) -> dict[str, tuple[float, float]]:
    """Brute force over record pairs: per true cluster, true links predicted and the
    predicted links touching it (links leaving it counted 1/2)."""
    out: dict[str, list[float]] = {c: [0.0, 0.0] for c in sample.values()}
    for x, y in itertools.combinations(sorted(pred), 2):
        if pred[x] != pred[y]:
            continue
        cx, cy = sample[x], sample[y]
        if cx == cy:
            out[cx][0] += 1.0
            out[cx][1] += 1.0
        else:
            out[cx][1] += 0.5
            out[cy][1] += 0.5
    return {c: (v[0], v[1]) for c, v in out.items()}


def test_hand_case_value_and_std_by_brute_force() -> None:
    # clusters drawn uniformly (p = 1), one draw each, in order a..f
    rows = _pair_rows(PRED, SAMPLE)
    # a: links 1-2 (true), 1-3 and 2-3 leave it -> (1, 2); b: (0, 1); c: (1, 1); d: (0, 0);
    # e and f: 7-8 leaves each -> (0, 0.5)
    assert rows == {
        "a": (1.0, 2.0),
        "b": (0.0, 1.0),
        "c": (1.0, 1.0),
        "d": (0.0, 0.0),
        "e": (0.0, 0.5),
        "f": (0.0, 0.5),
    }
    order = ["a", "b", "c", "d", "e", "f"]
    b = np.array([rows[c][0] for c in order])
    a = np.array([rows[c][1] for c in order])
    in_v = np.array([GROUPS[c] == "v" for c in order], dtype=float)
    n = len(order)
    # delta method with the 4x4 sample covariance of (B_g, A_g, B, A): gradient of
    # Bbar_g/Abar_g - Bbar/Abar
    x = np.vstack([b * in_v, a * in_v, b, a])
    means = x.mean(axis=1)
    r_g, r = means[0] / means[1], means[2] / means[3]
    grad = np.array([1 / means[1], -r_g / means[1], -1 / means[3], r / means[3]])
    var = grad @ np.cov(x, ddof=1) @ grad / n
    d = estimate_differences(
        PRED, SAMPLE, GROUPS, design="cluster", weights="uniform", metrics="pairwise_precision"
    )
    e = d["v"]["pairwise_precision"]
    assert e.std == pytest.approx(math.sqrt(var), rel=1e-12)
    own = estimate_by_group(
        PRED, SAMPLE, GROUPS, design="cluster", weights="uniform", metrics="pairwise_precision"
    )["v"]["pairwise_precision"]
    whole = estimate(
        PRED, SAMPLE, design="cluster", weights="uniform", metrics="pairwise_precision"
    )["pairwise_precision"]
    assert e.value == pytest.approx(own.value - whole.value, abs=1e-15)
    assert e.lower == pytest.approx(e.value - 1.959963984540054 * e.std, rel=1e-9)
    # the group's rows are the brute-force rows of its clusters, zero elsewhere
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    terms = cluster_terms(prepare_prediction(PRED), s)
    keep = np.array([GROUPS[c] == "v" for c in s.cluster_labels.tolist()])
    bg, ag = draw_rows(terms, s, SPEC_BY_KEY["pairwise_precision"], keep)
    np.testing.assert_allclose(bg, b * in_v)
    np.testing.assert_allclose(ag, a * in_v)


def test_baseline_group_and_antisymmetry() -> None:
    kw = {"design": "cluster", "weights": "uniform", "metrics": "pairwise_precision"}
    uv = estimate_differences(PRED, SAMPLE, GROUPS, baseline="u", **kw)
    vu = estimate_differences(PRED, SAMPLE, GROUPS, baseline="v", **kw)
    assert set(uv) == {"v"} and set(vu) == {"u"}
    a, b = uv["v"]["pairwise_precision"], vu["u"]["pairwise_precision"]
    assert a.value == pytest.approx(-b.value, abs=1e-15)
    assert a.std == pytest.approx(b.std, rel=1e-12)
    # the difference to the overall of a group that is everything is 0 with std 0
    one = {c: "all" for c in GROUPS}
    d = estimate_differences(PRED, SAMPLE, one, **kw)["all"]["pairwise_precision"]
    assert d.value == pytest.approx(0.0, abs=1e-15) and d.std == pytest.approx(0.0, abs=1e-15)


def test_difference_std_properties() -> None:
    rng = np.random.default_rng(0)
    b, a = rng.random(40), rng.random(40) + 0.5
    b = np.minimum(b, a)
    g = (rng.random(40) < 0.5).astype(float)
    h = 1.0 - g
    kw = {"strata": np.zeros(40, dtype=np.int64), "theta": [1.0]}
    # symmetric, scale-equivariant, and zero against itself
    s1 = difference_std((b * g, a * g), (b * h, a * h), **kw)
    assert s1 == pytest.approx(difference_std((b * h, a * h), (b * g, a * g), **kw))
    assert difference_std((b * g, a * g), (b * h, a * h), scale=-2.0, **kw) == pytest.approx(2 * s1)
    assert difference_std((b, a), (b, a), **kw) == 0.0
    # a finite-population correction theta scales the variance
    half = difference_std((b * g, a * g), (b, a), strata=kw["strata"], theta=[0.25])
    assert half == pytest.approx(0.5 * difference_std((b * g, a * g), (b, a), **kw))
    # an empty denominator gives NaN
    zero = np.zeros(40)
    assert math.isnan(difference_std((zero, zero), (b, a), **kw))


def test_errors_name_the_argument() -> None:
    kw = {"design": "cluster", "weights": "uniform"}
    with pytest.raises(InputError, match="'baseline'"):
        estimate_differences(PRED, SAMPLE, GROUPS, baseline="nope", **kw)
    with pytest.raises(InputError, match="'leaving'"):
        estimate_differences(PRED, SAMPLE, GROUPS, leaving="twice", **kw)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"'leaving'.*'subgroup'"):
        estimate(PRED, SAMPLE, leaving="full", **kw)
    with pytest.raises(InputError, match="'metrics'"):
        estimate_differences(PRED, SAMPLE, GROUPS, metrics="pairwise_precision_naive", **kw)


# ---------------------------------------------------------------- leaving links


def _full_rows(pred: dict[int, str], sample: dict[int, str]) -> dict[str, float]:
    """Brute force: per true cluster, the predicted links touching it, each counted 1."""
    out = dict.fromkeys(sample.values(), 0.0)
    for x, y in itertools.combinations(sorted(pred), 2):
        if pred[x] == pred[y]:
            out[sample[x]] += 1.0
            if sample[y] != sample[x]:
                out[sample[y]] += 1.0
    return out


def test_leaving_full_counts_each_link_touching_the_entity() -> None:
    s = as_sample(SAMPLE, design="cluster", weights="uniform")
    terms = cluster_terms(prepare_prediction(PRED), s)
    spec = SPEC_BY_KEY["pairwise_precision"]
    everything = np.ones(terms.n_clusters, dtype=bool)
    _, half = draw_rows(terms, s, spec, everything)
    _, full = draw_rows(terms, s, spec, everything, leaving="full")
    brute = _full_rows(PRED, SAMPLE)
    order = s.cluster_labels[s.draws].tolist()
    np.testing.assert_allclose(full, [brute[c] for c in order])
    # over the whole population the half weighting adds up to the predicted links exactly
    n_links = sum(1 for x, y in itertools.combinations(PRED, 2) if PRED[x] == PRED[y])
    assert half.sum() == n_links
    # full >= half, equal where no predicted link leaves the cluster ("c", "d")
    assert (full >= half).all()
    same = [c in ("c", "d") for c in order]
    np.testing.assert_array_equal(full == half, same)


def test_leaving_full_lowers_subgroup_precision_only_where_links_leave() -> None:
    kw = {"design": "cluster", "weights": "uniform"}
    half = estimate_by_group(PRED, SAMPLE, GROUPS, metrics="pairwise_precision", **kw)
    full = estimate_by_group(
        PRED, SAMPLE, GROUPS, metrics="pairwise_precision,pairwise_recall", leaving="full", **kw
    )
    for g in ("u", "v"):
        assert full[g]["pairwise_precision"].value <= half[g]["pairwise_precision"].value
    rec = estimate_by_group(PRED, SAMPLE, GROUPS, metrics="pairwise_recall", **kw)
    assert full["u"]["pairwise_recall"].value == rec["u"]["pairwise_recall"].value
    # cluster precision: each predicted cluster meeting c counts 1 (cluster "a" meets x only)
    cp = estimate_by_group(PRED, SAMPLE, GROUPS, metrics="cluster_precision", leaving="full", **kw)
    assert math.isfinite(cp["u"]["cluster_precision"].value)


def test_leaving_half_is_the_default_and_golden_path() -> None:
    kw = {"design": "cluster", "weights": "uniform", "metrics": "pairwise_precision,pairwise_f1"}
    a = estimate(PRED, SAMPLE, subgroup=["a", "b", "e"], **kw)
    b = estimate(PRED, SAMPLE, subgroup=["a", "b", "e"], leaving="half", **kw)
    assert a == b


# ---------------------------------------------------------------- Monte Carlo


@pytest.fixture(scope="module")
def population() -> tuple[dict[int, int], dict[int, int], dict[int, str]]:
    rng = np.random.default_rng(11)
    sizes = np.minimum(rng.zipf(2.2, size=3000), 30)
    labels = np.repeat(np.arange(sizes.size), sizes)[:3000]
    truth = {i: int(c) for i, c in enumerate(labels)}
    moved = inject_errors(truth, rate=0.25, seed=12)
    pred = dict(zip(moved.records.tolist(), moved.clusters.tolist(), strict=True))
    groups = {int(c): ("big" if c % 3 == 0 else "small") for c in set(labels.tolist())}
    return truth, pred, groups


def test_monte_carlo_bias_std_and_coverage(
    population: tuple[dict[int, int], dict[int, int], dict[int, str]],
) -> None:
    truth, pred, groups = population
    prepared = prepare_prediction(pred)
    census = as_sample(truth, design="cluster", weights="uniform")
    terms = cluster_terms(prepared, census)
    spec = SPEC_BY_KEY["pairwise_precision"]
    f, g = spec.terms(terms, 1.0)
    in_big = np.array([groups[int(c)] == "big" for c in census.cluster_labels.tolist()])
    target = f[in_big].sum() / g[in_big].sum() - f.sum() / g.sum()
    reps = 300
    values, stds, covered = [], [], 0
    for seed in range(reps):
        s = draw_sample(truth, n=250, design="record", seed=seed)
        e = estimate_differences(prepared, s, groups, metrics="pairwise_precision")["big"][
            "pairwise_precision"
        ]
        values.append(e.value)
        stds.append(e.std)
        covered += e.lower <= target <= e.upper
    v = np.array(values)
    se_mean = v.std(ddof=1) / math.sqrt(reps)
    # bias within 4 Monte Carlo standard errors of the mean
    assert abs(v.mean() - target) < 4 * se_mean
    # the reported std matches the empirical one (the std of a std estimate from 300
    # replicates is about 4%; allow 15% for the delta method at n = 250)
    assert np.mean(stds) == pytest.approx(v.std(ddof=1), rel=0.15)
    # coverage of the 95% interval within 3 binomial standard errors (0.0126)
    assert covered / reps >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps)


def test_disparities_report_the_same_differences() -> None:
    import pandas as pd

    from ereval.analysis import disparities, sample_errors

    feats = pd.DataFrame({"cluster_id": list(GROUPS), "g": list(GROUPS.values())})
    errors = sample_errors(PRED, SAMPLE, design="cluster", weights="uniform", features=feats)
    d = disparities(errors, "g", metrics="pairwise_precision", versus="u")
    want = estimate_differences(
        PRED, SAMPLE, GROUPS, baseline="u", design="cluster", weights="uniform",
        metrics="pairwise_precision",
    )  # fmt: skip
    assert d.versus == "u" and d.differences is not None and set(d.differences) == {"v"}
    assert d.differences["v"]["pairwise_precision"] == want["v"]["pairwise_precision"]
    assert d.to_dict()["differences"][0]["group"] == "v"
    plain = disparities(errors, "g", metrics="pairwise_precision")
    assert plain.differences is None and "differences" not in plain.to_dict()
    with pytest.raises(InputError, match="'versus'"):
        disparities(errors, "g", metrics="pairwise_precision", versus="w")
