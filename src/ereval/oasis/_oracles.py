"""Oracles: who answers "is this pair a match?".

An oracle is any callable ``oracle(index) -> 0 or 1`` taking a pair's position in
the pool.  For a person, drive the sampler with ``ask``/``tell`` instead (or use
:class:`ereval.cli._oracle.ConsoleOracle` at a terminal).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_binary_array, check_in_range, check_rng
from ._pool import Pool

__all__ = ["LabelOracle", "NoisyOracle"]


class LabelOracle:
    """Answers from a known label column (a deterministic oracle).

    Parameters
    ----------
    labels : array-like of {0, 1} or Pool
        Labels by pool position, or a pool with a label column.

    Examples
    --------
    >>> LabelOracle([0, 1, 1])(1)
    1
    """

    def __init__(self, labels: Any) -> None:
        self._labels = _labels_of(labels)
        self.queries = 0

    def __call__(self, index: int) -> int:
        self.queries += 1
        return int(self._labels[index])


class NoisyOracle:
    """Answers from a label column, each pair's flipped with probability ``flip_probability``.

    Which pairs are flipped is drawn once, independently per pair, from ``seed``:
    the oracle is a fixed noisy labelling, so asking about a pair again gives the
    same answer, and a sampler resumed from a saved state (with a new oracle of
    the same seed) gets exactly the answers an uninterrupted run would have got,
    whatever the order of the questions. The estimates then target the
    F-measure of the noisy labels.

    Parameters
    ----------
    labels : array-like of {0, 1} or Pool
    flip_probability : float in [0, 1]
    seed : int, numpy.random.Generator or None

    Examples
    --------
    >>> oracle = NoisyOracle([0, 1], flip_probability=1.0, seed=0)
    >>> oracle(0), oracle(1)
    (1, 0)
    """

    def __init__(self, labels: Any, *, flip_probability: float, seed: Any = None) -> None:
        self._labels = _labels_of(labels)
        self.flip_probability = check_in_range(
            "flip_probability", flip_probability, low=0.0, high=1.0
        )
        self._flipped = check_rng(seed).random(self._labels.size) < self.flip_probability
        self.queries = 0
        self.flips = 0

    def __call__(self, index: int) -> int:
        self.queries += 1
        label = int(self._labels[index])
        if self._flipped[index]:
            self.flips += 1
            return 1 - label
        return label


def _labels_of(labels: Any) -> npt.NDArray[np.int8]:
    if isinstance(labels, Pool):
        if labels.labels is None:
            raise InputError("the pool has no label column to answer from")
        return labels.labels
    return check_binary_array("labels", labels)
