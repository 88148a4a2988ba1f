"""Tests of ops / retention."""
