"""Cluster review (Binette et al. 2024, §3.2): draw records, review their predicted clusters.

:func:`create_cluster_review` draws records with a seeded design and saves the
draws (order, design, inclusion probabilities) and the project configuration
in the store. :class:`ClusterReview` hands each drawn record to a reviewer
with its predicted cluster, searches the data for missing records, checks the
answer (:mod:`ereval.labels._qc`) and saves the true cluster
``c(r) = (ĉ(r) \\ A_r) ∪ B_r`` as one event.

Designs: ``"record"`` draws records uniformly, so a true cluster is drawn with
probability proportional to its size (the paper's recommendation, §3.2.1);
with ``weights_col`` records are drawn with probability proportional to that
column, and a true cluster's probability is the sum over its records (known
once it is labelled). Draws are with replacement by default; ``replace=False``
draws distinct records (the estimators then treat the sample as drawn with
replacement, which is close when few records are drawn from many).

``"size_stratified"`` draws records uniformly within strata of their predicted
cluster's size (Binette et al. 2024, §4.2), ``n_h`` of the ``N_h`` records of
stratum ``h``, exactly as ``draw_sample(..., design="size_stratified")`` does
with the same seed (the same code:
:func:`ereval.estimators._size_design.stratified_draws`). The session keeps the
strata, their allocation and each drawn record's stratum, so that its benchmark
export is read by ``ereval estimate --design size-stratified``; without
replacement, each stratum's finite-population correction applies.

``"expected_error"`` draws records with replacement with probabilities ``q_r``
computed from scored pairs (Binette et al. 2024, eqs. 7-8;
:func:`ereval.estimators._error_weights.expected_error_probabilities`), as
``draw_sample(..., design="expected_error", weights=q)`` does with the same
seed on a truth listing the records in the data's order. Its benchmark export
carries each record's ``q_r`` (``record_probability``), recomputed from the
pairs and checked against the drawn records' saved values.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import check_int, check_rng, describe, examples
from ._common import (
    Records,
    Resolution,
    check_columns,
    check_overlap,
    check_show_hide,
    double_review,
    load_records,
    resolve,
    shown_columns,
)
from ._qc import QualityReport, check_review
from ._search import SearchHit, SearchIndex
from ._store import Event, LabelStore

__all__ = [
    "REVIEW_DESIGNS",
    "ClusterReview",
    "ClusterTask",
    "ReviewDesign",
    "create_cluster_review",
]

ReviewDesign = Literal["record", "size_stratified", "expected_error"]
REVIEW_DESIGNS: tuple[ReviewDesign, ...] = ("record", "size_stratified", "expected_error")


def _read_prediction(
    path: str | os.PathLike[str], *, record_col: str, cluster_col: str
) -> dict[str, str]:
    from ..io import read_table

    frame = read_table(path, name="prediction", text_columns=(record_col, cluster_col))
    for col, flag in ((record_col, "record_col"), (cluster_col, "cluster_col")):
        if col not in frame.columns:
            shown = ", ".join(repr(str(c)) for c in list(frame.columns)[:10])
            raise InputError(
                f"'{flag}': the prediction file '{path}' has no column '{col}'; columns are {shown}"
            )
    records = frame[record_col].astype(str)
    dup = records[records.duplicated()]
    if len(dup):
        raise InputError(
            f"'prediction' has {dup.nunique()} duplicate record id(s) (e.g. {examples(dup.unique())})"
        )
    return dict(zip(records.tolist(), frame[cluster_col].astype(str).tolist(), strict=True))


def create_cluster_review(
    store: LabelStore,
    name: str,
    *,
    data: str | os.PathLike[str],
    prediction: str | os.PathLike[str],
    n: int,
    id_col: str = "record_id",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
    design: ReviewDesign = "record",
    weights_col: str | None = None,
    strata: Any = None,
    allocation: str | None = None,
    pairs: str | os.PathLike[str] | None = None,
    score_col: str = "match_probability",
    left_col: str = "record_id_1",
    right_col: str = "record_id_2",
    floor: float | None = None,
    replace: bool = True,
    block_col: str | None = None,
    search_columns: Sequence[str] = (),
    show_columns: Sequence[str] | None = None,
    hide_columns: Sequence[str] = (),
    blind: bool = True,
    reveal: bool = False,
    overlap: float = 0.0,
    seed: int | None = None,
) -> ClusterReview:
    """Create a cluster-review session: check the inputs, draw the records, save all.

    Parameters
    ----------
    store : LabelStore
    name : str
        Session name.
    data : path
        The records with their attributes (CSV/Parquet), ids in ``id_col``.
    prediction : path
        The predicted clustering (``record_col``, ``cluster_col``), covering every record.
    n : int
        Number of draws.
    design : {"record", "size_stratified", "expected_error"}
        ``"record"``: records drawn at random (uniformly, or by ``weights_col``).
        ``"size_stratified"``: records drawn uniformly within strata of their
        predicted cluster's size, as by
        :func:`ereval.estimators.draw_sample` with ``design="size_stratified"``
        and the same seed (see the module docstring); every record of the
        prediction must be in ``data``.
        ``"expected_error"``: records drawn with replacement with the
        probabilities ``q_r`` computed from ``pairs`` (module docstring).
    weights_col : str, optional
        A column of ``data`` with each record's (relative) drawing probability
        (``design="record"``).
    strata : list of int or str, optional
        ``design="size_stratified"``: lower predicted cluster sizes of the strata
        (default ``1, 2, 3, 5, 9, ...``; :func:`ereval.estimators._strata.size_strata`).
    allocation : {"neyman", "proportional"}, optional
        ``design="size_stratified"``: draws per stratum (default ``"neyman"`` from
        the prediction alone; :func:`ereval.estimators._size_design.stratum_allocation`).
    pairs : path, optional
        ``design="expected_error"``: scored pairs with match probabilities in
        ``[0, 1]`` (e.g. Splink's predictions), columns ``left_col``,
        ``right_col`` and ``score_col``.
    floor : float, optional
        ``design="expected_error"``: share of uniform sampling in ``q_r`` (default
        :data:`ereval.estimators._error_weights.DEFAULT_FLOOR`).
    replace : bool, default True
        Draw with replacement (within each stratum for ``"size_stratified"``).
    block_col : str, optional
        A blocking column: records added from another block are flagged (§3.2.2).
    search_columns : sequence of str
        Columns searched for missing records (default: those shown).
    show_columns, hide_columns : sequence of str
        Columns shown to reviewers (default: every column but the hidden ones),
        and columns hidden besides those that give the answer away (see
        :func:`~ereval.labels._common.shown_columns`: an entity id, a cluster,
        label, score or prediction column is never shown unless named here).
    blind : bool, default True
        Hide model scores from reviewers before they decide.
    reveal : bool, default False
        Show them after the decision.
    overlap : float, default 0
        Fraction of the drawn records reviewed by two reviewers.
    seed : int, optional
        Seed of the draws (a random one is drawn and recorded when omitted).
    """
    if design not in REVIEW_DESIGNS:
        raise InputError(
            f"'design' must be one of {', '.join(REVIEW_DESIGNS)} for a cluster review; "
            f"received {describe(design)}"
        )
    stratified = design == "size_stratified"
    if stratified and weights_col is not None:
        raise InputError(
            "'weights_col' does not apply to design='size_stratified', which draws records "
            "uniformly within strata of the predicted cluster sizes"
        )
    if not stratified and (strata is not None or allocation is not None):
        raise InputError(
            "'strata' and 'allocation' are options of design='size_stratified'; "
            f"design is {design!r}"
        )
    by_error = design == "expected_error"
    if not by_error and (pairs is not None or floor is not None):
        raise InputError(
            f"'pairs' and 'floor' are options of design='expected_error'; design is {design!r}"
        )
    if by_error:
        if pairs is None:
            raise InputError(
                "'pairs' is needed for design='expected_error': the draw probabilities come "
                "from the pairs' match probabilities"
            )
        if weights_col is not None or replace is False:
            raise InputError(
                "design='expected_error' draws records with replacement with probabilities "
                "from 'pairs'; 'weights_col' and replace=False do not apply"
            )
    n = check_int("n", n, minimum=1)
    overlap = check_overlap(overlap)
    if not isinstance(replace, bool):
        raise InputError(f"'replace' must be True or False; received {describe(replace)}")
    seed = int(secrets.randbits(63)) if seed is None else check_int("seed", seed, minimum=0)
    records = load_records(data, id_col=id_col)
    check_columns(records, search_columns, option="search_columns")
    show, hide = check_show_hide(
        list(records.frame.columns),
        list(show_columns or ()),
        list(hide_columns),
        where=f"the data file '{data}'",
    )
    for option, col in (("weights_col", weights_col), ("block_col", block_col)):
        if col is not None:
            check_columns(records, [col], option=option)
    pred = _read_prediction(prediction, record_col=record_col, cluster_col=cluster_col)
    ids = records.ids
    missing = [r for r in ids if r not in pred]
    if missing:
        raise InputError(
            f"'prediction' has no cluster for {len(missing)} record(s) of the data "
            f"(e.g. {examples(missing)})"
        )
    rng = check_rng(seed)
    if not replace and n > len(ids):
        raise InputError(f"cannot draw {n} records without replacement from {len(ids)}")
    layout: _Strata | None = None
    if stratified:
        layout = _size_stratified(
            prediction,
            ids,
            n=n,
            strata=strata,
            allocation=allocation,
            replace=replace,
            rng=rng,
            record_col=record_col,
            cluster_col=cluster_col,
        )
        drawn = layout.drawn
        probs = np.ones(len(ids), dtype=np.float64)
    else:
        probs = (
            _error_probabilities(
                prediction,
                ids,
                pairs=pairs or "",
                score_col=score_col,
                left_col=left_col,
                right_col=right_col,
                floor=floor,
                record_col=record_col,
                cluster_col=cluster_col,
            )
            if by_error
            else _record_probabilities(records, weights_col)
        )
        drawn = rng.choice(len(ids), size=n, replace=replace, p=probs / probs.sum())
    config: dict[str, Any] = {
        "data": str(Path(data).resolve()),
        "prediction": str(Path(prediction).resolve()),
        "id_col": id_col,
        "record_col": record_col,
        "cluster_col": cluster_col,
        "design": design,
        "weights_col": weights_col,
        "replace": replace,
        "n": n,
        "block_col": block_col,
        "search_columns": list(search_columns),
        "show_columns": show,
        "hide_columns": hide,
        "blind": bool(blind),
        "reveal": bool(reveal),
        "overlap": overlap,
        "seed": seed,
        "draws": [ids[i] for i in drawn.tolist()],
        "n_records": len(ids),
    }
    if layout is not None:
        config |= layout.config
    if by_error:
        config |= {
            "pairs": str(Path(pairs or "").resolve()),
            "score_col": score_col,
            "left_col": left_col,
            "right_col": right_col,
            "floor": floor,
        }
    store.create_session(name, kind="cluster", config=config)
    from ._store import Item

    first: dict[str, tuple[int, list[int]]] = {}
    for k, i in enumerate(drawn.tolist()):
        first.setdefault(ids[i], (i, []))[1].append(k)
    total = float(probs.sum())

    def payload(rid: str, i: int, draws: list[int]) -> dict[str, Any]:
        if layout is None:  # each record's draws, its weight and its probability per draw
            return {
                "draws": draws,
                "weight": float(probs[i]),
                "probability": float(probs[i]) / total,
            }
        label, size = layout.stratum_of[rid]  # within its stratum, 1/N_h per draw
        return {"draws": draws, "stratum": label, "stratum_records": size, "probability": 1 / size}

    store.add_items(
        name, [Item(rid, draws[0], payload(rid, i, draws)) for rid, (i, draws) in first.items()]
    )
    return ClusterReview(store, name)


@dataclass(frozen=True)
class _Strata:
    """The size-stratified draws of a review: positions in the data, each record's
    stratum (label, ``N_h``), and what the session's configuration keeps of them."""

    drawn: npt.NDArray[np.int64]
    stratum_of: dict[str, tuple[str, int]]
    config: dict[str, Any]


def _size_stratified(
    prediction: str | os.PathLike[str],
    ids: Sequence[str],
    *,
    n: int,
    strata: Any,
    allocation: str | None,
    replace: bool,
    rng: np.random.Generator,
    record_col: str,
    cluster_col: str,
) -> _Strata:
    """Draw as ``draw_sample(..., design="size_stratified")`` does: the prediction's size
    strata, their allocation and the draws within each, by the estimators' own code."""
    from ..estimators._size_design import prediction_strata, stratified_draws, stratum_allocation
    from ..estimators._strata import check_allocation, check_bounds

    chosen = check_allocation("neyman" if allocation is None else allocation)
    prepared, st = prediction_strata(
        prediction, strata=strata, record_col=record_col, cluster_col=cluster_col
    )
    pred_ids = [str(r) for r in prepared.records.tolist()]
    where = {rid: i for i, rid in enumerate(ids)}
    extra = [r for r in pred_ids if r not in where]
    if extra:
        raise InputError(
            f"'prediction' has {len(extra)} record(s) absent from the data (e.g. "
            f"{examples(extra)}); design='size_stratified' draws among the prediction's records, "
            "so each must be in 'data'"
        )
    n_h = stratum_allocation(st, prepared, n=n, allocation=chosen, replace=replace)
    pos = stratified_draws(st, n_h, replace=replace, seed=rng)
    labels = [str(x) for x in st.labels.tolist()]
    sizes = [int(x) for x in st.sizes.tolist()]
    codes = st.codes.tolist()
    return _Strata(
        drawn=np.array([where[pred_ids[p]] for p in pos.tolist()], dtype=np.int64),
        stratum_of={rid: (labels[c], sizes[c]) for rid, c in zip(pred_ids, codes, strict=True)},
        config={
            "strata": None if strata is None else [int(b) for b in check_bounds(strata)],
            "allocation": chosen,
            "stratum_labels": labels,
            "stratum_records": sizes,
            "stratum_draws": [int(x) for x in np.asarray(n_h).tolist()],
        },
    )


def _error_probabilities(
    prediction: str | os.PathLike[str],
    ids: Sequence[str],
    *,
    pairs: str | os.PathLike[str],
    score_col: str,
    left_col: str,
    right_col: str,
    floor: float | None,
    record_col: str,
    cluster_col: str,
) -> npt.NDArray[np.float64]:
    """``q_r`` of each record of the data, in its order (the expected-error design)."""
    q = expected_error_q(
        prediction,
        pairs,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        floor=floor,
        record_col=record_col,
        cluster_col=cluster_col,
    )
    known = set(ids)
    extra = [r for r in q.index if r not in known]
    if extra:
        raise InputError(
            f"'prediction' has {len(extra)} record(s) absent from the data (e.g. "
            f"{examples(extra)}); design='expected_error' draws among the prediction's records, "
            "so each must be in 'data'"
        )
    return np.asarray(q.loc[list(ids)].to_numpy(dtype=np.float64), dtype=np.float64)


def expected_error_q(
    prediction: str | os.PathLike[str],
    pairs: str | os.PathLike[str],
    *,
    score_col: str,
    left_col: str,
    right_col: str,
    floor: float | None,
    record_col: str,
    cluster_col: str,
) -> pd.Series:
    """Each record's expected-error draw probability, by record id (read exactly)."""
    from ..estimators._error_weights import DEFAULT_FLOOR, expected_error_probabilities

    q: pd.Series = expected_error_probabilities(
        prediction,
        pairs,
        score_col=score_col,
        left_col=left_col,
        right_col=right_col,
        floor=DEFAULT_FLOOR if floor is None else floor,
        record_col=record_col,
        cluster_col=cluster_col,
    )
    return q.set_axis(q.index.astype(str))


def _record_probabilities(records: Records, weights_col: str | None) -> npt.NDArray[np.float64]:
    n = len(records.frame)
    if weights_col is None:
        return np.ones(n, dtype=np.float64)
    raw = pd.to_numeric(records.frame[weights_col], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(raw) | (raw <= 0)
    if bad.any():
        raise InputError(
            f"'weights_col': column '{weights_col}' must hold finite weights > 0; "
            f"{int(bad.sum())} record(s) do not (e.g. {examples(np.array(records.ids)[bad])})"
        )
    return np.asarray(raw, dtype=np.float64)


@dataclass(frozen=True)
class ClusterTask:
    """A drawn record to review.

    Attributes
    ----------
    record_id : str
        The drawn record r.
    position : int
        Its first draw (0-based).
    draws : list of int
        Every draw that returned it.
    predicted : list of str
        Its predicted cluster ĉ(r), r first.
    attributes : list of dict
        The shown columns of each record of ``predicted``.
    double : bool
        Whether this record goes to two reviewers.
    """

    record_id: str
    position: int
    draws: list[int]
    predicted: list[str]
    attributes: list[dict[str, Any]]
    double: bool

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what a reviewer is shown)."""
        return {
            "record_id": self.record_id,
            "position": self.position,
            "draws": self.draws,
            "predicted": self.predicted,
            "attributes": self.attributes,
            "double": self.double,
        }


class ClusterReview:
    """A cluster-review session of a store.

    Examples
    --------
    See ``docs/labelling.md``; the CLI is ``ereval label init --kind cluster``.
    """

    kind = "cluster"

    def __init__(self, store: LabelStore, session: str) -> None:
        info = store.session(session)
        if info.kind != "cluster":
            raise InputError(f"session '{session}' is a {info.kind} session, not a cluster review")
        self.store = store
        self.name = session
        self.config = info.config
        self._records: Records | None = None
        self._pred: dict[str, str] | None = None
        self._members: dict[str, list[str]] | None = None
        self._index: SearchIndex | None = None

    # ----------------------------------------------------------------- data
    @property
    def records(self) -> Records:
        """The record file of the session."""
        if self._records is None:
            self._records = load_records(self.config["data"], id_col=self.config["id_col"])
        return self._records

    @property
    def prediction(self) -> dict[str, str]:
        """record id -> predicted cluster id."""
        if self._pred is None:
            self._pred = _read_prediction(
                self.config["prediction"],
                record_col=self.config["record_col"],
                cluster_col=self.config["cluster_col"],
            )
        return self._pred

    def predicted_cluster(self, record_id: str) -> list[str]:
        """ĉ(r): the records predicted with ``record_id``, ``record_id`` first."""
        if self._members is None:
            members: dict[str, list[str]] = {}
            for rid, label in self.prediction.items():
                members.setdefault(label, []).append(rid)
            self._members = members
        cid = self.prediction.get(str(record_id))
        if cid is None:
            raise InputError(f"record {record_id!r} has no predicted cluster")
        others = [r for r in self._members[cid] if r != str(record_id)]
        return [str(record_id), *others]

    @property
    def shown(self) -> list[str]:
        """The columns reviewers are shown (see :func:`~ereval.labels._common.shown_columns`)."""
        return shown_columns(
            [str(c) for c in self.records.frame.columns],
            id_col=self.config["id_col"],
            show=self.config.get("show_columns") or (),
            hide=self.config.get("hide_columns") or (),
            named=(self.config.get("cluster_col"),),
        )

    def attributes(self, record_id: str) -> dict[str, Any]:
        """The shown columns of one record."""
        row = self.records.row(record_id)
        return {c: row.get(c) for c in self.shown}

    @property
    def index(self) -> SearchIndex:
        """The fuzzy search index over the search columns (built on first use; by
        default the shown columns, so a search never reveals a hidden one)."""
        if self._index is None:
            cols = self.config.get("search_columns") or self.shown
            self._index = SearchIndex.from_frame(
                self.records.frame, id_col=self.config["id_col"], columns=cols
            )
        return self._index

    def search(self, query: str, *, limit: int = 20) -> list[SearchHit]:
        """Fuzzy search of the whole data set (for the missing records B_r)."""
        return self.index.search(query, limit=limit)

    # ---------------------------------------------------------------- queue
    def required(self) -> dict[str, int]:
        """Reviewers needed per drawn record (2 for the overlap, else 1)."""
        seed, overlap = int(self.config["seed"]), float(self.config["overlap"])
        return {
            it.key: 2 if double_review(seed, it.key, overlap) else 1
            for it in self.store.items(self.name)
        }

    def task(self, record_id: str) -> ClusterTask:
        """The review task of a drawn record."""
        item = self.store.item(self.name, record_id)
        predicted = self.predicted_cluster(item.key)
        return ClusterTask(
            record_id=item.key,
            position=item.position,
            draws=list(item.payload.get("draws", [])),
            predicted=predicted,
            attributes=[self.attributes(r) for r in predicted],
            double=double_review(int(self.config["seed"]), item.key, float(self.config["overlap"])),
        )

    def next(self, *, reviewer: str) -> ClusterTask | None:
        """The next drawn record for ``reviewer`` (claimed for them), or ``None`` when done."""
        item = self.store.next_item(self.name, reviewer=reviewer, required=self.required())
        return None if item is None else self.task(item.key)

    # ---------------------------------------------------------------- label
    def check(
        self, record_id: str, *, remove: Iterable[Any] = (), add: Iterable[Any] = ()
    ) -> QualityReport:
        """The quality checks of §3.2.2 for a proposed answer (nothing is saved)."""
        record_id = str(record_id)
        block_col = self.config.get("block_col")
        text_cols = self.config.get("search_columns") or []

        def block(r: str) -> Any:
            return self.records.row(r).get(block_col) if block_col else None

        def text(r: str) -> str:
            row = self.records.row(r)
            return " ".join(str(row[c]) for c in text_cols if row.get(c) is not None)

        return check_review(
            record_id,
            self.predicted_cluster(record_id),
            remove=[str(r) for r in remove],
            add=[str(r) for r in add],
            exists=lambda r: r in self.records,
            block=block if block_col else None,
            text=text if text_cols else None,
        )

    def save(
        self,
        record_id: str,
        *,
        reviewer: str,
        remove: Iterable[Any] = (),
        add: Iterable[Any] = (),
        tags: Iterable[str] = (),
        note: str = "",
        shown: Mapping[str, Any] | None = None,
        adjudicate: bool = False,
        source: str | None = None,
        expected_version: int | None = None,
    ) -> Event:
        """Check and save ``reviewer``'s answer for a drawn record as one event.

        Errors of the quality checks refuse the answer (:class:`~ereval.InputError`
        listing them); warnings are saved with it. ``adjudicate=True`` records an
        adjudicator's final answer. ``expected_version`` binds the answer to the
        version of the item the reviewer was shown (see :meth:`LabelStore.label`).
        """
        record_id = str(record_id)
        if not self.store.has_item(self.name, record_id):
            raise InputError(f"'item' {record_id!r} is not a drawn record of session '{self.name}'")
        remove = sorted(dict.fromkeys(str(r) for r in remove))
        add = sorted(dict.fromkeys(str(r) for r in add))
        report = self.check(record_id, remove=remove, add=add)
        if not report.ok:
            raise InputError(
                f"the review of record {record_id!r} fails its checks: " + "; ".join(report.errors)
            )
        predicted = self.predicted_cluster(record_id)
        true = sorted((set(predicted) - set(remove)) | set(add))
        value = {
            "remove": remove,
            "add": add,
            "true_cluster": true,
            "tags": sorted(dict.fromkeys(str(t).strip() for t in tags if str(t).strip())),
            "note": str(note),
            "warnings": report.warnings,
        }
        what = dict(shown) if shown is not None else {"predicted": predicted}
        if adjudicate:
            return self.store.adjudicate(
                self.name,
                record_id,
                value,
                reviewer=reviewer,
                shown=what,
                expected_version=expected_version,
            )
        return self.store.label(
            self.name,
            record_id,
            value,
            reviewer=reviewer,
            shown=what,
            source=source,
            expected_version=expected_version,
        )

    def resolution(self) -> Resolution:
        """Resolved, pending and disputed drawn records."""
        return resolve(self.store, self.name, self.required())

    def comparison(self, record_id: str, value: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The data of Figure 3: the predicted and the true cluster of a drawn record.

        Each record of ĉ(r) ∪ c(r) with its status: ``"kept"`` (in both),
        ``"removed"`` (A_r, over-clustering) or ``"added"`` (B_r, under-clustering).
        ``value`` defaults to the record's resolved label.
        """
        record_id = str(record_id)
        if value is None:
            value = self.resolution().resolved.get(record_id)
            if value is None:
                raise InputError(f"drawn record {record_id!r} has no resolved label yet")
        predicted = self.predicted_cluster(record_id)
        removed, added = set(value.get("remove", ())), list(value.get("add", ()))
        rows = [
            {"record_id": r, "status": "removed" if r in removed else "kept", **self.attributes(r)}
            for r in predicted
        ] + [{"record_id": r, "status": "added", **self.attributes(r)} for r in added]
        return {
            "record_id": record_id,
            "predicted": predicted,
            "true": list(value.get("true_cluster", ())),
            "records": rows,
            "tags": list(value.get("tags", ())),
        }

    def progress(self) -> dict[str, Any]:
        """Counts: drawn records, labelled, pending a second review, in the adjudication queue."""
        res = self.resolution()
        items = self.store.items(self.name)
        return {
            "draws": len(self.config.get("draws", [])),
            "records": len(items),
            "resolved": len(res.resolved),
            "pending": len(res.pending),
            "queue": len(res.queue),
            "remaining": len(items) - len(res.resolved) - len(res.pending) - len(res.queue),
            "done": len(res.resolved) == len(items),
        }
