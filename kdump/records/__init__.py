"""Kafka's record formats: legacy message sets (magic 0/1), v2 record batches, control
records, and the walker that frames a ``.log`` file into batches."""
