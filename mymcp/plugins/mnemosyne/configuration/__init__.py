"""What the operator sets for Mnemosyne, each part in its own module.

- :mod:`.memory_root`: where the memories live (``MNEMOSYNE_MEMORY_ROOT`` or the default
  below ``~/.mnemosyne``) and whether that place can serve;
- :mod:`.gates`: which mutation Tools are on and how many record files one scan may find,
  from environment variables and the ``[memory]`` table of ``~/.mnemosyne/config.toml``;
- :mod:`.settings_file`: the hardened reader of that file and how a problem in it is told.

Nothing here creates, edits or chmods anything on disk.
"""
