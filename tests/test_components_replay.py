"""The replay of merges behind the curves (``replay_merges``, ``cross_steps``) against
the statistics recomputed from scratch after every merge.

The reference is brute force, independent of the code under test: after the first
``k`` merges the clustering is rebuilt by a plain union-find, its contingency table
counted with a ``Counter`` and every sum of the module docstring of
:mod:`ereval._algorithms._components` computed from the table (and, for the link-only
steps, from a double loop over the pairs of records).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import pytest

import ereval.curves._metrics as metrics_module
from ereval._algorithms import cross_steps, merge_steps, replay_merges
from ereval.curves._metrics import running_sums


def _find(parent: list[int], x: int) -> int:
    while parent[x] != x:
        x = parent[x]
    return x


def _forest(n: int, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pairs, in order, that join two components (a plain union-find)."""
    parent = list(range(n))
    out = []
    for u, v in pairs:
        ru, rv = _find(parent, u), _find(parent, v)
        if ru != rv:
            parent[ru] = rv
            out.append((u, v))
    return out


def _labels(n: int, merges: list[tuple[int, int]]) -> list[int]:
    parent = list(range(n))
    for u, v in merges:
        parent[_find(parent, u)] = _find(parent, v)
    return [_find(parent, x) for x in range(n)]


def _sums(true_of: list[int], labels: list[int]) -> dict[str, float]:
    """Every sum of the replay, from the contingency table of ``labels``."""
    a = Counter(true_of)
    b = Counter(labels)
    cells = Counter(zip(true_of, labels, strict=True))
    members: dict[int, set[int]] = {}
    for i, j in cells:
        members.setdefault(j, set()).add(i)
    return {
        "pairs_both": sum(c * (c - 1) // 2 for c in cells.values()),
        "pairs_pred": sum(c * (c - 1) // 2 for c in b.values()),
        "cells": len(cells),
        "exact": sum(len(s) == 1 and a[next(iter(s))] == b[j] for j, s in members.items()),
        "b3_recall": sum(c * c / a[i] for (i, _), c in cells.items()),
        "b3_precision": sum(c * c / b[j] for (_, j), c in cells.items()),
        "b3e_recall": sum(c * c / a[i] ** 2 for (i, _), c in cells.items()),
        "b3e_precision": sum(c * c / (a[i] * b[j]) for (i, j), c in cells.items()),
        "nlogn_cells": sum(c * math.log(c) for c in cells.values()),
        "nlogn_pred": sum(c * math.log(c) for c in b.values()),
    }


def _within(true_of: list[int], source_of: list[int], labels: list[int]) -> tuple[int, int]:
    """Pairs of one predicted cluster and one data set (and of one true cluster)."""
    both = pred = 0
    n = len(labels)
    for x in range(n):
        for y in range(x + 1, n):
            if labels[x] == labels[y] and source_of[x] == source_of[y]:
                pred += 1
                both += true_of[x] == true_of[y]
    return both, pred


#: The delta arrays of ``MergeSteps`` summed into each statistic (cells: minus).
_DELTAS = {
    "pairs_both": "pairs_both",
    "pairs_pred": "pairs_pred",
    "cells": "cells_lost",
    "exact": "exact",
    "b3_recall": "b3_recall",
    "b3_precision": "b3_precision",
    "b3e_recall": "b3e_recall",
    "b3e_precision": "b3e_precision",
    "nlogn_cells": "nlogn_cells",
    "nlogn_pred": "nlogn_pred",
}


def _case(rng: np.random.Generator, n: int, k: int) -> tuple[list[int], list[tuple[int, int]]]:
    """``n`` records in ``k`` true clusters and random distinct pairs, true pairs first
    half of the time (pure components that then mix)."""
    true_of = rng.integers(0, k, n)
    true_of = np.unique(true_of, return_inverse=True)[1].reshape(-1)
    seen: set[tuple[int, int]] = set()
    pairs = []
    for _ in range(3 * n):
        u, v = (int(x) for x in rng.integers(0, n, 2))
        if u != v and (min(u, v), max(u, v)) not in seen:
            seen.add((min(u, v), max(u, v)))
            pairs.append((u, v))
    if rng.random() < 0.5:
        pairs.sort(key=lambda p: true_of[p[0]] != true_of[p[1]])
    return [int(x) for x in true_of], pairs


@pytest.mark.parametrize("seed", range(12))
def test_replay_equals_recomputation_after_every_merge(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 45))
    # few large clusters (many mixing in one component), many small ones, singletons
    k = int(rng.choice([1, 2, 3, max(1, n // 4), n]))
    true_of, pairs = _case(rng, n, k)
    merges = _forest(n, pairs)
    left = np.array([u for u, _ in merges], dtype=np.int64)
    right = np.array([v for _, v in merges], dtype=np.int64)
    steps = replay_merges(
        np.array(true_of), left, right, np.arange(1, len(merges) + 1, dtype=np.int64)
    )
    assert steps.left.tolist() == left.tolist() and steps.right.tolist() == right.tolist()
    start = _sums(true_of, list(range(n)))
    for key, value in start.items():
        assert steps.initial[key] == pytest.approx(value, rel=1e-12), key
    running = {key: np.cumsum(getattr(steps, name)) for key, name in _DELTAS.items()}
    for m in range(1, len(merges) + 1):
        ref = _sums(true_of, _labels(n, merges[:m]))
        for key, value in ref.items():
            sign = -1 if key == "cells" else 1
            got = steps.initial[key] + sign * running[key][m - 1]
            if isinstance(value, int):
                assert got == value, (m, key)
            else:
                assert got == pytest.approx(value, rel=1e-12, abs=1e-12), (m, key)


@pytest.mark.parametrize("seed", range(8))
def test_cross_steps_equal_recomputation_after_every_merge(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 35))
    k = int(rng.choice([1, 2, max(1, n // 3), n]))
    true_of, pairs = _case(rng, n, k)
    source_of = [int(x) for x in rng.integers(0, int(rng.integers(1, 4)), n)]
    merges = _forest(n, pairs)
    left = np.array([u for u, _ in merges], dtype=np.int64)
    right = np.array([v for _, v in merges], dtype=np.int64)
    t = np.array(true_of)
    steps = replay_merges(t, left, right, np.arange(1, len(merges) + 1, dtype=np.int64))
    cross = cross_steps(steps, t, np.array(source_of))
    both = np.cumsum(cross.within_both)
    pred = np.cumsum(cross.within_pred)
    for m in range(1, len(merges) + 1):
        ref = _within(true_of, source_of, _labels(n, merges[:m]))
        assert (int(both[m - 1]), int(pred[m - 1])) == ref, m


def test_hand_worked_merges() -> None:
    """Records 0, 1 in true cluster 0 and 2 in cluster 1: merging 0-1 completes
    cluster 0 (one shared cell, 1 pair, an exact cluster gained), then 2 joins (no
    shared cell, 2 more predicted pairs, two exact clusters lost)."""
    steps = merge_steps(np.array([0, 0, 1]), np.array([0, 1]), np.array([1, 2]), np.arange(2))
    assert steps.pairs_both.tolist() == [1, 0]
    assert steps.pairs_pred.tolist() == [1, 2]
    assert steps.cells_lost.tolist() == [1, 0]
    assert steps.exact.tolist() == [1, -2]
    assert steps.initial["exact"] == 1.0
    # B-cubed precision numerator: sum n_ij^2 / b_j goes 3 -> 2 * (4 / 2) + 1 = 3 -> 5 / 3
    assert steps.b3_precision.tolist() == pytest.approx([0.0, 5 / 3 - 3])
    # n log n of the cells: 2 log 2 after the first merge, nothing more
    assert steps.nlogn_cells.tolist() == pytest.approx([2 * math.log(2), 0.0])
    assert steps.nlogn_pred.tolist() == pytest.approx(
        [2 * math.log(2), 3 * math.log(3) - 2 * math.log(2)]
    )


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_running_sums_are_the_cumulative_sums_bit_for_bit(chunk: int, monkeypatch: Any) -> None:
    """Summed chunk by chunk, the values are those of ``start + np.cumsum`` exactly."""
    monkeypatch.setattr(metrics_module, "CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    deltas = rng.normal(size=50) * 10.0 ** rng.integers(-8, 8, 50)
    at = rng.integers(0, 51, 30)
    full = np.concatenate(([0.25], 0.25 + np.cumsum(deltas)))[at]
    assert running_sums(at, deltas, 0.25).tobytes() == full.tobytes()
    ints = rng.integers(-5, 6, 50).astype(np.int32)
    minus = rng.integers(0, 3, 50)
    expected = np.concatenate(([7], 7 + np.cumsum(-ints.astype(np.int64) - minus)))[at]
    assert running_sums(at, ints, 7, minus=minus, sign=-1).tolist() == expected.tolist()
    assert running_sums(np.zeros(3, dtype=np.int64), deltas[:0], 2.0).tolist() == [2.0] * 3
