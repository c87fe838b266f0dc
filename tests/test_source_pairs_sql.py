"""The two forms of the link-only pair counts' SQL (a subquery a count for DuckDB, grouping
sets for Spark): both run on DuckDB over random groups, against a count in Python."""

from __future__ import annotations

from collections import Counter

import duckdb
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval.engines import _dialect as sql


def _twice(groups: list[tuple], where, key) -> int | None:
    """``sum x^2 - sum x`` over the sums ``x`` of ``n`` by ``key`` of the rows ``where``
    holds (None for no row, as SQL's sum)."""
    kept = [g for g in groups if where(g)]
    if not kept:
        return None
    sums = Counter()
    for g in kept:
        sums[key(g)] += g[3]
    return sum(x * x - x for x in sums.values())


def _counted(groups: list[tuple], common_only: bool) -> tuple:
    """The eleven values of :func:`ereval.engines._dialect.source_pairs_sql`, counted row
    by row: ``(tc, s, pc, n)``, NULL as None."""

    def both(g):
        return g[0] is not None and g[2] is not None

    on_t = both if common_only else (lambda g: g[0] is not None)
    on_p = both if common_only else (lambda g: g[2] is not None and g[1] is not None)
    known = both if common_only else (lambda g: g[1] is not None)
    lone = [g[3] for g in groups if g[0] is None]
    return (
        _twice(groups, both, lambda g: g[:3]),
        _twice(groups, on_t, lambda g: (g[0], g[1])),
        _twice(groups, on_p, lambda g: (g[2], g[1])),
        _twice(groups, both, lambda g: (g[0], g[1])),
        _twice(groups, both, lambda g: (g[2], g[1])),
        _twice(groups, known, lambda g: g[1]),
        _twice(groups, on_t, lambda g: g[1]),
        _twice(groups, on_p, lambda g: g[1]),
        _twice(groups, both, lambda g: g[1]),
        len({g[1] for g in groups if known(g) and g[1] is not None}),
        sum(lone) if lone else None,
    )


_ROW = st.tuples(
    st.one_of(st.none(), st.integers(0, 4)),
    st.one_of(st.none(), st.sampled_from(["A", "B", "C"])),
    st.one_of(st.none(), st.integers(0, 4)),
    st.integers(1, 3_000_000_000),  # squares past 2^63: the wide sums
)


_CON = duckdb.connect()


@settings(max_examples=80, deadline=None)
@given(st.lists(_ROW, max_size=30), st.booleans())
def test_both_forms_count_as_python_does(rows: list[tuple], common_only: bool) -> None:
    groups = list({(t, s, p): (t, s, p, n) for t, s, p, n in rows}.values())  # one row a group
    frame = pd.DataFrame(groups, columns=["tc", "s", "pc", "n"]).astype(
        {"tc": "Int64", "pc": "Int64", "n": "int64", "s": "string"}
    )
    con = _CON
    con.register("frame", frame)
    con.execute("CREATE OR REPLACE TABLE wcells AS SELECT * FROM frame")
    want = _counted(groups, common_only)
    for form in (sql._source_pairs_by_subqueries, sql._source_pairs_by_grouping_sets):
        got = con.execute(form("wcells", common_only=common_only, dialect=sql.DUCKDB)).fetchall()
        assert tuple(None if v is None else int(v) for v in got[0]) == want, form.__name__


def test_duckdb_and_spark_are_given_their_forms() -> None:
    spark = sql.SPARK
    assert "GROUPING SETS" in sql.source_pairs_sql("w", common_only=False, dialect=spark)
    assert "GROUPING SETS" not in sql.source_pairs_sql("w", common_only=False)
