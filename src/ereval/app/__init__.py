"""The local web app for labelling: cluster review, pair and ranked-item labelling.

FastAPI with server-rendered pages (Jinja2) and one small script for the
keyboard shortcuts and the search box; nothing is loaded from outside. Started
with ``ereval label serve --db labels.db`` (:func:`serve`); :func:`create_app`
builds the ASGI application over an open :class:`ereval.labels.LabelStore`.
See ``docs/app.md``.
"""

from __future__ import annotations

from ._security import SecurityConfig
from ._server import serve
from ._web import create_app

__all__ = ["SecurityConfig", "create_app", "serve"]
