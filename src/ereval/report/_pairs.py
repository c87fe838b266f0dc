"""Sections over scored pairs and ranked lists: metrics against the threshold,
OASIS estimates and their convergence, PAULA bounds."""

from __future__ import annotations

import numpy as np

from ..curves import ThresholdCurve
from ..oasis import Convergence
from ..paula import PaulaBounds
from ..plots import Band, Bars, Line, Panel, paula_bounds_figure, threshold_curve_figure
from ._charts import Chart, bars_spec, concat_spec, panel_spec
from ._model import Section, Table
from ._registry import Part, section_for
from ._words import fmt, interval

__all__ = ["oasis_section", "paula_section", "threshold_section"]

#: Metrics whose best threshold is tabled.
BEST_OF = ("links_f1", "pairwise_f1", "b3_f1", "cluster_f1")


@section_for(ThresholdCurve)
def threshold_section(part: Part) -> Section:
    """Metrics of the scored pairs and of their connected components at every threshold."""
    curve: ThresholdCurve = part.result
    panels = threshold_curve_figure(curve)
    chart = Chart(
        "threshold",
        "Three panels: F1 of the links and of their connected components against the "
        "threshold; precision against recall; the ROC curve of the scored pairs.",
        concat_spec([panel_spec(p, width=250, height=190) for p in panels], columns=3),
    )
    best = {m: curve.best(m) for m in BEST_OF if m in curve.frame.columns}
    table = Table(
        "best thresholds",
        ("metric", "threshold", "value", "links precision", "links recall"),
        tuple(
            (m, b["threshold"], b[m], b["links_precision"], b["links_recall"])
            for m, b in best.items()
        ),
    )
    s = curve.summary
    reading = [
        f"{s['n_pairs']:,} scored pairs cover {s['n_true_pairs_scored']:,} of the "
        f"{s['n_true_pairs']:,} true matching pairs (pairs completeness "
        f"{s['pairs_completeness']:.1%}); the scores' ROC AUC is {fmt(s['roc_auc'], 4)}."
    ]
    if "pairwise_f1" in best and "links_f1" in best:
        bp, bl = best["pairwise_f1"], best["links_f1"]
        reading.append(
            f"The clustering by connected components is best at threshold "
            f"{fmt(bp['threshold'], 4)} (pairwise F1 {fmt(bp['pairwise_f1'])}); the links "
            f"themselves at {fmt(bl['threshold'], 4)} (F1 {fmt(bl['links_f1'])})."
            + (
                " Connected components need a higher threshold: transitive closure adds "
                "false links."
                if bp["threshold"] > bl["threshold"]
                else ""
            )
        )
    return Section(
        "threshold",
        "Metrics against the score threshold",
        tuple(reading),
        tables=(table,),
        charts=(chart,),
        warnings=part.warnings,
        numbers={"summary": s, "best": best, "curve": curve.frame.to_dict(orient="list")},
    )


