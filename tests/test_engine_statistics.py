"""Every engine computes the same sufficient statistics, hence the same metrics, over a
registry of clusterings with the edge cases (no common record, all singletons, one giant
cluster, ties in CEAF's alignment, twinless records under every policy, text and integer
ids): integer statistics exactly equal, floats equal to 1e-12."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ereval import InputError, InputTypeError
from ereval.contingency import ContingencyTable
from ereval.engines import DuckDBEngine, NumpyEngine, get_engine
from ereval.engines import _dialect as sql
from ereval.metrics import CANONICAL_METRICS, EXTRA_METRICS, evaluate
from ereval.statistics import (
    FLOAT_STATISTICS,
    INTEGER_STATISTICS,
    TableStatistics,
    compute_statistics,
    compute_table,
    statistics_of,
    table_statistics,
)

from ._engines import loaded_pair

POLICIES = ["error", "intersection", "twinless"]
Frames = tuple[pd.DataFrame, pd.DataFrame]


def _frames(records_t: Any, clusters_t: Any, records_p: Any, clusters_p: Any) -> Frames:
    return (
        pd.DataFrame({"record_id": records_t, "cluster_id": clusters_t}),
        pd.DataFrame({"record_id": records_p, "cluster_id": clusters_p}),
    )


def _noisy(n: int, k: int, moved: float, seed: int) -> Frames:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, size=n)
    pred = truth.copy()
    move = rng.random(n) < moved
    pred[move] = rng.integers(0, k + k // 5, size=int(move.sum()))
    ids = rng.permutation(n) * 3 + 1
    order = rng.permutation(n)
    return _frames(ids, truth, ids[order], [f"k{v}" for v in pred[order]])


def _singletons() -> Frames:
    ids = np.arange(40)
    return _frames(ids, ids, ids[::-1], ids[::-1] + 100)


def _giant() -> Frames:
    ids = np.arange(60)
    return _frames(ids, np.zeros(60, dtype=np.int64), ids, ids)


def _giant_both() -> Frames:
    ids = np.arange(25)
    return _frames(ids, np.ones(25, dtype=np.int64), ids, np.full(25, 7))


def _ties() -> Frames:
    # two true clusters crossing two predicted ones: no cell dominates, an assignment decides
    return _frames([1, 2, 3, 4, 5, 6], [1, 1, 2, 2, 3, 3], [1, 2, 3, 4, 5, 6], [1, 2, 1, 2, 3, 4])


def _exact() -> Frames:
    ids = np.arange(30)
    return _frames(ids, ids // 3, ids[::-1], (ids // 3)[::-1])


CASES: dict[str, Callable[[], Frames]] = {
    "noisy": lambda: _noisy(1200, 160, 0.3, 3),
    "noisy_large_clusters": lambda: _noisy(2000, 12, 0.4, 4),
    "all_singletons": _singletons,
    "one_giant_cluster": _giant,
    "giant_against_giant": _giant_both,
    "ceaf_ties": _ties,
    "exact_match": _exact,
}


def _twinless(frames: Frames, policy: str) -> Frames:
    """With a mismatch policy, each side loses some records (the other keeps them)."""
    t, p = frames
    if policy == "error" or len(t) < 6:
        return t, p
    cut_t, cut_p = max(1, len(t) // 20), max(1, len(p) // 15)
    return t.iloc[: len(t) - cut_t].reset_index(drop=True), p.iloc[cut_p:].reset_index(drop=True)


def _write(frames: Frames, tmp: Path, ids: str, kind: str) -> tuple[Path, Path]:
    paths = []
    for name, frame in zip(("t", "p"), frames, strict=True):
        frame = frame.copy()
        if ids == "text":
            frame["record_id"] = [f"r{v}" for v in frame["record_id"]]
        path = tmp / f"{name}.{kind}"
        if kind == "parquet":
            frame.to_parquet(path, index=False)
        else:
            frame.to_csv(path, index=False)
        paths.append(path)
    return paths[0], paths[1]


def assert_same_statistics(got: Any, expected: Any) -> None:
    """Integer statistics exactly equal, floats to 1e-12."""
    for name in INTEGER_STATISTICS:
        value = getattr(got, name)
        assert isinstance(value, int) and value == getattr(expected, name), name
    for name in FLOAT_STATISTICS:
        a, b = getattr(got, name), getattr(expected, name)
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (name, a, b)


def assert_same_metrics(got: dict[str, float], expected: dict[str, float]) -> None:
    assert got.keys() == expected.keys()
    for name, b in expected.items():
        a = got[name]
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(
            a, b, rel_tol=1e-12, abs_tol=1e-12
        ), (name, a, b)


@pytest.mark.each_engine
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", list(CASES))
def test_every_engine_gives_the_same_statistics_and_metrics(
    tmp_path: Path, engine: str, policy: str, case: str
) -> None:
    for ids, kind in (("text", "csv"), ("integer", "parquet")):
        t, p = _write(_twinless(CASES[case](), policy), tmp_path, ids, kind)
        opts: dict[str, Any] = {"on_mismatch": policy}
        reference = compute_table(NumpyEngine(), t, p, **opts)
        stats = compute_statistics(get_engine(engine), t, p, **opts)
        assert_same_statistics(stats, table_statistics(reference))
        names = list(CANONICAL_METRICS) + list(EXTRA_METRICS)
        expected = evaluate(reference, metrics=names)
        assert_same_metrics(evaluate(t, p, engine=engine, metrics=names, **opts), expected)
        default = evaluate(t, p, engine=engine, **opts)  # the twinless variants when twinless
        assert_same_metrics(default, evaluate(reference))


def test_statistics_of_a_table_without_common_records() -> None:
    """The empty table (twinless records only): every statistic defined, no cell."""
    tab = ContingencyTable(
        np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
        np.array([2, 1]), np.array([3]), "twinless",
    )  # fmt: skip
    s = table_statistics(tab)
    assert (s.n_cells, s.n_common, s.n_records, s.pairs_both, s.pairs_true) == (0, 0, 6, 0, 1)
    assert s.ceafm_total == s.ceafe_total == s.b3_recall_sum == 0.0
    scores = evaluate(tab, metrics="canonical")
    assert scores["muc_f1"] == 0.0 and scores["pairwise_recall"] == 0.0


def test_duckdb_without_common_records(tmp_path: Path) -> None:
    t, p = _write(_frames([1, 2, 3], [1, 1, 2], [4, 5, 6], [1, 1, 1]), tmp_path, "int", "parquet")
    got = compute_statistics(DuckDBEngine(), t, p, on_mismatch="twinless")
    assert_same_statistics(
        got, table_statistics(compute_table(NumpyEngine(), t, p, on_mismatch="twinless"))
    )
    assert got.n_cells == 0 and got.n_records == 6


def test_cells_come_back_only_when_asked(tmp_path: Path) -> None:
    t, p = _write(_twinless(_noisy(300, 40, 0.2, 1), "twinless"), tmp_path, "int", "parquet")
    engine = DuckDBEngine()
    bare = compute_statistics(engine, t, p, on_mismatch="twinless")
    assert isinstance(bare, TableStatistics) and bare.table is None
    with_cells = compute_statistics(engine, t, p, on_mismatch="twinless", cells="twinless")
    assert with_cells.table is not None
    reference = compute_table(NumpyEngine(), t, p, on_mismatch="twinless")
    np.testing.assert_array_equal(with_cells.table.counts, reference.counts)
    # metrics that need the cells are refused, with the reason, when they are absent
    with pytest.raises(InputError, match=r"^'metrics': ace need the cells"):
        evaluate(bare, metrics="ace")
    # the twinless variants are statistics: the same from the cells as without them (to
    # 1e-12: the statistics alone group the records of one side only each on its own,
    # so their sums add the cells in another order)
    for family in ("ceafm", "ceaf_sys", "b3_twinless", "ceaf_rn", "cone_b3"):
        got = evaluate(bare, metrics=family)
        assert got == pytest.approx(evaluate(with_cells, metrics=family), rel=1e-12)
        assert got == pytest.approx(evaluate(reference, metrics=family), rel=1e-12)
    with pytest.raises(InputError, match=r"^'cells' must be one of"):
        compute_statistics(engine, t, p, cells="sometimes")  # type: ignore[arg-type]


def test_statistics_are_shared_with_the_table() -> None:
    tab = ContingencyTable.from_codes(
        np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]), n_true_codes=2, n_pred_codes=2
    )
    assert statistics_of(tab) is statistics_of(tab)
    s = table_statistics(tab, keep_table=False)
    assert s.table is None and statistics_of(s) is s
    assert s.as_dict()["pairs_both"] == 1


def test_an_engine_of_one_s_own_runs_the_jobs() -> None:
    class InMemory:
        name = "mine"
        writes_files = False

        def run(self, job: Any) -> Any:
            return job.in_memory(self)

    stats = compute_statistics(InMemory(), [[1, 2], [3]], [[1], [2, 3]])
    assert stats.table is not None and stats.pairs_both == 0 and stats.n_cells == 3


def test_statistics_sql_is_standard_but_for_the_dialect() -> None:
    for dialect in (sql.DUCKDB, sql.SPARK):
        text = sql.sizes_sql("cells", "t", common_only=False, dialect=dialect)
        text += sql.cluster_stats_sql("x", "t") + sql.marginal_stats_sql("ts", 10, dialect)
        assert dialect.wide in text and "OVER" not in text and "ORDER BY" not in text
    assert "3 * h.n > h.rs3 + CASE" in sql.hard_cells_sql("h", "c", 1e-12)  # exact integers


def test_duckdb_reports_its_phases_and_reads_a_csv_file_once(tmp_path: Path) -> None:
    t, p = _write(_noisy(200, 30, 0.2, 2), tmp_path, "text", "csv")
    phases: list[str] = []
    compute_statistics(DuckDBEngine(), t, p, progress=phases.append)
    assert phases == [
        "reading the clusterings (duckdb)",
        "joining the records (duckdb)",
        "computing the statistics (duckdb)",
    ]
    query = (
        "SELECT table_name, table_type FROM information_schema.tables "
        "WHERE table_name IN ('t', 'p')"
    )
    kinds = loaded_pair(
        DuckDBEngine(), t, p, {}, lambda con, *_: dict(con.execute(query).fetchall())
    )
    assert kinds == {"t": "LOCAL TEMPORARY", "p": "LOCAL TEMPORARY"}  # tables, not views


def test_arrow_tables_are_read_by_the_sql_engines_as_typed() -> None:
    # text ids that only differ in spelling stay distinct; cluster ids of another kind
    # on each side are fine
    pa = pytest.importorskip("pyarrow")
    t = pa.table({"record_id": ["01", "1", " x", "NA", "b"], "cluster_id": [1, 1, 2, 2, 3]})
    p = pa.table({"record_id": ["1", "01", "NA", " x", "b"], "cluster_id": list("abbcc")})
    expected = compute_statistics(NumpyEngine(), t, p)
    assert_same_statistics(compute_statistics(DuckDBEngine(), t, p), expected)
    got, want = compute_table(DuckDBEngine(), t, p), compute_table(NumpyEngine(), t, p)
    for name in ("rows", "cols", "counts", "true_sizes", "pred_sizes"):
        assert getattr(got, name).tolist() == getattr(want, name).tolist(), name
    other = pa.table({"record_id": [1, 2, 3, 4, 5], "cluster_id": [1, 1, 2, 2, 3]})
    with pytest.raises(InputTypeError, match=r"^record ids of 'truth' are integer"):
        compute_statistics(DuckDBEngine(), other, p)


def test_cells_that_do_not_fit_the_limit_are_refused_before_they_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The metrics that read the cells hold the table in memory: under a memory limit
    that cannot hold it, the engine says so before fetching them, and the metrics
    computed from the statistics alone are still given."""
    from ereval.statistics import _compute

    t, p = _write(_twinless(_noisy(300, 40, 0.2, 1), "twinless"), tmp_path, "int", "parquet")
    engine = DuckDBEngine(memory_limit="256MB")
    budget = engine.buffer_limit
    assert budget is not None
    seen: list[str] = []
    n_cells = compute_statistics(engine, t, p, on_mismatch="twinless").n_cells
    # the cells fit as they are; at a byte less of the limit a cell they do not
    monkeypatch.setattr(_compute, "TABLE_CELL_BYTES", budget // n_cells)
    got = compute_statistics(engine, t, p, on_mismatch="twinless", cells="always")
    assert got.table is not None and got.table.n_cells == n_cells
    monkeypatch.setattr(_compute, "TABLE_CELL_BYTES", budget // n_cells + 1)
    with pytest.raises(InputError, match=rf"^'metrics': .* hold its {n_cells:,} cells in memory"):
        compute_statistics(
            engine, t, p, on_mismatch="twinless", cells="always", progress=seen.append
        )
    assert "fetching the cells (duckdb)" not in seen and "computing the statistics (duckdb)" in seen
    with pytest.raises(InputError, match=r"more than the \d+ MB the memory limit leaves"):
        evaluate(t, p, metrics="ace", engine=engine, on_mismatch="twinless")
    # without a limit nothing is refused; the statistics alone need no cells
    assert evaluate(t, p, metrics="ace", engine=DuckDBEngine(), on_mismatch="twinless")
    names = "ceaf_sys,b3_twinless,ceaf_phi1,ceaf_rn,cone_b3"
    got_scores = evaluate(t, p, metrics=names, engine=engine, on_mismatch="twinless")
    want = evaluate(t, p, metrics=names, engine="numpy", on_mismatch="twinless")
    assert got_scores == pytest.approx(want, rel=1e-12)
