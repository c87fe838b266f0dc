"""The report shows computed results: one section registered per result type, and no
maths in the presentation modules."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ereval.report as report_pkg
from ereval import InputTypeError
from ereval._compare import Comparison
from ereval._monitor import Monitoring, monitor
from ereval.curves import ThresholdCurve, threshold_curve
from ereval.oasis import Convergence
from ereval.paula import PaulaBounds
from ereval.report import Part, build_report, collect_results, sections
from ereval.report._bundles import (
    ExactScores,
    LabelSources,
    ReleaseComparison,
    SampleAnalysis,
    SampleEstimates,
    Summaries,
    WorstClusters,
)

#: The modules that only show results.
PRESENTATION = (
    "_exact",
    "_pairs",
    "_releases",
    "_sample",
    "_provenance",
    "_registry",
    "_build",
    "_model",
    "_verdict",
)
#: The package's verbs: none is imported by a presentation module.
VERBS = {
    "evaluate",
    "estimate",
    "summarize",
    "monitor",
    "compare",
    "threshold_curve",
    "cluster_errors",
    "record_errors",
    "sample_errors",
    "disparities",
    "error_tree",
    "tag_frequencies",
    "make_sampler",
    "convergence",
    "estimated_curve",
    "paula_bounds",
    "paula_plan",
    "contingency_table",
    "pair_space",
    "prepare_prediction",
    "session_agreement",
    "LabelStore",
    "clustering_misplaced",
    "misplaced_records",
    "moved_records",
}


def test_every_section_is_registered_for_its_result_type() -> None:
    assert set(sections()) == {
        ExactScores,
        Summaries,
        WorstClusters,
        SampleEstimates,
        SampleAnalysis,
        ThresholdCurve,
        Monitoring,
        ReleaseComparison,
        Convergence,
        PaulaBounds,
        LabelSources,
    }
    assert Comparison not in sections()  # shown with the releases' names


@pytest.mark.parametrize("module", PRESENTATION)
def test_presentation_modules_import_no_verb(module: str) -> None:
    path = Path(report_pkg.__file__).with_name(f"{module}.py")
    imported = {
        alias.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert not imported & VERBS


def _data() -> tuple[pd.DataFrame, dict[str, pd.DataFrame], pd.DataFrame]:
    rng = np.random.default_rng(5)
    cluster = np.repeat(np.arange(40), rng.integers(1, 4, size=40))
    ids = [f"r{i:03d}" for i in range(cluster.size)]
    truth = pd.DataFrame({"record_id": ids, "cluster_id": cluster})
    releases = {}
    for k, name in enumerate(("a", "b", "c")):
        moved = cluster.copy()
        flip = rng.random(cluster.size) < 0.1 * (k + 1)
        moved[flip] = rng.integers(0, 40, size=int(flip.sum()))
        releases[name] = pd.DataFrame({"record_id": ids, "cluster_id": moved})
    a, b = np.triu_indices(len(ids), k=1)
    pick = rng.choice(a.size, size=200, replace=False)
    same = cluster[a[pick]] == cluster[b[pick]]
    pairs = pd.DataFrame(
        {
            "record_id_1": np.asarray(ids)[a[pick]],
            "record_id_2": np.asarray(ids)[b[pick]],
            "score": np.clip(same * 0.6 + rng.random(200) * 0.5, 0, 1),
        }
    )
    return truth, releases, pairs


def test_bare_results_are_shown_by_their_sections_unchanged() -> None:
    truth, releases, pairs = _data()
    collected = collect_results(truth=truth, preds={"a": releases["a"]}, pairs=pairs)
    kinds = [type(p.result).__name__ for p in collected.parts]
    assert kinds == ["ExactScores", "Summaries", "WorstClusters", "ThresholdCurve"]
    full = build_report(collected, title="t")
    # the same threshold curve, computed outside and given bare, gives the same section
    curve = threshold_curve(truth, pairs, thresholds=200)
    alone = build_report([curve], inputs={"pairs": "in memory"})
    assert alone.sections[0].numbers == full.section("threshold").numbers
    assert alone.inputs == {"pairs": "in memory"}
    m = monitor(releases)
    both = build_report([m, Part(curve, ("a note",))])
    assert [s.key for s in both.sections] == ["monitoring", "threshold"]
    assert both.sections[1].warnings == ("a note",)
    assert both.sections[0].numbers == m.to_dict()


def test_a_result_without_a_section_is_refused() -> None:
    with pytest.raises(InputTypeError, match="no section for a dict"):
        build_report([{"pairwise_f1": 0.5}])
