"""Every engine compares and monitors releases with the same numbers as NumPy.

The releases are built from the clusterings of the engine registry
(``tests/test_engine_statistics.py``: noisy, all singletons, one giant cluster, CEAF
ties, exact match), with record ids of several kinds: text ids chosen to trip a
careless reader (``01``, ``1`` and ``001`` are three ids, ``NA`` is an id), integers,
and a key of two columns (a data set and an id within it, as in a two-file
linkage, where the same id occurs in both data sets). Integers must be equal,
floats equal to 1e-12; DuckDB is also run in forced passes (the plan of a memory
limit) and must give the same numbers bit for bit.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ereval import InputError, InputTypeError, RecordMismatchError
from ereval._compare import Comparison, compare
from ereval._monitor import monitor
from ereval.cli import app
from ereval.engines import DuckDBEngine, Engine

from ._engine_cases import text_id
from ._pages import assert_same
from .test_engine_statistics import CASES, Frames, _twinless

runner = CliRunner()
ID_KINDS = ("text", "integer", "two_columns")
#: The cases run on every engine (the slow-starting Spark runs one of them).
RELEASE_CASES = ["noisy", "all_singletons", "one_giant_cluster", "ceaf_ties", "exact_match"]


def _with_ids(frame: pd.DataFrame, ids: str) -> pd.DataFrame:
    """A clustering with record ids of the given kind."""
    labels = np.asarray(frame["record_id"], dtype=np.int64)
    clusters = [f"c{c}" for c in frame["cluster_id"]]
    if ids == "integer":
        return pd.DataFrame({"record_id": labels, "cluster_id": clusters})
    if ids == "text":
        return pd.DataFrame(
            {"record_id": [text_id(int(r)) for r in labels], "cluster_id": clusters}
        )
    return pd.DataFrame(
        {
            "source": ["ab"[int(r) % 2] for r in labels],
            "local_id": [f"0{int(r) // 2}" for r in labels],
            "cluster_id": clusters,
        }
    )


def _record_col(ids: str) -> Any:
    return ["source", "local_id"] if ids == "two_columns" else "record_id"


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def _suffix(ids: str) -> str:
    return ".parquet" if ids == "integer" else ".csv"


def _releases(case: str) -> Frames:
    """The old and new releases of a case: the truth and the prediction, each with
    records the other lacks."""
    return _twinless(CASES[case](), "twinless")


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame of records or clusters with every value as text ('' where missing)."""
    out = frame.astype(object).where(frame.notna(), "")
    return out.map(lambda v: "" if v is None else str(v))


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`_as_text` of ``frame``, rows in the order of their first column."""
    out = _as_text(frame)
    return out.sort_values(list(out.columns)).reset_index(drop=True)


def assert_same_comparison(got: Comparison, expected: Comparison) -> None:
    """Integers exactly equal, floats to 1e-12, the same clusters and records."""
    a, b = got.to_dict(), expected.to_dict()
    agree_a, agree_b = a.pop("agreement"), b.pop("agreement")
    assert a == b
    assert agree_a.keys() == agree_b.keys()
    for name, x in agree_b.items():
        y = agree_a[name]
        assert (x is None and y is None) or math.isclose(y, x, rel_tol=1e-12, abs_tol=1e-12), name
    pd.testing.assert_frame_equal(_plain(got.clusters()), _plain(expected.clusters()))
    for changed in (False, True):  # the records in the order of their ids on every engine
        pd.testing.assert_frame_equal(
            _as_text(got.records(changed_only=changed)),
            _as_text(expected.records(changed_only=changed)),
        )


@pytest.mark.each_engine
@pytest.mark.parametrize("ids", ID_KINDS)
@pytest.mark.parametrize("case", RELEASE_CASES)
def test_compare_is_the_same_on_every_engine(
    tmp_path: Path, engine_object: Engine, case: str, ids: str
) -> None:
    old, new = (_with_ids(f, ids) for f in _releases(case))
    paths = [_write(f, tmp_path / f"{n}{_suffix(ids)}") for n, f in (("old", old), ("new", new))]
    opts = {"record_col": _record_col(ids), "metrics": "canonical"}
    expected = compare(*paths, engine="numpy", **opts)
    assert_same_comparison(compare(*paths, engine=engine_object, **opts), expected)
    if engine_object.name == "duckdb":
        # the join and the merge in three passes each, as a memory limit plans them
        assert_same_comparison(compare(*paths, engine=DuckDBEngine(passes=3), **opts), expected)


def _series(case: str, ids: str) -> list[pd.DataFrame]:
    """Four releases of a case: the truth, the prediction, the truth's later records
    with the prediction's clusters, and the prediction reversed with a new record."""
    truth, pred = (_with_ids(f, ids) for f in _releases(case))
    third = pred.iloc[len(pred) // 10 :].iloc[::-1]
    extra = _with_ids(pd.DataFrame({"record_id": [10**6], "cluster_id": ["new"]}), ids)
    return [truth, pred, truth.iloc[len(truth) // 8 :], pd.concat([third, extra])]


def assert_same_monitoring(got: Any, expected: Any) -> None:
    for name in ("statistics", "common"):
        a, b = getattr(got, name), getattr(expected, name)
        assert list(a.index) == list(b.index) and list(a.columns) == list(b.columns)
        for col in ("n_records", "n_clusters"):
            assert a[col].tolist() == b[col].tolist(), (name, col)
        np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12, atol=1e-12)
    assert got.n_common == expected.n_common
    pd.testing.assert_frame_equal(got.flags, expected.flags)


@pytest.mark.each_engine
@pytest.mark.parametrize("ids", ID_KINDS)
@pytest.mark.parametrize("case", RELEASE_CASES)
def test_monitor_is_the_same_on_every_engine(
    tmp_path: Path, engine_object: Engine, case: str, ids: str
) -> None:
    paths = {
        f"r{k}": _write(f, tmp_path / f"r{k}{_suffix(ids)}")
        for k, f in enumerate(_series(case, ids))
    }
    opts = {"record_col": _record_col(ids)}
    expected = monitor(paths, engine="numpy", **opts)
    assert_same_monitoring(monitor(paths, engine=engine_object, **opts), expected)
    if engine_object.name == "duckdb":
        assert_same_monitoring(monitor(paths, engine=DuckDBEngine(passes=4), **opts), expected)


def test_duckdb_writes_the_records_itself(tmp_path: Path) -> None:
    old, new = (_with_ids(f, "text") for f in _releases("noisy"))
    paths = [_write(f, tmp_path / f"{n}.csv") for n, f in (("old", old), ("new", new))]
    memory, duck = compare(*paths, engine="numpy"), compare(*paths, engine="duckdb")
    for changed in (False, True):
        for name in ("r.csv", "r.csv.gz", "r.parquet"):
            target = tmp_path / name
            rows = memory.write_records(tmp_path / f"m{name}", changed_only=changed)
            assert duck.write_records(target, changed_only=changed) == rows
            read = pd.read_parquet if name.endswith("parquet") else pd.read_csv
            opts = {} if name.endswith("parquet") else {"dtype": str, "keep_default_na": False}
            got, want = read(target, **opts), read(tmp_path / f"m{name}", **opts)
            assert len(got) == rows
            pd.testing.assert_frame_equal(got, want)  # the same rows in the same order
            if name == "r.csv":
                assert target.read_bytes() == (tmp_path / f"m{name}").read_bytes()
    with pytest.raises(InputError, match=r"^'path' must end in \.csv, \.csv\.gz or \.parquet"):
        duck.write_records(tmp_path / "r.json")


def test_sql_releases_are_checked_as_in_memory(tmp_path: Path) -> None:
    good = _write(
        pd.DataFrame({"record_id": ["01", "1"], "cluster_id": ["a", "a"]}), tmp_path / "g.csv"
    )
    twice = _write(
        pd.DataFrame({"record_id": ["01", "01"], "cluster_id": ["a", "b"]}), tmp_path / "d.csv"
    )
    other = _write(pd.DataFrame({"record_id": ["001"], "cluster_id": ["a"]}), tmp_path / "o.csv")
    ints = _write(
        pd.DataFrame({"record_id": [1, 2], "cluster_id": ["a", "a"]}), tmp_path / "i.parquet"
    )
    for engine in ("numpy", "duckdb"):
        with pytest.raises(
            RecordMismatchError, match=r"^'old' and 'new' have no record in common$"
        ):
            compare(good, other, engine=engine)
        with pytest.raises(InputError, match=r"'new' has 1 duplicate record ids"):
            compare(good, twice, engine=engine)
        with pytest.raises(InputTypeError, match=r"'old'.*'new'"):
            compare(good, ints, engine=engine)
        with pytest.raises(RecordMismatchError, match=r"^'releases' have no record in common$"):
            monitor({"a": good, "b": other}, engine=engine)
        with pytest.raises(InputError, match="duplicate record ids"):
            monitor({"a": good, "b": twice}, engine=engine)
        # the same words on every engine: the first release of another kind than the
        # first release's (DuckDB named neither release)
        with pytest.raises(InputTypeError) as info:
            monitor({"a": good, "b": good, "c": ints}, engine=engine)
        assert str(info.value) == (
            "record ids of release 'c' are integer but those of release 'a' are text; give "
            "every release the same id type"
        )
    with pytest.raises(InputError, match=r"^'names': names, samples, subsets and dates are"):
        monitor({"a": good, "b": good}, names={"01": "x", "1": "y"}, engine="duckdb")


def test_the_cli_runs_compare_and_monitor_on_duckdb(tmp_path: Path) -> None:
    old, new = (_with_ids(f, "text") for f in _releases("noisy"))
    o, n = (_write(f, tmp_path / f"{k}.csv") for k, f in (("old", old), ("new", new)))
    outs = {}
    for engine in ("numpy", "duckdb"):
        extra = ["--memory-limit", "1GB"] if engine == "duckdb" else []
        target = tmp_path / f"{engine}.csv"
        args = ["compare", str(o), str(n), "--engine", engine, *extra, "-f", "json"]
        res = runner.invoke(app, [*args, "-o", str(target), "--changed-only"])
        assert res.exit_code == 0, res.stderr
        res_m = runner.invoke(app, ["monitor", str(o), str(n), "--engine", engine, "-f", "csv"])
        assert res_m.exit_code == 0, res_m.stderr
        frame = pd.read_csv(target, dtype=str, keep_default_na=False)
        outs[engine] = (res.stdout, res_m.stdout, _plain(frame))
    # counts exactly, the agreement's floats to 1e-12 (summed in another order)
    a, b = (json.loads(outs[e][0]) for e in ("numpy", "duckdb"))
    agree_a, agree_b = a.pop("agreement"), b.pop("agreement")
    assert a == b and agree_a.keys() == agree_b.keys()
    assert all(math.isclose(agree_a[k], agree_b[k], rel_tol=1e-12) for k in agree_a)
    assert outs["numpy"][1] == outs["duckdb"][1]
    pd.testing.assert_frame_equal(outs["numpy"][2], outs["duckdb"][2])
    res = runner.invoke(app, ["monitor", str(o), str(n), "--engine", "duckdb", "--subset", "old"])
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        "error: '--engine' duckdb is not available with '--subset' (monitored in memory); "
        "use numpy or auto"
    )
    res = runner.invoke(app, ["compare", str(o), str(n), "--threads", "1", "--engine", "numpy"])
    assert res.exit_code == 2 and "'--threads' applies to the DuckDB engine" in res.stderr


@pytest.mark.each_engine("spark")
def test_spark_compares_and_monitors_releases(tmp_path: Path, engine_object: Engine) -> None:
    old, new = (_with_ids(f, "text") for f in _releases("ceaf_ties"))
    paths = [_write(f, tmp_path / f"{n}.parquet") for n, f in (("old", old), ("new", new))]
    assert_same_comparison(compare(*paths, engine=engine_object), compare(*paths, engine="numpy"))
    releases = {"a": paths[0], "b": paths[1], "c": paths[0]}
    assert_same_monitoring(
        monitor(releases, engine=engine_object), monitor(releases, engine="numpy")
    )


def test_the_report_monitors_and_compares_releases_with_its_engine(tmp_path: Path) -> None:
    for k, frame in enumerate(_series("noisy", "text")[:3]):
        _write(frame, tmp_path / f"release-2024-0{k + 1}-01.csv")
    pages = {}
    for engine in ("numpy", "duckdb"):
        args = ["report", "--releases", str(tmp_path), "--engine", engine, "-f", "json", "-q"]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.stderr
        page = json.loads(res.stdout)
        page.pop("created")
        pages[engine] = page
    # DuckDB sums in the order its threads finish: floats to 1e-12, all else exactly
    assert_same(pages["duckdb"], pages["numpy"])
    assert "changed cluster" in json.dumps(pages["duckdb"])
    from ereval.report import collect_results

    parts = collect_results(releases=tmp_path, engine=DuckDBEngine(passes=2)).parts
    compared = [p.result.comparison for p in parts if hasattr(p.result, "comparison")]
    assert len(compared) == 1 and compared[0].alignment is None  # joined by DuckDB


def test_a_comparison_under_a_memory_limit_brings_back_a_few_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a memory limit, in forced passes, DuckDB compares the releases where they
    are and brings back no table: the counts of the NumPy engine, the agreement to
    1e-12, the clusters and records read again. Metrics that need the cells are
    refused in one line naming them when the cells do not fit the limit."""
    from ereval.statistics import _compute, _stream

    rng = np.random.default_rng(5)
    n = 3000
    old = pd.DataFrame({"record_id": np.arange(n), "cluster_id": rng.integers(0, 400, n)})
    moved = rng.random(n) < 0.2
    new = old.assign(cluster_id=np.where(moved, rng.integers(0, 900, n), old["cluster_id"]))
    new = pd.concat(
        [new.iloc[100:], pd.DataFrame({"record_id": [n, n + 1], "cluster_id": [-1] * 2})]
    )
    paths = (tmp_path / "old.parquet", tmp_path / "new.parquet")
    old.to_parquet(paths[0])
    new.sample(frac=1.0, random_state=1).to_parquet(paths[1])
    engine = DuckDBEngine(memory_limit="256MB", passes=3)
    for metrics in ("canonical", "ceafm,ace"):
        want = compare(old, new, metrics=metrics)
        got = compare(str(paths[0]), str(paths[1]), engine=engine, metrics=metrics)
        assert got.table is None and got.alignment is None
        assert_same_comparison(got, want)
    # the agreement's statistics in sweeps over the cells, then by aggregates alone
    want = compare(old, new, metrics="canonical")
    sweeps = []
    swept_statistics = _stream.swept_statistics
    monkeypatch.setattr(_stream, "CELL_BYTES", 10**9)
    monkeypatch.setattr(
        _stream, "swept_statistics", lambda *a, **k: sweeps.append(1) or swept_statistics(*a, **k)
    )
    assert_same_comparison(compare(*map(str, paths), engine=engine, metrics="canonical"), want)
    assert sweeps == [1]
    monkeypatch.setattr(_stream, "swept_fits", lambda *args, **kwargs: False)
    assert_same_comparison(compare(*map(str, paths), engine=engine, metrics="canonical"), want)
    assert sweeps == [1]
    monkeypatch.setattr(_compute, "TABLE_CELL_BYTES", 10**12)
    with pytest.raises(InputError, match=r"^'metrics': those that read the cells"):
        compare(str(paths[0]), str(paths[1]), engine=engine, metrics="ace")
    assert compare(str(paths[0]), str(paths[1]), engine=engine).counts == want.counts


def _moved_by_hand(old: dict[Any, Any], new: dict[Any, Any]) -> set[Any]:
    """The records that moved, record by record: of an old cluster not kept, a record
    moved unless its pair of clusters is both its old cluster's largest part and its
    new cluster's (most records, then the smallest id as text), or both ids are the
    same text; a record of one release only moved."""
    from collections import Counter

    common = old.keys() & new.keys()
    pairs = Counter((str(old[r]), str(new[r])) for r in common)
    by_new: dict[str, set[str]] = {}
    for o, w in pairs:
        by_new.setdefault(w, set()).add(o)
    kept = set()
    for o in {str(c) for c in old.values()}:
        parts = [w for (p, w) in pairs if p == o]
        if len(parts) == 1 and by_new[parts[0]] == {o}:
            kept.add(o)
    main_new = {
        o: min((w for (p, w) in pairs if p == o), key=lambda w: (-pairs[o, w], w)) for o, _ in pairs
    }
    main_old = {
        w: min((p for (p, q) in pairs if q == w), key=lambda o: (-pairs[o, w], o)) for _, w in pairs
    }
    moved = {r for r in old.keys() ^ new.keys()}
    for r in common:
        o, w = str(old[r]), str(new[r])
        if o in kept:
            continue
        if not ((main_new[o] == w and main_old[w] == o) or o == w):
            moved.add(r)
    return moved


@pytest.mark.filterwarnings("ignore::ereval.io._align.IdenticalColumnsWarning")
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 120), text=st.booleans())
def test_the_records_that_moved_are_found_alike_in_memory_and_where_they_are(
    seed: int, n: int, text: bool
) -> None:
    """The records that changed cluster between two releases: the same count and the
    same first records in memory and on DuckDB (in passes), and as a count by hand."""
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, max(n // 3, 1), n)
    new_cluster = np.where(rng.random(n) < 0.3, rng.integers(0, max(n // 2, 1), n), cluster)
    ids = rng.permutation(n) * 3 + 1
    label = (lambda c: f"c{c}") if text else (lambda c: int(c))
    old = pd.DataFrame({"record_id": ids, "cluster_id": [label(c) for c in cluster]})
    new = pd.DataFrame({"record_id": ids, "cluster_id": [label(c) for c in new_cluster]})
    old, new = old.iloc[: n - n // 10], new.iloc[n // 12 :].sample(frac=1.0, random_state=seed)
    want = _moved_by_hand(
        dict(zip(old["record_id"], old["cluster_id"], strict=True)),
        dict(zip(new["record_id"], new["cluster_id"], strict=True)),
    )
    found = {}
    import pyarrow as pa

    tables = [pa.Table.from_pandas(f, preserve_index=False) for f in (old, new)]
    for engine in ("numpy", DuckDBEngine(passes=2)):
        try:
            c = compare(*tables, engine=engine, metrics=None)
        except RecordMismatchError:
            return
        count, first = c.moved(first=7)
        assert count == len(want)
        assert first["record_id"].tolist() == sorted(want)[:7]
        found[str(engine)] = _plain(first)
    a, b = found.values()
    pd.testing.assert_frame_equal(a, b)


def test_the_number_of_moved_records_shown_is_checked() -> None:
    old = pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": ["a", "a", "b"]})
    new = pd.DataFrame({"record_id": [1, 2, 3], "cluster_id": ["a", "b", "b"]})
    c = compare(old, new)
    assert c.moved(first=0)[0] == 1 and c.moved(first=0)[1].empty
    with pytest.raises(InputError, match=r"^'first' must be an integer >= 0; received -1$"):
        c.moved(first=-1)
    with pytest.raises(InputTypeError, match=r"^'first' must be an integer"):
        c.moved(first=2.0)  # type: ignore[arg-type]
