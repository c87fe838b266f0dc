"""The reference data shipped with the tests under ``tests/data`` (see each folder's README)."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"


def data_file(*parts: str) -> Path:
    """The path of a shipped data file; raises (so the test fails, never skips) when missing."""
    path = DATA_DIR.joinpath(*parts)
    if not path.is_file():
        raise FileNotFoundError(
            f"test data file {path} is missing: it is part of the repository (tests/data)"
        )
    return path
