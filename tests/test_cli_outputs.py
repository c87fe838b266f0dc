"""Output files: checked before any work, written atomically, exactly where named."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from ereval.cli import app
from ereval.cli._output import Outputs, check_figure_path, check_table_path, write_table
from ereval.oasis import synthetic_pool
from ereval.paula import paula_plan

from ._example_data import EXAMPLES

runner = CliRunner()
T, P = str(EXAMPLES / "truth.csv"), str(EXAMPLES / "pred_good.csv")
OUTPUT_FLAGS = ("--out", "--plot", "--state")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    pool = synthetic_pool(600, imbalance=10, seed=1)
    pd.DataFrame(
        {
            "pair_id": np.arange(pool.size),
            "score": pool.scores,
            "prediction": pool.predictions,
            "label": pool.labels,
        }
    ).to_csv(folder / "pool.csv", index=False)
    n = 400
    plan = paula_plan(n, epsilon=0.2, delta=3)
    ranks = plan.ranks()
    pd.DataFrame({"item_id": np.arange(n)}).to_csv(folder / "ranked.csv", index=False)
    pd.DataFrame({"rank": ranks, "label": (ranks < 200).astype(int)}).to_csv(
        folder / "labels.csv", index=False
    )
    from ereval.labels import LabelStore, create_cluster_review

    with LabelStore(folder / "labels.db", create=True) as store:
        create_cluster_review(
            store,
            "main",
            data=EXAMPLES / "records.csv",
            prediction=EXAMPLES / "pred_good.csv",
            n=3,
            seed=0,
        )
    return {
        "label_db": folder / "labels.db",
        "pool": folder / "pool.csv",
        "ranked": folder / "ranked.csv",
        "labels": folder / "labels.csv",
    }


def _base(command: str, inputs: dict[str, Path]) -> list[str]:
    """A valid, quick invocation of each command that writes files."""
    pool, ranked, labels = str(inputs["pool"]), str(inputs["ranked"]), str(inputs["labels"])
    return {
        "analyze": [  # writes both the error table and a figure
            "analyze",
            "--pred",
            P,
            "--sample",
            str(EXAMPLES / "sample.csv"),
            "--design",
            "record",
            "--features",
            str(EXAMPLES / "records.csv"),
            "--feature-cols",
            "sex",
            "--group",
            "sex",
            "-q",
        ],
        "summary": ["summary", P],
        "sample": ["sample", "--pred", P, "-n", "20", "--seed", "0", "-q"],
        "plan": [
            "plan",
            "--pred",
            P,
            "--truth",
            T,
            "--half-width",
            "0.2",
            "-m",
            "pairwise_f1",
            "-r",
            "20",
            "--seed",
            "0",
            "-q",
        ],
        "compare": ["compare", T, P],
        "monitor": ["monitor", T, P],
        "curve": ["curve", T, str(EXAMPLES / "pairs.csv"), "--grid", "5"],
        "errors": ["errors", T, P],
        "label export": ["label", "export", "--db", str(inputs["label_db"]), "--kind", "benchmark"],
        "paula plan": ["paula", "plan", "--n", "1000", "--epsilon", "0.1", "--delta", "5"],
        "paula bounds": ["paula", "bounds", ranked, labels, "--epsilon", "0.2", "--delta", "3"],
        "oasis estimate": ["oasis", "estimate", pool, "--budget", "20", "--seed", "0"],
        "report": ["report", "--truth", T, "--pred", P, "--no-plots", "-q"],
        "oasis experiment": [
            "oasis",
            "experiment",
            pool,
            "--budgets",
            "20",
            "--repeats",
            "2",
            "--methods",
            "passive",
        ],
    }[command]


#: (command, flag) -> a good file name and names that are bad by their suffix
CASES: dict[tuple[str, str], tuple[str, list[str]]] = {
    ("analyze", "--out"): ("e.csv", ["e.txt", "e"]),
    ("errors", "--out"): ("e.csv", ["e.txt", "e"]),
    ("analyze", "--plot"): ("e.png", ["e.xyz", "e"]),
    ("summary", "--out"): ("s.csv", ["s.txt"]),
    ("summary", "--plot"): ("s.png", ["s.xyz"]),
    ("sample", "--out"): ("t.csv", ["t.xlsx", "t"]),
    ("plan", "--out"): ("c.csv", ["c.txt"]),
    ("plan", "--plot"): ("p.png", ["p.xyz"]),
    ("compare", "--out"): ("c.parquet", ["c.xlsx"]),
    ("monitor", "--out"): ("m.json", ["m.tsv"]),
    ("monitor", "--plot"): ("m.pdf", ["m.xyz"]),
    ("curve", "--out"): ("c.json", ["c.txt"]),
    ("curve", "--plot"): ("c.png", ["c.xyz"]),
    ("paula plan", "--out"): ("p.parquet", ["p.xlsx"]),
    ("label export", "--out"): ("b.csv", ["b.xlsx"]),
    ("paula bounds", "--out"): ("b.csv.gz", ["b.tsv"]),
    ("paula bounds", "--plot"): ("b.png", ["b.xyz", "b"]),
    ("oasis estimate", "--state"): ("s.state", []),  # any name: the file written is the one named
    ("oasis experiment", "--plot"): ("e.svg", ["e.xyz"]),
    ("report", "--out"): ("r.html", ["r.txt", "r"]),
}


def _output_options() -> set[tuple[str, str]]:
    found = set()

    def walk(command: Any, path: tuple[str, ...]) -> None:
        for name, child in (getattr(command, "commands", None) or {}).items():
            walk(child, (*path, name))
        for param in getattr(command, "params", []):
            for flag in param.opts:
                if flag in OUTPUT_FLAGS:
                    found.add((" ".join(path), flag))

    walk(typer.main.get_command(app), ())
    return found


def _files(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


def test_every_output_option_is_swept() -> None:
    assert _output_options() == set(CASES)


def _assert_refused(result: Any, flag: str) -> None:
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and f"'{flag}'" in err, err
    assert "Traceback" not in result.output
    assert result.stdout == ""


@pytest.mark.parametrize(("command", "flag"), sorted(CASES))
def test_bad_output_paths_are_refused_before_any_work(
    command: str, flag: str, inputs: dict[str, Path], tmp_path: Path
) -> None:
    good, bad_names = CASES[(command, flag)]
    base = _base(command, inputs)
    bad_paths = [
        tmp_path / "missing" / good,  # no such folder
        tmp_path / "a-folder",  # a folder, not a file
        *(tmp_path / name for name in bad_names),  # a format that cannot be written
    ]
    (tmp_path / "a-folder").mkdir()
    before = _files(tmp_path)
    for path in bad_paths:
        result = runner.invoke(app, [*base, flag, str(path)])
        _assert_refused(result, flag)
        assert _files(tmp_path) == before
    # and the good name works, writing exactly that file
    result = runner.invoke(app, [*base, flag, str(tmp_path / good)])
    assert result.exit_code == 0, result.output
    assert _files(tmp_path) == before | {tmp_path / good}


@pytest.mark.parametrize("name", ["e.txt", "missing/e.csv"])
def test_errors_of_two_clusterings_check_out_first(name: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["errors", T, P, "-o", str(tmp_path / name)])
    _assert_refused(result, "--out")
    assert list(tmp_path.iterdir()) == []


def test_unwritable_folder_is_refused(tmp_path: Path) -> None:
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # e.g. root: permissions are not enforced
            pytest.skip("permissions are not enforced for this user")
        result = runner.invoke(app, ["errors", T, P, "-o", str(locked / "e.csv")])
        _assert_refused(result, "--out")
        assert "not writable" in result.stderr
    finally:
        locked.chmod(0o700)


def test_second_output_bad_leaves_the_first_unwritten(
    inputs: dict[str, Path], tmp_path: Path
) -> None:
    base = _base("paula bounds", inputs)
    table = tmp_path / "t.csv"
    result = runner.invoke(app, [*base, "-o", str(table), "--plot", str(tmp_path / "b.xyz")])
    _assert_refused(result, "--plot")
    assert not table.exists()
    ok = runner.invoke(app, [*base, "-o", str(table), "--plot", str(tmp_path / "b.pdf")])
    assert ok.exit_code == 0, ok.output
    assert table.exists() and (tmp_path / "b.pdf").stat().st_size > 1000


def test_plot_without_matplotlib_fails_before_the_experiment(
    inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ereval.oasis

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the experiment ran")

    monkeypatch.setattr(ereval.oasis, "run_experiment", never)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backend_bases", None)
    base = _base("oasis experiment", inputs)
    result = runner.invoke(app, [*base, "--plot", str(tmp_path / "e.png")])
    _assert_refused(result, "--plot")
    assert "pip install 'ereval[plot]'" in result.stderr


def test_simulate_refuses_runs_that_do_not_fit_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    import ereval._simulate

    monkeypatch.setattr(ereval._simulate, "_available_memory", lambda: 16 * 2**30)
    args = ["simulate", "--truth", T, "--error-rate", "0.1", "-n", "50", "-r", "100000000"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    err = " ".join(result.stderr.split())
    assert "'--repeats' x '--sample-size' = 100,000,000 x 50 draws need about" in err
    assert "lower '--repeats' or '--sample-size'" in err
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------- the helpers
def test_outputs_write_all_or_nothing(tmp_path: Path) -> None:
    old = tmp_path / "a.csv"
    old.write_text("old\n")
    frame = pd.DataFrame({"x": [1, 2]})

    def broken(path: Path) -> None:
        path.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"), Outputs() as out:
        out.add(old, lambda p: write_table(frame, p))
        out.add(tmp_path / "b.csv", broken)
    assert old.read_text() == "old\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]  # no temporary file left
    with Outputs() as out:
        out.add(old, lambda p: write_table(frame, p))
    assert pd.read_csv(old)["x"].tolist() == [1, 2]
    assert oct(old.stat().st_mode & 0o777) != oct(0o600)  # not the temporary file's mode


@pytest.mark.parametrize("name", ["t.csv", "t.csv.gz", "t.parquet", "t.json"])
def test_table_formats_follow_the_suffix(tmp_path: Path, name: str) -> None:
    frame = pd.DataFrame({"rank": [1, 2], "value": [0.5, float("nan")]})
    path = check_table_path(tmp_path / name, flag="--out")
    with Outputs() as out:
        out.add(path, lambda p: write_table(frame, p))
    if name.endswith(".json"):
        import json

        assert json.loads(path.read_text()) == [
            {"rank": 1, "value": 0.5},
            {"rank": 2, "value": None},
        ]
    elif name.endswith(".parquet"):
        assert pd.read_parquet(path)["rank"].tolist() == [1, 2]
    else:
        assert pd.read_csv(path)["rank"].tolist() == [1, 2]
    if name.endswith(".gz"):
        assert path.read_bytes()[:2] == b"\x1f\x8b"


def test_figure_suffixes_are_those_matplotlib_writes(tmp_path: Path) -> None:
    from ereval import InputError

    for ok in ("f.png", "f.PDF", "f.svg"):
        check_figure_path(tmp_path / ok, flag="--plot")
    with pytest.raises(InputError, match=r"'--plot': '.*f\.docx' must end in .*\.png"):
        check_figure_path(Path(tmp_path / "f.docx"), flag="--plot")


def test_a_missing_folder_named_like_an_option_is_named_as_written(tmp_path: Path) -> None:
    # 'out' and 'level' are also option names: the message must keep the folder's own name
    res = runner.invoke(app, ["summary", P, "-o", str(tmp_path / "level" / "s.csv")])
    assert res.exit_code == 2
    err = res.stderr.strip()
    assert err.startswith("error: '--out'") and f"'{tmp_path / 'level'}/'" in err, err
    assert "'--level'" not in err


# --------------------------------------------------------------------------- inputs
def _copy_inputs(base: list[str], folder: Path) -> tuple[list[str], list[Path]]:
    """``base`` with every input file copied into ``folder`` (the originals stay safe)."""
    import shutil

    folder.mkdir()
    args, copies = [], []
    for arg in base:
        if Path(arg).is_file():
            copy = folder / f"{len(copies)}-{Path(arg).name}"
            shutil.copyfile(arg, copy)
            copies.append(copy)
            arg = str(copy)
        args.append(arg)
    return args, copies


@pytest.mark.parametrize(("command", "flag"), sorted(c for c in CASES if c[0] != "paula plan"))
def test_no_output_is_written_over_an_input(
    command: str, flag: str, inputs: dict[str, Path], tmp_path: Path
) -> None:
    import os

    good, _ = CASES[(command, flag)]
    base, copies = _copy_inputs(_base(command, inputs), tmp_path / "in")
    assert copies, command  # every command but 'paula plan' (which reads nothing) has inputs
    for k, source in enumerate(copies):
        targets = [tmp_path / f"link{k}-{good}"]  # the same file under a name of the right kind
        os.link(source, targets[0])
        if source.name.endswith(good.split(".", 1)[1]):
            targets.append(source)  # the input's own path
        for target in targets:
            before = {p: p.read_bytes() for p in (tmp_path / "in").iterdir()}
            listing = _files(tmp_path)
            result = runner.invoke(app, [*base, flag, str(target)])
            _assert_refused(result, flag)
            assert "never writes over its inputs" in result.stderr, result.stderr
            assert {p: p.read_bytes() for p in (tmp_path / "in").iterdir()} == before
            assert _files(tmp_path) == listing


def test_label_export_never_overwrites_its_own_store(
    inputs: dict[str, Path], tmp_path: Path
) -> None:
    import os
    import shutil

    db = tmp_path / "labels.csv"  # a store under a table's name: -o would accept the suffix
    shutil.copyfile(inputs["label_db"], db)
    link = tmp_path / "export.parquet"
    os.link(db, link)
    before = db.read_bytes()
    for out in (db, link):
        res = runner.invoke(app, ["label", "export", "--db", str(db), "--kind", "benchmark",
                                  "-o", str(out)])  # fmt: skip
        _assert_refused(res, "--out")
        assert "'--db'" in res.stderr
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.parquet", "labels.csv"]


def test_compare_and_curve_refuse_their_inputs_as_outputs(tmp_path: Path) -> None:
    import shutil

    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    shutil.copyfile(T, old)
    shutil.copyfile(P, new)
    pairs = tmp_path / "pairs.csv"
    shutil.copyfile(EXAMPLES / "pairs.csv", pairs)
    for args, name in (
        (["compare", str(old), str(new), "-o", str(old)], "'OLD'"),
        (["compare", str(old), str(new), "-o", str(new)], "'NEW'"),
        (["curve", str(old), str(pairs), "--grid", "3", "-o", str(old)], "'TRUTH'"),
        (["curve", str(old), str(pairs), "--grid", "3", "-o", str(pairs)], "'PAIRS'"),
    ):
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        res = runner.invoke(app, args)
        _assert_refused(res, "--out")
        assert name in res.stderr, res.stderr
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
