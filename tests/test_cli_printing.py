"""Printing results of any size: ``-o FILE`` gets the table and the terminal its summary,
a long human table shows its head and tail, CSV and JSON stay complete."""

from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ereval.cli import _common, app
from ereval.cli import _metrics as metrics_cli
from ereval.cli._common import MAX_TABLE_ROWS, emit_frame, emit_records, rows_shown
from ereval.engines._duckdb import DuckDBDatabase
from ereval.metrics import _records_sql as records_sql

from ._example_data import EXAMPLES

runner = CliRunner()
TRUTH, PAIRS = str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pairs.csv")
CURVE = ["curve", TRUTH, PAIRS, "--score-col", "score", "-q"]


@pytest.fixture(scope="module")
def curve_rows() -> list[dict[str, object]]:
    res = runner.invoke(app, [*CURVE, "-f", "json"])
    assert res.exit_code == 0, res.output
    rows: list[dict[str, object]] = json.loads(res.stdout)
    assert len(rows) > 1000  # long enough to be cut
    return rows


def _body_rows(stdout: str) -> list[list[str]]:
    """The cells of every data row of the first rich table in ``stdout``."""
    lines = stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("┡"))
    body = []
    for ln in lines[start + 1 :]:
        if ln.startswith("└"):
            break
        body.append([c.strip() for c in ln.strip("│").split("│")])
    return body


def test_out_prints_the_summary_and_writes_every_row(
    tmp_path: Path, curve_rows: list[dict[str, object]]
) -> None:
    out = tmp_path / "curve.csv"
    res = runner.invoke(app, [*CURVE[:-1], "-o", str(out)])
    assert res.exit_code == 0, res.output
    # the summary: counts, AUC and AP, the best threshold; not the curve
    for key in ("n_pairs", "n_true_pairs", "roc_auc", "average_precision"):
        assert re.search(rf"│ {key} +│", res.stdout), key
    assert "best_pairwise_f1_threshold" in res.stdout
    assert "against" not in res.stdout and "not shown" not in res.stdout
    assert len(res.stdout.splitlines()) < 25
    # what was written, where
    assert res.stderr.strip().splitlines()[-1] == f"wrote {len(curve_rows):,} rows to {out}"
    written = pd.read_csv(out)
    assert len(written) == len(curve_rows)
    assert written["threshold"].tolist() == [r["threshold"] for r in curve_rows]
    # --quiet: no line about the file, the same summary
    quiet = runner.invoke(app, [*CURVE, "-o", str(out)])
    assert quiet.stderr == "" and quiet.stdout == res.stdout


def test_a_long_table_shows_its_head_and_tail(curve_rows: list[dict[str, object]]) -> None:
    res = runner.invoke(app, CURVE)
    assert res.exit_code == 0, res.output
    body = _body_rows(res.stdout)
    head, tail = rows_shown(len(curve_rows))
    assert head + tail == MAX_TABLE_ROWS
    assert len(body) == head + 1 + tail
    assert set(body[head]) == {"…"}
    thresholds = [float(r[0]) for r in body[:head] + body[head + 1 :]]
    expected = [r["threshold"] for r in curve_rows[:head] + curve_rows[-tail:]]
    assert thresholds == pytest.approx(expected, rel=1e-5)
    hidden = len(curve_rows) - head - tail
    note = f"… {hidden:,} rows not shown; write them all with --out FILE or --format csv"
    assert note in res.stdout.splitlines()
    # the summary still follows
    assert "best_pairwise_f1_threshold" in res.stdout


