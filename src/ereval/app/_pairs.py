"""Pair labelling (driven by OASIS) and ranked-item labelling (driven by a PAULA plan).

Both show one thing at a time with three answers -- match (``m``), non-match
(``n``), unsure (``u``) -- the progress as counts and as the live estimate with
its interval, and stop by their rule. Blind sessions show the model's score and
prediction only after the decision, and only when configured to reveal them.
"""

import math
from functools import cache
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from ._state import AppState, url_for
from ._web import redirect, render, reviewer_of

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["ANSWERS", "add_routes", "estimate_rows"]

#: The answers of a pair or item, with their key and button text.
ANSWERS: tuple[tuple[str, str, str], ...] = (
    ("match", "m", "match"),
    ("non-match", "n", "non-match"),
    ("unsure", "u", "unsure"),
)

#: Columns of a ranked file never shown before the decision in a blind session.
_HIDDEN = {"score", "probability", "prediction", "label", "match_probability", "match_weight"}

STOP_REASONS = {
    "budget": "the label budget is spent",
    "ci_width": "the interval is as narrow as asked",
    "exhausted": "every pair is labelled",
    "waiting": "the pairs left wait for a second reviewer or an adjudicator",
}


def _fmt(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{float(x):.3f}"


def estimate_rows(estimate: dict[str, Any] | None) -> list[dict[str, str]]:
    """Rows (name, value, interval) of a live estimate, for display.

    Examples
    --------
    >>> est = {"precision": {"value": 0.9, "interval": [0.8, 0.95], "level": 0.95, "std": 0.04}}
    >>> estimate_rows(est)
    [{'name': 'precision', 'value': '0.900', 'interval': '[0.800, 0.950]', 'level': '95%'}]
    """
    rows = []
    for key, name in (("f_measure", "F"), ("precision", "precision"), ("recall", "recall")):
        if not estimate or key not in estimate:
            continue
        d = estimate[key]
        lo, hi = d.get("interval", [None, None])
        rows.append(
            {
                "name": name,
                "value": _fmt(d.get("value")),
                "interval": f"[{_fmt(lo)}, {_fmt(hi)}]",
                "level": f"{round(100 * float(d.get('level', 0.95)))}%",
            }
        )
    return rows


@cache
def _ranked_rows(path: str, item_col: str) -> dict[str, dict[str, Any]]:
    from ..files import read_table

    frame = read_table(path, name="ranked", text_columns=(item_col,))
    frame = frame.astype(object).where(frame.notna(), None)
    return {str(r[item_col]): dict(r) for r in frame.to_dict(orient="records")}


def add_routes(app: "FastAPI", state: AppState) -> None:
    """The pair and ranked-item routes."""
    from fastapi import Form, Request

    def session_of(name: str, kind: str) -> Any:
        session = state.open_session(name)
        if getattr(session, "kind", None) != kind:
            raise InputError(f"session '{name}' is not a {kind} session")
        return session

    def answers() -> list[dict[str, str]]:
        return [{"value": v, "key": k, "text": t} for v, k, t in ANSWERS]

    def revealed(session: Any, name: str, who: str, last: str | None) -> dict[str, Any] | None:
        config = session.config
        if not last or (config.get("blind", True) and not config.get("reveal")):
            return None
        mine = state.store.labels(name, reviewer=who).get(last, {}).get(who)
        if mine is None:  # shown only after this reviewer's decision
            return None
        score, prediction = session.reveal(last, force=True)
        return {"item": last, "score": _fmt(score), "prediction": prediction, "label": mine}

    @app.get("/s/{name}/pairs")
    def pairs(request: Request, name: str, last: str | None = None) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = session_of(name, "pairs")
            task = session.next(reviewer=who)
            progress = session.progress()
            reveal = revealed(session, name, who, last)
            stop = session.stop_reason
        rows = []
        if task is not None:
            keys = list(dict.fromkeys([*task.left, *task.right]))
            rows = [
                {
                    "column": c,
                    "left": task.left.get(c),
                    "right": task.right.get(c),
                    "differs": c in task.differs,
                }
                for c in keys
            ]
        return render(
            request,
            "pairs.html",
            session=name,
            task=task,
            rows=rows,
            answers=answers(),
            progress=progress,
            estimate=estimate_rows(progress.get("estimate")),
            # the warnings the CLI prints for the same estimates, each once
            estimate_warnings=list(
                dict.fromkeys(
                    w for d in (progress.get("estimate") or {}).values() for w in d["warnings"]
                )
            ),
            reveal=reveal,
            stop=None if stop is None else STOP_REASONS.get(stop, stop),
            label_url=url_for("pair_label", name),
            undo_url=url_for("undo", name),
            redo_url=url_for("redo", name),
        )

    @app.post("/s/{name}/pairs/label")
    def pair_label(
        request: Request, name: str, item: str = Form(...), value: str = Form(...)
    ) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = session_of(name, "pairs")
            if not state.store.has_item(name, item):
                raise InputError(f"'item' {item!r} is not a pair of session '{name}'")
            session.label(item, value, reviewer=who, shown={"page": "pairs"})
        return redirect(request, url_for("pairs", name, last=item), flash=f"{item}: {value}")

    @app.get("/s/{name}/items")
    def items(request: Request, name: str) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = session_of(name, "items")
            item = session.next(reviewer=who)
            progress = state.progress(name)
        config = session.config
        shown: list[tuple[str, Any]] = []
        if item is not None:
            row = _ranked_rows(str(config["ranked"]), str(config["item_col"])).get(item.key, {})
            hidden = set(_HIDDEN) | {config.get("score_col")}
            shown = [(k, v) for k, v in row.items() if k not in hidden]
        precision = progress.get("precision_at_n")
        return render(
            request,
            "items.html",
            session=name,
            item=item,
            shown=shown,
            answers=answers(),
            progress=progress,
            precision=None
            if precision is None
            else estimate_rows({"precision": precision})[0] | {"name": "precision at N"},
            label_url=url_for("item_label", name),
            undo_url=url_for("undo", name),
            redo_url=url_for("redo", name),
        )

    @app.post("/s/{name}/items/label")
    def item_label(
        request: Request, name: str, item: str = Form(...), value: str = Form(...)
    ) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = session_of(name, "items")
            session.label(item, value, reviewer=who, shown={"page": "items"})
        return redirect(request, url_for("items", name), flash=f"{item}: {value}")
