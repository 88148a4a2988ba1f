"""Topics as a broker sees them, for every command that needs it: ``config`` resolves a
topic's configs as a broker does (KRaft ConfigRecords, server.properties, Kafka's
defaults, ``--config``), ``evidence`` reads the KRaft log's configs and metadata.version
once, ``policy`` says whether a topic is compacted (the words verify-index and dump give a
gap in a log's offsets).  Retention, the witnesses of what was written and verify-index
share them; importing this package loads none of the commands that use it."""
