"""Two report pages (their JSON) compared as the engines' contract says: every
count and text exactly, every float to 1e-12 relative."""

from __future__ import annotations

import math
from typing import Any

import pytest


def assert_same(got: Any, want: Any, where: str = "") -> None:
    """Equal page numbers: every count and text exactly, every float to 1e-12
    relative (engines sum in other orders)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where
        for key in want:
            assert_same(got[key], want[key], f"{where}/{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for k, (x, y) in enumerate(zip(got, want, strict=True)):
            assert_same(x, y, f"{where}[{k}]")
    elif isinstance(want, float) and not isinstance(got, bool):
        assert isinstance(got, int | float), where
        if math.isnan(want):
            assert math.isnan(got), where
        else:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), where
    else:
        assert got == want, where
