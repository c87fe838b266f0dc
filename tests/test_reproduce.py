"""The reproduction scripts of benchmarks/reproduce run (``--quick``) and print the
paper's number beside ours; the quick runs point the way the papers' claims do."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

FOLDER = Path(__file__).resolve().parents[1] / "benchmarks" / "reproduce"
SCRIPTS = (
    "fig9_uniform_sampling",
    "fig11_patentsview",
    "binette2022_table3_example1",
    "oasis_table2_fig2",
    "paula_fig1",
)
# Numbers that do not depend on the random draws: quantity -> tolerance on ours - paper.
EXACT = {
    "true pairwise precision": 0.005,
    "true pairwise recall": 0.005,
    "Example 1: true pairwise precision": 0.005,
    "Example 1: true pairwise recall": 0.005,
    "er-evaluation 2.3.0's documented estimate, 2021-12-30: precision": 1e-9,
    "abt-buy: pairs": 0.0,
    "abt-buy: matches": 0.0,
    "restaurant: pairs": 0.0,
    "restaurant: recall": 0.001,
    "dblp-acm: F1/2": 0.0005,
    "§4.4.3 PAULA annotations, N=217,077, eps=0.03": 0.0,
}
# Claims each quick run must already show (quantity prefixes whose rows must hold).
CLAIMS = {
    "fig9_uniform_sampling": ("Fig. 10: share of zero std",),
    "fig11_patentsview": (
        "bias pairwise precision, uniform",
        "bias pairwise precision, cluster_size",
    ),
    "binette2022_table3_example1": ("Example 1: median naive", "Example 1: min naive"),
    "oasis_table2_fig2": (),
    "paula_fig1": ("Fig. 1: random / PAULA", "Fig. 1: stratified / PAULA"),
}
# The figures are drawn by the full runs; the test draws one (drawing dominates a quick run).
DRAWN = "paula_fig1"


def test_scripts_print_paper_beside_ours(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(FOLDER))
    monkeypatch.syspath_prepend(str(FOLDER.parent))
    checked: set[str] = set()
    for name in SCRIPTS:
        options = ["--quick", "--figures", str(tmp_path)]
        if name != DRAWN:
            options.append("--no-figures")
        rows = importlib.import_module(name).main(options)
        out = capsys.readouterr().out
        header = next(line for line in out.splitlines() if line.startswith("quantity"))
        assert header.split()[:4] == ["quantity", "paper", "ours", "difference"], name
        assert len(rows) >= 3, name
        for row in rows:
            assert row.quantity in out, (name, row)
        for prefix in CLAIMS[name]:
            chosen = [r for r in rows if r.quantity.startswith(prefix)]
            assert chosen and all(r.holds for r in chosen), (name, prefix, chosen)
        numeric = [r for r in rows if isinstance(r.paper, float) and isinstance(r.ours, float)]
        assert numeric, name
        for row in numeric:
            if row.quantity in EXACT and name != "fig11_patentsview":
                checked.add(row.quantity)
                assert abs(row.ours - row.paper) <= EXACT[row.quantity], (name, row)
    assert checked == set(EXACT)
    assert [p.name for p in tmp_path.glob("*.png")] == ["paula_fig1.png"]
