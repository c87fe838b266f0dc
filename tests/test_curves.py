"""Threshold curves of scored pairs: incremental values against recomputation from scratch."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from ereval import InputError, InputTypeError, RecordMismatchError, evaluate
from ereval.curves import INCREMENTAL_METRICS, threshold_curve

INTEGER_COLUMNS = ("links_tp", "links_fp", "links_fn", "links_tn", "n_accepted", "n_pred_clusters")


def _components(n: int, edges: list[tuple[int, int]]) -> list[int]:
    """Connected components by a plain union-find (independent of the code under test)."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for u, v in edges:
        parent[find(u)] = find(v)
    return [find(x) for x in range(n)]


def _pred(records: Any, labels: list[int]) -> dict[Any, int]:
    """The components as a dict (record -> component): a clustering read without a column
    name, so it is never taken for the truth read twice."""
    return dict(zip(list(records), labels, strict=True))


def _random_case(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    n = int(rng.integers(2, 40))
    k = int(rng.integers(1, n + 1))
    clusters = rng.integers(0, k, size=n)
    truth = pd.DataFrame({"record_id": [f"r{i}" for i in range(n)], "cluster_id": clusters})
    all_pairs = list(itertools.combinations(range(n), 2))
    m = int(rng.integers(1, len(all_pairs) + 1))
    chosen = rng.choice(len(all_pairs), size=min(m, 3 * n), replace=False)
    # favour true pairs so that clusters grow, and draw scores from few values (ties)
    pairs = [all_pairs[c] for c in chosen]
    scores = rng.integers(0, 6, size=len(pairs)) / 5.0
    same = np.array([clusters[u] == clusters[v] for u, v in pairs])
    scores = np.where(same & (rng.random(len(pairs)) < 0.7), scores + 0.5, scores)
    flip = rng.random(len(pairs)) < 0.5
    frame = pd.DataFrame(
        {
            "record_id_1": [f"r{v if f else u}" for (u, v), f in zip(pairs, flip, strict=True)],
            "record_id_2": [f"r{u if f else v}" for (u, v), f in zip(pairs, flip, strict=True)],
            "score": scores,
        }
    )
    return truth, frame


def _brute_force_row(truth: pd.DataFrame, pairs: pd.DataFrame, t: float) -> dict[str, Any]:
    index = {r: i for i, r in enumerate(truth["record_id"])}
    cl = truth["cluster_id"].to_numpy()
    n = len(index)
    acc = pairs[pairs["score"] >= t]
    edges = [
        (index[u], index[v]) for u, v in zip(acc["record_id_1"], acc["record_id_2"], strict=True)
    ]
    accepted = {frozenset(e) for e in edges}
    tp = fp = fn = tn = 0
    for u, v in itertools.combinations(range(n), 2):
        true = cl[u] == cl[v]
        got = frozenset((u, v)) in accepted
        tp += true and got
        fp += got and not true
        fn += true and not got
        tn += not true and not got
    labels = _components(n, edges)
    return {
        "links": (tp, fp, fn, tn),
        "labels": labels,
        "n_pred_clusters": len(set(labels)),
    }


@pytest.mark.parametrize("seed", range(40))
def test_incremental_equals_recomputation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth, pairs = _random_case(rng)
    curve = threshold_curve(truth, pairs, beta=2.0 if seed % 2 else 1.0)
    frame = curve.frame
    assert list(frame["threshold"]) == sorted(set(pairs["score"]))
    for row in frame.to_dict("records"):
        ref = _brute_force_row(truth, pairs, row["threshold"])
        got = tuple(int(row[c]) for c in ("links_tp", "links_fp", "links_fn", "links_tn"))
        assert got == ref["links"]
        assert row["n_pred_clusters"] == ref["n_pred_clusters"]
        pred = _pred(truth["record_id"], ref["labels"])
        expected = evaluate(truth, pred, metrics=list(INCREMENTAL_METRICS), beta=curve.beta)
        for name, value in expected.items():
            if math.isnan(value):
                assert math.isnan(row[name]), name
            else:
                assert row[name] == pytest.approx(value, abs=1e-12, rel=1e-12), name


@pytest.mark.parametrize("seed", range(6))
def test_grid_and_scratch_metrics(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    truth, pairs = _random_case(rng)
    grid = [-1.0, 0.1, 0.45, 0.8, 2.0]
    curve = threshold_curve(truth, pairs, thresholds=grid, metrics="canonical")
    assert list(curve.frame["threshold"]) == grid
    for row in curve.frame.to_dict("records"):
        ref = _brute_force_row(truth, pairs, row["threshold"])
        assert int(row["n_accepted"]) == int((pairs["score"] >= row["threshold"]).sum())
        pred = _pred(truth["record_id"], ref["labels"])
        expected = evaluate(truth, pred, metrics="canonical")
        for name, value in expected.items():
            if math.isnan(value):
                assert math.isnan(row[name]), name
            else:
                assert row[name] == pytest.approx(value, abs=1e-12), name
    # nothing accepted above the top score: links precision is undefined
    top = curve.frame.iloc[-1]
    assert top["n_accepted"] == 0 and math.isnan(top["links_precision"])


def test_grid_of_n_points_uses_scores() -> None:
    truth, pairs = _random_case(np.random.default_rng(7))
    curve = threshold_curve(truth, pairs, thresholds=3)
    distinct = sorted(set(pairs["score"]))
    assert set(curve.frame["threshold"]) <= set(distinct)
    assert curve.frame["threshold"].iloc[0] == distinct[0]
    assert curve.frame["threshold"].iloc[-1] == distinct[-1]


def test_hand_worked_example() -> None:
    # truth {a, b, c}, {d, e}; N = 5, true pairs ab ac bc de = 4, C(5, 2) = 10
    truth = [["a", "b", "c"], ["d", "e"]]
    pairs = pd.DataFrame(
        {
            "record_id_1": ["a", "c", "b", "d"],
            "record_id_2": ["b", "d", "c", "a"],
            "score": [0.9, 0.7, 0.5, 0.5],
        }
    )
    f = threshold_curve(truth, pairs).frame.set_index("threshold")
    # t = 0.9: accept ab. links TP 1, FP 0, FN 3, TN 10 - 4 = 6; clusters {ab} c d e
    # pairwise: TP 1 of 1 predicted pair, recall 1/4; cluster: exact none of 4 predicted
    # ({ab} differs from {abc}; d and e are singletons of {de}), K = 2 -> 0
    r = f.loc[0.9]
    assert (r.links_tp, r.links_fp, r.links_fn, r.links_tn) == (1, 0, 3, 6)
    assert r.pairwise_precision == 1.0 and r.pairwise_recall == 0.25
    assert r.cluster_precision == 0.0 and r.n_pred_clusters == 4
    # t = 0.7: accept ab, cd. links TP 1, FP 1; clusters {ab}, {cd}, e
    r = f.loc[0.7]
    assert (r.links_tp, r.links_fp, r.links_fn) == (1, 1, 3)
    assert r.pairwise_precision == 0.5  # TP ab of predicted ab, cd
    # t = 0.5: accept all four: links TP ab, bc = 2, FP cd, da = 2; one cluster {abcd}, e
    # pairwise: predicted C(4,2) = 6, TP = C(3,2) = 3 -> P 1/2, R 3/4
    # B3 precision: (3 * 3/4 + 1 * 1/4 + 1) / 5 = 3.5 / 5; recall (3 * 1 + 1/2 + 1/2) / 5
    r = f.loc[0.5]
    assert (r.links_tp, r.links_fp, r.links_fn, r.links_tn) == (2, 2, 2, 4)
    assert r.pairwise_precision == 0.5 and r.pairwise_recall == 0.75
    assert r.b3_precision == pytest.approx(3.5 / 5) and r.b3_recall == pytest.approx(4 / 5)
    assert r.muc_recall == pytest.approx(2 / 3)  # (3 - 1 + 2 - 2) / (5 - 2)


@pytest.mark.parametrize("seed", range(10))
def test_auc_and_ap_match_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(300 + seed)
    truth, pairs = _random_case(rng)
    while True:
        cl = dict(zip(truth["record_id"], truth["cluster_id"], strict=True))
        labels = [
            cl[u] == cl[v] for u, v in zip(pairs["record_id_1"], pairs["record_id_2"], strict=True)
        ]
        if 0 < sum(labels) < len(labels):
            break
        truth, pairs = _random_case(rng)
    s = threshold_curve(truth, pairs).summary
    assert s["roc_auc"] == pytest.approx(roc_auc_score(labels, pairs["score"]), abs=1e-12)
    assert s["average_precision"] == pytest.approx(
        average_precision_score(labels, pairs["score"]), abs=1e-12
    )


def test_blocking_summary_and_unscored_true_pairs() -> None:
    truth = [["a", "b", "c"], ["d"], ["e"]]  # 3 true pairs; C(5, 2) = 10
    pairs = pd.DataFrame({"record_id_1": ["a", "d"], "record_id_2": ["b", "e"], "score": [1, 2]})
    c = threshold_curve(truth, pairs)
    assert c.summary["pairs_completeness"] == pytest.approx(1 / 3)
    assert c.summary["reduction_ratio"] == pytest.approx(1 - 2 / 10)
    low = c.frame.iloc[0]  # everything accepted: ac and bc never scored count as FN
    assert (low.links_tp, low.links_fp, low.links_fn, low.links_tn) == (1, 1, 2, 6)
    assert c.roc()["tpr"].iloc[-1] == 1.0  # over the scored pairs


def test_best_and_precision_target() -> None:
    truth = [["a", "b"], ["c", "d"], ["e"]]
    pairs = pd.DataFrame(
        {
            "record_id_1": ["a", "c", "a", "b"],
            "record_id_2": ["b", "d", "e", "c"],
            "score": [0.9, 0.8, 0.6, 0.4],
        }
    )
    c = threshold_curve(truth, pairs)
    assert c.best("links_f1")["threshold"] == 0.8
    assert c.threshold_for(0.6)["threshold"] == 0.6  # 2 of 3 accepted are true
    assert c.threshold_for(0.7)["threshold"] == 0.8
    assert c.threshold_for(1.1) is None
    with pytest.raises(InputError, match="'metric'"):
        c.best("nope")
    d = c.to_dict()
    assert d["summary"]["n_pairs"] == 4 and len(d["rows"]) == 4


def test_integer_ids_and_isolated_records() -> None:
    truth = pd.DataFrame({"record_id": [1, 2, 3, 4, 5, 6], "cluster_id": [1, 1, 2, 2, 3, 4]})
    pairs = pd.DataFrame({"record_id_1": [2], "record_id_2": [1], "score": [0.5]})
    row = threshold_curve(truth, pairs).frame.iloc[0]
    assert row.n_pred_clusters == 5 and row.cluster_precision == pytest.approx(3 / 5)


# --------------------------------------------------------------------------- bad input
def _truth() -> list[list[str]]:
    return [["a", "b"], ["c"]]


def test_repeated_pair_in_either_order_is_an_error() -> None:
    pairs = pd.DataFrame({"record_id_1": ["a", "b"], "record_id_2": ["b", "a"], "score": [1, 2]})
    with pytest.raises(InputError, match=r"repeated pair.*scored 1 \(row 0\), 2 \(row 1\)"):
        threshold_curve(_truth(), pairs)


def test_self_pair_is_an_error() -> None:
    pairs = pd.DataFrame({"record_id_1": ["a"], "record_id_2": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="with itself"):
        threshold_curve(_truth(), pairs)


@pytest.mark.parametrize("bad", [math.nan, math.inf, None])
def test_non_finite_scores_are_errors(bad: Any) -> None:
    pairs = pd.DataFrame({"record_id_1": ["a", "a"], "record_id_2": ["b", "c"], "score": [1, bad]})
    with pytest.raises(InputError, match=r"'score_col'.*1 missing, NaN or infinite"):
        threshold_curve(_truth(), pairs)


def test_missing_or_text_score_column() -> None:
    pairs = pd.DataFrame({"record_id_1": ["a"], "record_id_2": ["b"], "weight": [1.0]})
    with pytest.raises(InputError, match="no score column 'score'"):
        threshold_curve(_truth(), pairs)
    with pytest.raises(InputTypeError, match=r"must hold numbers; it holds text such as 'x'$"):
        threshold_curve(_truth(), pairs.assign(score=["x"]))
    # of text scores, the ones that are not numbers are named
    two = pd.DataFrame(
        {"record_id_1": ["a", "a"], "record_id_2": ["b", "c"], "score": ["0.5", "n/a"]}
    )
    with pytest.raises(InputTypeError, match=r"it holds text such as 'n/a'$"):
        threshold_curve(_truth(), two)
    with pytest.raises(InputTypeError, match=r"it holds text such as 'n/a'$"):
        threshold_curve(_truth(), pa.Table.from_pandas(two, preserve_index=False))


def test_records_absent_from_truth() -> None:
    pairs = pd.DataFrame(
        {"record_id_1": ["a", "a"], "record_id_2": ["b", "zz"], "score": [1.0, 2.0]}
    )
    with pytest.raises(RecordMismatchError, match=r"'zz'.*on_mismatch='intersection'"):
        threshold_curve(_truth(), pairs)
    c = threshold_curve(_truth(), pairs, on_mismatch="intersection")
    assert c.summary["n_pairs"] == 1 and c.summary["n_pairs_dropped"] == 1
    with pytest.raises(InputError, match="'on_mismatch' must be one of 'error', 'intersection'"):
        threshold_curve(_truth(), pairs, on_mismatch="twinless")  # type: ignore[arg-type]


def test_id_kinds_must_match() -> None:
    pairs = pd.DataFrame({"record_id_1": [1], "record_id_2": [2], "score": [1.0]})
    with pytest.raises(InputTypeError, match="id_type='string'"):
        threshold_curve(_truth(), pairs)


def test_bad_thresholds() -> None:
    pairs = pd.DataFrame({"record_id_1": ["a"], "record_id_2": ["b"], "score": [1.0]})
    with pytest.raises(InputError, match="'thresholds'"):
        threshold_curve(_truth(), pairs, thresholds=[math.nan])
    with pytest.raises(InputError, match="'thresholds'"):
        threshold_curve(_truth(), pairs, thresholds=0)


def test_csv_ids_are_text(tmp_path: Any) -> None:
    (tmp_path / "truth.csv").write_text("record_id,cluster_id\n01,x\n1,x\n2,y\n")
    (tmp_path / "pairs.csv").write_text("record_id_1,record_id_2,score\n01,1,0.5\n1,2,0.2\n")
    c = threshold_curve(tmp_path / "truth.csv", tmp_path / "pairs.csv")
    assert list(c.frame["links_tp"]) == [1, 1]


@pytest.mark.parametrize(("threshold", "name"), [(0.80, "pred_good.csv"), (0.65, "pred_poor.csv")])
def test_bundled_linkers_are_the_components_at_their_thresholds(
    threshold: float, name: str
) -> None:
    """The example's linkers cluster by connected components of score >= threshold."""
    from ._example_data import EXAMPLES as folder

    curve = threshold_curve(
        folder / "truth.csv", folder / "pairs.csv", thresholds=[threshold], metrics="canonical"
    )
    row = curve.frame.iloc[0]
    expected = evaluate(folder / "truth.csv", folder / name, metrics="canonical")
    for key, value in expected.items():
        assert row[key] == pytest.approx(value, abs=1e-12), key


def test_figure_data() -> None:
    from ereval.plots import threshold_curve_figure

    truth, pairs = _random_case(np.random.default_rng(11))
    curve = threshold_curve(truth, pairs)
    by_threshold, pr, roc = threshold_curve_figure(curve)
    assert [line.label for line in by_threshold.lines] == [
        "links_f1",
        "pairwise_f1",
        "b3_f1",
        "cluster_f1",
    ]
    assert np.array_equal(by_threshold.lines[0].x, curve.frame["threshold"])
    assert np.array_equal(pr.lines[0].y, curve.frame["links_precision"], equal_nan=True)
    assert roc.lines[0].x[0] == 0.0 and roc.lines[0].y[-1] == pytest.approx(1.0)
    with pytest.raises(InputError, match="'metrics'"):
        threshold_curve_figure(curve, metrics=["nope"])


def test_links_only_and_fbeta() -> None:
    truth, pairs = _random_case(np.random.default_rng(12))
    links = threshold_curve(truth, pairs, metrics=[])
    assert "n_pred_clusters" not in links.frame.columns
    weighted = threshold_curve(truth, pairs, beta=2.0, metrics="pairwise")
    p, r = weighted.frame["links_precision"], weighted.frame["links_recall"]
    expected = np.where(p + r > 0, 5 * p * r / (4 * p + r).where(4 * p + r > 0, 1.0), 0.0)
    assert np.allclose(weighted.frame["links_fbeta"], expected)
    assert "pairwise_fbeta" in weighted.frame.columns


def test_evaluate_pairs_at_a_threshold() -> None:
    from ereval.curves import evaluate_pairs
    from ereval.metrics._pairwise import pairwise_scores_from_pairs

    rng = np.random.default_rng(21)
    truth, pairs = _random_case(rng)
    t = float(np.median(pairs["score"]))
    got = evaluate_pairs(truth, pairs, threshold=t, score_col="score")
    accepted = pairs[pairs["score"] >= t]
    links = pairwise_scores_from_pairs(truth, accepted)
    assert got["links_precision"] == pytest.approx(links["pairwise_precision"], abs=1e-15)
    assert got["links_recall"] == pytest.approx(links["pairwise_recall"], abs=1e-15)
    ref = _brute_force_row(truth, pairs, t)
    pred = _pred(truth["record_id"], ref["labels"])
    for key, value in evaluate(truth, pred, metrics="canonical").items():
        assert got[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key
    # unscored pairs: every pair is accepted
    plain = evaluate_pairs(truth, accepted[["record_id_1", "record_id_2"]], metrics="b3")
    assert plain["threshold"] is None and plain["n_accepted"] == len(accepted)
    assert plain["b3_f1"] == pytest.approx(got["b3_f1"], abs=1e-12)
    with pytest.raises(InputError, match="'score_col'"):
        evaluate_pairs(truth, pairs, threshold=0.5)


def test_large_components_agree_to_1e12() -> None:
    """Hundreds of merges into large mixed components: the running sums stay exact enough."""
    rng = np.random.default_rng(5)
    n = 400
    clusters = rng.integers(0, 60, size=n)
    truth = pd.DataFrame({"record_id": np.arange(n), "cluster_id": clusters})
    all_pairs = np.array(list(itertools.combinations(range(n), 2)))
    pick = all_pairs[rng.choice(len(all_pairs), size=3000, replace=False)]
    same = clusters[pick[:, 0]] == clusters[pick[:, 1]]
    score = np.round(rng.normal(np.where(same, 1.0, -1.0), 1.0), 1)
    pairs = pd.DataFrame({"record_id_1": pick[:, 0], "record_id_2": pick[:, 1], "score": score})
    curve = threshold_curve(truth, pairs)
    rows = curve.frame.iloc[:: max(1, len(curve.frame) // 12)]
    for row in rows.to_dict("records"):
        labels = _components(n, [tuple(p) for p in pick[score >= row["threshold"]]])
        pred = _pred(np.arange(n), labels)
        for name, value in evaluate(truth, pred, metrics=list(INCREMENTAL_METRICS)).items():
            assert row[name] == pytest.approx(value, abs=1e-12, rel=1e-12, nan_ok=True), name


def test_arrow_polars_and_keys_of_several_columns() -> None:
    import polars as pl
    import pyarrow as pa

    truth = pd.DataFrame({"src": ["x", "x", "y"], "id": [1, 2, 1], "cluster_id": ["p", "p", "q"]})
    pairs = pd.DataFrame(
        {
            "src_l": ["x", "x"],
            "id_l": [1, 2],
            "src_r": ["x", "y"],
            "id_r": [2, 1],
            "score": [0.9, 0.4],
        }
    )
    options: dict[str, Any] = {
        "record_col": ["src", "id"],
        "left_col": ["src_l", "id_l"],
        "right_col": ["src_r", "id_r"],
    }
    ref = threshold_curve(truth, pairs, **options).frame
    assert list(ref["links_tp"]) == [1, 1] and list(ref["links_fp"]) == [1, 0]
    for frame in (pa.Table.from_pandas(pairs), pl.from_pandas(pairs)):
        got = threshold_curve(truth, frame, **options).frame
        pd.testing.assert_frame_equal(got, ref)


@st.composite
def _scored_graphs(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, int, float]]]:
    n = draw(st.integers(2, 12))
    clusters = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    edges = draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda e: e[0] < e[1]),
            min_size=1,
            max_size=25,
            unique_by=lambda e: e,
        )
    )
    scores = draw(
        st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]), min_size=len(edges), max_size=len(edges))
    )
    return clusters, [(u, v, s) for (u, v), s in zip(edges, scores, strict=True)]


