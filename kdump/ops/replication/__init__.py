"""``compare-replicas`` and ``lag``: the replicas of a partition across brokers' log dirs.

* :mod:`.logdirs` - log dirs (broker id, offset checkpoints) and the replicas in them;
* :mod:`.headers` - a partition's batch headers in offset order, its log end offset;
* :mod:`.epochs` - Kafka's leader-epoch cache and a follower's truncation;
* :mod:`.compare` - the comparison of a partition's replicas, batch header by header.

:mod:`kdump.ops.replicas` gives all their public names in one place.
"""
