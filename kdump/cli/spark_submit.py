"""``spark-submit`` entry point: ``spark-submit [spark options] SPARK_SUBMIT_PY COMMAND
ARGS...`` runs ``kdump spark COMMAND ARGS...`` in the driver spark-submit starts, with
the master, deploy settings and configuration spark-submit was given::

    spark-submit --master yarn --num-executors 50 \\
        "$(python -m kdump.spark.submit --path)" verify-crc /mnt/kafka/broker-*/data

``python -m kdump.spark.submit --path`` prints this file's path.  It lives with the
command line (it runs it); :mod:`kdump.spark.submit` only names it, so the Spark floor
never imports the CLI.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> None:
    from kdump.cli import main as kdump_main

    kdump_main(["spark", *argv])


if __name__ == "__main__":
    # run as a file, Python puts kdump/cli first on sys.path, where dump.py, find.py,
    # metadata.py, spark.py... would shadow top-level modules of those names
    import os

    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    main(sys.argv[1:])
