"""A model-based test of the label store and its three kinds of session.

Hypothesis drives a store holding a cluster review, a pair session and a ranked-
item session through random sequences of what reviewers do -- label, undo,
redo, import (good files and files labelling an item two ways), export,
adjudicate (and try to adjudicate their own dispute), answer a stale page, and
restart -- with two reviewers and an adjudicator. A plain Python model keeps
each person's undo and redo stacks; after every step the store's current labels
and adjudications equal the model's, the pairs export holds exactly the human
labels the sampler used and the labels they imply by transitivity (never one
derived from an undone label), and the other exports hold the resolved labels.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ereval._errors import InputError
from ereval.labels import (
    ClusterReview,
    ItemLabelling,
    LabelStore,
    PairLabelling,
    StaleAnswer,
    create_cluster_review,
    create_item_labelling,
    create_pair_labelling,
    export_labels,
    import_labels,
)

REVIEWERS = ("ana", "bob")
PEOPLE = ["p0", "p0", "p1", "p1", "p2", "p3", "p3", "p4"]  # the person of each record
PRED = ["c0", "c0", "c0", "c1", "c2", "c3", "c4", "c4"]  # a prediction merging and splitting
PAIR_VALUES = ("match", "non-match", "unsure")

#: steps per sequence and sequences per run (the suite's budget: a few seconds)
STEPS, EXAMPLES = 30, 12


def _write_world(folder: Path) -> dict[str, Path]:
    records = [f"r{k}" for k in range(len(PEOPLE))]
    paths = {
        "data": folder / "records.csv",
        "pred": folder / "pred.csv",
        "pairs": folder / "pairs.csv",
        "ranked": folder / "ranked.csv",
    }
    pd.DataFrame({"record_id": records, "name": [f"n{p}" for p in PEOPLE]}).to_csv(
        paths["data"], index=False
    )
    pd.DataFrame({"record_id": records, "cluster_id": PRED}).to_csv(paths["pred"], index=False)
    quad = records[:4]
    rows = [
        {"pair_id": f"{a}-{b}", "record_id_1": a, "record_id_2": b, "score": 0.9 - 0.1 * k,
         "prediction": int(k % 2 == 0)}
        for k, (a, b) in enumerate(itertools.combinations(quad, 2))
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(paths["pairs"], index=False)
    pd.DataFrame({"pair_id": [f"q{k:02d}" for k in range(40)]}).to_csv(paths["ranked"], index=False)
    return paths


@dataclass
class Stream:
    """A person's events in force (``done``) and undone, as the model keeps them."""

    done: list[tuple[int, str, str, Any]] = field(
        default_factory=list
    )  # (order, action, item, value)
    undone: list[tuple[int, str, str, Any]] = field(default_factory=list)


