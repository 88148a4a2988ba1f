"""Kafka's files other than record logs: indexes, snapshots, checkpoints, properties,
and the log-dir walker that names every file for what it is."""
