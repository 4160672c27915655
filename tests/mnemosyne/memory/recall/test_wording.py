"""The wider tier's keys: folding, chunks, compounds, terms as spelled, stems, spellings."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.recall import spellings, wording


def keys(text: str, language: str | None = wording.ENGLISH) -> set[str]:
    return wording.text_keys(text, language)


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("São Paulo", "sao paulo"),
        ("CRÈME", "creme"),
        ("ＣＳＳ", "css"),
        ("Straße", "strasse"),
        ("Œufs", "oeufs"),
        ("Søren Łódź", "soren lodz"),
    ],
)
def test_folding_takes_away_case_width_and_marks(text: str, folded: str) -> None:
    assert wording.fold(text) == folded
    assert wording.fold(text.replace("ã", "a\u0303")) == folded  # decomposed alike


@given(st.text())
def test_folding_is_stable(text: str) -> None:
    once = wording.fold(text)
    assert wording.fold(once) == once


def test_chunks_lose_the_punctuation_around_them_but_a_leading_dot_and_trailing_symbols() -> None:
    assert wording.chunks('(.NET), "C#", C++. ...and (x)') == [".NET", "C#", "C++", "and", "x"]
    assert wording.chunks("-- !! ") == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("on-line", "online"),
        ("TCP/IP", "tcpip"),
        ("set-up", "setup"),
        ("e-mail", "email"),
        ("snake_case", "snakecase"),
        ("recipes", "recipe"),
        ("studied", "studying"),
        ("résumé", "resume"),
    ],
)
def test_forms_of_one_word_share_a_key(first: str, second: str) -> None:
    assert keys(first) & keys(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [("C#", "C"), ("C#", "C++"), ("F#", "F"), ("four", "for"), ("timbre", "timber")],
)
def test_different_words_share_no_key(first: str, second: str) -> None:
    assert not keys(first) & keys(second)


def test_terms_as_spelled_are_keys_and_one_letter_stop_words_are_not() -> None:
    assert {"c#", "f#", ".net", "c++", "q"} <= keys("C# F# .NET C++ Q")
    assert keys("a I") == set()


def test_stop_words_and_their_stems_are_no_keys() -> None:
    assert keys("does doing users user's what") == set()


def test_stems_depend_on_the_language_and_reach_a_fixed_point() -> None:
    assert keys("Kurse", "german") == keys("Kurs", "german")
    assert keys("recettes", "french") == keys("recette", "french")
    assert wording.stemming_language("fr-CH".lower()) == "french"
    assert wording.stemming_language("und") == wording.ENGLISH
    assert wording.stemming_language(None) == wording.ENGLISH
    assert wording.stemming_language("ja") is None
    assert keys("Häuser", None) == {"hauser"}  # no algorithm: folded only


def test_splits_and_adjacency() -> None:
    assert ("health", "care") in set(wording.splits("healthcare"))
    assert not any("are" in half for half in wording.splits("healthcare"))
    assert list(wording.splits("tea")) == []
    assert wording.adjacent("the health-care plan", "health", "care")
    assert wording.adjacent("first working day", "work", "day")
    assert not wording.adjacent("care for health", "health", "care")
    assert not wording.adjacent("wealthcare", "health", "care")


BRITISH_AMERICAN = [
    ("colours", "colors"),
    ("favourite", "favorite"),
    ("behavioural", "behavioral"),
    ("neighbourhood", "neighborhood"),
    ("organisation", "organization"),
    ("caramelised", "caramelized"),
    ("analysed", "analyzed"),
    ("catalogue", "catalog"),
    ("centred", "centered"),
    ("theatres", "theaters"),
    ("kilometres", "kilometers"),
    ("defence", "defense"),
    ("licence", "license"),
    ("travelled", "traveled"),
    ("jewellery", "jewelry"),
    ("grey", "gray"),
    ("programmes", "programs"),
    ("tyres", "tires"),
    ("paediatrician", "pediatrician"),
    ("sceptical", "skeptical"),
    ("odours", "odors"),
]


@pytest.mark.parametrize(("british", "american"), BRITISH_AMERICAN)
def test_british_and_american_spellings_share_a_key(british: str, american: str) -> None:
    assert keys(british) == keys(american)


def test_the_spelling_table_never_rewrites_its_own_output() -> None:
    for british, american in spellings.BEGINNINGS + spellings.WORDS:
        assert not american.startswith(british), british
        assert spellings.american(american) == american, american
    assert spellings.american("programmer") == "programmer"  # a whole-word row
    assert spellings.american("four") == "four"  # too short for the -our rule


def test_the_stemmer_is_imported_on_first_use_only() -> None:
    code = textwrap.dedent(
        """
        import sys
        import mymcp.plugins.mnemosyne.plugin
        import mymcp.plugins.mnemosyne.memory.recall.ranking
        assert "snowballstemmer" not in sys.modules
        from mymcp.plugins.mnemosyne.memory.recall import wording
        wording.text_keys("recipes", wording.ENGLISH)
        assert "snowballstemmer" in sys.modules
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)
