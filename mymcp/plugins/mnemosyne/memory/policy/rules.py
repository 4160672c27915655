"""The table of rules: ``rules.toml``, one entry per rule, in the contract's order (private
keys, credentials, compact tokens, government identifiers, payment cards).

An entry is a TOML table under the rule's id. It holds the ``reason`` a refusal reports,
its samples (``refuse``: texts the rule itself must refuse; ``store``: look-alikes the
whole policy must store; the tests run them and the package does not keep them) and one
way of finding candidates:

- a provider token: ``prefixes`` (space-separated), ``body`` (the pattern of the rest) and
  ``boundary`` (the characters that may not stand before a prefix; letters and digits
  unless it says more). A body that a placeholder stands for is stored; with
  ``placeholders = "contract"`` only the bodies docs/DIFFERENCES.md names are (X's, zeros,
  ``your…``). Its keywords are its prefixes, found at the start of a long token;
- a national number: ``check`` (a python-stdnum module, or a name of
  :data:`.checksums.NATIONAL`) and the ``shapes`` it is written in (``0`` a digit, ``A`` a
  capital, separators as themselves); a benign label ("order") before it makes it no
  identifier unless ``labelled = false``; with ``labels``, only a number one of them names
  (shortly before it, on its line) counts, and with ``starts``, only one that starts so;
- a ``pattern`` (with ``flags``: ``i`` any case, ``x`` verbose, ``a`` ASCII, ``m`` ``^``
  and ``$`` at every line), searched in
  the value, or in its long tokens with ``scan = "tokens"``, or matched where a word of
  ``at`` occurs (as a word of the text, or anywhere with ``inside = true``), and tried
  only when the text's shape (see :mod:`.engine`) holds ``shape`` (``"000"``: three digits
  in a row); ``secret`` names the group that a placeholder may stand for;
- ``find``: the name of a finder of :mod:`.matchers`.

``valid`` names a validator of :mod:`.matchers`. ``keywords`` (``tokens = true`` for
keywords looked for in the long tokens, ``#…`` for a piece of the text's shape) let the rule
run (see :mod:`.engine`), or name a word list of :mod:`.matchers` that its finder reads
too; without them a token rule's are its prefixes, a national number's a digit and an
``at`` rule's its words. Every rule finds everything it needs itself.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from mymcp.plugins.mnemosyne.memory.policy import matchers, values
from mymcp.plugins.mnemosyne.memory.policy.checksums import NATIONAL, stdnum
from mymcp.plugins.mnemosyne.memory.policy.engine import Finder, Rule, Table, Text, Validator

Entry = dict[str, Any]

# A pattern is compiled when its rule first runs: most never do in a process.
_compiled = functools.cache(re.compile)
_FLAGS = {"i": re.IGNORECASE, "x": re.VERBOSE, "a": re.ASCII, "m": re.MULTILINE}


def _flags(entry: Entry) -> int:
    return sum(_FLAGS[flag] for flag in entry.get("flags", ""))


def _token(entry: Entry) -> tuple[Finder, Validator, tuple[str, ...]]:
    """A provider token: each place its pattern matches (a rejected match hides no token
    that starts inside it), the body after the prefix, and whether that body is real."""
    prefixes = entry["prefixes"].split()
    boundary = entry.get("boundary", "A-Za-z0-9")
    alternatives, sizes = "|".join(map(re.escape, prefixes)), {len(p) for p in prefixes}
    # The boundary is checked after the prefix, so that the search skips to a prefix's first
    # character: in the pattern when the prefixes are as long, apart otherwise.
    behind = f"(?<![{boundary}].{{{sizes.pop()}}})" if len(sizes) == 1 else ""
    pattern = f"(?P<prefix>{alternatives}){behind}(?:{entry['body']})"
    before = _compiled("(?!)" if behind else f"[{boundary}]")

    def find(text: Text) -> Iterator[str]:
        compiled, tokens = _compiled(pattern), text.token_text()
        match = compiled.search(tokens)
        while match is not None:
            at = match.start()
            if not (at and before.match(tokens, at - 1)):
                yield tokens[match.end("prefix") : match.end()]
            match = compiled.search(tokens, at + 1)

    placeholder = values.placeholder_body if entry.get("placeholders") == "contract" else _stands
    return find, lambda text, body: not placeholder(body), tuple(prefixes)


def _stands(value: str) -> bool:
    """Any placeholder stands for ``value`` (``XXXX…``, ``0000…``, ``your-…``, ``<…>``)."""
    return values.is_placeholder(value, quoted=True, words=False)


def _national(entry: Entry) -> tuple[Finder, Validator]:
    check = NATIONAL.get(entry["check"]) or stdnum(entry["check"])
    find = matchers.formatted(
        tuple(shape.encode() for shape in entry["shapes"]),
        labelled=entry.get("labelled", True),
        labels=tuple(entry.get("labels", ())),
        starts=entry.get("starts", ""),
    )
    return find, lambda text, number: check(number)


def _pattern(entry: Entry) -> Finder:
    source, flags, shape = entry["pattern"], _flags(entry), entry.get("shape", "").encode()
    if "at" in entry:
        words, inside = tuple(entry["at"]), entry.get("inside", False)

        def at(text: Text) -> Iterator[re.Match[str]]:
            compiled = _compiled(source, flags)
            spots = (s for word in words for s in text.at(word)) if inside else text.spots(words)
            for spot in spots:
                if (match := compiled.match(text.value, spot)) is not None:
                    yield match

        find = at
    elif entry.get("scan") == "tokens":
        find = lambda text: _compiled(source, flags).finditer(text.token_text())  # noqa: E731
    else:
        find = lambda text: _compiled(source, flags).finditer(text.value)  # noqa: E731
    return (lambda text: find(text) if shape in text.shape else ()) if shape else find


def _secret(group: str | int) -> Validator:
    return lambda text, match: not _stands(match.group(group))


def _named(name: str | None) -> Callable[..., Any] | None:
    return None if name is None else getattr(matchers, name)


def rule(id: str, entry: Entry) -> Rule:
    """The rule of one entry of the table (see the module docstring)."""
    keywords: tuple[str, ...] = ()
    tokens = entry.get("tokens", False)
    valid = _named(entry.get("valid"))
    if "prefixes" in entry:
        find, valid, keywords = _token(entry)
        tokens = True
    elif "check" in entry:
        find, valid = _national(entry)
        keywords = ("#0",)  # a digit
    elif "pattern" in entry:
        find = _pattern(entry)
        keywords = tuple(entry.get("at", ()))
        if "secret" in entry:
            valid = _secret(entry["secret"])
    else:
        find = getattr(matchers, entry["find"])
    named = entry.get("keywords", keywords)  # a list, or the name of one of matchers.py
    keywords = tuple(getattr(matchers, named) if isinstance(named, str) else named)
    return Rule(id, entry["reason"], find, valid, keywords, tokens)


def entries() -> dict[str, Entry]:
    """The entries of ``rules.toml`` by id, in the table's order (with their samples)."""
    source = resources.files(__package__).joinpath("rules.toml").read_text(encoding="utf-8")
    return tomllib.loads(source)


RULES: tuple[Rule, ...] = tuple(rule(id, entry) for id, entry in entries().items())
TABLE = Table(RULES)
