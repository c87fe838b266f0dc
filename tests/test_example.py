"""The bundled example data set: consistent files, ``ereval example``, and the README runs."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ereval import InputError, evaluate, example
from ereval.cli import app
from ereval.paula import paula_plan

from ._example_data import EXAMPLES

REPO = Path(__file__).resolve().parents[1]
CLUSTERINGS = [
    "pred_good.csv",
    "pred_poor.csv",
    *(name for name in example.FILES if name.startswith("releases/")),
]
runner = CliRunner()


def read(name: str) -> pd.DataFrame:
    """A file of the data directory with every cell as the text written."""
    return pd.read_csv(EXAMPLES / name, dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def truth() -> pd.DataFrame:
    return read("truth.csv")


@pytest.fixture(scope="module")
def entity(truth: pd.DataFrame) -> dict[str, str]:
    return dict(zip(truth["record_id"], truth["cluster_id"], strict=True))


@pytest.fixture(scope="module")
def pairs() -> pd.DataFrame:
    return example.load("pairs.csv")


# --------------------------------------------------------------------------- the files


def test_the_directory_holds_exactly_the_listed_files() -> None:
    def walk(node: Traversable, prefix: str = "") -> set[str]:
        found = set()
        for child in node.iterdir():
            if child.is_dir():
                if child.name != "__pycache__":
                    found |= walk(child, f"{prefix}{child.name}/")
            else:
                found.add(prefix + child.name)
        return found

    assert walk(resources.files("ereval").joinpath("data", "example")) == set(example.FILES)
    assert set(example.files()) == set(example.FILES)
    total = sum(len(resource.read_bytes()) for resource in example.files().values())
    assert total < 2 * 1024 * 1024


def test_notice_names_source_licence_and_copyright() -> None:
    notice = example.files()["NOTICE"].read_text()
    assert "pseudopeople" in notice
    assert "BSD 3-Clause License" in notice
    assert "Copyright (c) 2023, Institute for Health Metrics and Evaluation" in notice


def test_records_and_truth_agree(truth: pd.DataFrame) -> None:
    records = read("records.csv")
    assert records.columns[0] == "record_id" and records.columns[-1] == "entity_id"
    for column in ("first_name", "last_name", "date_of_birth", "street_name"):
        assert column in records.columns
    assert records["record_id"].is_unique
    assert list(truth.columns) == ["record_id", "cluster_id"]
    assert truth["record_id"].tolist() == records["record_id"].tolist()
    assert truth["cluster_id"].tolist() == records["entity_id"].tolist()
    assert (records["zipcode"].isin(["00000", ""])).mean() > 0.95  # leading zeros kept
    assert (records["record_id"].str.split("-").str[0] == records["source"]).all()
    sizes = truth["cluster_id"].value_counts()
    assert len(truth) == 4546 and len(sizes) == 2165 and sizes.max() > 3


@pytest.mark.parametrize("name", CLUSTERINGS)
def test_every_clustering_covers_every_record_once(name: str, truth: pd.DataFrame) -> None:
    pred = read(name)
    assert list(pred.columns) == ["record_id", "cluster_id"]
    assert pred["record_id"].is_unique
    assert set(pred["record_id"]) == set(truth["record_id"])
    assert (pred["cluster_id"] != "").all()


def test_sample_is_whole_true_clusters_of_200_draws(entity: dict[str, str]) -> None:
    sample = read("sample.csv")
    assert list(sample.columns) == ["record_id", "cluster_id", "unit_id", "probability", "draws"]
    assert sample["record_id"].is_unique
    assert sample["record_id"].map(entity).tolist() == sample["cluster_id"].tolist()
    assert (sample["unit_id"] == sample["cluster_id"]).all()
    truth_sizes = pd.Series(list(entity.values())).value_counts()
    sampled = sample["cluster_id"].value_counts()
    assert (sampled == truth_sizes[sampled.index]).all()  # every record of a sampled cluster
    per_cluster = sample.groupby("cluster_id").first()
    # design "record": probability proportional to the cluster's size
    assert (per_cluster["probability"].astype(float) == sampled[per_cluster.index]).all()
    assert per_cluster["draws"].astype(int).sum() == 200


def test_pairs_labels_agree_with_truth(pairs: pd.DataFrame, entity: dict[str, str]) -> None:
    assert list(pairs.columns) == [
        "pair_id",
        "record_id_1",
        "record_id_2",
        "score",
        "probability",
        "prediction",
        "label",
    ]
    assert pairs["pair_id"].is_unique
    left, right = pairs["record_id_1"].map(entity), pairs["record_id_2"].map(entity)
    assert left.notna().all() and right.notna().all()
    assert ((left == right).astype("int8") == pairs["label"]).all()
    assert (pairs["record_id_1"] != pairs["record_id_2"]).all()
    unordered = {frozenset(p) for p in zip(pairs["record_id_1"], pairs["record_id_2"], strict=True)}
    assert len(unordered) == len(pairs)
    assert (np.diff(pairs["score"].to_numpy()) <= 0).all()  # highest score first
    assert pairs["probability"].between(0, 1).all()
    scores = pairs["score"].to_numpy()
    predicted = pairs["prediction"].to_numpy() == 1
    assert scores[predicted].min() > scores[~predicted].max()  # one threshold
    # the candidates hold nearly every true matching pair
    sizes = pd.Series(list(entity.values())).value_counts()
    true_pairs = int((sizes * (sizes - 1) // 2).sum())
    assert 0.99 * true_pairs <= pairs["label"].sum() <= true_pairs


def test_paula_labels_are_the_planned_ranks_of_the_pairs(pairs: pd.DataFrame) -> None:
    labels = example.load("paula_labels.csv")
    plan = paula_plan(len(pairs), epsilon=0.1, delta=10)
    assert labels["rank"].tolist() == plan.ranks().tolist()
    at = labels["rank"].to_numpy() - 1
    assert labels["pair_id"].tolist() == pairs["pair_id"].to_numpy()[at].tolist()
    assert labels["label"].tolist() == pairs["label"].to_numpy()[at].tolist()


def _readme_table() -> dict[str, list[float]]:
    """File -> the five metric values of the table in the data set's README."""
    rows: dict[str, list[float]] = {}
    for line in example.files()["README.md"].read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].startswith("`") and cells[0].endswith(".csv`"):
            rows[cells[0].strip("`")] = [float(c) for c in cells[2:]]
    return rows


