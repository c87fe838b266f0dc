"""The labelling app's live estimate of a pair session: its intervals and warnings come from
the OASIS samplers, and the page shows the warnings the CLI prints."""

from __future__ import annotations

import csv
import html
import itertools
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from ereval.labels import LabelStore, PairLabelling, create_pair_labelling

from ._app_support import PEOPLE, csrf_of, make_multi, start, version_of

pytest.importorskip("fastapi", reason="the app extra is not installed")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from ereval.app import SecurityConfig, create_app


def _pairs_file(folder: Path) -> Path:
    path = folder / "pairs.csv"
    pred = {r[0]: r[5] for r in PEOPLE}
    last = {r[0]: r[2] for r in PEOPLE}
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["pair_id", "record_id_1", "record_id_2", "score", "prediction"])
        for k, (a, b) in enumerate(itertools.combinations(sorted(pred), 2)):
            score = 0.9 if pred[a] == pred[b] else (0.5 if last[a] == last[b] else 0.1)
            w.writerow([f"p{k:02d}", a, b, score, int(pred[a] == pred[b])])
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LabelStore]:
    db = make_multi(tmp_path, n=4, overlap=0.0)
    with LabelStore(db) as s:
        create_pair_labelling(
            s,
            "pairs",
            data=tmp_path / "records.csv",
            pairs=_pairs_file(tmp_path),
            budget=6,
            seed=1,
            show_columns=["first_name", "last_name"],
        )
        yield s


def test_the_live_estimate_is_the_samplers_with_its_warnings(store: LabelStore) -> None:
    app = create_app(store, reviewer="ana", security=SecurityConfig(host="127.0.0.1", token=None))
    c = TestClient(app, base_url="http://127.0.0.1")
    res = start(c, "pairs")
    labels = 0
    for k in range(6):
        found = re.search(r'name="item" value="([^"]+)"', res.text)
        if found is None:
            break
        value = "match" if k % 2 == 0 else "non-match"
        labels += 1
        res = c.post(
            "/s/pairs/pairs/label",
            data={
                "item": found.group(1),
                "value": value,
                "version": version_of(res.text),
                "csrf": csrf_of(res.text),
            },
        )
    assert labels >= 2
    page = html.unescape(res.text)
    session = PairLabelling(store, "pairs")
    session.progress()  # replays the labels into the session's sampler, as the app does
    est = session.estimate()
    assert est.method == "oasis" and est.labels_used < 30
    shown = re.search(r'<ul class="warnings" id="estimate-warnings">(.*?)</ul>', page, re.S)
    assert shown is not None, "the live estimate's warnings are not on the page"
    items = re.findall(r"<li>(.*?)</li>", shown.group(1), re.S)

    # the sentences of the samplers' warnings (the counts may differ by a label implied
    # by transitivity after the page's last label)
    def shape(ws: list[str]) -> list[str]:
        return [re.sub(r"\d+(\.\d+)?", "#", w) for w in ws]

    assert items and shape(items) == shape(list(est.warnings))
    found = re.search(r"rests on only (\d+) labelled pairs", items[0])
    assert found is not None and int(found.group(1)) < 30
    # a handful of labels never gives a point interval
    assert "[1.000, 1.000]" not in page and "[0.000, 0.000]" not in page
