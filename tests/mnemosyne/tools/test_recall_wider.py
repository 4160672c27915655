"""memory_recall's wider tier and namespace_id, through POST /mcp.

The exact tier is the original's (``test_recall.py``); the wider tier fills the places it
leaves with memories that share no exact term with the query but meet it once words are
folded, stemmed, joined or split, or read with American spelling. Its hits have empty
``terms`` and ``tags`` and name the query words behind them under ``match.near``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import McpClient
from tests.mnemosyne.tools.recall_support import TOOL, canonical, found, legacy, mem_id, recall


def _near(*words: str) -> dict[str, Any]:
    return {"terms": [], "tags": [], "near": list(words)}


@pytest.mark.parametrize(
    ("content", "query"),
    [
        # inflection
        ("My recipe notebook lives in the kitchen drawer.", "recipes"),
        ("I studied physics in Porto.", "studying"),
        ("Invoices go out on the first of the month.", "invoice"),
        ("I walk the dog every morning.", "walking"),
        # accents and case
        ("My résumé is two pages long.", "resume"),
        ("The office moved to São Paulo.", "Sao"),
        ("Dessert was crème brûlée.", "CREME BRULEE"),
        # compounds
        ("Groceries are ordered on-line.", "online"),
        ("The health care plan renews in May.", "healthcare"),
        ("The set-up takes ten minutes.", "setup"),
        ("The sensors speak tcpip on port 7000.", "TCP/IP"),
        ("We signed up with an e-mail link.", "email"),
        # short and symbol terms
        ("Backend services are written in C#.", "C#"),
        ("The API runs on F# and .NET 8.", "F#"),
        ("Q organises the climbing trip.", "Q"),
        # British and American spelling
        ("My favourite drink is a flat white.", "favorite"),
        ("I analyse the budget monthly.", "analyze"),
        ("The climbing centre opens at nine.", "center"),
        ("Slides use muted colours.", "color"),
    ],
)
def test_the_wider_tier_meets_other_forms_of_a_word(
    client: McpClient, memory_root: Path, content: str, query: str
) -> None:
    canonical(memory_root, 1, content)
    canonical(memory_root, 2, "Nothing to do with it at all.")

    reply = recall(client, query)

    assert reply.payload["status"] == "ok"
    assert [memory_id for memory_id, _ in found(reply)] == [mem_id(1)]
    assert found(reply)[0][1]["terms"] == [] and found(reply)[0][1]["tags"] == []


def test_a_wider_hit_names_the_query_words_as_written_in_query_order(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "Notes on résumés and favourite recipe cards.")

    reply = recall(client, "Recipes, Résumé? favorite")

    assert found(reply) == [(mem_id(1), _near("Recipes", "Résumé", "favorite"))]


def test_words_written_apart_name_both_words(client: McpClient, memory_root: Path) -> None:
    canonical(memory_root, 1, "Our healthcare provider changed.")

    assert found(recall(client, "health care")) == [(mem_id(1), _near("health", "care"))]


def test_exact_hits_rank_first_and_keep_the_original_match(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "A recipe for lentil soup.")
    canonical(memory_root, 2, "Recipes I collected.", title="Recipes")

    reply = recall(client, "recipes")

    assert found(reply) == [
        (mem_id(2), {"terms": ["recipes"], "tags": []}),
        (mem_id(1), _near("recipes")),
    ]


def test_an_exact_tier_that_fills_five_places_is_the_whole_answer(
    client: McpClient, memory_root: Path
) -> None:
    for number in range(1, 6):
        canonical(memory_root, number, f"Recipe card number {number}.")
    canonical(memory_root, 6, "A recipe binder.", title="Recipe binder")

    reply = recall(client, "card number")

    assert [memory_id for memory_id, _ in found(reply)] == [mem_id(n) for n in range(1, 6)]
    assert all("near" not in match for _, match in found(reply))


def test_the_wider_tier_ranks_with_the_same_weights_and_ties(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 3, "A recipe for soup.")  # content: 1
    canonical(memory_root, 2, "Soup.", tags=["recipe"])  # tag words: 2
    canonical(memory_root, 1, "Soup.", title="Recipe")  # title: 3
    canonical(memory_root, 4, "Another recipe for soup.")  # content: 1, path after 3

    reply = recall(client, "recipes")

    assert [memory_id for memory_id, _ in found(reply)] == [mem_id(n) for n in (1, 2, 3, 4)]


def test_stop_words_stay_stop_words_after_stemming(client: McpClient, memory_root: Path) -> None:
    canonical(memory_root, 1, "What the user does, and how they do it.")

    assert recall(client, "user's doing").payload["status"] == "no_matches"


def test_the_wider_tier_does_not_match_every_path(client: McpClient, memory_root: Path) -> None:
    canonical(memory_root, 1, "Plain content.")
    legacy(memory_root, "notes.json", "Plain content.")

    assert recall(client, "jsons mems").payload["status"] == "no_matches"
    reply = recall(client, "note")  # a legacy file's name is a path word
    assert found(reply) == [("notes.json", _near("note"))]


def test_archived_memories_stay_out_of_the_wider_tier(client: McpClient, memory_root: Path) -> None:
    canonical(
        memory_root, 1, "Old recipe collection.", lifecycle={"state": "archived", "revision": 2}
    )

    assert recall(client, "recipes").payload["status"] == "no_matches"


def test_a_term_with_symbols_meets_only_the_same_spelling(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "Written in C.")
    canonical(memory_root, 2, "Written in C++.")
    canonical(memory_root, 3, "Written in C#.")

    assert [memory_id for memory_id, _ in found(recall(client, "C#"))] == [mem_id(3)]
    assert [memory_id for memory_id, _ in found(recall(client, "c++"))] == [mem_id(2)]
    assert [memory_id for memory_id, _ in found(recall(client, "C"))] == [mem_id(1)]


def test_a_word_cut_in_two_needs_its_halves_side_by_side(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "The health care plan.")
    canonical(memory_root, 2, "Care for your health.")

    wider = [hit for hit in found(recall(client, "healthcare")) if "meaning" not in hit[1]]
    assert wider == [(mem_id(1), _near("healthcare"))]  # (the meaning tier may add "care")


def test_each_record_is_stemmed_in_its_language_and_the_query_in_each(
    client: McpClient, memory_root: Path
) -> None:
    canonical(memory_root, 1, "Omas Rezept für Apfelkuchen.", language="de")
    canonical(memory_root, 2, "Les recettes de ma grand-mère.", language="fr-CH")
    legacy(memory_root, "old.json", "Invoices of 2019.")  # no language: English

    assert found(recall(client, "Rezepte")) == [(mem_id(1), _near("Rezepte"))]
    assert found(recall(client, "recette")) == [(mem_id(2), _near("recette"))]
    assert found(recall(client, "invoice")) == [("old.json", _near("invoice"))]


# --- namespace_id ------------------------------------------------------------------------


def test_namespace_id_narrows_both_tiers_to_one_namespace(
    client: McpClient, memory_root: Path
) -> None:
    atlas = {"kind": "project", "id": "atlas", "label": None}
    canonical(memory_root, 1, "The deploy recipe.", namespace=atlas)
    canonical(memory_root, 2, "The deploy recipes.", namespace=atlas)
    canonical(memory_root, 3, "The deploy recipe.")  # namespace mnemosyne
    legacy(memory_root, "deploy.json", "The deploy recipe.")

    reply = recall(client, "deploy recipes", namespace_id="atlas")

    assert found(reply) == [
        (mem_id(2), {"terms": ["deploy", "recipes"], "tags": []}),
        (mem_id(1), {"terms": ["deploy"], "tags": []}),
    ]
    reply = recall(client, "recipes", namespace_id="atlas")
    assert found(reply) == [
        (mem_id(2), {"terms": ["recipes"], "tags": []}),
        (mem_id(1), _near("recipes")),
    ]
    assert recall(client, "deploy", namespace_id="nowhere").payload == {
        "status": "no_matches",
        "memories": [],
    }


@pytest.mark.parametrize("value", [None, "", "Atlas", "-atlas", "a" * 65, 5, ["atlas"]])
def test_an_invalid_namespace_id_is_refused(
    client: McpClient, memory_root: Path, value: Any
) -> None:
    reply = recall(client, "deploy", namespace_id=value)

    assert reply.is_error
    assert reply.payload == {
        "status": "invalid_request",
        "code": "invalid_namespace",
        "message": "namespace_id is invalid",
    }
    assert not memory_root.exists()


def test_namespace_id_is_checked_after_query_scope_and_tags(client: McpClient) -> None:
    bad = {"namespace_id": "Not Valid"}
    assert client.call(TOOL, {"query": "", "scope": "project", **bad}).payload["code"] == (
        "invalid_query"
    )
    assert client.call(TOOL, {"query": "x", "scope": "nope", **bad}).payload["code"] == (
        "invalid_scope"
    )
    assert client.call(TOOL, {"query": "x", "scope": "project", "tags": [], **bad}).payload[
        "code"
    ] == ("invalid_tags")


def test_namespace_id_is_published_as_an_optional_identifier(client: McpClient) -> None:
    schema = client.declaration(TOOL)["inputSchema"]
    namespace = schema["properties"]["namespace_id"]

    assert namespace["type"] == "string"
    assert namespace["pattern"] == "^[a-z0-9]([a-z0-9_-]{0,62}[a-z0-9])?$"
    assert "namespace_id" not in schema["required"]
