"""The expected-error and predicted-cluster designs: hand-computed record probabilities,
every sample of a tiny population enumerated with its probability (the ratio estimators'
numerator and denominator are unbiased), property tests, seeded Monte Carlo checks of bias,
std and coverage, and the command line."""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ereval._errors import InputError
from ereval._simulate import simulate
from ereval.cli import app
from ereval.estimators import (
    as_sample,
    cluster_terms,
    draw_sample,
    estimate,
    expected_error_probabilities,
    plan_expected_error,
    plan_predicted_cluster,
    prepare_prediction,
)
from ereval.estimators._error_weights import expected_errors, mixture_probabilities
from ereval.estimators._registry import SPEC_BY_KEY
from ereval.metrics import evaluate

runner = CliRunner()

# A tiny population: 10 records, true clusters A (4), B (3), C (2), D (1); the
# prediction splits A in two (a, a2), merges C into B (b) and keeps D (d).
TRUTH = {1: "A", 2: "A", 3: "A", 4: "A", 5: "B", 6: "B", 7: "B", 8: "C", 9: "C", 10: "D"}
PRED = {1: "a", 2: "a", 3: "a2", 4: "a2", 5: "b", 6: "b", 7: "b", 8: "b", 9: "b", 10: "d"}
SCORED = {
    (1, 2): 0.9,
    (3, 4): 0.8,
    (2, 3): 0.6,
    (5, 6): 0.9,
    (8, 9): 0.7,
    (7, 8): 0.2,
    (9, 10): 0.1,
}
PAIRS = pd.DataFrame(
    {
        "record_id_1": [a for a, _ in SCORED],
        "record_id_2": [b for _, b in SCORED],
        "match_probability": list(SCORED.values()),
    }
)
KEYS = (
    "pairwise_precision",
    "pairwise_recall",
    "pairwise_f1",
    "b3_precision",
    "b3_recall",
    "cluster_precision",
    "cluster_recall",
    "homogeneity",
    "completeness",
)


def _brute_errors() -> dict[int, float]:
    """Eqs. 7-8 by a double loop over every pair of records (unscored pairs have p = 0)."""
    out = {}
    for r in PRED:
        total = 0.0
        for s in PRED:
            if s == r:
                continue
            p = SCORED.get((min(r, s), max(r, s)), 0.0)
            total += (1 - p) if PRED[r] == PRED[s] else p
        out[r] = total
    return out


class TestRecordProbabilities:
    def test_expected_errors_by_hand(self) -> None:
        # e_1 = 1 - .9; e_2 = (1 - .9) + .6 (pair 2-3 leaves a); e_3 = (1 - .8) + .6;
        # e_5 = (1 - .9) + 3 unscored partners in b; e_7 = 2 + (1 - .2) + 1;
        # e_9 = 3 + (1 - .7) + .1 (pair 9-10 leaves b); e_10 = .1 (a singleton)
        q = expected_error_probabilities(PRED, PAIRS, floor=0.0)
        hand = {1: 0.1, 2: 0.7, 3: 0.8, 4: 0.2, 5: 3.1, 6: 3.1, 7: 3.8, 8: 3.1, 9: 3.4, 10: 0.1}
        total = sum(hand.values())
        for r, e in hand.items():
            assert q[r] == pytest.approx(e / total)
        brute = _brute_errors()
        assert brute == pytest.approx(hand)

    def test_floor_mixes_in_uniform(self) -> None:
        q0 = expected_error_probabilities(PRED, PAIRS, floor=0.0)
        q = expected_error_probabilities(PRED, PAIRS, floor=0.3)
        assert q.to_numpy() == pytest.approx(0.7 * q0.to_numpy() + 0.03)
        assert q.sum() == pytest.approx(1.0) and (q >= 0.03 - 1e-15).all()
        uniform = expected_error_probabilities(PRED, PAIRS, floor=1.0)
        assert uniform.to_numpy() == pytest.approx(np.full(10, 0.1))

    def test_no_error_at_all_is_uniform(self) -> None:
        assert mixture_probabilities([0.0, 0.0], floor=0.0).tolist() == [0.5, 0.5]

    def test_bad_scores_and_floor(self) -> None:
        bad = PAIRS.assign(match_probability=PAIRS["match_probability"] * 2)
        with pytest.raises(InputError, match=r"'match_probability' must hold match probab"):
            expected_error_probabilities(PRED, bad)
        with pytest.raises(InputError, match=r"'floor' must lie in \[0, 1\]"):
            expected_error_probabilities(PRED, PAIRS, floor=1.5)
        with pytest.raises(InputError, match="'floor' is 0 but 1 record"):
            mixture_probabilities([0.0, 1.0], floor=0.0)

    @settings(max_examples=40, deadline=None)
    @given(
        st.lists(st.integers(0, 4), min_size=2, max_size=12),
        st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.floats(0, 1)), max_size=20),
        st.floats(0.01, 1.0),
    )
    def test_properties(
        self, pred: list[int], raw: list[tuple[int, int, float]], floor: float
    ) -> None:
        n = len(pred)
        pairs = {}
        for a, b, p in raw:
            if a < n and b < n and a != b:
                pairs[(min(a, b), max(a, b))] = p
        left = np.array([a for a, _ in pairs], dtype=np.int64)
        right = np.array([b for _, b in pairs], dtype=np.int64)
        scores = np.array(list(pairs.values()), dtype=np.float64)
        codes = np.unique(np.array(pred), return_inverse=True)[1].astype(np.int64)
        e = expected_errors(codes, left, right, scores)
        # swapping the sides of every pair, or reordering pairs, changes nothing
        assert expected_errors(codes, right, left, scores) == pytest.approx(e)
        order = np.arange(len(pairs))[::-1]
        assert expected_errors(codes, left[order], right[order], scores[order]) == pytest.approx(e)
        # bounds: 0 <= e_r <= N - 1
        assert (e >= -1e-12).all() and (e <= n - 1 + 1e-12).all()
        q = mixture_probabilities(e, floor=floor)
        assert q.sum() == pytest.approx(1.0)
        assert (q >= floor / n - 1e-12).all()


