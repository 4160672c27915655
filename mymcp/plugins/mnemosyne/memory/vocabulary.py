"""The fixed vocabulary of memory: scopes, kinds, provenance and lifecycle values.

The scope table says, for each scope, which namespace kinds and memory kinds belong to it,
in their published order, with a one-line meaning and per-kind writing guidance.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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

    @property
    def memory_kinds(self) -> tuple[MemoryKind, ...]:
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
            "who the user is and the lasting circumstances of their life",
            (NamespaceKind.ASPECT,),
            (
                MemoryKind.ATTRIBUTE,
                "a durable fact about the user or a long-term circumstance; "
                "not a preference and not the passing status of some project",
            ),
        ),
        _rule(
            Scope.RELATIONSHIP,
            "the people and groups in the user's life and how the user sees them",
            (NamespaceKind.PERSON, NamespaceKind.GROUP, NamespaceKind.RELATIONSHIP),
            (
                MemoryKind.PERSPECTIVE,
                "the user's own opinion, feeling or judgement about a person, group "
                "or relationship",
            ),
            (
                MemoryKind.SUMMARY,
                "lasting background on a person, group or relationship as the user "
                "understands it; not a neutral biography",
            ),
        ),
        _rule(
            Scope.PREFERENCE,
            "choices the user wants honoured: what they like and what to avoid",
            (NamespaceKind.DOMAIN,),
            (
                MemoryKind.PREFERENCE,
                "something the user explicitly wants respected, whether a liking or "
                "a thing to stay away from",
            ),
        ),
        _rule(
            Scope.PRACTICE,
            "how the user really works: routines, methods and habits",
            (NamespaceKind.DOMAIN,),
            (
                MemoryKind.PRACTICE,
                "a routine, method or habit the user actually follows, as stated or "
                "observed; not an aspiration",
            ),
        ),
        _rule(
            Scope.PROJECT,
            "the goals, current state, decisions and constraints of one bounded endeavour",
            (NamespaceKind.PROJECT,),
            (
                MemoryKind.DECISION,
                "a choice made for the project together with the reasons or "
                "consequences that should guide later work",
            ),
            (
                MemoryKind.CONSTRAINT,
                "a boundary, requirement, limitation or firm rule that narrows what "
                "the project may do",
            ),
            (
                MemoryKind.STATE,
                "where the project stands now; revise it when that changes",
            ),
            (
                MemoryKind.EVENT,
                "something that has finished happening, at its known time "
                "(occurred_at); ongoing conditions belong in state",
            ),
            (
                MemoryKind.QUESTION,
                "an open question whose answer could change the direction or the implementation",
            ),
            (
                MemoryKind.REFERENCE,
                "approved material specific to this project that is needed to carry "
                "it out or understand it",
            ),
            (
                MemoryKind.SUMMARY,
                "a lasting overview of the project's context, progress or design; it "
                "does not stand in for the more precise kinds",
            ),
        ),
        _rule(
            Scope.KNOWLEDGE,
            "reference material the user approved for reuse beyond any one project; "
            "not general world knowledge",
            (NamespaceKind.TOPIC,),
            (
                MemoryKind.REFERENCE,
                "user-approved reference material on a topic wider than one project; "
                "not general knowledge",
            ),
            (
                MemoryKind.SUMMARY,
                "a user-approved synthesis on such a topic, meant for reuse; not general knowledge",
            ),
        ),
    )
}


def scope_allows(scope: Scope, namespace_kind: NamespaceKind, kind: MemoryKind) -> bool:
    """True when both kinds belong to the scope."""
    rule = SCOPE_RULES[scope]
    return namespace_kind in rule.namespace_kinds and kind in rule.memory_kinds
