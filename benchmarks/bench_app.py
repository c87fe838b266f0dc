"""Latency of the labelling app's actions with N records loaded, measured over HTTP.

Builds N synthetic person records (the generator of ``bench_label_search.py``),
a predicted clustering (the true people, with some merged and split), and a
cluster review of ``--draws`` drawn records; starts ``ereval label serve`` on
it (the data and the search index are loaded once, at start-up) and measures
with httpx, per action, the median and 95th percentile of the time to answer:

* ``static``   -- GET of the stylesheet: the HTTP round trip, the baseline;
* ``overview`` -- the sessions page with progress;
* ``page``     -- the review page of a drawn record (its predicted cluster, the
  quality checks, the predicted-vs-true view);
* ``toggle``   -- the same page with a record marked as not belonging;
* ``search``   -- a fuzzy query with a typo over all N records;
* ``save``     -- saving an answer (checked, one transaction);
* ``next``     -- start: the next drawn record handed out and claimed, and its page;
* ``undo`` / ``redo``.

Ratios are to the baseline measured in the same run.

    python benchmarks/bench_app.py                 # N = 10^6
    python benchmarks/bench_app.py -n 100000 --repeats 30
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_label_search import _records, _typo

SRC = Path(__file__).resolve().parents[1] / "src"


def _prediction(person: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The true people with 5% of records moved to a neighbouring person (merges)."""
    pred = person.copy()
    moved = rng.random(len(pred)) < 0.05
    pred[moved] = (pred[moved] + 1) % (pred.max() + 1)
    return pred


def _timed(fn: object, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(1000 * (time.perf_counter() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=1_000_000)
    parser.add_argument("--draws", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=60)
    args = parser.parse_args()

    from ereval.labels import LabelStore, create_cluster_review

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        frame = _records(args.n, rng)
        pred = _prediction(frame["person"].to_numpy(), rng)
        frame.drop(columns="person").to_parquet(folder / "records.parquet")
        frame.assign(cluster_id=[f"c{p}" for p in pred])[["record_id", "cluster_id"]].to_parquet(
            folder / "pred.parquet"
        )
        db = folder / "labels.db"
        with LabelStore(db, create=True) as store:
            create_cluster_review(
                store,
                "bench",
                data=folder / "records.parquet",
                prediction=folder / "pred.parquet",
                n=args.draws,
                seed=1,
                search_columns=["first_name", "last_name", "city"],
            )
        print(f"records: {args.n:,}; data and session written in {time.perf_counter() - t0:.1f} s")

        env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
        t0 = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "ereval", "label", "serve", "--db", str(db), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        try:
            assert server.stdout is not None
            url = None
            for line in server.stdout:
                found = re.search(r"at (http://\S+?:\d+)/", line)
                if found:
                    url = found.group(1)
                    break
            if url is None:
                raise SystemExit("the server did not start")
            print(
                f"server ready (data loaded, search index built) in {time.perf_counter() - t0:.1f} s"
            )
            _measure(url, frame, rng, args.repeats)
        finally:
            server.terminate()
            server.wait(timeout=30)
            if server.stdout is not None:
                server.stdout.close()


def _measure(url: str, frame: object, rng: np.random.Generator, repeats: int) -> None:
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    c = httpx.Client(base_url=url, timeout=30.0)
    opened = c.get("/s/bench/review", follow_redirects=True)  # looking hands out nothing
    csrf = re.search(r'name="csrf-token" content="([0-9a-f]+)"', opened.text)
    assert csrf is not None
    token = csrf.group(1)
    first = c.post("/s/bench/start", data={"csrf": token}, follow_redirects=True)
    item = first.url.params["item"]
    members = re.findall(r'data-record="([^"]+)"', first.text)
    other = members[1] if len(members) > 1 else item
    names = (
        (frame["first_name"] + " " + frame["last_name"])
        .sample(repeats + 5, random_state=0)
        .tolist()
    )
    queries = iter([_typo(q, rng) for q in names])

    def save_next() -> None:
        res = c.post("/s/bench/review/save", data={"csrf": token, "item": item})
        assert res.status_code == 303, res.text

    def following() -> None:
        res = c.post("/s/bench/start", data={"csrf": token}, follow_redirects=True)
        assert res.status_code == 200

    def ok(res: httpx.Response) -> None:
        assert res.status_code in (200, 303), (res.status_code, res.text[:200])

    actions = {
        "static": lambda: ok(c.get("/static/app.css")),
        "overview": lambda: ok(c.get("/")),
        "page": lambda: ok(c.get("/s/bench/review", params={"item": item})),
        "toggle": lambda: ok(c.get("/s/bench/review", params={"item": item, "remove": other})),
        "search": lambda: ok(c.get("/s/bench/search", params={"q": next(queries), "item": item})),
        "save": save_next,
        "undo": lambda: ok(c.post("/s/bench/undo", data={"csrf": token})),
        "redo": lambda: ok(c.post("/s/bench/redo", data={"csrf": token})),
        "next": following,
    }
    for fn in actions.values():  # warm up every route once
        fn()
    results = {name: _timed(fn, repeats) for name, fn in actions.items()}
    base = statistics.median(results["static"])
    print(f"{'action':<10} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'x static':>9}")
    for name, times in results.items():
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        med = statistics.median(times)
        print(f"{name:<10} {med:>10.1f} {p95:>8.1f} {times[-1]:>8.1f} {med / base:>9.1f}")
    c.close()


if __name__ == "__main__":
    main()
