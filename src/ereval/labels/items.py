"""Ranked-item labelling driven by a PAULA plan (Sabharwal & Sedghi 2017).

The plan (:func:`ereval.paula.paula_plan`) names the O(log N) ranks of a ranked
list to annotate; every planned item is an item of the session, in rank order.
A label is ``"match"`` (the item is a true positive), ``"non-match"`` or
``"unsure"`` (which goes to the adjudication queue). The bounds on precision
(:func:`ereval.paula.paula_bounds`) are computed once the plan is complete;
before that, progress reports the exact precision at the end of the labelled
prefix ``1..k`` (the plan labels its first ranks first).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._validation import check_int, check_real, describe
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

__all__ = ["ItemLabelling", "ItemTask", "create_item_labelling"]


def create_item_labelling(
    store: LabelStore,
    name: str,
    *,
    ranked: str | os.PathLike[str],
    item_col: str = "pair_id",
    score_col: str | None = None,
    epsilon: float = 0.03,
    delta: int = 100,
    r_tilde: int | None = None,
    overlap: float = 0.0,
    seed: int = 0,
    data: str | os.PathLike[str] | None = None,
    id_col: str = "record_id",
    left_col: str = "record_id_1",
    right_col: str = "record_id_2",
    show_columns: tuple[str, ...] | list[str] = (),
    hide_columns: tuple[str, ...] | list[str] = (),
) -> ItemLabelling:
    """Create a ranked-item session: the items a PAULA plan names, in rank order.

    ``ranked`` lists the items best first (or sorted by ``score_col``,
    descending); ``epsilon``, ``delta`` and ``r_tilde`` are those of
    :func:`ereval.paula.paula_plan`. When the items are pairs of records and
    ``data`` holds the records (ids in ``id_col``), reviewers see both records
    of each item side by side: the ranked file names them in ``left_col`` and
    ``right_col``. ``show_columns`` / ``hide_columns`` choose the columns shown
    (of the records, or of the ranked file without ``data``; see
    :func:`~ereval.labels._common.shown_columns`).
    """
    from ..paula import paula_plan

    epsilon = check_real("epsilon", epsilon)
    delta = check_int("delta", delta, minimum=1)
    overlap = check_overlap(overlap)
    seed = check_int("seed", seed, minimum=0)
    from ..io import read_ranked

    order = read_ranked(ranked, id_col=item_col, score_col=score_col, id_option="item_col")
    ids = [str(v) for v in order.tolist()]
    if not ids:
        raise InputError(f"'ranked': the file '{ranked}' lists no items")
    from ..io import file_spec, header

    ranked_cols = [str(c) for c in header(file_spec(ranked, name="ranked"), name="ranked")]
    if data is not None:
        for col, option in ((left_col, "left_col"), (right_col, "right_col")):
            if col not in ranked_cols:
                raise InputError(
                    f"'{option}': the ranked file '{ranked}' has no column '{col}' naming the "
                    f"records of an item; columns are {', '.join(map(repr, ranked_cols[:10]))}"
                )
        records = load_records(data, id_col=id_col)
        show, hide = check_show_hide(
            list(records.frame.columns),
            list(show_columns),
            list(hide_columns),
            where=f"the data file '{data}'",
        )
        _check_ends(str(ranked), item_col, left_col, right_col, records)
    else:
        show, hide = check_show_hide(
            ranked_cols, list(show_columns), list(hide_columns), where=f"the ranked file '{ranked}'"
        )
    plan = paula_plan(len(ids), epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    config = {
        "ranked": str(Path(ranked).resolve()),
        "item_col": item_col,
        "score_col": score_col,
        "data": None if data is None else str(Path(data).resolve()),
        "id_col": id_col,
        "left_col": left_col,
        "right_col": right_col,
        "show_columns": show,
        "hide_columns": hide,
        "epsilon": epsilon,
        "delta": delta,
        "r_tilde": plan.r_tilde,
        "n": len(ids),
        "overlap": overlap,
        "seed": seed,
        "blind": True,
        "reveal": False,
    }
    store.create_session(name, kind="items", config=config)
    ranks = plan.ranks().tolist()
    store.add_items(name, [Item(ids[r - 1], int(r), {"rank": int(r)}) for r in ranks])
    return ItemLabelling(store, name)


def _check_ends(path: str, item_col: str, left: str, right: str, records: Records) -> None:
    from ..io import read_table

    frame = read_table(path, name="ranked", text_columns=(item_col, left, right))
    for col in (left, right):
        unknown = [str(v) for v in frame[col].tolist() if str(v) not in records]
        if unknown:
            raise InputError(
                f"'ranked': column '{col}' names {len(unknown)} record(s) not in the data "
                f"file '{records.path}' (e.g. {unknown[0]!r})"
            )


@dataclass(frozen=True)
class ItemTask:
    """A ranked item to label, as a reviewer sees it.

    Attributes
    ----------
    key : str
        The item id.
    rank : int
        Its rank in the list.
    row : dict
        Its shown columns of the ranked file (never its score, label or prediction).
    left, right : dict
        The two records of a pair item (their id and shown columns), empty when
        the session has no record file.
    differs : list of str
        The shown record columns whose values differ.
    """

    key: str
    rank: int
    row: dict[str, Any]
    left: dict[str, Any] = field(default_factory=dict)
    right: dict[str, Any] = field(default_factory=dict)
    differs: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what a reviewer is shown)."""
        return {
            "key": self.key,
            "rank": self.rank,
            "row": self.row,
            "left": self.left,
            "right": self.right,
            "differs": self.differs,
        }


