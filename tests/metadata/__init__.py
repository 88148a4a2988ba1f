"""Tests of metadata."""
