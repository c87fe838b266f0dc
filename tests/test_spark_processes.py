"""The Spark engine in processes of its own: a ``local-cluster`` master (two executors,
each a JVM of its own, so that every shuffle crosses processes) gives the numbers of
NumPy, and a Ctrl-C during a Spark job of ``ereval metrics`` prints one line, exits
with 130 and leaves no JVM behind.

Each test starts a new Python process, hence a JVM of its own (a process holds one
Spark context, and the run's shared ``local[2]`` session is in this one).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ereval.engines import NumpyEngine
from ereval.metrics import CANONICAL_METRICS, EXTRA_METRICS, evaluate
from ereval.statistics import compute_statistics

from ._engine_cases import write
from ._example_data import IMPORT_ROOT
from .test_engine_statistics import assert_same_metrics

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").is_file(), reason="finds the JVMs left behind through /proc"
)

METRICS = [*CANONICAL_METRICS, *EXTRA_METRICS]


def _needs_java() -> None:
    from ereval.engines._spark_session import java_executable

    if java_executable() is None:
        pytest.skip("Java is not installed: the Spark engine needs Java 17 or later")


def _env(tmp_path: Path) -> dict[str, str]:
    """The environment of a child: this ereval, its temporary files under ``tmp_path``
    (where the session's scratch space is found), and a ``SPARK_HOME`` there made of
    PySpark's scripts and jars, so that the workers of a ``local-cluster`` master keep
    their executors' logs in its ``work`` folder rather than in PySpark's package."""
    import pyspark

    (tmp_path / "tmp").mkdir(exist_ok=True)
    home = tmp_path / "spark_home"
    home.mkdir(exist_ok=True)
    package = Path(pyspark.__file__).parent
    for name in ("bin", "jars", "sbin"):
        if (package / name).is_dir() and not (home / name).exists():
            (home / name).symlink_to(package / name)
    return {
        **os.environ,
        "PYTHONPATH": str(IMPORT_ROOT),
        "TMPDIR": str(tmp_path / "tmp"),
        "SPARK_HOME": str(home),
    }


def _parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid``, read from /proc."""
    parents = {
        int(p.name): _parent_of(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit()
    }
    out: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - out
        out |= frontier
    return out


def _is_java(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"java")
    except OSError:
        return False


def _alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie has ended)."""
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def _none_left(pids: set[int], *, within: float) -> set[int]:
    """``pids`` still running after waiting up to ``within`` seconds for them to end."""
    deadline = time.monotonic() + within
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return _alive(pids)


# -- local-cluster: two executors -------------------------------------------------------

_CLUSTER_SCRIPT = """
import dataclasses, json, math, os, sys, time
from ereval.engines import SparkEngine
from ereval.metrics import evaluate
from ereval.statistics import compute_statistics

folder, metrics = sys.argv[1], sys.argv[2].split(",")
engine = SparkEngine(master="local-cluster[2,1,1024]", memory_limit="1024MiB")
spark = engine.session()
tracker = spark.sparkContext._jsc.sc()
deadline = time.monotonic() + 120
while tracker.getExecutorMemoryStatus().size() < 3 and time.monotonic() < deadline:
    time.sleep(0.2)  # the two executors register after the driver starts
stats = compute_statistics(
    engine, f"{folder}/t.csv", f"{folder}/p.csv", record_col=["source", "uid"],
    link_only=True, source_col="source", on_mismatch="twinless", cells="always",
)
values = evaluate(stats, metrics=metrics)


def parent(pid):
    try:
        return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def descendants(root):
    # this process's JVMs only: the driver and the executors it starts (other Spark
    # sessions may run beside it)
    parents = {int(p): parent(p) for p in os.listdir("/proc") if p.isdigit()}
    out, frontier = set(), {root}
    while frontier:
        frontier = {c for c, q in parents.items() if q in frontier} - out
        out |= frontier
    return out


def is_java(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")[0].endswith(b"java")
    except OSError:
        return False


print(json.dumps({
    "executors": tracker.getExecutorMemoryStatus().size() - 1,
    "memory": spark.sparkContext.getConf().get("spark.executor.memory"),
    "metrics": {k: None if math.isnan(v) else v for k, v in values.items()},
    "within_source": {k: int(v) for k, v in dataclasses.asdict(stats.within_source).items()},
    "n_records": int(stats.n_records),
    "jvms": sorted(p for p in descendants(os.getpid()) if is_java(p)),
}))
"""


def _cluster_inputs(folder: Path) -> Any:
    """CSV files of text ids (``01`` and ``1`` apart, `` 7 `` with its spaces) keyed by
    two columns, three data sets for link-only, the prediction reversed and short of
    some records (twinless); their statistics on NumPy."""
    rng = np.random.default_rng(23)
    n = 400
    uid = [f"{v:04d}" if v % 7 else f" {v} " for v in rng.permutation(n)] + ["01", "1", "NA"]
    base = pd.DataFrame({"source": rng.choice(["A", "B", "C"], n + 3), "uid": uid})
    t = base.assign(cluster_id=[f"c{v}" for v in rng.integers(0, 90, n + 3)])
    p = base.assign(cluster_id=[f"k{v}" for v in rng.integers(0, 60, n + 3)]).iloc[::-1]
    write(t, folder / "t.csv")
    write(p.iloc[25:], folder / "p.csv")
    return compute_statistics(
        NumpyEngine(),
        folder / "t.csv",
        folder / "p.csv",
        record_col=["source", "uid"],
        link_only=True,
        source_col="source",
        on_mismatch="twinless",
        cells="always",
    )


def test_spark_local_cluster_gives_the_numpy_numbers(tmp_path: Path) -> None:
    """Two executors, each its own JVM, so that every shuffle crosses processes: text
    ids keyed by two columns, link-only, twinless records; the statistics and every
    metric are NumPy's (integers exactly, floats to 1e-12), and the executors end with
    the driver."""
    _needs_java()
    expected = _cluster_inputs(tmp_path)
    script = tmp_path / "cluster.py"
    script.write_text(_CLUSTER_SCRIPT)
    res = subprocess.run(
        [sys.executable, str(script), str(tmp_path), ",".join(METRICS)],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=600,
        check=False,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["executors"] == 2 and got["memory"] == "1024m"
    assert len(got["jvms"]) >= 3, got["jvms"]  # the driver and the two executors
    assert got["n_records"] == expected.n_records
    assert got["within_source"] == dataclasses.asdict(expected.within_source)
    values = {k: math.nan if v is None else v for k, v in got["metrics"].items()}
    assert_same_metrics(values, evaluate(expected, metrics=METRICS))
    assert not _none_left(set(got["jvms"]), within=60)


# -- Ctrl-C during a Spark job ----------------------------------------------------------


def _shuffle_started(scratch: Path) -> bool:
    """Whether Spark has written a shuffle file under ``scratch`` (a job is running)."""
    return any(scratch.glob("ereval-spark-*/local/blockmgr-*/*/shuffle_*"))


def _interruptible() -> None:
    """In the child, before ``exec``: SIGINT delivered, whatever the parent ignores."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("during", ["job", "start"])
def test_spark_interrupt_is_one_line_and_leaves_no_jvm(tmp_path: Path, during: str) -> None:
    """SIGINT to ``ereval metrics --engine spark`` while a job runs (a shuffle file is
    being written), or while the JVM starts: ``error: interrupted``, exit code 130, no
    traceback, and the JVM it started is gone when it exits."""
    _needs_java()
    rng = np.random.default_rng(5)
    n = 1_000_000
    ids = np.arange(n)
    write(
        pd.DataFrame({"record_id": ids, "cluster_id": rng.integers(0, n // 4, n)}),
        tmp_path / "t.parquet",
    )
    write(
        pd.DataFrame({"record_id": rng.permutation(ids), "cluster_id": rng.integers(0, n // 4, n)}),
        tmp_path / "p.parquet",
    )
    env = _env(tmp_path)
    args = ["metrics", str(tmp_path / "t.parquet"), str(tmp_path / "p.parquet")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ereval", *args, "--engine", "spark", "--spark-master", "local[2]"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        # as from a terminal: a suite started in the background (``&`` without job
        # control) hands its children SIGINT ignored, and ereval rightly keeps it so
        preexec_fn=_interruptible,
    )
    try:
        seen: set[int] = set()
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline:
            seen |= {pid for pid in _descendants(proc.pid) if _is_java(pid)}
            ready = _shuffle_started(Path(env["TMPDIR"])) if during == "job" else bool(seen)
            if ready:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the job ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert seen, "no JVM was started"
    assert err.decode().splitlines() == ["error: interrupted"], err.decode()[-3000:]
    assert proc.returncode == 130 and out == b""
    assert not _alive(seen), "a JVM outlived the interrupted command"
