"""Speed of ``ereval report``: the example report, and a large evaluation's report
beside the metric computation it reports (seeded synthetic data).

* ``example``: :func:`ereval.report.example_report` (every section: two predictions,
  sample, releases, scored pairs, OASIS with 500 labels, PAULA) and its HTML page,
  then the same with every chart also drawn as PNG (``--plots``);
* ``large``: a truth of N records (cluster sizes Zipf(a=2) capped at 1000) and a
  prediction moving 1% of the records; the metric computation is
  :func:`ereval.evaluate` of every canonical metric (what ``ereval metrics`` does),
  the report is :func:`ereval.report.build_report` of the same pair (metrics,
  summary statistics, the worst clusters) and its HTML page. The maths it calls
  (``contingency_table``, ``evaluate``, ``cluster_errors``, ``summarize``) is timed
  inside that run; the report's own work (sections, readings, tables, charts, the
  page) is the rest, printed as a ratio to the metric computation alone.

    python benchmarks/bench_report.py               # N = 1e7
    python benchmarks/bench_report.py --n 1e6
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from _synthetic import best_time, move_records, zipf_clusters
from ereval import evaluate
from ereval.io import Membership
from ereval.report import _collect, build_report, collect_results, example_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=float, default=1e7, help="records of the large evaluation")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best kept)")
    args = parser.parse_args()
    n = int(args.n)

    example_report().html()  # warm up: imports, the Vega bundle
    t_example = best_time(lambda: example_report().html(), args.repeat)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.html"
        t_files = best_time(
            lambda: example_report().save(out, plots_dir=Path(folder) / "report_files"),
            args.repeat,
        )
    print(f"example report (page only):                  {t_example:7.2f} s")
    print(f"example report (page, SVG and PNG of charts): {t_files:7.2f} s")

    rng = np.random.default_rng(0)
    ids = np.arange(n, dtype=np.int64)
    truth_labels = zipf_clusters(rng, n)
    truth = Membership(ids, truth_labels)
    pred = Membership(ids, move_records(rng, truth_labels, 0.01))
    t_metrics = best_time(lambda: evaluate(truth, pred), args.repeat)

    # the maths the report calls, timed inside the report itself
    spent: dict[str, float] = {}

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

        return wrapper

    for name in ("contingency_table", "evaluate", "cluster_errors", "summarize"):
        setattr(_collect, name, timed(name, getattr(_collect, name)))
    best: tuple[float, dict[str, float]] | None = None
    for _ in range(args.repeat):
        spent.clear()
        start = time.perf_counter()
        build_report(collect_results(truth=truth, preds={"pred": pred})).html()
        total = time.perf_counter() - start
        if best is None or total < best[0]:
            best = (total, dict(spent))
    assert best is not None
    total, parts = best
    maths = sum(parts.values())
    own = total - maths
    print(f"\n{n:,} records")
    print(f"every canonical metric (evaluate, alone):        {t_metrics:7.2f} s")
    print(f"report of the same evaluation (total):           {total:7.2f} s, of which")
    for name, sec in parts.items():
        print(f"  {name + ':':<45}{sec:7.2f} s")
    print(
        f"  the report's own work (sections, charts, page): {own:7.2f} s "
        f"= {own / t_metrics:.2f} x the metric computation"
    )


if __name__ == "__main__":
    main()
