"""The sample data's command line, where README.md names it: ``python tests/writer.py
sample DIR`` (and ``big``, ``replicas``, ``schemas``, ``cluster``).  The encoder itself is the
package tests/support (``tests.support.writer`` and the modules it gathers)."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tree holding tests/
    from tests.support.writer import _main

    sys.exit(_main(sys.argv[1:]))
