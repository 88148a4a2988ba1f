"""What the tests build their fixtures with: the project's own encoder (writer.py and the
modules it gathers) and the fixtures built on it."""
