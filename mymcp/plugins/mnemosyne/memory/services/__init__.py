"""The services the Tools call: what each read or change of a memory does, start to end.

``inspect.py`` (one memory by its reference), ``listing.py`` with ``cursors.py`` (every
memory of a selection, in pages), ``remember.py`` (a new memory, unless an equal one exists),
``revise.py`` (new texts at a known revision) and ``lifecycle.py`` (archive, restore,
forget). Each works through the store and puts what a client sends to the content policy
before anything on disk is touched.
"""
