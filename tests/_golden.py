"""Frozen outputs of every command: the cases, their input data and the comparison.

Each case is one ``ereval`` command line run in-process on the bundled example or on
seeded synthetic data. What it prints (JSON) and every file it writes are kept under
``tests/data/golden/<case>.json.gz``; ``test_golden.py`` runs the case again and compares,
integers and strings exactly, floats to 1e-12 (relative or absolute: threads may reorder
a sum). ``EREVAL_GOLDEN_UPDATE=1 python -m pytest tests/test_golden.py`` writes the files
anew, for a change that is meant to change a number.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
TOLERANCE = 1e-12
UPDATE = os.environ.get("EREVAL_GOLDEN_UPDATE") == "1"


@dataclass(frozen=True)
class Case:
    """One command line; ``{ex}``, ``{syn}`` and ``{out}`` are the example folder, the
    synthetic data folder and an empty folder for outputs. ``outputs`` are the files
    (under ``{out}``) whose content is frozen besides what the command prints."""

    name: str
    argv: tuple[str, ...]
    outputs: tuple[str, ...] = ()
    stdout: bool = True
    exit_code: int = 0
    needs: tuple[str, ...] = field(default=())


def _c(name: str, *argv: str, **kw: Any) -> Case:
    return Case(name, argv, **kw)


EX_T, EX_G, EX_P = "{ex}/truth.csv", "{ex}/pred_good.csv", "{ex}/pred_poor.csv"
RELEASES = tuple(f"{{ex}}/releases/2024-{m}-01.csv" for m in ("01", "04", "07", "10"))
SAMPLE = ("--sample", "{ex}/sample.csv", "--design", "record")

CASES: tuple[Case, ...] = (
    # metrics
    _c("metrics_example_good", "metrics", EX_T, EX_G, "-f", "json"),
    _c("metrics_example_poor_beta", "metrics", EX_T, EX_P, "-f", "json", "--beta", "2"),
    _c("metrics_example_duckdb", "metrics", EX_T, EX_P, "-f", "json", "--engine", "duckdb"),
    _c("metrics_int_parquet", "metrics", "{syn}/truth.parquet", "{syn}/pred.parquet", "-f", "json"),
    _c(
        "metrics_int_parquet_duckdb",
        "metrics",
        "{syn}/truth.parquet",
        "{syn}/pred.parquet",
        "-f",
        "json",
        "--engine",
        "duckdb",
        "--threads",
        "2",
    ),
    _c("metrics_text_csv", "metrics", "{syn}/truth_text.csv", "{syn}/pred_text.csv", "-f", "json"),
    _c(
        "metrics_twinless",
        "metrics",
        "{syn}/truth.csv",
        "{syn}/pred_short.csv",
        "-f",
        "json",
        "--on-mismatch",
        "twinless",
    ),
    _c(
        "metrics_intersection_duckdb",
        "metrics",
        "{syn}/truth.csv",
        "{syn}/pred_short.csv",
        "-f",
        "json",
        "--on-mismatch",
        "intersection",
        "--engine",
        "duckdb",
    ),
    _c(
        "metrics_composite_key",
        "metrics",
        "{syn}/truth_keys.csv",
        "{syn}/pred_keys.csv",
        "-f",
        "json",
        "--record-col",
        "source,unique_id",
    ),
    _c(
        "metrics_pairs",
        "metrics",
        EX_T,
        "{syn}/ex_links.csv",
        "--pairs",
        "-f",
        "json",
    ),
    _c("metrics_csv_selection", "metrics", EX_T, EX_P, "-f", "csv", "-m", "pairwise,b3,ceafe"),
    # errors
    _c("errors_clusters", "errors", EX_T, EX_G, "-o", "{out}/errors.csv", outputs=("errors.csv",)),
    _c("errors_records_json", "errors", EX_T, EX_P, "--by", "record", "-f", "json"),
    _c(
        "errors_clusters_duckdb",
        "errors",
        EX_T,
        EX_P,
        "--engine",
        "duckdb",
        "-o",
        "{out}/errors.parquet",
        outputs=("errors.parquet",),
    ),
    _c(
        "errors_sample",
        "analyze",
        "--pred",
        EX_G,
        *SAMPLE,
        "--features",
        "{ex}/records.csv",
        "--feature-cols",
        "source,sex",
        "-f",
        "json",
    ),
    _c(
        "errors_sample_tree",
        "analyze",
        "--pred",
        EX_P,
        *SAMPLE,
        "--features",
        "{ex}/records.csv",
        "--feature-cols",
        "source,sex",
        "--tree",
        "-f",
        "json",
    ),
    # summary
    _c("summary_pred", "summary", EX_G, "-f", "json"),
    _c(
        "summary_names",
        "summary",
        EX_P,
        "--names-from",
        "{ex}/records.csv",
        "--names",
        "source,year",
        "-f",
        "json",
    ),
    _c("summary_duckdb", "summary", "{syn}/pred.parquet", "-f", "json", "--engine", "duckdb"),
    # compare and monitor
    _c("compare_releases", "compare", RELEASES[2], RELEASES[3], "-f", "json"),
    _c(
        "compare_out",
        "compare",
        RELEASES[0],
        RELEASES[1],
        "-o",
        "{out}/changes.csv",
        outputs=("changes.csv",),
    ),
    _c("monitor_releases", "monitor", *RELEASES, "-f", "json"),
    _c("monitor_sample", "monitor", *RELEASES, *SAMPLE, "-f", "json"),
    # curves
    _c("curve_head", "curve", EX_T, "{syn}/pairs_head.csv", "--score-col", "score", "-f", "json"),
    _c(
        "curve_grid_pairwise",
        "curve",
        EX_T,
        "{ex}/pairs.csv",
        "--score-col",
        "score",
        "--grid",
        "25",
        "-m",
        "pairwise,b3",
        "-f",
        "json",
    ),
    # estimates and simulation
    _c("estimate_record", "estimate", "--pred", EX_G, *SAMPLE, "-f", "json"),
    _c("estimate_poor_beta", "estimate", "--pred", EX_P, *SAMPLE, "--beta", "2", "-f", "json"),
    _c(
        "estimate_duckdb",
        "estimate",
        "--pred",
        EX_G,
        *SAMPLE,
        "-f",
        "json",
        "--engine",
        "duckdb",
    ),
    _c(
        "simulate_record",
        "simulate",
        "--truth",
        EX_T,
        "--pred",
        EX_G,
        "-n",
        "100",
        "-r",
        "12",
        "--design",
        "record",
        "--seed",
        "3",
        "-f",
        "json",
    ),
    _c(
        "simulate_cluster",
        "simulate",
        "--truth",
        EX_T,
        "--pred",
        EX_P,
        "-n",
        "60",
        "-r",
        "10",
        "--design",
        "cluster",
        "--weights",
        "cluster-size",
        "--seed",
        "4",
        "-f",
        "json",
    ),
    # OASIS and PAULA
    _c(
        "oasis_estimate",
        "oasis",
        "estimate",
        "{ex}/pairs.csv",
        "--label-col",
        "label",
        "--budget",
        "300",
        "--seed",
        "1",
        "-f",
        "json",
    ),
    _c(
        "oasis_experiment",
        "oasis",
        "experiment",
        "{ex}/pairs.csv",
        "--budgets",
        "100,200",
        "--repeats",
        "3",
        "--seed",
        "2",
        "-f",
        "json",
    ),
    _c(
        "paula_plan",
        "paula",
        "plan",
        "--ranked",
        "{ex}/pairs.csv",
        "--id-col",
        "pair_id",
        "--epsilon",
        "0.1",
        "--delta",
        "10",
        "-o",
        "{out}/plan.csv",
        outputs=("plan.csv",),
        stdout=False,
    ),
    _c(
        "paula_bounds",
        "paula",
        "bounds",
        "{ex}/pairs.csv",
        "{ex}/paula_labels.csv",
        "--epsilon",
        "0.1",
        "--delta",
        "10",
        "-f",
        "json",
    ),
    _c("paula_annotations", "paula", "annotations", "--n", "217077", "-f", "json"),
    # the report's numbers
    _c(
        "report_example",
        "report",
        "--example",
        "--seed",
        "1",
        "-f",
        "json",
        "-o",
        "{out}/report.json",
        outputs=("report.json",),
        stdout=False,
    ),
)


def write_synthetic(folder: Path, example: Path) -> None:
    """The seeded synthetic inputs: 3,000 records in skewed clusters, a prediction with
    splits and merges, in CSV and Parquet, with integer, text and two-column keys."""
    rng = np.random.default_rng(20261126)
    n = 3000
    sizes = np.minimum(rng.zipf(1.8, size=n), 40)
    truth = np.repeat(np.arange(len(sizes)), sizes)[:n]
    pred = truth.copy()
    split = rng.random(n) < 0.08
    pred[split] = truth.max() + 1 + rng.integers(0, 200, split.sum())
    merge = rng.random(n) < 0.05
    pred[merge] = rng.integers(0, 300, merge.sum())
    ids = rng.permutation(n) * 7 + 11
    t = pd.DataFrame({"record_id": ids, "cluster_id": truth})
    p = pd.DataFrame({"record_id": ids, "cluster_id": pred}).sample(frac=1.0, random_state=5)
    t.to_parquet(folder / "truth.parquet", index=False)
    p.to_parquet(folder / "pred.parquet", index=False)
    t.to_csv(folder / "truth.csv", index=False)
    p.iloc[: n - 150].to_csv(folder / "pred_short.csv", index=False)
    text = [f"rec-{i:0{2 + i % 9}d}" for i in ids]
    pd.DataFrame({"record_id": text, "cluster_id": truth}).to_csv(
        folder / "truth_text.csv", index=False
    )
    pd.DataFrame({"record_id": text, "cluster_id": [f"c{c}" for c in pred]}).to_csv(
        folder / "pred_text.csv", index=False
    )
    source = np.where(np.arange(n) % 3 == 0, "left", "right")
    keyed = pd.DataFrame({"source": source})
    keyed["unique_id"] = keyed.groupby("source").cumcount()
    keyed.assign(cluster_id=truth).to_csv(folder / "truth_keys.csv", index=False)
    keyed.assign(cluster_id=pred).sample(frac=1.0, random_state=6).to_csv(
        folder / "pred_keys.csv", index=False
    )
    pairs = pd.read_csv(example / "pairs.csv", dtype=str)
    links = pairs[pairs["prediction"] == "1"][["record_id_1", "record_id_2"]]
    links.to_csv(folder / "ex_links.csv", index=False)
    pairs.iloc[:2500].to_csv(folder / "pairs_head.csv", index=False)


def _frame_records(frame: pd.DataFrame) -> dict[str, Any]:
    return {
        "columns": [str(c) for c in frame.columns],
        "rows": [[_plain(v) for v in row] for row in frame.itertuples(index=False)],
    }


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value if isinstance(value, bool | int | float | str) or value is None else str(value)


def read_output(path: Path) -> Any:
    """A file a command wrote, as plain JSON-like values."""
    name = path.name
    if name.endswith(".json"):
        return json.loads(path.read_text(encoding="utf-8"))
    if name.endswith(".parquet"):
        return _frame_records(pd.read_parquet(path))
    return _frame_records(pd.read_csv(path, dtype=str, keep_default_na=False))


def scrub(value: Any, replace: Callable[[str], str]) -> Any:
    """``value`` with every string passed through ``replace`` (folders of a run)."""
    if isinstance(value, dict):
        return {replace(str(k)): scrub(v, replace) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, replace) for v in value]
    if isinstance(value, str):
        return replace(value)
    return value


#: Keys whose value changes from run to run (the time a report was made).
VOLATILE = frozenset({"created"})


def drop_volatile(value: Any) -> Any:
    """``value`` without the keys of :data:`VOLATILE`, at any depth."""
    if isinstance(value, dict):
        return {k: drop_volatile(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [drop_volatile(v) for v in value]
    return value


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.json.gz"


def write_golden(name: str, value: Any) -> None:
    """Write a frozen output (gzip without a time stamp, so that rewriting the same
    value gives the same bytes)."""
    text = json.dumps(value, indent=1, sort_keys=True) + "\n"
    with open(golden_path(name), "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(text.encode("utf-8"))


def read_golden(name: str) -> Any:
    return json.loads(gzip.decompress(golden_path(name).read_bytes()).decode("utf-8"))


def differences(got: Any, want: Any, where: str = "$") -> list[str]:
    """Where ``got`` differs from ``want`` (floats to :data:`TOLERANCE`)."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = (
            [f"{where}: keys {sorted(set(got) ^ set(want))} differ"]
            if set(got) != set(want)
            else []
        )
        for key in want:
            if key in got:
                out += differences(got[key], want[key], f"{where}.{key}")
        return out
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{where}: {len(got)} items, expected {len(want)}"]
        out = []
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            out += differences(g, w, f"{where}[{i}]")
        return out
    if isinstance(want, float) or isinstance(got, float):
        if isinstance(want, bool) or isinstance(got, bool):
            return [] if got == want else [f"{where}: {got!r} != {want!r}"]
        if not isinstance(got, int | float) or not isinstance(want, int | float):
            return [f"{where}: {got!r} != {want!r}"]
        g, w = float(got), float(want)
        if math.isnan(g) and math.isnan(w):
            return []
        if g == w or abs(g - w) <= TOLERANCE * max(1.0, abs(w)):
            return []
        return [f"{where}: {got!r} != {want!r}"]
    return [] if got == want else [f"{where}: {got!r} != {want!r}"]
