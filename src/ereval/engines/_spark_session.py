"""Spark sessions for the Spark engine: checking the options, starting a quiet local
session, telling Spark DataFrames apart, and Spark's errors as one line.

A new session is local by default (``local[*]``), without web UI or progress
bars, with few shuffle partitions, its warehouse and scratch space in a
temporary folder removed at exit; the JVM it starts logs errors only, to a file
(its stderr is sent there while it starts), never to the user's terminal.

Ctrl-C (SIGINT) in a new session is a plain ``KeyboardInterrupt``: one that
comes while the JVM starts is held until it has started, and PySpark's own
handler, which calls the JVM from inside the signal handler while the main
thread waits on it, is replaced. :func:`end_session` then ends the JVM without
asking it anything (its connection is left mid-answer by the interrupt).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._optional import require
from ._plan import check_memory_size, limit_bytes

__all__ = [
    "QUIET_LOG4J",
    "check_spark_conf",
    "check_spark_master",
    "check_spark_memory",
    "end_session",
    "is_spark_dataframe",
    "java_executable",
    "memory_settings",
    "new_session",
    "spark_error",
]

#: The log4j2 configuration of the JVMs that the engine starts: errors only.
QUIET_LOG4J = Path(__file__).with_name("log4j2-quiet.properties")

_MASTER = re.compile(
    r"^(local(\[(\*|\d+)(,\s*\d+)?\])?|local-cluster\[\d+,\s*\d+,\s*\d+\]|yarn"
    r"|(spark|k8s|mesos)://\S+)$"
)


def check_spark_master(value: str | None) -> str | None:
    """``value`` if it is a Spark master URL (``local[4]``, ``spark://host:7077``, ...).

    Examples
    --------
    >>> check_spark_master(" local-cluster[2, 1, 1024] ")
    'local-cluster[2, 1, 1024]'
    """
    if value is None:
        return None
    if not isinstance(value, str) or not _MASTER.match(value.strip()):
        raise InputError(
            "'master' must be a Spark master such as 'local[*]', 'local[4]', "
            "'local-cluster[2,1,1024]', 'spark://HOST:7077', 'yarn' or 'k8s://URL'; "
            f"received {value!r}"
        )
    return value.strip()


#: The smallest heap a Spark JVM is given: Spark keeps 300 MiB of it for itself and
#: refuses to start with less than 1.5 times that (450 MiB), which a JVM started with
#: that much heap does not quite report.
MIN_SPARK_MEMORY = "512MB"

_LOCAL_CLUSTER = re.compile(r"^local-cluster\[\d+,\s*\d+,\s*(\d+)\]$")


def memory_settings(memory_limit: str, master: str | None) -> dict[str, str]:
    """The Spark settings of ``memory_limit``: the heap of the driver, which does the work
    of a local master, and on any other master that of each executor too, in whole
    mebibytes (Spark's ``m``).

    Examples
    --------
    >>> memory_settings("2GiB", "local[2]")
    {'spark.driver.memory': '2048m'}
    >>> memory_settings("1GB", "local-cluster[2,1,1024]")
    {'spark.driver.memory': '953m', 'spark.executor.memory': '953m'}
    """
    heap = f"{limit_bytes(memory_limit) // 2**20}m"
    master = master or "local[*]"
    if master == "local" or master.startswith("local["):
        return {"spark.driver.memory": heap}
    return {"spark.driver.memory": heap, "spark.executor.memory": heap}


def check_spark_memory(
    value: str | None, *, master: str | None, conf: Mapping[str, str]
) -> str | None:
    """``value`` if it is a memory size (``"4GB"``) Spark can run in, at least
    :data:`MIN_SPARK_MEMORY`, that no setting of ``conf`` contradicts and, on a
    ``local-cluster[N,C,MB]`` master, within the memory of a worker."""
    value = check_memory_size(
        "memory_limit",
        value,
        minimum=MIN_SPARK_MEMORY,
        why="Spark keeps 300 MiB of each JVM's heap for itself",
    )
    if value is None:
        return None
    settings = memory_settings(value, master)
    for key in settings:
        if key in conf:
            raise InputError(
                f"'memory_limit' sets {key!r}, which 'conf' sets too; give one of them"
            )
    workers = _LOCAL_CLUSTER.match(master or "")
    if workers is not None and limit_bytes(value) > int(workers.group(1)) * 2**20:
        raise InputError(
            f"'memory_limit' must be at most the memory of a worker of {master!r} "
            f"({workers.group(1)} MiB); received {value!r}"
        )
    return value


def check_spark_conf(value: Mapping[str, Any] | None) -> dict[str, str]:
    """``value`` as Spark settings: keys starting ``spark.``, values as text."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(
            f"'conf' must map Spark setting names to values; received {type(value).__name__}"
        )
    out: dict[str, str] = {}
    for key, v in value.items():
        if not isinstance(key, str) or not key.startswith("spark."):
            raise InputError(
                f"'conf' keys are Spark settings starting with 'spark.'; received {key!r}"
            )
        if v is None or (isinstance(v, str) and not v.strip()):
            raise InputError(f"'conf': setting {key!r} has no value")
        out[key] = str(v).lower() if isinstance(v, bool) else str(v)
    return out


def is_spark_dataframe(value: Any) -> bool:
    """True when ``value`` is a Spark DataFrame (without importing PySpark)."""
    cls = type(value)
    return cls.__name__ == "DataFrame" and cls.__module__.startswith("pyspark.sql")


def java_executable() -> str | None:
    """The ``java`` Spark would start: ``$JAVA_HOME/bin/java``, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        return str(candidate) if candidate.is_file() else None
    return shutil.which("java")


def spark_error(exc: BaseException) -> str:
    """One line describing a Spark or Java error, without its stack trace."""
    text = str(exc)
    causes = re.findall(r"^Caused by: (.+)$", text, flags=re.MULTILINE)
    if causes:
        line = causes[-1]
    else:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        picked = [ln for ln in lines if not ln.startswith(("An error occurred", "at ", "JVM"))]
        line = (picked or lines or [type(exc).__name__])[0].lstrip(": ")
    line = re.sub(r"\b(?:[a-z][a-z0-9_]*\.)+([A-Z]\w*(?:Exception|Error))", r"\1", line)
    line = re.sub(r"\s*SQLSTATE: \w+\.?", "", line).strip()
    return line if len(line) <= 300 else line[:297] + "..."


@contextlib.contextmanager
def _jvm_stderr_to(path: Path) -> Iterator[None]:
    """Send this process's stderr (file descriptor 2) to ``path`` while the JVM starts,
    so that the JVM, which inherits it, logs there rather than on the terminal."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to redirect
        yield
        return
    try:
        with open(path, "ab") as log:
            os.dup2(log.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@contextlib.contextmanager
def _held_interrupts() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) that comes while the JVM starts, and raise it as
    ``KeyboardInterrupt`` once the block is done, so that the JVM is known and can be
    ended; afterwards Ctrl-C raises ``KeyboardInterrupt`` at once (PySpark's handler,
    set while the session starts, is dropped). Only the main thread receives signals:
    elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        ignored = previous == signal.SIG_IGN  # e.g. a background job: left as it was
        signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler)
    if held:
        raise KeyboardInterrupt


