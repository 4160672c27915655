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

from tests.helpers import McpClient, ToolReply, canonical_record, place_canonical, write_record

TOOL = "memory_recall"


def _mem_id(number: int) -> str:
    return f"mem_{number:032x}"


def _canonical(root: Path, number: int, content: str, **overrides: Any) -> None:
    overrides.setdefault("title", None)
    overrides.setdefault("tags", [])
    overrides.setdefault("collection", None)
    place_canonical(root, canonical_record(id=_mem_id(number), content=content, **overrides))


def _legacy(root: Path, name: str, content: str, **fields: Any) -> None:
    write_record(
        root, {"schema_version": 1, "id": name, "content": content, **fields}, "project", name
    )


def _recall(client: McpClient, query: str, **extra: Any) -> ToolReply:
    return client.call(TOOL, {"query": query, "scope": "project", **extra})


def _found(reply: ToolReply) -> list[tuple[str, dict[str, Any]]]:
    return [(memory["id"], memory["match"]) for memory in reply.payload["memories"]]


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
    _canonical(memory_root, 1, content)
    _canonical(memory_root, 2, "Nothing to do with it at all.")

    reply = _recall(client, query)

    assert reply.payload["status"] == "ok"
    assert [memory_id for memory_id, _ in _found(reply)] == [_mem_id(1)]
    assert _found(reply)[0][1]["terms"] == [] and _found(reply)[0][1]["tags"] == []


def test_a_wider_hit_names_the_query_words_as_written_in_query_order(
    client: McpClient, memory_root: Path
) -> None:
    _canonical(memory_root, 1, "Notes on résumés and favourite recipe cards.")

    reply = _recall(client, "Recipes, Résumé? favorite")

    assert _found(reply) == [(_mem_id(1), _near("Recipes", "Résumé", "favorite"))]


def test_words_written_apart_name_both_words(client: McpClient, memory_root: Path) -> None:
    _canonical(memory_root, 1, "Our healthcare provider changed.")

    assert _found(_recall(client, "health care")) == [(_mem_id(1), _near("health", "care"))]


def test_exact_hits_rank_first_and_keep_the_original_match(
    client: McpClient, memory_root: Path
) -> None:
    _canonical(memory_root, 1, "A recipe for lentil soup.")
    _canonical(memory_root, 2, "Recipes I collected.", title="Recipes")

    reply = _recall(client, "recipes")

    assert _found(reply) == [
        (_mem_id(2), {"terms": ["recipes"], "tags": []}),
        (_mem_id(1), _near("recipes")),
    ]


def test_an_exact_tier_that_fills_five_places_is_the_whole_answer(
    client: McpClient, memory_root: Path
) -> None:
    for number in range(1, 6):
        _canonical(memory_root, number, f"Recipe card number {number}.")
    _canonical(memory_root, 6, "A recipe binder.", title="Recipe binder")

    reply = _recall(client, "card number")

    assert [memory_id for memory_id, _ in _found(reply)] == [_mem_id(n) for n in range(1, 6)]
    assert all("near" not in match for _, match in _found(reply))


def test_the_wider_tier_ranks_with_the_same_weights_and_ties(
    client: McpClient, memory_root: Path
) -> None:
    _canonical(memory_root, 3, "A recipe for soup.")  # content: 1
    _canonical(memory_root, 2, "Soup.", tags=["recipe"])  # tag words: 2
    _canonical(memory_root, 1, "Soup.", title="Recipe")  # title: 3
    _canonical(memory_root, 4, "Another recipe for soup.")  # content: 1, path after 3

    reply = _recall(client, "recipes")

    assert [memory_id for memory_id, _ in _found(reply)] == [_mem_id(n) for n in (1, 2, 3, 4)]


def test_stop_words_stay_stop_words_after_stemming(client: McpClient, memory_root: Path) -> None:
    _canonical(memory_root, 1, "What the user does, and how they do it.")

    assert _recall(client, "user's doing").payload["status"] == "no_matches"


