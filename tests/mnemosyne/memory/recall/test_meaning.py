"""The meaning table: what ships in the package, how ``scripts/build-meanings`` makes it, and
what the meaning tier does when it cannot be read."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import logging
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mymcp.plugins.mnemosyne.memory.recall import meaning, wording

ROOT = Path(__file__).resolve().parents[4]
SCRIPT = ROOT / "scripts" / "build-meanings"
PACKAGE = ROOT / "mymcp" / "plugins" / "mnemosyne" / "memory" / "recall"


def _script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("build_meanings", str(SCRIPT))
    spec = importlib.util.spec_from_loader("build_meanings", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_meanings"] = module  # its dataclasses look their module up
    try:
        loader.exec_module(module)
    finally:
        del sys.modules["build_meanings"]
    return module


def _targets(table: meaning.Table, word: str) -> set[str]:
    term = table.term_id(word)
    assert term is not None
    return {table.terms[target] for target, _ in meaning._targets_of(table, term)}


def test_the_packaged_table_names_its_origin_and_carries_wordnets_licence() -> None:
    table = meaning.load()

    assert table is not None
    assert "WordNet 3.0" in str(table.header["origin"])
    licence = (PACKAGE / "wordnet-LICENSE.txt").read_text(encoding="utf-8")
    assert table.header["licence"] == licence
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in licence


def test_the_packaged_table_was_built_with_todays_recall_keys() -> None:
    """A new stemmer or spelling rule needs ``scripts/build-meanings`` run again."""
    table = meaning.load()
    assert table is not None
    sample = table.header["sample"]
    assert isinstance(sample, dict) and sample
    script = _script()

    assert {word: script.lemma_term(word) for word in sample} == sample


# A WordNet of four synsets, in the database's own format.
DATA_NOUN = """\
  1 This line and the next stand for the licence at the top of each file.
  2 
00000100 18 n 02 lawyer 0 attorney 0 001 @ 00000200 n 0000 | a professional
00000200 18 n 01 professional 0 001 ~ 00000100 n 0000 | a person paid for it
00000300 06 n 02 sofa 0 couch 0 000 | an upholstered seat
00000400 18 n 02 child 0 kid 0 000 | a young person
"""
INDEX_NOUN = """\
  1 licence
