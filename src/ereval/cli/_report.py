"""``ereval report``: one self-contained HTML report of an evaluation."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from .._errors import InputError
from ..io import check_link_only, file_spec, header
from ._columns import (
    ClusterColOpt,
    LinkOnlyOpt,
    MismatchOpt,
    PredClusterColOpt,
    PredRecordColOpt,
    RecordColOpt,
    SourceColOpt,
    TruthClusterColOpt,
    TruthRecordColOpt,
    split_columns,
)
from ._common import LevelOpt, QuietOpt, examples, handle_errors, note
from ._curve import Preset
from ._curve import _columns as _pair_columns
from ._engine import (
    EngineOpt,
    MemoryLimitOpt,
    SparkConfOpt,
    SparkMasterOpt,
    TempDirOpt,
    ThreadsOpt,
    engine_from_options,
)
from ._estimate import weights_value
from ._output import Outputs, check_output_path
from ._progress import progress
from ._sample import DesignChoice, WeightsOpt, design_value

ReportFormat = Literal["html", "json"]


def _named_pred(text: str) -> tuple[str, str]:
    """``NAME=PATH`` or ``PATH`` (named by its file stem)."""
    if "=" in text and not os.path.exists(text):
        name, _, path = text.partition("=")
        if not name or not path:
            raise InputError(f"'--pred' must be PATH or NAME=PATH; received {text!r}")
        return name, path
    return Path(text).name.split(".")[0], text


def _check_plots_dir(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise InputError(f"'--plots-dir': '{path}' exists and is not a folder")
    parent = path if path.exists() else path.parent
    if not parent.is_dir():
        raise InputError(f"'--plots-dir': the folder of '{path}' does not exist ('{parent}/')")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"'--plots-dir': folder '{parent}/' is not writable")


@handle_errors
def report_command(
    example: Annotated[
        bool,
        typer.Option("--example", help="Report on the bundled example data (other inputs unused)."),
    ] = False,
    truth: Annotated[
        Path | None, typer.Option("--truth", help="True clustering (CSV/Parquet).")
    ] = None,
    pred: Annotated[
        list[str] | None,
        typer.Option("--pred", help="Predicted clustering, PATH or NAME=PATH (repeatable)."),
    ] = None,
    sample: Annotated[
        Path | None,
        typer.Option("--sample", help="Labelled true clusters (CSV/Parquet), one row per record."),
    ] = None,
    design: Annotated[
        DesignChoice | None,
        typer.Option(
            "--design",
            metavar="DESIGN",
            help="How the sampled units were drawn: record, cluster, block, single-block, size-stratified, expected-error or predicted-cluster.",
        ),
    ] = None,
    weights: WeightsOpt = None,
    draws: Annotated[
        str | None,
        typer.Option("--draws", help="Column of the sample with each unit's number of draws."),
    ] = None,
    records: Annotated[
        Path | None,
        typer.Option(
            "--records",
            help="Record attributes (CSV/Parquet, keyed by record id): error-analysis features "
            "and the columns shown with the worst clusters.",
        ),
    ] = None,
    feature_cols: Annotated[
        str | None,
        typer.Option(
            "--feature-cols", help="Comma-separated columns of --records to use as features."
        ),
    ] = None,
    shares: Annotated[
        str | None,
        typer.Option(
            "--shares",
            help="Comma-separated COLUMN=VALUE: each cluster's share of records with that value, "
            "as a feature.",
        ),
    ] = None,
    worst: Annotated[
        bool,
        typer.Option(
            "--worst/--no-worst",
            help="Show the true clusters with the most errors (cluster-wise errors: several "
            "times the metrics' time on large data).",
        ),
    ] = True,
    group: Annotated[
        str | None,
        typer.Option(
            "--group", help="Feature to estimate performance per subgroup (needs --sample)."
        ),
    ] = None,
    tags: Annotated[
        str | None,
        typer.Option(
            "--tags", help="Column of reviewers' error tags (in the sample or --records)."
        ),
    ] = None,
    releases: Annotated[
        list[str] | None,
        typer.Option(
            "--releases", help="Releases in order: a folder, a glob, or files (repeatable)."
        ),
    ] = None,
    pairs: Annotated[
        Path | None,
        typer.Option(
            "--pairs", help="Scored pairs (record_id_1, record_id_2, score): needs --truth."
        ),
    ] = None,
    score_col: Annotated[
        str | None,
        typer.Option(
            "--score-col",
            help="Score column of --pairs \\[default: score, or the preset's].",
            show_default=False,
        ),
    ] = None,
    left_col: Annotated[
        str | None,
        typer.Option(
            "--left-col",
            help="First record id column of --pairs \\[default: record_id_1, or the preset's].",
            show_default=False,
        ),
    ] = None,
    right_col: Annotated[
        str | None,
        typer.Option(
            "--right-col",
            help="Second record id column of --pairs \\[default: record_id_2, or the preset's].",
            show_default=False,
        ),
    ] = None,
    preset: Annotated[
        Preset,
        typer.Option(
            "--preset",
            help="Column names of a linker's output. splink: clusters unique_id, cluster_id; "
            "pairs unique_id_l, unique_id_r and match_weight (else match_probability); with "
            "source_dataset columns (a link job) the keys are source_dataset,unique_id.",
        ),
    ] = "none",
    record_col: RecordColOpt = "record_id",
    cluster_col: ClusterColOpt = "cluster_id",
    truth_record_col: TruthRecordColOpt = None,
    truth_cluster_col: TruthClusterColOpt = None,
    pred_record_col: PredRecordColOpt = None,
    pred_cluster_col: PredClusterColOpt = None,
    link_only: LinkOnlyOpt = False,
    source_col: SourceColOpt = None,
    pool: Annotated[
        Path | None,
        typer.Option(
            "--pool", help="Candidate pairs with score, prediction and label, for OASIS estimates."
        ),
    ] = None,
    budget: Annotated[
        int, typer.Option("--budget", help="Labels OASIS spends from the pool's label column.")
    ] = 500,
    ranked: Annotated[
        Path | None, typer.Option("--ranked", help="Ranked list, best first, for PAULA bounds.")
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels", help="Labels of the ranks a PAULA plan asked for (rank or item id)."
        ),
    ] = None,
    labels_db: Annotated[
        Path | None,
        typer.Option(
            "--labels-db",
            help="Label store (SQLite, ereval label): sessions, reviewers and agreement.",
        ),
    ] = None,
    epsilon: Annotated[float, typer.Option("--epsilon", help="PAULA plan's epsilon.")] = 0.1,
    delta: Annotated[int, typer.Option("--delta", help="PAULA plan's Delta.")] = 10,
    id_col: Annotated[
        str, typer.Option("--id-col", help="Item id column of --ranked and --labels.")
    ] = "pair_id",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="The report file (.html, or .json with -f json); default report.html, or "
            "JSON on stdout with -f json.",
        ),
    ] = None,
    plots: Annotated[
        bool | None,
        typer.Option(
            "--plots/--no-plots",
            help="Also write each chart as SVG and PNG, and every number as report.json, "
            "into a folder beside the report (NAME_files/); default: yes when the report "
            "is written to a file.",
            show_default=False,
        ),
    ] = None,
    plots_dir: Annotated[
        Path | None,
        typer.Option(
            "--plots-dir", help="Folder for the SVG, PNG and JSON files (implies --plots)."
        ),
    ] = None,
    title: Annotated[
        str | None,
        typer.Option("--title", help="Title of the report (default: a generic one)."),
    ] = None,
    fmt: Annotated[
        ReportFormat, typer.Option("--format", "-f", help="html (a page) or json (every number).")
    ] = "html",
    level: LevelOpt = 0.95,
    seed: Annotated[int, typer.Option("--seed", help="Seed of OASIS's sampling.")] = 0,
    on_mismatch: MismatchOpt = "error",
    engine: EngineOpt = "auto",
    memory_limit: MemoryLimitOpt = None,
    threads: ThreadsOpt = None,
    temp_dir: TempDirOpt = None,
    spark_master: SparkMasterOpt = None,
    spark_conf: SparkConfOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Write one self-contained HTML report of an evaluation: every section the inputs allow.

    Metrics of the predictions against the truth (side by side, best marked),
    estimates from a labelled sample with intervals and warnings, summary
    statistics, error analysis, metrics against the score threshold,
    monitoring over releases and the release comparison, OASIS estimates,
    PAULA bounds and the provenance of the labels, each with its chart and a
    short reading. The page works offline (scripts, styles and charts
    embedded) and prints well. --engine duckdb or spark computes the metrics, the
    summaries, the worst clusters, the threshold curve and the releases where the
    files are; the clusterings are then read in memory only for a --sample's
    sections.
    """
    from ..report import build_report, collect_results, example_report

    target = out
    if target is None and fmt == "html":
        target = Path("report.html")
    if target is not None:
        suffixes = (".html", ".htm") if fmt == "html" else (".json",)
        check_output_path(target, flag="--out", suffixes=suffixes)
    folder = plots_dir
    if plots_dir is not None and plots is False:
        raise InputError("'--plots-dir' and '--no-plots' contradict each other")
    if plots is None:
        plots = target is not None
    if folder is None and plots:
        if target is None:
            raise InputError("'--plots' needs --out (the folder goes beside the report)")
        folder = target.with_name(target.name.split(".")[0] + "_files")
    if folder is not None:
        _check_plots_dir(folder)
    if not example:
        check_inputs(truth, pred, sample, design, pairs, ranked, labels, releases, pool, labels_db)
    if link_only and source_col is None and preset == "splink":
        source_col = "source_dataset"
    check_link_only(link_only, split_columns(source_col))
    from .._monitor import release_sources

    ends = release_sources(_release_arg(releases))[:: max(1, len(releases) - 1)] if releases else []
    builder = engine_from_options(
        engine=engine,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
        # with --engine auto, the engine is picked by the clusterings' size, else the releases'
        truth=truth if truth is not None else (ends[0][1] if ends else None),
        pred=_named_pred(pred[0])[1] if pred else (ends[-1][1] if ends else None),
    )
    from .._optional import require

    for module in ("vl_convert", "jinja2"):  # the extra, checked before any work
        require(module, feature="ereval report")

    with progress("building the report", quiet=quiet) as bar:
        if example:
            report = example_report() if title is None else example_report(title=title)
        else:
            named = dict(_named_pred(p) for p in pred or [])
            if len(named) < len(pred or []):
                raise InputError("'--pred': two predictions have the same name; use NAME=PATH")
            cols = _clustering_columns(
                preset,
                record_col=record_col,
                cluster_col=cluster_col,
                truth_record_col=truth_record_col,
                truth_cluster_col=truth_cluster_col,
                pred_record_col=pred_record_col,
                pred_cluster_col=pred_cluster_col,
                preds=list(named.values()),
            )
            pair_cols: tuple[Any, Any] = ("record_id_1", "record_id_2")
            score = score_col or "score"
            if pairs is not None:
                left, right, score = _pair_columns(pairs, preset, left_col, right_col, score_col)
                pair_cols = (left, right)
            n_ranked: Any = None
            labels_frame = None
            if ranked is not None and labels is not None:
                import pandas as pd

                from ..paula import labels_by_rank, paula_plan
                from ._paula import _check_plan_ranks

                n_ranked, ranks, values = labels_by_rank(
                    labels, ranked, id_col=id_col, id_option="--id-col"
                )
                plan = paula_plan(n_ranked, epsilon=epsilon, delta=delta)
                _check_plan_ranks(plan, ranks, epsilon=epsilon, delta=delta, r_tilde=None)
                labels_frame = pd.DataFrame({"rank": ranks, "label": values})
            sources = {
                k: v.name for k, v in (("labels", labels), ("ranked", ranked)) if v is not None
            }
            sources.update({name: Path(path).name for name, path in named.items()})
            if truth is not None:
                sources["truth"] = truth.name
            results = collect_results(
                truth=truth,
                preds=named,
                sample=sample,
                design=design_value(design),
                weights=weights_value(weights),
                draws=draws,
                records=records,
                feature_columns=_split(feature_cols),
                shares=_split(shares) or (),
                group=group,
                tags=tags,
                releases=_release_arg(releases),
                pairs=pairs,
                score_col=score,
                pair_cols=pair_cols,
                pool=pool,
                oasis_budget=budget,
                ranked=n_ranked,
                labels=labels_frame,
                epsilon=epsilon,
                delta=delta,
                level=level,
                seed=seed,
                record_col=_one_column(record_col, "--record-col", sample, records),
                cluster_col=_one_column(cluster_col, "--cluster-col", sample, records),
                sources=sources,
                worst=worst,
                labels_db=labels_db,
                link_only=link_only,
                source_col=split_columns(source_col),
                engine=builder,
                columns=cols,
                on_mismatch=on_mismatch,
            )
            report = build_report(results, title=title or "Entity resolution evaluation")
        bar.update(description="drawing the charts")
        if target is None:
            sys.stdout.write(report.to_json() + "\n")
            return
        contents = report.files(fmt, path=target, plots_dir=folder)
    if folder is not None:
        folder.mkdir(exist_ok=True)
    with Outputs() as outputs:
        for path, content in contents.items():
            outputs.add(path, _writer(content))
    if not quiet:
        where = f" (charts and numbers: {len(contents) - 1} files in {folder}/)" if folder else ""
        note(f"wrote {target.resolve()}{where}; open it in a browser")


