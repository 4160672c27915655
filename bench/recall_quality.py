"""Section: how often recall finds what the notebook holds, per family of question.

Seeds the notebook of ``recall_corpus.py`` (version 2 records in their languages, legacy
records without one) and asks every question through the recall service, as the Tool does.
For each family it prints hit@5 (one of the right memories among the results), MRR@5 (the
mean of 1/rank of the first right memory, 0 when none) and the share of questions with no
result at all, for each tier added in turn: the exact tier alone (the original's ranking:
the hits without ``match.near`` or ``match.meaning``), then with the wider tier, then with
the meaning tier. For the family whose answer is absent, the figure is how many questions
got any answer (hit@5 and MRR@5 do not apply). ``python bench/recall_quality.py --misses``
also lists the questions whose answer is not in the top five, and the absent ones answered.

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
from recall_corpus import ABSENT, DIFFERENT, FAMILIES, MEMORIES, QUESTIONS, Memory, Question

from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    Namespace,
    canonical_relative_parts,
    serialize_canonical,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import (
    SCOPE_RULES,
    LifecycleState,
    Origin,
    RecordedVia,
    Scope,
)
from mymcp.plugins.mnemosyne.memory.recall.ranking import RecallHit, RecallRequest, recall
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore

TIERS = ("exact", "+wider", "+meaning")
HEADER = (
    "family",
    "questions",
    *(f"{column} {tier}" for tier in TIERS for column in ("hit@5", "MRR@5", "answered")),
)
STAMP = "2025-01-01T00:00:00Z"


@dataclass(frozen=True)
class Outcome:
    question: Question
    # The keys returned, best first, with the tier of each (an index into TIERS).
    returned: tuple[tuple[str, int], ...]

    def upto(self, tier: int) -> tuple[str, ...]:
        """The keys the tiers up to ``tier`` returned."""
        return tuple(key for key, found_by in self.returned if found_by <= tier)


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
    return Outcome(question, tuple((keys[hit.stored.record.id], _tier(hit)) for hit in hits))


def _tier(hit: RecallHit) -> int:
    return 2 if hit.meaning else 1 if hit.near else 0


def outcomes() -> list[Outcome]:
    """Every question's results, from a freshly seeded notebook."""
    with temporary_root() as root:
        for memory in MEMORIES:
            _write(root, memory)
        settle()
        store = MemoryStore(watch_changes=False)
        return [_ask(store, root, question) for question in QUESTIONS]


def _figures(results: Sequence[tuple[Question, tuple[str, ...]]]) -> tuple[str, str, str]:
    hits = ranks = answered = 0.0
    for question, returned in results:
        rank = next((n for n, key in enumerate(returned, 1) if key in question.answers), 0)
        hits += rank > 0
        ranks += 1 / rank if rank else 0
        answered += bool(returned)
    count = len(results) or 1
    if all(not question.answers for question, _ in results):
        return "-", "-", f"{answered:.0f} of {len(results)}"
    return f"{hits / count:.1%}", f"{ranks / count:.3f}", f"{answered / count:.1%}"


def _row(name: str, chosen: Sequence[Outcome]) -> tuple[object, ...]:
    figures = [
        figure
        for tier in range(len(TIERS))
        for figure in _figures([(item.question, item.upto(tier)) for item in chosen])
    ]
    return (name, len(chosen), *figures)


def table(found: Sequence[Outcome]) -> list[tuple[object, ...]]:
    rows = [_row(family, [o for o in found if o.question.family == family]) for family in FAMILIES]
    answerable = [o for o in found if o.question.family != ABSENT]
    rows.append(
        _row("all but different words", [o for o in answerable if o.question.family != DIFFERENT])
    )
    rows.append(_row("all with an answer", answerable))
    return rows


def run(sizes: Sequence[int] = ()) -> None:
    """Print the recall-quality table (the sizes do not apply: the notebook is fixed)."""
    found = outcomes()
    languages = sorted({memory.language or "legacy" for memory in MEMORIES})
    print_table(
        f"recall quality: {len(MEMORIES)} memories ({', '.join(languages)}), "
        f"{len(QUESTIONS)} questions; each tier added in turn: {' | '.join(TIERS)}",
        HEADER,
        table(found),
    )
    if "--misses" in sys.argv:
        for item in found:
            returned = item.upto(len(TIERS) - 1)
            answers = set(item.question.answers)
            if not set(returned) & answers if answers else returned:
                print(
                    f"miss [{item.question.family}] {item.question.scope}: "
                    f"{item.question.query!r} -> {list(item.returned)}"
                )


if __name__ == "__main__":
    run()