@given(_scored_graphs())
def test_property_incremental_equals_evaluate(
    case: tuple[list[int], list[tuple[int, int, float]]],
) -> None:
    clusters, scored = case
    n = len(clusters)
    truth = pd.DataFrame({"record_id": np.arange(n), "cluster_id": clusters})
    pairs = pd.DataFrame(scored, columns=["record_id_1", "record_id_2", "score"])
    curve = threshold_curve(truth, pairs)
    for row in curve.frame.to_dict("records"):
        edges = [(u, v) for u, v, s in scored if s >= row["threshold"]]
        pred = _pred(np.arange(n), _components(n, edges))
        for name, value in evaluate(truth, pred, metrics=list(INCREMENTAL_METRICS)).items():
            assert row[name] == pytest.approx(value, abs=1e-12, nan_ok=True), name


def test_rows_keep_integer_counts() -> None:
    truth = [["a", "b"], ["c"]]
    pairs = pd.DataFrame({"record_id_1": ["a", "b"], "record_id_2": ["b", "c"], "score": [2, 1]})
    row = threshold_curve(truth, pairs).best("links_f1")
    assert row["threshold"] == 2.0 and type(row["links_tp"]) is int and row["links_tp"] == 1


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([None, 5, [0.1, 0.45, 0.9, 2.0]]),
    st.sampled_from([None, ["pairwise", "ceafe"], []]),
    st.sampled_from([1.0, 2.0]),
    st.integers(1, 7),
)
def test_rows_made_a_block_at_a_time_are_the_frame(
    seed: int, thresholds: Any, metrics: Any, beta: float, size: int
) -> None:
    """A curve's rows are made when asked for: in blocks of any size, one column at a
    time (for :meth:`best`) or a range of rows, they are the rows of its whole frame."""
    from unittest import mock

    from ereval.curves import _result

    truth, pairs = _random_case(np.random.default_rng(seed))
    options: dict[str, Any] = {"thresholds": thresholds, "metrics": metrics, "beta": beta}
    lazy = threshold_curve(truth, pairs, **options)
    whole = threshold_curve(truth, pairs, **options).frame
    assert "frame" not in lazy.__dict__  # nothing made yet but the columns' names
    assert lazy.columns == [str(c) for c in whole.columns] and len(lazy) == len(whole)
    pd.testing.assert_frame_equal(pd.concat(list(lazy.chunks(size)), ignore_index=True), whole)
    start = len(whole) // 3
    pd.testing.assert_frame_equal(
        lazy.rows(start, start + size), whole.iloc[start : start + size].reset_index(drop=True)
    )
    made = threshold_curve(truth, pairs, **options)
    made.frame  # noqa: B018  (made whole: the rows read from it)
    with mock.patch.object(_result, "CHUNK_ROWS", size):
        for column in lazy.columns:  # one column at a time, in blocks: the frame's
            assert np.array_equal(lazy.column(column), made.column(column), equal_nan=True)
            if column != "threshold" and not np.isnan(made.column(column)).all():
                assert _same_row(lazy.best(column), made.best(column))
    assert "frame" not in lazy.__dict__
    pd.testing.assert_frame_equal(lazy.roc(), made.roc())
    pd.testing.assert_frame_equal(lazy.pr(), made.pr())


