"""The DuckDB engine gives the same table, hence identical metrics, as the in-memory one."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError, RecordMismatchError
from ereval.cli import app
from ereval.engines import DuckDBEngine
from ereval.metrics import CANONICAL_METRICS, EXTRA_METRICS, evaluate
from ereval.statistics import compute_table


def _write(tmp: Path, name: str, records: np.ndarray, clusters: np.ndarray, kind: str) -> Path:
    frame = pd.DataFrame({"record_id": records, "cluster_id": clusters})
    path = tmp / f"{name}.{kind}"
    if kind == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("kind", ["parquet", "csv"])
@pytest.mark.parametrize("policy", ["error", "intersection", "twinless"])
def test_identical_metrics(tmp_path: Path, kind: str, policy: str) -> None:
    rng = np.random.default_rng(7)
    n = 3000
    truth = rng.integers(0, 400, size=n)
    pred = truth.copy()
    moved = rng.random(n) < 0.2
    pred[moved] = rng.integers(0, 450, size=int(moved.sum()))
    recs = np.array([f"id{i}" for i in range(n)])
    order = rng.permutation(n)
    keep_t = slice(0, n) if policy == "error" else slice(0, n - 50)
    keep_p = slice(0, n) if policy == "error" else slice(30, n)
    t_path = _write(tmp_path, "t", recs[keep_t], truth[keep_t], kind)
    p_path = _write(
        tmp_path, "p", recs[order][keep_p], [f"c{v}" for v in pred[order][keep_p]], kind
    )
    names = list(CANONICAL_METRICS) + (list(EXTRA_METRICS) if policy == "twinless" else [])
    expected = evaluate(t_path, p_path, on_mismatch=policy, metrics=names)  # type: ignore[arg-type]
    table = compute_table(DuckDBEngine(), t_path, p_path, on_mismatch=policy)  # type: ignore[arg-type]
    got = evaluate(table, metrics=names)
    for name in names:
        a, b = expected[name], got[name]
        assert (math.isnan(a) and math.isnan(b)) or a == b, name  # bit for bit


def test_errors(tmp_path: Path) -> None:
    t = _write(tmp_path, "t", np.array([1, 2, 2]), np.array([1, 1, 2]), "csv")
    ok = _write(tmp_path, "ok", np.array([1, 2]), np.array([1, 1]), "csv")
    with pytest.raises(InputError, match=r"'truth' has 1 duplicate record ids \(e\.g\. '2'\)"):
        compute_table(DuckDBEngine(), t, ok)
    other = _write(tmp_path, "o", np.array([1, 3]), np.array([1, 1]), "csv")
    with pytest.raises(RecordMismatchError, match=r"1 record\(s\) only in 'truth' \(e\.g\. '2'\)"):
        compute_table(DuckDBEngine(), ok, other)
    with pytest.raises(InputError, match=r"no column\(s\) 'zz'"):
        compute_table(DuckDBEngine(), ok, ok, record_col="zz")
    with pytest.raises(InputError, match=r"file not found"):
        compute_table(DuckDBEngine(), tmp_path / "none.parquet", ok)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"nope")
    with pytest.raises(InputError, match=r"'pred': cannot read"):
        compute_table(DuckDBEngine(), ok, bad)
    nulls = tmp_path / "n.csv"
    nulls.write_text("record_id,cluster_id\n1,\n2,3\n")
    with pytest.raises(InputError, match=r"1 missing cluster ids"):
        compute_table(DuckDBEngine(), nulls, ok)


def test_cli_engine_option(tmp_path: Path) -> None:
    from ._example_data import EXAMPLES as examples

    runner = CliRunner()
    args = ["metrics", str(examples / "truth.csv"), str(examples / "pred_good.csv"), "-f", "json"]
    a = runner.invoke(app, args)
    b = runner.invoke(app, [*args, "--engine", "duckdb"])
    assert a.exit_code == 0 and b.exit_code == 0, b.output
    got, expected = json.loads(b.stdout), json.loads(a.stdout)
    assert got.keys() == expected.keys()
    for key, value in expected.items():  # DuckDB's float sums: equal to 1e-12
        assert math.isclose(got[key], value, rel_tol=1e-12, abs_tol=1e-12), key


def test_a_memory_limit_too_small_is_one_line_naming_the_option(tmp_path: Path) -> None:
    n = 300_000
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"record_id": np.arange(n), "cluster_id": rng.integers(0, n // 3, n)})
    t, p = tmp_path / "t.parquet", tmp_path / "p.parquet"
    frame.to_parquet(t)
    frame.sample(frac=1.0, random_state=1).to_parquet(p)
    with pytest.raises(
        InputError, match=r"^'memory_limit' must be at least 32MB .*received '1MB'$"
    ) as err:
        evaluate(t, p, engine=DuckDBEngine(memory_limit="1MB", threads=1))
    assert "\n" not in str(err.value)
    result = CliRunner().invoke(
        app, ["metrics", str(t), str(p), "--engine", "duckdb", "--memory-limit", "1MB"]
    )
    assert result.exit_code == 2
    assert result.output.startswith("error: '--memory-limit' must be at least 32MB")
    assert result.output.count("\n") == 1
