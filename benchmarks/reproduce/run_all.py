"""Run every reproduction script in turn (``--quick`` and the other options pass through).

python benchmarks/reproduce/run_all.py [--quick] [--seed N] [--figures DIR]
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SCRIPTS = (
    "fig9_uniform_sampling",
    "fig11_patentsview",
    "binette2022_table3_example1",
    "oasis_table2_fig2",
    "paula_fig1",
)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    for name in SCRIPTS:
        start = time.perf_counter()
        importlib.import_module(name).main(args)
        print(f"({name}: {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
