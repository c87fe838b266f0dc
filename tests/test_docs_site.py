"""The documentation site (``mkdocs.yml``: the guides of docs/, the API reference,
docs/architecture.md) builds with ``mkdocs build --strict``: no broken link or anchor,
no docstring the API reference cannot read."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]


def _nav_pages(items: object) -> list[str]:
    pages: list[str] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            pages.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                pages.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return pages


def _config() -> dict[str, object]:
    # mkdocs.yml holds no custom tags: a plain YAML read is enough
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert isinstance(config, dict)
    return config


def test_every_guide_is_in_the_navigation() -> None:
    pages = _nav_pages(_config()["nav"])
    guides = {p.name for p in (REPO / "docs").glob("*.md")}
    assert guides <= set(pages), sorted(guides - set(pages))
    for page in pages:
        if not page.startswith("api/"):
            assert (REPO / "docs" / page).is_file(), page


def test_the_api_reference_documents_importable_public_modules() -> None:
    modules = [
        p[len("api/") : -len(".md")] for p in _nav_pages(_config()["nav"]) if p.startswith("api/")
    ]
    assert {
        "ereval",
        "ereval.metrics",
        "ereval.estimators",
        "ereval.curves",
        "ereval.engines",
    } <= set(modules)
    for name in modules:
        assert not any(part.startswith("_") for part in name.split(".")), name
        assert importlib.import_module(name).__all__, name


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    assert "WARNING" not in output and "ERROR" not in output, output[-4000:]
    assert (site / "architecture" / "index.html").is_file()
    # the API reference is rendered from the docstrings, not left empty
    html = (site / "api" / "ereval.metrics" / "index.html").read_text(encoding="utf-8")
    assert 'id="ereval.metrics.evaluate"' in html
    html = (site / "api" / "ereval" / "index.html").read_text(encoding="utf-8")
    assert 'id="ereval.evaluate"' in html and 'id="ereval.InputError"' in html
