"""``ereval paula``: plan annotations of a ranked list and bound its precision (PAULA)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd
import typer

from .._errors import InputError
from ._common import (
    App,
    FormatOpt,
    QuietOpt,
    dumps_json,
    emit_mapping,
    emit_records,
    examples,
    handle_errors,
    note_written,
    warn,
)
from ._output import Outputs, check_figure_path, check_table_path, write_figure, write_table
from ._progress import progress

paula_app = App(
    help="PAULA: bounds on the precision of a ranked list from O(log N) annotations, "
    "guaranteed under its monotonicity assumptions (Sabharwal & Sedghi 2017).",
)

PlotKind = Literal["precision", "precision-yield", "pr"]
MeasureChoice = Literal["recall", "f1", "gain", "average-precision"]

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
_FLAGS = {"id_option": "--id-col", "score_option": "--score-col"}


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


# --------------------------------------------------------------------------- plan check
def _runs(ranks: npt.NDArray[np.int64]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive ranks, as (first, last), of sorted unique ``ranks``."""
    breaks = np.flatnonzero(np.diff(ranks) != 1)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [ranks.size - 1]))
    return [(int(ranks[a]), int(ranks[b])) for a, b in zip(starts, ends, strict=True)]


def _plan_options(epsilon: float, delta: int, r_tilde: int | None) -> str:
    text = f"--epsilon {epsilon:g} --delta {delta}"
    return text if r_tilde is None else f"{text} --r-tilde {r_tilde}"


def _infer_plan(n: int, ranks: npt.NDArray[np.int64]) -> str | None:
    """The options of a plan of ``n`` items whose ranks are exactly ``ranks``, if one is found.

    The plan's windows give Delta (their length) and epsilon (the growth of their
    ends, about 1 + epsilon per window); candidates rounded to 1-4 significant
    digits are checked by building their plan.
    """
    from ..paula import paula_plan

    runs = _runs(ranks)
    if runs[0][0] != 1 or len(runs) < 2:
        return None
    windows = runs[1:]
    lengths = {b - a + 1 for a, b in windows}
    if len(lengths) != 1:
        return None
    delta = lengths.pop()
    ends = [b for _, b in windows]
    points = [runs[0][1], *ends] if len(ends) < 2 else ends
    growth = (points[-1] / points[0]) ** (1.0 / (len(points) - 1)) - 1.0
    if not 0.0 < growth <= 1.0:
        return None
    candidates: list[float] = []
    for digits in range(1, 5):
        step = 10.0 ** (np.floor(np.log10(growth)) - digits + 1)
        base = round(growth / step) * step
        candidates += [float(f"{base + k * step:.{digits + 2}g}") for k in (0, -1, 1)]
    tried: set[float] = set()
    for eps in candidates:
        if eps in tried or not 0.0 < eps <= 1.0:
            continue
        tried.add(eps)
        for r_tilde in (None, runs[0][1], runs[0][1] - 1):
            try:
                plan = paula_plan(n, epsilon=eps, delta=delta, r_tilde=r_tilde)
            except InputError:
                continue
            found = plan.ranks()
            if found.size == ranks.size and np.array_equal(found, ranks):
                return _plan_options(eps, delta, r_tilde)
    return None


def _check_plan_ranks(
    plan: Any, ranks: npt.NDArray[np.int64], *, epsilon: float, delta: int, r_tilde: int | None
) -> None:
    """Check that the labelled ranks are the plan's, and name the plan they belong to if not.

    Duplicate ranks and ranks outside 1..N are left to :func:`paula_bounds`.
    """
    r = np.unique(ranks)
    if r.size == 0 or r.size != ranks.size or r[0] < 1 or r[-1] > plan.n:
        return
    expected = plan.ranks()
    if r.size == expected.size and np.array_equal(r, expected):
        return
    given = _plan_options(epsilon, delta, r_tilde)
    guess = _infer_plan(plan.n, r)
    if guess is not None:
        raise InputError(
            f"the labels' ranks are those of the plan for {guess}, not of the plan for "
            f"{given} (N={plan.n:,}); give the options the plan was made with"
        )
    from .._validation import examples as show

    extra = np.setdiff1d(r, expected, assume_unique=True)
    missing = np.setdiff1d(expected, r, assume_unique=True)
    parts = []
    if extra.size:
        parts.append(f"{extra.size} labelled rank(s) that are not in the plan (e.g. {show(extra)})")
    if missing.size:
        parts.append(f"{missing.size} planned rank(s) have no label (e.g. {show(missing)})")
    raise InputError(
        f"these ranks are not those of the plan for {given} (N={plan.n:,}, "
        f"{expected.size:,} ranks): {' and '.join(parts)}; label exactly the ranks of "
        f"`ereval paula plan --n {plan.n} {given}`"
    )


