"""The FastAPI application: page rendering, the overview, start/leave, undo/redo, static files.

Looking at a page (a GET) never changes the store. A reviewer is handed an item
only by an action: *start* (``POST /s/{name}/start``), or answering the item
before it, or undo/redo; they give it back by leaving (the page sends
``POST /s/{name}/release`` when it is closed or left for another part of the app)
or after 30 minutes. Every page says who holds what.
"""

from typing import TYPE_CHECKING, Any

from .._errors import InputError
from .._optional import require
from ._blocked import held_text
from ._security import Guard, SecurityConfig
from ._state import AppState, Flash, check_reviewer_name, url_for
from ._static import static_file

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["REVIEWER_COOKIE", "create_app", "redirect", "render", "reviewer_of"]

REVIEWER_COOKIE = "ereval_reviewer"

#: The notice of a page reloaded after its action was refused for an old token.
RESTARTED = (
    "The server was restarted since this page was opened, so your last action was not "
    "carried out. The page is reloaded with a fresh token and what you typed is kept: "
    "do it again."
)

#: The page of each kind of session.
PAGE_OF = {"cluster": "review", "pairs": "pairs", "items": "items"}


def _templates() -> Any:
    jinja2 = require("jinja2", feature="the labelling app", extra="app")
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ereval.app", "templates"),
        autoescape=True,  # every value, record content included, is HTML-escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["url"] = url_for
    env.globals["fields"] = jinja2.pass_context(_form_fields)
    return env


def _form_fields(context: Any) -> Any:
    """The hidden fields of every form: its CSRF token, and the page to come back to when
    the server refuses that token (a restarted server reloads the page with a fresh one)."""
    from markupsafe import Markup, escape

    return Markup(
        f'<input type="hidden" name="csrf" value="{escape(context["csrf"])}">'
        f'<input type="hidden" name="back" value="{escape(context["here"])}">'
    )


def reviewer_of(request: Any) -> str:
    """The reviewer of a request: the name this browser chose, else the server's."""
    state: AppState = request.app.state.ereval
    chosen = request.cookies.get(REVIEWER_COOKIE)
    if chosen:
        try:
            return check_reviewer_name(chosen)
        except InputError:
            pass
    return state.reviewer


def here(request: Any) -> str:
    """The address of the page being rendered (path and query, without a notice it
    shows once), where a form comes back to."""
    from urllib.parse import urlencode

    query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "notice"])
    return str(request.url.path) + (f"?{query}" if query else "")


def render(
    request: Any,
    template: str,
    *,
    status: int = 200,
    flash: str | None = None,
    flash_error: bool = False,
    **context: Any,
) -> Any:
    """Render a page with what every page shows (reviewer, store, CSRF token, flash)."""
    from fastapi.responses import HTMLResponse

    state: AppState = request.app.state.ereval
    pending = state.flashes.pop(request.state.session, None)
    message = Flash(flash, flash_error) if flash is not None else pending
    if message is None and request.query_params.get("notice") == "restarted":
        message = Flash(RESTARTED, True)
    context.setdefault("session", None)
    context.setdefault("leave", None)
    html = request.app.state.templates.get_template(template).render(
        csrf=request.state.csrf,
        reviewer=reviewer_of(request),
        store_name=state.store_name,
        message=message,
        # where a form of this page comes back to: the page itself, or for a page drawn
        # in answer to a form (the "changed" page), the page to go on from
        here=here(request) if request.method == "GET" else context.get("keep_url", "/"),
        ack=pending.ack if pending is not None and pending.ack else "",
        **context,
    )
    return HTMLResponse(html, status_code=status)


def redirect(
    request: Any,
    to: str,
    *,
    flash: str | None = None,
    error: bool = False,
    link: str | None = None,
    link_text: str | None = None,
    ack: str | None = None,
) -> Any:
    """A 303 redirect after a POST, with an optional message for the next page."""
    from fastapi.responses import RedirectResponse

    if flash is not None or ack is not None:
        request.app.state.ereval.flashes[request.state.session] = Flash(
            flash or "", error, link, link_text, ack
        )
    return RedirectResponse(to, status_code=303)


def session_rows(state: AppState, reviewer: str) -> list[dict[str, Any]]:
    """One row per session for the overview: kind, counts, progress, who holds what, its link."""
    rows = []
    for number, info in enumerate(state.store.sessions(), start=1):
        progress = state.progress(info.name)
        mine = state.store.labels(info.name, reviewer=reviewer)
        total = progress.get("records") or progress.get("budget") or progress.get("planned")
        done = progress.get("labels_used", progress.get("resolved", 0))
        noun = {"cluster": "record", "pairs": "pair", "items": "item"}[info.kind]
        rows.append(
            {
                "number": number,
                "name": info.name,
                "kind": {
                    "cluster": "cluster review",
                    "pairs": "pair labelling",
                    "items": "ranked items",
                }[info.kind],
                "progress": progress,
                "mine": len(mine),
                "total": total,
                "done": done,
                "held": held_text(state.store.held(info.name), noun),
                "percent": 0 if not total else min(100, round(100 * done / total)),
                "url": url_for("session", info.name),
            }
        )
    return rows


