"""The fixed vocabulary of memory: scopes, kinds, provenance and lifecycle values.

The scope table says, for each scope, which namespace kinds and memory kinds belong to it,
in their published order, with a one-line meaning and per-kind writing guidance.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property


class Scope(StrEnum):
    SELF = "self"
    RELATIONSHIP = "relationship"
    PREFERENCE = "preference"
    PRACTICE = "practice"
    PROJECT = "project"
    KNOWLEDGE = "knowledge"


class NamespaceKind(StrEnum):
    ASPECT = "aspect"
    PERSON = "person"
    GROUP = "group"
    RELATIONSHIP = "relationship"
    DOMAIN = "domain"
    PROJECT = "project"
    TOPIC = "topic"


class MemoryKind(StrEnum):
    ATTRIBUTE = "attribute"
    PERSPECTIVE = "perspective"
    PREFERENCE = "preference"
    PRACTICE = "practice"
    DECISION = "decision"
    CONSTRAINT = "constraint"
    STATE = "state"
    EVENT = "event"
    QUESTION = "question"
    REFERENCE = "reference"
    SUMMARY = "summary"


class Origin(StrEnum):
    EXPLICIT_USER_STATEMENT = "explicit_user_statement"
    USER_APPROVED_PROPOSAL = "user_approved_proposal"
    MANUAL = "manual"
    IMPORT = "import"


# The origins a caller may claim through memory_remember.
PUBLIC_ORIGINS: tuple[Origin, ...] = (
    Origin.EXPLICIT_USER_STATEMENT,
    Origin.USER_APPROVED_PROPOSAL,
)


class RecordedVia(StrEnum):
    MEMORY_REMEMBER = "memory_remember"
    FILESYSTEM = "filesystem"
    MIGRATION = "migration"
    IMPORT = "import"


class LifecycleState(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"


@dataclass(frozen=True)
class KindGuidance:
    kind: MemoryKind
    guidance: str


@dataclass(frozen=True)
class ScopeRule:
    scope: Scope
    definition: str
    namespace_kinds: tuple[NamespaceKind, ...]
    kinds: tuple[KindGuidance, ...]

    @cached_property
    def memory_kinds(self) -> tuple[MemoryKind, ...]:
        # Made once: every record read checks its kind against it.
        return tuple(item.kind for item in self.kinds)


def _rule(
    scope: Scope,
    definition: str,
    namespace_kinds: tuple[NamespaceKind, ...],
    *kinds: tuple[MemoryKind, str],
) -> ScopeRule:
    guidance = tuple(KindGuidance(kind, text) for kind, text in kinds)
    return ScopeRule(scope, definition, namespace_kinds, guidance)


SCOPE_RULES: dict[Scope, ScopeRule] = {
    rule.scope: rule
    for rule in (
        _rule(
            Scope.SELF,
            "who the user is, lasting circumstances",
            (NamespaceKind.ASPECT,),
            (
                MemoryKind.ATTRIBUTE,
                "a lasting fact, not a preference",
            ),
        ),
        _rule(
            Scope.RELATIONSHIP,
            "people and groups in the user's life, as the user sees them",
            (NamespaceKind.PERSON, NamespaceKind.GROUP, NamespaceKind.RELATIONSHIP),
            (
                MemoryKind.PERSPECTIVE,
                "the user's own view of them",
            ),
            (
                MemoryKind.SUMMARY,
                "background as the user sees it, not a biography",
            ),
        ),
        _rule(
            Scope.PREFERENCE,
            "what the user likes or wants avoided",
            (NamespaceKind.DOMAIN,),
            (
                MemoryKind.PREFERENCE,
                "a liking or a thing to avoid",
            ),
        ),
        _rule(
            Scope.PRACTICE,
            "how the user really works (routines, habits)",
            (NamespaceKind.DOMAIN,),
            (
                MemoryKind.PRACTICE,
                "a habit really followed, not an aspiration",
            ),
        ),
        _rule(
            Scope.PROJECT,
            "one bounded endeavour (goals, state, decisions)",
            (NamespaceKind.PROJECT,),
            (
                MemoryKind.DECISION,
                "a choice made and its reasons",
            ),
            (
                MemoryKind.CONSTRAINT,
                "a rule or limit the work must respect",
            ),
            (
                MemoryKind.STATE,
                "where things stand now, revised on change",
            ),
            (
                MemoryKind.EVENT,
                "something finished, at its known time",
            ),
            (
                MemoryKind.QUESTION,
                "an open question that could change the work",
            ),
            (
                MemoryKind.REFERENCE,
                "material needed to do or understand the work",
            ),
            (
                MemoryKind.SUMMARY,
                "an overview of context, progress or design",
            ),
        ),
        _rule(
            Scope.KNOWLEDGE,
            "material for reuse beyond one project, not general knowledge",
            (NamespaceKind.TOPIC,),
            (
                MemoryKind.REFERENCE,
                "approved material on the topic",
            ),
            (
                MemoryKind.SUMMARY,
                "an approved synthesis of the topic",
            ),
        ),
    )
}


def scope_allows(scope: Scope, namespace_kind: NamespaceKind, kind: MemoryKind) -> bool:
    """True when both kinds belong to the scope."""
    rule = SCOPE_RULES[scope]
    return namespace_kind in rule.namespace_kinds and kind in rule.memory_kinds
