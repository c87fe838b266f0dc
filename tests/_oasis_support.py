"""Shared material of the OASIS tests: the paper's pools beside the repository."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ereval.oasis import Pool, read_pool

POOLS_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "oasis-pools"

#: file -> (pairs, matches, precision, recall, F1) as listed in the pools' README
#: (the paper's Table 2).
POOLS = {
    "abt-buy-svm.csv.gz": (53_753, 50, 0.917, 0.440, 0.595),
    "dblp-acm-svm-small.csv.gz": (53_946, 20, 1.000, 0.900, 0.947),
    "restaurant-svm.csv.gz": (149_747, 45, 0.909, 0.889, 0.899),
}


@cache
def shared_pool(name: str) -> Pool:
    """Read one of the shared pools (fails, never skips, when it is missing)."""
    path = POOLS_DIR / name
    if not path.exists():
        raise FileNotFoundError(
            f"the shared OASIS pools are expected at {POOLS_DIR} (shared/ beside the clone)"
        )
    return read_pool(path)
