"""Commands as iterators of plain objects (events, problems, rows); renderers print them.

One shape per command, named as the command line names it: ``ops/<command>`` is a
module (``find`` for find-offset and find-time, ``lag``) or, when the command has several
responsibilities, a package whose ``__init__`` is its facade (``dump/``, ``verify_crc``,
``verify_index/``, ``size_report/``, ``compare_replicas/``, ``retention/``, ``report/``,
``repair/``, ``export/``, ``browse/``).  What several commands share is public where it
belongs: ``witnesses`` (what a partition's files prove was written), ``topics/`` (topic
configs and cleanup policies as a broker resolves them), ``rebuild`` (index files as
LogSegment.recover writes them), ``batch_findings``, ``events``, the 4.x group state
(``offsets_digest``, ``offsets_summary``, ``share_state``) and ``tiered``.
"""
