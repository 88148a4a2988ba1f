"""Tests of ops / lag."""