class ItemLabelling:
    """A ranked-item session of a store, driven by a PAULA plan."""

    kind = "items"

    def __init__(self, store: LabelStore, session: str) -> None:
        info = store.session(session)
        if info.kind != "items":
            raise InputError(f"session '{session}' is a {info.kind} session, not ranked items")
        self.store = store
        self.name = session
        self.config = info.config
        self._rows: dict[str, dict[str, Any]] | None = None
        self._records: Records | None = None

    def _ranked_rows(self) -> dict[str, dict[str, Any]]:
        if self._rows is None:
            from ..io import read_table

            c = self.config
            text = [c["item_col"], *([c["left_col"], c["right_col"]] if c.get("data") else [])]
            frame = read_table(c["ranked"], name="ranked", text_columns=text)
            frame = frame.astype(object).where(frame.notna(), None)
            self._rows = {str(r[c["item_col"]]): dict(r) for r in frame.to_dict(orient="records")}
        return self._rows

    @property
    def records(self) -> Records | None:
        """The record file of the session, ``None`` when it has none."""
        if self._records is None and self.config.get("data"):
            self._records = load_records(self.config["data"], id_col=self.config["id_col"])
        return self._records

    def task(self, key: str) -> ItemTask:
        """What a reviewer is shown of an item: its row, and both records of a pair."""
        c = self.config
        item = self.store.item(self.name, str(key))
        full = self._ranked_rows().get(item.key, {})
        records = self.records
        if records is None:
            cols = shown_columns(
                list(full),
                id_col=c["item_col"],
                show=c.get("show_columns") or (),
                hide=c.get("hide_columns") or (),
                named=(c.get("score_col"),),
            )
            return ItemTask(item.key, int(item.position), {k: full.get(k) for k in cols})
        cols = shown_columns(
            [str(x) for x in records.frame.columns],
            id_col=c["id_col"],
            show=c.get("show_columns") or (),
            hide=c.get("hide_columns") or (),
        )
        sides = []
        for end in (c["left_col"], c["right_col"]):
            rid = str(full.get(end))
            values = records.row(rid)
            sides.append({c["id_col"]: rid, **{k: values.get(k) for k in cols}})
        left, right = sides
        differs = [k for k in cols if left.get(k) != right.get(k)]
        row = {c["left_col"]: left[c["id_col"]], c["right_col"]: right[c["id_col"]]}
        return ItemTask(item.key, int(item.position), row, left, right, differs)

    @property
    def plan(self) -> Any:
        """The :class:`ereval.paula.PaulaPlan` of the session."""
        from ..paula import paula_plan

        c = self.config
        return paula_plan(c["n"], epsilon=c["epsilon"], delta=c["delta"], r_tilde=c["r_tilde"])

    def required(self, items: list[Item] | None = None) -> dict[str, int]:
        """Reviewers needed per item (2 for the overlap, else 1)."""
        seed, overlap = int(self.config["seed"]), float(self.config["overlap"])
        return {
            it.key: 2 if double_review(seed, it.key, overlap) else 1
            for it in (self.store.items(self.name) if items is None else items)
        }

    def resolution(self, items: list[Item] | None = None) -> Resolution:
        """Resolved, pending and disputed items."""
        return resolve(self.store, self.name, self.required(items))

    def next(self, *, reviewer: str) -> Item | None:
        """The next planned item for ``reviewer`` (claimed), or ``None`` when none is left."""
        return self.store.next_item(self.name, reviewer=reviewer, required=self.required())

    def label(
        self,
        item: str,
        value: str,
        *,
        reviewer: str,
        shown: Mapping[str, Any] | None = None,
        adjudicate: bool = False,
        source: str | None = None,
        expected_version: int | None = None,
    ) -> Event:
        """Record a label of a planned item: ``"match"``, ``"non-match"`` or ``"unsure"``.

        ``expected_version`` binds the answer to the version of the item the
        reviewer was shown (see :meth:`LabelStore.label`).
        """
        if value not in PAIR_LABELS:
            raise InputError(
                f"'label' must be one of {', '.join(PAIR_LABELS)}; received {describe(value)}"
            )
        found = self.store.item(self.name, str(item))
        what = dict(shown) if shown is not None else {"rank": found.payload.get("rank")}
        if adjudicate:
            return self.store.adjudicate(
                self.name,
                found.key,
                value,
                reviewer=reviewer,
                shown=what,
                expected_version=expected_version,
            )
        return self.store.label(
            self.name,
            found.key,
            value,
            reviewer=reviewer,
            shown=what,
            source=source,
            expected_version=expected_version,
        )

    def labelled_ranks(
        self, items: list[Item] | None = None, res: Resolution | None = None
    ) -> tuple[list[int], list[int]]:
        """The ranks with a resolved 0/1 label, and the labels, in rank order."""
        items = self.store.items(self.name) if items is None else items
        res = self.resolution(items) if res is None else res
        out = sorted(
            (it.position, 1 if res.resolved[it.key] == "match" else 0)
            for it in items
            if res.resolved.get(it.key) in ("match", "non-match")
        )
        return [r for r, _ in out], [v for _, v in out]

    def bounds(self) -> Any:
        """The :class:`ereval.paula.PaulaBounds`, once every planned item is labelled (else ``None``)."""
        items = self.store.items(self.name)
        return self._bounds(items, *self.labelled_ranks(items))

    def _bounds(self, items: list[Item], ranks: list[int], labels: list[int]) -> Any:
        from ..paula import paula_bounds

        if len(ranks) < len(items):
            return None
        return paula_bounds(self.plan, ranks, labels, on_violation="ignore")

    def progress(self) -> dict[str, Any]:
        """Counts, the precision of the labelled items so far, and the bounds once complete."""
        items = self.store.items(self.name)
        res = self.resolution(items)
        ranks, labels = self.labelled_ranks(items, res)
        bounds = self._bounds(items, ranks, labels)
        # live: the precision at the end of the labelled prefix 1..k is known exactly
        k = 0
        while k < len(ranks) and ranks[k] == k + 1:
            k += 1
        out: dict[str, Any] = {
            "planned": len(items),
            "resolved": len(ranks),
            "pending": len(res.pending),
            "queue": len(res.queue),
            "positives": int(sum(labels)),
            "prefix": {"rank": k, "precision": sum(labels[:k]) / k if k else None},
            "done": bounds is not None,
        }
        if bounds is not None:
            out["precision_at_n"] = bounds.precision_at(int(self.config["n"])).to_dict()
        return out
