"""An option that is not one of reading two clusterings is refused on every engine,
before any work: an SQL engine reads the sides where they are and would otherwise
pass over it, so that ``memory_limit="1GB"`` given beside ``engine="duckdb"`` ran
without a limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ereval
from ereval import InputTypeError
from ereval.io import AlignOptions, check_options
from ereval.metrics._worst_sql import engine_worst_clusters


def _files(tmp_path: Path) -> tuple[str, str]:
    t = pa.table({"record_id": [1, 2, 3, 4], "cluster_id": [1, 1, 2, 2]})
    p = pa.table({"record_id": [1, 2, 3, 4], "cluster_id": [7, 8, 8, 8]})
    pq.write_table(t, tmp_path / "t.parquet")
    pq.write_table(p, tmp_path / "p.parquet")
    return str(tmp_path / "t.parquet"), str(tmp_path / "p.parquet")


READERS = {
    "evaluate": lambda t, p, e, kw: ereval.evaluate(t, p, engine=e, **kw),
    "record_errors": lambda t, p, e, kw: ereval.record_errors(t, p, engine=e, **kw),
    "cluster_errors": lambda t, p, e, kw: ereval.cluster_errors(t, p, engine=e, **kw),
    "worst_clusters": lambda t, p, e, kw: engine_worst_clusters(
        ereval.get_engine(e), t, p, rank="size", in_memory=lambda: None, **kw
    ),
}


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize(
    ("option", "hint"),
    [
        ({"memory_limit": "1GB"}, "engine=DuckDBEngine(memory_limit='1GB')"),
        ({"threads": 1}, "engine=DuckDBEngine(threads=1)"),
        ({"master": "local[2]"}, "engine=SparkEngine(master='local[2]')"),
        ({"on_missmatch": "twinless"}, "the options of reading two clusterings are"),
    ],
)
def test_an_unknown_option_is_refused_on_every_engine(
    tmp_path: Path, engine: str, reader: str, option: dict[str, Any], hint: str
) -> None:
    t, p = _files(tmp_path)
    (name,) = option
    with pytest.raises(InputTypeError, match=f"^unexpected option '{name}'") as caught:
        READERS[reader](t, p, engine, option)
    assert hint in str(caught.value)
    assert "\n" not in str(caught.value)


def test_every_option_of_reading_passes_and_is_named_when_one_is_not() -> None:
    known = sorted(AlignOptions.__optional_keys__)
    check_options(dict.fromkeys(known))
    with pytest.raises(InputTypeError) as caught:
        check_options({"record_column": "id"})
    assert str(caught.value).endswith(", ".join(known))
