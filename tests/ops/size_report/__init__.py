"""Tests of ops / size_report."""