def test_csv_and_json_stay_complete(curve_rows: list[dict[str, object]]) -> None:
    res = runner.invoke(app, [*CURVE, "-f", "csv"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == len(curve_rows) + 1
    assert "not shown" not in res.stdout
    assert [float(ln.split(",")[0]) for ln in lines[1:]] == [r["threshold"] for r in curve_rows]


def test_errors_table_is_cut_and_out_prints_nothing_but_the_file(tmp_path: Path) -> None:
    pred = str(EXAMPLES / "pred_poor.csv")
    full = runner.invoke(app, ["errors", TRUTH, pred, "-q", "-f", "json"])
    n = len(json.loads(full.stdout))
    assert n > MAX_TABLE_ROWS
    res = runner.invoke(app, ["errors", TRUTH, pred, "-q"])
    assert f"… {n - MAX_TABLE_ROWS:,} rows not shown; write them all with --out FILE" in res.stdout
    for by in ("record", "cluster"):
        for engine in ("numpy", "duckdb"):  # DuckDB writes the file itself
            out = tmp_path / f"errors_{engine}_{by}.parquet"
            args = ["errors", TRUTH, pred, "-o", str(out), "--engine", engine, "--by", by]
            res = runner.invoke(app, args)
            assert res.exit_code == 0, res.output
            assert res.stdout == ""
            rows = len(pd.read_parquet(out))
            assert (rows == n) if by == "cluster" else (rows > n)  # n: the clusters
            assert res.stderr.strip().splitlines()[-1] == f"wrote {rows:,} rows to {out}"


def test_duckdb_writes_a_table_on_stdout_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # under a memory limit, a table on stdout is a file the engine writes (as --out
    # does) and read back a block at a time: no table of every row is held in Python
    # (10^7 records under 1 GB peaked at 2,980-3,253 MB when it was). CSV is copied
    # as text; JSON and the human table are read from Parquet, a row group at a time
    pred = str(EXAMPLES / "pred_poor.csv")
    for by in ("record", "cluster"):
        for fmt in ("csv", "json", "table"):
            base = ["errors", TRUTH, pred, "--by", by, "-f", fmt]
            expected = runner.invoke(app, base).stdout
            read: list[int] = []
            with monkeypatch.context() as patched:
                patched.setattr(DuckDBDatabase, "fetch_arrow", _never)
                patched.setattr(records_sql, "_frame", _counted(read))
                patched.setattr(metrics_cli, "COPY_BLOCK", 1000)  # several blocks
                res = runner.invoke(app, [*base, "--engine", "duckdb", "--temp-dir", str(tmp_path)])
            assert res.exit_code == 0, res.output
            assert len(res.stdout) > 1000 and res.stdout == expected, (by, fmt)
            assert list(tmp_path.iterdir()) == []  # the engine's file is gone
            if fmt == "table":  # the rows shown alone
                assert sum(read) == sum(rows_shown(10**6)), read
            elif fmt == "json":
                assert sum(read) == len(json.loads(res.stdout)) > MAX_TABLE_ROWS


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 300), st.integers(1, 80), st.data())
def test_an_error_file_is_read_a_range_of_rows_at_a_time(
    n: int, group: int, data: st.DataObject
) -> None:
    # the rows of any range, from the row groups that hold it, as the whole table's
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "record_id": pa.array([f"r{k}" for k in range(n)], type=pa.string()),
            "true_size": np.arange(n, dtype=np.int32),
            "ROCE": np.linspace(0, 1, n),
        }
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "errors.parquet"
        pq.write_table(table, path, row_group_size=group)
        written = records_sql.ErrorFile(path, "record")
        whole = records_sql._frame(table, "record")
        assert len(written) == n and written.columns == ["record_id", "true_size", "ROCE"]
        start = data.draw(st.integers(0, n))
        stop = data.draw(st.integers(start, n))
        pd.testing.assert_frame_equal(
            written.rows(start, stop), whole.iloc[start:stop].reset_index(drop=True)
        )
        parts = list(written.frames())
        assert all(len(p) <= group for p in parts)
        pd.testing.assert_frame_equal(
            pd.concat(parts, ignore_index=True) if parts else whole, whole
        )


def _counted(read: list[int]) -> Any:
    """``_frame`` of the error tables, noting the rows of each table it is given."""
    frame = records_sql._frame

    def counted(rows: pa.Table, table: Any) -> pd.DataFrame:
        read.append(rows.num_rows)
        return frame(rows, table)

    return counted


def _never(*args: object, **kwargs: object) -> None:
    raise AssertionError("the rows were fetched into Python")


def test_compare_out_says_the_rows_written_on_every_engine(tmp_path: Path) -> None:
    pred = str(EXAMPLES / "pred_poor.csv")
    for engine in ("numpy", "duckdb"):
        out = tmp_path / f"records_{engine}.csv"
        res = runner.invoke(app, ["compare", TRUTH, pred, "-o", str(out), "--engine", engine])
        assert res.exit_code == 0, res.output
        rows = len(pd.read_csv(out))
        assert rows > 0
        assert f"wrote {rows:,} rows to {out}" in res.stderr


def test_a_table_that_fits_is_whole(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"a": i, "b": i / 3} for i in range(MAX_TABLE_ROWS)]
    emit_records(rows, ["a", "b"], "table")
    out = capsys.readouterr().out
    assert len(_body_rows(out)) == MAX_TABLE_ROWS and "not shown" not in out


def test_outside_a_command_the_hint_names_the_format(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"a": i} for i in range(MAX_TABLE_ROWS + 1)]
    emit_records(rows, ["a"], "table")
    out = capsys.readouterr().out
    body = _body_rows(out)
    assert [r[0] for r in body] == [*map(str, range(20)), "…", *map(str, range(21, 41))]
    assert "… 1 row not shown; print them all with --format csv" in out.splitlines()


