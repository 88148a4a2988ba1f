"""Tests of ops / report."""
