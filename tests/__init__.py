"""The tests, a folder per floor or command of kdump/ (helpers in tests/support)."""
