"""PAULA's bounds carried to recall, F1, Gain@k (DCG) and average precision.

Hand cases, brute force on small lists (every measure computed directly from
the labels, inside the bounds at every rank), and a seeded sweep that the bounds
hold at their stated level (1, under assumption A.2).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ereval import InputError
from ereval.paula import PaulaBounds, minimum_r_tilde, paula_bounds, paula_plan
from ereval.paula._measures import MEASURES

from . import _paula_support as ref


def brute_f1(v: npt.NDArray[np.int64], k: int, n_pos: int) -> float:
    tp = int(v[:k].sum())
    precision, recall = tp / k, tp / n_pos
    return 0.0 if tp == 0 else 2 * precision * recall / (precision + recall)


def brute_dcg(v: npt.NDArray[np.int64], k: int) -> float:
    return sum(float(v[i]) / math.log2(i + 2) for i in range(k))


def brute_ap(v: npt.NDArray[np.int64], n_pos: int) -> float:
    hits, total = 0, 0.0
    for i, x in enumerate(v, start=1):
        if x:
            hits += 1
            total += hits / i
    return total / n_pos


def _bounds(v: npt.NDArray[np.int64], eps: float, delta: int, r_tilde: int) -> PaulaBounds:
    plan = paula_plan(v.size, epsilon=eps, delta=delta, r_tilde=r_tilde)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return paula_bounds(plan, plan.ranks(), plan.select(v))


def check_measures(b: PaulaBounds, v: npt.NDArray[np.int64], n_pos: int, ks: list[int]) -> None:
    """Every measure's true value lies in its bounds; the bounds lie in the measure's range."""
    tol = 1e-9
    for k in ks:
        f1 = b.f1_at(k, n_positives=n_pos)
        assert f1.lower - tol <= brute_f1(v, k, n_pos) <= f1.upper + tol, k
        assert 0.0 <= f1.lower <= f1.upper <= 1.0
        gain = b.gain_at(k)
        assert gain.lower - tol <= brute_dcg(v, k) <= gain.upper + tol, k
        rec = b.recall_at(k, n_positives=n_pos)
        assert rec.lower - tol <= v[:k].sum() / n_pos <= rec.upper + tol
    ap = b.average_precision(n_positives=n_pos)
    assert ap.lower - tol <= brute_ap(v, n_pos) <= ap.upper + tol
    # the list's own positives by default
    own = b.average_precision()
    assert own.lower - tol <= brute_ap(v, int(v.sum())) <= own.upper + tol


class TestHandCases:
    def test_exhaustive_plan_gives_exact_values(self) -> None:
        v = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 1])
        plan = paula_plan(10, epsilon=0.2, delta=3)
        b = paula_bounds(plan, plan.ranks(), v, on_violation="ignore")
        # F1@4 with 8 positives: tp = 3, 2 * 3 / (4 + 8) = 0.5
        assert b.f1_at(4, n_positives=8).value == 0.5
        # DCG@4 = 1/log2(2) + 1/log2(3) + 1/log2(5)
        want = 1 + 1 / math.log2(3) + 1 / math.log2(5)
        assert b.gain_at(4).value == pytest.approx(want, rel=1e-12)
        # AP over the 6 positives: (1/1 + 2/2 + 3/4 + 4/7 + 5/9 + 6/10) / 6
        ap = (1 + 1 + 3 / 4 + 4 / 7 + 5 / 9 + 6 / 10) / 6
        assert b.average_precision().value == pytest.approx(ap, rel=1e-12)
        assert b.average_precision(n_positives=12).value == pytest.approx(ap / 2, rel=1e-12)
        assert b.measure_at("precision", 4).value == 0.75
        assert b.measure_at("recall", 4, n_positives=6).value == 0.5

    def test_f1_from_the_yield_bounds(self) -> None:
        # F1 = 2 Y / (k + N+): the yield bounds at k, over k + N+ (interval ends swapped)
        rng = np.random.default_rng(0)
        plan = paula_plan(3000, epsilon=0.2, delta=20)
        v = ref.monotone_list(3000, delta=20, m=plan.m, r_tilde=plan.r_tilde, rng=rng)
        b = paula_bounds(plan, plan.ranks(), plan.select(v), on_violation="ignore")
        k = 2500
        y_lo, y_hi = b.yield_lower([k])[0], b.yield_upper([k])[0]
        e = b.f1_at(k, n_positives=(1900, 2100))
        assert e.lower == pytest.approx(2 * y_lo / (k + 2100))
        assert e.upper == pytest.approx(min(1.0, 2 * y_hi / (k + 1900)))
        assert e.level == 1.0 and e.method == "paula" and e.n == plan.annotations
        assert math.isnan(e.value)

    def test_gain_is_monotone_in_k(self) -> None:
        rng = np.random.default_rng(1)
        plan = paula_plan(2000, epsilon=0.2, delta=10)
        v = ref.monotone_list(2000, delta=10, m=plan.m, r_tilde=plan.r_tilde, rng=rng)
        b = paula_bounds(plan, plan.ranks(), plan.select(v), on_violation="ignore")
        lows = [b.gain_at(k).lower for k in (100, 500, 1000, 2000)]
        highs = [b.gain_at(k).upper for k in (100, 500, 1000, 2000)]
        assert lows == sorted(lows) and highs == sorted(highs)

    def test_bad_arguments(self) -> None:
        v = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 1])
        plan = paula_plan(10, epsilon=0.2, delta=3)
        b = paula_bounds(plan, plan.ranks(), v, on_violation="ignore")
        with pytest.raises(InputError, match="'measure'"):
            b.measure_at("ndcg", 3)
        with pytest.raises(InputError, match="needs 'n_positives'"):
            b.measure_at("f1", 3)
        with pytest.raises(InputError, match="'k' does not apply"):
            b.measure_at("average_precision", 3)
        with pytest.raises(InputError, match="at least the 6 positives"):
            b.f1_at(3, n_positives=5)
        with pytest.raises(InputError, match=r"1\.\.10"):
            b.gain_at(11)
        assert set(MEASURES) == {"precision", "recall", "f1", "gain", "average_precision"}


cases = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "epsilon": st.sampled_from([0.1, 0.2, 0.3, 0.5]),
        "delta": st.integers(2, 12),
        "length": st.floats(1.5, 5.0),
        "extra": st.integers(0, 50),
    }
)


@settings(max_examples=40, deadline=None)
@given(case=cases)
def test_brute_force_on_small_lists(case: dict[str, float]) -> None:
    eps, delta = float(case["epsilon"]), int(case["delta"])
    r_tilde = minimum_r_tilde(epsilon=eps, delta=delta)
    n = int(r_tilde * case["length"])
    plan = paula_plan(n, epsilon=eps, delta=delta, r_tilde=r_tilde)
    v = ref.monotone_list(
        n, delta=delta, m=plan.m, r_tilde=r_tilde, rng=np.random.default_rng(int(case["seed"]))
    )
    assume(ref.a2_holds(v, delta, plan.m, r_tilde) and v.sum() > 0)
    b = _bounds(v, eps, delta, r_tilde)
    ks = sorted({1, r_tilde, n // 2, n - 1, n} - {0})
    check_measures(b, v, int(v.sum()) + int(case["extra"]), ks)


def test_seeded_sweep_holds_at_the_stated_level() -> None:
    """Level 1: on every seeded list satisfying A.2, every measure's bounds hold."""
    rng = np.random.default_rng(20170812)
    checked = 0
    widths = []
    for _ in range(25):
        eps = float(rng.choice([0.05, 0.1, 0.2]))
        delta = int(rng.integers(5, 31))
        r_tilde = minimum_r_tilde(epsilon=eps, delta=delta) * int(rng.integers(1, 3))
        n = min(int(r_tilde * rng.uniform(2.0, 6.0)), 3000)
        plan = paula_plan(n, epsilon=eps, delta=delta, r_tilde=r_tilde)
        v = ref.monotone_list(n, delta=delta, m=plan.m, r_tilde=r_tilde, rng=rng)
        if not ref.a2_holds(v, delta, plan.m, r_tilde) or v.sum() == 0:
            continue
        b = _bounds(v, eps, delta, r_tilde)
        ks = sorted({int(x) for x in rng.integers(1, n + 1, size=6)} | {n})
        check_measures(b, v, int(v.sum()), ks)
        ap = b.average_precision(n_positives=int(v.sum()))
        widths.append(ap.upper - ap.lower)
        checked += 1
    assert checked >= 15
    # the bounds are informative, not trivially [0, 1]
    assert float(np.median(widths)) < 0.3


