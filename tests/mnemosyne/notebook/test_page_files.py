"""The page's own files: nothing inline, nothing from elsewhere, data only ever as text."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import mymcp.plugins.mnemosyne.notebook

STATIC = Path(mymcp.plugins.mnemosyne.notebook.__file__).parent / "static"
PAGES = sorted(STATIC.glob("*.html"))
SCRIPTS = sorted(STATIC.glob("*.js"))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        if self.tags and self.tags[-1][0] == "script" and data.strip():
            self.inline_script = True


def _tags(page: Path) -> _Tags:
    parser = _Tags()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_there_are_pages_and_scripts() -> None:
    assert [page.name for page in PAGES] == ["app.html", "login.html"]
    assert [script.name for script in SCRIPTS] == ["app.js", "login.js"]


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_a_page_has_no_inline_script_or_style(page: Path) -> None:
    parsed = _tags(page)

    assert not parsed.inline_script
    assert "style" not in [tag for tag, _ in parsed.tags]
    for tag, attributes in parsed.tags:
        assert "style" not in attributes, tag
        assert not [name for name in attributes if name.startswith("on")], tag
        if tag == "script":
            assert (attributes.get("src") or "").startswith("assets/"), attributes


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_a_page_loads_nothing_from_another_origin(page: Path) -> None:
    for _, attributes in _tags(page).tags:
        for name in ("src", "href"):
            value = attributes.get(name) or ""
            assert "//" not in value and not value.startswith("data:"), value


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_a_script_never_parses_text_as_html_or_code(script: Path) -> None:
    text = script.read_text(encoding="utf-8")

    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in text, sink
    assert not re.search(r"new\s+Function", text)
    assert not re.search(r"https?://", text)


def test_the_style_sheet_follows_the_system_s_light_or_dark_choice() -> None:
    css = (STATIC / "style.css").read_text(encoding="utf-8")

    assert "prefers-color-scheme: dark" in css
    assert "@import" not in css and "url(" not in css