def test_only_the_rows_shown_are_rendered(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pd.DataFrame({"x": np.arange(200_000), "y": np.linspace(0, 1, 200_000)})
    calls = []
    real = _common.format_number
    monkeypatch.setattr(_common, "format_number", lambda v, *a: calls.append(v) or real(v, *a))
    emit_frame(frame, "table")
    assert len(calls) == 2 * MAX_TABLE_ROWS
    assert "199,960 rows not shown" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("lines", "rows", "want"), [(24, 100, (20, 20)), (100, 92, (92, 0)), (100, 93, (46, 46))]
)
def test_a_terminal_shows_a_screenful(
    monkeypatch: pytest.MonkeyPatch, lines: int, rows: int, want: tuple[int, int]
) -> None:
    monkeypatch.setattr(_common, "_stdout_is_terminal", lambda: True)
    monkeypatch.setenv("LINES", str(lines))
    monkeypatch.setenv("COLUMNS", "80")
    assert rows_shown(rows) == want
    # a tall terminal: a screenful less the title, header, borders and note
    monkeypatch.setenv("LINES", "70")
    assert rows_shown(1000) == (31, 31)


def test_a_pipe_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert not _common._stdout_is_terminal()


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_reader_that_stops_early_ends_the_command_quietly(fmt: str) -> None:
    """``ereval ... | head -1``: the reader closes the pipe with most of the output
    unwritten (some 200 KB, past the pipe's 64 KB: a human table's head and tail would
    fit in it whole). The command stops at once, says nothing, and exits as a command
    ended by SIGPIPE does (141); a stdout that cannot be written for another reason
    still gets its one-line error."""
    import subprocess
    import sys

    argv = [sys.executable, "-m", "ereval", "errors", TRUTH, str(EXAMPLES / "pred_poor.csv")]
    argv += ["--by", "record", "-f", fmt]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline()  # the output's first line, then the reader leaves
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == _common.EXIT_READER_GONE, err
    assert err == ""
    if fmt == "csv":
        with open("/dev/full", "w") as full:
            res = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, check=False)
        assert res.returncode == _common.EXIT_BAD_INPUT
        assert res.stderr.strip() == "error: cannot read or write : No space left on device"


def test_a_closed_pipe_is_told_from_other_outputs(tmp_path: Path) -> None:
    """Only a pipe whose reader has closed it counts as the reader gone: not an open
    pipe, a file, or a stream with no file behind it."""
    import os

    read, write = os.pipe()
    with os.fdopen(write, "w") as pipe:
        assert not _common._reader_gone(pipe)
        os.close(read)
        assert _common._reader_gone(pipe)
    with open(tmp_path / "out.txt", "w") as file:
        assert not _common._reader_gone(file)
    assert not _common._reader_gone(io.StringIO())


def test_duckdb_writes_json_files_from_its_own_parquet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # -o FILE.json, which DuckDB does not write itself: the table is written to Parquet
    # by DuckDB and turned into JSON a row group at a time, never fetched whole
    pred = str(EXAMPLES / "pred_poor.csv")
    runs = {
        "errors-record": ["errors", TRUTH, pred, "--by", "record"],
        "errors-cluster": ["errors", TRUTH, pred, "--by", "cluster"],
        "compare": ["compare", TRUTH, pred],
    }
    fetched: list[int] = []
    frame_of = DuckDBDatabase.fetch_frame

    def counted(self: DuckDBDatabase, query: str) -> pd.DataFrame:
        got = frame_of(self, query)
        fetched.append(len(got))
        return got

    for name, args in runs.items():
        expected = tmp_path / f"{name}-numpy.json"
        res = runner.invoke(app, [*args, "-o", str(expected), "-q"])
        assert res.exit_code == 0, res.output
        n_rows = len(json.loads(expected.read_text()))
        fetched.clear()
        got = tmp_path / f"{name}-duckdb.json"
        with monkeypatch.context() as patched:
            patched.setattr(DuckDBDatabase, "fetch_arrow", _never)
            patched.setattr(DuckDBDatabase, "fetch_frame", counted)
            res = runner.invoke(app, [*args, "-o", str(got), "--engine", "duckdb"])
        assert res.exit_code == 0, res.output
        assert got.read_bytes() == expected.read_bytes(), name
        assert f"wrote {n_rows:,} rows to {got}" in res.stderr
        assert sum(fetched) < n_rows  # at most the few rows of a summary
