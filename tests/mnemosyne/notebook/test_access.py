"""The page's login secrets and sessions (notebook/access.py), with a clock the tests move."""

from __future__ import annotations

from types import SimpleNamespace

from mymcp.plugins.mnemosyne.notebook.access import (
    LOGIN_SECONDS,
    MAX_SESSIONS,
    SESSION_IDLE_SECONDS,
    Access,
    access_of,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_login_secret_opens_one_session_once() -> None:
    access = Access()
    secret = access.issue_login()

    opened = access.redeem(secret)

    assert opened is not None
    cookie, session = opened
    assert access.session(cookie) is session
    assert access.redeem(secret) is None


def test_a_login_secret_expires() -> None:
    clock = Clock()
    access = Access(clock)
    secret = access.issue_login()

    clock.now += LOGIN_SECONDS + 1

    assert access.redeem(secret) is None


def test_an_unknown_secret_opens_nothing() -> None:
    access = Access()
    access.issue_login()

    assert access.redeem("not-the-secret") is None


def test_each_secret_and_session_is_different() -> None:
    access = Access()
    secrets = {access.issue_login() for _ in range(5)}
    sessions = [access.open_session() for _ in range(5)]

    assert len(secrets) == 5
    assert len({cookie for cookie, _ in sessions}) == 5
    assert len({session.csrf for _, session in sessions}) == 5


def test_a_session_ends_after_its_idle_time_and_each_use_restarts_it() -> None:
    clock = Clock()
    access = Access(clock)
    cookie, _ = access.open_session()

    clock.now += SESSION_IDLE_SECONDS - 1
    assert access.session(cookie) is not None
    clock.now += SESSION_IDLE_SECONDS - 1
    assert access.session(cookie) is not None
    clock.now += SESSION_IDLE_SECONDS + 1
    assert access.session(cookie) is None


def test_logging_out_ends_the_session() -> None:
    access = Access()
    cookie, _ = access.open_session()

    access.close(cookie)

    assert access.session(cookie) is None


def test_the_oldest_session_goes_when_the_table_is_full() -> None:
    access = Access()
    first, _ = access.open_session()
    others = [access.open_session()[0] for _ in range(MAX_SESSIONS)]

    assert access.session(first) is None
    assert all(access.session(cookie) is not None for cookie in others)


def test_no_cookie_is_no_session() -> None:
    access = Access()
    access.open_session()

    assert access.session(None) is None
    assert access.session("") is None


def test_the_csrf_token_must_match_exactly() -> None:
    _, session = Access().open_session()

    assert session.csrf_matches(session.csrf)
    assert not session.csrf_matches(None)
    assert not session.csrf_matches("")
    assert not session.csrf_matches(session.csrf + "x")
    assert not session.csrf_matches("\udcff")


def test_the_tables_hold_no_secret_or_cookie_itself() -> None:
    access = Access()
    secret = access.issue_login()
    cookie, _ = access.open_session()

    held = repr(vars(access))

    assert secret not in held
    assert cookie not in held


def test_each_app_has_its_own_access() -> None:
    one, two = SimpleNamespace(state=SimpleNamespace()), SimpleNamespace(state=SimpleNamespace())

    assert access_of(one) is access_of(one)
    assert access_of(one) is not access_of(two)
