"""Every command's output on the example and on seeded synthetic data, frozen.

The frozen files (``tests/data/golden``) were written by these same cases; a change
that moves a number fails here and names where. See ``tests/_golden.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ereval import example
from ereval.cli import app

from ._golden import (
    CASES,
    GOLDEN,
    UPDATE,
    Case,
    differences,
    drop_volatile,
    golden_path,
    read_golden,
    read_output,
    scrub,
    write_golden,
    write_synthetic,
)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    ex = tmp_path_factory.mktemp("example")
    example.write(ex)
    syn = tmp_path_factory.mktemp("synthetic")
    write_synthetic(syn, ex)
    return ex, syn


def _run(case: Case, ex: Path, syn: Path, out: Path) -> dict[str, Any]:
    places = {"{ex}": str(ex), "{syn}": str(syn), "{out}": str(out)}
    argv = [arg.format_map({k[1:-1]: v for k, v in places.items()}) for arg in case.argv]
    result = CliRunner().invoke(app, [*argv, "--quiet"] if _quiet(argv) else argv)
    got: dict[str, Any] = {"exit_code": result.exit_code}
    if result.exit_code != case.exit_code:
        pytest.fail(f"{case.name}: exit code {result.exit_code}\n{result.output}", pytrace=False)
    if case.stdout:
        got["stdout"] = json.loads(result.stdout) if "json" in argv else result.stdout
    got["files"] = {name: read_output(out / name) for name in case.outputs}

    def replace(text: str) -> str:
        for mark, path in places.items():
            text = text.replace(path, mark)
        return text

    return drop_volatile(scrub(got, replace))


def _quiet(argv: list[str]) -> bool:
    return argv[0] not in {"paula", "oasis"} or argv[1] in {"estimate", "experiment"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case: Case, folders: tuple[Path, Path], tmp_path: Path) -> None:
    ex, syn = folders
    got = _run(case, ex, syn, tmp_path)
    if UPDATE:
        write_golden(case.name, got)
        return
    if not golden_path(case.name).exists():
        pytest.fail(f"no frozen output for {case.name}; write it with EREVAL_GOLDEN_UPDATE=1")
    want = read_golden(case.name)
    wrong = differences(got, want)
    assert not wrong, f"{case.name}: {len(wrong)} differences, e.g.\n" + "\n".join(wrong[:10])


def test_every_frozen_file_has_a_case() -> None:
    names = {c.name for c in CASES}
    stale = sorted(
        p.name for p in GOLDEN.glob("*.json.gz") if p.name[: -len(".json.gz")] not in names
    )
    assert not stale, f"frozen outputs without a case: {stale}"


def test_differences_sees_a_change() -> None:
    assert differences({"a": [1, 0.5]}, {"a": [1, 0.5 + 1e-9]})
    assert not differences({"a": [1, 0.5]}, {"a": [1, 0.5 + 1e-14]})
    assert differences({"a": 1}, {"a": 1, "b": 2})
    assert differences("x", "y")
    assert drop_volatile({"created": "now", "a": [{"created": 1, "b": 2}]}) == {"a": [{"b": 2}]}
