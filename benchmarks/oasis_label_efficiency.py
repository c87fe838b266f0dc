"""Label efficiency of OASIS, Passive, Stratified and IS, next to the reference ``oasis``.

For each pool (the three pools of the OASIS paper and synthetic pools of
10^5 and 10^6 pairs with ~1:1000 imbalance) and each method, run ``--repeats``
independent runs and print the mean absolute error of F1 after 500, 1000, 2000
and 5000 distinct labels, the standard deviation of the estimates, the mean
reported standard error (``rep.sd``), the coverage of ereval's 95% intervals and
the mean number of draws.  The same strata (ereval's default:
cumulative sqrt(F), 30 strata) and the same match-probability guesses (the
pool's ``probability`` column) are given to the reference package.

Usage::

    python benchmarks/oasis_label_efficiency.py [--repeats 100] [--pools abt-buy,...]
        [--ref-repeats 100] [--ref-is-max-n 200000] [--ref-max-iter 20000]
        [--methods oasis,passive,...] [--budgets 500,1000,...]
        [--no-reference] [--out results.json] [--ref-cache ref.json]

The reference side needs the separate environment described in
``benchmarks/_oasis_reference.py``; without it only ereval's side runs.  The
reference IS sampler costs O(N) per draw, so by default it runs only on pools of
at most ``--ref-is-max-n`` pairs; a reference run that needs more than
``--ref-max-iter`` draws to reach a budget (its redraw failure mode) counts as
undefined there (``defined`` < 1).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _oasis_reference as ref
from ereval.oasis import Pool, read_pool, run_experiment, stratify, synthetic_pool

POOLS_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "oasis-pools"
POOLS = {
    "abt-buy": "abt-buy-svm.csv.gz",
    "dblp-acm": "dblp-acm-svm-small.csv.gz",
    "restaurant": "restaurant-svm.csv.gz",
}
BUDGETS = (500, 1000, 2000, 5000)
METHODS = ("oasis", "passive", "stratified", "importance")


def load(name: str) -> Pool:
    if name in POOLS:
        return read_pool(POOLS_DIR / POOLS[name])
    if name == "synthetic-1e5":
        return synthetic_pool(100_000, imbalance=1000, seed=1)
    if name == "synthetic-1e6":
        return synthetic_pool(1_000_000, imbalance=1000, seed=2)
    raise SystemExit(f"unknown pool {name!r}")


def reference_rows(
    pool: Pool,
    alloc: np.ndarray,
    method: str,
    repeats: int,
    truth: float,
    max_iter: int,
    budgets: tuple[int, ...] = BUDGETS,
) -> dict[int, dict[str, float]]:
    arrays = {
        "predictions": pool.predictions,
        "probabilities": pool.probabilities,
        "labels": pool.labels if pool.labels is not None else np.zeros(pool.size),
        "allocations": alloc,
    }
    job = {
        "kind": "efficiency",
        "method": method,
        "alpha": 0.5,
        "epsilon": 1e-3,
        "budgets": list(budgets),
        "repeats": repeats,
        "seed": 12345,
        "max_iter": max_iter,
    }
    res = ref.run_job(arrays, job)
    out: dict[int, dict[str, float]] = {}
    for j, b in enumerate(budgets):
        e = res["estimates"][:, j]
        ok = np.isfinite(e)
        out[b] = {
            "mae": float(np.mean(np.abs(e[ok] - truth))) if ok.any() else float("nan"),
            "std": float(np.std(e[ok], ddof=1)) if ok.sum() > 1 else float("nan"),
            "defined": float(ok.mean()),
            "mean_iterations": float(np.mean(res["iterations"][:, j])),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--ref-repeats", type=int, default=100)
    parser.add_argument("--ref-is-max-n", type=int, default=200_000)
    parser.add_argument(
        "--ref-max-iter",
        type=int,
        default=20_000,
        help="draws after which a reference run counts as not reaching the budget",
    )
    parser.add_argument(
        "--pools", default="abt-buy,dblp-acm,restaurant,synthetic-1e5,synthetic-1e6"
    )
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--budgets", default=",".join(str(b) for b in BUDGETS))
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--ref-cache",
        type=Path,
        default=None,
        help="JSON file keeping reference results between runs (they do not change)",
    )
    args = parser.parse_args()
    methods = tuple(args.methods.split(","))
    budgets = tuple(int(b) for b in args.budgets.split(","))
    use_ref = not args.no_reference and ref.available()
    if not args.no_reference and not use_ref:
        print(f"reference interpreter {ref.REF_PYTHON} not usable: running ereval only\n")
    results: dict[str, object] = {}
    cache: dict[str, dict[str, dict[str, float]]] = {}
    if args.ref_cache is not None and args.ref_cache.exists():
        cache = json.loads(args.ref_cache.read_text())
    for name in args.pools.split(","):
        pool = load(name)
        strata = stratify(pool.scores)
        truth = pool.true_measure(0.5)
        n_pos = int(pool.labels.sum()) if pool.labels is not None else 0
        print(
            f"== {name}: N = {pool.size}, matches = {n_pos}, F1 = {truth:.4f}, "
            f"strata = {strata.n_strata}"
        )
        t0 = time.process_time()
        exp = run_experiment(
            pool, methods=methods, budgets=budgets, repeats=args.repeats, strata=strata, seed=7
        )  # type: ignore[arg-type]
        print(
            f"   ereval: {time.process_time() - t0:.1f} s CPU for {args.repeats} runs x {len(methods)} methods"
        )
        pool_res: dict[str, object] = {
            "ereval": exp.to_frame().to_dict(orient="records"),
            "truth": truth,
            "n": pool.size,
        }
        print(
            f"   {'method':<11}{'budget':>7}{'MAE':>10}{'std':>10}{'rep.sd':>9}{'cover':>7}{'draws':>9}"
            f"{'ref MAE':>10}{'ref std':>10}{'ref draws':>11}{'ratio':>7}"
        )
        ref_all: dict[str, dict[int, dict[str, float]]] = {}
        for method in methods:
            ref_rows = None
            key = f"{name}/{method}/{args.ref_repeats}/{args.ref_max_iter}/{strata.n_strata}"
            if budgets != BUDGETS:
                key += "/" + ",".join(map(str, budgets))
            if key in cache:
                ref_rows = {int(b): v for b, v in cache[key].items()}
                ref_all[method] = ref_rows
            elif use_ref and not (method == "importance" and pool.size > args.ref_is_max_n):
                t1 = time.perf_counter()
                ref_rows = reference_rows(
                    pool,
                    strata.allocations,
                    method,
                    args.ref_repeats,
                    truth,
                    args.ref_max_iter,
                    budgets,
                )
                ref_all[method] = ref_rows
                print(
                    f"   (reference {method}: {time.perf_counter() - t1:.1f} s for {args.ref_repeats} runs)",
                    flush=True,
                )
                if args.ref_cache is not None:
                    cache[key] = ref_rows
                    args.ref_cache.write_text(json.dumps(cache, indent=1))
            for b in budgets:
                row = exp.row(method, b)
                line = (
                    f"   {method:<11}{b:>7}{row.mae:>10.4f}{row.std:>10.4f}{row.mean_std_estimate:>9.4f}"
                    f"{row.coverage:>7.2f}"
                    f"{row.mean_iterations:>9.0f}"
                )
                if ref_rows is not None:
                    rr = ref_rows[b]
                    ratio = rr["mae"] / row.mae if row.mae > 0 else float("nan")
                    line += f"{rr['mae']:>10.4f}{rr['std']:>10.4f}{rr['mean_iterations']:>11.0f}{ratio:>7.2f}"
                print(line, flush=True)
        pool_res["reference"] = ref_all
        results[name] = pool_res
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=1, default=float))


if __name__ == "__main__":
    main()
