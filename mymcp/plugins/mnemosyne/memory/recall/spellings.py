"""British spellings and their American forms, for recall's wider tier.

One small table, in two parts: word beginnings that follow no rule (``centre``,
``defence``, ``grey``), then word endings that do (``-ise``, ``-yse``, ``-our``, ``-ogue``).
An English word (already folded: lower case, no accents) is read with the American form in
place of the British one, so ``colours``, ``favourite``, ``organisation``, ``analysed`` and
``centred`` meet ``colors``, ``favorite``, ``organization``, ``analyzed`` and ``centered``
once both are stemmed. The table is applied to memories and queries alike, so a row that
also rewrites a word spelled the same on both sides of the ocean (``analysis``,
``central``, ``promise``) does no harm: both sides are rewritten the same way. What a row
must never do is make two different words meet, and no American beginning may start with
its British one (it would be rewritten again).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["american"]

# Word endings that follow a rule: (pattern over the whole word, replacement). Each one
# leaves alone words too short to be in doubt (``four``, ``rise``).
PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    # organise, realised, prioritising, organisation, caramelise
    (r"(\w{2,}[b-df-hj-np-tv-z])is(e|es|ed|ing|er|ers|ation|ations)", r"\1iz\2"),
    # analyse, paralysed, catalysing
    (r"(\w+)ys(e|es|ed|ing|er|ers)", r"\1yz\2"),
    # colour, favourite, behavioural, neighbourhood, honourable, savoury
    (
        r"(\w{3,})our(s|ed|ing|ite|ites|able|ably|ful|less|er|ers|ist|ists|al|hood|y)?",
        r"\1or\2",
    ),
    # catalogue, dialogues
    (r"(\w{3,})ogue(s)?", r"\1og\2"),
)

# Beginnings of words that follow no rule: (British, American).
BEGINNINGS: Final[tuple[tuple[str, str], ...]] = (
    ("odour", "odor"),
    # -re / -er
    ("calibr", "caliber"),
    ("centr", "center"),
    ("fibre", "fiber"),
    ("litre", "liter"),
    ("lustre", "luster"),
    ("meagre", "meager"),
    ("metre", "meter"),
    ("sabre", "saber"),
    ("sombre", "somber"),
    ("spectre", "specter"),
    ("theatr", "theater"),
    ("manoeuvr", "maneuver"),
    # -ce / -se
    ("defenc", "defens"),
    ("licenc", "licens"),
    ("offenc", "offens"),
    ("pretenc", "pretens"),
    # doubled consonants
    ("cancell", "cancel"),
    ("counsell", "counsel"),
    ("enrolment", "enrollment"),
    ("fuelled", "fueled"),
    ("fulfilment", "fulfillment"),
    ("instalment", "installment"),
    ("jewellery", "jewelry"),
    ("labell", "label"),
    ("modell", "model"),
    ("signall", "signal"),
    ("skilful", "skillful"),
    ("travell", "travel"),
    ("woollen", "woolen"),
    # ae, oe
    ("anaem", "anem"),
    ("anaesth", "anesth"),
    ("encyclopaed", "encycloped"),
    ("oestrogen", "estrogen"),
    ("paediatr", "pediatr"),
    # other beginnings
    ("kilometre", "kilometer"),
    ("centimetre", "centimeter"),
    ("millimetre", "millimeter"),
    ("mould", "mold"),
    ("plough", "plow"),
    ("sceptic", "skeptic"),
    ("sulphur", "sulfur"),
)

# Whole words (with or without a plural s): as beginnings they would rewrite other words
# (``programmer``, ``greyhound``).
WORDS: Final[tuple[tuple[str, str], ...]] = (
    ("aeroplane", "airplane"),
    ("ageing", "aging"),
    ("aluminium", "aluminum"),
    ("artefact", "artifact"),
    ("cheque", "check"),
    ("cosy", "cozy"),
    ("doughnut", "donut"),
    ("draught", "draft"),
    ("grey", "gray"),
    ("judgement", "judgment"),
    ("kerb", "curb"),
    ("maths", "math"),
    ("moustache", "mustache"),
    ("programme", "program"),
    ("pyjama", "pajama"),
    ("storey", "story"),
    ("tyre", "tire"),
    ("yoghurt", "yogurt"),
)

_AMERICAN: Final = dict(BEGINNINGS + WORDS)
# Longest first, so that a longer entry wins over one that begins it.
_BEGINNING_RE: Final = re.compile(
    "|".join(
        [
            *(f"{re.escape(british)}(?=s?$)" for british, _ in WORDS),
            *sorted((re.escape(british) for british, _ in BEGINNINGS), key=len, reverse=True),
        ]
    )
)


_PATTERNS: Final = tuple((re.compile(pattern), replacement) for pattern, replacement in PATTERNS)


def american(word: str) -> str:
    """``word`` with a British beginning or ending replaced by its American form."""
    found = _BEGINNING_RE.match(word)
    if found is not None:
        return _AMERICAN[found.group()] + word[found.end() :]
    for pattern, replacement in _PATTERNS:
        matched = pattern.fullmatch(word)
        if matched is not None:
            return matched.expand(replacement)
    return word
