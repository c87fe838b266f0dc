"""Oracles: who answers "is this pair a match?".

An oracle is any callable ``oracle(index) -> 0 or 1`` taking a pair's position in
the pool.  For a person, drive the sampler with ``ask``/``tell`` instead (or use
:class:`ConsoleOracle` at a terminal).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TextIO

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_binary_array, check_in_range, check_rng
from .pool import Pool

__all__ = ["ConsoleOracle", "LabelOracle", "NoisyOracle"]


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


class ConsoleOracle:
    """Asks a person at a terminal: shows the pair and reads ``y``/``n`` (or 1/0).

    Parameters
    ----------
    pool : Pool
        The pool (to show the pair id, score and prediction).
    describe : callable, optional
        ``describe(index) -> str`` with more about the pair (e.g. both records).
    stdin, stdout : text streams, optional
        Default ``sys.stdin`` / ``sys.stdout``.
    """

    _ANSWERS: ClassVar[dict[str, int]] = {"y": 1, "yes": 1, "1": 1, "n": 0, "no": 0, "0": 0}

    def __init__(
        self,
        pool: Pool,
        *,
        describe: Callable[[int], str] | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        import sys

        self._pool = pool
        self._describe = describe
        self._in = stdin if stdin is not None else sys.stdin
        self._out = stdout if stdout is not None else sys.stdout

    def __call__(self, index: int) -> int:
        pool = self._pool
        head = (
            f"pair {pool.pair_ids[index]!r}: score {pool.scores[index]:.6g}, "
            f"predicted {'match' if pool.predictions[index] else 'non-match'}"
        )
        self._out.write(head + "\n")
        if self._describe is not None:
            self._out.write(self._describe(index) + "\n")
        while True:
            self._out.write("match? [y/n] ")
            self._out.flush()
            line = self._in.readline()
            if not line:
                raise InputError("no answer: the input ended before the pair was labelled")
            answer = self._ANSWERS.get(line.strip().lower())
            if answer is not None:
                return answer
            self._out.write("please answer y or n\n")


def _labels_of(labels: Any) -> npt.NDArray[np.int8]:
    if isinstance(labels, Pool):
        if labels.labels is None:
            raise InputError("the pool has no label column to answer from")
        return labels.labels
    return check_binary_array("labels", labels)
