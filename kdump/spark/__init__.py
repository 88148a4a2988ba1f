"""kdump on Spark: whole fleets of log dirs, read in parallel through PySpark.

The only package of kdump that imports pyspark (and only when used):

* :func:`register` adds the ``kafka_log`` data source to a session::

      import kdump.spark
      kdump.spark.register(spark)
      spark.read.format("kafka_log").load("/data/kafka-logs").groupBy("topic").count()

* ``kdump spark size-report | verify-crc | export`` (:mod:`kdump.cli.spark`) run the
  local commands' work on executors (:mod:`kdump.spark.jobs`) and print the same output.

Install with ``pip install 'kdump[spark]'`` (pyspark and pyarrow); Spark needs Java 17+.
See docs/spark.md.
"""

from __future__ import annotations

from typing import Any

__all__ = ["register"]


def register(spark: Any, *, ship: bool = True) -> None:
    """Register the ``kafka_log`` data source with ``spark`` (a SparkSession).  On a
    non-local master kdump is first shipped to the executors (``addPyFile`` of a zip of
    this kdump), so they need only kdump's dependencies installed; ``ship=False`` when
    kdump is installed on the nodes (a zip cannot carry its native speed-ups)."""
    from .session import prepare

    prepare(spark, ship=ship)
