"""Agreement between reviewers and the adjudication queue.

The agreement page shows, per session, the items labelled by two reviewers,
Cohen's kappa and Krippendorff's alpha with the counts, and the queue of items
whose reviewers disagree (or said "unsure"). The adjudication page shows what is
being decided -- the records of the predicted cluster, or both records of the
pair -- with each reviewer's answer and note; choosing one records it as the
final label (one event in the store, bound to the item's version as shown). A
reviewer who labelled the item is part of its dispute and cannot decide it.
"""

import math
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from ..labels import StaleAnswer
from ._state import AppState, url_for
from ._web import form_version, redirect, render, reviewer_of

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["add_routes", "describe_label"]


def describe_label(value: Any) -> str:
    """A label in one line: a cluster answer by its changes, a pair label as is.

    Examples
    --------
    >>> describe_label({"remove": ["r2"], "add": [], "true_cluster": ["r1", "r3"], "tags": []})
    'true cluster of 2: r1, r3 (removed r2)'
    >>> describe_label("match")
    'match'
    """
    if isinstance(value, dict):
        true = list(value.get("true_cluster", ()))
        text = f"true cluster of {len(true)}: " + ", ".join(map(str, true[:8]))
        if len(true) > 8:
            text += ", ..."
        changes = []
        if value.get("remove"):
            changes.append("removed " + ", ".join(map(str, value["remove"])))
        if value.get("add"):
            changes.append("added " + ", ".join(map(str, value["add"])))
        if value.get("tags"):
            changes.append("tags " + ", ".join(map(str, value["tags"])))
        return text + (f" ({'; '.join(changes)})" if changes else "")
    return str(value)


def _number(x: Any) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):.3f}"


def _shown(session: Any, item: str, given: dict[str, Any]) -> dict[str, Any]:
    """What the adjudicator sees of the item: records and, for a cluster, who kept what."""
    from ._pairs import pair_rows

    if session.kind == "cluster":
        predicted = list(session.predicted_cluster(item))
        added = [r for v in given.values() for r in (v or {}).get("add", ())]
        ids = list(dict.fromkeys([*predicted, *added]))
        rows = []
        for rid in ids:
            marks = {}
            for who, value in given.items():
                true = set((value or {}).get("true_cluster", ()))
                marks[who] = "in" if rid in true else "out"
            rows.append(
                {
                    "record_id": rid,
                    "predicted": rid in predicted,
                    "attributes": session.attributes(rid) if rid in session.records else {},
                    "marks": marks,
                }
            )
        return {"columns": list(session.shown), "cluster_rows": rows, "pair": []}
    task = session.task(item)
    if session.kind == "pairs" or getattr(task, "left", None):
        return {
            "columns": [],
            "cluster_rows": [],
            "pair": pair_rows(task.left, task.right, task.differs),
        }
    return {
        "columns": [],
        "cluster_rows": [],
        "pair": [
            {"column": k, "left": v, "right": None, "differs": False} for k, v in task.row.items()
        ],
    }


def add_routes(app: "FastAPI", state: AppState) -> None:
    """The agreement page and the adjudication of one item."""
    from fastapi import Request

    from ..labels import session_agreement

    @app.get("/agreement")
    def agreement(request: Request) -> Any:
        who = reviewer_of(request)
        rows = []
        with state.lock:
            for info in state.store.sessions():
                session = state.open_session(info.name)
                agreed = session_agreement(state.store, info.name)
                res = session.resolution()
                queue = []
                for item in res.queue:
                    given = res.by_reviewer.get(item, {})
                    queue.append(
                        {
                            "item": item,
                            "labels": [
                                {"reviewer": w, "text": describe_label(v)} for w, v in given.items()
                            ],
                            "mine": who in given,
                            "url": url_for("adjudicate", info.name, item=item),
                        }
                    )
                rows.append(
                    {
                        "name": info.name,
                        "kind": info.kind,
                        "units": agreed.units,
                        "agreed": agreed.agreed,
                        "disagreed": agreed.disagreed,
                        "kappa": _number(agreed.kappa),
                        "alpha": _number(agreed.alpha),
                        "pending": len(res.pending),
                        "queue": queue,
                    }
                )
        return render(request, "agreement.html", sessions=rows)

    @app.get("/s/{name}/adjudicate")
    def adjudicate_page(request: Request, name: str, item: str) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = state.open_session(name)
            if not state.store.has_item(name, item):
                raise InputError(f"'item' {item!r} is not an item of session '{name}'")
            res = session.resolution()
            given = res.by_reviewer.get(item, {})
            decided = state.store.adjudications(name).get(item)
            version = state.store.item_version(name, item)
            shown = _shown(session, item, given)
        choices: list[dict[str, str]] = []
        seen: list[str] = []
        for reviewer, value in given.items():
            text = describe_label(value)
            if value == "unsure" or text in seen:
                continue
            seen.append(text)
            choices.append({"key": str(len(choices) + 1), "reviewer": reviewer, "text": text})
        if session.kind != "cluster":
            for value in ("match", "non-match"):
                if value not in seen:
                    choices.append({"key": str(len(choices) + 1), "reviewer": "", "text": value})
        party = who in given
        return render(
            request,
            "adjudicate.html",
            session=name,
            item=item,
            given=[
                {
                    "reviewer": w,
                    "text": describe_label(v),
                    "note": v.get("note", "") if isinstance(v, dict) else "",
                    "tags": ", ".join(v.get("tags", ())) if isinstance(v, dict) else "",
                }
                for w, v in given.items()
            ],
            decided=None if decided is None else f"{decided[0]}: {describe_label(decided[1])}",
            in_queue=item in res.queue,
            choices=[] if party else choices[:9],
            party=party,
            version=version,
            action=url_for("adjudicate", name),
            **shown,
        )

    @app.post("/s/{name}/adjudicate")
    async def adjudicate(request: Request, name: str) -> Any:
        form = await request.form()
        item = str(form.get("item", ""))
        reviewer, value = str(form.get("reviewer", "")), str(form.get("value", ""))
        version = form_version(form)
        who = reviewer_of(request)
        back = url_for("adjudicate", name, item=item)
        with state.lock:
            session = state.open_session(name)
            given = session.resolution().by_reviewer.get(item, {})
            if who in given:
                return redirect(
                    request,
                    back,
                    flash=f"you labelled {item}, so you are part of its dispute: someone who did "
                    "not label it adjudicates it",
                    error=True,
                )
            try:
                if session.kind == "cluster":
                    if reviewer not in given:
                        raise InputError(
                            f"'reviewer' {reviewer!r} gave no label for item {item!r} of '{name}'"
                        )
                    chosen = given[reviewer]
                    session.save(
                        item,
                        reviewer=who,
                        remove=chosen.get("remove", ()),
                        add=chosen.get("add", ()),
                        tags=chosen.get("tags", ()),
                        note=chosen.get("note", ""),
                        shown={"page": "adjudicate", "labels": given},
                        adjudicate=True,
                        expected_version=version,
                    )
                    final = describe_label(chosen)
                else:
                    final = given.get(reviewer, value) if reviewer else value
                    session.label(
                        item,
                        final,
                        reviewer=who,
                        shown={"page": "adjudicate", "labels": given},
                        adjudicate=True,
                        expected_version=version,
                    )
            except StaleAnswer:
                return redirect(
                    request,
                    back,
                    flash=f"{item} changed since you opened it (a reviewer or another adjudicator "
                    "acted); nothing was written: here it is as it stands now",
                    error=True,
                )
        return redirect(request, url_for("agreement"), flash=f"adjudicated {item}: {final}")
