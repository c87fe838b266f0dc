"""``ereval oasis``: estimate F-measure, precision and recall by OASIS sampling."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from .._errors import InputError
from .._validation import check_in_range, check_int
from ._common import (
    App,
    FormatOpt,
    LevelOpt,
    QuietOpt,
    dumps_json,
    emit_records,
    examples,
    handle_errors,
    note,
)
from ._output import Outputs, check_figure_path, check_output_path, write_figure
from ._progress import progress
from ._warnings import print_warnings

oasis_app = App(help="Estimate pairwise F-measure, precision and recall from a few labels (OASIS).")

_MEASURES = ("f_measure", "precision", "recall")

MethodChoice = Literal["oasis", "passive", "stratified", "importance"]
StrataMethodChoice = Literal["csf", "equal_size"]

PoolArg = Annotated[
    Path,
    typer.Argument(metavar="POOL", help="Pool of scored pairs: CSV (optionally .gz) or Parquet."),
]
LabelCol = Annotated[
    str, typer.Option("--label-col", help="Column of true 0/1 labels (answers as the oracle).")
]
IdCol = Annotated[str, typer.Option("--id-col", help="Column of pair identifiers.")]
ScoreCol = Annotated[str, typer.Option("--score-col", help="Column of similarity scores.")]
PredictionCol = Annotated[str, typer.Option("--prediction-col", help="Column of 0/1 predictions.")]
ProbabilityCol = Annotated[
    str | None,
    typer.Option(
        "--probability-col",
        help="Column of calibrated match probabilities (default: 'probability' when present).",
    ),
]
Threshold = Annotated[
    float | None,
    typer.Option(
        "--threshold", help="Decision threshold of real-valued scores (default: inferred)."
    ),
]
Alpha = Annotated[
    float, typer.Option("--alpha", help="F-measure weight: 1 precision, 0 recall, 0.5 F1.")
]
Strata = Annotated[
    int | None,
    typer.Option("--strata", help="Number of strata aimed at (default 30 up to 200,000 pairs)."),
]
StrataMethod = Annotated[
    StrataMethodChoice,
    typer.Option("--strata-method", help="Stratification: cumulative sqrt(F) or equal sizes."),
]
Greediness = Annotated[
    float,
    typer.Option(
        "--greediness",
        help="Greediness epsilon of OASIS and importance sampling, in (0, 1]: the share "
        "of the instrumental distribution kept uniform.",
    ),
]
Seed = Annotated[int | None, typer.Option("--seed", help="Random seed.")]
LinkOnly = Annotated[
    bool,
    typer.Option(
        "--link-only",
        help="Two-file linkage: the pool holds pairs across data sets only (checked).",
    ),
]
SourceCol = Annotated[
    str | None,
    typer.Option(
        "--source-col",
        help="With --link-only: the data set of each pair's records is in COL_l and COL_r "
        "(default: source_dataset, as Splink writes).",
    ),
]
Noise = Annotated[
    float, typer.Option("--noise", help="Probability that the oracle flips a label (simulation).")
]

# options that build the sampler: a saved state fixes them
_SAMPLER_OPTIONS = (
    "method",
    "alpha",
    "strata",
    "strata_method",
    "greediness",
    "prior_strength",
    "prior_scale",
    "completed_strata",
)
# options of a run: a replayed label export fixes them too
_RUN_OPTIONS = ("seed", "budget", "target_ci_width", "noise", "label_col", "state")


def _is_export(pool: Path, is_export: Any) -> bool:
    """Whether ``pool`` names a label export rather than a pool (a header read only)."""
    from ..io import file_spec, header

    return bool(is_export(header(file_spec(pool, name="POOL"), name="POOL")))


def _read(
    pool: Path,
    *,
    id_col: str,
    score_col: str,
    prediction_col: str,
    label_col: str,
    probability_col: str | None,
    threshold: float | None,
    across: tuple[str, str] | None,
) -> Any:
    from ..oasis import read_pool

    return read_pool(
        pool,
        pair_id_col=id_col,
        score_col=score_col,
        prediction_col=prediction_col,
        label_col=label_col,
        require_label=True,
        probability_col=probability_col if probability_col is not None else "probability",
        require_probability=probability_col is not None,
        threshold=threshold,
        source_cols=across,
    )


def _across(link_only: bool, source_col: str | None) -> tuple[str, str] | None:
    """The pool's two columns of data sets under ``--link-only`` (None without it)."""
    if source_col is not None and not link_only:
        raise InputError("'--source-col' applies to a link-only evaluation: add --link-only")
    if not link_only:
        return None
    col = "source_dataset" if source_col is None else source_col.strip()
    if not col:
        raise InputError("'--source-col' must name a column; received an empty name")
    return (f"{col}_l", f"{col}_r")


