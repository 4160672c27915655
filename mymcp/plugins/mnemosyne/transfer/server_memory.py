"""The official memory server's file (``memory.jsonl``) as new memories of the notebook.

That server (``@modelcontextprotocol/server-memory``) keeps a knowledge graph as JSON
Lines, one object per line::

    {"type": "entity", "name": "...", "entityType": "...", "observations": ["...", ...]}
    {"type": "relation", "from": "<entity name>", "to": "<entity name>", "relationType": "..."}

Each entity becomes one memory (more when its text is longer than a memory holds):

- its entity type chooses the scope, the namespace kind and the memory kind
  (:data:`ENTITY_TYPES`; a person lands in ``relationship``, a project in ``project``,
  any type the table does not name in ``knowledge``);
- its name is the title and the namespace label, and spelled in lower-case ASCII it is the
  namespace id;
- its observations, one line each, are the content, followed by every relation that joins
  it to another entity, written as ``<from> <relationType> <to>``;
- its tags are ``server-memory`` and its entity type; origin and recorded_via are both
  ``import``.

Every observation and relation passes the content policy on its own, so a secret in one of
them is left out (and reported) while the rest of the entity is imported.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.model.errors import ContentRefused
from mymcp.plugins.mnemosyne.memory.model.records import Namespace, canonical_relative_parts
from mymcp.plugins.mnemosyne.memory.model.values import (
    CONTENT_LIMIT,
    IDENTIFIER_LIMIT,
    LABEL_LIMIT,
    TITLE_LIMIT,
    UNDETERMINED_LANGUAGE,
    normalize_tag,
    normalize_text,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import (
    MemoryKind,
    NamespaceKind,
    Origin,
    RecordedVia,
    Scope,
)
from mymcp.plugins.mnemosyne.memory.services.remember import Draft
from mymcp.plugins.mnemosyne.transfer.importer import Entry, Incoming, Kind, Line
from mymcp.plugins.mnemosyne.transfer.source import field_problem, json_of, text_of

__all__ = ["ENTITY_TYPES", "IMPORT_TAG", "USER_NAMES", "Place", "read_server_memory"]

IMPORT_TAG: Final = "server-memory"


@dataclass(frozen=True)
class Place:
    """Where the memory of an entity goes: scope, namespace kind and memory kind."""

    scope: Scope
    namespace_kind: NamespaceKind
    kind: MemoryKind


_USER = Place(Scope.SELF, NamespaceKind.ASPECT, MemoryKind.ATTRIBUTE)
_PERSON = Place(Scope.RELATIONSHIP, NamespaceKind.PERSON, MemoryKind.SUMMARY)
_GROUP = Place(Scope.RELATIONSHIP, NamespaceKind.GROUP, MemoryKind.SUMMARY)
_PROJECT = Place(Scope.PROJECT, NamespaceKind.PROJECT, MemoryKind.SUMMARY)
_PREFERENCE = Place(Scope.PREFERENCE, NamespaceKind.DOMAIN, MemoryKind.PREFERENCE)
_PRACTICE = Place(Scope.PRACTICE, NamespaceKind.DOMAIN, MemoryKind.PRACTICE)
# Every entity type the table does not name.
OTHER: Final = Place(Scope.KNOWLEDGE, NamespaceKind.TOPIC, MemoryKind.SUMMARY)

# Entity types, lower-cased with spaces and hyphens as underscores, and where they go.
ENTITY_TYPES: Final[dict[str, Place]] = {
    **dict.fromkeys(("user", "self"), _USER),
    **dict.fromkeys(
        (
            "person", "people", "human", "individual", "contact", "friend", "family",
            "family_member", "relative", "partner", "colleague", "coworker",
        ),
        _PERSON,
    ),
    **dict.fromkeys(
        (
            "organization", "organisation", "company", "business", "employer", "team",
            "group", "community", "institution", "school", "university", "club",
        ),
        _GROUP,
    ),
    **dict.fromkeys(
        (
            "project", "product", "repository", "repo", "codebase", "application", "app",
            "service", "initiative",
        ),
        _PROJECT,
    ),
    **dict.fromkeys(("preference", "preferences"), _PREFERENCE),
    **dict.fromkeys(("practice", "habit", "routine", "workflow"), _PRACTICE),
}  # fmt: skip
# Entity names that stand for the user whatever their type (the name the official server's
# suggested prompt gives the user).
USER_NAMES: Final = frozenset({"default_user"})

_ENTITY_FIELDS = ("type", "name", "entityType", "observations")
_RELATION_FIELDS = ("type", "from", "to", "relationType")
_FIELDS = {"entity": _ENTITY_FIELDS, "relation": _RELATION_FIELDS}
_RELATIONS_HEADING = "Relations:"
_PLACEHOLDER_ID = "mem_" + "0" * 32
_SEPARATORS = re.compile(r"[\s-]+")
_NOT_IDENTIFIER = re.compile(r"[^a-z0-9]+")


def place_of(name: str, entity_type: str) -> Place:
    """Where the memory of the entity named ``name`` of type ``entity_type`` goes."""
    if name.casefold() in USER_NAMES:
        return _USER
    key = _SEPARATORS.sub("_", entity_type.strip().casefold())
    return ENTITY_TYPES.get(key, OTHER)


def namespace_id(name: str) -> str:
    """The namespace id of an entity: its name in lower-case ASCII letters, digits and ``-``.

    A name with no such character gets ``entity-`` and a digest of the name instead.
    """
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = _NOT_IDENTIFIER.sub("-", folded.lower()).strip("-")
    slug = slug[:IDENTIFIER_LIMIT].rstrip("-")
    if slug:
        return slug
    return "entity-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def read_server_memory(data: bytes) -> list[Entry]:
    """The entries of a ``memory.jsonl``, in line order.

    Raises :class:`SourceRefused` for a file that is not strict UTF-8 JSON Lines.
    """
    graph = _Graph()
    for number, line in enumerate(text_of(data).split("\n"), start=1):
        if line.strip():
            graph.take(number, json_of(line, line=number))
    return graph.entries()


# --- the graph -------------------------------------------------------------------------------


@dataclass
class _Entity:
    line: int
    name: str
    entity_type: str
    observations: list[Any]
    relations: list[str] = field(default_factory=list)


class _Graph:
    """The entities and relations of one file, and what was wrong with its lines."""

    def __init__(self) -> None:
        self._entities: dict[str, _Entity] = {}
        self._relations: dict[tuple[str, str, str], int] = {}
        self._out: list[tuple[int, Entry]] = []

    def take(self, number: int, value: object) -> None:
        where = f"line {number}"
        if not isinstance(value, dict):
            self._report(number, Kind.INVALID, where, "not a JSON object")
            return
        kind = value.get("type")
        fields = _FIELDS.get(kind) if isinstance(kind, str) else None
        if fields is None:
            self._report(number, Kind.INVALID, where, 'its type is neither "entity" nor "relation"')
            return
        problem = _shape_problem(value, fields)
        if problem is not None:
            self._report(number, Kind.INVALID, where, problem)
        elif kind == "entity":
            self._take_entity(number, value)
        else:
            key = (value["from"], value["relationType"], value["to"])
            self._relations.setdefault(key, number)

    def _take_entity(self, number: int, value: dict[str, Any]) -> None:
        earlier = self._entities.get(value["name"])
        if earlier is not None:
            detail = f"an entity of the same name came earlier, on line {earlier.line}"
            self._report(number, Kind.INVALID, f"line {number}", detail)
            return
        entity = _Entity(number, value["name"], value["entityType"], value["observations"])
        self._entities[entity.name] = entity

    def entries(self) -> list[Entry]:
        for (source, relation_type, target), number in self._relations.items():
            self._relate(number, source, relation_type, target)
        for entity in self._entities.values():
            for entry in _memories(entity):
                self._out.append((entity.line, entry))
        self._out.sort(key=lambda item: item[0])
        return [entry for _, entry in self._out]

    def _relate(self, number: int, source: str, relation_type: str, target: str) -> None:
        where = f"line {number}"
        joined = [self._entities[name] for name in (source, target) if name in self._entities]
        if not joined:
            self._report(number, Kind.INVALID, where, "the relation joins no entity of this file")
            return
        text = normalize_text(f"{source} {relation_type} {target}", CONTENT_LIMIT)
        if text is None or len(_bullet(text)) > CONTENT_LIMIT - len(_RELATIONS_HEADING) - 1:
            self._report(number, Kind.INVALID, where, "the relation is empty or too long")
            return
        bullet = _bullet(text)
        refused = _refusal(text)
        if refused is not None:
            self._report(number, Kind.REFUSED, where, f"{refused} (left out of the memories)")
            return
        for entity in joined:  # a relation of an entity to itself is listed once
            if bullet not in entity.relations:
                entity.relations.append(bullet)

    def _report(self, number: int, kind: Kind, where: str, detail: str) -> None:
        self._out.append((number, Line(kind, where, detail)))


def _shape_problem(value: dict[str, Any], fields: tuple[str, ...]) -> str | None:
    """What is wrong with the keys and value types of one line, or None."""
    problem = field_problem(value, fields)
    if problem is not None:
        return problem
    for key in fields:
        if key != "observations" and not isinstance(value[key], str):
            return f"{key} is not a string"
    observations = value.get("observations", [])
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        return "observations is not a list of strings"
    return None


# --- one entity's memories -----------------------------------------------------------------


def _memories(entity: _Entity) -> Iterator[Entry]:
    where = f"line {entity.line}"
    title = normalize_text(entity.name, TITLE_LIMIT)
    if title is None:
        yield Line(Kind.INVALID, where, "its name is empty or longer than 200 characters")
        return
    bullets: list[str] = []
    for index, observation in enumerate(entity.observations, start=1):
        bullet, problem = _observation(observation)
        if problem is not None:
            yield Line(problem[0], f"{where}, observation {index}", problem[1])
        elif bullet is not None:
            bullets.append(bullet)
    if not bullets and not entity.relations:
        yield Line(Kind.INVALID, where, "nothing to import: no observations and no relations")
        return
    yield from _drafts(entity, title, bullets)


def _observation(text: str) -> tuple[str | None, tuple[Kind, str] | None]:
    """The observation's line of content, or what keeps it out."""
    normalized = normalize_text(text, CONTENT_LIMIT)
    if normalized is None:
        return None, (Kind.INVALID, "it is empty or longer than 4,000 characters")
    bullet = _bullet(normalized)
    if len(bullet) > CONTENT_LIMIT:
        return None, (Kind.INVALID, "it is longer than a memory holds")
    refused = _refusal(normalized)
    if refused is not None:
        return None, (Kind.REFUSED, f"{refused} (left out of the memory)")
    return bullet, None


