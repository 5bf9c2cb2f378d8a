"""Queue maintenance on a clock: each worker process gives back, every MAINTENANCE_SECONDS,
the messages a dead worker held, on every queue of its broker.

Dramatiq's Redis broker does this maintenance inside a command when chance says so (its
`maintenance_chance` option, Dramatiq's default one fetch in a thousand, which took 13
to 22 minutes after a SIGKILL), for the queue of that command only. Our broker turns
chance off (so a web request's send never pays for it), and this middleware's thread,
started when a worker boots, asks a second Dramatiq RedisBroker on the same connection
whose every command does it (`maintenance_chance` at Dramatiq's own scale) for each
queue's size: Dramatiq's documented option, no copy of its dispatch.
tests/workers/test_maintenance_flow.py holds Dramatiq to that behaviour.
"""

from __future__ import annotations

import logging
import threading

import dramatiq
from dramatiq.brokers import redis as dramatiq_redis

log = logging.getLogger(__name__)

# Each worker process runs that maintenance this often on every queue.
MAINTENANCE_SECONDS = 5.0


class Maintainer:
    """Runs Dramatiq's maintenance of `broker`'s queues when asked (`run`)."""

    def __init__(self, broker: dramatiq_redis.RedisBroker) -> None:
        self.broker = broker
        # Dramatiq's own broker class, on the same client and keys, no middleware: its
        # every command runs the maintenance of that command's queue. The command is
        # `do_qsize`, the read-only one Dramatiq's own `join` sends.
        self._maintaining = dramatiq_redis.RedisBroker(
            client=broker.client,
            namespace=broker.namespace,
            heartbeat_timeout=broker.heartbeat_timeout,
            dead_message_ttl=broker.dead_message_ttl,
            maintenance_chance=dramatiq_redis.MAINTENANCE_SCALE,
            middleware=[],
        )

    def run(self) -> None:
        """Maintain every queue the broker declares, and their delay queues (a retry
        waiting there is held by a worker too)."""
        queues = self.broker.get_declared_queues() | self.broker.get_declared_delay_queues()
        for queue in sorted(queues):
            self._maintaining.do_qsize(queue)


class QueueMaintenance(dramatiq.Middleware):
    """Starts a Maintainer's rounds when a worker boots on a Redis broker, and stops
    them when it shuts down. A round that fails (Redis down) is logged; the next one
    tries again."""

    def __init__(self, interval: float = MAINTENANCE_SECONDS) -> None:
        self.interval = interval
        self._stops: dict[dramatiq.Worker, threading.Event] = {}

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        if not isinstance(broker, dramatiq_redis.RedisBroker):
            return
        stop = self._stops[worker] = threading.Event()
        maintainer = Maintainer(broker)
        threading.Thread(
            target=self._rounds, args=(maintainer, stop), name="queue-maintenance", daemon=True
        ).start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        stop = self._stops.pop(worker, None)
        if stop is not None:
            stop.set()

    def _rounds(self, maintainer: Maintainer, stop: threading.Event) -> None:
        while True:
            try:
                maintainer.run()
            except Exception:
                log.warning(
                    "queue maintenance failed; next round in %.0f s", self.interval, exc_info=True
                )
            if stop.wait(self.interval):
                return
