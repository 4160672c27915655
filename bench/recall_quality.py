"""Section: how often recall finds what the notebook holds, per family of question.

Seeds the notebook of ``recall_corpus.py`` (version 2 records in their languages, legacy
records without one) and asks every question through the recall service, as the Tool does.
For each family it prints hit@5 (one of the right memories among the results), MRR@5 (the
mean of 1/rank of the first right memory, 0 when none) and the share of questions with no
result at all, for the exact tier alone (the original's ranking: the hits without
``match.near``) and for both tiers. ``python bench/recall_quality.py --misses`` also lists
the questions whose answer is not in the top five.

Nothing here depends on the machine; the figures change only with the ranking.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common import print_table, settle, temporary_root
from recall_corpus import DIFFERENT, FAMILIES, MEMORIES, QUESTIONS, Memory, Question

from mymcp.plugins.mnemosyne.memory.recall import RecallHit, RecallRequest, recall
from mymcp.plugins.mnemosyne.memory.records import (
    CanonicalRecord,
    Namespace,
    canonical_relative_parts,
    serialize_canonical,
)
from mymcp.plugins.mnemosyne.memory.store import MemoryStore
from mymcp.plugins.mnemosyne.memory.vocabulary import (
    SCOPE_RULES,
    LifecycleState,
    Origin,
    RecordedVia,
    Scope,
)

HEADER = ("family", "questions", "hit@5", "MRR@5", "no result", "hit@5", "MRR@5", "no result")
STAMP = "2025-01-01T00:00:00Z"


@dataclass(frozen=True)
class Outcome:
    question: Question
    exact: tuple[str, ...]  # the keys the exact tier returned, best first
    both: tuple[str, ...]  # the keys both tiers returned


def _id(memory: Memory) -> str:
    return "mem_" + hashlib.sha256(memory.key.encode()).hexdigest()[:32]


def _write(root: Path, memory: Memory) -> None:
    scope = Scope(memory.scope)
    if memory.language is None:  # a legacy record
        path = root / scope.value / memory.namespace / f"{memory.key}.json"
        fields = {"schema_version": 1, "id": memory.key, "content": memory.content}
        if memory.title is not None:
            fields["title"] = memory.title
        if memory.tags:
            fields["tags"] = list(memory.tags)
        data = json.dumps(fields).encode()
    else:
        rule = SCOPE_RULES[scope]
        record = CanonicalRecord(
            id=_id(memory),
            scope=scope,
            namespace=Namespace(rule.namespace_kinds[0], memory.namespace, None),
            collection=None,
            kind=rule.memory_kinds[0],
            language=memory.language,
            title=memory.title,
            content=memory.content,
            tags=memory.tags,
            origin=Origin.EXPLICIT_USER_STATEMENT,
            recorded_via=RecordedVia.MEMORY_REMEMBER,
            state=LifecycleState.ACTIVE,
            revision=1,
            created_at=STAMP,
            updated_at=STAMP,
            occurred_at=None,
        )
        parts = canonical_relative_parts(scope, memory.namespace, None, record.id)
        path = root.joinpath(*parts)
        data = serialize_canonical(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _ask(store: MemoryStore, root: Path, question: Question) -> Outcome:
    keys = {_id(memory): memory.key for memory in MEMORIES} | {m.key: m.key for m in MEMORIES}
    hits: list[RecallHit] = recall(
        store, root, RecallRequest(question.query, Scope(question.scope))
    )
    named = [(keys[hit.stored.record.id], bool(hit.near)) for hit in hits]
    return Outcome(
        question,
        tuple(key for key, near in named if not near),
        tuple(key for key, _ in named),
    )


def outcomes() -> list[Outcome]:
    """Every question's results, from a freshly seeded notebook."""
    with temporary_root() as root:
        for memory in MEMORIES:
            _write(root, memory)
        settle()
        store = MemoryStore(watch_changes=False)
        return [_ask(store, root, question) for question in QUESTIONS]


def _figures(results: Sequence[tuple[Question, tuple[str, ...]]]) -> tuple[str, str, str]:
    hits = ranks = empty = 0.0
    for question, returned in results:
        rank = next((n for n, key in enumerate(returned, 1) if key in question.answers), 0)
        hits += rank > 0
        ranks += 1 / rank if rank else 0
        empty += not returned
    count = len(results) or 1
    return f"{hits / count:.1%}", f"{ranks / count:.3f}", f"{empty / count:.1%}"


def _row(name: str, chosen: Sequence[Outcome]) -> tuple[object, ...]:
    exact = _figures([(item.question, item.exact) for item in chosen])
    both = _figures([(item.question, item.both) for item in chosen])
    return (name, len(chosen), *exact, *both)


def table(found: Sequence[Outcome]) -> list[tuple[object, ...]]:
    rows = [_row(family, [o for o in found if o.question.family == family]) for family in FAMILIES]
    rows.append(
        _row("all but different words", [o for o in found if o.question.family != DIFFERENT])
    )
    rows.append(_row("all", list(found)))
    return rows


def run(sizes: Sequence[int] = ()) -> None:
    """Print the recall-quality table (the sizes do not apply: the notebook is fixed)."""
    found = outcomes()
    languages = sorted({memory.language or "legacy" for memory in MEMORIES})
    print_table(
        f"recall quality: {len(MEMORIES)} memories ({', '.join(languages)}), "
        f"{len(QUESTIONS)} questions; exact tier alone | both tiers",
        HEADER,
        table(found),
    )
    if "--misses" in sys.argv:
        for item in found:
            if not set(item.both[:5]) & set(item.question.answers):
                print(
                    f"miss [{item.question.family}] {item.question.scope}: "
                    f"{item.question.query!r} -> {list(item.both)}"
                )


if __name__ == "__main__":
    run()
