"""Hand-worked cases and the golden values of er-evaluation 2.3.0's documentation.

The 8-record example: prediction P = {1:1, 2:1, 3:2, 4:3, 5:2, 6:4, 7:4, 8:4}, so
predicted clusters {1,2} (b=2), {3,5} (b=2), {4} (b=1), {6,7,8} (b=3).
"""

from __future__ import annotations

import math
import warnings

import pytest
from scipy import stats

from ereval.estimators import estimate

PRED = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}
SAMPLE = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 8: "c4"}
SAMPLE_2 = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2"}
CENSUS = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 6: "c3", 7: "c3", 8: "c3"}


def _est(sample: dict[int, str], metrics: str) -> dict:
    return estimate(PRED, sample, design="cluster", weights="uniform", metrics=metrics)


def test_pairwise_precision_golden_exact() -> None:
    # c1 = {1,2,3}: cells n=(2 in {1,2}, 1 in {3,5}); TP = C(2,2) = 1;
    #     links = (2*(2-1) + 1*(2-1)) / 2 = 1.5
    # c2 = {4,5}: cells n=(1 in {4}, 1 in {3,5}); TP = 0; links = (0 + 1) / 2 = 0.5
    # c4 = {8}:   cell n=1 in {6,7,8}; TP = 0; links = 2 / 2 = 1
    # B = (1, 0, 0), A = (1.5, 0.5, 1)  ->  0.3888..., std 0.2545...
    e = _est(SAMPLE, "pairwise_precision")["pairwise_precision"]
    assert e.value == 0.3888888888888889
    assert e.std == 0.2545875386086578
    assert (e.n, e.method) == (
        3,
        "ratio estimator (block form, cluster design, skew-corrected beta interval)",
    )
    # by hand: n_k = (1.5+0.5+1)^2 / (1.5^2+0.5^2+1^2) = 9/3.5; V = 0.25459^2 + 0.5 / n_k^2;
    # n* = max(q(1-q), (1-1/n_k)/n_k) / V = 1.6923...; x = q n*.
    # Skewness: Abar = 1, R = 1/3, u = (B - R A) / Abar = (1/2, -1/6, -1/3),
    # P = 0.5 * 3 * 2 / n_k^2; a = sum u^3 / (sum u^2 + P)^1.5 = 0.10774 > 0, so the upper
    # side is widened: z_upper = -tau(-z), tau(x) = (3/a)((1 + a(x - a/6))^(1/3) - 1).
    q, z, nk = e.value, 1.959963984540054, 9.0 / 3.5
    n_star = max(q * (1 - q), (1 - 1 / nk) / nk) / (e.std**2 + 0.5 / nk**2)
    assert n_star == pytest.approx(22 / 13)
    u = (0.5, -1 / 6, -1 / 3)
    a = sum(x**3 for x in u) / (sum(x * x for x in u) + 3.0 / nk**2) ** 1.5
    assert a == pytest.approx(0.1077438025)
    z_upper = -(3 / a) * ((1 + a * (-z - a / 6)) ** (1 / 3) - 1)
    assert z_upper == pytest.approx(2.13786698)
    x = q * n_star
    lower = stats.beta.ppf(stats.norm.cdf(-z), x, n_star - x + 1)
    upper = stats.beta.ppf(stats.norm.cdf(z_upper), x + 1, n_star - x)
    assert e.interval == (pytest.approx(lower), pytest.approx(upper))
    assert e.interval == (pytest.approx(0.00167692774), pytest.approx(0.98866178554))


def test_pairwise_precision_golden_wilson() -> None:
    e = estimate(
        PRED,
        SAMPLE,
        design="cluster",
        weights="uniform",
        metrics="pairwise_precision",
        interval="wilson",
    )["pairwise_precision"]
    assert e.method == "ratio estimator (block form, cluster design, Wilson interval)"
    # Wilson interval by hand: n_k = (1.5+0.5+1)^2 / (1.5^2+0.5^2+1^2) = 9/3.5;
    # V = 0.25459^2 + 0.5 / n_k^2; n* = max(q(1-q), (1-1/n_k)/n_k) / V;
    # (q + z^2/2n* +- z sqrt(q(1-q)/n* + z^2/4n*^2)) / (1 + z^2/n*)
    q, z, nk = e.value, 1.959963984540054, 9.0 / 3.5
    n_star = max(q * (1 - q), (1 - 1 / nk) / nk) / (e.std**2 + 0.5 / nk**2)
    center = (q + z * z / (2 * n_star)) / (1 + z * z / n_star)
    half = z * math.sqrt(q * (1 - q) / n_star + z * z / (4 * n_star**2)) / (1 + z * z / n_star)
    assert e.interval == (pytest.approx(center - half), pytest.approx(center + half))
    assert e.interval == (pytest.approx(0.0525893138584), pytest.approx(0.8794518419827))


def test_pairwise_recall_golden_exact() -> None:
    # B = TP = (1, 0, 0), A = C(a, 2) = (3, 1, 0)
    e = _est(SAMPLE, "pairwise_recall")["pairwise_recall"]
    assert e.value == 0.296875
    assert e.std == 0.10825317547305482