def _release_arg(releases: list[str] | None) -> Any:
    """The releases as given: none, one folder or glob, or a list of paths."""
    if not releases:
        return None
    return releases[0] if len(releases) == 1 else releases


def check_inputs(
    truth: Path | None,
    pred: list[str] | None,
    sample: Path | None,
    design: str | None,
    pairs: Path | None,
    ranked: Path | None,
    labels: Path | None,
    releases: list[str] | None,
    pool: Path | None,
    labels_db: Path | None = None,
) -> None:
    """The combinations of inputs a report needs, checked before any file is read."""
    if sample is not None and design is None:
        raise InputError("'--sample' needs --design (record, cluster, block or single-block)")
    if design is not None and sample is None:
        raise InputError("'--design' needs --sample (the design says how the sample was drawn)")
    if (ranked is None) != (labels is None):
        raise InputError("'--ranked' and '--labels' go together (PAULA needs both)")
    if pairs is not None and truth is None:
        raise InputError("'--pairs' needs --truth to score the pairs against")
    if labels_db is not None and not labels_db.is_file():
        raise InputError(f"'--labels-db': label store '{labels_db}' does not exist")
    if (
        all(x is None for x in (truth, sample, pairs, ranked, pool, labels_db))
        and not pred
        and not releases
    ):
        raise InputError(
            "nothing to report: give --truth and --pred, --sample, --releases, --pool, "
            "--ranked/--labels, --labels-db, or --example"
        )


