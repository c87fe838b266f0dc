"""Speed and memory of the exact clustering metrics, against baselines in the same run.

Synthetic data (seeded): N records, true cluster sizes Zipf(a=2) capped at 1000,
prediction = truth with 10% of the records moved to another (existing) cluster.
Both clusterings are pandas Series indexed by record id (the native form of
er-evaluation), in shuffled order.

Each measurement runs in a fresh subprocess that builds the data, then times the
tool and reports the wall time and the growth of its peak resident memory
(``ru_maxrss`` after minus before the timed call).

    python benchmarks/bench_metrics.py                      # N = 1e5, 1e6, 1e7
    python benchmarks/bench_metrics.py --sizes 1e5 1e6 --repeat 3

Baselines:

* ``duckdb_groupby`` / ``polars_groupby``: a bare GROUP BY over the two label
  columns that only builds the contingency table (the practical floor);
  ``duckdb_join_groupby`` joins the two membership tables on record id first,
  which is the same job ereval does when records come in different orders.
* ``sklearn``: ``homogeneity_completeness_v_measure`` + ``adjusted_rand_score``.
* ``er_evaluation``: er-evaluation 2.3.0's ``pairwise_precision`` +
  ``b_cubed_precision`` + ``cluster_precision`` + ``cluster_homogeneity`` summed. It
  runs in its own interpreter, given by ``--er-evaluation-python`` (default
  ``/tmp/erev/bin/python``), set up with::

      python -m venv /tmp/erev && /tmp/erev/bin/pip install er-evaluation==2.3.0

  and is skipped when that interpreter is absent. It is slow: by default it runs
  up to N = 1e6 only (``--er-evaluation-max``).

``ereval_all`` computes every canonical metric (CEAF included) from the two
Series, aligning their records; ``ereval_all_aligned`` does the same from the two
label columns the bare GROUP BYs receive (records already aligned);
``ereval_ceafe`` times CEAFe alone and ``ereval_table`` the table alone.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve()


def make_data(n: int, seed: int = 0) -> tuple[Any, Any]:
    """Truth and prediction as pandas Series (index = record id), shuffled."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(2.0, size=n), 1000)
    csum = np.cumsum(sizes)
    k = int(np.searchsorted(csum, n))
    sizes = sizes[: k + 1].copy()
    sizes[-1] -= int(csum[k] - n)
    sizes = sizes[sizes > 0]
    truth = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)[:n]
    pred = truth.copy()
    movers = rng.random(n) < 0.10
    target = rng.integers(0, sizes.size - 1, size=int(movers.sum()))
    pred[movers] = target + (target >= truth[movers])  # always another cluster
    records = rng.permutation(n).astype(np.int64) + 1_000_000_000
    order = rng.permutation(n)
    return (
        pd.Series(truth, index=records),
        pd.Series(pred[order], index=records[order]),
    )


# --------------------------------------------------------------------------- tools


def tool_ereval_all(truth: Any, pred: Any) -> Any:
    from ereval import evaluate

    return evaluate(truth, pred)


def tool_ereval_all_aligned(truth: Any, pred: Any, *, frame: Any = None) -> Any:
    from ereval import evaluate

    return evaluate(frame["t"].to_numpy(), frame["p"].to_numpy())


def tool_ereval_ceafe(truth: Any, pred: Any) -> Any:
    from ereval import evaluate

    return evaluate(truth, pred, metrics="ceafe")


def tool_ereval_table(truth: Any, pred: Any) -> Any:
    from ereval import contingency_table

    return contingency_table(truth, pred)


def tool_sklearn(truth: Any, pred: Any) -> Any:
    from sklearn.metrics import adjusted_rand_score, homogeneity_completeness_v_measure

    p = pred.reindex(truth.index).to_numpy()
    t = truth.to_numpy()
    return homogeneity_completeness_v_measure(t, p), adjusted_rand_score(t, p)


def _frame(truth: Any, pred: Any) -> Any:
    import pandas as pd

    return pd.DataFrame({"t": truth.to_numpy(), "p": pred.reindex(truth.index).to_numpy()})


def tool_duckdb_groupby(truth: Any, pred: Any, *, frame: Any = None) -> Any:
    import duckdb

    con = duckdb.connect()
    con.register("df", frame)
    return con.execute("SELECT t, p, count(*) AS n FROM df GROUP BY t, p").fetchnumpy()


