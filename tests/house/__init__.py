"""Tests of house."""
