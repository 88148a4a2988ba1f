"""Tests of encoder."""
