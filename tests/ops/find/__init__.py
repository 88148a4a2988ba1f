"""Tests of ops / find."""