def test_cli_measure_option(tmp_path: object) -> None:
    import json
    from pathlib import Path

    import pandas as pd
    from typer.testing import CliRunner

    from ereval.cli import app

    d = Path(str(tmp_path))
    v = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 1])
    pd.DataFrame({"item_id": [f"i{r}" for r in range(1, 11)]}).to_csv(d / "r.csv", index=False)
    pd.DataFrame({"rank": range(1, 11), "label": v}).to_csv(d / "l.csv", index=False)
    base = ["paula", "bounds", str(d / "r.csv"), str(d / "l.csv"), "--epsilon", "0.2"]
    base += ["--delta", "3", "-q"]
    res = CliRunner().invoke(
        app, [*base, "--at", "4", "--measure", "f1", "--measure", "average-precision",
              "--n-positives", "8", "-f", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["measures"]
    f1 = next(r for r in rows if r["measure"] == "f1" and r["k"] == 4)
    assert f1["lower"] == f1["upper"] == 0.5
    ap = next(r for r in rows if r["measure"] == "average-precision")
    want = (1 + 1 + 3 / 4 + 4 / 7 + 5 / 9 + 6 / 10) / 8
    assert ap["lower"] == pytest.approx(want) and ap["upper"] == pytest.approx(want)
    bad = CliRunner().invoke(app, [*base, "--measure", "f1"])
    assert bad.exit_code == 2 and "'--measure' f1 needs '--n-positives'" in bad.output
