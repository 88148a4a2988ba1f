"""Tests of decoders."""