def _clustering_columns(
    preset: str,
    *,
    record_col: str,
    cluster_col: str,
    truth_record_col: str | None,
    truth_cluster_col: str | None,
    pred_record_col: str | None,
    pred_cluster_col: str | None,
    preds: list[str],
) -> tuple[Any, Any, Any, Any]:
    """The record and cluster columns of the truth and of the predictions: a side's own
    option, else the preset's (for the predictions), else the options of both."""
    both_record = split_columns(record_col) or "record_id"
    both_cluster = split_columns(cluster_col) or "cluster_id"
    pred_rec: Any = split_columns(pred_record_col)
    pred_clu: Any = split_columns(pred_cluster_col)
    if preset == "splink":
        # Splink's clusters: unique_id and cluster_id (and source_dataset in a link job)
        present = set(header(file_spec(preds[0], name="pred"), name="pred")) if preds else set()
        if pred_rec is None:
            pred_rec = (
                ["source_dataset", "unique_id"] if "source_dataset" in present else "unique_id"
            )
        if pred_clu is None:
            pred_clu = "cluster_id"
    return (
        split_columns(truth_record_col) or both_record,
        split_columns(truth_cluster_col) or both_cluster,
        pred_rec or both_record,
        pred_clu or both_cluster,
    )


def _one_column(value: str, flag: str, *files: Path | None) -> str:
    """A column of the sample and of --records: one name (keys of several columns are
    for the clusterings and pairs only)."""
    if "," in value and any(f is not None for f in files):
        raise InputError(
            f"'{flag}' names one column of --sample and --records; received {value!r} "
            "(give the clusterings' key of several columns with --truth-record-col and "
            "--pred-record-col)"
        )
    return value.split(",")[0].strip() or value


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def _writer(content: str | bytes) -> Any:
    def write(tmp: Path) -> None:
        if isinstance(content, bytes):
            tmp.write_bytes(content)
        else:
            tmp.write_text(content, encoding="utf-8")

    return write


def register(app: typer.Typer) -> None:
    """Add ``report`` to the application."""
    app.command(
        "report",
        epilog=examples(
            "ereval report --example -o report.html",
            "ereval report --truth truth.csv --pred good=pred_good.csv \\",
            "    --pred poor=pred_poor.csv -o report.html --plots",
            "ereval report --truth truth.csv --pred clusters.csv --pairs predictions.csv \\",
            "    --preset splink -o report.html",
            "ereval report --pred pred.csv --sample sample.csv --design record \\",
            "    --releases releases/ --pool pairs.csv -f json -o report.json",
        ),
    )(report_command)
