"""The report computed by DuckDB and Spark: the same page as in memory, its exact
sections read where the files are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval.cli import app
from ereval.engines import DuckDBEngine, Engine

from ._example_data import EXAMPLES, TWO_PREDICTIONS
from ._pages import assert_same

pytest.importorskip("vl_convert")
runner = CliRunner()


def _page(args: list[str]) -> dict[str, Any]:
    res = runner.invoke(app, ["report", *args, "-f", "json", "-q"])
    assert res.exit_code == 0, res.stderr
    page: dict[str, Any] = json.loads(res.stdout)
    page.pop("created")
    return page


def test_the_report_computes_its_exact_sections_with_its_engine() -> None:
    """Metrics of two predictions, summaries, the worst clusters and the threshold
    curve of the example: the page on DuckDB (under a limit, in forced passes) is the
    page in memory."""
    args = [*TWO_PREDICTIONS, "--pairs", str(EXAMPLES / "pairs.csv")]
    want = _page([*args, "--engine", "numpy"])
    got = _page([*args, "--engine", "duckdb", "--memory-limit", "256MB"])
    assert_same(got, want)
    titles = " ".join(str(s.get("title")) for s in want["sections"])
    for title in ("Clusters with errors", "threshold"):
        assert title.lower() in titles.lower()


@pytest.mark.parametrize("worst", [True, False])
def test_without_a_sample_an_engine_never_reads_the_clusterings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, worst: bool
) -> None:
    """With no sample, DuckDB reads the truth, the predictions and the pairs itself
    (keys of two columns, other column names per side), the worst clusters and their
    records included: the memberships are never made, and the numbers are those
    computed in memory."""
    from ereval.report import _collect, build_report, collect_results

    rng = np.random.default_rng(7)
    n = 400
    truth = pd.DataFrame(
        {
            "db": rng.choice(["a", "b"], n),
            "rid": np.arange(n) // 2,
            "entity": rng.integers(0, 120, n),
        }
    ).drop_duplicates(["db", "rid"])
    pred = truth.rename(columns={"db": "d", "rid": "r", "entity": "c"})
    pred["c"] = np.where(rng.random(len(pred)) < 0.2, rng.integers(0, 150, len(pred)), pred["c"])
    pred = pred.sample(frac=1.0, random_state=1)
    ends = truth[["db", "rid"]].sample(600, replace=True, random_state=2).to_numpy()
    pairs = pd.DataFrame(
        {
            "db_1": ends[:300, 0],
            "rid_1": ends[:300, 1],
            "db_2": ends[300:, 0],
            "rid_2": ends[300:, 1],
            "score": rng.integers(0, 20, 300) / 4,
        }
    )
    same = (pairs["db_1"] == pairs["db_2"]) & (pairs["rid_1"] == pairs["rid_2"])
    pairs = pairs[~same].drop_duplicates(["db_1", "rid_1", "db_2", "rid_2"])
    swapped = pairs.rename(
        columns={"db_1": "db_2", "rid_1": "rid_2", "db_2": "db_1", "rid_2": "rid_1"}
    )
    key = ["db_1", "rid_1", "db_2", "rid_2"]
    twice = pairs.merge(swapped[key], on=key, how="inner")
    pairs = pairs[~pairs.set_index(key).index.isin(twice.set_index(key).index)]
    files = {}
    for name, frame in (("truth", truth), ("pred", pred), ("pairs", pairs)):
        files[name] = tmp_path / f"{name}.parquet"
        frame.to_parquet(files[name], index=False)
    options: dict[str, Any] = {
        "truth": files["truth"],
        "preds": {"p": files["pred"]},
        "pairs": files["pairs"],
        "pair_cols": (["db_1", "rid_1"], ["db_2", "rid_2"]),
        "columns": (["db", "rid"], "entity", ["d", "r"], "c"),
        "worst": worst,
    }
    want = build_report(collect_results(**options)).to_dict()

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the clusterings were read in memory")

    monkeypatch.setattr(_collect, "read_membership", refused)
    monkeypatch.setattr(_collect, "as_membership", refused)
    got = build_report(collect_results(**options, engine=DuckDBEngine(passes=3))).to_dict()
    for page in (want, got):
        page.pop("created")
    assert_same(got, want)
    metrics = got["sections"][0]["numbers"]["metrics"]["p"]
    assert metrics["n_records"] == len(truth) and 0 < metrics["pairwise_f1"] < 1
    sections = {s["key"]: s for s in got["sections"]}
    assert ("worst" in sections) == worst
    if worst:  # blocks of records, their ids the keys of two columns as in memory
        assert len(sections["worst"]["numbers"]["p"]["worst"]) == 5
        first = sections["worst"]["tables"][0]["rows"][0][0]
        assert first.startswith('["') and first.endswith("]")
    # the curve alone (no prediction: no worst clusters to show) is not read either
    curve_only = {k: v for k, v in options.items() if k not in ("preds", "worst")}
    parts = collect_results(**curve_only, engine=DuckDBEngine()).parts
    assert [type(p.result).__name__ for p in parts] == ["ThresholdCurve"]


def test_a_two_file_linkage_report_on_duckdb() -> None:
    """Link-only: the pairs across data sets (and the threshold curve's) are counted by
    DuckDB as in memory."""
    from ereval.report import build_report, collect_results

    rng = np.random.default_rng(3)
    n = 120
    truth = pd.DataFrame({"record_id": np.arange(n), "cluster_id": rng.integers(0, 40, n)}).assign(
        source=rng.choice(["A", "B"], n)
    )
    pred = truth[["record_id"]].assign(cluster_id=truth["cluster_id"] % 17)
    src = truth["source"].to_numpy()
    i, j = np.triu_indices(n, 1)
    keep = (src[i] != src[j]) & (rng.random(i.size) < 0.05)
    pairs = pd.DataFrame({"record_id_1": i[keep], "record_id_2": j[keep]})
    pairs["score"] = rng.integers(0, 12, len(pairs)) / 10
    tables = {}
    import pyarrow as pa

    for name, frame in (("truth", truth), ("pred", pred), ("pairs", pairs)):
        tables[name] = pa.Table.from_pandas(frame, preserve_index=False)
    options: dict[str, Any] = {"link_only": True, "source_col": "source", "worst": False}
    pages = []
    for engine in ("numpy", DuckDBEngine()):
        results = collect_results(
            truth=tables["truth"],
            preds={"p": tables["pred"]},
            pairs=tables["pairs"],
            engine=engine,
            **options,
        )
        page = build_report(results).to_dict()
        page.pop("created")
        pages.append(page)
    assert_same(pages[1], pages[0])
    assert any("Two-file linkage" in line for line in pages[1]["sections"][0]["reading"])


@pytest.mark.each_engine("spark")
def test_the_report_on_spark(engine_object: Engine) -> None:
    """The metrics, the summaries, the worst clusters and the curve of the example
    computed by Spark."""
    from ereval.report import build_report, collect_results

    options: dict[str, Any] = {
        "truth": str(EXAMPLES / "truth.csv"),
        "preds": {"good": str(EXAMPLES / "pred_good.csv")},
        "pairs": str(EXAMPLES / "pairs.csv"),
    }
    pages = []
    for engine in ("numpy", engine_object):
        page = build_report(collect_results(**options, engine=engine)).to_dict()
        page.pop("created")
        pages.append(page)
    assert_same(pages[1], pages[0])


def _different_records(folder: Path) -> tuple[Path, Path]:
    """A truth and a prediction each missing its own records: 60 clusters of 400
    records, a tenth of the prediction's records moved, 25 true records absent from
    the prediction and 30 predicted records absent from the truth."""
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 60, 400)
    pred = np.where(rng.random(400) < 0.1, rng.integers(0, 60, 400), truth)
    order = rng.permutation(400)
    t_keep, p_keep = np.sort(order[30:]), np.sort(np.concatenate([order[:30], order[55:]]))
    paths = (folder / "truth.csv", folder / "pred.csv")
    for path, clusters, keep in zip(paths, (truth, pred), (t_keep, p_keep), strict=True):
        pd.DataFrame({"record_id": keep, "cluster_id": clusters[keep]}).to_csv(path, index=False)
    return paths


def test_files_of_different_records_with_on_mismatch(tmp_path: Path) -> None:
    """`--on-mismatch` reaches every exact section: the metrics are those of `ereval
    metrics` with the same policy, on every engine; under twinless a prediction that
    lacks true records has its worst clusters ranked over the records of both sides,
    as under intersection, and the page says so. Without it, one line naming the flag."""
    from ereval.metrics import evaluate
    from ereval.report._worst import worst_ranking

    t, p = _different_records(tmp_path)
    base = ["--truth", str(t), "--pred", f"p={p}"]
    refused = runner.invoke(app, ["report", *base, "-f", "json", "-q"])
    assert refused.exit_code == 2
    assert "cover different records" in refused.output
    assert "--on-mismatch twinless" in refused.output and "on_mismatch=" not in refused.output
    for policy in ("twinless", "intersection"):
        want = _page([*base, "--on-mismatch", policy, "--engine", "numpy"])
        got = _page(
            [*base, "--on-mismatch", policy, "--engine", "duckdb", "--memory-limit", "256MB"]
        )
        assert_same(got, want)
        metrics = want["sections"][0]["numbers"]["metrics"]["p"]
        scores = evaluate(str(t), str(p), on_mismatch=policy)
        assert metrics == pytest.approx(scores, rel=1e-12)
        assert want["inputs"]["records of one side only"]
        worst = next(s for s in want["sections"] if s["key"] == "worst")
        ranking = worst_ranking(
            "numpy", _membership(t), _membership(p), rank=100, on_mismatch="intersection"
        )
        assert worst["numbers"]["p"]["clusters_with_error"] == ranking.with_error
        assert worst["numbers"]["p"]["true_clusters"] == ranking.n_clusters
        notes = worst["warnings"]
        if policy == "twinless":
            assert scores["n_twinless_true"] == 25
            assert notes == [
                "p lacks 25 true record(s): its worst clusters are ranked over the records "
                "of both sides only"
            ]
        else:
            assert notes == []


def _membership(path: Path) -> Any:
    from ereval.io import read_membership

    return read_membership(path, name="x")[0]


def test_worst_clusters_beyond_the_memory_limit_name_the_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When DuckDB runs out of memory gathering the records around the worst clusters,
    the report stops with one line naming `--worst` and what to do."""
    import duckdb

    from ereval.metrics import _worst_sql

    def out_of_memory(db: Any) -> Any:
        raise duckdb.OutOfMemoryException("failed to allocate data of size 64.0 MiB")

    monkeypatch.setattr(_worst_sql, "_blocks", out_of_memory)
    args = ["report", *TWO_PREDICTIONS, "--engine", "duckdb", "--memory-limit", "256MB"]
    res = runner.invoke(app, [*args, "-f", "json", "-q"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: '--worst': the records around the worst clusters")
    assert "leave the worst clusters out, or raise the limit" in lines[0]
    assert runner.invoke(app, [*args, "--no-worst", "-f", "json", "-q"]).exit_code == 0