def _check_common(*, alpha: float, greediness: float, noise: float, strata: int | None) -> None:
    """Check the scalar options shared by both commands, before the pool is read."""
    check_in_range("alpha", alpha, low=0.0, high=1.0)
    check_in_range("greediness", greediness, low=0.0, high=1.0, low_open=True)
    check_in_range("noise", noise, low=0.0, high=1.0)
    if strata is not None:
        check_int("strata", strata, minimum=1)


def _check_level(level: float) -> None:
    check_in_range("level", level, low=0.0, high=1.0, low_open=True, high_open=True)


def _oracle(pool: Any, noise: float, seed: int | None) -> Any:
    from ..oasis import LabelOracle, NoisyOracle

    if noise == 0:
        return LabelOracle(pool)
    return NoisyOracle(pool, flip_probability=noise, seed=None if seed is None else seed + 1)


def _given_on_command_line(ctx: typer.Context, names: tuple[str, ...]) -> list[str]:
    """The options among ``names`` that the user gave (not left at their default)."""
    given = []
    for name in names:
        source = ctx.get_parameter_source(name)
        if source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            given.append("--" + name.replace("_", "-"))
    return given


@oasis_app.command(
    "estimate",
    epilog=examples(
        "ereval oasis estimate pool.csv --budget 1000 --seed 1",
        "ereval oasis estimate pool.csv --budget 500 --state run.npz",
        "ereval oasis estimate pool.csv --budget 900 --state run.npz  # 400 more",
        "ereval oasis estimate pool.csv --budget 500 --curve-grid 20 -f csv",
        "ereval oasis estimate pool.csv --labels labels.csv  # a session's pairs export",
    ),
)
@handle_errors
def estimate(
    ctx: typer.Context,
    pool: PoolArg,
    label_col: LabelCol = "label",
    budget: Annotated[
        int | None, typer.Option("--budget", help="Distinct labels to spend (in all).")
    ] = None,
    target_ci_width: Annotated[
        float | None,
        typer.Option("--target-ci-width", help="Stop when the interval is this narrow."),
    ] = None,
    alpha: Alpha = 0.5,
    strata: Strata = None,
    strata_method: StrataMethod = "csf",
    method: Annotated[MethodChoice, typer.Option("--method", help="Sampling method.")] = "oasis",
    greediness: Greediness = 1e-3,
    prior_strength: Annotated[
        float | None,
        typer.Option("--prior-strength", help="OASIS prior pseudo-labels in total (default 2K)."),
    ] = None,
    prior_scale: Annotated[
        Literal["split", "per-stratum"],
        typer.Option(
            "--prior-scale",
            help="OASIS: the prior's pseudo-labels split over the strata (split, as the "
            "authors' code) or given to each stratum (per-stratum, the paper's wording).",
        ),
    ] = "split",
    completed_strata: Annotated[
        Literal["exact", "sampled"],
        typer.Option(
            "--completed-strata",
            help="OASIS: a stratum whose pairs are all labelled counts exactly and gets no "
            "more draws (exact), or stays in the weighted estimator as drawn (sampled, the "
            "paper's eq. 3).",
        ),
    ] = "exact",
    level: LevelOpt = 0.95,
    seed: Seed = None,
    noise: Noise = 0.0,
    id_col: IdCol = "pair_id",
    score_col: ScoreCol = "score",
    prediction_col: PredictionCol = "prediction",
    probability_col: ProbabilityCol = None,
    threshold: Threshold = None,
    link_only: LinkOnly = False,
    source_col: SourceCol = None,
    state: Annotated[
        Path | None,
        typer.Option(
            "--state",
            help="Sampler state file: continue from it when it exists, and save the state "
            "to it after the run (NumPy .npz format, at exactly this path).",
        ),
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels",
            help="A pairs export of a labelling session ('ereval label export --kind pairs'): "
            "replay its labels over POOL, the session's pool, into the session's estimate.",
        ),
    ] = None,
    curve_grid: Annotated[
        int | None,
        typer.Option(
            "--curve-grid",
            help="Also estimate precision, recall and F-alpha of 'score >= t' at G "
            "thresholds (pool scores evenly spaced in rank) from the same labels, and print "
            "that curve.",
        ),
    ] = None,
    fmt: FormatOpt = "table",
    quiet: QuietOpt = False,
) -> None:
    """Estimate F-alpha, precision and recall of the pool's predictions by sampling labels."""
    from ..labels import estimate_from_export, is_pairs_export
    from ..oasis import Method, estimated_curve, load_sampler, make_sampler, read_pool

    if labels is not None:  # the session's sampler and labels: nothing else to choose
        fixed = _given_on_command_line(ctx, (*_SAMPLER_OPTIONS, *_RUN_OPTIONS))
        if fixed:
            raise InputError(
                f"'{fixed[0]}': with --labels the sampler and its labels are the session's; "
                f"drop {', '.join(fixed)}"
            )
        budget = target_ci_width = None
    elif _is_export(pool, is_pairs_export):
        raise InputError(
            f"'POOL': '{pool}' is a label export, not a pool: its pairs were drawn from the "
            f"session's pool with weights; estimate with: ereval oasis estimate POOL "
            f"--labels {pool} (POOL being the session's pairs file)"
        )
    elif budget is None and target_ci_width is None:
        raise InputError("give --budget, --target-ci-width or both")
    if budget is not None:
        check_int("budget", budget, minimum=1)
    if target_ci_width is not None:
        check_in_range("target_ci_width", target_ci_width, low=0.0, low_open=True)
    _check_common(alpha=alpha, greediness=greediness, noise=noise, strata=strata)
    _check_level(level)
    if method != "oasis" and labels is None:
        given = _given_on_command_line(ctx, ("prior_strength", "prior_scale", "completed_strata"))
        if given:
            raise InputError(
                f"'{given[0]}' is an option of --method oasis; received it with --method {method}"
            )
    across = _across(link_only, source_col)
    if curve_grid is not None:
        check_int("curve_grid", curve_grid, minimum=1)
    resume = state is not None and state.exists()
    if state is not None:
        check_output_path(state, flag="--state")
    if resume:
        fixed = _given_on_command_line(ctx, _SAMPLER_OPTIONS)
        if fixed:
            raise InputError(
                f"'--state': '{state}' holds a saved sampler, which fixes {', '.join(fixed)}; "
                "drop them to continue it, or name a new --state file"
            )
    if labels is not None:
        with progress(f"reading {pool.name}", quiet=quiet):
            p = read_pool(
                pool,
                pair_id_col=id_col,
                score_col=score_col,
                prediction_col=prediction_col,
                label_col=None,
                probability_col=probability_col or "probability",
                require_probability=probability_col is not None,
                threshold=threshold,
                source_cols=across,
            )
        sampler, est = estimate_from_export(p, labels, id_col=id_col, confidence=level)
    else:
        with progress(f"reading {pool.name}", quiet=quiet):
            p = _read(
                pool,
                id_col=id_col,
                score_col=score_col,
                prediction_col=prediction_col,
                label_col=label_col,
                probability_col=probability_col,
                threshold=threshold,
                across=across,
            )
        if resume and state is not None:
            sampler = load_sampler(state, p)
            if not quiet:
                note(f"continuing the {sampler.method} sampler saved in '{state}'")
        else:
            name: Method = method
            options: dict[str, Any] = {"alpha": alpha, "seed": seed}
            if name in ("oasis", "stratified"):
                options["n_strata"] = strata
                options["strata_method"] = strata_method
            if name in ("oasis", "importance"):
                options["epsilon"] = greediness
            if name == "oasis":
                options["prior_strength"] = prior_strength
                options["prior_scale"] = prior_scale.replace("-", "_")
                options["completed_strata"] = completed_strata
            sampler = make_sampler(name, p, **options)
        with progress("labelling pairs", total=budget, quiet=quiet) as bar:
            bar.update(completed=sampler.labels_used)
            est = sampler.run(
                _oracle(p, noise, seed),
                budget=budget,
                target_ci_width=target_ci_width,
                confidence=level,
                progress=lambda used: bar.update(completed=used),
            )
    if state is not None:
        with Outputs() as outputs:
            outputs.add(state, sampler.save)
    print_warnings(est.warnings)
    result = est.to_dict()
    result.update(
        n_pairs=p.size,
        n_strata=sampler.strata.n_strata,
        stop_reason=sampler.stop_reason,
    )
    if curve_grid is not None:
        curve = estimated_curve(sampler, curve_grid, confidence=level)
        print_warnings(_curve_warnings(curve))
        if fmt == "json":
            result["curve"] = curve.to_dict()["rows"]
            sys.stdout.write(dumps_json(result) + "\n")
            return
        frame = curve.to_frame()
        emit_records(
            frame.to_dict("records"),
            list(frame.columns),
            fmt,
            title=(
                f"{est.method}: {est.labels_used} labels, alpha = {est.alpha:g}, "
                f"{est.confidence:.0%} intervals, estimated at {len(frame)} thresholds"
            ),
        )
        return
    if fmt == "json":
        sys.stdout.write(dumps_json(result) + "\n")
        return
    rows: list[Mapping[str, Any]] = [
        {"measure": m, "value": e.value, "std": e.std, "lower": e.lower, "upper": e.upper}
        for m, e in zip(_MEASURES, (est.f_measure, est.precision, est.recall), strict=True)
    ]
    emit_records(
        rows,
        ["measure", "value", "std", "lower", "upper"],
        fmt,
        title=(
            f"{est.method}: {est.labels_used} labels, {est.iterations} draws, "
            f"alpha = {est.alpha:g}, {est.confidence:.0%} intervals, stopped by {sampler.stop_reason}"
        ),
    )


