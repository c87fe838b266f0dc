"""Running the labelling app: address checks, the access token, quiet Uvicorn."""

from __future__ import annotations

import errno
import socket
import sys
from collections.abc import Callable
from typing import Any

from .._errors import InputError
from .._optional import require
from ._security import is_loopback, new_token

__all__ = ["check_address", "resolve_token", "run"]


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

        server.startup = startup  # type: ignore[method-assign]
    server.run()
