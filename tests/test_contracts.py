"""The import contracts of pyproject.toml (``[tool.importlinter]``) are kept.

Each contract is checked by the ``lint-imports`` command of import-linter on the
package as imported here. ``layers`` is the layering of
docs/architecture.md, with no exception: an import (function-level and
``TYPE_CHECKING`` ones included) only goes down.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
CONTRACTS = {
    contract["id"]: contract
    for contract in tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
}


@pytest.fixture(scope="module")
def lint() -> subprocess.CompletedProcess[str]:
    """One run of ``lint-imports`` over every contract (the import graph is built once)."""
    script = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    # without the script beside this interpreter, its entry point (the module has no
    # ``__main__``: ``-m importlinter.cli`` would print nothing)
    entry = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    command = [script] if script else [sys.executable, "-c", entry]
    return subprocess.run(
        [*command, str(PYPROJECT), "--no-cache", "--no-logo"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=PYPROJECT.parent,
    )


def test_the_contracts_are_the_layers_and_the_example() -> None:
    assert set(CONTRACTS) == {"layers", "example"}
    assert "ignore_imports" not in CONTRACTS["layers"]


@pytest.mark.parametrize("contract", sorted(CONTRACTS))
def test_contract_is_kept(contract: str, lint: subprocess.CompletedProcess[str]) -> None:
    name = CONTRACTS[contract]["name"]
    verdicts = [
        line[len(name) :].strip()
        for line in lint.stdout.splitlines()
        if line.startswith(f"{name} ") and line[len(name) :].split()[0] in ("KEPT", "BROKEN")
    ]
    assert verdicts, lint.stdout[-2000:] + lint.stderr[-2000:]
    assert verdicts[0].startswith("KEPT"), lint.stdout[-6000:]
