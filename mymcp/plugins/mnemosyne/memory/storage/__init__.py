"""The store: the record files below a memory root, read through caches and written safely.

``store.py`` is what the other rooms call; below it the scanner and its caches
(``scan.py``), the worker processes of a large first scan (``workers.py``), the walk
(``discovery.py``), change notification (``watch.py``), the write
protocol (``writes.py``) and the file primitives (``files.py``). It builds on the record
model only.
"""
