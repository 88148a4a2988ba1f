"""Tests of native."""
