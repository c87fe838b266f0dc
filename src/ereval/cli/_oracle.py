"""An oracle for a person at a terminal: OASIS asks, the reviewer answers y or n.

It belongs to the command-line layer: the samplers of :mod:`ereval.oasis` take any
callable ``oracle(index) -> 0 or 1``, and this one reads the answers from a text
stream.

>>> import io
>>> from ereval.oasis import OASISSampler, synthetic_pool
>>> pool = synthetic_pool(500, seed=0)
>>> oracle = ConsoleOracle(pool, stdin=io.StringIO("y\\nn\\n"), stdout=io.StringIO())
>>> est = OASISSampler(pool, seed=0).run(oracle, budget=2)
>>> est.labels_used
2
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import ClassVar, TextIO

from .._errors import InputError
from ..oasis import Pool

__all__ = ["ConsoleOracle"]


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
