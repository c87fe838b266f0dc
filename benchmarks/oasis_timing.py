"""CPU time per iteration of the OASIS samplers, next to the reference ``oasis`` 0.1.3.

For synthetic pools of 10^5 and 10^6 pairs (~1:1000 imbalance, 30 strata of the
default stratification, labels answered from the label column) print the CPU
time per iteration (one draw, plus a label when the pair is new) of each
sampler, ereval's and the reference's (best of ``--repeat`` measurements), and
their ratio.  Then show how the cost
of one static IS draw grows with N (a binary search: O(log N)).

Usage::

    python benchmarks/oasis_timing.py [--iterations 20000] [--repeat 3] [--no-reference]

The reference side needs the environment described in
``benchmarks/_oasis_reference.py``; without it only ereval's side runs.  Times
are ``time.process_time`` of the sampling loop alone (set-up excluded, as in
the paper's Table 3).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _oasis_reference as ref
from ereval.oasis import ImportanceSampler, Pool, make_sampler, stratify, synthetic_pool

METHODS = ("oasis", "passive", "stratified", "importance")
#: iterations of the reference's IS, whose every draw costs O(N)
REF_IS_ITERATIONS = {100_000: 300, 1_000_000: 60}


def ours_per_iteration(pool: Pool, method: str, iterations: int, strata: object) -> float:
    options: dict[str, object] = {"seed": 0}
    if method in ("oasis", "stratified"):
        options["strata"] = strata
    sampler = make_sampler(method, pool, **options)  # type: ignore[arg-type]
    oracle = pool.labels.item  # type: ignore[union-attr]
    t0 = time.process_time()
    sampler.run(oracle, budget=pool.size, max_iterations=iterations)
    return (time.process_time() - t0) / sampler.iterations


def reference_per_iteration(pool: Pool, method: str, iterations: int, alloc: np.ndarray) -> float:
    arrays = {
        "predictions": pool.predictions,
        "probabilities": pool.probabilities,
        "labels": pool.labels if pool.labels is not None else np.zeros(pool.size),
        "allocations": alloc,
    }
    job = {
        "kind": "timing",
        "method": method,
        "alpha": 0.5,
        "epsilon": 1e-3,
        "seed": 0,
        "iterations": iterations,
        "max_iter": iterations + 10,
    }
    res = ref.run_job(arrays, job)
    return float(res["cpu"][0] / res["iterations"][0])


def is_draw_scaling(sizes: tuple[int, ...], draws: int) -> None:
    print("\nstatic IS: CPU time per draw (binary search in the cumulative pmf)")
    for n in sizes:
        pool = synthetic_pool(n, imbalance=1000, seed=5)
        sampler = ImportanceSampler(pool, seed=0)
        t0 = time.process_time()
        for _ in range(draws):
            sampler._draw()
        per = (time.process_time() - t0) / draws
        print(f"   N = {n:>10,}: {per * 1e6:7.2f} us per draw   (log2 N = {np.log2(n):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--ref-iterations", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many measurements")
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()
    use_ref = not args.no_reference and ref.available()
    if not args.no_reference and not use_ref:
        print(f"reference interpreter {ref.REF_PYTHON} not usable: running ereval only\n")
    for n in (100_000, 1_000_000):
        pool = synthetic_pool(n, imbalance=1000, seed=1)
        strata = stratify(pool.scores)
        print(f"== N = {n:,} ({int(pool.labels.sum())} matches, {strata.n_strata} strata)")  # type: ignore[union-attr]
        print(f"   {'method':<11}{'ereval us/it':>14}{'reference us/it':>17}{'ratio':>8}")
        for method in METHODS:
            ours = min(
                ours_per_iteration(pool, method, args.iterations, strata)
                for _ in range(args.repeat)
            )
            line = f"   {method:<11}{ours * 1e6:>14.2f}"
            if use_ref:
                its = REF_IS_ITERATIONS[n] if method == "importance" else args.ref_iterations
                theirs = min(
                    reference_per_iteration(pool, method, its, strata.allocations)
                    for _ in range(args.repeat)
                )
                line += f"{theirs * 1e6:>17.2f}{theirs / ours:>8.1f}"
            print(line, flush=True)
    is_draw_scaling((10_000, 100_000, 1_000_000, 10_000_000), 50_000)


if __name__ == "__main__":
    main()
