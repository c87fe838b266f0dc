"""Peak memory and CPU of ``ereval curve`` in memory (NumPy) and out of core (DuckDB).

Writes (once, with DuckDB, into ``--dir``) a truth of N records and M scored pairs
as Parquet files, then runs ``ereval curve`` on them once per engine, each in a
fresh process, and prints its wall time, CPU time (user + system, the process and
its threads) and peak resident memory (the ``ru_maxrss`` of the child, in GiB), and checks
that the engines' curves agree (every count equal, floats within 1e-9).

The data: record ``a`` (``0..N-1``) has the id ``(a * 7919 + 12345) mod N`` (ids
shuffled, integers) and the true cluster ``a // 4``; pair ``i`` joins records ``a =
i mod N`` and ``a + d mod N`` with ``d = 1 + i // N`` (M / N distinct offsets: every
pair distinct, about 15% of them true pairs). Scores: ``+1.5`` for a true pair and
``-1.5`` otherwise, plus two uniform noises on (-1, 1), rounded to 2 decimals (a few
hundred distinct scores, as rounded match weights have). Every record ends up in
one component at the lowest threshold, so the union-find merges N - 1 times.

``--shape distinct`` writes the blocks' pairs with scores not rounded: about one
distinct score a pair, as the probabilities of a model give, so that the curve has
as many rows as there are pairs. ``--shape text`` writes other data for the same pairs: text ids of 2-21
characters (``x`` repeated ``a mod 12`` times, ``-`` and the integer id), skewed
true cluster sizes (record ``a`` in cluster ``floor((a / N)^2 N / 3)``: a few
clusters of thousands of records, most of one), the pairs in shuffled order, and
scores rounded to 3 decimals (thousands of distinct scores).

    python benchmarks/bench_curves_engines.py --records 1e6 --pairs 1e7
    python benchmarks/bench_curves_engines.py --records 1e7 --pairs 3e7 --engines duckdb
    python benchmarks/bench_curves_engines.py --records 1e7 --pairs 1e8 --engines duckdb \\
        --memory-limit 2GB
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _process import measure


def write_data(directory: Path, n: int, m: int, shape: str = "blocks") -> tuple[Path, Path]:
    """The truth and the pairs of ``shape`` as Parquet files in ``directory`` (written
    once)."""
    import duckdb

    tag = "" if shape == "blocks" else f"{shape}_"
    truth = directory / f"truth_{tag}{n}.parquet"
    pairs = directory / f"pairs_{tag}{n}_{m}.parquet"
    con = duckdb.connect()
    con.execute(f"SET temp_directory = '{directory / 'duckdb_tmp'}'")
    perm = "((({x}) * 7919 + 12345) % {n})"
    if shape in ("blocks", "distinct"):  # distinct: the scores not rounded
        rid, cluster, digits, order = perm, "{x} // 4", 2 if shape == "blocks" else None, ""
    else:  # text ids of 2-21 characters, cluster sizes skewed, pairs shuffled
        rid = "repeat('x', ({x}) % 12) || '-' || " + perm
        cluster = "CAST(pow(({x}) / {n}, 2) * {n} / 3 AS BIGINT)"
        digits, order = 3, " ORDER BY hash(i)"
    if not truth.exists():
        con.execute(
            f"COPY (SELECT {rid.format(x='a', n=n)} AS record_id, "
            f"{cluster.format(x='a', n=n)} AS cluster_id "
            f"FROM range({n}) AS r(a)) TO '{truth}' (FORMAT parquet)"
        )
    if not pairs.exists():
        noise = "((hash(i, {k}) % 2000000) / 1000000.0 - 1.0)"
        if digits is None:  # a double of 53 bits each: every score distinct (about)
            noise = "((hash(i, {k}) >> 11) / 4503599627370496.0 - 1.0)"
        same = f"{cluster.format(x='a', n=n)} = {cluster.format(x='b', n=n)}"
        score = (
            f"CASE WHEN {same} THEN 1.5 ELSE -1.5 END + {noise.format(k=1)} + {noise.format(k=2)}"
        )
        con.execute(
            f"COPY (SELECT {rid.format(x='a', n=n)} AS record_id_1, "
            f"{rid.format(x='b', n=n)} AS record_id_2, "
            f"{score if digits is None else f'round({score}, {digits})'} AS score "
            f"FROM (SELECT i, i % {n} AS a, (i % {n} + 1 + i // {n}) % {n} AS b "
            f"FROM range({m}) AS r(i)){order}) TO '{pairs}' (FORMAT parquet)"
        )
    return truth, pairs


def run(args: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (GiB) of ``python -m ereval *args``, run
    under a small parent (:func:`_process.measure`): a child forked straight from this
    process, large after writing the data, would inherit its peak."""
    got = measure([sys.executable, "-m", "ereval", *args])
    return got["wall"], got["cpu"], got["rss_mb"] / 2**10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=float, default=1e6)
    parser.add_argument("--pairs", type=float, default=1e7)
    parser.add_argument("--engines", default="numpy,duckdb")
    parser.add_argument("--memory-limit", default="2GB", help="DuckDB's (default 2GB)")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB's threads")
    parser.add_argument("--dir", type=Path, default=None, help="where the data go")
    parser.add_argument(
        "--shape",
        choices=("blocks", "text", "distinct"),
        default="blocks",
        help="blocks (above); text: ids of 2-21 characters, skewed cluster sizes, pairs "
        "in shuffled order, scores to 3 decimals; distinct: blocks with scores not "
        "rounded (about one threshold a pair, as model probabilities give)",
    )
    args = parser.parse_args()
    n, m = int(args.records), int(args.pairs)
    directory = args.dir or Path(tempfile.gettempdir()) / "ereval_bench_curves"
    directory.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    truth, pairs = write_data(directory, n, m, args.shape)
    print(
        f"N = {n:,} records, M = {m:,} pairs; data in {directory} ({time.perf_counter() - t0:.0f} s)"
    )
    print(f"{'engine':<8} {'wall s':>8} {'CPU s':>8} {'peak RSS GiB':>12}")
    frames = {}
    for engine in args.engines.split(","):
        out = directory / f"curve_{args.shape}_{engine}_{n}_{m}.parquet"
        flags = ["--engine", engine]
        if engine == "duckdb":
            flags += ["--memory-limit", args.memory_limit, "--temp-dir", str(directory)]
            if args.threads is not None:
                flags += ["--threads", str(args.threads)]
        wall, cpu, rss = run(["curve", str(truth), str(pairs), *flags, "-o", str(out), "-q"])
        print(f"{engine:<8} {wall:8.1f} {cpu:8.1f} {rss:12.2f}", flush=True)
        frames[engine] = pd.read_parquet(out)
    if len(frames) > 1:
        first, *others = frames.values()
        for other in others:
            for col in first.columns:
                x, y = first[col].to_numpy(), other[col].to_numpy()
                if x.dtype.kind in "iu":
                    assert np.array_equal(x, y), col
                else:
                    assert np.allclose(x, y, rtol=0, atol=1e-9, equal_nan=True), col
        print(f"the curves agree ({len(first):,} thresholds, {first.shape[1]} columns)")


if __name__ == "__main__":
    main()