def _refusal(text: str) -> str | None:
    """``content: <reason>`` when the policy refuses ``text`` as content, else None."""
    try:
        policy.check_values([("content", text)])
    except ContentRefused as refused:
        return f"{refused.field}: {refused.reason}"
    return None


def _drafts(entity: _Entity, title: str, bullets: list[str]) -> Iterator[Entry]:
    where = f"line {entity.line}"
    place = place_of(entity.name, entity.entity_type)
    contents = _pack(bullets, entity.relations)
    count = len(contents)
    for number, content in enumerate(contents, start=1):
        part_title = title if count == 1 else f"{title} ({number} of {count})"
        if len(part_title) > TITLE_LIMIT:
            yield Line(Kind.INVALID, where, "its name is too long to number its parts")
            return
        draft = Draft(
            scope=place.scope,
            namespace=Namespace(
                place.namespace_kind, namespace_id(entity.name), _label(entity.name)
            ),
            collection=None,
            kind=place.kind,
            language=UNDETERMINED_LANGUAGE,
            title=part_title,
            content=content,
            tags=_tags(entity.entity_type),
            origin=Origin.IMPORT,
            recorded_via=RecordedVia.IMPORT,
            occurred_at=None,
        )
        parts = canonical_relative_parts(place.scope, draft.namespace.id, None, _PLACEHOLDER_ID)
        shown = where + (" (entity)" if count == 1 else f" (entity, part {number} of {count})")
        yield Incoming(shown, draft, parts, fresh=True, note=_note(place, content))


