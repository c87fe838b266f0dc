"""Every command that runs on an engine, at N records, on NumPy and on DuckDB under a
memory limit: CPU seconds, wall seconds and peak resident memory of the whole
process, and whether the two give the same output.

The input is a truth and a prediction of one of the shapes of ``bench_shapes.py``
(written there with ``--data-dir``, or here), each a folder of Parquet parts.
The commands: ``metrics``, ``errors --by cluster``, ``errors --by record`` (written
to a file; and on stdout as JSON and as the human table), ``summary`` of the prediction, ``compare`` of the truth and the
prediction as two releases, ``monitor`` of the two. Outputs are compared as the
numbers they print (floats to 1e-12) or the files they write (byte for byte).

    python benchmarks/bench_shapes.py -n 10000000 --shapes hostile --cases bare \\
        --data-dir /tmp/shapes          # writes the files once
    python benchmarks/bench_commands.py --data /tmp/shapes/hostile-10000000-0
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _process import measure

COMMANDS = (
    "metrics",
    "errors-cluster",
    "errors-record",
    "errors-json",
    "errors-table",
    "summary",
    "compare",
    "monitor",
)
#: Commands whose output on stdout is compared byte for byte (kept in a file).
PRINTED = ("errors-json", "errors-table")


def _argv(command: str, truth: Path, pred: Path, out: Path, policy: list[str]) -> list[str]:
    if command == "metrics":
        return ["metrics", str(truth), str(pred), "-f", "json", *policy]
    if command == "errors-cluster":
        return ["errors", str(truth), str(pred), "--by", "cluster", "-o", str(out), *policy]
    if command == "errors-record":
        return ["errors", str(truth), str(pred), "--by", "record", "-o", str(out), *policy]
    if command in PRINTED:  # the record table on stdout
        fmt = "json" if command == "errors-json" else "table"
        return ["errors", str(truth), str(pred), "--by", "record", "-f", fmt, *policy]
    if command == "summary":
        return ["summary", str(pred), "-f", "json"]
    if command == "compare":
        return ["compare", str(truth), str(pred), "-f", "json"]
    return ["monitor", str(truth), str(pred), "-f", "json"]


def _numbers(text: str) -> list[Any]:
    """The numbers and strings of a JSON output, in order (floats compared loosely)."""
    out: list[Any] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k in sorted(x):
                out.append(k)
                walk(x[k])
        elif isinstance(x, list):
            for v in x:
                walk(v)
        else:
            out.append(x)

    walk(json.loads(text))
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return bool(a == b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a folder with truth/ and pred/")
    parser.add_argument("--commands", default=",".join(COMMANDS), help="comma-separated")
    parser.add_argument("--memory-limit", default="1GB", help="DuckDB's limit")
    parser.add_argument("--temp-dir", type=Path, default=None, help="DuckDB's spill folder")
    parser.add_argument(
        "--on-mismatch",
        default=None,
        help="passed to metrics and errors (twinless for two files of different records)",
    )
    args = parser.parse_args()
    policy = [] if args.on_mismatch is None else ["--on-mismatch", args.on_mismatch]
    commands = [c.strip() for c in args.commands.split(",")]
    unknown = [c for c in commands if c not in COMMANDS]
    if unknown:
        parser.error(f"--commands: expected some of {', '.join(COMMANDS)}; received {unknown}")
    truth, pred = args.data / "truth", args.data / "pred"
    if not truth.is_dir() or not pred.is_dir():
        parser.error(f"--data: expected a folder holding truth/ and pred/; received {args.data}")
    duckdb = ["--engine", "duckdb", "--memory-limit", args.memory_limit]
    if args.temp_dir is not None:
        duckdb += ["--temp-dir", str(args.temp_dir)]
    print(f"{args.data.name}; DuckDB under {args.memory_limit}; whole processes")
    print(f"  {'command':<16}{'engine':<10}{'CPU s':>9}{'wall s':>9}{'peak MB':>9}  same")
    with tempfile.TemporaryDirectory() as tmp:
        for command in commands:
            outputs = []
            for engine, extra in (("numpy", ["--engine", "numpy"]), ("duckdb", duckdb)):
                out = Path(tmp) / f"{command}-{engine}.csv"
                got = measure(
                    [
                        sys.executable,
                        "-m",
                        "ereval",
                        *_argv(command, truth, pred, out, policy),
                        *extra,
                    ],
                    stdout=out if command in PRINTED else None,
                )
                outputs.append(out.read_bytes() if out.exists() else got["out"])
                same = ""
                if engine == "duckdb":
                    a, b = outputs
                    if isinstance(a, bytes):
                        same = "yes" if a == b else "NO"
                    else:
                        na, nb = _numbers(a), _numbers(b)
                        ok = len(na) == len(nb) and all(map(_same, na, nb))
                        same = "yes" if ok else "NO"
                    for o in Path(tmp).glob(f"{command}-*.csv"):
                        o.unlink()
                print(
                    f"  {command:<16}{engine:<10}{got['cpu']:9.1f}{got['wall']:9.1f}"
                    f"{got['rss_mb']:9.0f}  {same}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
