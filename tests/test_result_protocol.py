"""Every result class of ereval satisfies :class:`ereval.results.Result`.

The list below is checked against the package itself: every class that takes the
notebook display (:class:`ereval.results.FrameRepr`) must be listed, and every
listed class must be built here by its public verb, give a JSON-ready
``to_dict()`` (NaN as ``None``, so ``json.dumps(..., allow_nan=False)`` works), a
``to_frame()`` DataFrame and an HTML table.
"""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ereval
from ereval import Estimate
from ereval.results import EstimateCurve, FrameRepr, Result

RESULT_CLASSES = {
    "ereval.results._estimate.Estimate",
    "ereval.results._curve.EstimateCurve",
    "ereval.curves._result.ThresholdCurve",
    "ereval.summary.Summary",
    "ereval._compare.Comparison",
    "ereval._monitor.Monitoring",
    "ereval._simulate.SimulationResult",
    "ereval.estimators._designs.ClusterSample",
    "ereval.analysis._table.SampleErrors",
    "ereval.analysis._subgroups.Disparities",
    "ereval.analysis._tree.ErrorTree",
    "ereval.oasis._estimates.Estimates",
    "ereval.oasis._experiment.ExperimentResult",
    "ereval.oasis._convergence.Convergence",
    "ereval.paula._plan.PaulaPlan",
    "ereval.paula._bounds.PaulaBounds",
    "ereval.paula._diagnostics.MonotonicityReport",
    "ereval.labels._agreement.Agreement",
    "ereval.planning._plan.PlanResult",
    "ereval.estimators._reviewer_rate.ReviewerErrorRate",
    "ereval.estimators._reviewer_errors.ReviewerSensitivity",
    "ereval.labels._reviewer_errors.ReviewerErrorStudy",
}


def _subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub, *_subclasses(sub)}
    return out


def test_every_result_class_is_listed() -> None:
    skip = ("ereval.app", "ereval.cli")  # web app and command line: optional extras
    for mod in pkgutil.walk_packages(ereval.__path__, "ereval."):
        if not mod.name.startswith(skip):
            importlib.import_module(mod.name)
    found = {f"{c.__module__}.{c.__qualname__}" for c in _subclasses(FrameRepr)}
    assert found == RESULT_CLASSES


# --------------------------------------------------------------------------- the results
N_CLUSTERS = 60


def _truth() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 5, size=N_CLUSTERS)
    cluster = np.repeat(np.arange(N_CLUSTERS), sizes)
    return pd.DataFrame(
        {"record_id": [f"r{i:03d}" for i in range(cluster.size)], "cluster_id": cluster}
    )


