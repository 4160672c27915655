"""What recall's index lists of one record: the words each part gives, by the rules.

``ranking.record_words`` keeps what repeats (folders, tags, pieces of text) from record to
record; whatever it kept, what it gives a record must be what the rules give that record
alone: its terms per part, and per part the keys it lists together with those the index
derives from the terms.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model import vocabulary
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    LegacyRecord,
    Record,
)
from mymcp.plugins.mnemosyne.memory.model.values import canonical_tag_key
from mymcp.plugins.mnemosyne.memory.recall import ranking, wording
from mymcp.plugins.mnemosyne.memory.storage.scan import StoredRecord
from tests.mnemosyne.memory.recall.decisions import decision

PIECES = st.sampled_from(
    ["plan", "Plans.", "release,", "e.g.", ".net", "c++", "x#", "on-line", "don't", "a", "B",
     "(tea)", "v1.2", "the", "Straße", "crème", "ＣＳＳ", "q1", "--", "left-handed", "…"]
)  # fmt: skip
TEXTS = st.lists(
    st.tuples(PIECES, st.sampled_from([" ", "\n", "\t", ". ", ", "])), min_size=1, max_size=8
).map(lambda pairs: "".join(piece + space for piece, space in pairs).strip() or "x")
FOLDERS = st.sampled_from(["atlas", "beacon", "on-call", "q1", "release-plan"])
TAGS = st.lists(st.sampled_from(["ops", "Plan", "tea time", "c++", "crème", "v1.2", "a"]),
                max_size=4, unique_by=str.casefold).map(tuple)  # fmt: skip
LANGUAGES = st.sampled_from(["en", "de", "und", "fr-ca", "xx"])


def canonical(
    number: int, title: str | None, content: str, tags: tuple[str, ...], language: str,
    folders: tuple[str, ...], archived: bool,
) -> StoredRecord:  # fmt: skip
    return decision(number, title, content, tags, archived, language=language, folders=folders)


def legacy(
    name: str, title: str | None, content: str, tags: tuple[str, ...], folders: tuple[str, ...]
) -> StoredRecord:
    record = LegacyRecord(name, content, title, tags, ("title", "tags"))
    return StoredRecord(record, ("project", *folders, f"{name}.json"), bytes(32))


RECORDS = st.one_of(
    st.builds(
        canonical,
        st.integers(min_value=0, max_value=2**128 - 1),
        st.none() | TEXTS,
        TEXTS,
        TAGS,
        LANGUAGES,
        st.lists(FOLDERS, min_size=1, max_size=2).map(tuple),
        st.booleans(),
    ),
    st.builds(
        legacy,
        st.sampled_from(["note-1", "Tea.Plan", "q1_review", "x"]),
        st.none() | TEXTS,
        TEXTS,
        TAGS,
        st.lists(FOLDERS, max_size=2).map(tuple),
    ),
)


def seen(terms: Any, keys: Any, derived: bool, language: str | None) -> set[str]:
    """The keys recall sees of one part: those listed, and those its terms give."""
    given_keys = {wording.word_key(term, language) for term in terms} if derived else set()
    return set(keys) | {key for key in given_keys if key is not None}


def expected(stored: StoredRecord, record: Record) -> dict[str, object] | None:
    is_canonical = isinstance(record, CanonicalRecord)
    if isinstance(record, CanonicalRecord) and record.state is vocabulary.LifecycleState.ARCHIVED:
        return None
    language = wording.stemming_language(
        record.language if isinstance(record, CanonicalRecord) else None
    )
    name = stored.parts[-1]
    folders = stored.parts[1:-1] + (() if is_canonical else (name.removesuffix(".json"),))
    shorts = (*folders, *record.tags)
    name_terms = {"mem", "json"} if is_canonical else ranking.terms(name)
    return {
        "terms": (
            ranking.terms(record.title or ""),
            name_terms.union(*(ranking.terms(text) for text in shorts)),
            ranking.terms(record.content),
        ),
        "keys": (
            wording.text_keys(record.title or "", language),
            set().union(*(wording.text_keys(text, language) for text in shorts)),
            wording.text_keys(record.content, language),
        ),
        "tags": {canonical_tag_key(tag) for tag in record.tags},
        "namespace": stored.parts[1] if is_canonical else None,
        "language": language,
        "name": name if is_canonical else None,
        "folder_keys": wording.text_keys(" ".join(folders), wording.ENGLISH),
    }


def given_words(stored: StoredRecord, record: Record) -> dict[str, object] | None:
    words = ranking.record_words(stored, record)
    if words is None:
        return None
    parts = zip(words.terms, words.keys, words.derived, strict=True)
    return {
        "terms": tuple(set(terms) for terms in words.terms),
        "keys": tuple(seen(terms, keys, derived, words.language) for terms, keys, derived in parts),
        "tags": set(words.tags),
        "namespace": words.namespace,
        "language": words.language,
        "name": words.name,
        "folder_keys": set(words.folder_keys),
    }


@settings(max_examples=300, deadline=None)
@given(records=st.lists(RECORDS, min_size=1, max_size=6))
def test_the_words_of_a_record_are_those_the_rules_give_it_alone(
    records: list[StoredRecord],
) -> None:
    for item in records:  # one after another, as a scan meets them
        record = item.record
        assert given_words(item, record) == expected(item, record)