def claim_next(state: AppState, name: str, reviewer: str) -> tuple[Any, Any]:
    """Hand ``reviewer`` the next item of session ``name`` (an action): (session, task or None)."""
    session = state.open_session(name)
    return session, session.next(reviewer=reviewer)


def create_app(
    store: Any,
    *,
    reviewer: str,
    security: SecurityConfig,
    lease: Any = None,
) -> Any:
    """The labelling app over an open label store, wrapped in its security guard.

    Parameters
    ----------
    store : ereval.labels.LabelStore
        The store (the app uses its connection under one lock).
    reviewer : str
        The reviewer a browser labels as until it chooses another name.
    security : SecurityConfig
        Access token and CSRF secret of this server.
    lease : ereval.labels.ServerLease, optional
        The server lease, renewed by the caller.

    Returns
    -------
    An ASGI application.
    """
    fastapi = require("fastapi", feature="the labelling app")
    require("python_multipart", feature="the labelling app (form parsing)")
    from fastapi import Form, Request
    from fastapi.responses import PlainTextResponse, Response

    from . import _adjudication, _items, _pairs, _review

    state = AppState(
        store=store, reviewer=check_reviewer_name(reviewer), security=security, lease=lease
    )
    app: FastAPI = fastapi.FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.state.ereval = state
    app.state.templates = _templates()

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> Response:
        return PlainTextResponse(f"error: {exc}\n", status_code=400)

    @app.get("/")
    def home(request: Request) -> Any:
        with state.lock:
            rows = session_rows(state, reviewer_of(request))
        return render(request, "home.html", sessions=rows)

    @app.post("/reviewer")
    def choose_reviewer(request: Request, name: str = Form(...)) -> Any:
        chosen = check_reviewer_name(name)
        response = redirect(request, url_for("home"), flash=f"you label as {chosen}")
        response.set_cookie(REVIEWER_COOKIE, chosen, httponly=True, samesite="strict")
        return response

    @app.get("/s/{name}")
    def open_session(request: Request, name: str) -> Any:
        with state.lock:
            kind = state.store.session(name).kind
        return redirect(request, url_for(PAGE_OF[kind], name))

    @app.post("/s/{name}/start")
    def start(request: Request, name: str) -> Any:
        who = reviewer_of(request)
        with state.lock:
            kind = state.store.session(name).kind
            _, task = claim_next(state, name, who)
        if kind == "cluster" and task is not None:
            return redirect(request, url_for("review", name, item=task.record_id))
        return redirect(request, url_for(PAGE_OF[kind], name))

    @app.post("/s/{name}/release")
    async def release(request: Request, name: str) -> Any:
        form = await request.form()
        item = str(form.get("item", "")) or None
        who = reviewer_of(request)
        with state.lock:
            state.store.session(name)
            given = state.store.release_claims(name, reviewer=who, item=item)
        if form.get("beacon"):
            return Response(status_code=204)
        text = f"you gave back {given} item(s) of {name}" if given else None
        return redirect(request, url_for("home"), flash=text)

    @app.post("/s/{name}/undo")
    def undo(request: Request, name: str) -> Any:
        return _step(request, name, "undo")

    @app.post("/s/{name}/redo")
    def redo(request: Request, name: str) -> Any:
        return _step(request, name, "redo")

    def _step(request: Request, name: str, action: str) -> Any:
        who = reviewer_of(request)
        with state.lock:
            kind = state.store.session(name).kind
            event = getattr(state.store, action)(name, reviewer=who)
            if event is not None and kind != "cluster":
                claim_next(state, name, who)  # the undone item comes back to the reviewer
        if event is None:
            return redirect(
                request, url_for("session", name), flash=f"nothing to {action}", error=True
            )
        done = "undone" if action == "undo" else "redone"
        to = url_for("session", name)
        if kind == "cluster" and event.item is not None:
            to = url_for("review", name, item=event.item)
        return redirect(request, to, flash=f"{done}: your label of {event.item}")

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        found = static_file(name)
        if found is None:
            return PlainTextResponse("not found\n", status_code=404)
        data, media = found
        return Response(data, media_type=media)

    _review.add_routes(app, state)
    _pairs.add_routes(app, state)
    _items.add_routes(app, state)
    _adjudication.add_routes(app, state)
    return Guard(app, security)


def form_list(form: Any, key: str) -> list[str]:
    """Every value of a repeated form or query field, without empties."""
    return [str(v) for v in form.getlist(key) if str(v).strip()]


def form_version(form: Any) -> int | None:
    """The item version a form was rendered with (``None`` when it carries none)."""
    text = str(form.get("version", "")).strip()
    if not text:
        return None
    if not text.isdigit():
        raise InputError(f"'version' must be a whole number; received {text!r}")
    return int(text)
