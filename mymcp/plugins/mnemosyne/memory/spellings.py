"""British spellings and their American forms, for recall's wider tier.

One table of word beginnings: an English word (already folded: lower case, no accents)
that begins with a British form is read with the American form in its place, so
``colours``, ``favourite``, ``organisation``, ``analysed`` and ``centred`` meet ``colors``,
``favorite``, ``organization``, ``analyzed`` and ``centered`` once both are stemmed. The
table is applied to memories and queries alike, so an entry that also rewrites a word
spelled the same on both sides of the ocean (``analysis``, ``central``) does no harm: both
sides are rewritten the same way. What an entry must never do is make two different words
meet, and no American form may begin with its British form (it would be rewritten again).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["american"]

# (British beginning, American beginning), grouped by the pattern they follow.
BEGINNINGS: Final[tuple[tuple[str, str], ...]] = (
    # -our / -or
    *(
        (british, british.removesuffix("our") + "or")
        for british in (
            "armour behaviour candour clamour colour endeavour favour flavour glamour harbour "
            "honour humour labour neighbour odour parlour rancour rigour rumour saviour "
            "savour splendour tumour valour vapour vigour"
        ).split()
    ),
    # -ise / -ize, -yse / -yze (and their -isation, -iser, -ising forms)
    *(
        (british, british[:-1] + "z")
        for british in (
            "agonis apologis authoris capitalis categoris centralis characteris criticis "
            "customis digitis emphasis energis familiaris finalis globalis harmonis "
            "hospitalis idealis immunis initialis itemis legalis localis marginalis "
            "maximis memoris minimis mobilis modernis monetis moisturis neutralis normalis "
            "optimis organis penalis personalis prioritis publicis randomis realis "
            "recognis sanitis scrutinis serialis socialis specialis stabilis standardis "
            "sterilis summaris symbolis sympathis synchronis theoris tokenis utilis "
            "visualis analys breathalys catalys paralys"
        ).split()
    ),
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
    # -ogue / -og
    ("analogu", "analog"),
    ("catalogu", "catalog"),
    ("dialogu", "dialog"),
    ("epilogu", "epilog"),
    ("monologu", "monolog"),
    ("prologu", "prolog"),
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


def american(word: str) -> str:
    """``word`` with a British beginning replaced by its American form."""
    found = _BEGINNING_RE.match(word)
    if found is None:
        return word
    return _AMERICAN[found.group()] + word[found.end() :]
