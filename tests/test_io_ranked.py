"""One reader of ranked lists (ereval.io.read_ranked) behind every caller.

The PAULA plan and bounds commands, the report's ranked-list labels and the
ranked-item labelling sessions all read a ranked list through it. On a valid
list each caller gets the items in the order worked out here by hand (file
order, or decreasing score with ties in file order); on a bad list each gives
one clear error naming what is wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError
from ereval.cli import app
from ereval.io import ranks_of, read_ranked
from ereval.labels import LabelStore, create_item_labelling
from ereval.paula import labels_by_rank, paula_plan

runner = CliRunner()

# 30 items; ids with leading zeros stay text; scores with ties.
N = 30
IDS = [f"0{k}" if k % 3 == 0 else f"i{k}" for k in range(N)]
SCORES = [round(((k * 7) % 11) / 10, 1) for k in range(N)]


def _by_score() -> list[str]:
    """The ranking by hand: decreasing score, ties in file order."""
    keyed = sorted(range(N), key=lambda k: (-SCORES[k], k))
    return [IDS[k] for k in keyed]


@pytest.fixture
def ranked(tmp_path: Path) -> Path:
    path = tmp_path / "ranked.csv"
    pd.DataFrame({"item_id": IDS, "score": SCORES}).to_csv(path, index=False)
    return path


def test_file_order_and_score_order_by_hand(ranked: Path) -> None:
    assert read_ranked(ranked, id_col="item_id").tolist() == IDS
    by_score = read_ranked(ranked, id_col="item_id", score_col="score").tolist()
    assert by_score == _by_score()
    # the top score 1.0 is where 7k = 10 (mod 11), i.e. k = 3, 14, 25, in file order
    assert by_score[:3] == ["03", "i14", "i25"]
    assert "03" in by_score and "3" not in by_score  # ids read as written


def test_ranks_of_finds_each_item(ranked: Path) -> None:
    order = read_ranked(ranked, id_col="item_id", score_col="score")
    want = [_by_score().index(i) + 1 for i in ("03", "i7", "i1")]
    assert ranks_of(order, ["03", "i7", "i1"]).tolist() == want
    with pytest.raises(InputError, match=r"'labels': 1 item id\(s\) are not in the ranked list"):
        ranks_of(order, ["3"])


def test_paula_plan_names_the_items_of_the_planned_ranks(ranked: Path, tmp_path: Path) -> None:
    out = tmp_path / "todo.csv"
    args = ["paula", "plan", "--ranked", str(ranked), "--score-col", "score"]
    res = runner.invoke(app, [*args, "--epsilon", "0.5", "--delta", "2", "-o", str(out)])
    assert res.exit_code == 0, res.output
    todo = pd.read_csv(out, dtype={"item_id": str})
    plan = paula_plan(N, epsilon=0.5, delta=2)
    assert todo["rank"].tolist() == plan.ranks().tolist()
    assert todo["item_id"].tolist() == [_by_score()[r - 1] for r in plan.ranks()]


def _labels(tmp_path: Path, *, by: str) -> Path:
    plan = paula_plan(N, epsilon=0.5, delta=2)
    order = _by_score()
    ranks = plan.ranks()
    frame = pd.DataFrame({"label": [int(r % 4 != 0) for r in ranks]})
    if by == "rank":
        frame.insert(0, "rank", ranks)
    else:
        frame.insert(0, "item_id", [order[r - 1] for r in ranks])
    path = tmp_path / f"labels_{by}.csv"
    frame.to_csv(path, index=False)
    return path


def test_labels_by_id_and_by_rank_agree(ranked: Path, tmp_path: Path) -> None:
    by_id = labels_by_rank(_labels(tmp_path, by="id"), ranked, score_col="score")
    by_rank = labels_by_rank(_labels(tmp_path, by="rank"), ranked)
    assert by_id[0] == by_rank[0] == N
    np.testing.assert_array_equal(by_id[1], by_rank[1])
    np.testing.assert_array_equal(by_id[2], by_rank[2])
    ranks = paula_plan(N, epsilon=0.5, delta=2).ranks()
    assert by_rank[1].tolist() == ranks.tolist()
    assert by_rank[2].tolist() == [int(r % 4 != 0) for r in ranks]


def test_paula_bounds_reads_labels_by_id_as_by_rank(ranked: Path, tmp_path: Path) -> None:
    common = ["--epsilon", "0.5", "--delta", "2", "-f", "json"]
    by_id = [
        "paula",
        "bounds",
        str(ranked),
        str(_labels(tmp_path, by="id")),
        "--score-col",
        "score",
    ]
    by_rank = ["paula", "bounds", str(ranked), str(_labels(tmp_path, by="rank"))]
    a = runner.invoke(app, [*by_id, *common])
    b = runner.invoke(app, [*by_rank, *common])
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    assert json.loads(a.stdout) == json.loads(b.stdout)


def test_item_sessions_hold_the_planned_items_in_rank_order(ranked: Path, tmp_path: Path) -> None:
    with LabelStore(tmp_path / "labels.db", create=True) as store:
        create_item_labelling(
            store, "ranked", ranked=ranked, item_col="item_id", score_col="score",
            epsilon=0.5, delta=2,
        )  # fmt: skip
        items = store.items("ranked")
    ranks = paula_plan(N, epsilon=0.5, delta=2).ranks().tolist()
    assert [i.payload["rank"] for i in items] == ranks
    assert [i.key for i in items] == [_by_score()[r - 1] for r in ranks]


BAD = [
    (pd.DataFrame({"item_id": ["a", "b", "a"], "score": [1, 2, 3]}), r"must be unique; 1 repeat"),
    (pd.DataFrame({"item_id": ["a", None, "c"], "score": [1, 2, 3]}), r"has 1 missing id"),
    (pd.DataFrame({"item_id": ["a", "b", "c"], "score": [1, None, 3]}), r"finite scores"),
    (pd.DataFrame({"item_id": ["a", "b", "c"], "score": ["x", "y", "z"]}), r"numeric scores"),
    (pd.DataFrame({"id": ["a", "b", "c"], "score": [1, 2, 3]}), r"no column 'item_id'"),
]


@pytest.mark.parametrize(("frame", "message"), BAD)
def test_bad_lists_are_one_clear_error_for_every_caller(
    frame: pd.DataFrame, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InputError, match=message):
        read_ranked(path, id_col="item_id", score_col="score")
    with (
        LabelStore(tmp_path / "labels.db", create=True) as store,
        pytest.raises(InputError, match=message),
    ):
        create_item_labelling(store, "r", ranked=path, item_col="item_id", score_col="score")
    labels = tmp_path / "labels.csv"
    pd.DataFrame({"item_id": ["c"], "label": [1]}).to_csv(labels, index=False)
    with pytest.raises(InputError, match=message):
        labels_by_rank(labels, path, score_col="score")
    for args in (
        ["paula", "plan", "--ranked", str(path), "--score-col", "score"],
        ["paula", "bounds", str(path), str(labels), "--score-col", "score"],
    ):
        res = runner.invoke(app, [*args, "--epsilon", "0.5", "--delta", "2"])
        assert res.exit_code == 2, res.output
        assert "Traceback" not in res.output
        assert len(res.output.strip().splitlines()) <= 3
        text = " ".join(res.output.split())
        assert re.search(message, text), text


def test_the_cli_names_its_flags(tmp_path: Path) -> None:
    path = tmp_path / "ranked.csv"
    pd.DataFrame({"item_id": ["a", "b"]}).to_csv(path, index=False)
    args = ["paula", "plan", "--ranked", str(path), "--id-col", "nope", "--epsilon", "0.5"]
    res = runner.invoke(app, [*args, "--delta", "2"])
    assert res.exit_code == 2
    assert "'--id-col': no column 'nope'" in " ".join(res.output.split())