def _errors_frame(drawn: list[int], q: pd.Series) -> pd.DataFrame:
    """The labelled table of an expected-error sample: every record of the drawn clusters."""
    counts: dict[str, int] = {}
    for r in drawn:
        counts[TRUTH[r]] = counts.get(TRUTH[r], 0) + 1
    rows = [
        {"record_id": r, "cluster_id": c, "draws": counts[c], "record_probability": q[r]}
        for r, c in TRUTH.items()
        if c in counts
    ]
    return pd.DataFrame(rows)


def _num_den(sample: Any, key: str) -> tuple[float, float]:
    """``Bbar`` and ``Abar`` of the ratio estimator for one sample."""
    terms = cluster_terms(prepare_prediction(PRED, index=False), sample)
    f, g = SPEC_BY_KEY[key].terms(terms, 1.0)
    units = sample.unit_of_cluster
    fu = np.bincount(units, weights=f, minlength=sample.n_units)
    gu = np.bincount(units, weights=g, minlength=sample.n_units)
    inv = 1.0 / sample.probabilities[sample.draws]
    return float((fu[sample.draws] * inv).mean()), float((gu[sample.draws] * inv).mean())


def _exact(key: str) -> float:
    spec = SPEC_BY_KEY[key]
    population = as_sample(TRUTH, design="cluster", weights="uniform")
    affine = spec.affine(cluster_terms(prepare_prediction(PRED, index=False), population))
    assert affine is not None
    value = evaluate(TRUTH, PRED, metrics=[spec.metric])[spec.metric]
    return (float(value) - affine[0]) / affine[1]


