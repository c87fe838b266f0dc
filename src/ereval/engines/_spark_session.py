"""Spark sessions for the Spark engine: checking the options, starting a quiet local
session, telling Spark DataFrames apart, and Spark's errors as one line.

A new session is local by default (``local[*]``), without web UI or progress
bars, with few shuffle partitions, its warehouse and scratch space in a
temporary folder removed at exit; the JVM it starts logs errors only, to a file
(its stderr is sent there while it starts), never to the user's terminal.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._optional import require

__all__ = [
    "QUIET_LOG4J",
    "check_spark_conf",
    "check_spark_master",
    "is_spark_dataframe",
    "java_executable",
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
    """``value`` if it is a Spark master URL (``local[4]``, ``spark://host:7077``, ...)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _MASTER.match(value.strip()):
        raise InputError(
            "'spark_master' must be a Spark master such as 'local[*]', 'local[4]', "
            f"'spark://HOST:7077', 'yarn' or 'k8s://URL'; received {value!r}"
        )
    return value.strip()


def check_spark_conf(value: Mapping[str, Any] | None) -> dict[str, str]:
    """``value`` as Spark settings: keys starting ``spark.``, values as text."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(
            f"'spark_conf' must map Spark setting names to values; received {type(value).__name__}"
        )
    out: dict[str, str] = {}
    for key, v in value.items():
        if not isinstance(key, str) or not key.startswith("spark."):
            raise InputError(
                f"'spark_conf' keys are Spark settings starting with 'spark.'; received {key!r}"
            )
        if v is None or (isinstance(v, str) and not v.strip()):
            raise InputError(f"'spark_conf': setting {key!r} has no value")
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


def new_session(master: str | None = None, conf: Mapping[str, str] | None = None) -> Any:
    """A new Spark session: local by default, quiet, with a temporary warehouse.

    Defaults (``conf`` overrides them): master ``local[*]``; no web UI and no
    progress bars; for a local master, shuffle partitions twice the cores;
    ``spark.sql.warehouse.dir`` and ``spark.local.dir`` in a temporary folder
    removed at exit; the JVM logs errors only, to ``spark.log`` in that folder.
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
    if master.startswith("local"):  # the executors are this JVM; on a cluster, their own
        settings["spark.sql.shuffle.partitions"] = str(2 * (os.cpu_count() or 1))
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName("ereval")
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        with _jvm_stderr_to(work / "spark.log"):
            session = builder.getOrCreate()
            session.sparkContext.setLogLevel("ERROR")
    except Exception as exc:  # py4j and Spark raise their own types
        raise InputError(
            f"'spark_master': cannot start Spark on {master!r} ({spark_error(exc)}); "
            f"see {work / 'spark.log'}"
        ) from exc
    return session
