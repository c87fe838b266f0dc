"""Every engine on inputs at the edges of their types: do NumPy and DuckDB print the
same thing?

Small files (a few thousand records, seeded) of ids and cluster ids that engines
read differently if they are careless: unsigned 64-bit ids past 2^63, sides of two
integer types (unsigned past 2^63 against signed), dictionary-encoded and large
strings, dates (against timestamps too), timestamps, decimals (of two scales; against
floats), floats with NaN and -0.0, bytes, ids only one space or one normalisation
apart, a CSV with a byte-order mark and CRLF lines, numbers past 2^64 written in CSV,
empty files, one record, keys of two columns, two files of partly the same records.
Each case runs ``metrics``, ``summary``, ``compare``, ``monitor`` and ``errors --by
record|cluster`` (and ``--by record`` as JSON) on NumPy and on ``--engine duckdb
--memory-limit 1GB`` and compares the exit status, the first error line (without the
row the in-memory reader adds) and the output (JSON numbers to 1e-12, CSV text
exactly). Any line ``differ`` is a defect; an ``unexpected`` error or a traceback
too.

    python benchmarks/engines_agree.py [--only NAME] [--keep DIR]
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import json
import math
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

N = 3000
#: command -> arguments after the command name (T, P: the two files; the output format)
COMMANDS: dict[str, Callable[[str, str], list[str]]] = {
    "metrics": lambda t, p: ["metrics", t, p, "-f", "json"],
    "summary": lambda t, p: ["summary", p, "-f", "json"],
    "compare": lambda t, p: ["compare", t, p, "-f", "json"],
    "monitor": lambda t, p: ["monitor", t, p, "-f", "json"],
    "errors-record": lambda t, p: ["errors", t, p, "--by", "record", "-f", "csv"],
    "errors-cluster": lambda t, p: ["errors", t, p, "--by", "cluster", "-f", "csv"],
    "errors-json": lambda t, p: ["errors", t, p, "--by", "record", "-f", "json"],
}
Side = pa.Table | str  # a table (written as Parquet) or CSV text


def _cases(rng: np.random.Generator) -> dict[str, tuple[Side, Side, list[str]]]:
    """name -> (truth, prediction, extra options)."""

    def clusters(k: int) -> np.ndarray:
        return rng.integers(0, k, N)

    def table(ids: Any, k: int) -> pa.Table:
        return pa.table({"record_id": ids, "cluster_id": clusters(k)})

    def shuffled(ids: pa.Array) -> pa.Array:
        return ids.take(pa.array(rng.permutation(len(ids))))

    def csv(ids: list[str], k: int, head: str = "record_id,cluster_id", end: str = "\n") -> str:
        rows = [f"{i},{c}" for i, c in zip(ids, clusters(k), strict=True)]
        return end.join([head, *rows]) + end

    text = pa.array([f"r{i:05d}" for i in range(N)])
    high = pa.array(np.arange(N, dtype=np.uint64) + np.uint64(2**64 - 2 * N))
    two = pa.array(np.arange(N + 500, dtype=np.uint64) + np.uint64(2**64 - 3 * N))
    day = datetime.date(2000, 1, 1)
    dates = pa.array([day + datetime.timedelta(days=i) for i in range(N)])
    stamps = pa.array(
        [datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=i) for i in range(N)]
    )
    decimals = pa.array([decimal.Decimal(i) / 4 for i in range(N)], pa.decimal128(12, 2))
    spaced = [f"r{i}" + (" " if i % 100 == 0 else "") for i in range(N)]
    signed = pa.array(np.arange(N, dtype=np.int64)[::-1].copy())
    far = high.to_numpy()[:1000:2]  # 2 apart past 2^63: one number as floats
    raw = pa.array([f"r\\{i:05d},\xff".encode("latin-1") for i in range(N)])  # no text type
    nan_clusters = clusters(300).astype(float)
    nan_clusters[3] = np.nan
    both = ["--on-mismatch", "twinless"]
    empty = pa.table(
        {"record_id": pa.array([], pa.int64()), "cluster_id": pa.array([], pa.int64())}
    )
    return {
        "dictionary text": (
            table(text.dictionary_encode(), 300),
            table(shuffled(text).dictionary_encode(), 400),
            [],
        ),
        "large and plain text": (
            table(text.cast(pa.large_string()), 300),
            table(shuffled(text), 400),
            [],
        ),
        "unsigned past 2^63": (table(high, 300), table(shuffled(high), 400), []),
        "unsigned past 2^63, two files": (
            table(two[:N], 300),
            table(shuffled(two[500:]), 400),
            both,
        ),
        "unsigned against signed": (
            table(pa.array(np.arange(N, dtype=np.uint64)), 300),
            table(signed, 400),
            [],
        ),
        "unsigned past 2^63 against signed, two files": (
            table(pa.array(np.r_[np.arange(N - 500, dtype=np.uint64), far]), 300),
            table(pa.array(np.r_[np.arange(N - 500)[::-1], -np.arange(1, 501)]), 400),
            both,
        ),
        "bytes": (table(raw, 300), table(shuffled(raw), 400), []),
        "cluster ids past 2^63": (
            pa.table(
                {
                    "record_id": np.arange(N),
                    "cluster_id": clusters(300).astype(np.uint64) + np.uint64(2**63),
                }
            ),
            table(np.arange(N)[::-1].copy(), 400),
            [],
        ),
        "dates": (table(dates, 300), table(shuffled(dates), 400), []),
        "timestamps": (table(stamps, 300), table(shuffled(stamps), 400), []),
        "decimals": (table(decimals, 300), table(shuffled(decimals), 400), []),
        "decimals of two scales": (
            table(decimals, 300),
            table(shuffled(decimals.cast(pa.decimal128(14, 4))), 400),
            [],
        ),
        "decimals against floats": (
            table(decimals, 300),
            table(shuffled(decimals.cast(pa.float64())), 400),
            [],
        ),
        "dates against timestamps": (table(dates, 300), table(shuffled(stamps), 400), []),
        "-0.0 and 0.0": (
            pa.table(
                {"record_id": np.arange(N), "cluster_id": np.where(clusters(2) == 0, -0.0, 0.0)}
            ),
            table(np.arange(N), 3),
            [],
        ),
        "NaN cluster id": (
            pa.table({"record_id": np.arange(N), "cluster_id": nan_clusters}),
            table(np.arange(N), 300),
            [],
        ),
        "a space apart": (
            table(pa.array([f"r{i}" for i in range(N)]), 300),
            table(pa.array(spaced), 400),
            both,
        ),
        "byte-order mark, CRLF": (
            csv([f"r{i}" for i in range(N)], 300, head="\ufeffrecord_id,cluster_id", end="\r\n"),
            csv([f"r{i}" for i in range(N - 1, -1, -1)], 400),
            [],
        ),
        "past 2^64 in CSV": (
            csv([str(10**20 + i) for i in range(N)], 300),
            csv([str(10**20 + i) for i in range(N - 1, -1, -1)], 400),
            [],
        ),
        "empty": (empty, empty, []),
        "keys of two columns": (
            pa.table(
                {
                    "a": np.arange(N) % 50,
                    "b": [f"s{i // 50}" for i in range(N)],
                    "cluster_id": clusters(300),
                }
            ),
            pa.table(
                {
                    "a": np.arange(N)[::-1] % 50,
                    "b": [f"s{i // 50}" for i in range(N)][::-1],
                    "cluster_id": clusters(400),
                }
            ),
            ["--record-col", "a,b"],
        ),
    }


def _write(folder: Path, name: str, side: Side) -> str:
    if isinstance(side, str):
        path = folder / f"{name}.csv"
        path.write_bytes(side.encode("utf-8"))
    else:
        path = folder / f"{name}.parquet"
        pq.write_table(side, path)
    return str(path)


def _run(argv: list[str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "ereval", *argv, "-q"], capture_output=True, text=True, check=False
    )
    lines = done.stderr.strip().splitlines()
    first = re.sub(r", first at row \d+$", "", lines[-1]) if lines else ""
    return done.returncode, done.stdout, first


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12 * max(1.0, abs(a))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _agree(numpy: tuple[int, str, str], duck: tuple[int, str, str], argv: list[str]) -> bool:
    if numpy[0] != duck[0] or numpy[2] != duck[2] or "unexpected" in numpy[2] + duck[2]:
        return False
    if numpy[0] not in (0, 2):  # a traceback (status 1) is a defect, if alike
        return False
    if numpy[0] != 0:
        return True
    if "json" in argv:
        return _same(json.loads(numpy[1]), json.loads(duck[1]))
    return numpy[1] == duck[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run the cases whose name holds this text")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cases = _cases(np.random.default_rng(args.seed))
    differ = runs = 0
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for k, (name, (truth, pred, extra)) in enumerate(cases.items()):
            if args.only and args.only not in name:
                continue
            t, p = _write(folder, f"{k}-truth", truth), _write(folder, f"{k}-pred", pred)
            for command, argv_of in COMMANDS.items():
                # the record key for every command, the policy for those that score
                scores = command.startswith(("metrics", "errors"))
                argv = argv_of(t, p) + (extra if scores or "--record-col" in extra else [])
                numpy = _run([*argv, "--engine", "numpy"])
                duck = _run([*argv, "--engine", "duckdb", "--memory-limit", "1GB"])
                agree = _agree(numpy, duck, argv)
                differ += not agree
                runs += 1
                said = numpy[2] or "ok"
                print(f"{'same  ' if agree else 'differ'}  {name:32s} {command:15s} {said[:90]}")
                if not agree:
                    print(f"        numpy  {numpy[0]}: {numpy[2] or numpy[1][:120]!r}")
                    print(f"        duckdb {duck[0]}: {duck[2] or duck[1][:120]!r}")
    print(f"{differ} of {runs} runs differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
