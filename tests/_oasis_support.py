"""Shared material of the OASIS tests: the paper's pools, shipped in ``tests/data/oasis-pools``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ereval.oasis import Pool, read_pool

from ._data import data_file

#: file -> (pairs, matches, precision, recall, F1) as listed in the pools' README
#: (the paper's Table 2).
POOLS = {
    "abt-buy-svm.csv.gz": (53_753, 50, 0.917, 0.440, 0.595),
    "dblp-acm-svm-small.csv.gz": (53_946, 20, 1.000, 0.900, 0.947),
    "restaurant-svm.csv.gz": (149_747, 45, 0.909, 0.889, 0.899),
}


def pool_path(name: str) -> Path:
    """The file of one of the paper's pools (raises, never skips, when it is missing)."""
    return data_file("oasis-pools", name)


@cache
def paper_pool(name: str) -> Pool:
    """Read one of the paper's pools."""
    return read_pool(pool_path(name))
