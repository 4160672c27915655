"""Recall: the records of a scope that best answer a short query, in three tiers.

``ranking.py`` runs a recall (the exact tier, then the wider and the meaning tiers for the
places left); ``search_index.py`` keeps each scope's words and bitmaps, following the store's
cache; ``wording.py`` and ``spellings.py`` make the wider tier's keys; ``meaning.py`` expands
a query by WordNet and word neighbours, from the two tables packaged here (``meanings.bin``,
``neighbours.bin``, with WordNet's licence beside them). It reads through the store and the
record model; nothing here writes.
"""