def _curve_warnings(curve: Any) -> list[str]:
    """Each distinct warning of the curve once, with the first threshold it concerns."""
    seen: dict[str, float] = {}
    for i, t in enumerate(curve.points.tolist()):
        for name in _MEASURES:
            for w in curve[name].warnings[i]:
                seen.setdefault(w, t)
    return [f"at threshold {t:g}: {w}" for w, t in seen.items()]


def _budgets(text: str) -> list[int]:
    budget_list: list[int] = []
    for item in text.split(","):
        try:
            budget_list.append(int(item))
        except ValueError:
            raise InputError(
                f"'--budgets' must be comma-separated integers; received {item!r}"
            ) from None
    for b in budget_list:
        check_int("budgets", b, minimum=1)
    return budget_list


@oasis_app.command(
    "experiment",
    epilog=examples(
        "ereval oasis experiment pool.csv --budgets 500,1000,2000 --plot fig.png",
        "ereval oasis experiment pool.csv --methods oasis,passive --repeats 20",
    ),
)
@handle_errors
def experiment(
    pool: PoolArg,
    label_col: LabelCol = "label",
    methods: Annotated[
        str,
        typer.Option(
            "--methods", help="Comma-separated methods: oasis, passive, stratified, importance."
        ),
    ] = "oasis,passive,stratified,importance",
    budgets: Annotated[
        str, typer.Option("--budgets", help="Comma-separated label budgets.")
    ] = "500,1000,2000,5000",
    repeats: Annotated[int, typer.Option("--repeats", help="Runs per method.")] = 100,
    alpha: Alpha = 0.5,
    strata: Strata = None,
    strata_method: StrataMethod = "csf",
    greediness: Greediness = 1e-3,
    level: LevelOpt = 0.95,
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    noise: Noise = 0.0,
    id_col: IdCol = "pair_id",
    score_col: ScoreCol = "score",
    prediction_col: PredictionCol = "prediction",
    probability_col: ProbabilityCol = None,
    threshold: Threshold = None,
    link_only: LinkOnly = False,
    source_col: SourceCol = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Write the error-vs-budget figure here (.png, .pdf, .svg, ...; needs the "
            "extra ereval\\[plot]).",
        ),
    ] = None,
    fmt: FormatOpt = "table",
    quiet: QuietOpt = False,
) -> None:
    """Repeat each method and report mean absolute error and std of F-alpha against the budget."""
    from .._validation import check_choice
    from ..oasis import run_experiment
    from ..oasis._samplers import METHODS
    from ..plots import plot_oasis_experiment

    budget_list = _budgets(budgets)
    method_list = [m.strip() for m in methods.split(",") if m.strip()]
    for m in method_list:
        check_choice("methods", m, METHODS)
    check_int("repeats", repeats, minimum=1)
    check_int("seed", seed, minimum=0)
    _check_common(alpha=alpha, greediness=greediness, noise=noise, strata=strata)
    _check_level(level)
    across = _across(link_only, source_col)
    if plot is not None:
        check_figure_path(plot, flag="--plot")
    with progress(f"reading {pool.name}", quiet=quiet):
        p = _read(
            pool,
            id_col=id_col,
            score_col=score_col,
            prediction_col=prediction_col,
            label_col=label_col,
            probability_col=probability_col,
            threshold=threshold,
            across=across,
        )
    with progress("running", total=len(method_list) * repeats, quiet=quiet) as bar:

        def one_run_done(method: str, run: int) -> None:
            bar.update(description=f"running {method}")
            bar.advance()

        res = run_experiment(
            p,
            methods=method_list,  # type: ignore[arg-type]  # checked above
            budgets=budget_list,
            repeats=repeats,
            alpha=alpha,
            seed=seed,
            n_strata=strata,
            strata_method=strata_method,
            epsilon=greediness,
            flip_probability=noise,
            confidence=level,
            progress=one_run_done,
        )
    if plot is not None:
        figure = plot_oasis_experiment(res)
        with Outputs() as outputs:
            outputs.add(plot, lambda tmp: write_figure(figure, tmp, plot))
    columns = [
        "method",
        "budget",
        "mae",
        "std",
        "bias",
        "rmse",
        "coverage",
        "mean_std_estimate",
        "defined",
        "mean_iterations",
        "true_value",
    ]
    records: list[Mapping[str, Any]] = res.to_frame().to_dict(orient="records")
    emit_records(
        records,
        columns,
        fmt,
        title=f"{res.repeats} runs per method; true F(alpha = {res.alpha:g}) = {res.true_value:.6g}",
    )


def register(app: typer.Typer) -> None:
    """Add the ``oasis`` command group to ``app``."""
    app.add_typer(oasis_app, name="oasis")