def test_pairwise_f1_golden() -> None:
    # er-evaluation's pairwise_f_estimator doc example (sample c1, c2 only)
    e = _est(SAMPLE_2, "pairwise_f1")["pairwise_f1"]
    assert e.value == pytest.approx(0.4166666666666667, rel=1e-14)
    assert e.std == pytest.approx(0.16666666666666666, rel=1e-14)


def test_b3_entity_golden() -> None:
    # c1: (1/3)(2^2/2 + 1^2/2) = 5/6;  c2: (1/2)(1/1 + 1/2) = 3/4 -> mean 19/24 = 0.7916...
    e = _est(SAMPLE_2, "b3_entity_precision,b3_entity_recall")
    assert e["b3_entity_precision"].value == pytest.approx(0.7916666666666667, rel=1e-14)
    assert e["b3_entity_precision"].std == pytest.approx(0.0416666666666673, rel=1e-9)
    assert e["b3_entity_recall"].value == pytest.approx(0.5277777777777778, rel=1e-14)
    assert e["b3_entity_recall"].std == pytest.approx(0.027777777777778203, rel=1e-9)


def test_cluster_metrics_golden() -> None:
    # Binette 2024, Lemma 3 forms (er-evaluation's cluster estimators) on all three clusters
    e = _est(CENSUS, "cluster_precision_cluster,cluster_recall,cluster_f1_cluster")
    assert e["cluster_precision_cluster"].value == pytest.approx(0.26171875, rel=1e-14)
    assert e["cluster_precision_cluster"].std == pytest.approx(0.23593232610221093, rel=1e-12)
    assert e["cluster_recall"].value == pytest.approx(1 / 3, rel=1e-14)
    assert e["cluster_recall"].std == pytest.approx(1 / 3, rel=1e-12)
    assert e["cluster_f1_cluster"].value == pytest.approx(0.29446064139941686, rel=1e-14)
    assert e["cluster_f1_cluster"].std == pytest.approx(0.2760765154789527, rel=1e-12)


def test_cluster_precision_block_form_by_hand() -> None:
    # exact = (0, 0, 1): only c3 = {6,7,8} is predicted exactly.
    # frac = sum_j n/b: c1 = 2/2 + 1/2 = 1.5; c2 = 1/1 + 1/2 = 1.5; c3 = 3/3 = 1
    # (the three sum to 4 = |Ĉ|).  B = (0, 0, 1), A = (1.5, 1.5, 1), Bbar = 1/3, Abar = 4/3:
    # R = 1/4; sum (A/Abar)(B/Bbar - A/Abar) = (9/8)(-9/8)*2 + (3/4)(3 - 3/4) = -81/32 + 27/16
    #   = -27/32, so E = 1/4 (1 - 27/32 / 6) = 0.21484375
    e = _est(CENSUS, "cluster_precision")["cluster_precision"]
    assert e.value == pytest.approx(0.21484375, rel=1e-14)


def test_summary_statistics_by_hand() -> None:
    # sizes 3, 2, 1 drawn uniformly: average size 2 with std sqrt(1/3) = sd(3,2,1)/sqrt(3);
    # matching rate sum a 1(a>1) / sum a = 5/6 for the plain ratio, plus the correction:
    # A = (3,2,1), B = (3,2,0): R = 5/6, Abar = 2, residuals B - R A = (1/2, 1/3, -5/6),
    # sum A (B - R A) = 3/2 + 2/3 - 5/6 = 4/3; E = 5/6 + (4/3) / (6 * 4) = 8/9
    e = _est(SAMPLE, "average_cluster_size,matching_rate")
    assert e["average_cluster_size"].value == pytest.approx(2.0)
    assert e["average_cluster_size"].std == pytest.approx(math.sqrt(1 / 3))
    assert e["matching_rate"].value == pytest.approx(8 / 9)


def test_naive_values_by_hand() -> None:
    # prediction restricted to the sample records {1,2,3,4,5,8}: {1,2}, {3,5}, {4}, {8};
    # predicted pairs (1,2), (3,5); true pairs (1,2), (1,3), (2,3), (4,5): TP = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = _est(SAMPLE, "pairwise_precision_naive,pairwise_recall_naive")
    assert e["pairwise_precision_naive"].value == 0.5
    assert e["pairwise_recall_naive"].value == 0.25
    assert math.isnan(e["pairwise_precision_naive"].std)
    assert e["pairwise_precision_naive"].method.startswith("naive")
    assert "biased" in e["pairwise_precision_naive"].warnings[0]


def test_record_form_is_eq_9_and_10() -> None:
    # record sampling of the 8-record example; N = 8, |P| = 1 + 1 + 3 = 5 predicted pairs.
    # P_rec = mean_s N g(c_s) / |c_s| with g = TP / |P|: c1 -> 8 * (1/5) / 3, others 0.
    e = estimate(
        PRED,
        SAMPLE,
        design="record",
        metrics="pairwise_precision_record,pairwise_precision_cluster",
    )
    terms = [8 * (1 / 5) / 3, 0.0, 0.0]
    mean = sum(terms) / 3
    var = sum((t - mean) ** 2 for t in terms) / (3 * 2)
    assert e["pairwise_precision_record"].value == pytest.approx(mean, rel=1e-14)
    assert e["pairwise_precision_record"].std == pytest.approx(math.sqrt(var), rel=1e-14)
    assert e["pairwise_precision_cluster"].value == e["pairwise_precision_record"].value
