"""Tests of ops / verify_index."""
