"""Who may talk to the labelling app, and which requests may change labels.

Three guards, applied to every request by :class:`Guard` before any route runs:

* **access token** -- required when the server listens beyond the loopback
  interface. A browser presents it once (``?token=...`` in the address the server
  prints), receives it back as an ``HttpOnly`` cookie and is let in from then on;
  scripts may send ``Authorization: Bearer <token>`` instead. Tokens are compared
  in constant time.
* **host check** -- on loopback the ``Host`` header must name the loopback
  address, which stops DNS-rebinding pages from reaching the server.
* **CSRF token** -- every state-changing request (``POST``) must carry the
  token of its browser session (form field ``csrf`` or header ``X-CSRF-Token``):
  an HMAC of the session cookie under a secret that lives only in the server
  process, so another site can neither read nor forge it. A form of a page
  older than the server (it restarted) carries a token of the old secret: it is
  refused, and the browser is sent back to the page the form names (``back``,
  a path of the app) with a notice, nothing done.

Every page is also sent with a Content-Security-Policy that allows scripts from
the app itself only: record content is HTML-escaped by the templates, and even
markup that slipped through could not run a script.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from .._errors import InputError

__all__ = [
    "CSRF_FIELD",
    "SESSION_COOKIE",
    "TOKEN_COOKIE",
    "Guard",
    "SecurityConfig",
    "is_loopback",
    "new_token",
]

SESSION_COOKIE = "ereval_session"
TOKEN_COOKIE = "ereval_token"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
#: The form field naming the page a form was sent from (a path of this app).
BACK_FIELD = "back"

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def new_token() -> str:
    """A fresh random token (32 bytes, URL-safe text).

    Examples
    --------
    >>> len(new_token()) >= 40
    True
    """
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is the loopback interface only.

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost")
    (True, True, True)
    >>> is_loopback("0.0.0.0"), is_loopback("192.168.1.5")
    (False, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class SecurityConfig:
    """The secrets and rules of one server process.

    Parameters
    ----------
    host : str
        The address the server listens on.
    token : str or None
        The access token; required (not ``None``) unless ``host`` is loopback.
    secret : bytes
        Key of the CSRF tokens (random per process by default).

    Examples
    --------
    >>> SecurityConfig(host="0.0.0.0", token=None)
    Traceback (most recent call last):
    ...
    ereval._errors.InputError: 'token' is required when 'host' is not a loopback address; received host='0.0.0.0'
    >>> SecurityConfig(host="127.0.0.1", token=None).token_required
    False
    """

    host: str
    token: str | None
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    def __post_init__(self) -> None:
        if self.token is not None and len(self.token) < 8:
            raise InputError(f"'token' must have at least 8 characters; received {len(self.token)}")
        if self.token is None and not is_loopback(self.host):
            raise InputError(
                "'token' is required when 'host' is not a loopback address; "
                f"received host={self.host!r}"
            )

    @property
    def token_required(self) -> bool:
        """Whether requests must present the access token."""
        return self.token is not None

    def csrf_for(self, session: str) -> str:
        """The CSRF token of a browser session."""
        return hmac.new(self.secret, session.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, session: str | None, presented: str | None) -> bool:
        """Whether ``presented`` is the CSRF token of ``session``."""
        if not session or not presented:
            return False
        return hmac.compare_digest(self.csrf_for(session), presented)

    def token_ok(self, presented: str | None) -> bool:
        """Whether ``presented`` is the access token (always true without one)."""
        if self.token is None:
            return True
        return presented is not None and hmac.compare_digest(
            presented.encode(), self.token.encode()
        )


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in headers.get("cookie", "").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep:
            out[name] = value
    return out


def _host_name(host_header: str) -> str:
    if host_header.startswith("["):
        return host_header[1 : host_header.find("]")]
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


Scope = dict[str, Any]


class Guard:
    """ASGI middleware enforcing the access token, the host check and CSRF.

    A refused request gets a plain-text ``403`` (``401`` for a missing access
    token) and never reaches the application. The browser session id and its
    CSRF token are put in ``scope["state"]`` for the templates.
    """

    def __init__(self, app: Any, config: SecurityConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        cookies = _cookies(headers)
        cfg = self.config
        set_cookies: list[str] = []

        if not cfg.token_required and not is_loopback(_host_name(headers.get("host", ""))):
            await _refuse(send, 403, "refused: this server answers only to 127.0.0.1/localhost")
            return

        if cfg.token_required:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            from_query = query.get("token", [None])[0]
            auth = headers.get("authorization", "")
            bearer = auth[7:] if auth.lower().startswith("bearer ") else None
            presented = from_query or bearer or cookies.get(TOKEN_COOKIE)
            if not cfg.token_ok(presented):
                await _refuse(send, 401, "refused: this server needs its access token")
                return
            if from_query and cookies.get(TOKEN_COOKIE) != from_query:
                set_cookies.append(
                    f"{TOKEN_COOKIE}={from_query}; Path=/; HttpOnly; SameSite=Strict"
                )

        session = cookies.get(SESSION_COOKIE)
        if (
            not session
            or len(session) < 16
            or not session.replace("-", "").replace("_", "").isalnum()
        ):
            session = new_token()
            set_cookies.append(f"{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict")

        method = scope["method"]
        if method not in ("GET", "HEAD", "OPTIONS"):
            presented_csrf = headers.get(CSRF_HEADER)
            back = None
            if presented_csrf is None:
                body, receive = await _read_body(receive)
                if "application/x-www-form-urlencoded" in headers.get("content-type", ""):
                    form = parse_qs(body.decode("utf-8", "replace"))
                    presented_csrf = form.get(CSRF_FIELD, [None])[0]
                    back = _local(form.get(BACK_FIELD, [None])[0])
            if not cfg.csrf_ok(cookies.get(SESSION_COOKIE), presented_csrf):
                if back is not None and presented_csrf:
                    # a page older than this server (it restarted): nothing is done, and
                    # the page comes back with a fresh token, what was typed kept
                    await _reload(send, back, set_cookies)
                    return
                await _refuse(send, 403, "refused: missing or wrong CSRF token")
                return

        scope.setdefault("state", {})
        scope["state"]["session"] = session
        scope["state"]["csrf"] = cfg.csrf_for(session)

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"set-cookie", c.encode("latin-1")) for c in set_cookies]
                extra += [
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"cache-control", b"no-store"),
                ]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _read_body(receive: Any) -> tuple[bytes, Any]:
    """Read the whole request body and return it with a receive that replays it."""
    chunks: list[bytes] = []
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        result: dict[str, Any] = await receive()
        return result

    return body, replay


def _local(path: str | None) -> str | None:
    """``path`` when it is a path of this app (never another site), else ``None``.

    Examples
    --------
    >>> _local("/s/main/review?item=r1"), _local("//evil.example/"), _local("https://x/")
    ('/s/main/review?item=r1', None, None)
    """
    if not path or not path.startswith("/") or path.startswith(("//", "/\\")):
        return None
    if any(ord(ch) < 32 for ch in path):
        return None
    return path


async def _reload(send: Any, back: str, set_cookies: list[str]) -> None:
    """Send the browser back to the page its form came from, saying the server restarted."""
    target = back + ("&" if "?" in back else "?") + "notice=restarted"
    headers = [
        (b"location", target.encode("latin-1", "replace")),
        (b"content-length", b"0"),
        (b"content-security-policy", CSP.encode()),
        (b"cache-control", b"no-store"),
        *((b"set-cookie", c.encode("latin-1")) for c in set_cookies),
    ]
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _refuse(send: Any, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"content-security-policy", CSP.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
