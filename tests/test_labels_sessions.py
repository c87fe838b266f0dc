"""Review sessions: cluster review, pair labelling, ranked items, agreement, export/import."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ereval._errors import InputError
from ereval.estimators import as_sample, estimate
from ereval.labels import (
    ClusterReview,
    LabelStore,
    PairLabelling,
    cohen_kappa,
    create_cluster_review,
    create_item_labelling,
    create_pair_labelling,
    export_labels,
    import_labels,
    krippendorff_alpha,
    session_agreement,
)
from ereval.oasis import OASISSampler, read_pool

from ._example_data import IMPORT_ROOT

FIRST = ["john", "jane", "joan", "mary", "mark", "luke", "anna", "paul", "rosa", "ivan"]
LAST = ["smith", "doe", "brown", "white", "green", "black", "gray", "stone", "wood", "hill"]


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """30 records of 10 people (3 each); a prediction that splits and merges some."""
    rows, truth, pred = [], [], []
    for k in range(30):
        person = k // 3
        rid = f"r{k:02d}"
        rows.append(
            {
                "record_id": rid,
                "first_name": FIRST[person],
                "last_name": LAST[person],
                "block": "A" if person < 5 else "B",
            }
        )
        truth.append((rid, f"t{person}"))
        # person 0 is split (r02 alone); persons 1 and 2 are merged
        cluster = "p_r02" if rid == "r02" else "p1" if person in (1, 2) else f"p{person}"
        pred.append((rid, cluster))
    paths = {"data": tmp_path / "records.csv", "truth": tmp_path / "truth.csv"}
    pd.DataFrame(rows).to_csv(paths["data"], index=False)
    pd.DataFrame(truth, columns=["record_id", "cluster_id"]).to_csv(paths["truth"], index=False)
    paths["pred"] = tmp_path / "pred.csv"
    pd.DataFrame(pred, columns=["record_id", "cluster_id"]).to_csv(paths["pred"], index=False)
    paths["db"] = tmp_path / "labels.db"
    return paths


def _truth(world: dict[str, Path]) -> dict[str, str]:
    frame = pd.read_csv(world["truth"])
    return dict(zip(frame.record_id, frame.cluster_id, strict=True))


def _answer(
    review: ClusterReview, record: str, truth: dict[str, str]
) -> tuple[list[str], list[str]]:
    """A_r and B_r of a drawn record, from the truth."""
    pred = set(review.predicted_cluster(record))
    true = {r for r, c in truth.items() if c == truth[record]}
    return sorted(pred - true), sorted(true - pred)


def test_cluster_review_by_hand(world: dict[str, Path]) -> None:
    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(
        store,
        "main",
        data=world["data"],
        prediction=world["pred"],
        n=30,
        replace=False,  # every record drawn once
        seed=3,
        search_columns=["first_name", "last_name"],
        block_col="block",
    )
    # r03 (jane doe) sits in the merged cluster p1 with joan brown's records
    assert review.predicted_cluster("r03") == ["r03", "r04", "r05", "r06", "r07", "r08"]
    # the search finds the record split off john smith's cluster, typos and all
    assert review.search("jonh smiht", limit=3)[0].record_id in {"r00", "r01", "r02"}
    # quality checks (§3.2.2)
    bad = review.check("r00", remove=["r00", "r05"], add=["r01", "zz"])
    assert len(bad.errors) == 4
    with pytest.raises(InputError, match="fails its checks"):
        review.save("r00", reviewer="ana", remove=["r00"])
    warn = review.check("r00", add=["r02", "r27"])  # r27: another block, another name
    assert warn.ok and len(warn.warnings) == 2
    assert "block 'B'" in warn.warnings[0] and "dissimilar" in warn.warnings[1]
    event = review.save("r00", reviewer="ana", add=["r02"], tags=["split"])
    assert event.value["true_cluster"] == ["r00", "r01", "r02"]
    assert event.value["warnings"] == []
    view = review.comparison("r00")
    assert [(r["record_id"], r["status"]) for r in view["records"]] == [
        ("r00", "kept"),
        ("r01", "kept"),
        ("r02", "added"),
    ]
    with pytest.raises(InputError, match="not a drawn record"):
        review.save("zz", reviewer="ana")


def test_draws_are_seeded_and_recorded(world: dict[str, Path]) -> None:
    store = LabelStore(world["db"], create=True)
    a = create_cluster_review(
        store, "a", data=world["data"], prediction=world["pred"], n=20, seed=5
    )
    b = create_cluster_review(
        store, "b", data=world["data"], prediction=world["pred"], n=20, seed=5
    )
    assert a.config["draws"] == b.config["draws"] and len(a.config["draws"]) == 20
    # with replacement some records come twice: one item, all its draws recorded
    items = store.items("a")
    assert sum(len(it.payload["draws"]) for it in items) == 20
    assert [it.key for it in items] == list(dict.fromkeys(a.config["draws"]))
    c = create_cluster_review(
        store, "c", data=world["data"], prediction=world["pred"], n=30, seed=5, replace=False
    )
    assert sorted(c.config["draws"]) == [f"r{k:02d}" for k in range(30)]
    with pytest.raises(InputError, match=r"'id_col': the data file .* has no column 'rid'"):
        create_cluster_review(
            store, "d", data=world["data"], prediction=world["pred"], n=3, id_col="rid"
        )
    with pytest.raises(InputError, match="'design' must be one of record"):
        create_cluster_review(
            store,
            "d",
            data=world["data"],
            prediction=world["pred"],
            n=3,
            design="cluster",  # type: ignore[arg-type]
        )


def test_exported_benchmark_gives_the_estimates_of_the_same_sample(world: dict[str, Path]) -> None:
    truth = _truth(world)
    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(
        store, "main", data=world["data"], prediction=world["pred"], n=12, seed=11
    )
    while (task := review.next(reviewer="ana")) is not None:
        remove, add = _answer(review, task.record_id, truth)
        review.save(task.record_id, reviewer="ana", remove=remove, add=add)
    exported = export_labels(store, "main", kind="benchmark")
    assert exported.design == "record" and exported.warnings == []
    pred = pd.read_csv(world["pred"])
    got = estimate(pred, exported.frame, design="record")
    # the same sample built independently: the true cluster of each draw, in draw order
    draws = [truth[r] for r in review.config["draws"]]
    members = {c: [r for r, t in truth.items() if t == c] for c in set(draws)}
    sample = {r: c for c in members for r in members[c]}
    expected = estimate(pred, as_sample(sample, design="record", draws=draws), design=None)
    for name in ("pairwise_precision", "pairwise_recall", "b3_precision", "b3_recall"):
        assert got[name].value == pytest.approx(expected[name].value, rel=1e-12), name
        assert got[name].std == pytest.approx(expected[name].std, rel=1e-12), name


def test_weighted_draws_export_cluster_probabilities(world: dict[str, Path]) -> None:
    frame = pd.read_csv(world["data"])
    frame["w"] = np.where(frame["block"] == "A", 3.0, 1.0)
    frame.to_csv(world["data"], index=False)
    truth = _truth(world)
    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(
        store, "w", data=world["data"], prediction=world["pred"], n=8, seed=2, weights_col="w"
    )
    for item in store.items("w"):
        remove, add = _answer(review, item.key, truth)
        review.save(item.key, reviewer="ana", remove=remove, add=add)
    exported = export_labels(store, "w", kind="benchmark")
    assert exported.design == "cluster"
    for _, row in exported.frame.iterrows():  # p_c = the sum of its records' weights
        assert row["probability"] == (9.0 if row["record_id"] < "r15" else 3.0)
    with pytest.raises(InputError, match="not the design session 'w' was created with"):
        export_labels(store, "w", kind="benchmark", design="block")


def test_spreadsheet_round_trip_and_import_is_all_or_nothing(
    world: dict[str, Path], tmp_path: Path
) -> None:
    truth = _truth(world)
    store = LabelStore(world["db"], create=True)
    options = {"data": world["data"], "prediction": world["pred"], "n": 10, "seed": 4}
    review = create_cluster_review(store, "a", **options)  # type: ignore[arg-type]
    for item in store.items("a"):
        remove, add = _answer(review, item.key, truth)
        review.save(item.key, reviewer="ana", remove=remove, add=add, tags=["t"])
    sheet = export_labels(store, "a", kind="spreadsheet").frame
    assert set(sheet["action"]) <= {"add", "remove", "none"}
    sheet.to_csv(tmp_path / "sheet.csv", index=False)
    create_cluster_review(store, "b", **options)  # type: ignore[arg-type]
    assert import_labels(
        store, "b", tmp_path / "sheet.csv", kind="spreadsheet", reviewer="bob"
    ) == len(store.items("a"))
    a = export_labels(store, "a", kind="benchmark").frame
    b = export_labels(store, "b", kind="benchmark").frame
    pd.testing.assert_frame_equal(a, b)
    assert {e.source for e in store.events("b")} == {"sheet.csv"}
    # a row for a record that was not drawn: nothing is imported
    create_cluster_review(store, "c", **options)  # type: ignore[arg-type]
    bad = pd.concat(
        [sheet, pd.DataFrame([{"sampled_record": "zz", "record_id": "r01", "action": "add"}])]
    )
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InputError, match="'zz' is not a drawn record"):
        import_labels(store, "c", tmp_path / "bad.csv", kind="spreadsheet")
    assert store.events("c") == []


def _pairs_world(world: dict[str, Path], tmp_path: Path) -> pd.DataFrame:
    """All pairs within persons 0-3 and a few across, scored by a noisy rule."""
    truth = _truth(world)
    ids = sorted(truth)[:12]
    rows = []
    rng = np.random.default_rng(0)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            match = truth[a] == truth[b]
            score = float(np.clip(0.7 * match + 0.3 * rng.random(), 0, 1))
            rows.append(
                {
                    "pair_id": f"{a}-{b}",
                    "record_id_1": a,
                    "record_id_2": b,
                    "score": score,
                    "prediction": int(score > 0.5),
                    "label": int(match),
                }
            )
    frame = pd.DataFrame(rows)
    frame.to_csv(tmp_path / "pairs.csv", index=False)
    return frame


def test_pair_labelling_follows_oasis_and_its_estimate(
    world: dict[str, Path], tmp_path: Path
) -> None:
    frame = _pairs_world(world, tmp_path)
    truth = dict(zip(frame.pair_id, frame.label, strict=True))
    store = LabelStore(world["db"], create=True)
    pairs = create_pair_labelling(
        store,
        "p",
        data=world["data"],
        pairs=tmp_path / "pairs.csv",
        budget=25,
        seed=7,
        transitivity=False,
        show_columns=["first_name", "last_name"],
    )
    asked = []
    while (task := pairs.next(reviewer="ana")) is not None:
        assert task.score is None and task.prediction is None  # blind
        asked.append(task.pair_id)
        pairs.label(task.pair_id, "match" if truth[task.pair_id] else "non-match", reviewer="ana")
    assert pairs.stop_reason == "budget" and len(asked) == 25
    # the same sampler answered by the label column asks the same pairs, estimates the same
    pool = read_pool(tmp_path / "pairs.csv")
    reference = OASISSampler(pool, alpha=0.5, seed=7)
    ref = reference.run(budget=25)
    got = pairs.progress()["estimate"]["f_measure"]
    assert got["value"] == pytest.approx(ref.f_measure.value, rel=1e-12)
    assert got["interval"] == pytest.approx(list(ref.f_measure.interval), rel=1e-12)
    # export for OASIS: a pool that read_pool takes, labels as given
    exported = export_labels(store, "p", kind="pairs").frame
    exported.to_csv(tmp_path / "out.csv", index=False)
    again = read_pool(tmp_path / "out.csv", label_col="label")
    assert again.size == 25 and int(again.labels.sum()) == int(sum(truth[p] for p in asked))
    splink = export_labels(store, "p", kind="splink").frame
    assert list(splink.columns) == ["unique_id_l", "unique_id_r", "clerical_match_score"]
    with pytest.raises(InputError, match=r"session 's' is not|is not in label store"):
        export_labels(store, "s", kind="splink")
    with pytest.raises(InputError, match="exports cluster sessions; session 'p' is a pairs"):
        export_labels(store, "p", kind="benchmark")


def test_transitivity_answers_implied_pairs_without_asking(
    world: dict[str, Path], tmp_path: Path
) -> None:
    frame = _pairs_world(world, tmp_path)
    truth = dict(zip(frame.pair_id, frame.label, strict=True))
    store = LabelStore(world["db"], create=True)
    pairs = create_pair_labelling(
        store, "p", data=world["data"], pairs=tmp_path / "pairs.csv", method="passive", seed=1
    )
    asked = 0
    while (task := pairs.next(reviewer="ana")) is not None:
        asked += 1
        pairs.label(task.pair_id, "match" if truth[task.pair_id] else "non-match", reviewer="ana")
    progress = pairs.progress()
    assert progress["stop_reason"] == "exhausted"
    assert asked + progress["implied"] == len(frame) and progress["implied"] > 0
    # derived labels are recomputed from people's, never stored as labels
    assert all(e.reviewer == "ana" for e in store.events("p"))
    exported = export_labels(store, "p", kind="pairs").frame
    derived = exported[exported.derived == 1]
    assert len(derived) == progress["implied"] and len(exported) == len(frame)
    for pair, label in zip(derived.pair_id, derived.label, strict=True):  # every one is right
        assert label == truth[pair]


def test_overlap_agreement_and_adjudication(world: dict[str, Path]) -> None:
    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(
        store, "m", data=world["data"], prediction=world["pred"], n=5, seed=9, overlap=1.0
    )
    keys = [it.key for it in store.items("m")]
    for who in ("ana", "bob"):
        got = []
        while (task := review.next(reviewer=who)) is not None:
            got.append(task.record_id)
            review.save(task.record_id, reviewer=who)
        assert got == keys  # every item reaches both reviewers
    # bob changes his mind on the first record: a disagreement to adjudicate
    first = keys[0]
    extra = review.predicted_cluster(first)[1:2]
    review.save(first, reviewer="bob", remove=extra)
    res = review.resolution()
    assert res.queue == ([first] if extra else [])
    agreement = session_agreement(store, "m")
    assert agreement.units == len(keys) and agreement.disagreed == (1 if extra else 0)
    if extra:
        review.save(first, reviewer="lead", remove=extra, adjudicate=True)
        assert review.resolution().queue == []
        assert review.resolution().resolved[first]["remove"] == extra


def test_ranked_items_follow_the_paula_plan(tmp_path: Path) -> None:
    from ereval.paula import paula_bounds, paula_plan

    n = 400
    pd.DataFrame({"pair_id": [f"q{k}" for k in range(n)]}).to_csv(tmp_path / "r.csv", index=False)
    store = LabelStore(tmp_path / "l.db", create=True)
    items = create_item_labelling(store, "i", ranked=tmp_path / "r.csv", epsilon=0.2, delta=3)
    plan = paula_plan(n, epsilon=0.2, delta=3)
    assert [it.position for it in store.items("i")] == plan.ranks().tolist()
    while (item := items.next(reviewer="ana")) is not None:
        assert items.bounds() is None
        items.label(item.key, "match" if item.position < 150 else "non-match", reviewer="ana")
    bounds = items.bounds()
    ranks = plan.ranks()
    expected = paula_bounds(plan, ranks, (ranks < 150).astype(int), on_violation="ignore")
    assert np.array_equal(bounds.lower(ranks), expected.lower(ranks))
    frame = export_labels(store, "i", kind="paula").frame
    assert list(frame.columns) == ["rank", "pair_id", "label"] and len(frame) == len(ranks)
    with pytest.raises(InputError, match="'label' must be one of match, non-match, unsure"):
        items.label("q0", "yes", reviewer="ana")
    with pytest.raises(InputError, match="not an item of session 'i'"):
        items.label("q399", "match", reviewer="ana")


def test_kappa_matches_sklearn_and_alpha_krippendorff() -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(0)
    for _ in range(20):
        a = rng.choice(["m", "n", "u"], size=40).tolist()
        b = [x if rng.random() < 0.6 else rng.choice(["m", "n", "u"]) for x in a]
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    # Krippendorff (2011), reliability data of 4 observers on 12 units: alpha = 0.743
    data = [[1, 1, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
            [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [5, 5, 5], [1, 1], [3]]  # fmt: skip
    assert round(krippendorff_alpha(data), 3) == 0.743
    # two raters, no missing values: alpha = 1 - (n-1) D_o / D_e by hand
    # units (a,a), (a,b), (b,b): o_aa = 2, o_ab = o_ba = 1, o_bb = 2; n_a = n_b = 3, n = 6
    assert krippendorff_alpha([["a", "a"], ["a", "b"], ["b", "b"]]) == pytest.approx(
        1 - 5 * 2 / (2 * 3 * 3)
    )
    assert np.isnan(krippendorff_alpha([["a", "a"]]))


def test_blind_sessions_reveal_scores_only_when_configured(
    world: dict[str, Path], tmp_path: Path
) -> None:
    _pairs_world(world, tmp_path)
    store = LabelStore(world["db"], create=True)
    common = {"data": world["data"], "pairs": tmp_path / "pairs.csv", "seed": 1}
    blind = create_pair_labelling(store, "blind", **common)  # type: ignore[arg-type]
    task = blind.next(reviewer="ana")
    assert task is not None and task.score is None and task.prediction is None
    with pytest.raises(InputError, match="does not show scores"):
        blind.reveal(task.pair_id)
    after = create_pair_labelling(store, "after", reveal=True, **common)  # type: ignore[arg-type]
    task = after.next(reviewer="ana")
    assert task is not None and task.score is None
    score, prediction = after.reveal(task.pair_id)
    assert 0.0 <= score <= 1.0 and prediction in (0, 1)
    shown = create_pair_labelling(store, "shown", blind=False, **common)  # type: ignore[arg-type]
    task = shown.next(reviewer="ana")
    assert task is not None and task.score == score and task.prediction == prediction


def test_pair_and_item_labels_import_back(world: dict[str, Path], tmp_path: Path) -> None:
    frame = _pairs_world(world, tmp_path)
    truth = dict(zip(frame.pair_id, frame.label, strict=True))
    store = LabelStore(world["db"], create=True)
    common = {"data": world["data"], "pairs": tmp_path / "pairs.csv", "seed": 3, "budget": 10}
    first = create_pair_labelling(store, "a", **common)  # type: ignore[arg-type]
    while (task := first.next(reviewer="ana")) is not None:
        first.label(task.pair_id, "match" if truth[task.pair_id] else "non-match", reviewer="ana")
    for kind in ("pairs", "splink"):
        export_labels(store, "a", kind=kind).frame.to_csv(tmp_path / f"{kind}.csv", index=False)  # type: ignore[arg-type]
        again = create_pair_labelling(store, kind, **common)  # type: ignore[arg-type]
        import_labels(store, kind, tmp_path / f"{kind}.csv", kind=kind)  # type: ignore[arg-type]
        assert again.resolution().resolved == first.resolution().resolved
        # the imported labels answer the sampler: it needs nobody until the budget
        assert again.next(reviewer="bob") is None and again.stop_reason == "budget"
    pd.DataFrame({"pair_id": [f"q{k}" for k in range(60)]}).to_csv(tmp_path / "r.csv", index=False)
    items = create_item_labelling(store, "i", ranked=tmp_path / "r.csv", epsilon=0.5, delta=2)
    for it in store.items("i"):
        items.label(it.key, "match" if it.position % 3 else "non-match", reviewer="ana")
    export_labels(store, "i", kind="paula").frame.to_csv(tmp_path / "p.csv", index=False)
    back = create_item_labelling(store, "j", ranked=tmp_path / "r.csv", epsilon=0.5, delta=2)
    import_labels(store, "j", tmp_path / "p.csv", kind="paula")
    assert back.labelled_ranks() == items.labelled_ranks()


_REVIEWER = """
import sys
from ereval.labels import LabelStore, open_session
store = LabelStore(sys.argv[1])
review = open_session(store, "m")
while (task := review.next(reviewer=sys.argv[2])) is not None:
    # each reviewer removes nothing, except bob on every third drawn record
    remove = task.predicted[1:2] if sys.argv[2] == "bob" and task.position % 3 == 0 else []
    review.save(task.record_id, reviewer=sys.argv[2], remove=remove)
