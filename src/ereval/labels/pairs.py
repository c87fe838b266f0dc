"""Pair labelling driven by an OASIS sampler's ask/tell interface.

The sampler (:mod:`ereval.oasis`) is never saved: it is a function of its seed
and of the labels, so every process rebuilds it by replaying the resolved
labels in the order it asks for them, and stops at the first pair that needs
a person. An undone or corrected label changes what the sampler asks next;
the labels of pairs it no longer asks stay in the log.

Transitivity. OASIS's importance weights need the label of every drawn pair,
so a pair cannot simply be skipped. When the drawn pair's label follows from
the labels people gave (``a~b`` and ``b~c`` are matches, so ``a~c`` is; ``a~b``
is a match and ``b~c`` a non-match, so ``a~c`` is not), it is told to the
sampler without asking anyone. Such a *derived* label is never stored: it is
recomputed from the current human labels at every replay, so it disappears
with its premises (an undo, a correction) and never props up another.

"unsure" labels and disagreements between two reviewers go to the
adjudication queue; the sampler waits for the adjudicator there.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._validation import check_choice, check_in_range, check_int, describe
from ._common import (
    PAIR_LABELS,
    Records,
    Resolution,
    check_overlap,
    check_show_hide,
    double_review,
    load_records,
    resolve,
    shown_columns,
)
from .store import Event, Item, LabelStore

__all__ = ["PairLabelling", "PairTask", "create_pair_labelling", "session_sampler"]


def _read_ends(config: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    from ..io import read_table

    cols = (config["pair_id_col"], config["left_col"], config["right_col"])
    frame = read_table(config["pairs"], name="pairs", text_columns=cols)
    named = (*cols, config["score_col"], config["prediction_col"])
    options = ("pair_id_col", "left_col", "right_col", "score_col", "prediction_col")
    for col, flag in zip(named, options, strict=True):
        if col not in frame.columns:
            shown = ", ".join(repr(str(c)) for c in list(frame.columns)[:10])
            raise InputError(
                f"'{flag}': the pairs file '{config['pairs']}' has no column '{col}'; "
                f"columns are {shown}"
            )
    return {
        str(p): (str(a), str(b))
        for p, a, b in zip(frame[cols[0]], frame[cols[1]], frame[cols[2]], strict=True)
    }


def create_pair_labelling(
    store: LabelStore,
    name: str,
    *,
    data: str | os.PathLike[str],
    pairs: str | os.PathLike[str],
    id_col: str = "record_id",
    pair_id_col: str = "pair_id",
    left_col: str = "record_id_1",
    right_col: str = "record_id_2",
    score_col: str = "score",
    prediction_col: str = "prediction",
    probability_col: str | None = "probability",
    method: str = "oasis",
    alpha: float = 0.5,
    n_strata: int | None = None,
    budget: int | None = None,
    target_ci_width: float | None = None,
    min_labels: int = 100,
    level: float = 0.95,
    show_columns: tuple[str, ...] | list[str] = (),
    hide_columns: tuple[str, ...] | list[str] = (),
    blind: bool = True,
    reveal: bool = False,
    overlap: float = 0.0,
    transitivity: bool = True,
    seed: int | None = None,
) -> PairLabelling:
    """Create a pair-labelling session over a pool of scored pairs.

    ``pairs`` is a pool file as ``ereval oasis`` reads it (pair id, score,
    prediction, optional probability) with the two record ids of each pair in
    ``left_col`` / ``right_col``; ``data`` holds the records' attributes. The
    sampler (``method``: ``"oasis"``, ``"passive"``, ``"stratified"``,
    ``"importance"``) stops at ``budget`` human labels or when the interval of
    F-``alpha`` is narrower than ``target_ci_width`` (after ``min_labels``).
    ``show_columns`` / ``hide_columns`` choose the record columns shown (see
    :func:`~ereval.labels._common.shown_columns`).
    """
    from ..oasis.samplers import METHODS

    method = check_choice("method", method, METHODS)
    alpha = check_in_range("alpha", alpha, low=0.0, high=1.0)
    level = check_in_range("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    overlap = check_overlap(overlap)
    if budget is not None:
        budget = check_int("budget", budget, minimum=1)
    if target_ci_width is not None:
        target_ci_width = check_in_range(
            "target_ci_width", target_ci_width, low=0.0, high=1.0, low_open=True
        )
    min_labels = check_int("min_labels", min_labels, minimum=1)
    if n_strata is not None:
        n_strata = check_int("n_strata", n_strata, minimum=1)
    seed = int(secrets.randbits(63)) if seed is None else check_int("seed", seed, minimum=0)
    records = load_records(data, id_col=id_col)
    show, hide = check_show_hide(
        list(records.frame.columns),
        list(show_columns),
        list(hide_columns),
        where=f"the data file '{data}'",
    )
    config: dict[str, Any] = {
        "data": str(Path(data).resolve()),
        "pairs": str(Path(pairs).resolve()),
        "id_col": id_col,
        "pair_id_col": pair_id_col,
        "left_col": left_col,
        "right_col": right_col,
        "score_col": score_col,
        "prediction_col": prediction_col,
        "probability_col": probability_col,
        "method": method,
        "alpha": alpha,
        "n_strata": n_strata,
        "budget": budget,
        "target_ci_width": target_ci_width,
        "min_labels": min_labels,
        "level": level,
        "show_columns": show,
        "hide_columns": hide,
        "blind": bool(blind),
        "reveal": bool(reveal),
        "overlap": overlap,
        "transitivity": bool(transitivity),
        "seed": seed,
    }
    ends = _read_ends(config)  # names the missing column's option, before the pool reader
    pool = _read_pool(config)
    unknown = [p for p, (a, b) in ends.items() if a not in records or b not in records]
    if unknown:
        raise InputError(
            f"'pairs': {len(unknown)} pair(s) name records that are not in the data file "
            f"(e.g. pair {unknown[0]!r})"
        )
    config["n_pairs"] = pool.size
    store.create_session(name, kind="pairs", config=config)
    return PairLabelling(store, name)


def session_sampler(pool: Any, config: Mapping[str, Any]) -> Any:
    """The sampler of a pair session with configuration ``config`` over ``pool``.

    Every process, and :func:`ereval.labels.estimate_from_export`, builds it the
    same way, so replaying the same labels gives the same draws and estimates.
    """
    from ..oasis import make_sampler

    options: dict[str, Any] = {"alpha": config["alpha"], "seed": config["seed"]}
    if config["method"] in ("oasis", "stratified") and config.get("n_strata"):
        options["n_strata"] = config["n_strata"]
    return make_sampler(config["method"], pool, **options)


def _read_pool(config: Mapping[str, Any]) -> Any:
    from ..oasis import read_pool

    probability_col = config.get("probability_col")
    from ..io import file_spec, header

    cols = header(file_spec(config["pairs"], name="pairs"), name="pairs")
    if probability_col is not None and probability_col not in cols:
        probability_col = None
    return read_pool(
        config["pairs"],
        pair_id_col=config["pair_id_col"],
        score_col=config["score_col"],
        prediction_col=config["prediction_col"],
        probability_col=probability_col,
        label_col=None,
    )


@dataclass(frozen=True)
class PairTask:
    """A pair to label.

    Attributes
    ----------
    pair_id : str
    position : int
        Order in which the sampler asked for it.
    left, right : dict
        The two records' shown attributes (with their ids).
    differs : list of str
        The shown columns whose values differ.
    double : bool
        Whether the pair goes to two reviewers.
    score, prediction : float, int or None
        The model's score and prediction, ``None`` when the session is blind.
    """

    pair_id: str
    position: int
    left: dict[str, Any]
    right: dict[str, Any]
    differs: list[str]
    double: bool
    score: float | None
    prediction: int | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what a reviewer is shown)."""
        return {
            "pair_id": self.pair_id,
            "position": self.position,
            "left": self.left,
            "right": self.right,
            "differs": self.differs,
            "double": self.double,
            "score": self.score,
            "prediction": self.prediction,
        }