def new_session(
    master: str | None = None,
    conf: Mapping[str, str] | None = None,
    *,
    memory_limit: str | None = None,
) -> Any:
    """A new Spark session: local by default, quiet, with a temporary warehouse.

    Defaults (``conf`` overrides them): master ``local[*]``; no web UI and no
    progress bars; for a local master, shuffle partitions twice the cores;
    ``spark.sql.warehouse.dir`` and ``spark.local.dir`` in a temporary folder
    removed at exit; the JVM logs errors only, to ``spark.log`` in that folder;
    ``memory_limit`` as the heap of the driver (and of each executor on any
    master but a local one, see :func:`memory_settings`). Ctrl-C raises
    ``KeyboardInterrupt`` (held while the JVM starts); the caller ends an
    interrupted session with :func:`end_session`.
    """
    require("pyspark", feature="the Spark engine")
    java = java_executable()
    if java is None:
        raise InputError(
            "the Spark engine needs Java 17 or later: no 'java' found (set JAVA_HOME or put "
            "java on PATH), or use engine='duckdb'"
        )
    from pyspark.sql import SparkSession

    master = master or "local[*]"
    work = Path(tempfile.mkdtemp(prefix="ereval-spark-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.warehouse.dir": str(work / "warehouse"),
        "spark.local.dir": str(work / "local"),
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{QUIET_LOG4J}",
        "spark.sql.session.timeZone": "UTC",
    }
    if master.startswith("local["):  # the executors are this JVM; on a cluster, their own
        settings["spark.sql.shuffle.partitions"] = str(2 * (os.cpu_count() or 1))
    workers = _LOCAL_CLUSTER.match(master)
    if workers is not None:  # executors of this machine: as many partitions, as quiet
        n, cores = (int(v) for v in re.findall(r"\d+", master)[:2])
        settings["spark.sql.shuffle.partitions"] = str(2 * n * cores)
        settings["spark.executor.extraJavaOptions"] = settings["spark.driver.extraJavaOptions"]
    if memory_limit is not None:
        settings.update(memory_settings(memory_limit, master))
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName("ereval")
    for key, value in settings.items():
        builder = builder.config(key, value)
    from pyspark import SparkContext

    started = SparkContext._gateway is None  # else a JVM of the user's, never ended here
    try:
        with _held_interrupts(), _jvm_stderr_to(work / "spark.log"):
            session = builder.getOrCreate()
            session.sparkContext.setLogLevel("ERROR")
    except KeyboardInterrupt:
        if started:
            _end_jvm()
        raise
    except Exception as exc:  # py4j and Spark raise their own types
        if started:
            _end_jvm()
        raise InputError(
            f"'master': cannot start Spark on {master!r} ({spark_error(exc)}); "
            f"see {work / 'spark.log'}"
        ) from exc
    return session


def end_session(session: Any) -> None:
    """End ``session``, started by :func:`new_session`, at once (see :func:`_end_jvm`);
    nothing when it has ended already."""
    from pyspark import SparkContext

    if session.sparkContext is SparkContext._active_spark_context:
        _end_jvm()


def _end_jvm() -> None:
    """End the JVM that PySpark started, if any, without asking it anything: SIGTERM
    (its shutdown hooks stop the executors of a ``local-cluster`` master), SIGKILL
    after 10 s; then PySpark forgets its session and gateway, so that a new session
    can start."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc is not None and proc.stdin is not None:  # the pipe the JVM watches for its end
        proc.stdin.close()
    context = SparkContext._active_spark_context
    with warnings.catch_warnings(), contextlib.suppress(Exception):
        warnings.simplefilter("ignore")  # "Unable to cleanly shutdown Spark JVM process"
        if context is not None:
            context.stop()
    with contextlib.suppress(Exception):
        if gateway is not None:
            gateway.close()
    SparkContext._gateway = None
    SparkContext._jvm = None
    SparkContext._active_spark_context = None
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None