def _pred(truth: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cluster = truth["cluster_id"].to_numpy().copy()
    moved = rng.random(cluster.size) < 0.15
    cluster[moved] = rng.integers(0, N_CLUSTERS, size=int(moved.sum()))
    return pd.DataFrame({"record_id": truth["record_id"], "cluster_id": cluster})


def _estimate() -> Any:
    return Estimate(math.nan, math.nan, (math.nan, math.nan), 0.95, 0, "m", ("undefined",))


def _curve() -> Any:
    e = [Estimate(0.5, 0.1, (0.3, 0.7), 0.95, 10, "m"), None]
    return EstimateCurve.from_estimates("threshold", [0.1, 0.9], {"precision": e})


def _threshold_curve() -> Any:
    from ereval.curves import threshold_curve

    truth = _truth()
    rng = np.random.default_rng(0)
    ids = truth["record_id"].to_numpy()
    a, b = np.triu_indices(ids.size, k=1)
    pick = rng.choice(a.size, size=300, replace=False)
    pairs = pd.DataFrame(
        {"record_id_1": ids[a[pick]], "record_id_2": ids[b[pick]], "score": rng.random(300)}
    )
    return threshold_curve(truth, pairs, thresholds=5)


def _summary() -> Any:
    from ereval.summary import summarize

    return summarize(_truth())


def _comparison() -> Any:
    from ereval._compare import compare

    truth = _truth()
    return compare(_pred(truth, 1), _pred(truth, 2))


def _sample(truth: pd.DataFrame) -> Any:
    from ereval.estimators import draw_sample

    return draw_sample(truth, n=30, design="cluster", weights="uniform", seed=0)


def _monitoring() -> Any:
    from ereval._monitor import monitor

    truth = _truth()
    releases = {"a": _pred(truth, 1), "b": _pred(truth, 2), "c": _pred(truth, 3)}
    return monitor(releases, sample=_sample(truth))


def _simulation() -> Any:
    from ereval._simulate import simulate

    truth = _truth()
    return simulate(truth, _pred(truth, 1), sample_size=20, repeats=5, seed=0)


def _sample_errors() -> Any:
    from ereval.analysis import sample_errors

    truth = _truth()
    return sample_errors(_pred(truth, 1), _sample(truth))


def _disparities() -> Any:
    from ereval.analysis import disparities

    return disparities(_sample_errors(), "size", bins=2)


def _error_tree() -> Any:
    pytest.importorskip("sklearn")
    from ereval.analysis import error_tree

    return error_tree(_sample_errors(), min_clusters=2)


def _pool() -> Any:
    from ereval.oasis import synthetic_pool

    return synthetic_pool(500, imbalance=10, seed=1)


def _oasis_estimates() -> Any:
    from ereval.oasis import make_sampler

    return make_sampler("oasis", _pool(), seed=0).run(budget=3)


def _experiment() -> Any:
    from ereval.oasis import run_experiment

    return run_experiment(_pool(), methods=("passive",), budgets=(20,), repeats=2)


def _convergence() -> Any:
    from ereval.oasis import convergence, make_sampler

    return convergence(make_sampler("passive", _pool(), seed=0), 40, steps=3)


def _paula() -> tuple[Any, Any]:
    from ereval.paula import paula_bounds, paula_plan

    plan = paula_plan(400, epsilon=0.25, delta=4)
    labels = (np.arange(1, 401) % 3 == 0).astype(np.int64)  # rising precision: violations
    return plan, paula_bounds(plan, plan.ranks(), plan.select(labels), on_violation="ignore")


def _agreement() -> Any:
    from ereval.labels._agreement import Agreement

    return Agreement(3, 2, 1, math.nan, 0.5, {("match", "match"): 2, ("match", "non-match"): 1})


def _plan() -> Any:
    from ereval.planning import plan

    truth = _truth()
    return plan(_pred(truth, 1), half_width=0.2, truth=truth, repeats=40, seed=0)


def _reviewer_rate() -> Any:
    from ereval.estimators import reviewer_error_rate

    return reviewer_error_rate([4, 6, 5, 3], [1, 0, 2, 0], [3, 5, 2, 3])


def _sensitivity() -> Any:
    from ereval.estimators import reviewer_sensitivity

    truth = _truth()
    return reviewer_sensitivity(
        _pred(truth, 1), _sample(truth), over=0.05, under=0.05, repeats=20, seed=0
    )


def _study() -> Any:
    from ereval.labels._reviewer_errors import ReviewerErrorStudy

    sensitivity = _sensitivity()
    return ReviewerErrorStudy(_reviewer_rate(), sensitivity, sensitivity)


BUILDERS: dict[str, Callable[[], Any]] = {
    "Estimate": _estimate,
    "EstimateCurve": _curve,
    "ThresholdCurve": _threshold_curve,
    "Summary": _summary,
    "Comparison": _comparison,
    "Monitoring": _monitoring,
    "SimulationResult": _simulation,
    "ClusterSample": lambda: _sample(_truth()),
    "SampleErrors": _sample_errors,
    "Disparities": _disparities,
    "ErrorTree": _error_tree,
    "Estimates": _oasis_estimates,
    "ExperimentResult": _experiment,
    "Convergence": _convergence,
    "PaulaPlan": lambda: _paula()[0],
    "PaulaBounds": lambda: _paula()[1],
    "MonotonicityReport": lambda: _paula()[1].diagnostic,
    "Agreement": _agreement,
    "PlanResult": _plan,
    "ReviewerErrorRate": _reviewer_rate,
    "ReviewerSensitivity": _sensitivity,
    "ReviewerErrorStudy": _study,
}


def test_every_listed_class_has_a_builder() -> None:
    assert set(BUILDERS) == {name.rsplit(".", 1)[1] for name in RESULT_CLASSES}


def _plain(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int | bool)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_result_protocol(name: str) -> None:
    result = BUILDERS[name]()
    assert type(result).__name__ == name
    assert isinstance(result, Result)
    d = result.to_dict()
    assert isinstance(d, dict) and d and _plain(d)
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame.columns) > 0
    html = result._repr_html_()
    assert html.startswith('<table class="ereval-result">') and f"<caption>{name}" in html


def test_nan_is_none_in_to_dict() -> None:
    d = _estimate().to_dict()
    assert d["value"] is None and d["interval"] == [None, None] and d["n"] == 0
    row = _curve().to_dict()["rows"][1]
    assert row["precision"]["value"] is None and row["threshold"] == 0.9


def test_html_shows_at_most_twenty_rows() -> None:
    points = np.arange(25) / 25
    e = [Estimate(0.5, 0.1, (0.3, 0.7), 0.95, 10, "m")] * 25
    html = EstimateCurve.from_estimates("threshold", points, {"p": e})._repr_html_()
    assert html.count("<tr>") == 1 + 20 + 1  # header, 20 rows, "5 more rows"
    assert "5 more rows" in html