class PairLabelling:
    """A pair-labelling session of a store, driven by an OASIS sampler."""

    kind = "pairs"

    def __init__(self, store: LabelStore, session: str) -> None:
        info = store.session(session)
        if info.kind != "pairs":
            raise InputError(f"session '{session}' is a {info.kind} session, not pair labelling")
        self.store = store
        self.name = session
        self.config = info.config
        self._pool: Any = None
        self._ends: dict[str, tuple[str, str]] | None = None
        self._index_of: dict[str, int] | None = None
        self._records: Records | None = None
        self._sampler: Any = None
        self._told: list[tuple[str, int, bool]] = []
        self._index = -1
        self.current: str | None = None
        self.holders: list[str] = []
        self.stop_reason: str | None = None

    # ----------------------------------------------------------------- data
    @property
    def pool(self) -> Any:
        """The :class:`ereval.oasis.Pool` of the session."""
        if self._pool is None:
            self._pool = _read_pool(self.config)
        return self._pool

    @property
    def index_of(self) -> dict[str, int]:
        """pair id -> position in the pool."""
        if self._index_of is None:
            self._index_of = {str(p): i for i, p in enumerate(self.pool.pair_ids)}
        return self._index_of

    @property
    def ends(self) -> dict[str, tuple[str, str]]:
        """pair id -> (left record id, right record id)."""
        if self._ends is None:
            self._ends = _read_ends(self.config)
        return self._ends

    @property
    def records(self) -> Records:
        """The record file of the session."""
        if self._records is None:
            self._records = load_records(self.config["data"], id_col=self.config["id_col"])
        return self._records

    @property
    def shown(self) -> list[str]:
        """The record columns reviewers are shown (the id apart)."""
        c = self.config
        return shown_columns(
            [str(x) for x in self.records.frame.columns],
            id_col=c["id_col"],
            show=c.get("show_columns") or (),
            hide=c.get("hide_columns") or (),
            named=(c.get("score_col"), c.get("prediction_col"), c.get("probability_col")),
        )

    def _attributes(self, record_id: str) -> dict[str, Any]:
        row = self.records.row(record_id)
        out: dict[str, Any] = {self.config["id_col"]: record_id}
        out.update({c: row.get(c) for c in self.shown})
        return out

    def _double(self, key: str) -> bool:
        return double_review(int(self.config["seed"]), key, float(self.config["overlap"]))

    def reviewers_needed(self, key: str) -> int:
        """How many reviewers pair ``key`` needs (2 for the overlap, else 1)."""
        return 2 if self._double(str(key)) else 1

    # -------------------------------------------------------------- sampler
    def _new_sampler(self) -> Any:
        return session_sampler(self.pool, self.config)

    def resolution(self) -> Resolution:
        """Resolved, pending and disputed pairs."""
        required = {it.key: 2 if self._double(it.key) else 1 for it in self.store.items(self.name)}
        return resolve(self.store, self.name, required)

    def _expected(self, human: Mapping[str, int], implied: _Implications | None) -> Any:
        """``key -> (label, derived)`` the sampler is told now, or ``None`` to ask a person."""

        def expected(key: str) -> tuple[int, bool] | None:
            if key in human:
                return human[key], False
            found = implied.implied(key) if implied is not None else None
            return None if found is None else (found, True)

        return expected

    def advance(self) -> str | None:
        """Replay the labels into the sampler; return the pair that needs a person.

        The sampler is told the resolved human labels and the labels they imply
        by transitivity, in the order it asks for pairs; nothing is written to
        the store. ``None`` when sampling stopped (see :attr:`stop_reason`);
        ``stop_reason == "waiting"`` when the pair returned waits for a second
        review or an adjudication.
        """
        res = self.resolution()
        human = {
            k: 1 if v == "match" else 0
            for k, v in res.resolved.items()
            if v in ("match", "non-match")
        }
        implied = _Implications(self.ends, human) if self.config.get("transitivity") else None
        expected = self._expected(human, implied)
        if self._sampler is None or any(expected(k) != (v, d) for k, v, d in self._told):
            self._sampler, self._told = self._new_sampler(), []
        sampler = self._sampler
        self.current, self.stop_reason = None, None
        while True:
            reason = self._stop(sampler)
            if reason is not None:
                self.stop_reason = reason
                return None
            query = sampler.ask()
            if query is None:
                self.stop_reason = sampler.stop_reason
                return None
            key = str(query.pair_id)
            found = expected(key)
            if found is not None:
                sampler.tell(found[0], index=query.index)
                self._told.append((key, found[0], found[1]))
                continue
            self.current, self._index = key, int(query.index)
            if key in res.queue or key in res.pending:
                self.stop_reason = "waiting"
            return key

    def _stop(self, sampler: Any) -> str | None:
        budget = self.config.get("budget")
        if budget is not None and self.human_labels >= budget:
            return "budget"
        width = self.config.get("target_ci_width")
        if width is not None and self.human_labels >= int(self.config.get("min_labels", 100)):
            est = self.estimate()
            if est is not None and est.f_measure.width <= width:
                return "ci_width"
        return None

    @property
    def told(self) -> list[tuple[str, int, bool]]:
        """The labels the sampler was told, in its order: (pair id, 0/1, derived)."""
        return list(self._told)

    @property
    def human_labels(self) -> int:
        """Distinct pairs whose label the sampler used, labelled by people."""
        return sum(1 for _, _, derived in self._told if not derived)

    @property
    def implied(self) -> int:
        """Distinct pairs whose label the sampler used, derived by transitivity."""
        return sum(1 for _, _, derived in self._told if derived)

    def estimate(self) -> Any:
        """The live :class:`ereval.oasis.Estimates` (F, precision, recall), ``None`` before any label."""
        if self._sampler is None or not self._told:
            return None
        return self._sampler.estimate(confidence=float(self.config["level"]))

    # ---------------------------------------------------------------- tasks
    def task(self, pair_id: str) -> PairTask:
        """What to show for a pair (scores hidden when the session is blind)."""
        item = self.store.item(self.name, pair_id)
        left_id, right_id = self.ends[item.key]
        left, right = self._attributes(left_id), self._attributes(right_id)
        differs = [c for c in left if c != self.config["id_col"] and left[c] != right.get(c)]
        score = prediction = None
        if not self.config.get("blind", True):
            score, prediction = self.reveal(item.key, force=True)
        return PairTask(
            item.key, item.position, left, right, differs, self._double(item.key), score, prediction
        )

    def reveal(self, pair_id: str, *, force: bool = False) -> tuple[float, int]:
        """The model's score and 0/1 prediction of a pair, if the session shows them.

        A blind session shows them only after the decision and only when it was
        created with ``reveal=True``.
        """
        if not force and self.config.get("blind", True) and not self.config.get("reveal"):
            raise InputError(f"session '{self.name}' does not show scores (it is blind)")
        i = self.index_of.get(str(pair_id))
        if i is None:
            raise InputError(f"'item' {pair_id!r} is not a pair of session '{self.name}'")
        return float(self.pool.scores[i]), int(self.pool.predictions[i])

    def next(self, *, reviewer: str) -> PairTask | None:
        """The next pair for ``reviewer`` (claimed for them), or ``None`` (see :attr:`stop_reason`).

        ``stop_reason`` is ``"held"`` when the pair the sampler asks for is held by
        another reviewer (:attr:`holders` says who), ``"waiting"`` when it waits
        for a second review or an adjudication.
        """
        key = self.advance()
        self.holders = []
        if key is None:
            return None
        need = 2 if self._double(key) else 1
        for old in self.store.claimed(self.name, reviewer=reviewer):
            if old != key:  # one pair at a time: what the sampler no longer asks goes back
                self.store.release_claims(self.name, reviewer=reviewer, item=old)
        self.store.add_items(self.name, [Item(key, len(self._told), {"index": self._index})])
        item = self.store.next_item(
            self.name, reviewer=reviewer, required={key: need}, default_required=0
        )
        if item is None:
            mine = self.store.labels(self.name, reviewer=reviewer).get(key)
            self.holders = [w for w in self.store.held(self.name).get(key, []) if w != reviewer]
            self.stop_reason = "held" if self.holders and mine is None else "waiting"
            return None
        return self.task(item.key)

    def label(
        self,
        pair_id: str,
        value: str,
        *,
        reviewer: str,
        shown: Mapping[str, Any] | None = None,
        adjudicate: bool = False,
        source: str | None = None,
        expected_version: int | None = None,
    ) -> Event:
        """Record a label: ``"match"``, ``"non-match"`` or ``"unsure"``.

        ``expected_version`` binds the answer to the version of the pair the
        reviewer was shown (see :meth:`LabelStore.label`).
        """
        if value not in PAIR_LABELS:
            raise InputError(
                f"'label' must be one of {', '.join(PAIR_LABELS)}; received {describe(value)}"
            )
        pair_id = str(pair_id)
        if not self.store.has_item(self.name, pair_id):
            if pair_id not in self.ends:
                raise InputError(f"'item' {pair_id!r} is not a pair of session '{self.name}'")
            self.store.add_items(self.name, [Item(pair_id, len(self._told), {})])
        what = dict(shown) if shown is not None else {"pair": list(self.ends[pair_id])}
        if adjudicate:
            return self.store.adjudicate(
                self.name,
                pair_id,
                value,
                reviewer=reviewer,
                shown=what,
                expected_version=expected_version,
            )
        return self.store.label(
            self.name,
            pair_id,
            value,
            reviewer=reviewer,
            shown=what,
            source=source,
            expected_version=expected_version,
        )

    def progress(self) -> dict[str, Any]:
        """Counts, the live estimate and the stop state."""
        self.advance()
        res = self.resolution()
        est = self.estimate()
        return {
            "labels_used": self.human_labels,
            "implied": self.implied,
            "budget": self.config.get("budget"),
            "resolved": len(res.resolved),
            "pending": len(res.pending),
            "queue": len(res.queue),
            "estimate": None
            if est is None
            else {
                "f_measure": est.f_measure.to_dict(),
                "precision": est.precision.to_dict(),
                "recall": est.recall.to_dict(),
            },
            "stop_reason": self.stop_reason,
            "done": self.stop_reason not in (None, "waiting", "held"),
        }


class _Implications:
    """Pair labels implied by transitivity from the resolved human labels.

    Matches join records into groups (union-find); a pair within a group is a
    match, a pair across two groups that a non-match separates is a non-match.
    """

    def __init__(self, ends: Mapping[str, tuple[str, str]], known: Mapping[str, int]) -> None:
        self._ends = ends
        self._parent: dict[str, str] = {}
        for pair, label in known.items():
            if label == 1 and pair in ends:
                a, b = ends[pair]
                ra, rb = self._find(a), self._find(b)
                if ra != rb:
                    self._parent[ra] = rb
        self._apart: set[frozenset[str]] = set()
        for pair, label in known.items():
            if label == 0 and pair in ends:
                a, b = ends[pair]
                ra, rb = self._find(a), self._find(b)
                if ra != rb:
                    self._apart.add(frozenset((ra, rb)))

    def _find(self, x: str) -> str:
        parent = self._parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    def implied(self, pair: str) -> int | None:
        """1 or 0 when the pair's label follows from the known labels, else ``None``."""
        a, b = self._ends[pair]
        ra, rb = self._find(a), self._find(b)
        if ra == rb:
            return 1
        if frozenset((ra, rb)) in self._apart:
            return 0
        return None
