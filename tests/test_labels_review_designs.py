"""Cluster reviews drawn by the size-stratified design: the draws, the export, the estimates."""

from __future__ import annotations

import html
import json
import re
import shlex
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval._errors import InputError
from ereval.cli import app
from ereval.estimators import as_sample, draw_sample, estimate
from ereval.labels import ClusterReview, LabelStore, create_cluster_review, export_labels

LOCAL = "http://127.0.0.1"
METRICS = ("pairwise_precision", "pairwise_recall", "pairwise_f1", "b3_precision", "b3_recall")


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """90 records in true clusters of 1-6 records; a prediction that splits and merges
    some, so that its cluster sizes spread over several strata. Ids are text with
    leading zeros."""
    rng = np.random.default_rng(5)
    truth: list[tuple[str, str]] = []
    k = 0
    while k < 90:
        size = min(int(rng.integers(1, 7)), 90 - k)
        truth += [(f"{k + j:03d}", f"t{k}") for j in range(size)]
        k += size
    pred = []
    for rid, true in truth:
        cluster = true
        if int(rid) % 7 == 0:  # split off
            cluster = f"s{rid}"
        elif true in ("t0", "t5") or int(true[1:]) % 9 == 1:  # merged
            cluster = "merged"
        pred.append((rid, cluster))
    paths = {
        "data": tmp_path / "records.csv",
        "truth": tmp_path / "truth.csv",
        "pred": tmp_path / "pred.csv",
        "db": tmp_path / "labels.db",
    }
    pd.DataFrame({"record_id": [r for r, _ in truth], "name": [f"n{c}" for _, c in truth]}).to_csv(
        paths["data"], index=False
    )
    pd.DataFrame(truth, columns=["record_id", "cluster_id"]).to_csv(paths["truth"], index=False)
    pd.DataFrame(pred, columns=["record_id", "cluster_id"]).to_csv(paths["pred"], index=False)
    return paths


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str)


def _read_sample(path: Path) -> pd.DataFrame:
    """A written benchmark: ids as written, numbers as numbers."""
    return pd.read_csv(path, dtype={c: str for c in ("record_id", "cluster_id", "unit_id")})


def _label_all(review: ClusterReview, truth: dict[str, str]) -> None:
    """Answer every drawn record from the truth through the review API."""
    while (task := review.next(reviewer="ana")) is not None:
        pred = set(task.predicted)
        true = {r for r, c in truth.items() if c == truth[task.record_id]}
        review.save(
            task.record_id, reviewer="ana", remove=sorted(pred - true), add=sorted(true - pred)
        )


@pytest.mark.parametrize(
    ("replace", "allocation", "strata", "seed"),
    [(True, None, None, 3), (False, "proportional", [1, 3], 8), (True, "neyman", "1,2,4", 21)],
)
def test_review_export_estimates_equal_draw_sample(
    world: dict[str, Path], replace: bool, allocation: str | None, strata: object, seed: int
) -> None:
    frame = _read(world["truth"])
    truth = dict(zip(frame.record_id, frame.cluster_id, strict=True))
    pred = _read(world["pred"])
    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(
        store,
        "s",
        data=world["data"],
        prediction=world["pred"],
        n=30,
        design="size_stratified",
        strata=strata,
        allocation=allocation,
        replace=replace,
        seed=seed,
    )
    _label_all(review, truth)
    exported = export_labels(store, "s", kind="benchmark")
    assert exported.design == "size_stratified" and exported.warnings == []
    out = world["db"].parent / "bench.csv"
    exported.frame.to_csv(out, index=False)
    got = estimate(pred, _read(out), design="size_stratified", replace=replace)

    direct = draw_sample(
        frame,
        n=30,
        design="size_stratified",
        pred=pred,
        strata=strata,
        allocation=allocation,
        replace=replace,
        seed=seed,
    )
    # the same records drawn, as often, in the same strata
    assert sorted(review.config["draws"]) == sorted(
        direct.records[direct.draw_records].astype(str).tolist()
    )
    assert direct.stratum_sizes is not None
    assert review.config["stratum_records"] == direct.stratum_sizes.tolist()
    assert review.config["stratum_draws"] == np.bincount(direct.draw_strata).tolist()
    expected = estimate(pred, direct)
    for name in METRICS:
        assert got[name].value == pytest.approx(expected[name].value, rel=1e-12, abs=1e-15), name
        assert got[name].std == pytest.approx(expected[name].std, rel=1e-12, abs=1e-15), name


