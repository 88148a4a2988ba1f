"""Tests of ops / repair."""
