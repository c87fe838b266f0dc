"""One formatter and one linter for the whole tree: ruff, configured in ``pyproject.toml``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PATHS = ["src", "tests", "benchmarks", "examples"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    "args", [("format", "--check", "--diff"), ("check", "--no-fix")], ids=["format", "check"]
)
def test_ruff(args: tuple[str, ...]) -> None:
    result = _ruff(*args, "--no-cache")
    if result.returncode != 0:
        command = " ".join(["ruff", *args, *PATHS])
        pytest.fail(f"{command} failed:\n{result.stdout}{result.stderr}", pytrace=False)
