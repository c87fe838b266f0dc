"""The DuckDB engine joins records keyed by several columns on the key's parts (a
struct), not on the key's JSON text: the same tables, metrics and errors as the
in-memory engine, which compares the keys' text. And every engine refuses a key
with a missing part."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ereval import threshold_curve
from ereval.engines import DuckDBEngine, Engine
from ereval.engines._duckdb import DuckDBDatabase
from ereval.metrics import CANONICAL_METRICS, evaluate
from ereval.statistics import compute_statistics, compute_table

KEY = ["src", "local"]
TEXT = [" ", "a", "b", "a,b", '"', "\\", "é", "[1]", '"a",1']
NUMBERS = [0, 1, -1, 7, 2**31 - 1, -(2**31)]


def _write(path: Path, src: list[str], local: pa.Array, clusters: list[int]) -> Path:
    pq.write_table(
        pa.table({"src": pa.array(src, pa.string()), "local": local, "cluster_id": clusters}),
        path,
    )
    return path


def _same_metrics(expected: dict[str, float], got: dict[str, float]) -> None:
    for name, a in expected.items():
        b = got[name]
        assert (math.isnan(a) and math.isnan(b)) or a == b, name


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every statement the DuckDB engine runs, in order."""
    seen: list[str] = []
    for method in ("execute", "fetch_batches", "fetch_arrow"):
        original = getattr(DuckDBDatabase, method)

        def spy(self: Any, query: str, *args: Any, _original: Any = original, **kw: Any) -> Any:
            seen.append(query)
            return _original(self, query, *args, **kw)

        monkeypatch.setattr(DuckDBDatabase, method, spy)
    yield seen


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.data(),
    policy=st.sampled_from(["error", "twinless", "intersection", "singletons"]),
    widths=st.sampled_from([("int32", "int64"), ("int64", "int64"), ("int64", "uint64")]),
    passes=st.sampled_from([1, 3]),
)
def test_keys_joined_on_their_parts_match_their_text(
    tmp_path: Path, data: st.DataObject, policy: str, widths: tuple[str, str], passes: int
) -> None:
    """Keys of (text, integer) with quotes, backslashes, commas and non-ASCII text, the
    integer part typed differently on each side, records of one side only, in one pass
    or three: the same metrics, or the same error, as the in-memory engine."""
    pool = data.draw(
        st.lists(
            st.tuples(st.sampled_from(TEXT), st.sampled_from(NUMBERS)),
            min_size=2,
            max_size=30,
            unique=True,
        )
    )
    if widths[1] == "uint64":
        pool = [(s, abs(n)) for s, n in pool]
        pool = list(dict.fromkeys(pool))
    in_t = data.draw(st.lists(st.booleans(), min_size=len(pool), max_size=len(pool)))
    in_p = data.draw(st.lists(st.booleans(), min_size=len(pool), max_size=len(pool)))
    in_t[0] = in_p[-1] = True
    t_keys = [k for k, keep in zip(pool, in_t, strict=True) if keep]
    p_keys = [k for k, keep in zip(pool, in_p, strict=True) if keep][::-1]
    if data.draw(st.booleans()):  # a record twice in the prediction
        p_keys.append(p_keys[0])
    t_clusters = data.draw(st.lists(st.integers(0, 3), min_size=len(t_keys), max_size=len(t_keys)))
    # the prediction's cluster ids are never the truth's, which would warn that the
    # prediction is the truth itself (a record on each side, both in cluster 0)
    p_clusters = data.draw(st.lists(st.integers(7, 10), min_size=len(p_keys), max_size=len(p_keys)))
    folder = tmp_path  # each example writes its files afresh
    paths = [
        _write(
            folder / f"{name}.parquet",
            [s for s, _ in keys],
            pa.array([n for _, n in keys], getattr(pa, width)()),
            clusters,
        )
        for name, keys, width, clusters in (
            ("t", t_keys, widths[0], t_clusters),
            ("p", p_keys, widths[1], p_clusters),
        )
    ]
    opts: dict[str, Any] = {"record_col": KEY, "on_mismatch": policy}
    names = list(CANONICAL_METRICS)
    try:
        expected = evaluate(*paths, metrics=names, **opts)
    except ValueError as exc:
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            compute_table(DuckDBEngine(passes=passes), *paths, **opts)
        return
    table = compute_table(DuckDBEngine(passes=passes), *paths, **opts)
    _same_metrics(expected, evaluate(table, metrics=names))
    stats = compute_statistics(DuckDBEngine(passes=passes), *paths, **opts)
    for name, a in expected.items():
        b = evaluate(stats, metrics=[name])[name]
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def test_the_join_reads_the_parts_and_errors_show_the_text(
    tmp_path: Path, statements: list[str]
) -> None:
    """The join and the search for repeats read the parts (``rk``), never the keys'
    text; a repeated key and the records of one side only are still named by their
    JSON text, as the in-memory engine names them."""
    t = _write(tmp_path / "t.parquet", ["a", "a", "b", 'q"'], pa.array([1, 2, 1, 5]), [0, 0, 1, 1])
    p = _write(tmp_path / "p.parquet", ["b", "a", "a", "c"], pa.array([1, 2, 1, 9]), [3, 3, 4, 4])
    got = evaluate(t, p, engine="duckdb", record_col=KEY, on_mismatch="twinless")
    assert got == evaluate(t, p, record_col=KEY, on_mismatch="twinless")
    joins = [q for q in statements if "JOIN" in q]
    assert joins and all("rk AS r" in q for q in joins), joins
    statements.clear()
    shown = '["q\\"",5]'  # the key's JSON text: ["q\"",5]
    message = re.escape(f"only in 'truth' (e.g. {shown!r})")
    for engine in ("numpy", "duckdb"):
        with pytest.raises(ValueError, match=message):
            evaluate(t, p, engine=engine, record_col=KEY)
    twice = _write(tmp_path / "twice.parquet", ["a", "a"], pa.array([1, 1]), [0, 1])
    for engine in ("numpy", "duckdb"):
        with pytest.raises(
            ValueError, match=re.escape("""duplicate record ids (e.g. '["a",1]')""")
        ):
            evaluate(twice, twice, engine=engine, record_col=KEY)


