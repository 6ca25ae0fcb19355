"""The broker: the trainer's end of the pool. One module per job:

- :mod:`~sc2pool.broker.transport`: the ROUTER socket, lanes, sending requests, gathering replies;
- :mod:`~sc2pool.broker.registry`: the worker table, local worker processes, HELLO handling;
- :mod:`~sc2pool.broker.admission`: the HELLO rules as a pure function (admit, spare or refuse);
- :mod:`~sc2pool.broker.supervision`: liveness and carrying out the failure policy;
- :mod:`~sc2pool.broker.restart_policy`: the failure policy itself (restart counts, timeouts);
- :mod:`~sc2pool.broker.processes`: killing and reaping local processes;
- :mod:`~sc2pool.broker.service`: the thread that keeps heartbeats flowing between calls;
- :mod:`~sc2pool.broker.records`: the records they share; :mod:`~sc2pool.broker.state`: the pool's
  shared state; :mod:`~sc2pool.broker.core`: the :class:`Broker`, which is that state and wires
  the transport, the registry and the supervisor (objects, each holding what it needs of the
  others) together.
"""

from sc2pool.broker.core import Broker
from sc2pool.broker.processes import describe_exit, reap_processes
from sc2pool.broker.records import LocalSlot, Reply, Spawner, Vacancy, WorkerInfo, WorkerRecord
from sc2pool.broker.restart_policy import RestartPolicy

__all__ = [
    "Broker",
    "LocalSlot",
    "Reply",
    "RestartPolicy",
    "Spawner",
    "Vacancy",
    "WorkerInfo",
    "WorkerRecord",
    "describe_exit",
    "reap_processes",
]