@pytest.mark.parametrize("seed", range(6))
def test_roc_areas_summed_in_blocks(seed: int) -> None:
    # the areas summed over blocks of points, as over all of them at once
    from unittest import mock

    from ereval.curves import _curve

    truth, pairs = _random_case(np.random.default_rng(900 + seed))
    whole = threshold_curve(truth, pairs).summary
    with mock.patch.object(_curve, "ROC_CHUNK", 2):
        blocks = threshold_curve(truth, pairs).summary
    for key in ("roc_auc", "average_precision"):
        assert blocks[key] == pytest.approx(whole[key], abs=1e-15) or (
            math.isnan(blocks[key]) and math.isnan(whole[key])
        )


def _same_row(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Rows of the same keys and values (NaN equal to NaN)."""
    return list(a) == list(b) and all(
        x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y))
        for x, y in zip(a.values(), b.values(), strict=True)
    )


def test_best_sees_the_thresholds_of_the_frame() -> None:
    """A threshold above every score (no link) is a row of the frame: ``best`` weighs
    it too. Here the adjusted Rand index is undefined at the one score (both
    clusterings one cluster) and 0 above it; ``best`` said it was undefined at every
    threshold."""
    truth = pd.DataFrame({"record_id": ["a", "b"], "cluster_id": [1, 1]})
    pairs = pd.DataFrame({"record_id_1": ["a"], "record_id_2": ["b"], "score": [0.5]})
    curve = threshold_curve(truth, pairs, thresholds=[0.5, 2.0])
    assert np.isnan(curve.column("adjusted_rand_index")[0])
    best = curve.best("adjusted_rand_index")
    assert best["threshold"] == 2.0 and best["adjusted_rand_index"] == 0.0
    assert best["n_accepted"] == 0
