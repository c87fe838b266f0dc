"""Cluster review pages (Binette et al. 2024, §3.2 and Figure 3).

The reviewer's draft answer -- the records marked as not belonging (A_r), the
records added from the search (B_r), the error tags -- lives in the page
address (``?item=r&remove=..&add=..&tag=..``): toggling a record or adding one is a
new address, the quality checks are run on every draft, and a draft survives a
reload or a restart of the server. Saving is the one state-changing request: it
checks the answer and appends it to the store as one event, bound to the
version of the record the page showed (a page left open while the same record
was saved elsewhere gets the "changed since you opened it" page, and nothing is
written). Opening ``/s/{name}/review`` shows the record the reviewer holds, or a
page to start from; a record is handed out only by an action.
"""

import shlex
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from ..labels import StaleAnswer
from ..labels._exports import estimate_flags
from ._adjudication import describe_label
from ._blocked import export_command, held_text, plural
from ._state import AppState, url_for
from ._web import form_list, form_version, redirect, render, reviewer_of

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["DEFAULT_TAGS", "add_routes", "review_view"]

#: Error tags offered when the session configures none (keys 1..9).
DEFAULT_TAGS: tuple[str, ...] = (
    "typo",
    "name variant",
    "relative",
    "moved",
    "missing data",
    "shared address",
    "other",
)


def _toggled(values: list[str], value: str) -> list[str]:
    return [v for v in values if v != value] if value in values else [*values, value]


def review_view(
    session: Any,
    item: str,
    *,
    remove: list[str],
    add: list[str],
    tags: list[str],
    focus: int = 0,
) -> dict[str, Any]:
    """Everything the review page of drawn record ``item`` shows for a draft answer."""
    name = session.name
    task = session.task(item)
    predicted: list[str] = list(task.predicted)
    remove = list(dict.fromkeys(remove))
    add = [r for r in dict.fromkeys(add) if r not in predicted]
    tags = list(dict.fromkeys(tags))
    vocabulary = list(session.config.get("tags") or DEFAULT_TAGS)[:9]

    def draft_url(**change: Any) -> str:
        state = {"remove": remove, "add": add, "tag": tags, "focus": focus, **change}
        return url_for("review", name, item=item, **state)

    columns: list[str] = list(session.shown)
    rows = []
    for i, (rid, attrs) in enumerate(zip(predicted, task.attributes, strict=True)):
        rows.append(
            {
                "record_id": rid,
                "attributes": attrs,
                "status": "removed" if rid in remove else "kept",
                "anchor": i == 0,
                "toggle": draft_url(remove=_toggled(remove, rid), focus=i),
            }
        )
    prediction = session.prediction
    for j, rid in enumerate(add):
        attrs = session.attributes(rid) if rid in session.records else {}
        rows.append(
            {
                "record_id": rid,
                "attributes": attrs,
                "status": "added",
                "anchor": False,
                "toggle": draft_url(add=_toggled(add, rid), focus=len(predicted) + j),
            }
        )

    report = session.check(item, remove=remove, add=add)
    true_cluster = sorted((set(predicted) - set(remove)) | set(add))

    # Figure 3: the predicted clusters meeting the true cluster, by membership in it
    clusters: dict[str, dict[str, list[str]]] = {}
    for rid in [*predicted, *add]:
        cid = prediction.get(rid, "?")
        side = "in" if rid in true_cluster else "out"
        clusters.setdefault(cid, {"in": [], "out": []})[side].append(rid)

    return {
        "session": name,
        "item": item,
        "task": task,
        "columns": columns,
        "rows": rows,
        "remove": remove,
        "add": add,
        "tags": [
            {"key": str(k), "name": t, "on": t in tags, "toggle": draft_url(tag=_toggled(tags, t))}
            for k, t in enumerate(vocabulary, start=1)
        ],
        "chosen_tags": tags,
        "errors": report.errors,
        "warnings": report.warnings,
        "true_cluster": true_cluster,
        "predicted_cluster": prediction.get(item, "?"),
        "clusters": clusters,
        "focus": min(max(focus, 0), max(len(rows) - 1, 0)),
        "search_url": url_for("search", name),
        "add_base": draft_url(),
        "save_url": url_for("save", name),
        "undo_url": url_for("undo", name),
        "redo_url": url_for("redo", name),
    }


def start_view(state: AppState, name: str, who: str) -> dict[str, Any]:
    """The page of a cluster review when the reviewer holds no record: start, or why not."""
    session = state.open_session(name)
    progress = state.progress(name)
    held = state.store.held(name)
    export = export_command(state.store.path, name, "cluster")
    labels = state.store.labels(name)
    required = session.required()
    free: list[str] = []
    waiting: list[str] = []
    for it in state.store.items(name):
        done = set(labels.get(it.key, {}))
        need = required.get(it.key, 1)
        if who in done or len(done) >= need:
            continue
        others = set(held.get(it.key, ())) - {who}
        (waiting if len(done | others) >= need else free).append(it.key)
    reason = None
    if not free:
        if waiting:
            reason = (
                f"Nothing for you right now: {held_text(held, 'record', besides=who)}. "
                "Each comes back when its reviewer leaves the page, or after 30 minutes."
            )
        elif progress.get("queue"):
            reason = (
                f"Nothing left for you to review; {plural(progress['queue'], 'record')} "
                "wait for an adjudicator."
            )
        else:
            reason = "Nothing left for you to review."
    return {
        "session": name,
        "kind": "cluster review",
        "noun": "record",
        "progress_line": f"{progress['resolved']} of {progress['records']} drawn records labelled"
        f" · {progress['pending']} waiting for a second reviewer"
        f" · {progress['queue']} in the adjudication queue",
        "can_start": bool(free),
        "reason": reason,
        "held": held_text(held, "record"),
        "queue": progress.get("queue", 0),
        "done": progress.get("done", False),
        "export": export,
        "follow": shlex.join(
            [
                "ereval",
                "estimate",
                "--pred",
                str(session.config["prediction"]),
                "--sample",
                export.rsplit(" ", 1)[1],
                *estimate_flags(session.config),
            ]
        ),
        "start_url": url_for("start", name),
        "undo_url": url_for("undo", name),
        "redo_url": url_for("redo", name),
    }


