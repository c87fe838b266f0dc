"""The FastAPI application: page rendering, the overview, undo/redo, static files."""

from typing import TYPE_CHECKING, Any

from .._errors import InputError
from .._optional import require
from ._security import Guard, SecurityConfig
from ._state import AppState, check_reviewer_name, url_for
from ._static import static_file

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["REVIEWER_COOKIE", "create_app", "render", "reviewer_of"]

REVIEWER_COOKIE = "ereval_reviewer"


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
    return env


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
    if flash is None and pending is not None:
        flash, flash_error = pending
    html = request.app.state.templates.get_template(template).render(
        csrf=request.state.csrf,
        reviewer=reviewer_of(request),
        store_name=state.store_name,
        flash=flash,
        flash_error=flash_error,
        **context,
    )
    return HTMLResponse(html, status_code=status)


def redirect(request: Any, to: str, *, flash: str | None = None, error: bool = False) -> Any:
    """A 303 redirect after a POST, with an optional message for the next page."""
    from fastapi.responses import RedirectResponse

    if flash is not None:
        request.app.state.ereval.flashes[request.state.session] = (flash, error)
    return RedirectResponse(to, status_code=303)


def session_rows(state: AppState, reviewer: str) -> list[dict[str, Any]]:
    """One row per session for the overview: kind, counts, progress and its link."""
    rows = []
    for number, info in enumerate(state.store.sessions(), start=1):
        progress = state.progress(info.name)
        mine = state.store.labels(info.name, reviewer=reviewer)
        total = progress.get("records") or progress.get("budget") or progress.get("planned")
        done = progress.get("resolved", 0)
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
                "percent": 0 if not total else min(100, round(100 * done / total)),
                "url": url_for("session", info.name),
            }
        )
    return rows


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

    from . import _adjudication, _pairs, _review

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
        target = {"cluster": "review", "pairs": "pairs", "items": "items"}[kind]
        return redirect(request, url_for(target, name))

    @app.post("/s/{name}/undo")
    def undo(request: Request, name: str) -> Any:
        return _step(request, name, "undo")

    @app.post("/s/{name}/redo")
    def redo(request: Request, name: str) -> Any:
        return _step(request, name, "redo")

    def _step(request: Request, name: str, action: str) -> Any:
        who = reviewer_of(request)
        with state.lock:
            state.store.session(name)
            event = getattr(state.store, action)(name, reviewer=who)
        if event is None:
            return redirect(
                request, url_for("session", name), flash=f"nothing to {action}", error=True
            )
        done = "undone" if action == "undo" else "redone"
        to = url_for("session", name)
        kind = state.store.session(name).kind
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
    _adjudication.add_routes(app, state)
    return Guard(app, security)


def form_list(form: Any, key: str) -> list[str]:
    """Every value of a repeated form or query field, without empties."""
    return [str(v) for v in form.getlist(key) if str(v).strip()]
