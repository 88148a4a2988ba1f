"""Tests of ops / dump."""
