"""Candidate intervals for the importance-weighted OASIS estimators, compared on the same labels.

For ``--repeats`` seeded runs of a sampler (default OASIS) on a pool (default the
Amazon-Google stand-in of ``_oasis_pools.py``) up to ``--budget`` labels, every
candidate interval is computed from the same draws, and the script prints, per
measure (F1, precision, recall) and candidate, the coverage of the true value, the
median width, the share of [0, 1] intervals and the empirical sd of the estimates:

* ``delta``: Wald interval with the delta-method variance of the ratio, plugged in
  from the draws, ``sum_t (a_t - F b_t)^2 / (sum_t b_t)^2`` (the martingale CLT of
  adaptive importance sampling; the estimated curve's interval before);
* ``delta-logit``: the same variance on the logit scale, back-transformed;
* ``bootstrap``: basic bootstrap over the draws (200 resamples of the draws of the
  strata not completely labelled);
* ``one-draw``, ``model``: the two parts of :mod:`ereval.oasis._intervals`;
* ``reported``: their union, what the samplers report.

The model-based delta method of earlier versions (the sampler's own estimate, with
``sum_k N_k^2 mu2_k sum_t 1 / v_kt``) is no longer in the code; its figures come
from ``bench_oasis_coverage.py`` run at the commit before the change (see
``docs/oasis.md``).

Usage::

    python benchmarks/bench_oasis_interval_methods.py [--pool amazon-google-standin]
        [--method oasis] [--budget 1000] [--repeats 200]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ereval.oasis._measures as measures
from _oasis_pools import load_pool
from ereval.oasis import make_sampler, stratify

Z = 1.959963984540054
MEASURES = {"f1": 0.5, "precision": 1.0, "recall": 0.0}


def _ratio(x: np.ndarray, alpha: float) -> np.ndarray:
    den = alpha * x[..., 1] + (1 - alpha) * x[..., 2]
    return np.divide(x[..., 0], den, out=np.full(den.shape, np.nan), where=den > 0)


def candidates(sampler: Any, rng: np.random.Generator) -> dict[str, dict[str, tuple[float, ...]]]:
    """Every candidate interval for each measure, from one sampler's draws."""
    pool = sampler.pool
    idx, lab = sampler.labelled
    label_of = np.zeros(pool.size)
    label_of[idx] = lab
    design = sampler.strata
    complete = np.array([np.all(np.isin(design.members(k), idx)) for k in range(design.n_strata)])
    census = np.zeros(3)
    for i, y in zip(idx.tolist(), lab.tolist(), strict=True):
        if complete[design.allocations[i]]:
            census += [y * pool.predictions[i], pool.predictions[i], y]
    hist_idx, hist_w = sampler.history
    t = len(hist_idx)
    w = np.where(complete[design.allocations[hist_idx]], 0.0, hist_w)
    y = label_of[hist_idx]
    a = pool.predictions[hist_idx].astype(float)
    x = census[None, :] + w[:, None] * np.stack([y * a, a, y], axis=1)  # x_t with the census
    counts = x.mean(axis=0)
    # the parts of the reported interval
    parts: dict[float, tuple[Any, Any]] = {}
    original = measures.combine_intervals

    def spy(value: float, one: Any, model: Any, *, level: float) -> Any:
        parts[len(parts)] = (one, model)
        return original(value, one, model, level=level)

    measures.combine_intervals = spy  # type: ignore[assignment]
    try:
        est = sampler.estimate()
    finally:
        measures.combine_intervals = original  # type: ignore[assignment]
    boot_rows = rng.integers(0, t, size=(200, t))
    boot = x[boot_rows].mean(axis=1)  # (200, 3)
    out: dict[str, dict[str, tuple[float, ...]]] = {}
    for j, (name, alpha) in enumerate(MEASURES.items()):
        f = float(_ratio(counts, alpha))
        rep = est.measure(alpha)
        row: dict[str, tuple[float, ...]] = {"value": (f,), "reported": rep.interval}
        if math.isfinite(f):
            b_t = alpha * x[:, 1] + (1 - alpha) * x[:, 2]
            u = x[:, 0] - f * b_t
            sd = math.sqrt(float(u @ u)) / float(b_t.sum())
            row["delta"] = (max(f - Z * sd, 0.0), min(f + Z * sd, 1.0))
            if 0.0 < f < 1.0:
                lg = math.log(f / (1 - f))
                s = sd / (f * (1 - f))
                row["delta-logit"] = tuple(1 / (1 + math.exp(-(lg + k * Z * s))) for k in (-1, 1))
            else:
                row["delta-logit"] = (f, f)
            fb = _ratio(boot, alpha)
            fb = fb[np.isfinite(fb)]
            lo, hi = np.quantile(fb, [0.025, 0.975]) if fb.size else (f, f)
            row["bootstrap"] = (max(2 * f - hi, 0.0), min(2 * f - lo, 1.0))
            one, model = parts[j]
            row["one-draw"] = (max(one[0], 0.0), min(one[1], 1.0))
            row["model"] = model
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pool", default="amazon-google-standin")
    parser.add_argument("--method", default="oasis", choices=("oasis", "importance", "passive"))
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    pool = load_pool(args.pool)
    options: dict[str, Any] = {"strata": stratify(pool.scores)} if args.method == "oasis" else {}
    truth = {m: pool.true_measure(a) for m, a in MEASURES.items()}
    rng = np.random.default_rng(0)
    rows: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for seed in range(args.repeats):
        sampler = make_sampler(args.method, pool, seed=seed, **options)
        sampler.run(budget=args.budget)
        for m, cands in candidates(sampler, rng).items():
            f = cands["value"][0]
            if not math.isfinite(f):
                continue
            for name, iv in cands.items():
                if name != "value":
                    rows.setdefault((m, name), []).append((f, iv[0], iv[1]))
    print(f"{args.pool}, {args.method}, {args.budget} labels, {args.repeats} runs")
    print("measure    candidate     coverage  median width  [0, 1]  empirical sd")
    for (m, name), values in rows.items():
        v = np.array(values)
        cov = float(np.mean((v[:, 1] <= truth[m]) & (truth[m] <= v[:, 2])))
        width = float(np.median(v[:, 2] - v[:, 1]))
        whole = float(np.mean((v[:, 1] <= 0) & (v[:, 2] >= 1)))
        print(
            f"{m:10s} {name:12s}  {cov:8.2f}  {width:12.3f}  {whole:6.2f}  {np.std(v[:, 0]):12.3f}"
        )


if __name__ == "__main__":
    main()
