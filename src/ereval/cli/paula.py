"""``ereval paula``: plan annotations of a ranked list and bound its precision (PAULA)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
import typer
from rich.console import Console

from .._errors import InputError
from ._common import OutputFormat, dumps_json, emit_mapping, emit_records, handle_errors

paula_app = typer.Typer(
    help="PAULA: bounds on the precision of a ranked list from O(log N) annotations, "
    "guaranteed under its monotonicity assumptions (Sabharwal & Sedghi 2017).",
    no_args_is_help=True,
)

PlotKind = Literal["precision", "precision-yield", "pr"]

_stderr = Console(stderr=True, highlight=False, soft_wrap=True)

EpsilonOpt = Annotated[
    float, typer.Option("--epsilon", help="Geometric spacing epsilon in (0, 1], e.g. 0.03.")
]
DeltaOpt = Annotated[
    int, typer.Option("--delta", help="Monotonicity window Delta >= 1, e.g. 100 (the paper's).")
]
RTildeOpt = Annotated[
    int | None,
    typer.Option(
        "--r-tilde",
        help="Rank from which monotonicity is assumed; at least and by default "
        "ceil((Delta + 2) / epsilon).",
    ),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")]
IdColOpt = Annotated[str, typer.Option("--id-col", help="Item id column of RANKED.")]
ScoreColOpt = Annotated[
    str | None,
    typer.Option(
        "--score-col",
        help="Score column of RANKED: items are ranked by decreasing score (ties keep file "
        "order). Without it the file order is the ranking.",
    ),
]

_RANKED_HELP = (
    "The ranked list: CSV (.csv, .csv.gz, .tsv) or Parquet, one row per item, best first "
    "(or ranked by --score-col). Only its length is needed when LABELS has a rank column "
    "and no --score-col is given."
)


# --------------------------------------------------------------------------- input helpers
def _count_rows(path: Path) -> int:
    """Rows of a CSV/Parquet file without loading it (streams CSV files)."""
    if not path.exists():
        raise InputError(f"'ranked': file not found: '{path}'")
    name = path.name.lower()
    try:
        if name.endswith((".parquet", ".pq")):
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(path).metadata.num_rows)
        if name.endswith((".csv", ".csv.gz", ".txt", ".txt.gz", ".tsv", ".tsv.gz")):
            import pyarrow.csv as pacsv

            tab = ".tsv" in name
            reader = pacsv.open_csv(
                path, parse_options=pacsv.ParseOptions(delimiter="\t" if tab else ",")
            )
            return sum(batch.num_rows for batch in reader)
    except (OSError, ValueError) as exc:
        raise InputError(f"'ranked': cannot read '{path}' ({exc})") from exc
    from ..io import read_table

    return len(read_table(path, name="ranked"))


def _ranked_ids(path: Path, *, id_col: str, score_col: str | None) -> npt.NDArray[Any]:
    """Item ids in rank order (rank 1 first)."""
    from ..io import read_table

    frame = read_table(path, name="ranked", text_columns=(id_col,))
    for col in (id_col, score_col):
        if col is not None and col not in frame.columns:
            raise InputError(
                f"'ranked': no column '{col}' in '{path}'; found {list(map(str, frame.columns))}"
            )
    ids = frame[id_col]
    if ids.isna().any():
        raise InputError(f"'ranked': column '{id_col}' has {int(ids.isna().sum())} missing id(s)")
    values: npt.NDArray[Any] = np.asarray(ids.to_numpy())
    if score_col is not None:
        from .._validation import check_finite_array

        try:
            raw = frame[score_col].to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            raise InputError(
                f"'ranked': column '{score_col}' must hold numeric scores; received dtype "
                f"{frame[score_col].dtype}"
            ) from None
        scores = check_finite_array(score_col, raw)
        values = values[np.argsort(-scores, kind="stable")]
    return values


def _ranked_length(path: Path, *, id_col: str, score_col: str | None) -> int:
    if score_col is None:
        return _count_rows(path)
    return int(_ranked_ids(path, id_col=id_col, score_col=score_col).size)


def _labels_by_rank(
    labels: Path,
    ranked: Path,
    *,
    rank_col: str,
    label_col: str,
    id_col: str,
    score_col: str | None,
) -> tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int8]]:
    """The list length and the (rank, label) pairs of LABELS, mapping ids to ranks if needed."""
    from ..io import read_table
    from ..paula import load_labels

    frame = read_table(labels, name="labels", text_columns=(id_col,))
    if label_col not in frame.columns:
        raise InputError(
            f"'labels': '{labels}' needs a '{label_col}' column; found {list(map(str, frame.columns))}"
        )
    if rank_col in frame.columns and score_col is None:
        ranks, values = load_labels(frame, rank_column=rank_col, label_column=label_col)
        return _count_rows(ranked), ranks, values
    if id_col not in frame.columns:
        why = (
            f"a '{id_col}' column (with --score-col the ranks come from RANKED)"
            if rank_col in frame.columns
            else f"a '{rank_col}' or an '{id_col}' column"
        )
        raise InputError(f"'labels': '{labels}' needs {why}; found {list(map(str, frame.columns))}")
    order = _ranked_ids(ranked, id_col=id_col, score_col=score_col)
    index = pd.Index(order)
    if not index.is_unique:
        dup = index[index.duplicated()].unique()
        raise InputError(
            f"'ranked': item ids in '{id_col}' must be unique to match labels by id; "
            f"{len(dup)} repeat (e.g. {dup[0]!r})"
        )
    lab_ids = frame[id_col]
    pos = index.get_indexer(lab_ids.to_numpy())
    if (pos < 0).any():
        unknown = lab_ids.to_numpy()[pos < 0]
        raise InputError(
            f"'labels': {unknown.size} item id(s) are not in RANKED (e.g. {unknown[0]!r})"
        )
    with_ranks = pd.DataFrame({"rank": pos.astype(np.int64) + 1, "label": frame[label_col]})
    ranks, values = load_labels(with_ranks)
    return int(order.size), ranks, values


def _n_positives(text: str | None) -> Any:
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise InputError(
            f"'--n-positives' must be a number or 'low,high'; received {text!r}"
        ) from None
    if len(numbers) == 1:
        return numbers[0]
    if len(numbers) == 2:
        return (numbers[0], numbers[1])
    raise InputError(f"'--n-positives' must be a number or 'low,high'; received {text!r}")


def _write_table(frame: pd.DataFrame, path: Path) -> None:
    if not path.parent.exists():
        raise InputError(f"output directory '{path.parent}' does not exist")
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        frame.to_parquet(path, index=False)
    elif name.endswith((".csv", ".csv.gz")):
        frame.to_csv(path, index=False)
    else:
        raise InputError(f"output file '{path}' must end in .csv, .csv.gz or .parquet")


# --------------------------------------------------------------------------- commands
@paula_app.command("plan")
@handle_errors
def plan_command(
    epsilon: EpsilonOpt,
    delta: DeltaOpt,
    n: Annotated[
        int | None,
        typer.Option("--n", help="Number of items N in the ranked list (or give --ranked)."),
    ] = None,
    r_tilde: RTildeOpt = None,
    fmt: FormatOpt = "table",
    ranked: Annotated[
        Path | None,
        typer.Option("--ranked", help="The ranked list (CSV/Parquet), to name the items to label."),
    ] = None,
    id_col: IdColOpt = "item_id",
    score_col: ScoreColOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write the items to label to this CSV/Parquet file: a 'rank' column, and "
            "the item id column when --ranked is given.",
        ),
    ] = None,
) -> None:
    """Choose which ranks of a list of N items to annotate.

    The plan labels every rank up to g_ell and the Delta ranks before each later
    geometric point g_k = ceil((1+epsilon)^k): g_ell + Delta (L - ell) items. JSON
    output has the constants of the paper's §4.2, `annotations` and `ranges` (inclusive
    first-last rank ranges to label); CSV output lists the ranges.
    """
    from ..paula import paula_plan

    ids = None
    if ranked is not None:
        ids = _ranked_ids(ranked, id_col=id_col, score_col=score_col)
        if n is not None and n != ids.size:
            raise InputError(
                f"'--n' ({n}) differs from the number of items in '{ranked}' ({ids.size})"
            )
        n = int(ids.size)
    if n is None:
        raise InputError("give the list length with '--n N' or the list itself with '--ranked'")
    plan = paula_plan(n, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    if out is not None:
        ranks = plan.ranks()
        cols: dict[str, Any] = {"rank": ranks}
        if ids is not None:
            cols[id_col] = ids[ranks - 1]
        _write_table(pd.DataFrame(cols), out)
    ranges: list[Mapping[str, Any]] = [
        {"first": a, "last": b, "count": b - a + 1} for a, b in plan.rank_ranges()
    ]
    if fmt == "json":
        payload = plan.to_dict()
        if out is not None:
            payload["out"] = str(out)
        sys.stdout.write(dumps_json(payload) + "\n")
    elif fmt == "csv":
        emit_records(ranges, ["first", "last", "count"], "csv")
    else:
        emit_mapping(
            plan.to_dict(include_ranges=False), "table", title="PAULA plan", key_header="quantity"
        )
        emit_records(ranges, ["first", "last", "count"], "table", title="ranks to annotate")


@paula_app.command("bounds")
@handle_errors
def bounds_command(
    ranked: Annotated[Path, typer.Argument(help=_RANKED_HELP)],
    labels: Annotated[
        Path,
        typer.Argument(
            help="The labels of the planned items: CSV or Parquet with columns rank,label "
            "(rank 1 = best) or item_id,label; labels are 0/1 (or true/false). Exactly the "
            "planned ranks must be labelled."
        ),
    ],
    epsilon: EpsilonOpt,
    delta: DeltaOpt,
    r_tilde: RTildeOpt = None,
    fmt: FormatOpt = "table",
    out_table: Annotated[
        Path | None,
        typer.Option(
            "--out-table",
            help="Write the bounds at the geometric points (and every --at) to this CSV or "
            "Parquet file.",
        ),
    ] = None,
    out_plot: Annotated[
        Path | None,
        typer.Option(
            "--out-plot",
            help="Write a plot of the bounds (PNG, PDF or SVG; needs the extra ereval\\[plot]).",
        ),
    ] = None,
    plot_kind: Annotated[
        PlotKind,
        typer.Option("--plot-kind", help="precision (against rank), precision-yield, or pr."),
    ] = "precision",
    at: Annotated[
        list[int] | None,
        typer.Option("--at", help="Also report the bounds on precision at this k (repeatable)."),
    ] = None,
    n_positives: Annotated[
        str | None,
        typer.Option(
            "--n-positives",
            help="Number of positive items, known ('5000') or estimated ('4800,5200'): adds "
            "recall bounds (PR curve).",
        ),
    ] = None,
    id_col: IdColOpt = "item_id",
    score_col: ScoreColOpt = None,
    rank_col: Annotated[str, typer.Option("--rank-col", help="Rank column of LABELS.")] = "rank",
    label_col: Annotated[
        str, typer.Option("--label-col", help="Label column of LABELS.")
    ] = "label",
    tolerance: Annotated[
        float,
        typer.Option(
            "--tolerance",
            help="Ignore rises of (local) precision up to this size in the monotonicity check "
            "(default 0: report every rise).",
        ),
    ] = 0.0,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Fail (exit 2) when the labels contradict the monotonicity assumptions, "
            "instead of warning.",
        ),
    ] = False,
) -> None:
    """Bound the precision function of RANKED from the labels of a PAULA plan.

    Prints the plan, the bounds on precision at N (and every --at k) and the
    monotonicity check; writes the bounds table (--out-table) and a plot (--out-plot).
    Use the same --epsilon, --delta and --r-tilde as for `ereval paula plan`.
    """
    from .._validation import check_choice
    from ..paula import paula_bounds, paula_plan, plot_bounds

    kind: PlotKind = check_choice("plot_kind", plot_kind, ("precision", "precision-yield", "pr"))
    npos = _n_positives(n_positives)
    n, ranks, values = _labels_by_rank(
        labels, ranked, rank_col=rank_col, label_col=label_col, id_col=id_col, score_col=score_col
    )
    plan = paula_plan(n, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    bounds = paula_bounds(
        plan,
        ranks,
        values,
        on_violation="raise" if strict else "ignore",
        tolerance=tolerance,
    )
    report = bounds.diagnostic
    if not report.holds:
        _stderr.print(f"warning: {report.summary()}", markup=False)
    ks = sorted({*(at or []), plan.n})
    rows = bounds.table(np.asarray(ks, dtype=np.int64), n_positives=npos)
    rows = rows.rename(columns={"rank": "k"})
    if out_table is not None:
        extra = np.asarray(ks, dtype=np.int64)
        table_ranks = np.union1d(bounds.table_ranks(), extra)
        _write_table(bounds.table(table_ranks, n_positives=npos), out_table)
    if out_plot is not None:
        from .._optional import require

        if not out_plot.parent.exists():
            raise InputError(f"output directory '{out_plot.parent}' does not exist")
        plt = require("matplotlib.pyplot", feature="plotting PAULA bounds")
        ax = plot_bounds(bounds, kind=kind, n_positives=npos)
        try:
            ax.figure.savefig(out_plot, dpi=150, bbox_inches="tight")
        except ValueError as exc:
            raise InputError(f"cannot write the plot '{out_plot}': {exc}") from exc
        finally:
            plt.close(ax.figure)
    records = rows.to_dict(orient="records")
    columns = list(rows.columns)
    if fmt == "json":
        payload = {
            "plan": plan.to_dict(include_ranges=False),
            "precision_at": records,
            "monotonicity": report.to_dict(),
            "table": None if out_table is None else str(out_table),
            "plot": None if out_plot is None else str(out_plot),
        }
        sys.stdout.write(dumps_json(payload) + "\n")
    elif fmt == "csv":
        emit_records(records, columns, "csv")
    else:
        summary = plan.to_dict(include_ranges=False)
        summary["monotonicity"] = "consistent" if report.holds else "VIOLATED"
        summary["unreliable_from"] = report.unreliable_from
        summary["ratio_condition"] = report.ratio_condition
        emit_mapping(summary, "table", title="PAULA bounds", key_header="quantity")
        emit_records(records, columns, "table", title="precision at k")


@paula_app.command("annotations")
@handle_errors
def annotations_command(
    n: Annotated[int, typer.Option("--n", help="Number of items N in the ranked list.")],
    delta: DeltaOpt = 100,
    epsilon: Annotated[
        list[float] | None,
        typer.Option("--epsilon", help="Spacing epsilon (repeatable; default 0.01..0.1)."),
    ] = None,
    p_min: Annotated[
        float, typer.Option("--p-min", help="Lower bound on precision for the sampling methods.")
    ] = 0.5,
    failure_probability: Annotated[
        float,
        typer.Option("--failure-probability", help="delta of the sampling methods (0.05 = 95%)."),
    ] = 0.05,
    fmt: FormatOpt = "table",
) -> None:
    """Annotations needed by PAULA, stratified and random sampling (the paper's Figure 1).

    For each epsilon all three methods guarantee the factor gamma(1+epsilon): PAULA
    deterministically, the sampling methods with probability 1 - failure probability.
    """
    from ..paula import annotation_counts

    eps_list = epsilon or [0.01, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1]
    rows: list[Mapping[str, Any]] = []
    for eps in eps_list:
        c = annotation_counts(
            n, epsilon=eps, delta=delta, p_min=p_min, failure_probability=failure_probability
        )
        rows.append(
            {
                "epsilon": c.epsilon,
                "approximation": c.approximation,
                "paula": c.paula,
                "stratified": c.stratified,
                "random_sampling": c.random_sampling,
            }
        )
    cols = ["epsilon", "approximation", "paula", "stratified", "random_sampling"]
    emit_records(rows, cols, fmt, title=f"annotations for N={n:,}")


def register(app: typer.Typer) -> None:
    """Add the ``paula`` command group to the application."""
    app.add_typer(paula_app, name="paula")