def test_the_wider_tier_does_not_match_every_path(client: McpClient, memory_root: Path) -> None:
    _canonical(memory_root, 1, "Plain content.")
    _legacy(memory_root, "notes.json", "Plain content.")

    assert _recall(client, "jsons mems").payload["status"] == "no_matches"
    reply = _recall(client, "note")  # a legacy file's name is a path word
    assert _found(reply) == [("notes.json", _near("note"))]


def test_archived_memories_stay_out_of_the_wider_tier(client: McpClient, memory_root: Path) -> None:
    _canonical(
        memory_root, 1, "Old recipe collection.", lifecycle={"state": "archived", "revision": 2}
    )

    assert _recall(client, "recipes").payload["status"] == "no_matches"


def test_a_term_with_symbols_meets_only_the_same_spelling(
    client: McpClient, memory_root: Path
) -> None:
    _canonical(memory_root, 1, "Written in C.")
    _canonical(memory_root, 2, "Written in C++.")
    _canonical(memory_root, 3, "Written in C#.")

    assert [memory_id for memory_id, _ in _found(_recall(client, "C#"))] == [_mem_id(3)]
    assert [memory_id for memory_id, _ in _found(_recall(client, "c++"))] == [_mem_id(2)]
    assert [memory_id for memory_id, _ in _found(_recall(client, "C"))] == [_mem_id(1)]


def test_a_word_cut_in_two_needs_its_halves_side_by_side(
    client: McpClient, memory_root: Path
) -> None:
    _canonical(memory_root, 1, "The health care plan.")
    _canonical(memory_root, 2, "Care for your health.")

    wider = [hit for hit in _found(_recall(client, "healthcare")) if "meaning" not in hit[1]]
    assert wider == [(_mem_id(1), _near("healthcare"))]  # (the meaning tier may add "care")


def test_each_record_is_stemmed_in_its_language_and_the_query_in_each(
    client: McpClient, memory_root: Path
) -> None:
    _canonical(memory_root, 1, "Omas Rezept für Apfelkuchen.", language="de")
    _canonical(memory_root, 2, "Les recettes de ma grand-mère.", language="fr-CH")
    _legacy(memory_root, "old.json", "Invoices of 2019.")  # no language: English

    assert _found(_recall(client, "Rezepte")) == [(_mem_id(1), _near("Rezepte"))]
    assert _found(_recall(client, "recette")) == [(_mem_id(2), _near("recette"))]
    assert _found(_recall(client, "invoice")) == [("old.json", _near("invoice"))]


# --- namespace_id ------------------------------------------------------------------------


def test_namespace_id_narrows_both_tiers_to_one_namespace(
    client: McpClient, memory_root: Path
) -> None:
    atlas = {"kind": "project", "id": "atlas", "label": None}
    _canonical(memory_root, 1, "The deploy recipe.", namespace=atlas)
    _canonical(memory_root, 2, "The deploy recipes.", namespace=atlas)
    _canonical(memory_root, 3, "The deploy recipe.")  # namespace mnemosyne
    _legacy(memory_root, "deploy.json", "The deploy recipe.")

    reply = _recall(client, "deploy recipes", namespace_id="atlas")

    assert _found(reply) == [
        (_mem_id(2), {"terms": ["deploy", "recipes"], "tags": []}),
        (_mem_id(1), {"terms": ["deploy"], "tags": []}),
    ]
    reply = _recall(client, "recipes", namespace_id="atlas")
    assert _found(reply) == [
        (_mem_id(2), {"terms": ["recipes"], "tags": []}),
        (_mem_id(1), _near("recipes")),
    ]
    assert _recall(client, "deploy", namespace_id="nowhere").payload == {
        "status": "no_matches",
        "memories": [],
    }


@pytest.mark.parametrize("value", [None, "", "Atlas", "-atlas", "a" * 65, 5, ["atlas"]])
def test_an_invalid_namespace_id_is_refused(
    client: McpClient, memory_root: Path, value: Any
) -> None:
    reply = _recall(client, "deploy", namespace_id=value)

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
