"""Every code block of the docs runs.

The ```python blocks of each page of docs/ (and of README.md) run in order, in one
namespace per page, in a folder where ``ereval example demo`` has written the bundled
example (the setting the docs state); the ```bash blocks' ``ereval`` commands run when
every file they read is in that folder. A block that cannot run on its own is preceded by
``<!-- not run: REASON -->``; there are few, and each says why.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from ereval import example

REPO = Path(__file__).resolve().parents[1]
PAGES = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
NOT_RUN = re.compile(r"<!--\s*not run:\s*(\S[^>]*?)\s*-->\s*\n\s*$")
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
#: Options whose value is a file a command writes, not one it reads.
OUTPUT_FLAGS = {"-o", "--out", "--output", "--plot", "--state"}
DATA_SUFFIXES = (".csv", ".tsv", ".parquet", ".npz", ".db", ".gz")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    skip: str | None  # the reason of a not-run marker


def blocks(text: str, page: str) -> list[Block]:
    """The fenced blocks of a Markdown page, each with the reason of its marker, if any."""
    out = []
    for m in FENCE.finditer(text):
        marker = NOT_RUN.search(text[: m.start()])
        line = text.count("\n", 0, m.start()) + 1
        out.append(Block(page, line, m.group(1), m.group(2), marker.group(1) if marker else None))
    return out


def _page_blocks(lang: str) -> list[Block]:
    found = []
    for path in PAGES:
        name = path.relative_to(REPO).as_posix()
        found.extend(b for b in blocks(path.read_text(encoding="utf-8"), name) if b.lang == lang)
    return found


PYTHON = _page_blocks("python")
PYTHON_PAGES = sorted({b.page for b in PYTHON})


def test_block_parsing() -> None:
    text = (
        "Text\n\n```python\nx = 1\n```\n\n<!-- not run: needs a reviewer -->\n"
        "```python\ninput()\n```\n\n```bash\nereval a\n```\n"
    )
    found = blocks(text, "p.md")
    assert [(b.lang, b.line, b.skip) for b in found] == [
        ("python", 3, None),
        ("python", 8, "needs a reviewer"),
        ("bash", 12, None),
    ]
    assert found[0].body == "x = 1\n"


def test_missing_packages_are_found() -> None:
    code = "import numpy as np\nfrom ereval import example\n  import not_a_package_xyz.sub\n"
    assert _missing_packages(code) == ["not_a_package_xyz"]


def test_few_blocks_are_not_run() -> None:
    skipped = [b for b in PYTHON if b.skip]
    assert len(PYTHON) >= 30
    assert len(skipped) <= 6, [(b.page, b.line, b.skip) for b in skipped]


@pytest.fixture
def demo_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding ``demo/`` as ``ereval example demo`` writes it, made the cwd."""
    example.write(tmp_path / "demo")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return tmp_path


def _missing_packages(code: str) -> list[str]:
    """Top-level packages other than ereval that ``code`` imports and are not installed
    (a page about another library, e.g. Splink, which ereval does not depend on)."""
    names = re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", code, re.M)
    return sorted({n for n in names if n != "ereval" and importlib.util.find_spec(n) is None})


@pytest.mark.slow
@pytest.mark.parametrize("page", PYTHON_PAGES)
def test_python_blocks_run(page: str, demo_folder: Path) -> None:
    runs = [b for b in PYTHON if b.page == page and not b.skip]
    missing = _missing_packages("".join(b.body for b in runs))
    if missing:
        pytest.skip(f"{page} needs {', '.join(missing)}, which is not installed")
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in runs:
        code = compile(block.body, f"{page}:{block.line}", "exec")
        with warnings.catch_warnings():
            # a block may show a warning the library gives; it is printed, not an error
            warnings.simplefilter("default")
            try:
                exec(code, namespace)
            except Exception as exc:
                pytest.fail(f"{page}, block at line {block.line}: {type(exc).__name__}: {exc}")


def _reads_only_example_files(argv: list[str], folder: Path) -> bool:
    """Whether every file ``argv`` reads exists in ``folder`` (outputs excepted)."""
    previous = ""
    for arg in argv[1:]:
        if previous not in OUTPUT_FLAGS and (arg.endswith(DATA_SUFFIXES) or arg.endswith("/")):
            if not (folder / arg).exists():
                return False
        previous = arg
    return True


def _commands(body: str) -> list[list[str]]:
    """The commands of a bash block (``cd DIR`` kept as a step), comments dropped."""
    out = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            out.append(shlex.split(line))
    return out


BASH = [b for b in _page_blocks("bash") if b.page.startswith("docs/") and not b.skip]


@pytest.mark.slow
def test_ereval_commands_on_the_example_run(demo_folder: Path) -> None:
    """The docs' ``ereval`` commands that read only the example run as printed."""
    from typer.testing import CliRunner

    from ereval.cli import app

    ran = []
    for block in BASH:
        cwd = demo_folder
        for argv in _commands(block.body):
            if argv[:1] == ["cd"] and len(argv) == 2:
                cwd = demo_folder / argv[1]
                continue
            if argv[:1] != ["ereval"] or not _reads_only_example_files(argv, cwd):
                continue
            os.chdir(cwd)
            try:
                result = CliRunner().invoke(app, argv[1:])
            finally:
                os.chdir(demo_folder)
            shown = f"{block.page}:{block.line}: {shlex.join(argv)}"
            assert result.exit_code == 0, f"{shown}\n{result.output[-2000:]}"
            ran.append(shown)
    assert len(ran) >= 8, ran
