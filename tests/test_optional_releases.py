"""An optional package too old for what asks for it is named in one line, with the
release needed and the one installed, before any work; the earliest DuckDB release
the engine works with is the one ``pyproject.toml`` asks for."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from ereval import MissingDependencyError
from ereval._optional import release, require
from ereval.engines import DuckDBEngine
from ereval.engines._duckdb import DUCKDB_LEAST


@pytest.fixture
def old_duckdb(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("duckdb")
    fake.__version__ = "1.4.4"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "duckdb", fake)


def test_an_old_duckdb_is_named_with_the_release_needed(old_duckdb: None) -> None:
    with pytest.raises(MissingDependencyError) as caught:
        DuckDBEngine().connect()
    message = str(caught.value)
    assert message == (
        f"the DuckDB engine needs duckdb {DUCKDB_LEAST} or later; 1.4.4 is installed; "
        "upgrade it with: pip install -U 'ereval[duckdb]'"
    )


def test_a_release_at_or_past_the_least_is_used() -> None:
    import duckdb

    assert require("duckdb", feature="f", least=DUCKDB_LEAST) is duckdb
    assert release(duckdb.__version__) >= release(DUCKDB_LEAST)


def test_pyproject_asks_for_the_least_release() -> None:
    text = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    floors = re.findall(r'"duckdb>=([0-9.]+)"', text)
    assert floors and set(floors) == {DUCKDB_LEAST}


@pytest.mark.parametrize(
    ("old", "new"),
    [("1.4.4", "1.5"), ("1.5", "1.5.0.1"), ("1.9.9", "1.10"), ("0.10.3", "1.0.0rc1")],
)
def test_releases_compare_by_their_numbers(old: str, new: str) -> None:
    assert release(old) < release(new)
