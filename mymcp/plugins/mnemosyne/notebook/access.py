"""Who may open the notebook page: single-use login secrets and the sessions they open.

``mymcp notebook`` asks for a login secret and prints it in the page's address. Opening that
address hands the secret over once: it opens a session, whose key goes back as an
``HttpOnly``, ``SameSite=Strict`` cookie, and is gone. A secret is refused a second time and
after :data:`LOGIN_SECONDS`. Each session has its own CSRF token, which every change must
carry in a header, and ends after :data:`SESSION_IDLE_SECONDS` without a request, at log out,
or when the process stops (nothing is written anywhere).

Only digests of secrets and session keys are kept, so looking one up compares no secret
byte by byte, and the table never holds a value that would open the page.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "LOGIN_SECONDS",
    "MAX_SESSIONS",
    "SESSION_IDLE_SECONDS",
    "Access",
    "Session",
    "access_of",
]

LOGIN_SECONDS = 300.0
SESSION_IDLE_SECONDS = 12 * 3600.0
# Bounds of the tables: the oldest entry goes first when one is full.
MAX_LOGIN_SECRETS = 16
MAX_SESSIONS = 32
_SECRET_BYTES = 32

_V = TypeVar("_V")


@dataclass
class Session:
    """One logged-in browser: its CSRF token and when it ends unless used again."""

    csrf: str
    expires: float

    def csrf_matches(self, presented: str | None) -> bool:
        """Whether ``presented`` is this session's CSRF token (compared in constant time)."""
        return presented is not None and hmac.compare_digest(
            presented.encode("utf-8", "surrogateescape"), self.csrf.encode()
        )


class Access:
    """The login secrets and sessions of one app; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._secrets: OrderedDict[bytes, float] = OrderedDict()
        self._sessions: OrderedDict[bytes, Session] = OrderedDict()

    def issue_login(self) -> str:
        """A new single-use login secret, valid for :data:`LOGIN_SECONDS`."""
        secret = secrets.token_urlsafe(_SECRET_BYTES)
        with self._lock:
            _bounded(self._secrets, MAX_LOGIN_SECRETS)
            self._secrets[_digest(secret)] = self._clock() + LOGIN_SECONDS
        return secret

    def redeem(self, secret: str) -> tuple[str, Session] | None:
        """The cookie value and session a valid secret opens, or None; either way it is spent."""
        with self._lock:
            expires = self._secrets.pop(_digest(secret), None)
        if expires is None or expires <= self._clock():
            return None
        return self.open_session()

    def open_session(self) -> tuple[str, Session]:
        """A new session, and the cookie value that names it."""
        key = secrets.token_urlsafe(_SECRET_BYTES)
        session = Session(secrets.token_urlsafe(_SECRET_BYTES), 0.0)
        with self._lock:
            _bounded(self._sessions, MAX_SESSIONS)
            session.expires = self._clock() + SESSION_IDLE_SECONDS
            self._sessions[_digest(key)] = session
        return key, session

    def session(self, cookie: str | None) -> Session | None:
        """The live session the cookie names, its idle time restarted; None otherwise."""
        if not cookie:
            return None
        digest = _digest(cookie)
        now = self._clock()
        with self._lock:
            session = self._sessions.get(digest)
            if session is None:
                return None
            if session.expires <= now:
                del self._sessions[digest]
                return None
            session.expires = now + SESSION_IDLE_SECONDS
            self._sessions.move_to_end(digest)
            return session

    def close(self, cookie: str | None) -> None:
        """End the session the cookie names, if any."""
        if cookie:
            with self._lock:
                self._sessions.pop(_digest(cookie), None)


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8", "surrogateescape")).digest()


def _bounded(table: OrderedDict[bytes, _V], size: int) -> None:
    while len(table) >= size:
        table.popitem(last=False)


_creation = threading.Lock()


def access_of(app: Any) -> Access:
    """The :class:`Access` of one app (made on first use, kept in ``app.state``)."""
    state = app.state
    with _creation:
        access = getattr(state, "notebook_access", None)
        if not isinstance(access, Access):
            access = Access()
            state.notebook_access = access
    return access
