"""Taking the notebook along: ``mymcp export`` and ``mymcp import``.

``command.py`` runs the two commands; ``snapshot.py`` reads a memory root at one moment;
``document.py`` is MyMCP's own versioned JSON export, ``markdown.py`` the readable one;
``server_memory.py`` reads the official memory server's ``memory.jsonl``; ``importer.py``
applies remember's rules to each record and writes through the store; ``source.py`` reads
the file an import is given.
"""
