"""Tests of schemaregistry."""