def test_metrics_in_the_data_readme_are_exact(truth: pd.DataFrame) -> None:
    table = _readme_table()
    assert set(table) == set(CLUSTERINGS)
    names = ["pairwise_precision", "pairwise_recall", "pairwise_f1", "b3_f1", "cluster_f1"]
    for name, values in table.items():
        scores = evaluate(truth, read(name), metrics=names)
        assert [round(scores[n], 3) for n in names] == values, name


def test_good_beats_poor_and_releases_tell_a_story(truth: pd.DataFrame) -> None:
    f1 = {name: evaluate(truth, read(name))["pairwise_f1"] for name in CLUSTERINGS}
    assert f1["pred_good.csv"] > 0.9
    assert f1["pred_poor.csv"] < f1["pred_good.csv"] - 0.1
    releases = [f1[name] for name in CLUSTERINGS if name.startswith("releases/")]
    assert releases[0] < releases[1] < releases[2] and releases[3] < releases[2]


def test_load_reads_text_exactly_and_numbers_as_numbers() -> None:
    records = example.load("records.csv")
    assert all(pd.api.types.is_string_dtype(t) for t in records.dtypes)
    assert records.equals(read("records.csv"))
    pairs = example.load("pairs.csv")
    assert pairs["score"].dtype == np.float64 and pairs["label"].dtype == np.int8
    with pytest.raises(InputError, match="must be one of"):
        example.load("nope.csv")
    with pytest.raises(InputError, match="CSV file"):
        example.load("NOTICE")


# --------------------------------------------------------------------------- writing


