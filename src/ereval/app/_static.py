"""The app's own static files, served by name from a fixed list (no path from the URL
ever reaches the file system)."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["STATIC_FILES", "static_file"]

#: name -> media type of every file the app serves.
STATIC_FILES: dict[str, str] = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}


@cache
def static_file(name: str) -> tuple[bytes, str] | None:
    """The content and media type of a static file, or ``None`` if ``name`` is not one.

    Examples
    --------
    >>> static_file("app.css")[1]
    'text/css; charset=utf-8'
    >>> static_file("../_security.py") is None
    True
    """
    media = STATIC_FILES.get(name)
    if media is None:
        return None
    data = resources.files("ereval.app").joinpath("static", name).read_bytes()
    return data, media
