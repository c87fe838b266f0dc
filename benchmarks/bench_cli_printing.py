"""Time ``ereval curve`` spends printing, against computing and against ``-f csv``.

Synthetic scored pairs (seeded, the generator of ``bench_curves.py``): N records in
Zipf-sized true clusters, M scored pairs, in three shapes that give curves of very
different lengths: scores rounded to 2 decimals (a few thousand thresholds), to 4
decimals (tens of thousands, like a linker's rounded match weights), and every score
distinct (one threshold per pair).

For each shape, in one run:

* ``compute``: :func:`ereval.curves.threshold_curve` in this process (no printing);
* ``csv``: ``ereval curve T P -f csv`` in a fresh process, stdout to a pipe (the baseline);
* ``-o``: ``ereval curve T P -o curve.csv`` (the table format: the summary is printed);
* ``tty``: ``ereval curve T P`` with stdout on a pseudo-terminal of 50 x 200 (the
  human table, head and tail of the curve).

Commands run in fresh processes (their times include starting Python and importing
ereval); the ratios are against ``csv`` measured in the same run.

    python benchmarks/bench_cli_printing.py                  # N = 1e5, M = 3e5
    python benchmarks/bench_cli_printing.py --pairs 3e6 --records 1e6
"""

from __future__ import annotations

import argparse
import os
import pty
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_curves import make_data
from ereval.curves import threshold_curve

SHAPES = {"2 decimals": 2, "4 decimals": 4, "all distinct": -1}


def _ereval(*args: str) -> list[str]:
    return [sys.executable, "-m", "ereval", *args]


def timed(cmd: list[str]) -> tuple[float, str]:
    """Wall seconds of ``cmd`` with stdout to a pipe, and what it printed."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return wall, proc.stdout


def timed_on_terminal(cmd: list[str], lines: int = 50, columns: int = 200) -> tuple[float, str]:
    """Wall seconds of ``cmd`` with stdout on a pseudo-terminal, and what it printed."""
    master, slave = pty.openpty()
    env = {**os.environ, "LINES": str(lines), "COLUMNS": str(columns), "TERM": "xterm"}
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 1 << 16)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=slave, stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - start
    os.close(slave)
    reader.join(timeout=10)
    os.close(master)
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed on a terminal (exit {proc.returncode})")
    return wall, b"".join(chunks).decode("utf-8", "replace")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=float, default=1e5)
    parser.add_argument("--pairs", type=float, default=3e5)
    args = parser.parse_args()
    n, m = int(args.records), int(args.pairs)
    print(f"ereval curve: N = {n:,} records, M = {m:,} scored pairs; wall seconds")
    header = (
        f"{'shape':<13}{'rows':>9}{'compute':>9}{'csv':>8}{'-o':>8}{'tty':>8}"
        f"{'-o/csv':>8}{'tty/csv':>8}{'lines':>7}"
    )
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for shape, decimals in SHAPES.items():
            truth, pairs = make_data(n, m, decimals, seed=1)
            t, p, out = folder / "truth.csv", folder / "pairs.csv", folder / "curve.csv"
            truth.to_csv(t, index=False)
            pairs.to_csv(p, index=False)
            start = time.perf_counter()
            curve = threshold_curve(t, p, score_col="score")
            compute = time.perf_counter() - start
            base = ["curve", str(t), str(p), "-q"]
            csv_s, csv_out = timed(_ereval(*base, "-f", "csv"))
            out_s, _ = timed(_ereval(*base, "-o", str(out)))
            tty_s, tty_out = timed_on_terminal(_ereval(*base))
            rows = len(curve.frame)
            if len(csv_out.splitlines()) != rows + 1:
                sys.exit(f"{shape}: -f csv printed {len(csv_out.splitlines())} lines for {rows}")
            if sum(1 for _ in out.open()) != rows + 1:
                sys.exit(f"{shape}: -o wrote a file without every row")
            print(
                f"{shape:<13}{rows:>9,}{compute:>9.2f}{csv_s:>8.2f}{out_s:>8.2f}{tty_s:>8.2f}"
                f"{out_s / csv_s:>8.2f}{tty_s / csv_s:>8.2f}{len(tty_out.splitlines()):>7}"
            )
    print(
        "compute: threshold_curve in this process; csv, -o, tty: 'ereval curve' in a fresh "
        "process (Python start and imports included); lines: lines printed on the terminal"
    )


if __name__ == "__main__":
    main()
