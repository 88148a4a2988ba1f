"""Where kdump's ``spark-submit`` entry point is: ``python -m kdump.spark.submit --path``
prints the path of the file to give spark-submit::

    spark-submit --master yarn --num-executors 50 \\
        "$(python -m kdump.spark.submit --path)" verify-crc /mnt/kafka/broker-*/data

That file (``kdump/cli/spark_submit.py``) runs ``kdump spark COMMAND ARGS...`` in the
driver spark-submit starts.  It belongs to the command line, the floor above this one:
this module computes its path from its own and imports nothing of the CLI.
"""

from __future__ import annotations

import os
import sys

#: the entry point's file, beside this package in kdump/cli
ENTRY_POINT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "cli", "spark_submit.py")


def main(argv: list[str]) -> int:
    if argv == ["--path"]:
        print(ENTRY_POINT)
        return 0
    print(f"usage: python -m kdump.spark.submit --path  (then: spark-submit [spark options] "
          f"{ENTRY_POINT} COMMAND ARGS...)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