def _note(place: Place, content: str) -> str:
    """What the report says of one memory: its kind and what its content holds."""
    observations, _, relations = content.partition(_RELATIONS_HEADING + "\n")
    counted = [
        _count(sum(line.startswith("- ") for line in observations.splitlines()), "observation"),
        _count(sum(line.startswith("- ") for line in relations.splitlines()), "relation"),
    ]
    return f" ({place.kind}: {', '.join(counted)})"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _label(name: str) -> str | None:
    return normalize_text(name, LABEL_LIMIT)


def _tags(entity_type: str) -> tuple[str, ...]:
    tag = normalize_tag(entity_type)
    if tag is None or tag.casefold() == IMPORT_TAG:
        return (IMPORT_TAG,)
    return (IMPORT_TAG, tag)


def _bullet(text: str) -> str:
    return "- " + text.replace("\n", "\n  ")


def _pack(observations: list[str], relations: list[str]) -> list[str]:
    """The content of each memory: whole lines, as many as fit in one memory each."""
    contents: list[str] = []
    kept: tuple[list[str], list[str]] = ([], [])
    for is_relation, bullet in [(False, b) for b in observations] + [(True, b) for b in relations]:
        grown = (kept[0], [*kept[1], bullet]) if is_relation else ([*kept[0], bullet], kept[1])
        if (kept[0] or kept[1]) and len(_content(*grown)) > CONTENT_LIMIT:
            contents.append(_content(*kept))
            grown = ([], [bullet]) if is_relation else ([bullet], [])
        kept = grown
    contents.append(_content(*kept))
    return contents


def _content(observations: list[str], relations: list[str]) -> str:
    text = "\n".join(observations)
    if relations:
        text += ("\n\n" if observations else "") + _RELATIONS_HEADING + "\n" + "\n".join(relations)
    return normalize_text(text, CONTENT_LIMIT) or text
