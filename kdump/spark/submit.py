"""``spark-submit`` entry point: ``spark-submit [spark options] SUBMIT_PY COMMAND ARGS...``
runs ``kdump spark COMMAND ARGS...`` in the driver spark-submit starts, with the
master, deploy settings and configuration spark-submit was given::

    spark-submit --master yarn --num-executors 50 \\
        "$(python -m kdump.spark.submit --path)" verify-crc /mnt/kafka/broker-*/data

``python -m kdump.spark.submit --path`` prints this file's path.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> None:
    if argv == ["--path"]:
        print(os.path.abspath(__file__))
        return
    from kdump.cli import main as kdump_main

    kdump_main(["spark", *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
