"""The Mnemosyne memory domain, in five rooms.

- ``model/``: the words, values, record formats, references and errors of memory;
- ``storage/``: the store, the record files below a memory root, read and written safely;
- ``recall/``: the records that best answer a query, and the search index behind it;
- ``services/``: what each read or change of a memory does, start to end;
- ``policy/``: the content policy, which refuses secrets and personal numbers before a write.

An arrow says which room may import which: model ← storage ← recall, services; model ← policy
← services. Everything here is plain Python over the filesystem: no web framework, no
JSON-RPC, nothing from the host or the plugin API. The Tools (``mymcp.plugins.mnemosyne.tools``)
and the other adapters of the plugin call into it.
"""