"""


def test_two_reviewer_processes_share_a_review_with_overlap(world: dict[str, Path]) -> None:
    import os
    import subprocess
    import sys

    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(
        store, "m", data=world["data"], prediction=world["pred"], n=20, seed=8, overlap=0.4
    )
    env = {**os.environ, "PYTHONPATH": str(IMPORT_ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _REVIEWER, str(world["db"]), who],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("ana", "bob")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    need = review.required()
    labels = store.labels("m")
    assert set(labels) == set(need)  # nothing lost
    for item, who in labels.items():  # double items reached both, the others exactly one
        assert len(who) == need[item], (item, who)
    assert len(store.events("m")) == sum(need.values())  # nothing duplicated
    doubles = [k for k, v in need.items() if v == 2]
    assert doubles and session_agreement(store, "m").units == len(doubles)
    disputed = [
        k for k in doubles if len({tuple(v["true_cluster"]) for v in labels[k].values()}) > 1
    ]
    assert disputed and sorted(review.resolution().queue) == sorted(disputed)


_PAIR_WORKER = """
import sys
import pandas as pd
from ereval.labels import LabelStore, open_session
truth = pd.read_csv(sys.argv[2], dtype={"pair_id": str})
label = dict(zip(truth.pair_id, truth.label))
store = LabelStore(sys.argv[1])
pairs = open_session(store, "p")
while (task := pairs.next(reviewer="ana")) is not None:
    pairs.label(task.pair_id, "match" if label[task.pair_id] else "non-match", reviewer="ana")
    print(task.pair_id, flush=True)
