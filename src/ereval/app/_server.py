"""Running the labelling app: address checks, the access token, quiet Uvicorn."""

from __future__ import annotations

import errno
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any

from .._errors import InputError
from .._optional import require
from ._security import is_loopback, new_token

__all__ = ["check_address", "default_reviewer", "resolve_token", "run", "serve"]


def check_address(host: str, port: int) -> None:
    """Raise :class:`InputError` if ``host:port`` cannot be listened on.

    Checked before the store is opened, so a busy port is reported at once.

    Examples
    --------
    >>> check_address("127.0.0.1", 70000)
    Traceback (most recent call last):
    ...
    ereval._errors.InputError: 'port' must lie in [0, 65535]; received 70000
    """
    if not 0 <= port <= 65535:
        raise InputError(f"'port' must lie in [0, 65535]; received {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError(f"'host' must be an address of this machine; received {host!r}") from exc
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(addr)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise InputError(
                    f"'port' {port} is already in use on {host}; choose another with --port"
                ) from exc
            raise InputError(
                f"'host' must be an address of this machine; received {host!r} ({exc.strerror})"
            ) from exc


def resolve_token(host: str, token: str | None) -> tuple[str | None, bool]:
    """The access token to use and whether it was generated here.

    On loopback a token is used only if given; on any other address one is
    required, and generated when not given.

    Examples
    --------
    >>> resolve_token("127.0.0.1", None)
    (None, False)
    >>> token, generated = resolve_token("0.0.0.0", None)
    >>> generated and len(token) > 20
    True
    """
    if token is not None:
        return token, False
    if is_loopback(host):
        return None, False
    return new_token(), True


def run(
    app: Any,
    *,
    host: str,
    port: int,
    on_ready: Callable[[int], None] | None = None,
) -> None:
    """Serve ``app`` with Uvicorn until interrupted, with quiet logs.

    ``on_ready`` is called with the port actually bound (useful with port 0)
    once the server accepts connections.
    """
    uvicorn = require("uvicorn", feature="the labelling app")
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        lifespan="off",
    )
    server = uvicorn.Server(config)
    if on_ready is not None:
        original_startup = server.startup

        async def startup(sockets: Any = None) -> None:
            await original_startup(sockets=sockets)
            bound = port
            for srv in getattr(server, "servers", []):
                for sock in srv.sockets:
                    bound = sock.getsockname()[1]
            on_ready(bound)
            sys.stdout.flush()

        server.startup = startup
    server.run()


def default_reviewer() -> str:
    """The login name of the user running the server (``"reviewer"`` if unknown)."""
    import getpass

    try:
        return getpass.getuser() or "reviewer"
    except (OSError, KeyError):
        return "reviewer"


def serve(
    db: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    reviewer: str | None = None,
    token: str | None = None,
    echo: Callable[[str], None] = print,
) -> None:
    """Serve the labelling app of label store ``db`` until interrupted.

    Parameters
    ----------
    db : path
        The label store (it must exist; ``ereval label init`` creates it).
    host : str, default "127.0.0.1"
        Address to listen on. Beyond loopback an access token is required.
    port : int, default 8000
        Port (0: any free port).
    reviewer : str, optional
        Who labels (default: the login name); each browser can choose another.
    token : str, optional
        Access token; generated and printed when ``host`` is not loopback.
    echo : callable
        Where the address of the app is printed.

    The server takes the store's lease first, so a second server on the same
    store is refused with a clear error; the lease is renewed while serving and
    given back on exit (a lease left by a killed server is taken over).
    """
    from ..labels import LabelStore
    from ._security import SecurityConfig
    from ._state import check_reviewer_name
    from ._web import create_app

    check_address(host, port)
    token, generated = resolve_token(host, token)
    security = SecurityConfig(host=host, token=token)
    who = check_reviewer_name(reviewer if reviewer is not None else default_reviewer())
    require("fastapi", feature="the labelling app")
    require("uvicorn", feature="the labelling app")
    store = LabelStore(db)
    try:
        lease = store.acquire_server(owner=f"ereval label serve ({host}:{port})")
        try:
            guard = create_app(store, reviewer=who, security=security, lease=lease)
            state = guard.app.state.ereval
            with state.lock:
                state.warm()
            stop = threading.Event()

            def beat() -> None:
                while not stop.wait(lease.ttl / 3):
                    try:
                        with state.lock:
                            lease.heartbeat()
                    except InputError as exc:  # another server took the store over
                        echo(f"error: {exc}")
                        os.kill(os.getpid(), signal.SIGTERM)  # Uvicorn shuts down cleanly
                        return

            threading.Thread(target=beat, name="ereval-lease", daemon=True).start()

            def ready(bound: int) -> None:
                shown = f"[{host}]" if ":" in host else host
                query = f"/?token={token}" if token else "/"
                echo(f"ereval labelling app for {store.path} at http://{shown}:{bound}{query}")
                if generated:
                    echo(f"access token (generated): {token}")
                echo(f"reviewer: {who} · press Ctrl-C to stop")

            try:
                run(guard, host=host, port=port, on_ready=ready)
            finally:
                stop.set()
                with state.lock:
                    lease.release()
        except BaseException:
            if not lease.released:
                lease.release()
            raise
    finally:
        store.close()
