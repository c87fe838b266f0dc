"""Subgroup estimates (Binette et al. 2024, Remark 3) and the public surface of ereval.estimators."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pandas as pd
import pytest

from ereval._simulate import inject_errors
from ereval.estimators import as_sample, draw_sample, estimate, estimate_by_group

Data = tuple[dict[int, int], dict[int, int]]


@pytest.fixture(scope="module")
def data() -> Data:
    rng = np.random.default_rng(2)
    sizes = np.minimum(rng.zipf(2.0, size=4000), 60)
    labels = np.repeat(np.arange(sizes.size), sizes)[:4000]
    truth = {i: int(c) for i, c in enumerate(labels)}
    moved = inject_errors(truth, rate=0.2, seed=3)
    return truth, dict(zip(moved.records.tolist(), moved.clusters.tolist(), strict=True))


def test_subgroup_is_the_restricted_sample_with_the_full_prediction(data: Data) -> None:
    truth, pred = data
    s = draw_sample(truth, n=300, design="record", seed=5)
    group = [c for c in s.cluster_labels.tolist() if c % 3 == 0]
    sub = estimate(pred, s, subgroup=group, naive=False)
    # the same estimate from a sample holding only the subgroup's draws
    keep = np.isin(s.cluster_labels, group)
    kept_draws = [s.cluster_labels[d] for d in s.draws if keep[d]]
    recs = {
        r: c
        for r, c in zip(s.records.tolist(), s.clusters.tolist(), strict=True)
        if c in set(group)
    }
    restricted = as_sample(recs, design="record", draws=kept_draws)
    direct = estimate(pred, restricted, naive=False)
    assert set(sub) == set(direct) - {
        "pairwise_precision_cluster",
        "pairwise_precision_record",
        "cluster_precision_cluster",
        "cluster_f1_cluster",
        "homogeneity",
        "completeness",
    }
    for key, e in sub.items():
        assert e.value == pytest.approx(direct[key].value, rel=1e-12), key
        assert e.std == pytest.approx(direct[key].std, rel=1e-12), key


def test_naive_subgroup_restricts_the_prediction_too(data: Data) -> None:
    truth, pred = data
    s = draw_sample(truth, n=300, design="record", seed=6)
    group = {c: ("a" if c % 2 else "b") for c in s.cluster_labels.tolist()}
    out = estimate_by_group(pred, s, group, metrics="pairwise_precision,pairwise_precision_naive")
    for label in ("a", "b"):
        # the naive approach is blind to predicted links leaving the subgroup
        assert out[label]["pairwise_precision_naive"].value > out[label]["pairwise_precision"].value


def test_groups_from_a_sample_column(data: Data) -> None:
    truth, pred = data
    s = draw_sample(truth, n=200, design="record", seed=7)
    frame = s.to_frame()[["record_id", "cluster_id"]].assign(
        grp=lambda f: np.where(f["cluster_id"] % 2 == 0, "even", "odd")
    )
    counts = pd.Series(s.cluster_labels[s.draws]).value_counts()
    draws = {c: int(counts[c]) for c in s.cluster_labels.tolist()}
    by_col = estimate_by_group(pred, frame, "grp", design="record", metrics="b3_precision")
    mapping = {c: ("even" if c % 2 == 0 else "odd") for c in s.cluster_labels.tolist()}
    sample = as_sample(frame[["record_id", "cluster_id"]], design="record", draws=draws)
    by_map = estimate_by_group(pred, sample, mapping, metrics="b3_precision")
    assert set(by_col) == {"even", "odd"}
    # the column version draws each cluster once; the mapping version keeps repeats
    assert by_col["even"]["b3_precision"].n <= by_map["even"]["b3_precision"].n


def test_public_names_sorted_and_complete() -> None:
    for name in ("ereval.estimators", "ereval._simulate"):
        module = importlib.import_module(name)
        exported = list(module.__all__)
        assert exported == sorted(exported), name
        for item in exported:
            assert hasattr(module, item), f"{name}.{item}"
        public = {
            n
            for n, v in vars(module).items()
            if not n.startswith("_")
            and (inspect.isfunction(v) or inspect.isclass(v))
            and getattr(v, "__module__", "").startswith(name)
        }
        assert public <= set(exported), sorted(public - set(exported))
