"""memory_recall's meaning tier, through POST /mcp.

After the exact and the wider tier, the places left go to memories that hold a word the
query's words may mean (WordNet's synonyms, broader, narrower and derived words, weighed by
how often each sense is used). Such a hit has empty ``terms`` and ``tags`` and names, under
``match.meaning``, each query word with the memory's word it met.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import McpClient, write_record
from tests.mnemosyne.tools.recall_support import canonical, found, mem_id, recall


def _meaning(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {
        "terms": [],
        "tags": [],
        "meaning": [{"query": query, "memory": word} for query, word in pairs],
    }


@pytest.mark.parametrize(
    ("content", "query", "word"),
    [
        # the same sense
        ("Dr. Ferreira is the lawyer who read the contract.", "attorney", "lawyer"),
        ("We want a green velvet couch for the living room.", "sofa", "couch"),
        ("I write a short journal entry every night.", "diary", "journal"),
        ("I am left-handed; the scissors are in the drawer.", "southpaw", "left-handed"),
        ("I drive a grey 2019 Honda; the car needs new tyres.", "automobile", "car"),
        # a broader or narrower sense
        ("I call Mum every Sunday evening.", "mom", "Mum"),
        ("I am allergic to penicillin.", "antibiotics", "penicillin"),
        ("I walk the dog twice a day.", "puppy", "dog"),
        # an irregular form (children: child)
        ("We have two daughters, Bia and Lu.", "children", "daughters"),
        # a sense the word's tagged uses never show but its synonym's do (kid: child)
        ("We have two daughters, Bia and Lu.", "kids", "daughters"),
        # two steps down under a broad sense (medication: antidiabetic: metformin), and
        # three (offspring: child: female offspring: daughter)
        ("Takes metformin twice daily with meals.", "medication", "metformin"),
        ("We have two daughters, Bia and Lu.", "offspring", "daughters"),
        # an irregular form in the memory (children: child), a word WordNet does not hold
        # written as two it does (grandkids: grand kids)
        ("Callum and Priya have twin children, born in 2021.", "grandkids", "children"),
        ("The blog runs on Hugo; posts are written in Markdown.", "weblog", "blog"),
        # a lemma of two words in the query
        ("The résumé is a two-page PDF.", "curriculum vitae", "résumé"),
        # a neighbour by use, which WordNet 3.0 does not know
        ("The printer's Wi-Fi setup code is on the back.", "wireless", "Wi-Fi"),
    ],
)
def test_the_meaning_tier_meets_other_words_for_the_same_thing(
    client: McpClient, memory_root: Path, content: str, query: str, word: str
) -> None:
    canonical(memory_root, 1, content)
    canonical(memory_root, 2, "The quarterly report is due in March.")

    reply = recall(client, query)

    assert reply.payload["status"] == "ok"
    assert found(reply) == [(mem_id(1), _meaning((query, word)))]


@pytest.mark.parametrize(
    "query",
    ["blood type", "chess openings", "the", "what is it", "be", "xyzzy", "C#", "q"],
)
def test_a_question_the_notebook_cannot_answer_stays_empty(
    client: McpClient, memory_root: Path, query: str
) -> None:
    canonical(memory_root, 1, "I call Mum every Sunday evening.", title="Family")
    canonical(memory_root, 2, "The blog runs on Hugo; posts are written in Markdown.")
    canonical(memory_root, 3, "Deploys go through the staging cluster first.")

    assert recall(client, query).payload == {"status": "no_matches", "memories": []}


@pytest.mark.parametrize(
    ("content", "query"),
    [
        # a neighbour by use that WordNet places beside the query word: its kin, not it
        ("Orders a flat white coffee every morning.", "tea"),
        ("We have two daughters, Bia and Lu.", "sons"),
        ("I walk the dog twice a day.", "cat"),
        ("Grandma lives in Porto.", "grandfather"),
        # a neighbour by use spelled as the query word with a letter more
        ("The living room walls are teal.", "tea"),
        # a broader word the query word is unlikely to lead to
        ("Stretching exercises every morning.", "yoga"),
    ],
)
def test_a_word_of_the_same_kind_is_not_the_thing_asked_for(
    client: McpClient, memory_root: Path, content: str, query: str
) -> None:
    canonical(memory_root, 1, content)

    assert recall(client, query).payload == {"status": "no_matches", "memories": []}


@pytest.mark.parametrize(
    ("content", "query"),
    [
        # a verb only one step below WordNet's top verbs (swim: travel)
        ("We travel with one cabin bag.", "swimming"),
        # a word the memory writes as a preposition (supervisor: overseer, whose key is over)
        ("He prefers written updates over meetings.", "supervisor"),
        # a number (numbers: twenty-three, whose key is 23)
        ("Our plot is 23 on the council map.", "numbers"),
    ],
)
def test_a_loose_link_is_no_answer(
    client: McpClient, memory_root: Path, content: str, query: str
) -> None:
    canonical(memory_root, 1, content)

    assert recall(client, query).payload == {"status": "no_matches", "memories": []}


def test_a_narrower_word_outranks_a_broader_one(client: McpClient, memory_root: Path) -> None:
    canonical(memory_root, 1, "Takes penicillin twice a day.")  # antibiotic: narrower
    canonical(memory_root, 2, "Takes a drug twice a day.")  # antibiotic: broader

    reply = recall(client, "antibiotic")

    assert [memory_id for memory_id, _ in found(reply)][:1] == [mem_id(1)]


def test_meaning_hits_rank_below_every_exact_and_wider_hit(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "A lawyer read the lease.", title="Lawyer")  # meaning, title
    canonical(memory_root, 2, "Attorneys' fees are due in May.")  # wider
    canonical(memory_root, 3, "The attorney signed.")  # exact

    reply = recall(client, "attorney")

    assert found(reply) == [
        (mem_id(3), {"terms": ["attorney"], "tags": []}),
        (mem_id(2), {"terms": [], "tags": [], "near": ["attorney"]}),
        (mem_id(1), _meaning(("attorney", "Lawyer"))),
    ]


def test_an_exact_tier_that_fills_five_places_is_the_whole_answer(
    client: McpClient, memory_root: Path
) -> None:
    for number in range(1, 6):
        canonical(memory_root, number, f"Invoice number {number} for the couch.")
    canonical(memory_root, 6, "The sofa arrives on Monday.", title="Sofa")

    reply = recall(client, "couch")

    assert [memory_id for memory_id, _ in found(reply)] == [mem_id(n) for n in range(1, 6)]
    assert all(match == {"terms": ["couch"], "tags": []} for _, match in found(reply))


def test_meaning_hits_rank_by_strength_and_where_the_word_is(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 3, "A couch for the hall.")  # content: 1
    canonical(memory_root, 1, "For the hall.", title="Couch")  # title: 3
    canonical(memory_root, 2, "For the hall.", tags=["couch"])  # tag: 2

    reply = recall(client, "sofa")

    assert [memory_id for memory_id, _ in found(reply)] == [mem_id(n) for n in (1, 2, 3)]


def test_each_query_word_names_what_it_met(client: McpClient, memory_root: Path) -> None:
    canonical(memory_root, 1, "The vegetarian menu: no meat, no mushrooms.")

    reply = recall(client, "vegan beef")

    [(_, match)] = found(reply)
    assert match["terms"] == [] and match["tags"] == []
    assert [pair["query"] for pair in match["meaning"]] == ["vegan", "beef"]
    assert [pair["memory"] for pair in match["meaning"]] == ["vegetarian", "meat"]


def test_a_word_of_several_words_is_met_only_side_by_side(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "Sent the curriculum vitae today.")
    canonical(memory_root, 2, "The vitae of the saints are in the curriculum.")

    assert found(recall(client, "CV")) == [(mem_id(1), _meaning(("CV", "curriculum vitae")))]


def test_a_folder_name_is_no_evidence_of_meaning(client: McpClient, memory_root: Path) -> None:
    namespace = {"kind": "project", "id": "lawyer", "label": None}
    canonical(memory_root, 1, "Fees are due in May.", namespace=namespace)

    assert recall(client, "attorney").payload["status"] == "no_matches"


@pytest.mark.parametrize(
    ("title", "tags", "content"),
    [("Lawyer", [], "Fees are due."), (None, ["lawyer"], "Fees are due."), (None, [], "A lawyer.")],
)
def test_a_word_in_a_folder_name_counts_when_the_memory_also_writes_it(
    client: McpClient, memory_root: Path, title: str | None, tags: list[str], content: str
) -> None:
    namespace = {"kind": "project", "id": "lawyer", "label": None}
    canonical(memory_root, 1, content, namespace=namespace, title=title, tags=tags)

    assert [memory_id for memory_id, _ in found(recall(client, "attorney"))] == [mem_id(1)]


def test_only_english_memories_are_read_for_meaning(client: McpClient, memory_root: Path) -> None:
    canonical(memory_root, 1, "Le couch est une erreur.", language="fr")
    write_record(
        memory_root,
        {"schema_version": 1, "id": "old", "content": "The couch came in 2019."},
        "project",
        "old.json",
    )

    assert found(recall(client, "sofa")) == [("old", _meaning(("sofa", "couch")))]


def test_archived_memories_stay_out_of_the_meaning_tier(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "The lawyer.", lifecycle={"state": "archived", "revision": 2})

    assert recall(client, "attorney").payload["status"] == "no_matches"


def test_namespace_id_narrows_the_meaning_tier(client: McpClient, memory_root: Path) -> None:
    atlas = {"kind": "project", "id": "atlas", "label": None}
    canonical(memory_root, 1, "The lawyer read it.", namespace=atlas)
    canonical(memory_root, 2, "The lawyer signed it.")

    assert found(recall(client, "attorney", namespace_id="atlas")) == [
        (mem_id(1), _meaning(("attorney", "lawyer")))
    ]
