"""Tests of real_data."""
