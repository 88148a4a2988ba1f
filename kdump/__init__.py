"""kdump: a forensic reader of Apache Kafka's on-disk data (no broker, no JVM).

The public API is small; commands are iterators of plain objects:

>>> from kdump import FileSource, iter_log
>>> with FileSource("00000000000000000000.log") as src:      # doctest: +SKIP
...     for item in iter_log(src):
...         print(item)
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