class TestExpectedErrorEnumeration:
    def test_every_sample_of_two_draws(self) -> None:
        """E[Bbar] / E[Abar] over all N^2 ordered draws equals the metric exactly
        (Binette et al. 2022, Lemma 2 with p_c = sum of q_r)."""
        q = expected_error_probabilities(PRED, PAIRS, floor=0.2)
        num = dict.fromkeys(KEYS, 0.0)
        den = dict.fromkeys(KEYS, 0.0)
        total_p = 0.0
        for r1, r2 in itertools.product(TRUTH, repeat=2):
            prob = q[r1] * q[r2]
            total_p += prob
            s = as_sample(_errors_frame([r1, r2], q), design="expected_error")
            for key in KEYS:
                b, a = _num_den(s, key)
                num[key] += prob * b
                den[key] += prob * a
        assert total_p == pytest.approx(1.0)
        for key in KEYS:
            assert num[key] / den[key] == pytest.approx(_exact(key), abs=1e-12), key

    def test_cluster_probability_is_the_sum_over_its_records(self) -> None:
        q = expected_error_probabilities(PRED, PAIRS)
        s = as_sample(_errors_frame([1, 9, 9], q), design="expected_error")
        by_cluster = dict(zip(s.cluster_labels.tolist(), s.probabilities.tolist(), strict=True))
        assert by_cluster["A"] == pytest.approx(q[[1, 2, 3, 4]].sum())
        assert by_cluster["C"] == pytest.approx(q[[8, 9]].sum())
        assert sorted(np.bincount(s.draws).tolist()) == [1, 2]
        # the table it writes reads back to the same sample
        back = as_sample(s.to_frame(), design="expected_error")
        assert back.probabilities.tolist() == s.probabilities.tolist()
        assert back.draws.tolist() == s.draws.tolist()

    def test_record_draws_column_and_mapping_weights(self) -> None:
        q = expected_error_probabilities(PRED, PAIRS)
        frame = _errors_frame([1, 9, 9], q).drop(columns="draws")
        frame["record_draws"] = frame["record_id"].map({1: 1, 9: 2}).fillna(0).astype(int)
        s = as_sample(frame.drop(columns="record_probability"), design="expected_error", weights=q)
        assert sorted(np.bincount(s.draws).tolist()) == [1, 2]

    def test_bad_input(self) -> None:
        q = expected_error_probabilities(PRED, PAIRS)
        frame = _errors_frame([1, 9], q)
        with pytest.raises(InputError, match="no column 'record_probability'"):
            as_sample(frame.drop(columns="record_probability"), design="expected_error")
        zero = frame.assign(
            record_probability=frame["record_probability"].where(frame.index > 0, 0)
        )
        with pytest.raises(InputError, match="must be finite and > 0"):
            as_sample(zero, design="expected_error")
        # without replacement the records' inclusion probabilities are needed, not q
        with pytest.raises(InputError, match="no column 'record_inclusion_probability'"):
            as_sample(frame, design="expected_error", replace=False)
        with pytest.raises(InputError, match=r"no value for"):
            as_sample(
                frame.drop(columns="record_probability"), design="expected_error", weights={1: 0.5}
            )
        with pytest.raises(InputError, match="'weights' \\(record id -> probability"):
            draw_sample(TRUTH, n=5, design="expected_error")


def _pred_frame(drawn: list[str], weights: dict[str, float]) -> pd.DataFrame:
    """The reviewed predicted clusters: every record with its entity inside the cluster."""
    counts = {u: drawn.count(u) for u in set(drawn)}
    rows = [
        {
            "record_id": r,
            "cluster_id": TRUTH[r],
            "unit_id": u,
            "probability": weights[u],
            "draws": counts[u],
        }
        for r, u in PRED.items()
        if u in counts
    ]
    return pd.DataFrame(rows)


PRED_SIZES = {"a": 2.0, "a2": 2.0, "b": 5.0, "d": 1.0}


