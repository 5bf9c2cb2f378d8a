"""Run one piece of work from many threads at once, as concurrent requests would."""

from __future__ import annotations

import threading

from models.db import db


def at_once(work, arguments: list) -> list:
    """Call work(argument) in one thread per argument, all released together. Each thread
    holds its own database connection for the call and gives it back after, as a request
    or a message does. Returns each call's result, or the exception it raised."""
    barrier = threading.Barrier(len(arguments))
    outcomes: list = [None] * len(arguments)

    def run(index, argument):
        barrier.wait()
        try:
            with db.connection_context():
                outcomes[index] = work(argument)
        except Exception as error:  # noqa: BLE001  (reported to the test, which decides)
            outcomes[index] = error

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(arguments)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes
