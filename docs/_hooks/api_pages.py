"""MkDocs hook: the API reference page of every public module listed in ``mkdocs.yml``.

Only public modules (no part of the dotted name starting with ``_``) have a page; the
private modules behind them are documented through the names their package exports.

Each nav entry ``api/<module>.md`` becomes a page holding ``::: <module>`` (rendered by
mkdocstrings), so documenting one more module is one line of the nav. The docstrings'
Sphinx roles (``:func:`x```, ``:class:`~a.B```), which the notebook and ``help()`` show
as they are, are rendered as plain code on these pages.
"""

from __future__ import annotations

import re
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

PREFIX = "api/"
_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):(?=<code>)")
_TILDE = re.compile(r"<code>~(?:[\w]+\.)*([\w]+)</code>")


def _nav_paths(items: Any) -> list[str]:
    paths: list[str] = []
    for item in items or []:
        if isinstance(item, str):
            paths.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                paths.extend(_nav_paths(value) if isinstance(value, list) else [value])
    return paths


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path in _nav_paths(config.nav):
        if not (path.startswith(PREFIX) and path.endswith(".md")):
            continue
        if files.get_file_from_path(path) is not None:
            continue
        module = path[len(PREFIX) : -len(".md")]
        if any(part.startswith("_") for part in module.split(".")):
            raise ValueError(f"{path}: the API reference documents public modules only")
        content = f"# `{module}`\n\n::: {module}\n    options:\n      show_root_heading: false\n"
        files.append(File.generated(config, path, content=content))
    return files


def on_page_content(html: str, page: Any, **_: Any) -> str:
    if not page.file.src_uri.startswith(PREFIX):
        return html
    return _TILDE.sub(r"<code>\1</code>", _ROLE.sub("", html))
