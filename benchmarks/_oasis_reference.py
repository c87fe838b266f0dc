"""Runs the published ``oasis`` 0.1.3 package next to ereval, in its own interpreter.

The reference package is not a dependency of ereval.  It lives in a separate
virtual environment, set up once with::

    python -m venv /tmp/oasis-ref
    /tmp/oasis-ref/bin/pip install numpy scipy scikit-learn
    /tmp/oasis-ref/bin/pip install --no-deps oasis==0.1.3

and the benchmarks find it through ``$OASIS_REF_PYTHON`` (default
``/tmp/oasis-ref/bin/python``).  This file is both the client (imported by the
benchmarks, with ereval's interpreter) and the worker (run by the reference
interpreter: it reads a job from an ``.npz`` file and writes results back).

NumPy 2 shims applied in the worker: ``scipy.percentile``/``scipy.ptp`` (removed
from SciPy) are pointed at NumPy's, and ``tables`` (PyTables, imported by the
package's experiment helpers, unused here) is stubbed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REF_PYTHON = Path(os.environ.get("OASIS_REF_PYTHON", "/tmp/oasis-ref/bin/python"))


def available() -> bool:
    """Whether the reference interpreter exists and imports ``oasis``."""
    if not REF_PYTHON.exists():
        return False
    probe = subprocess.run(
        [str(REF_PYTHON), "-c", _SHIMS + "import oasis"],
        capture_output=True,
        text=True,
        check=False,
    )
    return probe.returncode == 0


def run_job(arrays: dict[str, np.ndarray], job: dict[str, Any]) -> dict[str, np.ndarray]:
    """Send a job to the reference worker and return its result arrays."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "job.npz"
        dst = Path(tmp) / "result.npz"
        np.savez(src, __job__=np.array(json.dumps(job)), **arrays)
        subprocess.run([str(REF_PYTHON), __file__, str(src), str(dst)], check=True)
        with np.load(dst) as data:
            return {k: data[k] for k in data.files}


_SHIMS = (
    "import sys, types, numpy, scipy\n"
    "scipy.percentile = numpy.percentile\n"
    "scipy.ptp = numpy.ptp\n"
    "sys.modules.setdefault('tables', types.ModuleType('tables'))\n"
)


def _worker(src: str, dst: str) -> None:  # pragma: no cover - runs in the reference venv
    exec(_SHIMS, {})
    import contextlib
    import io
    import warnings

    import oasis

    with np.load(src) as data:
        arrays = {k: data[k] for k in data.files}
    job = json.loads(str(arrays.pop("__job__")))
    preds = arrays["predictions"].astype(int)
    probs = arrays["probabilities"].astype(float)
    labels = arrays["labels"].astype(int)
    alloc = arrays["allocations"]
    alpha = float(job["alpha"])
    eps = float(job["epsilon"])

    def oracle(i: int) -> int:
        return int(labels[i])

    def build(method: str) -> Any:
        max_iter = int(job["max_iter"])
        if method == "oasis":
            return oasis.OASISSampler(
                alpha,
                preds,
                probs,
                oracle,
                proba=True,
                epsilon=eps,
                strata=oasis.Strata(alloc),
                max_iter=max_iter,
            )
        if method == "passive":
            return oasis.PassiveSampler(alpha, preds, oracle, max_iter=max_iter)
        if method == "stratified":
            return oasis.DruckSampler(
                alpha,
                preds,
                probs,
                oracle,
                proba=True,
                strata=oasis.Strata(alloc),
                max_iter=max_iter,
            )
        return oasis.ImportanceSampler(
            alpha, preds, probs, oracle, proba=True, epsilon=eps, max_iter=max_iter
        )

    out: dict[str, np.ndarray] = {}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        if job["kind"] == "efficiency":
            budgets = [int(b) for b in job["budgets"]]
            reps = int(job["repeats"])
            est = np.full((reps, len(budgets)), np.nan)
            iters = np.zeros((reps, len(budgets)))
            for r in range(reps):
                np.random.seed(int(job["seed"]) + r)  # noqa: NPY002 - the reference draws from the global state
                smp = build(job["method"])
                for j, b in enumerate(budgets):
                    have = int(np.sum(~np.isnan(smp.cached_labels_)))
                    try:
                        if b > have:
                            smp.sample_distinct(b - have)
                    except Exception:
                        break
                    est[r, j] = float(np.ravel(smp.estimate_)[-1])
                    iters[r, j] = smp.t_
            out = {"estimates": est, "iterations": iters}
        else:  # timing: CPU seconds for a number of iterations
            np.random.seed(int(job["seed"]))  # noqa: NPY002
            smp = build(job["method"])
            n = int(job["iterations"])
            t0 = time.process_time()
            smp.sample(n)
            out = {"cpu": np.array([time.process_time() - t0]), "iterations": np.array([n])}
    np.savez(dst, **out)


if __name__ == "__main__":  # pragma: no cover
    _worker(sys.argv[1], sys.argv[2])
