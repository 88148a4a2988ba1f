"""Commands as iterators of plain objects (events, problems, rows); renderers print them.

One module per command (``dump``, ``verify`` for verify-crc, ``find``, ``size_report``,
``lag``, ``rebuild``, ``tiered`` ...); a command with several responsibilities is a
subpackage with a facade module of the command's name that other code imports from:
``indexes/`` (facade ``verify_index``) and ``replication/`` (facade ``replicas``).
"""
