"""Agreement between reviewers and the adjudication queue.

The agreement page shows, per session, the items labelled by two reviewers,
Cohen's kappa and Krippendorff's alpha with the counts, and the queue of items
whose reviewers disagree (or said "unsure"). Adjudicating an item picks one of
the reviewers' answers as the final label (one event in the store).
"""

import math
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from ._state import AppState, url_for
from ._web import redirect, render, reviewer_of

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


def add_routes(app: "FastAPI", state: AppState) -> None:
    """The agreement page and the adjudication of one item."""
    from fastapi import Form, Request

    from ..labels import session_agreement

    @app.get("/agreement")
    def agreement(request: Request) -> Any:
        rows = []
        with state.lock:
            for info in state.store.sessions():
                session = state.open_session(info.name)
                agreed = session_agreement(state.store, info.name)
                res = session.resolution()
                queue = []
                for item in res.queue:
                    queue.append(
                        {
                            "item": item,
                            "labels": [
                                {"reviewer": who, "text": describe_label(v)}
                                for who, v in res.by_reviewer.get(item, {}).items()
                            ],
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
        with state.lock:
            session = state.open_session(name)
            if not state.store.has_item(name, item):
                raise InputError(f"'item' {item!r} is not an item of session '{name}'")
            given = session.resolution().by_reviewer.get(item, {})
        choices: list[dict[str, str]] = []
        seen: list[str] = []
        for who, value in given.items():
            text = describe_label(value)
            if value == "unsure" or text in seen:
                continue
            seen.append(text)
            choices.append({"key": str(len(choices) + 1), "reviewer": who, "text": text})
        if session.kind != "cluster":
            for value in ("match", "non-match"):
                if value not in seen:
                    choices.append({"key": str(len(choices) + 1), "reviewer": "", "text": value})
        return render(
            request,
            "adjudicate.html",
            session=name,
            item=item,
            given=[{"reviewer": w, "text": describe_label(v)} for w, v in given.items()],
            choices=choices[:9],
            action=url_for("adjudicate", name),
        )

    @app.post("/s/{name}/adjudicate")
    def adjudicate(
        request: Request,
        name: str,
        item: str = Form(...),
        reviewer: str = Form(""),
        value: str = Form(""),
    ) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = state.open_session(name)
            given = session.resolution().by_reviewer.get(item, {})
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
                )
        return redirect(request, url_for("agreement"), flash=f"adjudicated {item}: {final}")