def test_text_against_integer_parts_match_as_text(tmp_path: Path) -> None:
    """With ``id_type="string"``, an integer part on one side and the same digits as
    text on the other are one key, joined on the parts as on the text."""
    t = _write(tmp_path / "t.parquet", ["a", "a", "b"], pa.array([1, 2, 10]), [0, 0, 1])
    p_table = pa.table({"src": ["b", "a", "a"], "local": ["10", "2", "1"], "cluster_id": [3, 4, 4]})
    pq.write_table(p_table, tmp_path / "p.parquet")
    p = tmp_path / "p.parquet"
    opts: dict[str, Any] = {"record_col": KEY, "id_type": "string"}
    expected = evaluate(t, p, **opts)
    assert expected["pairwise_precision"] == 1.0  # (a,1) and (a,2) together on both sides
    assert evaluate(t, p, engine="duckdb", **opts) == expected


def test_a_key_of_one_text_column_joins_the_text_of_a_key_of_several(tmp_path: Path) -> None:
    """One side keyed by a column of the keys' JSON text, the other by the key's parts:
    the join is on the text (the one side has no parts), as in memory."""
    t = _write(tmp_path / "t.parquet", ["a", "b"], pa.array(["x", "y"]), [0, 0])
    keyed = pa.table({"record_id": ['["a","x"]', '["b","y"]'], "cluster_id": [5, 6]})
    pq.write_table(keyed, tmp_path / "p.parquet")
    p = tmp_path / "p.parquet"
    opts: dict[str, Any] = {"truth_record_col": KEY, "pred_record_col": "record_id"}
    expected = evaluate(t, p, **opts)
    assert expected["pairwise_recall"] == 0.0
    assert evaluate(t, p, engine="duckdb", **opts) == expected
    assert np.isclose(expected["cluster_recall"], 0.0)