def test_stratified_session_survives_the_store_and_the_cli(world: dict[str, Path]) -> None:
    runner = CliRunner()
    args = ["label", "init", "--db", str(world["db"]), "--data", str(world["data"])]
    args += ["--pred", str(world["pred"]), "--n", "24", "--seed", "4"]
    result = runner.invoke(app, [*args, "--design", "size-stratified", "--without-replacement"])
    assert result.exit_code == 0, result.output
    frame = _read(world["truth"])
    truth = dict(zip(frame.record_id, frame.cluster_id, strict=True))
    with LabelStore(world["db"]) as store:  # reopened: the draws and strata are kept
        review = ClusterReview(store, "main")
        assert review.config["design"] == "size_stratified"
        assert review.config["allocation"] == "neyman"
        assert sum(review.config["stratum_draws"]) == 24
        item = store.items("main")[0]
        assert item.payload["stratum"] in review.config["stratum_labels"]
        _label_all(review, truth)
    out = world["db"].parent / "bench.csv"
    result = runner.invoke(
        app, ["label", "export", "--db", str(world["db"]), "--kind", "benchmark", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "--design size-stratified --without-replacement" in " ".join(result.output.split())
    estimated = runner.invoke(
        app,
        [
            *("estimate", "--pred", str(world["pred"]), "--sample", str(out)),
            *("--design", "size-stratified", "--without-replacement", "--format", "json"),
        ],
    )
    assert estimated.exit_code == 0, estimated.output
    shown = json.loads(estimated.stdout)
    direct = draw_sample(
        frame, n=24, design="size_stratified", pred=_read(world["pred"]), replace=False, seed=4
    )
    expected = estimate(_read(world["pred"]), direct)
    for name in ("pairwise_precision", "b3_recall"):
        assert shown[name]["value"] == pytest.approx(expected[name].value, rel=1e-12), name
    # the exported table reads back as the sample it describes
    sample = as_sample(_read(out), design="size_stratified", replace=False)
    assert sample.n_draws == 24


def test_bad_design_and_options_are_one_line_errors(world: dict[str, Path]) -> None:
    store = LabelStore(world["db"], create=True)
    common = {"data": world["data"], "prediction": world["pred"], "n": 10}
    with pytest.raises(InputError, match="'design' must be one of record, size_stratified"):
        create_cluster_review(store, "a", design="size-stratified", **common)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="'weights_col' does not apply"):
        create_cluster_review(store, "a", design="size_stratified", weights_col="name", **common)
    with pytest.raises(InputError, match="'strata' and 'allocation' are options"):
        create_cluster_review(store, "a", strata=[1, 2], **common)
    with pytest.raises(InputError, match="'allocation'"):
        create_cluster_review(store, "a", design="size_stratified", allocation="best", **common)
    assert [s.name for s in store.sessions()] == []
    store.close()
    runner = CliRunner()
    args = ["label", "init", "--db", str(world["db"]), "--data", str(world["data"])]
    args += ["--pred", str(world["pred"])]
    result = runner.invoke(app, [*args, "--design", "stratified"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if "--design" in line]
    assert lines and "size-stratified" in result.output
    result = runner.invoke(app, [*args, "--strata", "1,3"])
    assert result.exit_code != 0
    message = result.output.strip()
    assert "--strata" in message and "size-stratified" in message and "Traceback" not in message


def test_prediction_records_must_all_be_in_the_data(world: dict[str, Path]) -> None:
    pred = _read(world["pred"])
    extra = pd.concat([pred, pd.DataFrame({"record_id": ["999"], "cluster_id": ["x"]})])
    extra.to_csv(world["pred"], index=False)
    store = LabelStore(world["db"], create=True)
    with pytest.raises(InputError, match=r"'prediction' has 1 record\(s\) absent from the data"):
        create_cluster_review(
            store, "a", data=world["data"], prediction=world["pred"], n=10, design="size_stratified"
        )


def test_app_start_page_names_the_design_and_its_command_runs(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("fastapi", reason="the app extra is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # this Starlette asks for httpx2; httpx works
        from fastapi.testclient import TestClient

    from ereval.app import SecurityConfig, create_app

    frame = _read(world["truth"])
    truth = dict(zip(frame.record_id, frame.cluster_id, strict=True))
    pred = _read(world["pred"])
    with LabelStore(world["db"], create=True) as store:
        for name, replace in (("with", True), ("without", False)):
            create_cluster_review(store, name, data=world["data"], prediction=world["pred"],
                                  n=20, design="size_stratified", replace=replace, seed=6)  # fmt: skip
        config = SecurityConfig(host="127.0.0.1", token=None)
        c = TestClient(create_app(store, reviewer="ana", security=config), base_url=LOCAL)
        assert 'id="follow"' not in c.get("/s/with").text  # shown once nothing is left
        for name in ("with", "without"):
            _label_all(ClusterReview(store, name), truth)
        monkeypatch.chdir(world["db"].parent)
        runner = CliRunner()
        for name, replace in (("with", True), ("without", False)):
            page = c.get(f"/s/{name}").text
            res = runner.invoke(app, _command(page, "export")[1:])
            assert res.exit_code == 0, res.output
            follow = _command(page, "follow")
            flags = ["--design", "size-stratified"] + ([] if replace else ["--without-replacement"])
            assert follow[:2] == ["ereval", "estimate"] and follow[-len(flags) :] == flags
            res = runner.invoke(app, [*follow[1:], "-f", "json"])
            assert res.exit_code == 0, res.output
            shown = json.loads(res.stdout)
            direct = draw_sample(
                frame, n=20, design="size_stratified", pred=pred, replace=replace, seed=6
            )
            expected = estimate(pred, direct)
            for metric in ("pairwise_precision", "pairwise_recall", "b3_precision"):
                got = shown[metric]["value"]
                assert got == pytest.approx(expected[metric].value, rel=1e-12), (name, metric)


def _command(page: str, tag: str) -> list[str]:
    found = re.search(rf'<pre class="command" id="{tag}">(.*?)</pre>', page, re.S)
    assert found, page[-800:]
    return shlex.split(html.unescape(found.group(1)))


def _pairs(world: dict[str, Path]) -> Path:
    """Scored pairs: every pair inside a predicted cluster, and the true matches it splits."""
    truth = _read(world["truth"])
    pred = _read(world["pred"])
    t = dict(zip(truth.record_id, truth.cluster_id, strict=True))
    p = dict(zip(pred.record_id, pred.cluster_id, strict=True))
    ids = sorted(t)
    rows = [
        (a, b, 0.9 if t[a] == t[b] else 0.15)
        for i, a in enumerate(ids)
        for b in ids[i + 1 :]
        if p[a] == p[b] or t[a] == t[b]
    ]
    path = world["db"].parent / "pairs.csv"
    pd.DataFrame(rows, columns=["record_id_1", "record_id_2", "match_probability"]).to_csv(
        path, index=False
    )
    return path


def test_expected_error_review_gives_the_estimates_of_draw_sample(world: dict[str, Path]) -> None:
    from ereval.estimators._error_weights import expected_error_probabilities

    pairs = _pairs(world)
    frame = _read(world["truth"])
    truth = dict(zip(frame.record_id, frame.cluster_id, strict=True))
    pred = _read(world["pred"])
    store = LabelStore(world["db"], create=True)
    review = create_cluster_review(store, "e", data=world["data"], prediction=world["pred"], n=25,
                                   design="expected_error", pairs=pairs, floor=0.3, seed=9)  # fmt: skip
    _label_all(review, truth)
    exported = export_labels(store, "e", kind="benchmark")
    assert exported.design == "expected_error" and exported.warnings == []
    out = world["db"].parent / "bench.csv"
    exported.frame.to_csv(out, index=False)
    q = expected_error_probabilities(pred, pairs, floor=0.3)
    assert q.std() > 0  # the design is not uniform
    direct = draw_sample(frame, n=25, design="expected_error", weights=q, seed=9)
    expected = estimate(pred, direct)
    got = estimate(pred, _read_sample(out), design="expected_error")
    for name in METRICS:
        assert got[name].value == pytest.approx(expected[name].value, rel=1e-12), name
        assert got[name].std == pytest.approx(expected[name].std, rel=1e-12), name
    # the pairs changed after the draws: the export refuses rather than mixing two designs
    changed = pd.read_csv(pairs, dtype=str)
    changed["match_probability"] = "0.5"
    changed.to_csv(pairs, index=False)
    with pytest.raises(InputError, match="changed since session 'e' was created"):
        export_labels(store, "e", kind="benchmark")
    with pytest.raises(InputError, match="'pairs' is needed for design='expected_error'"):
        create_cluster_review(store, "x", data=world["data"], prediction=world["pred"], n=5,
                              design="expected_error")  # fmt: skip
    with pytest.raises(InputError, match="replace=False do not apply"):
        create_cluster_review(store, "x", data=world["data"], prediction=world["pred"], n=5,
                              design="expected_error", pairs=pairs, replace=False)  # fmt: skip
    with pytest.raises(InputError, match="'pairs' and 'floor' are options"):
        create_cluster_review(store, "x", data=world["data"], prediction=world["pred"], n=5,
                              pairs=pairs)  # fmt: skip


def test_expected_error_review_from_the_cli(world: dict[str, Path]) -> None:
    pairs = _pairs(world)
    runner = CliRunner()
    args = ["label", "init", "--db", str(world["db"]), "--data", str(world["data"])]
    args += ["--pred", str(world["pred"]), "--n", "15", "--seed", "2", "--pairs", str(pairs)]
    result = runner.invoke(app, [*args, "--score-col", "match_probability"])
    assert result.exit_code != 0 and "'--pairs' and '--floor' are options" in result.output
    args += ["--score-col", "match_probability", "--design", "expected-error"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with LabelStore(world["db"]) as store:
        review = ClusterReview(store, "main")
        assert review.config["design"] == "expected_error"
        frame = _read(world["truth"])
        _label_all(review, dict(zip(frame.record_id, frame.cluster_id, strict=True)))
    out = world["db"].parent / "bench.csv"
    result = runner.invoke(
        app, ["label", "export", "--db", str(world["db"]), "--kind", "benchmark", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "--design expected-error" in " ".join(result.output.split())
    estimated = runner.invoke(
        app,
        [
            *("estimate", "--pred", str(world["pred"]), "--sample", str(out)),
            *("--design", "expected-error", "--format", "json"),
        ],
    )
    assert estimated.exit_code == 0, estimated.output
    assert 0 < json.loads(estimated.stdout)["pairwise_precision"]["value"] < 1