def test_cli_writes_every_file_and_refuses_to_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = runner.invoke(app, ["example", str(out)])
    assert result.exit_code == 0, result.output
    for name in example.FILES:
        assert (out / name).read_bytes() == example.files()[name].read_bytes(), name
    rerun = runner.invoke(app, ["example", str(out)])  # the same files again: nothing lost
    assert rerun.exit_code == 0, rerun.output
    (out / "truth.csv").write_text("changed")
    again = runner.invoke(app, ["example", str(out)])
    assert again.exit_code == 2
    message = again.stderr.strip()
    assert len(message.splitlines()) == 1
    assert "already holds 1 of the example files" in message and "--force" in message
    assert (out / "truth.csv").read_text() == "changed"
    forced = runner.invoke(app, ["example", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert (out / "truth.csv").read_bytes() == example.files()["truth.csv"].read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]  # no staging left


def test_cli_rejects_a_file_as_directory(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    target.write_text("x")
    result = runner.invoke(app, ["example", str(target)])
    assert result.exit_code == 2
    assert "is not a directory" in result.stderr
    assert target.read_text() == "x"


def test_write_into_an_existing_directory_keeps_other_files(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep")
    written = example.write(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == list(example.FILES)
    assert (tmp_path / "mine.txt").read_text() == "keep"
    assert (tmp_path / "releases" / "2024-10-01.csv").exists()


def test_write_refuses_one_clash_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "releases").mkdir()
    (tmp_path / "releases" / "2024-01-01.csv").write_text("mine")
    with pytest.raises(InputError, match=r"already holds 1 of the example files"):
        example.write(tmp_path)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["2024-01-01.csv", "releases"]
    example.write(tmp_path, force=True)
    assert example.existing(tmp_path) == []  # every file now equals the bundled one


def test_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = shutil.copyfileobj

    def flaky(src: object, dst: object, *args: object) -> None:
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError(28, "No space left on device")
        real(src, dst, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(shutil, "copyfileobj", flaky)
    with pytest.raises(OSError, match="No space left"):
        example.write(tmp_path / "nested" / "demo")
    assert list((tmp_path / "nested").iterdir()) == []


# --------------------------------------------------------------------------- the commands


def _json(args: list[str]) -> dict[str, object]:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_metrics_command(truth: pd.DataFrame) -> None:
    data = _json(
        ["metrics", str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_poor.csv"), "-f", "json"]
    )
    assert data["n_records"] == 4546 and data["n_true_clusters"] == 2165
    assert data["pairwise_f1"] == pytest.approx(
        evaluate(truth, read("pred_poor.csv"))["pairwise_f1"]
    )


def test_estimate_command_covers_the_exact_value(truth: pd.DataFrame) -> None:
    exact = evaluate(truth, read("pred_good.csv"), metrics=["pairwise_f1", "b3_precision"])
    args = [
        "estimate",
        "--pred",
        str(EXAMPLES / "pred_good.csv"),
        "--sample",
        str(EXAMPLES / "sample.csv"),
    ]
    data = _json([*args, "--design", "record", "--draws", "draws", "-f", "json", "--no-naive"])
    for name in ("pairwise_f1", "b3_precision"):
        est = data[name]
        assert isinstance(est, dict)
        assert est["n"] == 200
        assert est["interval"][0] <= exact[name] <= est["interval"][1], name
        assert abs(est["value"] - exact[name]) < 0.03


def test_oasis_command_is_near_the_pool_truth(pairs: pd.DataFrame) -> None:
    label, pred = pairs["label"].to_numpy(), pairs["prediction"].to_numpy()
    tp = int((label & pred).sum())
    f1 = 2 * tp / (label.sum() + pred.sum())
    args = ["oasis", "estimate", str(EXAMPLES / "pairs.csv"), "--budget", "500", "--seed", "1"]
    data = _json([*args, "--format", "json"])
    assert data["labels_used"] == 500 and data["n_pairs"] == len(pairs)
    f = data["f_measure"]
    assert isinstance(f, dict)
    assert abs(f["value"] - f1) < 0.03
    assert f["interval"][0] <= f1 <= f["interval"][1]


def test_paula_bounds_command_brackets_the_true_precision(pairs: pd.DataFrame) -> None:
    labels = pairs["label"].to_numpy()
    args = ["paula", "bounds", str(EXAMPLES / "pairs.csv"), str(EXAMPLES / "paula_labels.csv")]
    data = _json([*args, "--epsilon", "0.1", "--delta", "10", "--at", "5000", "-f", "json"])
    monotonicity = data["monotonicity"]
    assert isinstance(monotonicity, dict) and monotonicity["holds"]
    rows = data["precision_at"]
    assert isinstance(rows, list) and [r["k"] for r in rows] == [5000, len(pairs)]
    for row in rows:
        true = labels[: row["k"]].mean()
        assert row["precision_lower"] <= true <= row["precision_upper"]


def test_paula_plan_on_the_pairs_names_the_labelled_pairs(tmp_path: Path) -> None:
    out = tmp_path / "plan.csv"
    args = ["paula", "plan", "--ranked", str(EXAMPLES / "pairs.csv"), "--id-col", "pair_id"]
    result = runner.invoke(app, [*args, "--epsilon", "0.1", "--delta", "10", "--out", str(out)])
    assert result.exit_code == 0, result.output
    plan = pd.read_csv(out, dtype=str)
    labels = read("paula_labels.csv")
    assert plan["rank"].tolist() == labels["rank"].tolist()
    assert plan["pair_id"].tolist() == labels["pair_id"].tolist()


# --------------------------------------------------------------------------- README


def _readme_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced bash or python block, in order."""
    return [
        (m.group(1), m.group(2))
        for m in re.finditer(r"^```(bash|python)[ \t]*\n(.*?)^```", text, re.M | re.S)
    ]


def _bash_commands(body: str) -> list[str]:
    """The commands of a bash block; ``pip install ... &&`` prefixes are dropped."""
    commands = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        while line.startswith("pip install"):
            _, sep, rest = line.partition("&&")
            line = rest.strip() if sep else ""
        if not line or "pytest" in line:  # installs, and the test suite itself, are not rerun
            continue
        commands.append(line)
    return commands


def test_readme_block_parsing() -> None:
    text = (
        "```bash\npip install . && ereval a b\n# note\nereval c \\\n  d\n```\n"
        '```python\nprint(1)\n```\n```bash\npip install -e ".[test]" && python -m pytest\n```\n'
        "```text\nnot run\n```\n"
    )
    blocks = _readme_blocks(text)
    assert [lang for lang, _ in blocks] == ["bash", "python", "bash"]
    assert _bash_commands(blocks[0][1]) == ["ereval a b", "ereval c    d"]
    assert _bash_commands(blocks[2][1]) == []


@pytest.mark.slow
def test_readme_commands_run(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(
        REPO,
        root,
        ignore=shutil.ignore_patterns(
            ".git", "__pycache__", ".*_cache", "*.egg-info", "build", "dist", "demo"
        ),
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "ereval"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m ereval "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(root / "src")
    env["MPLBACKEND"] = "Agg"
    blocks = _readme_blocks((root / "README.md").read_text())
    assert any(lang == "bash" for lang, _ in blocks)
    ran = 0
    for lang, body in blocks:
        if lang == "python":
            argv = [sys.executable, "-c", body]
            steps = [(argv, body)]
        else:
            steps = [(["bash", "-c", cmd], cmd) for cmd in _bash_commands(body)]
        for argv, shown in steps:
            proc = subprocess.run(
                argv, cwd=root, env=env, capture_output=True, text=True, timeout=600
            )
            assert proc.returncode == 0, f"README command failed: {shown}\n{proc.stderr[-2000:]}"
            ran += 1
    assert ran >= 2


def test_the_written_readme_commands_run(tmp_path: Path) -> None:
    """Every command of the README that ``ereval example`` writes runs as printed, in
    process, from the folder above the written data (``demo``)."""
    from typer.testing import CliRunner

    from ereval.cli import app

    example.write(tmp_path / "demo")
    blocks = _readme_blocks((tmp_path / "demo" / "README.md").read_text(encoding="utf-8"))
    commands = [c for lang, body in blocks if lang == "bash" for c in _bash_commands(body)]
    assert len(commands) >= 5
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for command in commands:
            argv = shlex.split(command)
            assert argv[0] == "ereval"
            if argv[1:3] == ["example", "demo"]:
                continue  # already written
            result = CliRunner().invoke(app, argv[1:])
            assert result.exit_code == 0, f"{command}\n{result.output}"
    finally:
        os.chdir(cwd)


def test_module_doctests() -> None:
    import doctest

    result = doctest.testmod(example)
    assert result.attempted > 0 and result.failed == 0
