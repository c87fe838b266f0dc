"""When an estimate from a sample is doubtful, its warnings say why and what to do.

Hand-built samples, no Monte Carlo: the rules of ``ereval.estimators._ratio``
(fewer than 30 draws, a denominator mean with a coefficient of variation of 0.1
or more, a zero standard error from a sample, a value outside [0, 1], an
interval wider than [0, 1]) and the clamping of intervals to the range.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval._simulate import simulate
from ereval.cli import app
from ereval.estimators import (
    EstimationWarning,
    as_sample,
    estimate,
    estimate_by_group,
    ratio_estimate,
    ratio_of_means,
    ratio_problems,
    size_warning,
)

Z95 = 1.959963984540054
PRED = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}
SAMPLE = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 8: "c4"}


def test_a_clean_sample_has_no_warning() -> None:
    # 40 units, constant denominators, ratios spread around 0.5: nothing to report
    b = np.tile([0.4, 0.6], 20)
    e = ratio_estimate(b, np.ones(40), design="cluster", name="p", bounds=(0.0, 1.0))
    assert e.value == pytest.approx(0.5) and e.warnings == ()
    assert e.interval == pytest.approx((0.5 - Z95 * e.std, 0.5 + Z95 * e.std))


def test_fewer_than_30_draws() -> None:
    assert size_warning(30, "cluster") is None
    assert size_warning(29, "record") == (
        "the sample of 29 records is too small for the record design (its variance and "
        "intervals rest on approximations that need about 30 draws or more); label more records"
    )
    e = ratio_estimate([0.4, 0.6] * 5, [1.0] * 10, design="block", name="p", bounds=(0.0, 1.0))
    assert e.warnings == (size_warning(10, "block"),)


def test_poorly_determined_denominator_mean() -> None:
    # A = (1, ..., 1, 31) over 30 units: Abar = 2, s_A = sqrt(30) -> cv = s_A / (sqrt(30) Abar)
    # = 0.5 >= 0.1
    a = np.r_[np.ones(29), 31.0]
    (problem,) = ratio_problems(a, 0.1)
    assert "coefficient of variation 0.5 >= 0.1" in problem
    # without replacement, theta shrinks it: sqrt(0.01) * 0.5 = 0.05 < 0.1
    assert ratio_problems(a, 0.1, theta=0.01) == []
    e = ratio_estimate(0.5 * a + np.r_[0.1, -0.1].repeat(15), a, design="cluster", name="p")
    assert len(e.warnings) == 1 and e.warnings[0].startswith("'p' has a poorly determined")
    assert e.warnings[0].endswith(
        "the sample of 30 clusters is too small for the cluster design; label more clusters"
    )


def test_zero_standard_error_from_a_sample_but_not_from_a_census() -> None:
    a = np.arange(1.0, 31.0)
    e = ratio_estimate(0.5 * a, a, design="cluster", name="p", bounds=(0.0, 1.0))
    assert e.std == pytest.approx(0.0, abs=1e-15) and e.interval == (0.5, 0.5)
    assert any("standard error of 0" in w for w in e.warnings)
    census = ratio_estimate(0.5 * a, a, theta=0.0, design="cluster", name="p")
    assert not any("standard error of 0" in w for w in census.warnings)


def test_value_outside_the_range_keeps_its_value_and_gets_a_clamped_interval() -> None:
    # B = (3, 1, 2), A = (1, 2, 1): R = 3/2 and the bias-corrected estimate is above 1
    b, a = np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 1.0])
    est, std = ratio_of_means(b, a)
    assert float(est) > 1.0
    e = ratio_estimate(b, a, design="cluster", name="cluster_precision_cluster", bounds=(0, 1))
    assert e.value == float(est) and e.std == float(std)  # numbers unchanged
    lo = float(est) - Z95 * float(std)
    assert e.interval == (pytest.approx(max(lo, 0.0)), 1.0)
    sentence = next(w for w in e.warnings if "lies outside" in w)
    assert sentence.startswith("'cluster_precision_cluster' ")
    assert f"= {float(est):.3g} lies outside [0, 1]" in sentence
    assert sentence.endswith(
        "the sample of 3 clusters is too small for the cluster design; label more clusters"
    )


def test_estimate_carries_warnings_without_raising_python_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = estimate(PRED, SAMPLE, design="cluster", weights="uniform")
    for key, e in est.items():
        assert e.warnings, key  # 3 clusters: every estimate is doubtful
        if math.isfinite(e.lower) and key != "average_cluster_size":
            assert 0.0 <= e.lower <= e.upper <= 1.0, key
    assert est["average_cluster_size"].lower >= 1.0
    assert est["pairwise_precision"].warnings[0] == size_warning(3, "cluster")
    assert "biased" in est["pairwise_precision_naive"].warnings[0]
    # the normal interval of pairwise precision: 0.389 +- 1.96 * 0.255 is cut at 0
    p = estimate(PRED, SAMPLE, design="cluster", weights="uniform", interval="normal")[
        "pairwise_precision"
    ]
    assert p.interval == (0.0, pytest.approx(p.value + Z95 * p.std))


def test_single_draw_of_a_subgroup_has_no_standard_error() -> None:
    with pytest.warns(EstimationWarning, match="has 1 draw"):
        out = estimate_by_group(
            PRED,
            as_sample(SAMPLE, design="cluster", weights="uniform"),
            {"c1": "x", "c2": "x", "c4": "y"},
            metrics="pairwise_precision",
        )
    e = out["y"]["pairwise_precision"]
    assert math.isnan(e.std) and e.method == "ratio of sums (block form, cluster design)"
    assert e.warnings[0] == size_warning(1, "cluster")
    assert "rests on a single draw" in e.warnings[1]
    assert e.warnings[1].endswith(
        "the sample of 1 cluster is too small for the cluster design; label more clusters"
    )


def test_clamping_never_lowers_simulated_coverage() -> None:
    # samples of 12 clusters of a skewed clustering: many intervals cross 0 or 1
    rng = np.random.default_rng(7)
    sizes = np.minimum(rng.zipf(2.0, size=400), 60)
    truth = np.repeat(np.arange(sizes.size), sizes)
    res = simulate(
        truth,
        error_rate=0.15,
        sample_size=12,
        repeats=300,
        design="cluster",
        weights="uniform",
        naive=False,
        seed=3,
        interval="normal",
    )
    crossing = 0
    for row in res.summary.itertuples():
        e, s, t = res.estimates[row.estimator], res.stds[row.estimator], row.true_value
        ok = np.isfinite(e) & np.isfinite(s)
        lo, hi = e[ok] - Z95 * s[ok], e[ok] + Z95 * s[ok]
        covered = (lo <= t) & (t <= hi)
        if row.estimator == "average_cluster_size":
            assert row.coverage == float(covered.mean())
            continue
        # the same, except intervals holding no value of [0, 1], which become [0, 1]
        nowhere = (hi < 0.0) | (lo > 1.0)
        assert row.coverage == float((covered | nowhere).mean()), row.estimator
        assert row.coverage >= float(covered.mean())
        crossing += int(((lo < 0.0) | (hi > 1.0)).sum())
    assert crossing > 100


def test_cli_prints_each_warning_once_on_stderr_and_keeps_stdout_clean(tmp_path: Path) -> None:
    pred = pd.DataFrame({"record_id": list(PRED), "cluster_id": list(PRED.values())})
    sample = pd.DataFrame({"record_id": list(SAMPLE), "cluster_id": list(SAMPLE.values())})
    pred.to_csv(tmp_path / "pred.csv", index=False)
    sample.to_csv(tmp_path / "sample.csv", index=False)
    args = ["estimate", "--pred", str(tmp_path / "pred.csv"), "--sample"]
    args += [str(tmp_path / "sample.csv"), "--design", "cluster", "--weights", "uniform"]
    res = CliRunner().invoke(app, [*args, "--format", "json"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)  # nothing but the JSON on stdout
    lines = res.stderr.splitlines()
    assert lines and all(line.startswith("warning: ") for line in lines)
    assert len(lines) == len(set(lines))
    # the sample-size sentence is shared by every estimate and printed once
    assert lines.count(f"warning: {size_warning(3, 'cluster')}") == 1
    carried = {w for e in data.values() for w in e["warnings"]}
    assert {line.removeprefix("warning: ") for line in lines} == carried
