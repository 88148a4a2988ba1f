"""Tests of ops / export."""