class LabelModel(RuleBasedStateMachine):
    """The store and its sessions against a plain model of who said what."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="ereval-model-"))
        self.world = _write_world(self.folder)
        self.streams: dict[tuple[str, str], Stream] = {}
        self.clock = 0
        self.store: LabelStore | None = None

    # ----------------------------------------------------------------- set-up
    @initialize()
    def create(self) -> None:
        w = self.world
        self.db = self.folder / "labels.db"
        store = LabelStore(self.db, create=True)
        create_cluster_review(store, "c", data=w["data"], prediction=w["pred"], n=4,
                              replace=False, overlap=0.5, seed=3)  # fmt: skip
        create_pair_labelling(store, "p", data=w["data"], pairs=w["pairs"], budget=6, seed=2)
        create_item_labelling(store, "i", ranked=w["ranked"], epsilon=0.5, delta=2, overlap=0.5,
                              seed=1)  # fmt: skip
        self.store = store
        self._open()

    def _open(self) -> None:
        assert self.store is not None
        self.cluster = ClusterReview(self.store, "c")
        self.pairs = PairLabelling(self.store, "p")
        self.items = ItemLabelling(self.store, "i")
        self.keys = {
            "c": [it.key for it in self.store.items("c")],
            "p": sorted(self.pairs.ends),
            "i": [it.key for it in self.store.items("i")],
        }

    def teardown(self) -> None:
        if self.store is not None:
            self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # ------------------------------------------------------------------ model
    def _stream(self, session: str, who: str) -> Stream:
        return self.streams.setdefault((session, who), Stream())

    def _do(self, session: str, who: str, action: str, item: str, value: Any) -> None:
        self.clock += 1
        stream = self._stream(session, who)
        stream.done.append((self.clock, action, item, value))
        stream.undone.clear()

    def model_labels(self, session: str) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for (s, who), stream in self.streams.items():
            if s != session:
                continue
            for _, action, item, value in stream.done:
                if action == "label":
                    out.setdefault(item, {})[who] = value
        return out

    def model_adjudications(self, session: str) -> dict[str, tuple[str, Any]]:
        latest: dict[str, tuple[int, str, Any]] = {}
        for (s, who), stream in self.streams.items():
            if s != session:
                continue
            for order, action, item, value in stream.done:
                if action == "adjudicate" and (item not in latest or order > latest[item][0]):
                    latest[item] = (order, who, value)
        return {k: (who, v) for k, (_, who, v) in latest.items()}

    def model_resolved(self, session: str) -> dict[str, Any]:
        required = {"c": self.cluster.required, "i": self.items.required}.get(session)
        need = required() if required is not None else {}
        adjudicated = self.model_adjudications(session)
        resolved = {}
        for item, given in self.model_labels(session).items():
            if item in adjudicated:
                resolved[item] = adjudicated[item][1]
                continue
            values = {str(v) for v in given.values()}
            if len(values) > 1 or "unsure" in values or len(given) < need.get(item, 1):
                continue
            resolved[item] = next(iter(given.values()))
        for item, (_, value) in adjudicated.items():
            resolved.setdefault(item, value)
        return resolved

    def _value(self, session: str, value: Any) -> Any:
        """What the model compares: a cluster answer by its true cluster."""
        return sorted(value["true_cluster"]) if session == "c" else value

    # ------------------------------------------------------------------ rules
    @rule(who=st.sampled_from(REVIEWERS), k=st.integers(0, 3), change=st.integers(0, 9))
    def review(self, who: str, k: int, change: int) -> None:
        item = self.keys["c"][k % len(self.keys["c"])]
        predicted = self.cluster.predicted_cluster(item)
        others = [r for r in predicted if r != item]
        outside = [r for r in self.cluster.records.ids if r not in predicted]
        remove = [others[change % len(others)]] if others and change % 3 == 1 else []
        add = [outside[change % len(outside)]] if change % 3 == 2 else []
        self.cluster.save(item, reviewer=who, remove=remove, add=add)
        self._do("c", who, "label", item, sorted((set(predicted) - set(remove)) | set(add)))

    @rule(who=st.sampled_from(REVIEWERS), k=st.integers(0, 5), value=st.sampled_from(PAIR_VALUES))
    def label_pair(self, who: str, k: int, value: str) -> None:
        pair = self.keys["p"][k]
        self.pairs.label(pair, value, reviewer=who)
        self._do("p", who, "label", pair, value)

    @rule(who=st.sampled_from(REVIEWERS), k=st.integers(0, 20), value=st.sampled_from(PAIR_VALUES))
    def label_item(self, who: str, k: int, value: str) -> None:
        item = self.keys["i"][k % len(self.keys["i"])]
        self.items.label(item, value, reviewer=who)
        self._do("i", who, "label", item, value)

    @rule(session=st.sampled_from("cpi"), who=st.sampled_from((*REVIEWERS, "lead")),
          redo=st.booleans())  # fmt: skip
    def step(self, session: str, who: str, redo: bool) -> None:
        assert self.store is not None
        stream = self._stream(session, who)
        source, target = (stream.undone, stream.done) if redo else (stream.done, stream.undone)
        had = bool(source)
        event = (self.store.redo if redo else self.store.undo)(session, reviewer=who)
        if had:
            target.append(source.pop())
        assert (event is None) == (not had)  # nothing to step through writes nothing

    @rule(session=st.sampled_from("pi"), who=st.sampled_from(REVIEWERS),
          picks=st.lists(st.tuples(st.integers(0, 20), st.booleans()), min_size=1, max_size=4),
          conflict=st.booleans())  # fmt: skip
    def import_file(
        self, session: str, who: str, picks: list[tuple[int, bool]], conflict: bool
    ) -> None:
        assert self.store is not None
        keys = self.keys[session]
        rows = [(keys[k % len(keys)], int(v)) for k, v in picks]
        if conflict:
            rows.append((rows[0][0], 1 - rows[0][1]))
        path = self.folder / "import.csv"
        pd.DataFrame(rows, columns=["pair_id", "label"]).to_csv(path, index=False)
        first: dict[str, int] = {}
        clash = False
        for key, value in rows:
            clash |= first.setdefault(key, value) != value
        before = len(self.store.events(session))
        kind = "pairs" if session == "p" else "paula"
        if clash:
            with pytest.raises(InputError, match="labelled two ways"):
                import_labels(self.store, session, path, kind=kind, reviewer=who)
            assert len(self.store.events(session)) == before  # nothing written
            return
        import_labels(self.store, session, path, kind=kind, reviewer=who)
        for key, value in first.items():
            self._do(session, who, "label", key, "match" if value else "non-match")

    @rule(session=st.sampled_from("cpi"), k=st.integers(0, 20),
          who=st.sampled_from((*REVIEWERS, "lead")), value=st.booleans())  # fmt: skip
    def adjudicate(self, session: str, k: int, who: str, value: bool) -> None:
        keys = self.keys[session]
        item = keys[k % len(keys)]
        party = who in self.model_labels(session).get(item, {})
        if session == "c":
            predicted = self.cluster.predicted_cluster(item)
            remove = [predicted[-1]] if value and len(predicted) > 1 else []
            answer: Any = sorted(set(predicted) - set(remove))

            def act() -> Any:
                return self.cluster.save(item, reviewer=who, remove=remove, adjudicate=True)
        else:
            answer = "match" if value else "non-match"
            target = self.pairs if session == "p" else self.items

            def act() -> Any:
                return target.label(item, answer, reviewer=who, adjudicate=True)

        if party:
            with pytest.raises(InputError, match="part of the dispute"):
                act()
            return
        act()
        self._do(session, who, "adjudicate", item, answer)

    @rule(session=st.sampled_from("pi"), who=st.sampled_from(REVIEWERS), k=st.integers(0, 20),
          first=st.sampled_from(PAIR_VALUES), second=st.sampled_from(PAIR_VALUES))  # fmt: skip
    def stale_page(self, session: str, who: str, k: int, first: str, second: str) -> None:
        assert self.store is not None
        keys = self.keys[session]
        item = keys[k % len(keys)]
        target = self.pairs if session == "p" else self.items
        target.label(item, first, reviewer=who)  # the item exists from now on
        self._do(session, who, "label", item, first)
        seen = self.store.item_version(session, item, reviewer=who)
        target.label(item, first, reviewer=who, expected_version=seen)  # tab A answers
        self._do(session, who, "label", item, first)
        before = len(self.store.events(session))
        with pytest.raises(StaleAnswer):  # tab B, opened at the same time
            target.label(item, second, reviewer=who, expected_version=seen)
        assert len(self.store.events(session)) == before

    @rule()
    def restart(self) -> None:
        assert self.store is not None
        self.store.close()
        self.store = LabelStore(self.db)
        self._open()

    @rule()
    def export(self) -> None:
        """The exports hold the resolved labels, and the pairs export what the sampler used."""
        assert self.store is not None
        resolved = self.model_resolved("p")
        human = {k: int(v == "match") for k, v in resolved.items() if v in ("match", "non-match")}
        frame = export_labels(self.store, "p", kind="pairs").frame
        closure = _Closure(self.pairs.ends, human)
        for pair, label, derived in zip(frame.pair_id, frame.label, frame.derived, strict=True):
            if derived:
                assert pair not in human and closure.implied(pair) == label
            else:
                assert human[pair] == label
        assert list(frame.asked) == list(range(1, len(frame) + 1))
        paula = export_labels(self.store, "i", kind="paula").frame
        items = self.model_resolved("i")
        expected = {k: int(v == "match") for k, v in items.items() if v in ("match", "non-match")}
        assert dict(zip(paula["pair_id"], paula["label"], strict=True)) == expected
        sheet = export_labels(self.store, "c", kind="spreadsheet").frame
        assert set(sheet.sampled_record) == set(self.model_resolved("c"))

    # -------------------------------------------------------------- invariant
    @invariant()
    def store_equals_model(self) -> None:
        if self.store is None:
            return
        for session in "cpi":
            got = {
                item: {who: self._value(session, v) for who, v in given.items()}
                for item, given in self.store.labels(session).items()
            }
            assert got == self.model_labels(session), session
            adjudicated = {
                item: (who, self._value(session, v))
                for item, (who, v) in self.store.adjudications(session).items()
            }
            assert adjudicated == self.model_adjudications(session), session

    @precondition(lambda self: self.store is not None)
    @invariant()
    def nothing_derived_is_stored(self) -> None:
        assert self.store is not None
        assert {e.reviewer for e in self.store.events()} <= {*REVIEWERS, "lead"}


class _Closure:
    """Pair labels implied by matches (union-find) and the non-matches between groups."""

    def __init__(self, ends: dict[str, tuple[str, str]], known: dict[str, int]) -> None:
        self.ends = ends
        self.parent: dict[str, str] = {}
        for pair, label in known.items():
            if label:
                a, b = (self.find(x) for x in ends[pair])
                if a != b:
                    self.parent[a] = b
        self.apart = {frozenset(self.find(x) for x in ends[p]) for p, v in known.items() if not v}

    def find(self, x: str) -> str:
        while self.parent.get(x, x) != x:
            x = self.parent[x]
        return x

    def implied(self, pair: str) -> int | None:
        a, b = (self.find(x) for x in self.ends[pair])
        if a == b:
            return 1
        return 0 if frozenset((a, b)) in self.apart else None


TestLabelModel = LabelModel.TestCase
TestLabelModel.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