"""


def test_pair_session_killed_resumes_with_the_next_pair(
    world: dict[str, Path], tmp_path: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    frame = _pairs_world(world, tmp_path)
    store = LabelStore(world["db"], create=True)
    create_pair_labelling(
        store, "p", data=world["data"], pairs=tmp_path / "pairs.csv", seed=4, transitivity=False
    )
    env = {**os.environ, "PYTHONPATH": str(IMPORT_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _PAIR_WORKER, str(world["db"]), str(tmp_path / "pairs.csv")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    acked = [proc.stdout.readline().strip() for _ in range(12)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    labelled = store.labels("p")
    assert set(acked) <= set(labelled)
    # an uninterrupted sampler with the same seed asks the labelled pairs first, then the next
    truth = dict(zip(frame.pair_id, frame.label, strict=True))
    reference = OASISSampler(read_pool(tmp_path / "pairs.csv"), alpha=0.5, seed=4)
    order = []
    while len(order) <= len(labelled):
        query = reference.ask()
        assert query is not None
        order.append(str(query.pair_id))
        reference.tell(int(truth[str(query.pair_id)]), index=query.index)
    assert set(order[:-1]) == set(labelled)
    # the session object is rebuilt from the store alone
    task = PairLabelling(LabelStore(world["db"]), "p").next(reviewer="ana")
    assert task is not None and task.pair_id == order[-1]


def test_pair_labelling_stops_when_the_interval_is_narrow(
    world: dict[str, Path], tmp_path: Path
) -> None:
    frame = _pairs_world(world, tmp_path)
    truth = dict(zip(frame.pair_id, frame.label, strict=True))
    store = LabelStore(world["db"], create=True)
    pairs = create_pair_labelling(
        store, "p", data=world["data"], pairs=tmp_path / "pairs.csv", seed=2,
        target_ci_width=0.95, min_labels=5, transitivity=False,
    )  # fmt: skip
    while (task := pairs.next(reviewer="ana")) is not None:
        pairs.label(task.pair_id, "match" if truth[task.pair_id] else "non-match", reviewer="ana")
    progress = pairs.progress()
    assert progress["stop_reason"] == "ci_width" and progress["done"]
    f = progress["estimate"]["f_measure"]
    assert f["interval"][1] - f["interval"][0] <= 0.95 and progress["labels_used"] >= 5


def test_ranked_items_report_the_labelled_prefix_live(tmp_path: Path) -> None:
    pd.DataFrame({"pair_id": [f"q{k}" for k in range(200)]}).to_csv(tmp_path / "r.csv", index=False)
    store = LabelStore(tmp_path / "l.db", create=True)
    items = create_item_labelling(store, "i", ranked=tmp_path / "r.csv", epsilon=0.5, delta=2)
    for rank, value in [(1, "match"), (2, "non-match"), (4, "match")]:
        items.label(f"q{rank - 1}", value, reviewer="ana")
    # ranks 1 and 2 are labelled (rank 3 is not): precision at rank 2 is 1/2 exactly
    assert items.progress()["prefix"] == {"rank": 2, "precision": 0.5}
