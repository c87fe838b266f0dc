"""Fuzzy search and review actions of a cluster review over N records.

Builds N synthetic person records (first name, last name, city from small
vocabularies, so names repeat as in real data), then measures

* the time to build the search index (once per process),
* the latency of queries with typos (median, 95th percentile, maximum), and
  the same queries answered by a full RapidFuzz scan of all N texts
  (``rapidfuzz.process.extract``), the baseline, measured in the same run;
* the latency of the review actions a server answers: hand out the next drawn
  record with its predicted cluster, run the quality checks and save a label.

    python benchmarks/bench_label_search.py               # N = 10^6
    python benchmarks/bench_label_search.py -n 100000 --queries 50
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

FIRST = [
    "james", "mary", "john", "patricia", "robert", "jennifer", "michael", "linda", "william",
    "elizabeth", "david", "barbara", "richard", "susan", "joseph", "jessica", "thomas", "sarah",
    "charles", "karen", "maria", "jose", "luis", "ana", "wei", "li", "mohammed", "fatima",
]  # fmt: skip
LAST = [
    "smith", "johnson", "williams", "brown", "jones", "garcia", "miller", "davis", "rodriguez",
    "martinez", "hernandez", "lopez", "gonzalez", "wilson", "anderson", "thomas", "taylor",
    "moore", "jackson", "martin", "lee", "perez", "thompson", "white", "harris", "sanchez",
    "clark", "ramirez", "lewis", "robinson", "walker", "young", "allen", "king", "wright",
]  # fmt: skip


def _records(n: int, rng: np.random.Generator) -> pd.DataFrame:
    syllables = np.array(list("bcdfghklmnprstvz"))
    vowels = np.array(list("aeiou"))
    # a long tail of rarer surnames, as in real data
    extra = [
        "".join(rng.choice(syllables) + rng.choice(vowels) for _ in range(3)) for _ in range(5000)
    ]
    last = np.array(LAST + extra)
    weights = np.r_[np.full(len(LAST), 50.0), np.ones(len(extra))]
    people = n // 3
    first_p = rng.choice(FIRST, size=people)
    last_p = rng.choice(last, size=people, p=weights / weights.sum())
    person = rng.integers(0, people, size=n)
    return pd.DataFrame(
        {
            "record_id": [f"r{k:07d}" for k in range(n)],
            "first_name": first_p[person],
            "last_name": last_p[person],
            "city": rng.choice(["springfield", "riverside", "franklin", "clinton"], size=n),
            "person": person,
        }
    )


def _typo(text: str, rng: np.random.Generator) -> str:
    i = int(rng.integers(1, len(text) - 1))
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]  # swap two letters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--baseline-queries", type=int, default=5)
    parser.add_argument("--actions", type=int, default=50)
    args = parser.parse_args()

    from rapidfuzz import fuzz, process, utils

    from ereval.labels import LabelStore, SearchIndex, create_cluster_review

    rng = np.random.default_rng(0)
    frame = _records(args.n, rng)
    t0 = time.perf_counter()
    index = SearchIndex.from_frame(frame, id_col="record_id", columns=["first_name", "last_name"])
    build = time.perf_counter() - t0
    queries = [
        _typo(f"{frame.first_name[k]} {frame.last_name[k]}", rng)
        for k in rng.integers(0, args.n, size=args.queries)
    ]
    index.search(queries[0])  # warm up
    times = []
    for q in queries:
        t = time.perf_counter()
        index.search(q, limit=20)
        times.append(time.perf_counter() - t)
    ms = np.array(times) * 1000
    scan = []
    texts = index.texts
    for q in queries[: args.baseline_queries]:
        t = time.perf_counter()
        process.extract(q, texts, scorer=fuzz.WRatio, processor=utils.default_process, limit=20)
        scan.append(time.perf_counter() - t)
    scan_ms = float(np.median(scan) * 1000)
    print(f"records: {args.n:,}")
    print(f"index build: {build:.1f} s")
    print(
        f"search ({args.queries} queries with a typo): median {np.median(ms):.1f} ms, "
        f"p95 {np.percentile(ms, 95):.1f} ms, max {ms.max():.1f} ms"
    )
    print(
        f"full RapidFuzz scan (baseline, {args.baseline_queries} queries): median {scan_ms:.0f} ms"
        f" -> index is {scan_ms / np.median(ms):.0f}x faster"
    )

    with tempfile.TemporaryDirectory() as folder:
        data, pred = Path(folder) / "records.parquet", Path(folder) / "pred.parquet"
        frame.drop(columns="person").to_parquet(data)
        pd.DataFrame({"record_id": frame.record_id, "cluster_id": frame.person}).to_parquet(pred)
        store = LabelStore(Path(folder) / "l.db", create=True)
        t0 = time.perf_counter()
        review = create_cluster_review(
            store, "main", data=data, prediction=pred, n=args.actions + 1, seed=0,
            search_columns=["first_name", "last_name"],
        )  # fmt: skip
        review.next(reviewer="warm-up")  # loads the prediction once
        setup = time.perf_counter() - t0
        steps = []
        for _ in range(args.actions):
            t = time.perf_counter()
            task = review.next(reviewer="ana")
            if task is None:
                break
            review.save(task.record_id, reviewer="ana", remove=task.predicted[1:2])
            steps.append(time.perf_counter() - t)
        step_ms = np.array(steps) * 1000
        print(f"session setup (read data, draw, first task): {setup:.1f} s")
        print(
            f"review action (next record + checks + save), {len(steps)} actions: "
            f"median {np.median(step_ms):.1f} ms, p95 {np.percentile(step_ms, 95):.1f} ms"
        )
        store.close()


if __name__ == "__main__":
    main()