def add_routes(app: "FastAPI", state: AppState) -> None:
    """The cluster-review routes: the page, the search and save."""
    from fastapi import Request
    from fastapi.responses import JSONResponse

    def cluster_session(name: str) -> Any:
        session = state.open_session(name)
        if getattr(session, "kind", None) != "cluster":
            raise InputError(f"session '{name}' is not a cluster review")
        return session

    @app.get("/s/{name}/review")
    def review(request: Request, name: str) -> Any:
        query = request.query_params
        who = reviewer_of(request)
        with state.lock:
            session = cluster_session(name)
            item = query.get("item")
            if not item:
                mine = state.store.claimed(name, reviewer=who)
                if mine:  # the record this reviewer holds (also after a restart)
                    return redirect(request, url_for("review", name, item=mine[0]))
                return render(request, "start.html", **start_view(state, name, who))
            if not state.store.has_item(name, item):
                raise InputError(f"'item' {item!r} is not a drawn record of session '{name}'")
            try:
                focus = int(query.get("focus", "0"))
            except ValueError:
                focus = 0
            view = review_view(
                session,
                item,
                remove=form_list(query, "remove"),
                add=form_list(query, "add"),
                tags=form_list(query, "tag"),
                focus=focus,
            )
            given = state.store.labels(name, reviewer=who).get(item, {}).get(who)
            others = [w for w in state.store.held(name).get(item, []) if w != who]
            version = state.store.item_version(name, item, reviewer=who)
            progress = state.progress(name)
        return render(
            request,
            "review.html",
            given=given,
            progress=progress,
            others=others,
            version=version,
            leave=url_for("release", name),
            **view,
        )

    @app.get("/s/{name}/search")
    def search(request: Request, name: str, q: str = "", item: str = "") -> Any:
        """Fuzzy search of the whole data set, without the records of ``item``'s
        predicted cluster (they are on the page already)."""
        with state.lock:
            session = cluster_session(name)
            shown: set[str] = set()
            if item and state.store.has_item(name, item):
                shown = set(session.predicted_cluster(item))
        hits = session.search(q[:200], limit=20 + len(shown)) if q.strip() else []
        prediction = session.prediction
        return JSONResponse(
            {
                "results": [
                    {
                        "record_id": h.record_id,
                        "text": h.text,
                        "score": round(h.score),
                        "note": f"predicted in {prediction.get(h.record_id, '?')}",
                    }
                    for h in hits
                    if h.record_id not in shown
                ][:20]
            }
        )

    @app.post("/s/{name}/review/save")
    async def save(request: Request, name: str) -> Any:
        form = await request.form()
        item = str(form.get("item", ""))
        remove, add, tags = (
            form_list(form, "remove"),
            form_list(form, "add"),
            form_list(form, "tag"),
        )
        note = str(form.get("note", ""))[:2000]
        version = form_version(form)
        who = reviewer_of(request)
        with state.lock:
            session = cluster_session(name)
            back = url_for("review", name, item=item, remove=remove, add=add, tag=tags)
            try:
                predicted = (
                    session.predicted_cluster(item) if state.store.has_item(name, item) else []
                )
                session.save(
                    item,
                    reviewer=who,
                    remove=remove,
                    add=add,
                    tags=tags,
                    note=note,
                    shown={"predicted": predicted, "page": "review"},
                    expected_version=version,
                )
            except StaleAnswer as stale:
                current = stale.current or {}
                same = (
                    sorted(current.get("remove", ())) == sorted(set(remove))
                    and sorted(current.get("add", ())) == sorted(set(add))
                    and sorted(current.get("tags", ())) == sorted(set(tags))
                    and current.get("note", "") == note
                )
                if not same:
                    return render(
                        request,
                        "changed.html",
                        status=409,
                        session=name,
                        item=item,
                        current=None if stale.current is None else describe_label(stale.current),
                        current_note=(stale.current or {}).get("note", ""),
                        given=describe_label(
                            {
                                "remove": remove,
                                "add": add,
                                "tags": tags,
                                "true_cluster": sorted((set(predicted) - set(remove)) | set(add)),
                            }
                        ),
                        given_note=note,
                        keep_url=url_for("review", name),
                        action=url_for("save", name),
                        fields_list=[
                            ("item", item),
                            ("version", str(stale.found)),
                            ("note", note),
                            *(("remove", r) for r in remove),
                            *(("add", r) for r in add),
                            *(("tag", t) for t in tags),
                        ],
                    )
            except InputError as exc:
                return redirect(request, back, flash=f"not saved: {exc}", error=True)
            true = (set(predicted) - set(remove)) | set(add)
            res = session.resolution()
            disputed = item in res.queue
            following = session.next(reviewer=who)  # straight to the next record
        to = url_for("review", name, item=None if following is None else following.record_id)
        if disputed:
            return redirect(
                request,
                to,
                flash=f"saved {item}; the reviewers' answers differ, so it goes to adjudication",
                link=url_for("adjudicate", name, item=item),
                link_text="see the dispute",
                ack=item,
            )
        return redirect(
            request, to, flash=f"saved {item}: a true cluster of {len(true)} record(s)", ack=item
        )
