"""Monitoring across releases: statistics, common records, estimates and change flags."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval import InputError, InputTypeError
from ereval._monitor import ControlRule, control_flags, monitor, release_sources
from ereval.estimators import as_sample
from ereval.summary import summarize


def _series(rng: np.random.Generator, n: int = 12) -> list[float]:
    return (0.5 + 0.01 * rng.standard_normal(n)).tolist()


def test_planted_jump_is_flagged() -> None:
    for seed in range(50):
        x = _series(np.random.default_rng(seed), 12)
        for t in range(8, 12):
            x[t] += 0.12  # 12 standard deviations
        flags = control_flags(x)
        shifts = [f["index"] for f in flags if f["rule"] == "shift"]
        assert shifts and shifts[0] == 8, (seed, flags)
        # the shifted releases stay out of the baseline: each later one is flagged too
        assert shifts == [8, 9, 10, 11]


def test_stable_series_false_alarm_rate_is_low() -> None:
    rule = ControlRule()
    n_series, length = 1500, 12
    alarms = shift_flags = 0
    for seed in range(n_series):
        flags = control_flags(_series(np.random.default_rng(10_000 + seed), length), rule)
        alarms += bool(flags)
        shift_flags += any(f["rule"] == "shift" for f in flags)
    # shift: alpha per judged release until the first alarm (releases 4..12 have >= 3
    # earlier ones), so at most 9 alpha per series; later flags of a series are not
    # independent (its baseline stops growing), so series are counted, not flags
    bound = (length - rule.min_history) * rule.alpha
    assert shift_flags / n_series <= bound + 3 * math.sqrt(bound / n_series), shift_flags
    assert shift_flags >= 1  # the test can fail: false alarms do occur at this rate
    # per series: union bound of the shift tests and the trend windows (2/6! each)
    p0 = (length - rule.min_history) * rule.alpha + (length - rule.run_length + 1) * 2 / 720
    rate = alarms / n_series
    assert rate <= p0 + 3 * math.sqrt(p0 * (1 - p0) / n_series), rate


def test_trend_rule() -> None:
    flags = control_flags([1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06], ControlRule(alpha=1e-9))
    assert [(f["index"], f["rule"]) for f in flags if f["rule"] == "trend"] == [(5, "trend")]
    assert control_flags([1.0, 1.01, 1.02], ControlRule(run_length=0)) == []


def test_constant_series_flags_any_change() -> None:
    flags = control_flags([0.5, 0.5, 0.5, 0.5, 0.51])
    assert [(f["index"], f["rule"]) for f in flags] == [(4, "shift")]
    assert control_flags([0.5] * 8) == []


def _clusters(rng: np.random.Generator, n: int, k: int) -> dict[int, int]:
    return {r: int(c) for r, c in enumerate(rng.integers(0, k, n))}


def test_monitor_tables_and_common_records() -> None:
    rng = np.random.default_rng(3)
    releases = {}
    for t, n in enumerate((300, 320, 340, 360)):
        clusters = _clusters(rng, n, 150 + 5 * t)
        releases[f"r{t}"] = clusters
    m = monitor(releases)
    assert m.releases == ("r0", "r1", "r2", "r3")
    assert m.statistics.loc["r2", "n_records"] == 340
    assert m.statistics.loc["r1", "matching_rate"] == summarize(releases["r1"]).matching_rate
    assert m.n_common == 300
    sub = {r: c for r, c in releases["r3"].items() if r < 300}
    assert m.common.loc["r3", "average_cluster_size"] == summarize(sub).average_cluster_size
    assert math.isnan(m.statistics.loc["r0", "homonymy_rate"])
    d = m.to_dict()
    assert d["rule"]["alpha"] == 0.0027 and set(d["statistics"]) == set(m.releases)


def test_monitor_flags_a_planted_change_and_names() -> None:
    rng = np.random.default_rng(5)
    base = _clusters(rng, 2000, 900)
    releases: dict[str, dict[int, int]] = {}
    for t in range(8):
        rel = dict(base)
        for r in rng.choice(2000, 20, replace=False):
            rel[int(r)] = int(rng.integers(0, 900))
        if t >= 6:  # a linker that starts merging pairs of clusters
            rel = {r: c // 2 for r, c in rel.items()}
        releases[f"2024-0{t + 1}-01"] = rel
    names = {r: f"n{r % 700}" for r in base}
    m = monitor(releases, names=names)
    flagged = m.flags[(m.flags["rule"] == "shift") & (m.flags["scope"] == "all")]
    assert "2024-07-01" in set(flagged["release"])
    assert set(flagged["release"]) <= {"2024-07-01", "2024-08-01"}
    assert m.changed
    assert not math.isnan(m.statistics.loc["2024-01-01", "homonymy_rate"])


def test_monitor_estimates_and_interval_flags() -> None:
    rng = np.random.default_rng(11)
    truth = _clusters(rng, 1500, 600)
    k = len(set(truth.values()))
    census = as_sample(truth, design="cluster", weights="uniform", replace=False, population_size=k)
    good = dict(truth)
    bad = {r: c // 3 for r, c in truth.items()}  # merges: precision falls
    m = monitor({"a": good, "b": good, "c": bad}, sample=census, metrics="pairwise_precision")
    assert m.estimates["a"]["pairwise_precision"].value == 1.0
    flags = m.flags[m.flags["scope"] == "estimate"]
    assert list(flags["release"]) == ["c"] and list(flags["rule"]) == ["interval"]
    # a sample with records absent from a release: that release has no estimates
    m2 = monitor({"a": good, "b": {r: c for r, c in good.items() if r > 5}}, sample=census)
    assert "b" not in m2.estimates and m2.notes


def test_release_sources_order_by_date(tmp_path: Path) -> None:
    for name in ("rel_2024-10-01.csv", "rel_2024-01-15.csv", "rel_2023-12-31.parquet"):
        path = tmp_path / name
        frame = pd.DataFrame({"record_id": ["a", "b"], "cluster_id": ["x", "x"]})
        if name.endswith(".csv"):
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path)
    (tmp_path / "notes.txt").write_text("ignored")
    labels = [label for label, _ in release_sources(tmp_path)]
    assert labels == ["2023-12-31", "2024-01-15", "2024-10-01"]
    assert [label for label, _ in release_sources(str(tmp_path / "*.csv"))] == [
        "2024-01-15",
        "2024-10-01",
    ]
    undated = [tmp_path / "rel_2024-10-01.csv", tmp_path / "rel_2024-01-15.csv"]
    (tmp_path / "b.csv").write_text("record_id,cluster_id\na,x\n")
    assert [lb for lb, _ in release_sources([tmp_path / "b.csv", *undated])] == [
        "b",
        "rel_2024-10-01",
        "rel_2024-01-15",
    ]
    m = monitor(str(tmp_path / "rel_*.csv"))
    assert m.releases == ("2024-01-15", "2024-10-01")


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="holds 1 release"):
        monitor({"a": {1: 1}})
    with pytest.raises(InputTypeError, match="release 'b'"):
        monitor({"a": {1: 1, 2: 1}, "b": {"1": 1, "2": 1}})
    with pytest.raises(InputError, match="no file matches"):
        monitor(str(tmp_path / "*.csv"))
    with pytest.raises(InputError, match="'names' has no name"):
        monitor({"a": {1: 1}, "b": {1: 1, 2: 2}}, names={1: "x"})
    with pytest.raises(InputError, match="unknown name 'f1'"):
        monitor(str(tmp_path / "*.csv"), metrics="pairwise_f1,f1")
    with pytest.raises(InputError, match="'alpha'"):
        ControlRule(alpha=0.0)
    with pytest.raises(InputError, match="'level'"):
        monitor({"a": {1: 1}, "b": {1: 1}}, level=1.5)


@settings(max_examples=60, deadline=None)
@given(
    releases=st.lists(st.sets(st.integers(0, 30), min_size=1, max_size=25), min_size=2, max_size=4),
    text=st.booleans(),
)
def test_common_records_are_those_of_every_release(releases: list[set[int]], text: bool) -> None:
    """The records monitored as common are exactly those every release holds, text or
    integer ids, in each release's own order."""
    from ereval._monitor import _common_mask
    from ereval.io import as_membership

    rng = np.random.default_rng(len(releases))
    members = []
    for ids in releases:
        order = rng.permutation(sorted(ids))
        records = [f"r{i:03d}" for i in order] if text else order
        members.append(as_membership(pd.DataFrame({"record_id": records, "cluster_id": 0})))
    every = set.intersection(*releases)
    masks = _common_mask(members)
    for m, mask in zip(members, masks, strict=True):
        held = [int(str(r).lstrip("r")) in every for r in m.records]
        assert mask.tolist() == held
