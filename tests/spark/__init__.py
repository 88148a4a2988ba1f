"""Tests of spark."""
