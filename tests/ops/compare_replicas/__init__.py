"""Tests of ops / compare_replicas."""
