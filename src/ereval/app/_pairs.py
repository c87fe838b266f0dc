"""Pair labelling pages, driven by OASIS.

One pair at a time with three answers -- match (``m``), non-match (``n``),
unsure (``u``) -- the progress as counts and as the live estimate with its
interval and, while too few labels pin it down, the warning the command line
prints. A pair is shown only to the reviewer it is handed to (by *start*, or by
answering the pair before); an answer names the pair and the version of it the
page showed, so a held key or a second tab never answers a pair nobody looked
at. Blind sessions show the model's score and prediction only after the
decision, and only when configured to reveal them.
"""

import math
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from ..labels import StaleAnswer
from ._blocked import STOP_REASONS, export_command, held_text, plural
from ._state import AppState, url_for
from ._web import claim_next, form_version, redirect, render, reviewer_of

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["ANSWERS", "add_routes", "answers", "estimate_rows", "estimate_warnings", "pair_rows"]

#: The answers of a pair or item, with their key and button text.
ANSWERS: tuple[tuple[str, str, str], ...] = (
    ("match", "m", "match"),
    ("non-match", "n", "non-match"),
    ("unsure", "u", "unsure"),
)


def answers() -> list[dict[str, str]]:
    """The answer buttons: value, key, text."""
    return [{"value": v, "key": k, "text": t} for v, k, t in ANSWERS]


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


def estimate_warnings(estimate: dict[str, Any] | None) -> list[str]:
    """The warnings the estimates carry, each once: those ``ereval oasis estimate`` prints.

    Examples
    --------
    >>> estimate_warnings({"f_measure": {"warnings": ["too few"]}, "recall": {"warnings": []}})
    ['too few']
    """
    found: dict[str, None] = {}
    for key in ("f_measure", "precision", "recall"):
        for message in (estimate or {}).get(key, {}).get("warnings", ()):
            found.setdefault(str(message), None)
    return list(found)


def pair_rows(
    left: dict[str, Any], right: dict[str, Any], differs: list[str]
) -> list[dict[str, Any]]:
    """The rows of two records side by side: column, both values, whether they differ."""
    keys = list(dict.fromkeys([*left, *right]))
    return [
        {"column": c, "left": left.get(c), "right": right.get(c), "differs": c in differs}
        for c in keys
    ]


def add_routes(app: "FastAPI", state: AppState) -> None:
    """The pair-labelling routes: the page and an answer."""
    from fastapi import Request

    def pair_session(name: str) -> Any:
        session = state.open_session(name)
        if getattr(session, "kind", None) != "pairs":
            raise InputError(f"session '{name}' is not a pairs session")
        return session

    def revealed(session: Any, name: str, who: str, last: str | None) -> dict[str, Any] | None:
        config = session.config
        if not last or (config.get("blind", True) and not config.get("reveal")):
            return None
        if not state.store.has_item(name, last):
            return None
        mine = state.store.labels(name, reviewer=who).get(last, {}).get(who)
        if mine is None:  # shown only after this reviewer's decision
            return None
        score, prediction = session.reveal(last, force=True)
        return {"item": last, "score": _fmt(score), "prediction": prediction, "label": mine}

    def blocked(session: Any, name: str, who: str, key: str | None) -> tuple[str | None, bool]:
        """Why ``who`` is shown no pair, and whether they may start."""
        stop = session.stop_reason
        if key is None:
            return f"Labelling stopped: {STOP_REASONS.get(stop, stop)}.", False
        holders = [w for w in state.store.held(name).get(key, []) if w != who]
        mine = state.store.labels(name, reviewer=who).get(key, {}).get(who)
        res = session.resolution()
        if key in res.queue:
            return (
                f"The pair the sampler asks next, {key}, waits for an adjudicator: its "
                "answers differ or one is unsure (see agreement and adjudication).",
                False,
            )
        if mine is not None:
            return f"The pair the sampler asks next, {key}, waits for a second reviewer.", False
        need = session.reviewers_needed(key)
        given = len(res.by_reviewer.get(key, {}))
        if holders and given + len(holders) >= need:
            return (
                f"The pair the sampler asks next, {key}, is held by {', '.join(holders)}. It "
                "comes back when they leave the page, or after 30 minutes.",
                False,
            )
        return None, True

    @app.get("/s/{name}/pairs")
    def pairs(request: Request, name: str, last: str | None = None) -> Any:
        who = reviewer_of(request)
        with state.lock:
            session = pair_session(name)
            key = session.advance()  # what the sampler asks next; nothing is written
            task = version = None
            reason, can_start = None, False
            if key is not None and key in state.store.claimed(name, reviewer=who):
                task = session.task(key)
                version = state.store.item_version(name, key, reviewer=who)
            else:
                reason, can_start = blocked(session, name, who, key)
            progress = session.progress()
            reveal = revealed(session, name, who, last)
            held = held_text(state.store.held(name), "pair", besides=who)
        rows = [] if task is None else pair_rows(task.left, task.right, task.differs)
        estimate = progress.get("estimate")
        context: dict[str, Any] = {
            "session": name,
            "task": task,
            "version": version,
            "rows": rows,
            "answers": answers(),
            "progress": progress,
            "estimate": estimate_rows(estimate),
            "warnings": estimate_warnings(estimate),
            "reveal": reveal,
            "label_url": url_for("pair_label", name),
            "undo_url": url_for("undo", name),
            "redo_url": url_for("redo", name),
        }
        if task is not None:
            return render(request, "pairs.html", leave=url_for("release", name), **context)
        done = progress.get("done", False)
        export = export_command(state.store.path, name, "pairs")
        follow = None
        if done or progress.get("labels_used"):
            out = export.rsplit(" ", 1)[1]
            follow = f"ereval oasis estimate {session.config['pairs']} --labels {out}"
        return render(
            request,
            "start.html",
            kind="pair labelling",
            noun="pair",
            progress_line=f"{plural(progress['labels_used'], 'label')} used"
            + (f" of {progress['budget']}" if progress.get("budget") else "")
            + f" · {progress['implied']} implied by transitivity"
            + f" · {progress['pending']} waiting for a second reviewer"
            + f" · {progress['queue']} to adjudicate",
            can_start=can_start,
            reason=reason,
            held=held,
            queue=progress.get("queue", 0),
            done=done,
            export=export,
            follow=follow,
            start_url=url_for("start", name),
            **{k: v for k, v in context.items() if k not in ("task", "version", "rows")},
        )

    @app.post("/s/{name}/pairs/label")
    async def pair_label(request: Request, name: str) -> Any:
        form = await request.form()
        item, value = str(form.get("item", "")), str(form.get("value", ""))
        version = form_version(form)
        who = reviewer_of(request)
        with state.lock:
            session = pair_session(name)
            if not state.store.has_item(name, item):
                raise InputError(f"'item' {item!r} is not a pair of session '{name}'")
            try:
                session.label(
                    item, value, reviewer=who, shown={"page": "pairs"}, expected_version=version
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
                        keep_url=url_for("pairs", name),
                        action=url_for("pair_label", name),
                        fields_list=[
                            ("item", item),
                            ("version", str(stale.found)),
                            ("value", value),
                        ],
                    )
            disputed = item in session.resolution().queue
            claim_next(state, name, who)  # the next pair, handed to this reviewer
        if disputed:
            return redirect(
                request,
                url_for("pairs", name, last=item),
                flash=f"{item}: {value} — it goes to adjudication (answers differ or unsure)",
                link=url_for("adjudicate", name, item=item),
                link_text="see the dispute",
            )
        return redirect(request, url_for("pairs", name, last=item), flash=f"{item}: {value}")
