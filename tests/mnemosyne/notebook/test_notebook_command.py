"""``mymcp notebook`` as a person runs it: the login address first, then the page and /mcp."""

from __future__ import annotations

import re
import socket
import stat
import sys
import time
from pathlib import Path

import httpx
import pytest

from mymcp.plugins.mnemosyne.notebook import launch
from tests.helpers import canonical_record, place_canonical
from tests.processes import (
    child_environment,
    finished,
    free_port,
    mymcp_command,
    running_notebook,
)
from tests.surface import GATE_OF

LOGIN_LINE = re.compile(r"http://127\.0\.0\.1:(\d+)/notebook/login#secret=([A-Za-z0-9_-]{40,})")


def _log_in(client: httpx.Client, secret: str) -> None:
    response = client.post("/notebook/login", json={"secret": secret})
    assert response.status_code == 204, response.text


@pytest.mark.slow
def test_the_first_line_logs_in_once_and_shows_the_titles(tmp_path: Path) -> None:
    place_canonical(tmp_path / "memory", canonical_record(title="Printed-address title"))

    with running_notebook(tmp_path) as notebook:
        match = LOGIN_LINE.fullmatch(notebook.login_url)
        assert match is not None, notebook.login_url
        assert int(match[1]) == notebook.port
        secret = match[2]
        with httpx.Client(base_url=notebook.base_url) as browser:
            _log_in(browser, secret)
            rows = browser.get("/notebook/api/overview").json()["memories"]
            cookie = browser.cookies[f"mymcp_notebook_{notebook.port}"]
        with httpx.Client(base_url=notebook.base_url) as stranger:
            again = stranger.post("/notebook/login", json={"secret": secret})
            unauthorised = stranger.get("/notebook/api/overview")
            tools = stranger.post(
                "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            ).json()
        notebook.stop()
        assert notebook.process.stdout is not None
        rest = notebook.process.stdout.read()
        log = notebook.log()

    assert [row["title"] for row in rows] == ["Printed-address title"]
    assert again.status_code == 401
    assert unauthorised.status_code == 401
    assert "Printed-address title" not in unauthorised.text
    names = [tool["name"] for tool in tools["result"]["tools"]]
    assert names[:2] == ["list_tools", "memory_recall"]
    assert rest == b""  # standard output carries the address alone
    assert secret not in log and cookie not in log
    assert "Printed-address title" not in log
    assert "event=notebook_login outcome=ok" in log
    assert '"GET /notebook/api/overview HTTP/1.1" 200' in log  # access lines: path, no secret


@pytest.mark.slow
def test_it_opens_the_address_in_the_browser_unless_told_not_to(tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f"#!/bin/sh\nprintf '%s' \"$1\" > {opened}\n", encoding="utf-8")
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)

    with running_notebook(tmp_path, {"BROWSER": str(browser)}, options=()) as notebook:
        for _ in range(100):
            if opened.exists() and opened.read_text():
                break
            time.sleep(0.05)
        url = notebook.login_url

    assert opened.read_text(encoding="utf-8") == url


@pytest.mark.slow
def test_a_port_in_use_is_one_plain_line(tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        done = finished(
            mymcp_command("notebook", "--no-browser", "--port", str(port)),
            child_environment(tmp_path, tmp_path / "memory"),
        )

    assert done.returncode == 1
    assert done.stdout == ""
    assert f"port {port} on 127.0.0.1 is already in use" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_setup_mistake_prints_no_address(tmp_path: Path) -> None:
    env = child_environment(tmp_path, tmp_path / "memory", {GATE_OF["forget"]: "yes"})

    done = finished(mymcp_command("notebook", "--no-browser", "--port", str(free_port())), env)

    assert done.returncode == 1
    assert done.stdout == ""
    assert GATE_OF["forget"] in done.stderr
    assert "Traceback" not in done.stderr


def test_the_login_address_names_the_host_the_port_and_the_secret() -> None:
    assert launch.login_url("127.0.0.1", 8000, "abc") == (
        "http://127.0.0.1:8000/notebook/login#secret=abc"
    )
    assert launch.login_url("::1", 9000, "abc") == "http://[::1]:9000/notebook/login#secret=abc"


def test_without_a_display_no_browser_is_tried(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    tried: list[str] = []
    monkeypatch.setattr("webbrowser.open", tried.append)

    launch.open_in_browser("http://127.0.0.1:1/notebook/login#secret=x")

    assert tried == []
    assert capsys.readouterr().err.count("\n") == 1


def test_a_browser_that_cannot_open_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr("webbrowser.open", lambda url: False)

    launch.open_in_browser("http://127.0.0.1:1/notebook/login#secret=x")

    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("mymcp: ") and captured.err.count("\n") == 1
    assert "secret" not in captured.err
