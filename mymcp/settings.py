"""Host identity: the names, versions and usage note a client sees."""

SERVER_NAME = "mymcp"
SERVER_VERSION = "0.2.0"
# The revision the original 0.2.0 spoke; still answered when a client asks for it or for nothing.
PROTOCOL_VERSION = "2024-11-05"
# Every MCP revision this server speaks, oldest first.
SUPPORTED_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
APP_TITLE = "MyMCP"

# The usage note of ``initialize`` (revisions from 2025-03-26 on): how an agent uses this
# server well. At most 1,000 characters; the one copy of the text.
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
