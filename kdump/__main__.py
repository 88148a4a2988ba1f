"""``python -m kdump``."""

from kdump.cli import main

main()