def tool_duckdb_join_groupby(truth: Any, pred: Any) -> Any:
    import duckdb
    import pandas as pd

    con = duckdb.connect()
    con.register("t", pd.DataFrame({"r": truth.index.to_numpy(), "t": truth.to_numpy()}))
    con.register("p", pd.DataFrame({"r": pred.index.to_numpy(), "p": pred.to_numpy()}))
    return con.execute(
        "SELECT t, p, count(*) AS n FROM t JOIN p USING (r) GROUP BY t, p"
    ).fetchnumpy()


def tool_polars_groupby(truth: Any, pred: Any, *, frame: Any = None) -> Any:
    import polars as pl

    return pl.from_pandas(frame).group_by(["t", "p"]).len()


def tool_er_evaluation(truth: Any, pred: Any) -> Any:
    import er_evaluation as ee

    return (
        ee.pairwise_precision(pred, truth)
        + ee.b_cubed_precision(pred, truth)
        + ee.cluster_precision(pred, truth)
        + ee.cluster_homogeneity(pred, truth)
    )


TOOLS = {
    "ereval_all": tool_ereval_all,
    "ereval_all_aligned": tool_ereval_all_aligned,
    "ereval_ceafe": tool_ereval_ceafe,
    "ereval_table": tool_ereval_table,
    "sklearn": tool_sklearn,
    "duckdb_groupby": tool_duckdb_groupby,
    "duckdb_join_groupby": tool_duckdb_join_groupby,
    "polars_groupby": tool_polars_groupby,
    "er_evaluation": tool_er_evaluation,
}
NEEDS_FRAME = {"duckdb_groupby", "polars_groupby", "ereval_all_aligned"}
# imported before the clock starts: import time is not part of any measurement
IMPORTS = {
    "ereval_all": ["ereval"],
    "ereval_all_aligned": ["ereval"],
    "ereval_ceafe": ["ereval"],
    "ereval_table": ["ereval"],
    "sklearn": ["sklearn.metrics"],
    "duckdb_groupby": ["duckdb"],
    "duckdb_join_groupby": ["duckdb"],
    "polars_groupby": ["polars"],
    "er_evaluation": ["er_evaluation"],
}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(tool: str, n: int) -> None:
    """Build the data, time one call of ``tool`` and print a JSON line."""
    truth, pred = make_data(n)
    kwargs = {"frame": _frame(truth, pred)} if tool in NEEDS_FRAME else {}
    for module in IMPORTS[tool]:
        importlib.import_module(module)
    before = _rss_mb()
    t0 = time.perf_counter()
    TOOLS[tool](truth, pred, **kwargs)
    elapsed = time.perf_counter() - t0
    print(
        json.dumps({"tool": tool, "n": n, "seconds": elapsed, "peak_growth_mb": _rss_mb() - before})
    )


def run(tool: str, n: int, python: str) -> dict[str, Any] | None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE.parents[1] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [python, str(HERE), "--worker", tool, str(n)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if out.returncode != 0:
        print(
            f"  {tool} at N={n:.0e} failed: {out.stderr.strip().splitlines()[-1:]}", file=sys.stderr
        )
        return None
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6, 1e7])
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per tool and size (best time is kept)"
    )
    parser.add_argument("--er-evaluation-python", default="/tmp/erev/bin/python")
    parser.add_argument("--er-evaluation-max", type=float, default=1e6)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS))
    parser.add_argument("--worker", nargs=2, metavar=("TOOL", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(float(args.worker[1])))
        return
    ee_python = args.er_evaluation_python if Path(args.er_evaluation_python).exists() else None
    print(f"{'N':>8} {'tool':<22} {'seconds':>9} {'peak MB':>9} {'x ereval_all':>13}")
    for size in args.sizes:
        n = int(size)
        results: dict[str, dict[str, Any]] = {}
        for tool in args.tools:
            python = sys.executable
            if tool == "er_evaluation":
                if ee_python is None or n > args.er_evaluation_max:
                    continue
                python = ee_python
            best: dict[str, Any] | None = None
            for _ in range(args.repeat):
                res = run(tool, n, python)
                if res is not None and (best is None or res["seconds"] < best["seconds"]):
                    best = res
            if best is not None:
                results[tool] = best
        base = results.get("ereval_all", {}).get("seconds")
        for tool, res in results.items():
            ratio = f"{res['seconds'] / base:13.2f}" if base else " " * 13
            print(
                f"{n:>8.0e} {tool:<22} {res['seconds']:>9.3f} {res['peak_growth_mb']:>9.0f} {ratio}"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
