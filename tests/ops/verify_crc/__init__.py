"""Tests of ops / verify_crc."""