@section_for(Convergence)
def oasis_section(part: Part) -> Section:
    """OASIS estimates of the pool's pairwise F1, precision and recall, and how they
    converged as labels were spent."""
    run: Convergence = part.result
    curve, final = run.curve, run.final
    level = curve.level
    x = curve.points.astype(np.float64)

    def line(name: str, label: str, color: str) -> Line:
        return Line(x, curve[name].value, label, color, marker=".")

    band = Band(
        x, curve["f_measure"].lower, curve["f_measure"].upper, f"F1 {level:.0%} interval", "gray"
    )
    conv = Panel(
        (
            line("f_measure", "F1", "black"),
            line("precision", "precision", "tab:blue"),
            line("recall", "recall", "tab:orange"),
        ),
        "labels used",
        "estimate",
        title=f"OASIS estimates as labels are spent (pool of {run.pool_size:,} pairs)",
    )
    ests = {"f1": final.f_measure, "precision": final.precision, "recall": final.recall}
    bars = Bars(
        tuple(ests),
        np.asarray([e.value for e in ests.values()]),
        np.asarray([e.lower for e in ests.values()]),
        np.asarray([e.upper for e in ests.values()]),
        xlabel=f"estimate ({level:.0%} interval)",
        title=f"after {final.labels_used} labels",
    )
    chart = Chart(
        "oasis",
        "OASIS: the final estimates with their intervals, and their path as labels were spent.",
        concat_spec([bars_spec(bars, width=240), panel_spec(conv, [band], width=320)], columns=2),
    )
    table = Table(
        f"OASIS estimates from {final.labels_used} labelled pairs",
        ("measure", "value", "std", "lower", "upper"),
        tuple((k, e.value, e.std, e.lower, e.upper) for k, e in ests.items()),
    )
    first = curve.estimate("f_measure", 0)
    reading = [
        f"From {final.labels_used:,} of {run.pool_size:,} candidate pairs labelled by adaptive "
        f"importance sampling, the pairwise decisions have F1 {interval(final.f_measure)}, "
        f"precision {interval(final.precision)} and recall {interval(final.recall)}.",
        f"The F1 interval narrowed from {fmt(first.width)} wide after {curve.points[0]} labels to "
        f"{fmt(final.f_measure.width)} after {final.labels_used}.",
    ]
    return Section(
        "oasis",
        "OASIS estimates from labelled pairs",
        tuple(reading),
        tables=(table,),
        charts=(chart,),
        warnings=tuple(dict.fromkeys([*part.warnings, *final.warnings])),
        numbers={
            "final": final.to_dict(),
            **(
                {"labelled_rows": list(part.context["labelled_rows"])}
                if "labelled_rows" in part.context
                else {}
            ),
            "trace": [
                {
                    "labels": n,
                    "f1": curve.estimate("f_measure", i).to_dict(),
                    "precision": curve.estimate("precision", i).to_dict(),
                    "recall": curve.estimate("recall", i).to_dict(),
                }
                for i, n in enumerate(curve.points.tolist())
            ],
        },
    )


@section_for(PaulaBounds)
def paula_section(part: Part) -> Section:
    """PAULA's bounds on the precision of the top ``k`` items of a ranked list
    (``context``: the ``epsilon`` and ``delta`` the plan was asked for)."""
    bounds: PaulaBounds = part.result
    plan = bounds.plan
    n = plan.n
    epsilon, delta = part.context["epsilon"], part.context["delta"]
    panel = paula_bounds_figure(bounds)
    chart = Chart(
        "paula",
        "PAULA: lower (blue) and upper (red) bounds on the precision of the top r items.",
        panel_spec(panel, xscale="log", width=420, height=240),
    )
    at = [k for k in (100, 1000, 5000, 10_000, 50_000, 100_000, n) if k <= n]
    at = list(dict.fromkeys(at))
    rows = []
    for k in at:
        e = bounds.precision_at(k)
        rows.append((k, e.lower, e.upper, e.value))
    table = Table(
        "precision bounds at some ranks",
        ("rank", "lower", "upper", "exact"),
        tuple(rows),
        note="The bounds hold with certainty if precision does not rise down the list "
        "(PAULA's assumption).",
    )
    mid = bounds.precision_at(at[len(at) // 2])
    reading = [
        f"{plan.annotations:,} of {n:,} ranked items labelled (epsilon {epsilon:g}, "
        f"Delta {delta}); {bounds.known_positives:,} positives among them.",
        f"Precision of the top {at[len(at) // 2]:,} items lies in [{fmt(mid.lower)}, "
        f"{fmt(mid.upper)}]; of the whole list in [{fmt(rows[-1][1])}, {fmt(rows[-1][2])}].",
    ]
    if bounds.diagnostic.violations:
        reading.append(
            f"The labels contradict the assumption {len(bounds.diagnostic.violations)} time(s): "
            "treat the bounds with care."
        )
    return Section(
        "paula",
        "PAULA bounds on precision at rank",
        tuple(reading),
        tables=(table,),
        charts=(chart,),
        warnings=part.warnings,
        numbers={
            "plan": {"n": n, "epsilon": epsilon, "delta": delta, "annotations": plan.annotations},
            "bounds": bounds.table().to_dict(orient="list"),
        },
    )
