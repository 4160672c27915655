"""The usage note a server hands to agents: how to use this server well.

``initialize`` carries it as ``instructions`` for clients on 2025-03-26 or newer. It is
kept here, once, for every answer that describes the server to a client. At most 1,000
characters.
"""

from __future__ import annotations

INSTRUCTIONS = (
    "MyMCP keeps the user's Mnemosyne notebook: memories the user chose to keep, in local "
    "files. Before proposing a memory, look for it with memory_recall or memory_list, and "
    "read one in full with memory_inspect. Every change (memory_remember, memory_revise, "
    "memory_archive, memory_restore, memory_forget) is a proposal: ask the user and send "
    "exactly the call they approved; never treat your own judgement as approval. Store only "
    "what the user wants kept, and never secrets, passwords, credentials or keys, "
    "payment-card or government ID numbers, or file paths. Results name a memory by a "
    "reference object: pass it unchanged to memory_inspect and the change Tools, with the "
    "lifecycle revision the user last saw as expected_revision. If a change reports an "
    "uncertain outcome, inspect the same reference before any retry."
)