@pytest.mark.each_engine(spark=True)
def test_an_empty_part_is_a_missing_key_on_every_engine(
    tmp_path: Path, engine: str, engine_object: Engine
) -> None:
    """Empty text in a part of a key is a missing value, as in a key of one column:
    every engine refuses it (the SQL engines without making the keys' text, whose
    JSON ``["",0]`` is not empty), and a NULL part, naming the column, from Parquet
    and from CSV."""
    t = _write(tmp_path / "t.parquet", ["", "a"], pa.array([0, 1]), [0, 0])
    p = _write(tmp_path / "p.parquet", ["a", ""], pa.array([1, 0]), [0, 1])
    nulls = _write(tmp_path / "n.parquet", ["a", "b"], pa.array([1, None]), [0, 0])
    csv = tmp_path / "t.csv"  # an empty field, and a quoted empty one
    csv.write_text('src,local,cluster_id\n,0,0\na,1,0\n"",2,1\n')
    for truth, column in ((t, "src"), (nulls, "local")):
        shown = f"'truth' has 1 missing values in key column '{column}' (empty, null or NaN)"
        with pytest.raises(ValueError, match="^" + re.escape(shown)):
            evaluate(truth, p, engine=engine_object, record_col=KEY, metrics=["pairwise"])
    shown = "'truth' has 2 missing values in key column 'src' (empty, null or NaN)"
    with pytest.raises(ValueError, match="^" + re.escape(shown)):
        evaluate(csv, p, engine=engine_object, record_col=KEY, metrics=["pairwise"])


@pytest.mark.each_engine(spark=True)
def test_an_empty_part_of_a_scored_pair_is_a_missing_key_on_every_engine(
    tmp_path: Path, engine: str, engine_object: Engine
) -> None:
    """The records of scored pairs keyed by two columns: an empty text part, in the
    first record or the second, or a NULL part, is refused on every engine, also when
    pairs naming records absent from the truth would be dropped (their keys' JSON
    text, ``["",1]``, is not empty)."""
    truth = _write(tmp_path / "t.parquet", ["a", "a", "b"], pa.array([1, 2, 1]), [0, 0, 1])
    good = (["a", "a"], [1, 1], ["a", "b"], [2, 1])
    bad = {
        "s1": (["a", ""], [1, 1], ["a", "b"], [2, 1]),
        "s2": (["a", "a"], [1, 1], ["a", ""], [2, 1]),
        "u1": (["a", "a"], [1, None], ["a", "b"], [2, 1]),
    }
    for label, (s1, u1, s2, u2) in [("good", good), *bad.items()]:
        path = tmp_path / f"{label}.parquet"
        columns = {"s1": s1, "u1": pa.array(u1, pa.int64()), "s2": s2, "u2": u2}
        pq.write_table(pa.table({**columns, "score": [0.9, 0.4]}), path)
        for policy in ("error", "intersection"):

            def curve(path: Path = path, policy: str = policy) -> Any:
                return threshold_curve(
                    truth,
                    path,
                    left_col=["s1", "u1"],
                    right_col=["s2", "u2"],
                    record_col=KEY,
                    engine=engine_object,
                    on_mismatch=policy,
                )

            if label == "good":
                assert curve().summary["n_pairs"] == 2
                continue
            shown = f"'pairs' has 1 missing values in key column '{label}' (empty, null or NaN)"
            with pytest.raises(ValueError, match="^" + re.escape(shown)):
                curve()


@pytest.mark.parametrize("passes", [3, 7])
def test_keys_of_negative_parts_in_two_widths_meet_in_one_pass(tmp_path: Path, passes: int) -> None:
    """Keys whose integer part is negative, 32-bit on one side and 64-bit on the other,
    are hashed field by field in one type: each key falls in one pass on both sides."""
    numbers = list(range(-80, 0))
    src = [f"s{n % 3}" for n in numbers]
    t = _write(tmp_path / "t.parquet", src, pa.array(numbers, pa.int32()), [n % 7 for n in numbers])
    p = _write(
        tmp_path / "p.parquet",
        src[::-1],
        pa.array(numbers[::-1], pa.int64()),
        [n % 5 for n in numbers],
    )
    names = list(CANONICAL_METRICS)
    expected = evaluate(t, p, record_col=KEY, metrics=names)
    table = compute_table(DuckDBEngine(passes=passes), t, p, record_col=KEY)
    _same_metrics(expected, evaluate(table, metrics=names))