attorney n 1 1 @ 1 1 00000100  
child n 1 0 1 1 00000400  
couch n 1 0 1 0 00000300  
kid n 1 0 1 0 00000400  
lawyer n 1 1 @ 1 1 00000100  
professional n 1 1 ~ 1 0 00000200  
sofa n 1 0 1 1 00000300  
"""


def _wordnet(folder: Path) -> Path:
    folder.mkdir()
    for name in ("noun", "verb", "adj", "adv"):
        (folder / f"data.{name}").write_text(DATA_NOUN if name == "noun" else "")
        (folder / f"index.{name}").write_text(INDEX_NOUN if name == "noun" else "")
        (folder / f"{name}.exc").write_text("children child\n" if name == "noun" else "")
    (folder / "cntlist.rev").write_text("lawyer%1:18:00:: 1 30\nsofa%1:06:00:: 1 5\n")
    return folder


def _build(wordnet: Path, output: Path) -> bytes:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--wordnet", str(wordnet), "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return output.read_bytes()


def test_the_script_reduces_wordnet_to_a_table_the_tier_reads(tmp_path: Path) -> None:
    wordnet = _wordnet(tmp_path / "wordnet")

    data = _build(wordnet, tmp_path / "one.bin")
    table = meaning.Table(data)

    assert data == _build(wordnet, tmp_path / "two.bin")  # deterministic
    assert _targets(table, "attorney") == {"lawyer", wording.word_key("professional", "english")}
    assert _targets(table, "sofa") == {"couch"}
    assert _targets(table, "children") == {"child", "kid"}  # an irregular form
    assert table.term_id("upholst") is None  # glosses are left out


def test_the_script_names_a_missing_database_in_one_line(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--wordnet", str(tmp_path), "--output", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert completed.returncode == 1
    assert completed.stderr.strip().endswith("apt-get install wordnet-base")
    assert not (tmp_path / "x").exists()


def test_a_table_that_cannot_be_read_leaves_the_tier_out_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(name: str) -> bytes:
        raise OSError(5, "Input/output error", f"/secret/place/{name}")

    monkeypatch.setattr(meaning, "_table", None)
    monkeypatch.setattr(meaning, "_neighbours", None)
    monkeypatch.setattr(meaning, "_unavailable", False)
    monkeypatch.setattr(meaning, "_read_table", broken)
    caplog.set_level(logging.WARNING, "mymcp.memory.recall")

    assert meaning.expand("attorney").targets == ()
    assert meaning.expand("sofa").targets == ()
    assert [record.getMessage() for record in caplog.records] == [
        "meaning table unreadable; recall goes on without it"
    ]


@pytest.mark.parametrize("data", [b"", b"MYMCP-MEANINGS 1\n{}\n", b"something else\n"])
def test_a_damaged_table_is_refused_as_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):
        meaning.Table(data)


@pytest.mark.parametrize("query", ["the and of", "be have make", "123 456", "", "C# .NET"])
def test_stop_words_common_words_and_symbols_give_no_targets(query: str) -> None:
    assert meaning.expand(query).targets == ()


def test_only_the_first_words_of_a_long_query_are_read() -> None:
    words = ["xyzzy"] * meaning.MAX_WORDS + ["attorney"]

    assert meaning.expand(" ".join(words)).targets == ()
    assert meaning.expand("attorney").targets != ()


def _neighbours_script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader(
        "build_neighbours", str(ROOT / "scripts" / "build-neighbours")
    )
    spec = importlib.util.spec_from_loader("build_neighbours", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_packaged_neighbours_name_their_origin_and_licences() -> None:
    meaning.load()
    neighbours = meaning._neighbours

    assert neighbours is not None
    assert "all-MiniLM-L6-v2" in str(neighbours.header["origin"])
    assert "Apache License 2.0" in str(neighbours.header["licence"])
    found = list(neighbours.of("wireless"))
    assert [round(cosine, 2) for word, cosine in found if word == "wifi"] == [0.79]
    assert [cosine for _, cosine in found] == sorted((c for _, c in found), reverse=True)
    assert all(cosine >= 0.6 for _, cosine in found)  # the script's floor


def test_the_neighbour_script_writes_a_table_the_tier_reads() -> None:
    script = _neighbours_script()

    data = script.encode({"sofa": {"couch": 230, "settee": 180}, "couch": {"sofa": 230}})
    neighbours = meaning.Neighbours(data)

    assert list(neighbours.of("sofa")) == [("couch", 230 / 255), ("settee", 180 / 255)]
    assert list(neighbours.of("settee")) == []
    assert list(neighbours.of("nothing")) == []
    with pytest.raises(ValueError):
        meaning.Neighbours(data[: len(data) // 2])


def _term(table: meaning.Table, word: str) -> int:
    key = wording.word_key(word, wording.ENGLISH)
    term = table.term_id(key) if key is not None else None
    assert term is not None
    return term


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("tea", "coffee", True),
        ("son", "daughter", True),
        ("cat", "dog", True),
        ("pet", "dog", False),  # a step up from pet, two from dog: the kind, not a kin
        ("mom", "mother", False),  # one sense
        ("dog", "puppy", False),  # one under the other
        ("tea", "lawyer", False),  # nothing in common but very general senses
    ],
)
def test_siblings_are_words_side_by_side_under_a_common_broader_sense(
    first: str, second: str, expected: bool
) -> None:
    table = meaning.load()
    assert table is not None

    found = meaning.siblings(table, _term(table, first), _term(table, second))

    assert found is expected
    assert meaning.siblings(table, _term(table, second), _term(table, first)) is expected
