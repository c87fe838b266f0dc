"""Ranked-item labelling pages, driven by a PAULA plan.

The items of the plan one at a time, in rank order, with the three answers of a
pair. When the items are pairs of records and the session has the record file,
both records are shown side by side with the values that differ highlighted;
otherwise the item's row of the ranked file, without the columns that give the
answer away. As for pairs, an item is shown to the reviewer it is handed to and
an answer carries the version of the item the page showed.
"""

from typing import TYPE_CHECKING, Any

from .._errors import InputError
from ..labels import StaleAnswer
from ._blocked import export_command, held_text, plural
from ._pairs import answers, estimate_rows, pair_rows
from ._state import AppState, url_for
from ._web import claim_next, form_version, redirect, render, reviewer_of

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["add_routes"]


def add_routes(app: "FastAPI", state: AppState) -> None:
    """The ranked-item routes: the page and an answer."""
    from fastapi import Request

    def item_session(name: str) -> Any:
        session = state.open_session(name)
        if getattr(session, "kind", None) != "items":
            raise InputError(f"session '{name}' is not an items session")
        return session

    @app.get("/s/{name}/items")
    def items(request: Request, name: str) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = item_session(name)
            progress = state.progress(name)
            mine = state.store.claimed(name, reviewer=who)
            task = session.task(mine[0]) if mine else None
            version = state.store.item_version(name, mine[0], reviewer=who) if mine else None
            held = state.store.held(name)
            labels = state.store.labels(name)
            required = session.required()
        precision = progress.get("precision_at_n")
        context: dict[str, Any] = {
            "session": name,
            "progress": progress,
            "precision": None
            if precision is None
            else estimate_rows({"precision": precision})[0] | {"name": "precision at N"},
            "answers": answers(),
            "label_url": url_for("item_label", name),
            "undo_url": url_for("undo", name),
            "redo_url": url_for("redo", name),
        }
        if task is not None:
            return render(
                request,
                "items.html",
                task=task,
                version=version,
                rows=pair_rows(task.left, task.right, task.differs) if task.left else [],
                leave=url_for("release", name),
                **context,
            )
        free = waiting = 0
        for key, need in required.items():
            done = set(labels.get(key, {}))
            if who in done or len(done) >= need:
                continue
            others = set(held.get(key, ())) - {who}
            if len(done | others) >= need:
                waiting += 1
            else:
                free += 1
        reason = None
        if not free:
            if waiting:
                reason = (
                    f"Nothing for you right now: {held_text(held, 'item', besides=who)}. Each "
                    "comes back when its reviewer leaves the page, or after 30 minutes."
                )
            elif progress.get("done"):
                reason = "Every planned item is labelled."
            else:
                reason = (
                    "Nothing left for you: the items left wait for a second reviewer or an "
                    "adjudicator."
                )
        return render(
            request,
            "start.html",
            kind="ranked items",
            noun="item",
            progress_line=f"{progress['resolved']} / {progress['planned']} planned items "
            f"labelled · {plural(progress['positives'], 'match')}"
            f" · {progress['pending']} waiting for a second reviewer"
            f" · {progress['queue']} to adjudicate",
            can_start=bool(free),
            reason=reason,
            held=held_text(held, "item", besides=who),
            queue=progress.get("queue", 0),
            done=progress.get("done", False),
            export=export_command(state.store.path, name, "items"),
            follow=None,
            start_url=url_for("start", name),
            estimate=[],
            warnings=[],
            **context,
        )

    @app.post("/s/{name}/items/label")
    async def item_label(request: Request, name: str) -> Any:
        form = await request.form()
        item, value = str(form.get("item", "")), str(form.get("value", ""))
        version = form_version(form)
        who = reviewer_of(request)
        with state.lock:
            session = item_session(name)
            try:
                session.label(
                    item, value, reviewer=who, shown={"page": "items"}, expected_version=version
                )
            except StaleAnswer as stale:
                if stale.current != value:
                    return render(
                        request,
                        "changed.html",
                        status=409,
                        session=name,
                        item=item,
                        current=stale.current,
                        current_note="",
                        given=value,
                        given_note="",
                        keep_url=url_for("items", name),
                        action=url_for("item_label", name),
                        fields_list=[
                            ("item", item),
                            ("version", str(stale.found)),
                            ("value", value),
                        ],
                    )
            disputed = item in session.resolution().queue
            claim_next(state, name, who)
        if disputed:
            return redirect(
                request,
                url_for("items", name),
                flash=f"{item}: {value} — it goes to adjudication (answers differ or unsure)",
                link=url_for("adjudicate", name, item=item),
                link_text="see the dispute",
            )
        return redirect(request, url_for("items", name), flash=f"{item}: {value}")
