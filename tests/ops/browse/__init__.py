"""Tests of ops / browse."""
