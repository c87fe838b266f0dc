"""Pools of scored record pairs: the input of every OASIS sampler.

A pool holds, for each candidate record pair, an identifier, a similarity score,
the 0/1 prediction of the system under evaluation and, optionally, a known true
label (used to simulate an oracle) and a calibrated match probability.

Score conventions
-----------------
Scores are either *probabilities* (all values in [0, 1]) or arbitrary *reals*
(e.g. the margin of a linear SVM).  OASIS needs a guess of the match probability
``p(1|z)`` of every pair (paper, Algorithm 2, lines 2-5).  When no probability is
given, it is derived from the score:

* probability scores are used as they are;
* real scores are mapped with a logistic function centred on the decision
  threshold ``tau``:

  .. math:: \\hat p(z) = \\frac{1}{1 + \\exp(-k (s(z) - \\tau))},
            \\qquad k = \\frac{\\operatorname{logit}(1 - \\delta)}{\\max_z s(z) - \\tau},

  so a pair on the threshold gets 1/2, the highest-scoring pair gets
  ``1 - delta`` (``delta = 0.01``), and a pair as far *below* the threshold as
  the top pair is above it gets ``delta``.  The scale is set on the predicted-match
  side because ER pools have a short positive tail and a very long negative one
  (a scale set by the most negative score would give clear non-matches a match
  probability near 1/2).  If no score exceeds ``tau``, ``max |s - tau|`` is used.
  ``tau`` is the ``threshold`` argument; by default it is inferred from the
  predictions as the midpoint between the highest score predicted 0 and the
  lowest score predicted 1 (this needs ``prediction = 1`` exactly for the
  scores above some cut).

References
----------
N. G. Marchant and B. I. P. Rubinstein, "In Search of an Entity Resolution OASIS:
Optimal Asymptotic Sequential Importance Sampling", PVLDB 10(11), 2017.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._errors import InputError, InputTypeError
from .._validation import (
    as_1d_array,
    check_binary_array,
    check_choice,
    check_finite_array,
    check_in_range,
    check_real,
    describe,
    examples,
)

__all__ = ["Pool", "ScoreKind", "pool_from_frame", "read_pool", "scores_to_probabilities"]

ScoreKind = Literal["auto", "probability", "real"]

#: Tail probability given to the most confident pair by the logistic score mapping.
TAIL_PROBABILITY = 0.01


@dataclass(frozen=True, eq=False)
class Pool:
    """A pool of record pairs with scores, predictions and optional labels.

    Build it with :meth:`Pool.from_arrays`, :func:`pool_from_frame` or
    :func:`read_pool`; the constructor itself does no validation.

    Attributes
    ----------
    pair_ids : numpy.ndarray
        Identifier of each pair (any hashable values; ``0..N-1`` by default).
    scores : numpy.ndarray of float64
        Similarity scores; higher means more likely a match.
    probabilities : numpy.ndarray of float64
        Guess of the match probability of each pair, in [0, 1] (given, or mapped
        from the scores as described in the module docstring).
    predictions : numpy.ndarray of int8
        0/1 prediction of the ER system.
    labels : numpy.ndarray of int8 or None
        Known true labels, if any (used only by oracles and experiments).
    score_kind : {"probability", "real"}
        Whether the scores are probabilities.
    threshold : float
        Decision threshold ``tau`` on the score scale (0.5 for probabilities).
    """

    pair_ids: npt.NDArray[Any]
    scores: npt.NDArray[np.float64]
    probabilities: npt.NDArray[np.float64]
    predictions: npt.NDArray[np.int8]
    labels: npt.NDArray[np.int8] | None
    score_kind: Literal["probability", "real"]
    threshold: float
    _fingerprint: list[str] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_arrays(
        cls,
        scores: Any,
        predictions: Any,
        *,
        pair_ids: Any = None,
        labels: Any = None,
        probabilities: Any = None,
        score_kind: ScoreKind = "auto",
        threshold: float | None = None,
    ) -> Pool:
        """Validate arrays and build a pool.

        Parameters
        ----------
        scores : array-like of float
            Similarity scores (finite).
        predictions : array-like of {0, 1}
            Predicted match (1) or non-match (0) of each pair.
        pair_ids : array-like, optional
            Unique pair identifiers; ``0..N-1`` when omitted.
        labels : array-like of {0, 1}, optional
            Known true labels.
        probabilities : array-like of float in [0, 1], optional
            Calibrated match probabilities; when omitted they are derived from
            ``scores`` (see the module docstring).
        score_kind : {"auto", "probability", "real"}, default "auto"
            ``"auto"`` treats the scores as probabilities when all lie in [0, 1].
        threshold : float, optional
            Decision threshold on the score scale; inferred from the predictions
            when omitted.

        Examples
        --------
        >>> pool = Pool.from_arrays([0.9, 0.2, 0.7, 0.1], [1, 0, 1, 0], labels=[1, 0, 0, 0])
        >>> pool.size, pool.score_kind, pool.threshold
        (4, 'probability', 0.5)
        """
        s = check_finite_array("scores", scores)
        n = s.size
        if n == 0:
            raise InputError("'scores' must not be empty: a pool needs at least one pair")
        yhat = check_binary_array("predictions", predictions)
        _check_length("predictions", yhat, n)
        ids = _check_ids(pair_ids, n)
        y = None
        if labels is not None:
            y = check_binary_array("labels", labels)
            _check_length("labels", y, n)
        kind_opt = check_choice("score_kind", score_kind, ("auto", "probability", "real"))
        in_unit = bool(s.min() >= 0.0 and s.max() <= 1.0)
        if kind_opt == "probability" and not in_unit:
            raise InputError(
                "'scores' must lie in [0, 1] when score_kind='probability'; "
                f"received values in [{s.min():g}, {s.max():g}]"
            )
        kind: Literal["probability", "real"] = (
            "probability"
            if kind_opt == "probability" or (kind_opt == "auto" and in_unit)
            else "real"
        )
        if threshold is None:
            tau = 0.5 if kind == "probability" else _infer_threshold(s, yhat)
        else:
            tau = check_real("threshold", threshold)
        if probabilities is not None:
            p = check_finite_array("probabilities", probabilities)
            _check_length("probabilities", p, n)
            if p.min() < 0.0 or p.max() > 1.0:
                raise InputError(
                    "'probabilities' must lie in [0, 1]; "
                    f"received values in [{p.min():g}, {p.max():g}]"
                )
        else:
            p = scores_to_probabilities(s, kind=kind, threshold=tau)
        return cls(ids, s, p, yhat, y, kind, tau)

    @property
    def size(self) -> int:
        """Number of pairs ``N``."""
        return int(self.scores.size)

    @property
    def has_labels(self) -> bool:
        """Whether true labels are known."""
        return self.labels is not None

    def fingerprint(self) -> str:
        """SHA-256 of scores, probabilities and predictions (to check a resumed session)."""
        if not self._fingerprint:
            h = hashlib.sha256()
            for arr in (self.scores, self.probabilities, self.predictions):
                h.update(np.ascontiguousarray(arr).tobytes())
            self._fingerprint.append(h.hexdigest())
        return self._fingerprint[0]

    def true_measure(self, alpha: float = 0.5) -> float:
        """Exact F-alpha of the predictions against the known labels.

        .. math:: F_\\alpha = \\frac{TP}{\\alpha (TP + FP) + (1 - \\alpha)(TP + FN)}

        (paper eq. 1); ``alpha = 1`` is precision and ``alpha = 0`` recall.  Returns
        ``nan`` when the denominator is 0.
        """
        a = check_in_range("alpha", alpha, low=0.0, high=1.0)
        if self.labels is None:
            raise InputError("the pool has no labels, so its true F-measure is unknown")
        tp = int(np.count_nonzero(self.labels & self.predictions))
        pp = int(np.count_nonzero(self.predictions))
        pos = int(np.count_nonzero(self.labels))
        den = a * pp + (1.0 - a) * pos
        return tp / den if den > 0 else math.nan


def scores_to_probabilities(
    scores: Any,
    *,
    kind: Literal["probability", "real"],
    threshold: float,
    tail_probability: float = TAIL_PROBABILITY,
) -> npt.NDArray[np.float64]:
    """Map similarity scores to match-probability guesses in [0, 1].

    Probability scores are returned unchanged.  Real scores go through the
    threshold-centred logistic map of the module docstring:
    ``p = expit(k (s - threshold))`` with
    ``k = logit(1 - tail_probability) / (max(s) - threshold)``.

    Examples
    --------
    >>> scores_to_probabilities([2.0, 0.0, -2.0, -4.0], kind="real", threshold=0.0).round(4).tolist()
    [0.99, 0.5, 0.01, 0.0001]
    """
    s = check_finite_array("scores", scores)
    if kind == "probability":
        return s.copy()
    tau = check_real("threshold", threshold)
    delta = check_in_range(
        "tail_probability", tail_probability, low=0.0, high=0.5, low_open=True, high_open=True
    )
    if s.size == 0:
        return s.copy()
    spread = float(s.max()) - tau
    if spread <= 0.0:
        spread = float(np.max(np.abs(s - tau)))
    if spread == 0.0:
        return np.full(s.size, 0.5)
    k = math.log((1.0 - delta) / delta) / spread
    z = k * (s - tau)
    out: npt.NDArray[np.float64] = 0.5 * (1.0 + np.tanh(0.5 * z))
    return out


def _infer_threshold(scores: npt.NDArray[np.float64], predictions: npt.NDArray[np.int8]) -> float:
    pos = predictions == 1
    if not pos.any():
        return float(scores.max()) + 1.0
    if pos.all():
        return float(scores.min()) - 1.0
    low_pos = float(scores[pos].min())
    high_neg = float(scores[~pos].max())
    if high_neg >= low_pos:
        raise InputError(
            "cannot infer the decision threshold of the real-valued 'scores': some pairs "
            f"predicted 0 score as high as {high_neg:g} while some predicted 1 score as low "
            f"as {low_pos:g}; pass threshold=... or a 'probabilities' column"
        )
    return 0.5 * (low_pos + high_neg)


def _check_length(name: str, arr: npt.NDArray[Any], n: int) -> None:
    if arr.size != n:
        raise InputError(f"'{name}' must have one value per pair ({n}); received {arr.size}")


def _check_ids(pair_ids: Any, n: int) -> npt.NDArray[Any]:
    if pair_ids is None:
        return np.arange(n, dtype=np.int64)
    ids = as_1d_array("pair_ids", pair_ids)
    _check_length("pair_ids", ids, n)
    uniq, counts = np.unique(ids, return_counts=True)
    if uniq.size != n:
        dup = uniq[counts > 1]
        raise InputError(f"'pair_ids' has {dup.size} duplicate id(s) (e.g. {examples(dup)})")
    return ids


def pool_from_frame(
    frame: Any,
    *,
    pair_id_col: str | None = "pair_id",
    score_col: str = "score",
    prediction_col: str = "prediction",
    label_col: str | None = "label",
    probability_col: str | None = "probability",
    require_probability: bool = False,
    require_label: bool = False,
    score_kind: ScoreKind = "auto",
    threshold: float | None = None,
    source_cols: tuple[str, str] | None = None,
) -> Pool:
    """Build a pool from a pandas, polars or pyarrow table.

    Parameters
    ----------
    frame : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        One row per record pair.
    pair_id_col, score_col, prediction_col : str
        Column names (``pair_id_col=None`` numbers the rows ``0..N-1``).
    label_col, probability_col : str or None
        Optional columns: used when present, ignored when absent unless
        ``require_label`` / ``require_probability`` is set; ``None`` never uses them.
    require_probability, require_label : bool, default False
        Raise when the optional column is missing.
    score_kind, threshold
        As in :meth:`Pool.from_arrays`.
    source_cols : (str, str), optional
        For a link-only evaluation, the columns naming the data sets of each pair's
        two records (Splink's ``source_dataset_l``, ``source_dataset_r``): the pool is
        then the pairs across data sets, and a pair within one data set is an error.
    """
    columns = _columns_of(frame)
    if source_cols is not None:
        _check_across(columns, source_cols)

    def get(name: str) -> npt.NDArray[Any]:
        if name not in columns:
            shown = ", ".join(repr(c) for c in list(columns)[:8])
            raise InputError(f"column '{name}' not found in the pool; columns are {shown}")
        return columns[name]

    ids = get(pair_id_col) if pair_id_col is not None else None
    labels = None
    if label_col is not None and (require_label or label_col in columns):
        labels = get(label_col)
    probs = None
    if probability_col is not None and (require_probability or probability_col in columns):
        probs = get(probability_col)
    return Pool.from_arrays(
        get(score_col),
        get(prediction_col),
        pair_ids=ids,
        labels=labels,
        probabilities=probs,
        score_kind=score_kind,
        threshold=threshold,
    )


def _check_across(columns: dict[str, npt.NDArray[Any]], source_cols: tuple[str, str]) -> None:
    """Refuse a pool of a link-only evaluation that holds a pair within one data set."""
    absent = [c for c in source_cols if c not in columns]
    if absent:
        shown = ", ".join(repr(c) for c in list(columns)[:8])
        raise InputError(
            f"a link-only pool needs the data sets of each pair's records: it has no column "
            f"{absent[0]!r}; columns are {shown}"
        )
    left, right = (columns[c] for c in source_cols)
    inside = np.asarray(left == right, dtype=bool)
    if inside.any():
        k = int(np.flatnonzero(inside)[0])
        raise InputError(
            f"the pool has {int(inside.sum())} pair(s) of two records of one data set (e.g. "
            f"row {k}, both of {left[k]!r}); a link-only evaluation estimates over the pairs "
            "across data sets only: leave those pairs out of the pool"
        )


def _columns_of(frame: Any) -> dict[str, npt.NDArray[Any]]:
    module = type(frame).__module__.split(".")[0]
    if module == "pandas":
        return {str(c): frame[c].to_numpy() for c in frame.columns}
    if module == "polars":
        return {str(c): frame.get_column(c).to_numpy() for c in frame.columns}
    if module == "pyarrow":
        return {str(c): frame.column(c).to_numpy() for c in frame.column_names}
    raise InputTypeError(
        "'frame' must be a pandas or polars DataFrame or a pyarrow Table; "
        f"received {describe(frame)}"
    )


def read_pool(path: str | Path, **options: Any) -> Pool:
    """Read a pool from a CSV (optionally gzipped) or Parquet file.

    The file is read by the rules of :mod:`ereval.io` (the pair id column
    of a text file is read as text, exactly as written); ``options`` are those
    of :func:`pool_from_frame`.
    """
    from ..io import read_arrow

    id_col = options.get("pair_id_col", "pair_id")
    table = read_arrow(path, name="pool", text_columns=() if id_col is None else (id_col,))
    return pool_from_frame(table, **options)