# --------------------------------------------------------------------------- commands
@paula_app.command(
    "plan",
    epilog=examples(
        "ereval paula plan --n 217077 --epsilon 0.03 --delta 100",
        "ereval paula plan --ranked kb.csv --epsilon 0.03 --delta 100 -o todo.csv",
    ),
)
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
            "-o",
            help="Write the items to label to this file (.csv, .csv.gz, .parquet or .json): "
            "a 'rank' column, and the item id column when --ranked is given.",
        ),
    ] = None,
    quiet: QuietOpt = False,
) -> None:
    """Choose which ranks of a list of N items to annotate.

    The plan labels every rank up to g_ell and the Delta ranks before each later
    geometric point g_k = ceil((1+epsilon)^k): g_ell + Delta (L - ell) items. JSON
    output has the constants of the paper's §4.2, `annotations` and `ranges` (inclusive
    first-last rank ranges to label); CSV output lists the ranges.
    """
    from ..io import read_ranked
    from ..paula import minimum_r_tilde, paula_plan

    minimum_r_tilde(epsilon=epsilon, delta=delta)  # checks both before reading anything
    if out is not None:
        check_table_path(out, flag="--out")
    ids = None
    length = n
    if ranked is not None:
        with progress(f"reading {ranked.name}", quiet=quiet):
            ids = read_ranked(ranked, id_col=id_col, score_col=score_col, **_FLAGS)
        if n is not None and n != ids.size:
            raise InputError(
                f"'--n' ({n}) differs from the number of items in '{ranked}' ({ids.size})"
            )
        length = int(ids.size)
    if length is None:
        raise InputError("give the list length with '--n N' or the list itself with '--ranked'")
    plan = paula_plan(length, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    if out is not None:
        ranks = plan.ranks()
        cols: dict[str, Any] = {"rank": ranks}
        if ids is not None:
            cols[id_col] = ids[ranks - 1]
        todo = pd.DataFrame(cols)
        with Outputs() as outputs:
            outputs.add(out, lambda tmp: write_table(todo, tmp))
        note_written(out, rows=len(todo), quiet=quiet)
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


@paula_app.command(
    "bounds",
    epilog=examples(
        "ereval paula bounds kb.csv labels.csv --epsilon 0.03 --delta 100",
        "ereval paula bounds kb.csv labels.csv --epsilon 0.03 --delta 100 \\",
        "    --at 50000 -o bounds.csv --plot bounds.png",
    ),
)
@handle_errors
def bounds_command(
    ranked: Annotated[Path, typer.Argument(metavar="RANKED", help=_RANKED_HELP)],
    labels: Annotated[
        Path,
        typer.Argument(
            metavar="LABELS",
            help="The labels of the planned items: CSV or Parquet with columns rank,label "
            "(rank 1 = best) or item_id,label; labels are 0/1 (or true/false). Exactly the "
            "planned ranks must be labelled.",
        ),
    ],
    epsilon: EpsilonOpt,
    delta: DeltaOpt,
    r_tilde: RTildeOpt = None,
    fmt: FormatOpt = "table",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the bounds at the geometric points (and every --at) to this file "
            "(.csv, .csv.gz, .parquet or .json).",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Write a plot of the bounds (.png, .pdf, .svg, ...; needs the extra "
            "ereval\\[plot]).",
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
    measure: Annotated[
        list[str] | None,
        typer.Option(
            "--measure",
            metavar="<recall|f1|gain|average-precision>",
            help="Also bound this measure at N and every --at k (repeatable): recall and f1 "
            "(need --n-positives), gain (discounted cumulative gain), average-precision (of "
            "the whole list; over --n-positives, else the list's positives).",
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
    quiet: QuietOpt = False,
) -> None:
    """Bound the precision function of RANKED from the labels of a PAULA plan.

    Prints the plan, the bounds on precision at N (and every --at k) and the
    monotonicity check; writes the bounds table (--out) and a plot (--plot).
    Use the same --epsilon, --delta and --r-tilde as for `ereval paula plan`.
    """
    from ..paula import labels_by_rank, minimum_r_tilde, paula_bounds, paula_plan
    from ..plots import plot_paula_bounds

    minimum_r_tilde(epsilon=epsilon, delta=delta)  # checks both before reading anything
    npos = _n_positives(n_positives)
    measures = list(dict.fromkeys(measure or []))
    for name in measures:
        if name not in get_args(MeasureChoice):
            raise InputError(
                f"'--measure' must be one of {', '.join(get_args(MeasureChoice))}; "
                f"received {name!r}"
            )
        if name in ("recall", "f1") and npos is None:
            raise InputError(f"'--measure' {name} needs '--n-positives' (the recall denominator)")
    if plot is not None and plot_kind == "pr" and npos is None:
        raise InputError("'--plot-kind' pr needs '--n-positives' (the recall denominator)")
    if out is not None:
        check_table_path(out, flag="--out")
    if plot is not None:
        check_figure_path(plot, flag="--plot")
    with progress(f"reading {labels.name} and {ranked.name}", quiet=quiet):
        n, ranks, values = labels_by_rank(
            labels,
            ranked,
            rank_col=rank_col,
            label_col=label_col,
            id_col=id_col,
            score_col=score_col,
            **_FLAGS,
        )
    plan = paula_plan(n, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    _check_plan_ranks(plan, ranks, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    bounds = paula_bounds(
        plan,
        ranks,
        values,
        on_violation="raise" if strict else "ignore",
        tolerance=tolerance,
    )
    report = bounds.diagnostic
    ks = sorted({*(at or []), plan.n})
    rows = bounds.table(np.asarray(ks, dtype=np.int64), n_positives=npos)
    rows = rows.rename(columns={"rank": "k"})
    measure_rows = _measure_rows(bounds, measures, ks, npos)
    figure = None
    try:
        with Outputs() as outputs:
            if out is not None:
                table_ranks = np.union1d(bounds.table_ranks(), np.asarray(ks, dtype=np.int64))
                full = bounds.table(table_ranks, n_positives=npos)
                outputs.add(out, lambda tmp: write_table(full, tmp))
            if plot is not None:
                figure = plot_paula_bounds(bounds, kind=plot_kind, n_positives=npos).figure
                outputs.add(plot, lambda tmp: write_figure(figure, tmp, plot))
    finally:
        if figure is not None:
            import matplotlib.pyplot as plt

            plt.close(figure)
    if out is not None:
        note_written(out, rows=len(full), quiet=quiet)
    if not report.holds:
        warn(report.summary())
    records = rows.to_dict(orient="records")
    columns = list(rows.columns)
    if fmt == "json":
        payload = {
            "plan": plan.to_dict(include_ranges=False),
            "precision_at": records,
            "monotonicity": report.to_dict(),
            "out": None if out is None else str(out),
            "plot": None if plot is None else str(plot),
        }
        if measures:
            payload["measures"] = measure_rows
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
        if measure_rows:
            emit_records(
                measure_rows,
                ["measure", "k", "lower", "upper"],
                "table",
                title="bounds on other measures (level 1 under PAULA's assumption)",
            )


def _measure_rows(
    bounds: Any, measures: list[str], ks: list[int], npos: Any
) -> list[dict[str, Any]]:
    """``measure, k, lower, upper`` of each ``--measure`` at each k (once for AP)."""
    rows: list[dict[str, Any]] = []
    for name in measures:
        if name == "average-precision":
            e = bounds.average_precision(n_positives=npos)
            rows.append({"measure": name, "k": None, "lower": e.lower, "upper": e.upper})
            continue
        for k in ks:
            e = bounds.measure_at(name, k, n_positives=npos)
            rows.append({"measure": name, "k": k, "lower": e.lower, "upper": e.upper})
    return rows


@paula_app.command(
    "annotations",
    epilog=examples(
        "ereval paula annotations --n 10000000 --delta 100 --p-min 0.5",
        "ereval paula annotations --n 217077 --epsilon 0.03 --epsilon 0.05 -f csv",
    ),
)
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
