"""Release comparison: categories by hand and by brute force, records, agreement, bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ereval import InputTypeError, RecordMismatchError, evaluate
from ereval._compare import CATEGORIES, compare


def test_every_category_by_hand() -> None:
    old = {"a": "A", "b": "A", "c": "B", "d": "B", "e": "C", "f": "D", "g": "D", "h": "E"}
    # A kept (a, b together, alone); B split (c, d apart); C merged into D's new cluster;
    # D split-and-merged (f with e; g alone); E removed (h gone); i added
    new = {"a": 1, "b": 1, "c": 2, "d": 3, "e": 4, "f": 4, "g": 5, "i": 6}
    c = compare(old, new)
    frame = c.clusters().set_index("old_cluster")
    assert frame["category"].to_dict() == {
        "A": "kept",
        "B": "split",
        "C": "merged",
        "D": "split_and_merged",
        "E": "removed",
    }
    assert c.counts == {"kept": 1, "split": 1, "merged": 1, "split_and_merged": 1, "removed": 1}
    assert (c.n_old, c.n_new, c.n_common, c.n_added, c.n_removed) == (8, 8, 7, 1, 1)
    assert c.n_new_only_clusters == 1
    rec = c.records().set_index("record_id")
    assert rec.loc["h", "category"] == "removed" and pd.isna(rec.loc["h", "new_cluster"])
    assert rec.loc["i", "category"] == "added" and pd.isna(rec.loc["i", "old_cluster"])
    assert rec.loc["f", "old_cluster"] == "D" and rec.loc["f", "new_cluster"] == 4
    changed = c.records(changed_only=True)
    assert set(changed["record_id"]) == set("cdefghi")


def _brute(old: dict[int, int], new: dict[int, int]) -> dict[int, str]:
    common = set(old) & set(new)
    out = {}
    for cluster in set(old.values()):
        members = [r for r in common if old[r] == cluster]
        if not members:
            out[cluster] = "removed"
            continue
        targets = {new[r] for r in members}
        merged = any(old[r] != cluster for r in common if new[r] in targets)
        split = len(targets) > 1
        out[cluster] = ["kept", "split", "merged", "split_and_merged"][split + 2 * merged]
    return out


@pytest.mark.parametrize("seed", range(5))
def test_categories_match_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    old = {r: int(c) for r, c in enumerate(rng.integers(0, 120, n))}
    new = {r + 30: int(c) for r, c in enumerate(rng.integers(0, 130, n)) if rng.random() < 0.9}
    for r in list(new)[:150]:  # keep many clusters intact
        if r in old:
            new[r] = old[r] + 1000
    c = compare(old, new)
    got = dict(zip(c.clusters()["old_cluster"], c.clusters()["category"], strict=True))
    assert got == _brute(old, new)
    assert sum(c.counts.values()) == len(set(old.values()))
    common = sorted(set(old) & set(new))
    exact = evaluate(
        {r: old[r] for r in common}, {r: new[r] for r in common}, metrics="pairwise,cluster,b3"
    )
    assert c.agreement == pytest.approx(exact, rel=1e-12)
    rec = c.records()
    assert len(rec) == len(set(old) | set(new))
    assert set(rec["category"]) <= {*CATEGORIES, "added"}


def test_identical_releases_keep_everything() -> None:
    old = [[1, 2, 3], [4], [5, 6]]
    c = compare(old, [[6, 5], [4], [3, 2, 1]])
    assert c.counts["kept"] == 3 and c.agreement["pairwise_f1"] == 1.0
    assert c.records(changed_only=True).empty


def test_ids_read_exactly(tmp_path: Path) -> None:
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("record_id,cluster_id\n01,x\n1,x\n2,y\n")
    b.write_text("record_id,cluster_id\n1,p\n2,p\n3,q\n")
    c = compare(a, b)
    # '01' is not '1': one record removed, one added
    assert (c.n_common, c.n_removed, c.n_added) == (2, 1, 1)
    assert c.counts == {"kept": 0, "split": 0, "merged": 2, "split_and_merged": 0, "removed": 0}


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputTypeError, match="'old'"):
        compare({1: 1, 2: 1}, {"1": 1, "2": 1})
    with pytest.raises(RecordMismatchError, match="no record in common"):
        compare({1: 1}, {2: 1})