class TestPredictedCluster:
    def test_census_by_hand(self) -> None:
        # |T ∩ P| = (1,2), (3,4), (5,6), (5,7), (6,7), (8,9) = 6 of |P| = 1 + 1 + 10 = 12;
        # B-cubed precision (2 * 1 + 2 * 1 + 3 * 3/5 + 2 * 2/5 + 1) / 10 = 0.76
        frame = _pred_frame(["a", "a2", "b", "d"], dict.fromkeys(PRED_SIZES, 1.0))
        s = as_sample(frame, design="predicted_cluster", replace=False, population_size=4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = estimate(PRED, s, metrics="pairwise_precision,b3_precision")
        assert est["pairwise_precision"].value == pytest.approx(0.5)
        assert est["pairwise_precision"].std == pytest.approx(0.0)
        assert est["b3_precision"].value == pytest.approx(0.76)
        exact = evaluate(TRUTH, PRED, metrics=["pairwise_precision", "b3_precision"])
        assert exact["pairwise_precision"] == pytest.approx(0.5)
        assert exact["b3_precision"] == pytest.approx(0.76)

    def test_every_sample_with_replacement(self) -> None:
        """Predicted clusters drawn twice with p proportional to size: E[Bbar] / E[Abar] is
        the metric (Binette et al. 2022, Lemma 3 and Remark 2)."""
        p = {u: w / 10.0 for u, w in PRED_SIZES.items()}
        for key in ("pairwise_precision", "b3_precision"):
            num = den = 0.0
            for u1, u2 in itertools.product(PRED_SIZES, repeat=2):
                s = as_sample(_pred_frame([u1, u2], PRED_SIZES), design="predicted_cluster")
                b, a = _num_den(s, key)
                num += p[u1] * p[u2] * b
                den += p[u1] * p[u2] * a
            assert num / den == pytest.approx(_exact(key), abs=1e-12), key

    def test_every_sample_without_replacement(self) -> None:
        """Two of the four predicted clusters, uniformly without replacement."""
        for key in ("pairwise_precision", "b3_precision"):
            num = den = 0.0
            subsets = list(itertools.combinations(PRED_SIZES, 2))
            for pair in subsets:
                frame = _pred_frame(list(pair), dict.fromkeys(PRED_SIZES, 1.0))
                s = as_sample(frame, design="predicted_cluster", replace=False)
                b, a = _num_den(s, key)
                num += b / len(subsets)
                den += a / len(subsets)
            assert num / den == pytest.approx(_exact(key), abs=1e-12), key

    def test_an_entity_in_two_clusters_is_two_pieces(self) -> None:
        s = as_sample(_pred_frame(["a", "a2"], PRED_SIZES), design="predicted_cluster")
        assert s.n_clusters == 2 and s.n_units == 2
        assert s.cluster_labels.tolist() == ["A", "A"]
        assert s.to_frame()["unit_id"].tolist() == ["a", "a", "a2", "a2"]

    def test_entity_labels_are_local(self) -> None:
        frame = _pred_frame(["a", "b", "b", "d"], PRED_SIZES)
        renamed = frame.assign(cluster_id=frame["cluster_id"].map(lambda c: f"x{c}").to_numpy())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one = estimate(PRED, as_sample(frame, design="predicted_cluster"))
            two = estimate(PRED, as_sample(renamed, design="predicted_cluster"))
        assert list(one) == ["pairwise_precision", "b3_precision"]
        for key in one:
            assert one[key].value == pytest.approx(two[key].value)

    def test_what_it_cannot_estimate_and_bad_input(self) -> None:
        frame = _pred_frame(["a", "b", "b", "d"], PRED_SIZES)
        s = as_sample(frame, design="predicted_cluster")
        with pytest.raises(InputError, match=r"cannot compute 'pairwise_recall'.*Remark 2"):
            estimate(PRED, s, metrics="pairwise_recall")
        with pytest.raises(InputError, match="cannot compute 'pairwise_precision_naive'"):
            estimate(PRED, s, metrics="pairwise_precision_naive")
        partial = frame[frame["record_id"] != 9]
        with pytest.raises(InputError, match="'b' has 5 records in 'pred' but 4"):
            estimate(PRED, as_sample(partial, design="predicted_cluster"))
        with pytest.raises(InputError, match="needs each record's predicted cluster"):
            as_sample(frame.drop(columns="unit_id"), design="predicted_cluster")
        with pytest.raises(InputError, match="needs equal probabilities"):
            as_sample(frame.assign(draws=1), design="predicted_cluster", replace=False)
        with pytest.raises(InputError, match="needs 'pred'"):
            draw_sample(TRUTH, n=2, design="predicted_cluster")

    def test_plan_and_draw(self) -> None:
        plan = plan_predicted_cluster(PRED, n=3, seed=0)
        assert set(plan.columns) == {"record_id", "unit_id", "probability", "draws"}
        per_unit = plan.groupby("unit_id")["record_id"].count().to_dict()
        assert all(per_unit[u] == PRED_SIZES[u] for u in per_unit)
        s = draw_sample(TRUTH, n=6, design="predicted_cluster", pred=PRED, seed=1)
        assert s.n_draws == 6 and s.design == "predicted_cluster"
        q = expected_error_probabilities(PRED, PAIRS)
        planned = plan_expected_error(q, n=9, seed=0)
        assert int(planned["record_draws"].sum()) == 9
        assert (planned["record_probability"] == q[planned["record_id"]].to_numpy()).all()


def _population(seed: int) -> tuple[dict[int, int], dict[int, int], pd.DataFrame]:
    """A Zipf-sized truth, a prediction with 10% of records moved, and scored pairs whose
    probabilities are informative (true matches score high)."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(2.0, 700), 40)
    labels = np.repeat(np.arange(sizes.size), sizes)
    pred = labels.copy()
    moved = rng.choice(labels.size, labels.size // 10, replace=False)
    pred[moved] = labels[rng.integers(0, labels.size, moved.size)]
    left, right = [], []
    for arr in (labels, pred):
        order = np.argsort(arr, kind="stable")
        bounds = np.flatnonzero(np.diff(arr[order])) + 1
        for group in np.split(order, bounds):
            for i, j in itertools.combinations(group[:12], 2):
                left.append(min(i, j))
                right.append(max(i, j))
    pairs = pd.DataFrame({"record_id_1": left, "record_id_2": right}).drop_duplicates()
    same = labels[pairs["record_id_1"]] == labels[pairs["record_id_2"]]
    pairs["match_probability"] = np.where(
        same, rng.beta(6, 1.5, len(pairs)), rng.beta(1.5, 6, len(pairs))
    )
    return dict(enumerate(labels.tolist())), dict(enumerate(pred.tolist())), pairs


MC_KEYS = ("pairwise_precision", "pairwise_recall", "b3_precision", "b3_recall", "cluster_recall")


@pytest.mark.parametrize("design", ["expected_error", "predicted_cluster"])
def test_monte_carlo_bias_std_and_coverage(design: str) -> None:
    truth, pred, pairs = _population(21)
    repeats = 2000
    keys = MC_KEYS if design == "expected_error" else ("pairwise_precision", "b3_precision")
    weights = expected_error_probabilities(pred, pairs) if design == "expected_error" else None
    res = simulate(
        truth,
        pred,
        design=design,  # type: ignore[arg-type]
        weights=weights,
        sample_size=150,
        repeats=repeats,
        seed=3,
        estimators=",".join(keys),
        naive=False,
    )
    for row in res.summary.itertuples():
        # bias: within 4 Monte Carlo standard errors, or second order (< 10% of the spread)
        assert abs(row.bias) < max(4 * row.bias_se, 0.1 * row.empirical_std), row.estimator
        # the reported std tracks the spread (its own Monte Carlo error is a few percent)
        assert row.mean_std == pytest.approx(row.empirical_std, rel=0.2), row.estimator
        # 95% intervals: coverage within 3 standard errors of 0.95, less 0.02 for the
        # first-order approximations
        se = math.sqrt(0.95 * 0.05 / repeats)
        assert row.coverage > 0.95 - 3 * se - 0.02, row.estimator


def test_monte_carlo_through_draw_sample_and_estimate() -> None:
    """The path a campaign takes: draw, write the table, read it back, estimate; and the
    simulation's vectorised numbers equal estimate()'s on the same draws."""
    truth, pred, pairs = _population(22)
    q = expected_error_probabilities(pred, pairs)
    exact = evaluate(truth, pred, metrics=["pairwise_precision"])["pairwise_precision"]
    prepared = prepare_prediction(pred)
    rng = np.random.default_rng(4)
    values, covered = [], 0
    for _ in range(100):
        s = draw_sample(truth, n=120, design="expected_error", weights=q, seed=rng)
        s = as_sample(s.to_frame(), design="expected_error")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = estimate(prepared, s, metrics="pairwise_precision")["pairwise_precision"]
        values.append(e.value)
        covered += e.interval[0] <= exact <= e.interval[1]
    assert abs(np.mean(values) - exact) < 4 * np.std(values) / math.sqrt(len(values)) + 0.005
    assert covered / 100 >= 0.88


class TestCommandLine:
    @pytest.fixture
    def files(self, tmp_path: Path) -> dict[str, Path]:
        truth, pred, pairs = _population(23)
        out = {k: tmp_path / f"{k}.csv" for k in ("truth", "pred", "pairs")}
        pd.DataFrame({"record_id": list(truth), "cluster_id": list(truth.values())}).to_csv(
            out["truth"], index=False
        )
        pd.DataFrame({"record_id": list(pred), "cluster_id": list(pred.values())}).to_csv(
            out["pred"], index=False
        )
        pairs.rename(columns={"record_id_1": "unique_id_l", "record_id_2": "unique_id_r"}).to_csv(
            out["pairs"], index=False
        )
        return out

    def test_sample_label_estimate_expected_error(
        self, files: dict[str, Path], tmp_path: Path
    ) -> None:
        plan_path = tmp_path / "plan.csv"
        res = runner.invoke(
            app,
            [
                "sample", "--pred", str(files["pred"]), "-n", "80", "--seed", "1",
                "--design", "expected-error", "--pairs", str(files["pairs"]),
                "--preset", "splink", "-o", str(plan_path),
            ],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        plan = pd.read_csv(plan_path)
        assert int(plan["record_draws"].sum()) == 80
        # the reviewer labels the true cluster of each drawn record
        truth = pd.read_csv(files["truth"])
        of = dict(zip(truth["record_id"], truth["cluster_id"], strict=True))
        drawn = dict(zip(plan["record_id"], plan["record_draws"], strict=True))
        clusters = {of[r] for r in drawn}
        labelled = truth[truth["cluster_id"].isin(clusters)].assign(
            record_draws=lambda t: t["record_id"].map(drawn).fillna(0).astype(int)
        )
        labelled.to_csv(tmp_path / "labelled.csv", index=False)
        args = [
            "estimate",
            "--pred",
            str(files["pred"]),
            "--sample",
            str(tmp_path / "labelled.csv"),
        ]
        res = runner.invoke(
            app,
            [*args, "--design", "expected-error", "--pairs", str(files["pairs"]),
             "--preset", "splink", "-m", "pairwise_precision", "-f", "json"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        assert 0 < float(res.stdout.split('"value": ')[1].split(",")[0]) <= 1
        # without --pairs the sample must carry the probabilities
        res = runner.invoke(app, [*args, "--design", "expected-error"])
        assert res.exit_code == 2 and "--pairs" in res.stderr and "\n" not in res.stderr.strip()

    def test_bad_options_name_the_flag(self, files: dict[str, Path]) -> None:
        base = ["sample", "--pred", str(files["pred"]), "-n", "10"]
        res = runner.invoke(app, [*base, "--design", "expected-error"])
        assert res.exit_code == 2 and "needs '--pairs'" in res.stderr
        res = runner.invoke(app, [*base, "--pairs", str(files["pairs"])])
        assert res.exit_code == 2 and "'--pairs' is an option of --design expected-error" in (
            res.stderr
        )
        res = runner.invoke(
            app,
            [*base, "--design", "expected-error", "--pairs", str(files["pairs"]),
             "--preset", "splink", "--floor", "2"],
        )  # fmt: skip
        assert res.exit_code == 2 and "'--floor' must lie in [0, 1]" in res.stderr
        res = runner.invoke(
            app, [*base, "--design", "predicted-cluster", "--weights", "cluster-size",
                  "--without-replacement"]
        )  # fmt: skip
        # unequal probabilities without replacement: exact inclusion probabilities are written
        assert res.exit_code == 0, res.output
        assert "inclusion_probability" in res.stdout

    def test_predicted_cluster_sample_and_simulate(self, files: dict[str, Path]) -> None:
        res = runner.invoke(
            app,
            ["sample", "--pred", str(files["pred"]), "-n", "5", "--design", "predicted-cluster",
             "--weights", "uniform", "--seed", "2", "-f", "csv"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        assert res.stdout.splitlines()[0] == "record_id,unit_id,probability,draws"
        res = runner.invoke(
            app,
            ["simulate", "--truth", str(files["truth"]), "--pred", str(files["pred"]),
             "--design", "expected-error", "--pairs", str(files["pairs"]), "--preset", "splink",
             "-n", "60", "-r", "50", "--seed", "1", "-m", "pairwise_precision", "--no-naive",
             "-f", "csv"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        assert "pairwise_precision" in res.stdout


def test_predicted_clusters_give_no_error_analysis_and_a_precision_verdict(tmp_path: Path) -> None:
    from ereval.analysis import sample_errors

    frame = _pred_frame(["a", "b", "b", "d", "a2"], PRED_SIZES)
    with pytest.raises(InputError, match="error analysis needs samples of whole true clusters"):
        sample_errors(PRED, frame, design="predicted_cluster")
    pd.DataFrame({"record_id": list(PRED), "cluster_id": list(PRED.values())}).to_csv(
        tmp_path / "pred.csv", index=False
    )
    frame.to_csv(tmp_path / "sample.csv", index=False)
    out = tmp_path / "report.html"
    res = runner.invoke(
        app,
        ["report", "--pred", str(tmp_path / "pred.csv"), "--sample", str(tmp_path / "sample.csv"),
         "--design", "predicted-cluster", "-o", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "estimated pairwise precision" in page and "Error analysis" not in page
